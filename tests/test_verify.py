"""errorkb verify against the real vLLM of the pin, on the CPU tier.

The tests marked ``vllm`` need vLLM installed in its own environment (generator/vllm/env.py
says where; `.ci/run` installs it). Without it they fail, saying how to install it. The
others check what the command refuses before it runs anything, with no vLLM and no GPU.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CORPUS_BUNDLE
from generator.config import load_config
from generator.entries.load import load_entries
from generator.repro.cases import reproductions
from generator.repro.verify import plan

ROOT = Path(__file__).resolve().parents[1]
MIN_CPU_ENTRIES = 20  # the bar: entries with both cases passing on CPU
PIN = load_config(ROOT / "errorkb.toml").rev.removeprefix("v")


def verify(*args: str, cache: Path, bundle: Path, timeout: int = 1800, env: dict | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "ERRORKB_CACHE_DIR": str(cache), **(env or {})}
    return subprocess.run([sys.executable, "-m", "generator", "verify", "--source", str(bundle), *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def cpu_tier(vllm_python, corpus_bundle, session_cache, tmp_path_factory):
    """`errorkb verify --tier cpu` over every entry, once: (the process, {slug: record written})."""
    records = tmp_path_factory.mktemp("cpu-tier-records")
    result = verify("--tier", "cpu", "--records", str(records), cache=session_cache, bundle=corpus_bundle)
    return result, {p.stem: json.loads(p.read_text()) for p in records.glob("*.json")}


def test_every_curated_entry_has_reproduction_cases():
    entries, problems = load_entries(ROOT / "errors", ROOT)
    assert not problems
    exempt = [e.path for e in entries if isinstance(e.reproduce, dict) and "not_reproducible" in e.reproduce]
    missing = [e.path for e in entries if not reproductions(e.slug, e.path, e.reproduce) and e.path not in exempt]
    assert missing == [], (f"entries without a reproduce section: {missing}; add an error and a fix case, or "
                           "`not_reproducible:` saying why no machine can reach the error")
    # an exemption is for what neither tier can reach: each says why, and they stay few
    assert len(exempt) <= len(entries) // 10, exempt


@pytest.mark.vllm
@pytest.mark.slow
def test_the_cpu_tier_reproduces_every_entry_as_documented(cpu_tier):
    """Every CPU case behaves as its entry says; an entry whose case no longer does
    fails here with its path, line and what happened."""
    result, written = cpu_tier
    assert result.returncode == 0, f"cases that did not behave as documented:\n{result.stdout}\n{result.stderr[-3000:]}"
    entries, _ = load_entries(ROOT / "errors", ROOT)
    expected = {r.entry for r in plan(entries, "cpu", [])}
    assert set(written) == expected
    both_passed = [slug for slug, record in written.items()
                   if all(run["passed"] and run["error"]["passed"] and run["fix"]["passed"] for run in record["runs"].values())]
    assert len(both_passed) >= MIN_CPU_ENTRIES, f"only {len(both_passed)} entries pass on CPU: {sorted(both_passed)}"
    some = next(iter(written.values()))
    environment = next(iter(some["runs"].values()))["environment"]
    assert environment["vllm"] == PIN
    assert environment["python"] and environment["torch"] and environment["platform"]
    # Every case ran in the bwrap sandbox (.ci/run installs bubblewrap), and every record
    # written validates against the record schema and the entries' cases.
    from generator.repro.records import record_problems

    isolations = {run["isolation"] for record in written.values() for run in record["runs"].values()}
    assert all(i.startswith("bwrap: network, pid") for i in isolations), isolations
    folder = Path(result.args[result.args.index("--records") + 1])
    assert [str(p) for p in record_problems(entries, folder, folder.parent)] == []


def behaviour(run: dict) -> dict:
    """What a record says a pair did, without what changes from one run to the next (date,
    durations, logs, temporary paths in messages, the machine)."""
    def case(record: dict) -> dict:
        kept = {key: record[key] for key in ("passed", "outcome", "cli", "expect", "matched", "reach", "watch", "leaked_processes",
                                             "leaked", "case_sha256")
                if key in record}
        if "exception" in record:
            kept["exception"] = record["exception"]["type"]
        return kept

    return {"tier": run["tier"], "pair": run["pair"], "passed": run["passed"], "verification": run["verification"],
            "simulates": run["simulates"], "vllm": run["environment"]["vllm"],
            "error": case(run["error"]), "fix": case(run["fix"])}


@pytest.mark.vllm
@pytest.mark.slow
def test_the_committed_records_match_what_the_cases_do(cpu_tier):
    """Each committed CPU record (errors/verifications/) says what running its cases through
    the harness against the pinned vLLM does now: the same outcomes, matched error ids, exception
    types, reached points and traced calls, with both cases passing. Re-record with
    `errorkb verify --tier cpu SLUG` after changing a case."""
    _, fresh = cpu_tier
    assert fresh, "errorkb verify --tier cpu wrote no record"
    folder = ROOT / "errors" / "verifications"
    problems = []
    for slug, record in sorted(fresh.items()):
        path = folder / f"{slug}.json"
        if not path.is_file():
            problems.append(f"{path.relative_to(ROOT)} is missing: run `errorkb verify --tier cpu {slug}`")
            continue
        committed = json.loads(path.read_text())["runs"]
        for key, run in record["runs"].items():
            if key not in committed:
                problems.append(f"{path.relative_to(ROOT)} has no {key} run: run `errorkb verify --tier cpu {slug}`")
                continue
            now, then = behaviour(run), behaviour(committed[key])
            if not (then["passed"] and then["vllm"] == PIN):
                problems.append(f"{path.relative_to(ROOT)} {key}: recorded {'passing' if then['passed'] else 'failing'} "
                                f"with vLLM {then['vllm']} (the pin is {PIN}): run `errorkb verify --tier cpu {slug}`")
            if now != then:
                fields = sorted(k for k in now if now[k] != then[k])
                problems.append(f"{path.relative_to(ROOT)} {key}: the cases now do otherwise ({', '.join(fields)}): "
                                f"recorded {json.dumps({k: then[k] for k in fields})}, now {json.dumps({k: now[k] for k in fields})}; "
                                f"run `errorkb verify --tier cpu {slug}`")
    for path in sorted(folder.glob("*.json")):
        runs = json.loads(path.read_text())["runs"]
        stale = [key for key, run in runs.items() if run["tier"] == "cpu" and key not in fresh.get(path.stem, {}).get("runs", {})]
        if stale:
            problems.append(f"{path.relative_to(ROOT)} records {', '.join(stale)}, which no entry's cases make any more")
    assert problems == [], "\n".join(problems)


@pytest.mark.vllm
@pytest.mark.slow
def test_a_case_that_no_longer_behaves_as_documented_fails_with_the_entry_path(vllm_python, corpus_bundle, session_cache, tmp_path):
    errors = tmp_path / "errors"
    errors.mkdir()
    text = (ROOT / "errors" / "max-model-len-exceeds-derived-limit.yaml").read_text()
    # The "fix" still asks for more than the model's 32,768 positions.
    (errors / "drifted.yaml").write_text(text.replace('--max-model-len, "32768"', '--max-model-len, "40000"'))
    result = verify("--errors", str(errors), "--no-record", cache=session_cache, bundle=corpus_bundle)
    assert result.returncode == 1, result.stderr
    [line] = result.stdout.splitlines()
    assert "drifted.yaml:" in line.split(" ", 1)[0]
    assert "cpu fix case: expected to reach engine-config, but the case raised ValidationError" in line
    assert not (errors / "verifications").exists()


@pytest.mark.vllm
@pytest.mark.slow  # and a local Ray cluster
def test_verify_with_ray_runs_each_case_as_a_task(vllm_python, corpus_bundle, session_cache, tmp_path):
    result = verify("--executor", "ray", "--records", str(tmp_path), "tensor-parallel-size-does-not-divide-model",
                    cache=session_cache, bundle=corpus_bundle)
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr[-3000:]}"
    run = json.loads((tmp_path / "tensor-parallel-size-does-not-divide-model.json").read_text())["runs"]["cpu"]
    assert run["passed"] and run["error"]["matched"] == "a5afdbb71761aa63"
    assert run["environment"]["vllm"]


def test_the_committed_records_validate_against_the_schema_and_the_cases():
    """What `errorkb check` says of errors/verifications/: every record is of the entries'
    cases as they are written now (their sha256) and matches the record schema."""
    from generator.repro.records import record_problems

    entries, problems = load_entries(ROOT / "errors", ROOT)
    assert not problems
    assert [str(p) for p in record_problems(entries, ROOT / "errors" / "verifications", ROOT)] == []


# --- what the command refuses before it runs anything: no vLLM, no GPU, no corpus needed ---------------


def test_an_unknown_selection_is_a_usage_error(tmp_path):
    result = verify("no-such-entry", cache=tmp_path / "cache", bundle=CORPUS_BUNDLE, timeout=120)
    assert result.returncode == 2
    assert "no entry is named or explains no-such-entry" in result.stderr


def test_without_vllm_the_command_says_how_to_install_it(tmp_path):
    env_python = tmp_path / "python"
    result = verify("lora-limits", cache=tmp_path / "cache", bundle=CORPUS_BUNDLE, timeout=120,
                    env={"ERRORKB_VLLM_PYTHON": str(env_python)})
    assert result.returncode == 2
    assert f"no vLLM interpreter at {env_python}" in result.stderr and "pip install vllm==" in result.stderr


# nvidia-smi where the driver is installed but sees no GPU (a container without one, say).
NO_GPU_SMI = """#!/bin/sh
echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver." >&2
exit 9
"""


def executable(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(0o755)
    return path


@pytest.mark.parametrize("smi", ["absent", "finds-no-gpu"])
def test_the_cuda_tier_needs_a_gpu(tmp_path, smi):
    """Without nvidia-smi, or with one that finds no GPU, `--tier cuda` is refused (exit 2)
    before anything is cloned, scanned or run.

    Whatever GPU this machine has plays no part: the command's PATH has no nvidia-smi but
    the stand-in (directories holding the machine's own are left out; git stays reachable),
    and a stand-in interpreter answers the pinned-vLLM check that comes first, with the pin.
    """
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    python = executable(bin_dir / "vllm-python", f"#!/bin/sh\necho {PIN}\n")
    if smi == "finds-no-gpu":
        executable(bin_dir / "nvidia-smi", NO_GPU_SMI)
    git = subprocess.run(["sh", "-c", "command -v git"], capture_output=True, text=True).stdout.strip()
    if git:
        (bin_dir / "git").symlink_to(git)
    path = [str(bin_dir)] + [d for d in os.environ.get("PATH", "").split(os.pathsep)
                             if d and not os.access(Path(d) / "nvidia-smi", os.X_OK)]
    cache = tmp_path / "cache"
    result = verify("--tier", "cuda", cache=cache, bundle=tmp_path / "no-such-source", timeout=120,
                    env={"PATH": os.pathsep.join(path), "ERRORKB_VLLM_PYTHON": str(python)})
    assert result.returncode == 2, f"{result.stdout}\n{result.stderr[-3000:]}"
    [message] = result.stderr.strip().splitlines()
    assert "the cuda tier needs an NVIDIA GPU and nvidia-smi on this machine" in message, message
    assert not cache.exists(), "the source was resolved before the refusal"


def test_of_two_pin_errors_worded_alike_the_raising_line_decides():
    """compilation.py raises the same CUDAGraphMode message twice, spaced differently: the
    traceback's innermost line names the one the case raised."""
    from generator.cli.verify import raising_match
    from generator.lookup.match import LookupError_, Matcher

    sites = [{"path": "vllm/config/compilation.py", "line": line, "function": "CompilationConfig.resolve"} for line in (1410, 1488)]
    errors = [LookupError_(f"e{i}", "ValueError", t, "ValueError", "", ["v1"], [site])
              for i, (t, site) in enumerate(zip(["mode {m} is not supported (support: {s})", "mode {m} is not supported (support:{s}) "], sites))]
    matcher = Matcher(errors, [[e.template] for e in errors])
    for line, expected in ((1410, "e0"), (1488, "e1")):
        tb = (f'Traceback (most recent call last):\n  File "/venv/lib/vllm/config/compilation.py", line {line}, in resolve\n'
              "    raise ValueError(msg)\nValueError: mode FULL is not supported (support: NEVER)")
        matches, _ = matcher.lookup(tb, top=5)
        assert raising_match(matches, tb) == expected
