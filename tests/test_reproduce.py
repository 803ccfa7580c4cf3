"""Reproduction cases as data: parsing, verdicts, records and badges (no process runs here)."""

from __future__ import annotations

import json

from generator.repro.cases import (
    CaseRun,
    CaseVerdict,
    ReproCase,
    badges,
    case_record,
    case_sha256,
    judge_error,
    judge_fix,
    merge_record,
    reproduction_views,
    reproductions,
    tier_record,
    trusted_record,
    watch_targets,
    with_article,
)

ID = "40a9e62adbd6db45"
OTHER = "ebabeac6c68e1d45"
PAIR = {
    "error": {"cli": ["vllm", "serve", "models/m", "--max-model-len", "100000"], "requires": "cpu", "expect": ID},
    "fix": {"cli": ["vllm", "serve", "models/m", "--max-model-len", "4096"], "requires": "cpu", "reach": "engine-config"},
}


def matcher(answers: dict[str, str]):
    """A stand-in for the lookup matcher: the id whose key text occurs in the paste."""
    return lambda text: next((i for key, i in answers.items() if key in text), None)


def test_one_pair_or_a_list_of_pairs():
    [one] = reproductions("e", "errors/e.yaml", PAIR)
    assert (one.tier, one.index, one.label, one.fix.stop_at()) == ("cpu", 0, "e", "engine-config")
    cuda = {"error": dict(PAIR["error"], requires="cuda", min_gpu_memory_gib=24), "fix": dict(PAIR["fix"], requires="cuda", reach="health")}
    first, second = reproductions("e", "errors/e.yaml", [dict(PAIR, simulates="NVIDIA L4 24GB"), cuda])
    assert (first.label, second.label, second.tier, second.error.min_gpu_memory_gib) == ("e[0]", "e[1]", "cuda", 24)
    assert "the values an NVIDIA L4 24GB would produce" in first.verification_kind()


def test_a_simulated_machine_gets_its_article_once():
    assert with_article("NVIDIA L4 24GB") == "an NVIDIA L4 24GB"
    assert with_article("AMD Instinct MI300X") == "an AMD Instinct MI300X"
    assert with_article("Docker container's 64 MiB /dev/shm") == "a Docker container's 64 MiB /dev/shm"
    assert with_article("a DP Coordinator process that needs 130 s to start") == "a DP Coordinator process that needs 130 s to start"
    assert with_article("any CUDA GPU") == "any CUDA GPU"
    assert with_article("8x NVIDIA H100 80GB") == "an 8x NVIDIA H100 80GB"
    assert with_article("2× NVIDIA H100 80GB") == "a 2× NVIDIA H100 80GB"
    assert with_article("Intel XPU (Data Center GPU Max)") == "an Intel XPU (Data Center GPU Max)"
    assert with_article("one NVIDIA GPU visible") == "one NVIDIA GPU visible"
    assert reproductions("e", "errors/e.yaml", {}) == []


def test_the_error_case_passes_only_when_the_matcher_names_the_expected_id():
    case = ReproCase(role="error", kind="python", expect=ID)
    raised = CaseRun("raised", exception={"type": "ValueError", "message": "too long", "traceback": "ValueError: too long"})
    assert judge_error(case, raised, matcher({"too long": ID})).passed
    wrong = judge_error(case, raised, matcher({"too long": OTHER}))
    assert not wrong.passed and OTHER in wrong.summary and ID in wrong.summary
    returned = judge_error(case, CaseRun("returned"), matcher({}))
    assert not returned.passed and "ran to its end" in returned.summary


def test_an_error_raised_from_the_expected_one_counts():
    case = ReproCase(role="error", kind="python", expect=ID)
    run = CaseRun("raised", exception={"type": "ValueError", "message": "outer", "traceback": "ValueError: outer",
                                       "causes": [{"type": "ValueError", "message": "inner cause"}]})
    verdict = judge_error(case, run, matcher({"outer": OTHER, "inner cause": ID}))
    assert verdict.passed and "the cause of" in verdict.summary


def test_a_wrapper_raised_after_the_expected_error_in_the_log_counts():
    case = ReproCase(role="error", kind="cli", expect=ID)
    run = CaseRun("raised", log_tail="ERROR EngineCore failed: ValueError: root cause\n",
                  exception={"type": "RuntimeError", "message": "Engine core initialization failed", "traceback": "RuntimeError: Engine core"})
    verdict = judge_error(case, run, lambda text: ID if "root cause" in text else OTHER)
    assert verdict.passed and "in the log" in verdict.summary
    assert not judge_error(case, run, matcher({"Engine core": OTHER})).passed


def test_an_error_vllm_logs_is_reproduced_by_the_line_it_logs():
    case = ReproCase(role="error", kind="cli", expect=ID)
    logged = "(APIServer pid=7) WARNING 12-01 10:00:00 [envs.py:1] Unknown vLLM environment variable detected: VLLM_X\n"
    verdict = judge_error(case, CaseRun("returned", log_tail="INFO starting\n" + logged), matcher({"Unknown vLLM": ID}))
    assert verdict.passed and verdict.summary.startswith(f"logged {ID}: (APIServer pid=7) WARNING")
    # the same text printed, not logged at warning level or above, reproduces nothing
    printed = CaseRun("returned", log_tail="INFO Unknown vLLM environment variable detected: VLLM_X\n")
    assert not judge_error(case, printed, matcher({"Unknown vLLM": ID})).passed
    raised = CaseRun("raised", log_tail=logged, exception={"type": "SystemExit", "message": "1", "traceback": "SystemExit: 1"})
    verdict = judge_error(case, raised, lambda text: ID if text.strip().endswith("VLLM_X") else None)
    assert verdict.passed and "then raised SystemExit: 1" in verdict.summary


def test_a_timeout_or_crash_is_a_failed_error_case_saying_so():
    case = ReproCase(role="error", kind="python", expect=ID)
    assert "timed out" in judge_error(case, CaseRun("timeout", duration_s=5), matcher({})).summary
    assert "SIGSEGV" in judge_error(case, CaseRun("crashed", reason="killed by SIGSEGV"), matcher({})).summary


WATCHED_OK = [{"path": "vllm/config/model.py", "function": "f", "entered": 1, "returned": 1, "escaped": 0, "raise_executed": 0}]


def test_the_fix_case_must_reach_its_point_and_pass_the_raising_function():
    case = ReproCase(role="fix", kind="cli", reach="engine-config")
    assert judge_fix(case, CaseRun("reached", reached="engine-config", watch=WATCHED_OK), watched=True).passed
    never = [dict(WATCHED_OK[0], entered=0, returned=0)]
    verdict = judge_fix(case, CaseRun("reached", reached="engine-config", watch=never), watched=True)
    assert not verdict.passed and "never entered" in verdict.summary
    raised = [dict(WATCHED_OK[0], raise_executed=1)]
    assert not judge_fix(case, CaseRun("reached", reached="engine-config", watch=raised), watched=True).passed
    other_error = CaseRun("raised", exception={"type": "ValueError", "message": "boom"})
    assert "raised ValueError: boom" in judge_fix(case, other_error, watched=True).summary


def test_a_fix_summary_of_many_watched_functions_names_the_raising_one_and_counts_the_rest():
    """An error raised from 44 files (a layer registry check) must still fit a record's 2,000 characters."""
    case = ReproCase(role="fix", kind="python", reach="return")
    watch = [dict(WATCHED_OK[0], path=f"vllm/model_executor/layers/layer_{n}.py", function=f"Layer{n}.__init__", entered=0, returned=0)
             for n in range(44)]
    watch[30] = dict(watch[30], entered=1, raise_executed=1)
    verdict = judge_fix(case, CaseRun("returned", watch=watch), watched=True)
    assert not verdict.passed
    assert verdict.summary == "reached return; a raise statement of vllm/model_executor/layers/layer_30.py:Layer30.__init__ was executed"
    never = [dict(w, entered=0, raise_executed=0) for w in watch]
    verdict = judge_fix(case, CaseRun("returned", watch=never), watched=True)
    assert not verdict.passed and len(verdict.summary) < 2000 and verdict.summary.startswith("reached return; never entered vllm/")
    assert "and 38 more, so it did not show" in verdict.summary


def test_a_passed_fix_summary_names_only_the_functions_it_entered():
    """Of three functions that raise the error, the case entered one: the summary names that one."""
    case = ReproCase(role="fix", kind="python", reach="return")
    watch = [dict(WATCHED_OK[0], path=f"vllm/{name}.py", function=name, entered=0, returned=0) for name in ("a", "b", "c")]
    watch[2] = dict(watch[2], entered=1, returned=1)
    verdict = judge_fix(case, CaseRun("returned", watch=watch), watched=True)
    assert verdict.passed
    assert verdict.summary == "reached return; vllm/c.py:c returned normally 1 time(s), no raise statement executed"


def test_a_fix_case_that_only_returns_does_not_reach_a_health_check():
    case = ReproCase(role="fix", kind="cli", reach="health")
    assert not judge_fix(case, CaseRun("returned"), watched=False).passed
    assert judge_fix(case, CaseRun("reached", reached="health"), watched=False).passed
    exit0 = ReproCase(role="fix", kind="cli", reach="exit-0")
    assert judge_fix(exit0, CaseRun("exited", exit_code=0), watched=False).passed
    assert not judge_fix(exit0, CaseRun("exited", exit_code=1), watched=False).passed


def test_the_watched_functions_are_the_sites_of_the_expected_error():
    error = {"sites": [{"path": "vllm/a.py", "line": 10, "function": "A.f"}, {"path": "vllm/a.py", "line": 20, "function": "A.f"},
                       {"path": "vllm/b.py", "line": 5, "function": None}]}
    fix = ReproCase(role="fix", kind="python", reach="return")
    assert watch_targets(fix, error) == [
        {"path": "vllm/a.py", "function": "A.f", "raise_lines": [10, 20]},
        {"path": "vllm/b.py", "function": "", "raise_lines": [5]},
    ]
    past = ReproCase(role="fix", kind="python", reach="return", past="vllm/r.py:Registry.inspect")
    assert watch_targets(past, error) == [{"path": "vllm/r.py", "function": "Registry.inspect", "raise_lines": []}]
    assert watch_targets(ReproCase(role="fix", kind="python", past="none"), error) == []
    # an assert's line runs whether it fails or not: the child counts it only when it raises
    asserted = {"kind": "assert", "sites": [{"path": "vllm/a.py", "line": 10, "function": "A.f"}]}
    assert watch_targets(fix, asserted) == [{"path": "vllm/a.py", "function": "A.f", "raise_lines": [], "assert_lines": [10]}]


SANDBOXED = "bwrap: network, pid, ipc, uts and mount namespaces; read-only system and vLLM, no repository; rlimits; as uid 65534"
CUDA_PAIR = {"error": dict(PAIR["error"], requires="cuda"), "fix": dict(PAIR["fix"], requires="cuda")}


def _record(version: str, passed: bool = True, gpu=None, pair=PAIR, isolation: str = SANDBOXED) -> dict:
    """A record as `errorkb verify` writes it, of ``pair`` as the entry writes it."""
    [repro] = reproductions("e", "errors/e.yaml", pair)
    raised = CaseRun("raised", 0.5, exception={"type": "ValueError", "message": "too long", "traceback": "ValueError: too long"})
    error = case_record(repro.error, raised, CaseVerdict(passed, "raised" if passed else "expected something else", ID))
    fix = case_record(repro.fix, CaseRun("reached", 0.5, reached="engine-config"), CaseVerdict(True, "reached engine-config"))
    run = tier_record(repro, {"vllm": version, "gpu": gpu}, "2026-11-30", error, fix, isolation)
    return merge_record(None, "e", run)


def test_badges_say_reproduced_stale_failed_or_not_yet_run():
    repros = reproductions("e", "errors/e.yaml", PAIR)
    [passed] = badges(repros, _record("0.33.0"), "0.33.0")
    assert (passed.state, passed.text) == ("passed", "Error and fix reproduced on CPU · vLLM 0.33.0 · 2026-11-30")
    [stale] = badges(repros, _record("0.32.0"), "0.33.0")
    assert stale.state == "stale" and "0.32.0" in stale.text and "0.33.0" in stale.text
    [failed] = badges(repros, _record("0.33.0", passed=False), "0.33.0")
    assert failed.state == "failed"
    [pending] = badges(repros, None, "0.33.0")
    assert (pending.state, pending.text) == ("pending", "Not yet reproduced on CPU")
    cuda = reproductions("e", "errors/e.yaml", CUDA_PAIR)
    assert badges(cuda, None, "0.33.0")[0].text == "Not yet run on a GPU"
    record = _record("0.33.0", pair=CUDA_PAIR, gpu={"name": "NVIDIA H100 80GB HBM3", "memory_gib": 79.6})
    assert badges(cuda, record, "0.33.0")[0].text == "Verified on NVIDIA H100 80GB HBM3 · vLLM 0.33.0 · 2026-11-30"


def test_pairs_whose_badges_read_alike_share_one_that_counts_them():
    two = reproductions("e", "errors/e.yaml", [PAIR, PAIR])
    raised = CaseRun("raised", 0.5, exception={"type": "ValueError", "message": "too long", "traceback": "ValueError: too long"})
    record = None
    for repro in two:
        error = case_record(repro.error, raised, CaseVerdict(True, "raised", ID))
        fix = case_record(repro.fix, CaseRun("reached", 0.5, reached="engine-config"), CaseVerdict(True, "reached engine-config"))
        record = merge_record(record, "e", tier_record(repro, {"vllm": "0.33.0"}, "2026-11-30", error, fix, SANDBOXED))
        if record and len(record["runs"]) == 1:
            # a pair not yet run reads otherwise, and keeps its own badge
            assert [b.state for b in badges(two, record, "0.33.0")] == ["passed", "pending"]
    [badge] = badges(two, record, "0.33.0")
    assert (badge.state, badge.text) == ("passed", "Error and fix reproduced on CPU · vLLM 0.33.0 · 2026-11-30 · 2 pairs")


def test_merging_a_record_keeps_the_other_tiers():
    record = _record("0.33.0")
    record["runs"]["cuda"] = {"tier": "cuda"}
    merged = merge_record(record, "e", dict(record["runs"]["cpu"], date="2026-12-01"))
    assert merged["runs"]["cuda"] == {"tier": "cuda"} and merged["runs"]["cpu"]["date"] == "2026-12-01"


def test_a_page_shows_commands_as_a_person_would_type_them():
    pair = {"error": {"cli": ["vllm", "serve", "m", "--speculative-config", '{"model": "m"}'], "env": {"VLLM_X": "1"}, "expect": ID},
            "fix": {"python": "import vllm\n", "reach": "return"}}
    [view] = reproduction_views(reproductions("e", "errors/e.yaml", pair), None, "0.33.0")
    assert view["error"]["text"] == """VLLM_X=1 vllm serve m --speculative-config '{"model": "m"}'"""
    assert view["fix"] == {"lang": "python", "text": "import vllm", "reach": "the code ran to its end", "diff": None,
                           "file": "reproduce/e/cpu-fix.py", "lines": 1}
    assert view["error"]["file"] == "reproduce/e/cpu-error.sh"
    assert view["run"] is None and view["badge"]["state"] == "pending"


def test_a_fix_snippet_that_changes_one_line_is_shown_as_that_change():
    code = "".join(f"step_{n}()\n" for n in range(8))
    pair = {"error": {"python": code + "build(max_model_len=100000)\n", "expect": ID},
            "fix": {"python": code + "build(max_model_len=4096)\n", "reach": "return"}}
    [view] = reproduction_views(reproductions("e", "errors/e.yaml", pair), None, "0.33.0")
    assert view["fix"]["diff"].splitlines() == [
        "--- error case", "+++ fix case", "@@ -8,2 +8,2 @@", " step_7()",
        "-build(max_model_len=100000)", "+build(max_model_len=4096)"]


# --- records a page may trust ----------------------------------------------------------------------


def test_a_case_hash_is_of_its_canonical_json():
    assert case_sha256({"b": [1, "é"], "a": None}) == case_sha256({"a": None, "b": [1, "é"]})
    import hashlib

    assert case_sha256({"cli": ["vllm"]}) == hashlib.sha256(b'{"cli":["vllm"]}').hexdigest()
    [repro] = reproductions("e", "errors/e.yaml", PAIR)
    assert repro.error.sha256 == case_sha256(PAIR["error"]) != repro.fix.sha256


def test_a_record_carries_the_hash_of_each_case_and_its_isolation():
    run = _record("0.33.0")["runs"]["cpu"]
    assert run["error"]["case_sha256"] == case_sha256(PAIR["error"]) and run["fix"]["case_sha256"] == case_sha256(PAIR["fix"])
    assert run["isolation"] == SANDBOXED


def _hand_edited() -> list[tuple[str, dict]]:
    failed = _record("0.33.0", passed=False)
    edits = []
    forged = json.loads(json.dumps(failed))
    forged["runs"]["cpu"]["passed"] = True  # the badge, without the cases
    edits.append(("passed without its cases", forged))
    forged = json.loads(json.dumps(failed))
    forged["runs"]["cpu"]["passed"] = forged["runs"]["cpu"]["error"]["passed"] = True
    del forged["runs"]["cpu"]["error"]["case_sha256"]
    edits.append(("no case hash", forged))
    forged = _record("0.33.0")
    forged["runs"]["cpu"]["duration_s"] = "<img src=x onerror=alert(1)>"
    edits.append(("HTML in a number", forged))
    forged = _record("0.33.0")
    forged["runs"]["cpu"]["verified_by"] = "me"
    edits.append(("a field of its own", forged))
    forged = _record("0.33.0")
    forged["runs"]["cpu"]["error"]["cli"] = ["sh", "-c", "x"]
    edits.append(("another command", forged))
    return edits


def test_a_hand_edited_record_shows_no_badge():
    repros = reproductions("e", "errors/e.yaml", PAIR)
    assert badges(repros, _record("0.33.0"), "0.33.0")[0].state == "passed"
    for what, record in _hand_edited():
        [badge] = badges(repros, record, "0.33.0")
        assert (badge.state, badge.text) == ("pending", "Not yet reproduced on CPU"), what
        [view] = reproduction_views(repros, record, "0.33.0")
        assert view["run"] is None and view["isolation"] is None, what
        assert trusted_record(repros, record) is None, what
    assert badges(repros, {"entry": "e", "runs": []}, "0.33.0")[0].state == "pending"
    assert badges(repros, ["not", "a", "record"], "0.33.0")[0].state == "pending"


def test_a_record_of_another_version_of_the_case_is_stale_and_shows_no_badge():
    record = _record("0.33.0")
    changed = {"error": dict(PAIR["error"], cli=[*PAIR["error"]["cli"], "--enforce-eager"]), "fix": PAIR["fix"]}
    [badge] = badges(reproductions("e", "errors/e.yaml", changed), record, "0.33.0")
    assert badge.state == "pending"
    simulated = dict(PAIR, simulates="NVIDIA L4 24GB")
    assert badges(reproductions("e", "errors/e.yaml", simulated), record, "0.33.0")[0].state == "pending"


def test_a_run_without_namespaces_says_so_on_its_badge():
    repros = reproductions("e", "errors/e.yaml", PAIR)
    record = _record("0.33.0", isolation="rlimits only (bwrap is not installed): no namespaces; as uid 65534")
    [badge] = badges(repros, record, "0.33.0")
    assert (badge.state, badge.text) == ("passed", "Error and fix reproduced on CPU · vLLM 0.33.0 · 2026-11-30 · not sandboxed (rlimits only)")
    [view] = reproduction_views(repros, record, "0.33.0")
    assert view["isolation"].startswith("rlimits only")
