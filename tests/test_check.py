"""errorkb check and errorkb new: the checks beyond the schema, the corpus of bad entries,
the real entries at the pin, and a new entry from a pasted error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import yaml

from generator.entries.check import check_entries, links, vllm_flags
from generator.entries.load import available_models, load_entries
from generator.entries.schema import SCHEMA_FILE, SCHEMA_LINE

ROOT = Path(__file__).resolve().parents[1]
BAD = ROOT / "tests" / "data" / "bad-entries"
MAMBA_PASTE = ROOT / "tests" / "data" / "pastes" / "a-038-mamba-max-num-seqs-worker-failed.json"
MAMBA_ID = "c8f7b9d6b5fb8793"

# A tiny catalog: one error per bad entry, and two that suggestions can point at.
CATALOG = [
    {"id": f"a00000000000000{c}", "exception": "ValueError", "template": f"placeholder error number {c} ({{x}})", "sites": []}
    for c in "123456789ab"
] + [
    {"id": "d000000000000001", "exception": "ValueError", "template": "an error two entries claim", "sites": []},
    {"id": MAMBA_ID, "exception": "ValueError",
     "template": "max_num_seqs ({max_num_reqs}) exceeds available Mamba cache blocks ({num_blocks}).", "sites": []},
    {"id": "0d5a6b3c2e1f4a7b", "exception": "ValueError",
     "template": "User-specified max_model_len ({max_model_len}) is greater than the derived max_model_len "
                 "({max_len_key}={derived_max_model_len} or model_max_length={model_max_length} in model's config.json).",
     "sites": []},
]
FLAGS = {"--max-num-seqs", "--gpu-memory-utilization", "--max-model-len", "--tensor-parallel-size",
         "--enforce-eager", "--no-enforce-eager", "--model", "--host", "--port", "--compilation-config"}


def problems_in(folder: Path, root: Path, catalog=CATALOG, flags=FLAGS, rev="v9.9.9"):
    entries, problems = load_entries(folder, root)
    return sorted(problems + check_entries(entries, catalog, flags, rev))


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def entry_text(ids: str = "[a000000000000001]", extra: str = "") -> str:
    return (
        f"{SCHEMA_LINE}\nids: {ids}\ntitle: A problem worth a page\n"
        "summary: A summary that is long enough for the schema.\n"
        "solutions:\n  - title: Do this\n    why: Because it helps.\n" + extra
    )


# --- the corpus of bad entries ------------------------------------------------------------------------


def expected_lines() -> list[tuple[str, int, int, str]]:
    out = []
    for line in (BAD / "expected.txt").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        path, row, col, message = line.split(":", 3)
        out.append((path, int(row), int(col), message.strip()))
    return out


def test_bad_entries_report_exactly_the_expected_problems():
    found = problems_in(BAD, BAD)
    expected = expected_lines()
    report = "\n".join(map(str, found))
    assert [(p.path, p.line, p.col) for p in found] == [(e[0], e[1], e[2]) for e in expected], report
    for problem, (*_, message) in zip(found, expected):
        assert message in problem.message, f"{problem}\n  expected to contain: {message}"


def test_every_bad_entry_has_its_problems_listed():
    files = {path.name for path in BAD.glob("*.yaml")}
    listed = {e[0] for e in expected_lines()}
    assert files == listed


def test_problems_are_relative_to_the_root_and_sorted():
    found = problems_in(BAD, ROOT)
    assert found and all(p.path.startswith("tests/data/bad-entries/") for p in found)
    assert found == sorted(found, key=lambda p: (p.path, p.line, p.col))
    assert str(found[0]).startswith("tests/data/bad-entries/bad-flag.yaml:14:11: ")


def test_a_clean_entry_has_no_problems(tmp_path):
    write(tmp_path, "ok.yaml", entry_text(extra=(
        "    commands:\n"
        "      vllm: vllm serve M --max-num-seqs 8 --no-enforce-eager --compilation-config.mode 3 --host=0.0.0.0\n"
        "explanation: See [the other page](../0d5a6b3c2e1f4a7b/), [docs](https://docs.vllm.ai) and [mail](mailto:a@b.c).\n"
    )))
    assert problems_in(tmp_path, tmp_path) == []


# --- ids ------------------------------------------------------------------------------------------------


def test_an_unknown_id_next_to_known_ones_suggests_from_their_templates(tmp_path):
    catalog = CATALOG + [{"id": "b000000000000001", "exception": "ValueError",
                          "template": "max_num_seqs ({n}) exceeds available Mamba cache blocks ({m}), lower it", "sites": []}]
    write(tmp_path, "x.yaml", entry_text(ids=f"[{MAMBA_ID}, e000000000000002]"))
    (problem,) = problems_in(tmp_path, tmp_path, catalog=catalog)
    assert (problem.line, problem.col) == (2, 25)
    assert problem.message.startswith("id e000000000000002 is not raised at v9.9.9; did you mean b000000000000001 (`max_num_seqs")


# --- vllm commands ----------------------------------------------------------------------------------


def test_flags_are_read_only_after_vllm_serve():
    command = (
        "# default: --not-checked 1\n"
        "CUDA_VISIBLE_DEVICES=0 vllm serve M --a 1 \\\n  --b=2 | tee --append log\n"
        "docker run --gpus all vllm/vllm-openai --c && python -m x --d; vllm serve M '--e' --f.g 3 -- --h\n"
        "vllm bench serve --i\n"
        ".venv/bin/vllm serve M --j"
    )
    assert [(t.word, command[t.offset : t.offset + len(t.text)]) for t in vllm_flags(command)] == [
        ("--a", "--a"), ("--b", "--b"), ("--e", "'--e'"), ("--f.g", "--f.g"), ("--j", "--j"),
    ]


def test_flag_problems_point_at_the_flag_and_suggest_the_closest(tmp_path):
    write(tmp_path, "x.yaml", entry_text(extra=(
        "    commands:\n"
        "      vllm: >-\n"
        "        vllm serve M --max-num-seqs 8\n"
        "        --max_model_len 4096 --tensor-paralel-size 2 --help --totally-unknown\n"
        "      python: LLM(model='M', --not-a-flag)\n"
    )))
    found = problems_in(tmp_path, tmp_path)
    assert [(p.line, p.col) for p in found] == [(11, 9), (11, 30), (11, 61)]
    assert "written --max-model-len" in found[0].message
    assert found[1].message.endswith("did you mean --tensor-parallel-size?")
    assert "check `vllm serve --help`" in found[2].message


# --- links ---------------------------------------------------------------------------------------------


def test_link_targets_skip_code():
    text = "a `[x](y)` [b](c.md) ![i](<img one.png>)\n```\n[d](e)\n```\n[f](../0123456789abcdef/#x \"t\")"
    assert [t for t, _ in links(text)] == ["c.md", "img one.png", "../0123456789abcdef/#x"]


def test_links_in_causes_and_faq_are_checked(tmp_path):
    write(tmp_path, "x.yaml", entry_text(extra=(
        "causes:\n  - See [this](other.md).\n"
        "faq:\n  - q: Where is [it](../a000000000000002/)?\n    a: \"[Here](errors/x/) and [there](../a000000000000003/#fix)\"\n"
    )))
    found = problems_in(tmp_path, tmp_path)
    assert [(p.line, p.col, p.message.split(" in ")[0]) for p in found] == [
        (9, 16, "broken link other.md"), (12, 16, "broken link errors/x/"),
    ]


# --- the command line, at the pin ------------------------------------------------------------------


def errorkb(*args: str, cache: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "ERRORKB_CACHE_DIR": str(cache)}
    return subprocess.run([sys.executable, "-m", "generator", *args], cwd=ROOT, env=env, capture_output=True, text=True)


def test_the_real_entries_pass_errorkb_check_at_the_pin(corpus_bundle, session_cache):
    result = errorkb("check", "--source", str(corpus_bundle), "--rev", "v0.33.0", cache=session_cache)
    assert result.returncode == 0, result.stdout + result.stderr
    count = len([f for f in (ROOT / "errors").glob("*.yaml") if f.name not in ("reports.yaml", "lineage.yaml")])  # not entries
    assert result.stdout == f"{count} entries, no problems\n"


def test_errorkb_check_lists_every_problem_and_exits_1(corpus_bundle, session_cache, tmp_path):
    write(tmp_path, "a.yaml", entry_text(ids=f"[{MAMBA_ID}]", extra="    commands:\n      vllm: vllm serve M --max-num-seq 8\n"))
    write(tmp_path, "b.yaml", entry_text(ids=f"[{MAMBA_ID}, ffffffffffffffff]").replace("title: A problem", "titel: A problem"))
    result = errorkb("check", "--source", str(corpus_bundle), "--rev", "v0.33.0", "--errors", str(tmp_path), "--pin-only",
                     cache=session_cache)
    assert result.returncode == 1, result.stderr
    messages = [line.split(": ", 1)[1] for line in result.stdout.splitlines()]
    assert len(messages) == 6, result.stdout
    assert "`vllm serve` has no flag --max-num-seq at v0.33.0; did you mean --max-num-seqs?" in messages
    assert any(m.startswith("id ffffffffffffffff is not raised at v0.33.0; did you mean ") for m in messages)
    assert sum(f"id {MAMBA_ID} is also claimed by" in m for m in messages) == 2
    assert sum("unknown field `titel`" in m or "required field `title`" in m for m in messages) == 2
    assert "problems in 2 of 2 entries" in result.stderr


def test_errorkb_new_writes_a_skeleton_and_refuses_to_overwrite(corpus_bundle, session_cache, tmp_path):
    from jsonschema import Draft202012Validator

    from generator.vllm.engine_args import serve_flags_at
    from generator.scan.sources import resolve

    paste = json.loads(MAMBA_PASTE.read_text(encoding="utf-8"))["paste"]
    folder = tmp_path / "errors"
    args = ("new", paste, "--source", str(corpus_bundle), "--rev", "v0.33.0", "--errors", str(folder))
    result = errorkb(*args, cache=session_cache)
    assert result.returncode == 0, result.stderr
    (written,) = folder.glob("*.yaml")
    assert result.stdout.strip() == str(written)
    assert written.name == "max-num-seqs-exceeds-available-mamba.yaml"
    text = written.read_text(encoding="utf-8")
    assert text.startswith(SCHEMA_LINE + "\n")
    data = yaml.safe_load(text)
    assert list(Draft202012Validator(json.loads(SCHEMA_FILE.read_text())).iter_errors(data)) == []
    assert data["ids"] == [MAMBA_ID]
    assert data["title"].startswith("max_num_seqs")
    command = data["solutions"][0]["commands"]["vllm"]
    assert command.splitlines()[-1].startswith("vllm serve MODEL ")
    assert "--max-num-seqs" in command.splitlines()[-1] and "--gpu-memory-utilization" in command.splitlines()[-1]
    assert "# default: --gpu-memory-utilization 0.92" in command

    # Only the placeholders are left for `errorkb check` to report (the flags are the pin's).
    revision = resolve(str(corpus_bundle), "v0.33.0", session_cache)
    found = problems_in(folder, ROOT, [e for e in CATALOG if e["id"] == MAMBA_ID], serve_flags_at(revision), "v0.33.0")
    assert found and all("TODO placeholder" in p.message for p in found), "\n".join(map(str, found))
    assert {p.message.split("`")[1] for p in found} == {
        "summary", "explanation", "causes[0]", "solutions[0].title", "solutions[0].why", "solutions[0].commands.vllm"}

    written.write_text(text + "# edited\n", encoding="utf-8")
    again = errorkb(*args, cache=session_cache)
    assert again.returncode == 2
    assert again.stderr.strip().splitlines() == [f"errorkb: error: {written} exists; pass --force to overwrite it"]
    assert written.read_text(encoding="utf-8").endswith("# edited\n")


def test_errorkb_new_without_a_match_is_one_line_exit_2(corpus_bundle, session_cache, tmp_path):
    result = errorkb("new", "the weather is nice today", "--source", str(corpus_bundle), "--rev", "v0.33.0",
                     "--errors", str(tmp_path), cache=session_cache)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "no vLLM error at v0.33.0 matches" in result.stderr
    assert list(tmp_path.iterdir()) == []


# --- reproduction cases -----------------------------------------------------------------------------


def test_reproduce_sections_are_checked_beyond_the_schema(tmp_path):
    (tmp_path / "models" / "small").mkdir(parents=True)
    (tmp_path / "models" / "small" / "config.json").write_text("{}")
    extra = """\
reproduce:
  error:
    cli: [vllm, serve, models/small, --max-model-lenn, "100"]
    expect: a000000000000002
  fix:
    cli: [vllm, serve, models/missing, --max-model-len, "100"]
    requires: cuda
    reach: health
"""
    write(tmp_path / "errors", "r.yaml", entry_text(extra=extra))
    entries, schema_problems = load_entries(tmp_path / "errors", tmp_path)
    assert schema_problems == []
    found = [str(p) for p in check_entries(entries, CATALOG, FLAGS, "v9.9.9", available_models(tmp_path))]
    assert found == [
        "errors/r.yaml:10:38: `vllm serve` has no flag --max-model-lenn at v9.9.9; did you mean --max-model-len?",
        "errors/r.yaml:11:13: the error case expects a000000000000002, which is not among this entry's ids; expect one of them, or add it to `ids`",
        "errors/r.yaml:13:24: models/missing/config.json does not exist: add the model's configuration under models/, or use one that is there",
        "errors/r.yaml:14:15: the error case runs on cpu and the fix case on cuda: a pair runs on one tier; give both the same `requires`",
    ]


def test_a_health_check_needs_a_server_and_an_error_case_needs_expect(tmp_path):
    extra = """\
reproduce:
  error:
    python: "raise ValueError('x')"
  fix:
    python: "pass"
    reach: health
"""
    write(tmp_path / "errors", "r.yaml", entry_text(extra=extra))
    entries, schema_problems = load_entries(tmp_path / "errors", tmp_path)
    assert [str(p) for p in schema_problems] == [
        "errors/r.yaml:10:5: `reproduce.error` is missing the required field `expect`: add `expect:` "
        "(Error cases: the error id the raised exception must be matched to by the lookup matcher.)"]
    found = [str(p) for p in check_entries(entries, CATALOG, FLAGS, "v9.9.9", available_models(tmp_path))]
    assert found == ["errors/r.yaml:13:12: `reach: health` needs a server: a `cli: [vllm, serve, ...]` case"]


def test_a_case_is_a_snippet_or_a_command_line_not_both(tmp_path):
    extra = """\
reproduce:
  - error:
      expect: a000000000000001
      requires: gpu
    fix:
      python: "pass"
      cli: [vllm]
      reach: return
"""
    write(tmp_path / "errors", "r.yaml", entry_text(extra=extra))
    _, schema_problems = load_entries(tmp_path / "errors", tmp_path)
    assert [str(p) for p in schema_problems] == [
        "errors/r.yaml:10:7: `reproduce[0].error` needs `python` or `cli`, one of them",
        "errors/r.yaml:11:17: `reproduce[0].error.requires` is 'gpu': use one of cpu, cuda",
        "errors/r.yaml:13:7: `reproduce[0].fix` needs `python` or `cli`, only one of them",
    ]


# --- records (errors/verifications/) ------------------------------------------------------------------

RECORDED = """\
reproduce:
  error:
    cli: [vllm, serve, models/small, --max-model-len, "100000"]
    expect: a000000000000001
  fix:
    cli: [vllm, serve, models/small, --max-model-len, "4096"]
    reach: engine-config
"""


def _recorded(tmp_path: Path, error_passed: bool = True):
    """An entry and the record `errorkb verify` writes of it (updated_records, with runs as the harness gives them)."""
    from generator.repro.cases import CaseRun
    from generator.repro.records import updated_records
    from generator.repro.verify import judge_pair, plan

    write(tmp_path / "errors", "r.yaml", entry_text(extra=RECORDED))
    entries, problems = load_entries(tmp_path / "errors", tmp_path)
    assert problems == []
    [repro] = plan(entries, "cpu", [])
    raised = CaseRun("raised", 0.4, exception={"type": "ValueError", "message": "placeholder error number 1 (x)",
                                               "traceback": "ValueError: placeholder error number 1 (x)"},
                     isolation="bwrap: network, pid, ipc, uts and mount namespaces; rlimits; as uid 65534")
    reached = CaseRun("reached", 0.3, reached="engine-config", isolation=raised.isolation)
    result = judge_pair(repro, raised, reached, lambda text: "a000000000000001" if error_passed else None, watched=False)
    folder = tmp_path / "errors" / "verifications"
    folder.mkdir()
    [(path, text)] = updated_records(folder, [result], {"vllm": "9.9.9", "python": "3.11.7"}, "2026-11-30").items()
    Path(path).write_text(text)
    return entries, folder, Path(path)


def record_problem_lines(entries, folder: Path, root: Path) -> list[str]:
    from generator.repro.records import record_problems

    return [str(p) for p in record_problems(entries, folder, root)]


def test_a_record_written_by_verify_of_the_current_cases_has_no_problems(tmp_path):
    entries, folder, _ = _recorded(tmp_path)
    assert record_problem_lines(entries, folder, tmp_path) == []


def test_a_stale_record_says_how_to_record_it_again(tmp_path):
    entries, folder, path = _recorded(tmp_path)
    write(tmp_path / "errors", "r.yaml", entry_text(extra=RECORDED.replace('"100000"', '"200000"')))
    entries, _ = load_entries(tmp_path / "errors", tmp_path)
    [line] = record_problem_lines(entries, folder, tmp_path)
    text = path.read_text()
    at = text.index('"case_sha256"', text.index('"error"'))
    row, col = text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)
    assert line.startswith(f"errors/verifications/r.json:{row}:{col}: `runs.cpu` is stale: the error case changed since it was recorded")
    assert line.endswith("run `errorkb verify --tier cpu r` to re-record it")


def test_a_hand_edited_record_is_a_problem(tmp_path):
    entries, folder, path = _recorded(tmp_path, error_passed=False)
    record = json.loads(path.read_text())
    record["runs"]["cpu"]["passed"] = True
    path.write_text(json.dumps(record, indent=1))
    [line] = record_problem_lines(entries, folder, tmp_path)
    assert "`runs.cpu` is stale: its `passed` disagrees with its cases'" in line
    record["runs"]["cpu"]["error"]["passed"] = True  # and the case's too: consistent, but its duration says otherwise
    record["runs"]["cpu"]["duration_s"] = "<script>alert(1)</script>"
    path.write_text(json.dumps(record, indent=1))
    [line] = record_problem_lines(entries, folder, tmp_path)
    assert line.startswith("errors/verifications/r.json:") and "`runs.cpu.duration_s` does not match the record schema" in line
    assert line.endswith("records are written by errorkb verify only; run `errorkb verify --tier cpu r` "
                         "(and `--tier cuda` where there is a GPU)")


def test_a_record_that_is_not_one_or_of_no_entry_is_a_problem(tmp_path):
    entries, folder, path = _recorded(tmp_path)
    path.write_text('{"entry": "r", "runs": {')
    (folder / "ghost.json").write_text(json.dumps({"entry": "ghost", "runs": {}}))
    assert record_problem_lines(entries, folder, tmp_path) == [
        "errors/verifications/ghost.json:1:1: a record of no entry (there is no errors/ghost.yaml): delete it",
        "errors/verifications/r.json:1:25: not a record (not JSON: Expecting property name enclosed in double quotes at "
        "line 1 column 25): records are written by errorkb verify only; delete it and run "
        "`errorkb verify --tier cpu r` (and `--tier cuda` where there is a GPU)",
    ]


def test_verify_replaces_a_record_that_does_not_validate_whole(tmp_path):
    """A record with a run errorkb verify did not write (a hand-made cuda run) is not merged
    into: the next `errorkb verify --tier cpu` writes the record anew."""
    from generator.repro.cases import CaseRun
    from generator.repro.records import updated_records
    from generator.repro.verify import judge_pair, plan

    entries, folder, path = _recorded(tmp_path)
    record = json.loads(path.read_text())
    record["runs"]["cuda"] = dict(record["runs"]["cpu"], tier="cuda", key="cuda", forged=True)
    path.write_text(json.dumps(record))
    [repro] = plan(entries, "cpu", [])
    run = CaseRun("raised", 0.4, exception={"type": "ValueError", "message": "m", "traceback": "ValueError: m"}, isolation="x")
    result = judge_pair(repro, run, CaseRun("reached", 0.3, reached="engine-config", isolation="x"), lambda t: None, False)
    [(_, text)] = updated_records(folder, [result], {"vllm": "9.9.9"}, "2026-12-01").items()
    assert list(json.loads(text)["runs"]) == ["cpu"], "the forged cuda run was kept"


def test_an_example_must_be_a_message_of_the_entrys_errors(tmp_path):
    """The lookup, over the catalog, must name one of the entry's ids for its example: a
    message from another error (or none) is a problem at the example's message."""
    from generator.lookup.index import matcher_from_index, compact_index

    matcher = matcher_from_index(compact_index([{"revision": "v9.9.9", "errors": [
        dict(e, has_message=True, sites=[{"path": "vllm/x.py", "line": 1, "function": "f", "template": e["template"]}])
        for e in CATALOG]}]))

    def lookup(text):
        matches, _ = matcher.lookup(text, top=3)
        return [m.error.id for m in matches if m.score == matches[0].score]

    example = ("example:\n  message: \"ValueError: max_num_seqs (256) exceeds available Mamba cache blocks (161).\"\n"
               "  source: https://github.com/vllm-project/vllm/issues/49064\n")
    write(tmp_path, "good.yaml", entry_text(ids=f"[{MAMBA_ID}]") + example)
    write(tmp_path, "wrong.yaml", entry_text(ids="[a000000000000001]") + example)
    write(tmp_path, "none.yaml", entry_text(ids="[a000000000000002]") + example.replace("max_num_seqs (256) exceeds available Mamba cache blocks (161).", "something else entirely happened here"))
    entries, problems = load_entries(tmp_path, tmp_path)
    assert not problems
    found = [str(p) for p in check_entries(entries, CATALOG, FLAGS, "v9.9.9", lookup=lookup)]
    assert found == [
        "none.yaml:9:12: `example.message` is not a message of this entry's errors (the lookup matches no error to it): "
        "paste the message as vLLM printed it for one of the entry's ids",
        f"wrong.yaml:9:12: `example.message` is not a message of this entry's errors (the lookup names {MAMBA_ID} for it): "
        "paste the message as vLLM printed it for one of the entry's ids",
    ]


def test_an_entry_explains_at_most_64_ids(tmp_path):
    ids = "[" + ", ".join(f'"{i:016x}"' for i in range(65)) + "]"
    write(tmp_path, "many.yaml", entry_text(ids=ids))
    problems = [str(p) for p in load_entries(tmp_path, tmp_path)[1]]
    assert problems == ["many.yaml:2:6: `ids` has 65 items: keep it to 64"]


def test_a_fill_names_settings_its_commands_set_and_placeholders_its_messages_have(tmp_path):
    extra = """\
    commands:
      vllm: vllm serve m --max-num-seqs 256
    fill: {max_num_seqs: num_blocks, gpu_memory_utilization: [free_memory]}
"""
    write(tmp_path / "errors", "f.yaml", entry_text(ids=f"[{MAMBA_ID}]", extra=extra))
    assert [str(p) for p in problems_in(tmp_path / "errors", tmp_path)] == [
        "errors/f.yaml:10:62: fill names gpu_memory_utilization, which no command of this solution sets with a value: "
        "write --gpu-memory-utilization N or gpu_memory_utilization=N in its commands, or take it out of fill",
        "errors/f.yaml:10:62: fill takes gpu_memory_utilization from {free_memory}, which no message of this entry has at "
        "the pin (its placeholders: max_num_reqs, num_blocks)",
    ]


def test_a_fill_of_the_wrong_shape_is_a_schema_problem(tmp_path):
    extra = """\
    commands:
      vllm: vllm serve m --max-num-seqs 256
    fill: {Max-Num-Seqs: num_blocks, max_num_seqs: 3}
"""
    write(tmp_path / "errors", "f.yaml", entry_text(ids=f"[{MAMBA_ID}]", extra=extra))
    found = [str(p) for p in problems_in(tmp_path / "errors", tmp_path)]
    assert "errors/f.yaml:10:11: `solutions[0].fill` 'Max-Num-Seqs' does not match ^[a-z][a-z0-9_]*$" in found
    assert "errors/f.yaml:10:52: `solutions[0].fill.max_num_seqs` must be a string or a list, not a number" in found
