"""errorkb verify against the real vLLM of the pin, on the CPU tier.

These tests need vLLM installed in its own environment (generator/vllm_env.py says
where; `.ci/run` installs it). Without it they fail, saying how to install it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from generator.config import load_config
from generator.entries.load import load_entries
from generator.repro.cases import reproductions
from generator.repro.verify import plan
from generator.vllm.env import VllmMissing, require_vllm_python

ROOT = Path(__file__).resolve().parents[1]
MIN_CPU_ENTRIES = 20  # the bar: entries with both cases passing on CPU


@pytest.fixture(scope="session")
def vllm_python() -> Path:
    try:
        return require_vllm_python(load_config(ROOT / "errorkb.toml"))
    except VllmMissing as exc:
        pytest.fail(f"the reproduction tests need the pinned vLLM: {exc}", pytrace=False)


def verify(*args: str, cache: Path, bundle: Path, timeout: int = 1800) -> subprocess.CompletedProcess:
    env = {**os.environ, "ERRORKB_CACHE_DIR": str(cache)}
    return subprocess.run([sys.executable, "-m", "generator", "verify", "--source", str(bundle), *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)


def test_every_curated_entry_has_reproduction_cases():
    entries, problems = load_entries(ROOT / "errors", ROOT)
    assert not problems
    missing = [e.path for e in entries if not reproductions(e.slug, e.path, e.reproduce)]
    assert missing == [], f"entries without a reproduce section: {missing}"


def test_the_cpu_tier_reproduces_every_entry_as_documented(vllm_python, corpus_bundle, session_cache, tmp_path):
    """Every CPU case behaves as its entry says; an entry whose case no longer does
    fails here with its path, line and what happened."""
    records = tmp_path / "records"
    result = verify("--tier", "cpu", "--records", str(records), cache=session_cache, bundle=corpus_bundle)
    assert result.returncode == 0, f"cases that did not behave as documented:\n{result.stdout}\n{result.stderr[-3000:]}"
    entries, _ = load_entries(ROOT / "errors", ROOT)
    expected = {r.entry for r in plan(entries, "cpu", [])}
    written = {p.stem: json.loads(p.read_text()) for p in records.glob("*.json")}
    assert set(written) == expected
    both_passed = [slug for slug, record in written.items()
                   if all(run["passed"] and run["error"]["passed"] and run["fix"]["passed"] for run in record["runs"].values())]
    assert len(both_passed) >= MIN_CPU_ENTRIES, f"only {len(both_passed)} entries pass on CPU: {sorted(both_passed)}"
    some = next(iter(written.values()))
    environment = next(iter(some["runs"].values()))["environment"]
    assert environment["vllm"] == load_config(ROOT / "errorkb.toml").rev.removeprefix("v")
    assert environment["python"] and environment["torch"] and environment["platform"]


def test_the_committed_records_match_what_the_cases_do(vllm_python):
    """Each committed record is of the pinned vLLM and shows both cases passing:
    re-record with `errorkb verify --tier cpu` after changing a case."""
    entries, _ = load_entries(ROOT / "errors", ROOT)
    folder = ROOT / "errors" / "verifications"
    pin = load_config(ROOT / "errorkb.toml").rev.removeprefix("v")
    for repro in plan(entries, "cpu", []):
        path = folder / f"{repro.entry}.json"
        assert path.is_file(), f"{path} is missing: run `errorkb verify --tier cpu {repro.entry}`"
        run = json.loads(path.read_text())["runs"].get(repro.record_key)
        assert run is not None, f"{path} has no {repro.record_key} run: run `errorkb verify --tier cpu {repro.entry}`"
        assert run["passed"] and run["environment"]["vllm"] == pin, f"{path}: re-run `errorkb verify --tier cpu {repro.entry}`"


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


def test_verify_with_ray_runs_each_case_as_a_task(vllm_python, corpus_bundle, session_cache, tmp_path):
    result = verify("--executor", "ray", "--records", str(tmp_path), "tensor-parallel-size-does-not-divide-model",
                    cache=session_cache, bundle=corpus_bundle)
    assert result.returncode == 0, f"{result.stdout}\n{result.stderr[-3000:]}"
    run = json.loads((tmp_path / "tensor-parallel-size-does-not-divide-model.json").read_text())["runs"]["cpu"]
    assert run["passed"] and run["error"]["matched"] == "a5afdbb71761aa63"
    assert run["environment"]["vllm"]


def test_an_unknown_selection_is_a_usage_error(vllm_python, corpus_bundle, session_cache):
    result = verify("no-such-entry", cache=session_cache, bundle=corpus_bundle, timeout=120)
    assert result.returncode == 2
    assert "no entry is named or explains no-such-entry" in result.stderr


def test_without_vllm_the_command_says_how_to_install_it(corpus_bundle, session_cache, tmp_path):
    env_python = tmp_path / "python"
    result = subprocess.run([sys.executable, "-m", "generator", "verify", "--source", str(corpus_bundle), "lora-limits"],
                            cwd=ROOT, env={**os.environ, "ERRORKB_CACHE_DIR": str(session_cache), "ERRORKB_VLLM_PYTHON": str(env_python)},
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert f"no vLLM interpreter at {env_python}" in result.stderr and "pip install vllm==" in result.stderr


def test_the_cuda_tier_needs_a_gpu(vllm_python, corpus_bundle, session_cache):
    result = verify("--tier", "cuda", cache=session_cache, bundle=corpus_bundle, timeout=300)
    assert result.returncode == 2
    assert "the cuda tier needs an NVIDIA GPU" in result.stderr
