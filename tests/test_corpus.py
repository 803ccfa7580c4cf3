"""The scanner on the real corpus: the vLLM releases of errorkb.toml's [history], in a git bundle."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from generator.scan.ids import error_id, normalize_template

pytestmark = pytest.mark.slow  # every test here scans releases of the corpus bundle

ROOT = Path(__file__).resolve().parents[1]
# The releases history covers, oldest first: errorkb.toml's [history] releases, the one list.
RELEASES = tomllib.loads((ROOT / "errorkb.toml").read_text(encoding="utf-8"))["history"]["releases"]
MAMBA = (
    "max_num_seqs ({max_num_reqs}) exceeds available Mamba cache blocks ({kv_cache_config.num_blocks}). "
    "Each decode sequence requires one Mamba cache block, so CUDA graph capture cannot proceed. "
    "Please lower max_num_seqs to at most {kv_cache_config.num_blocks} or increase gpu_memory_utilization."
)


def mamba_errors(catalog: dict) -> list[dict]:
    return [e for e in catalog["errors"] if "exceeds available Mamba cache blocks" in e["template"]]


def test_v0_33_0_counts(corpus_scan):
    catalog = corpus_scan("v0.33.0")
    sites = [s for e in catalog["errors"] for s in e["sites"]]
    raises = sum(s["kind"] == "raise" for s in sites)
    asserts = sum(s["kind"] == "assert" for s in sites)
    assert raises >= 7400, raises
    assert asserts >= 2000, asserts
    assert catalog["stats"]["files"] == 2991
    assert catalog["stats"]["raises"] == raises and catalog["stats"]["asserts"] == asserts
    assert catalog["stats"]["reraises"] > 0
    assert catalog["revision"] == "v0.33.0" and catalog["tag"] == "v0.33.0"


def test_mamba_cache_error_at_v0_33_0(corpus_scan):
    (error,) = mamba_errors(corpus_scan("v0.33.0"))
    assert error["exception"] == "ValueError" and error["kind"] == "raise"
    assert error["template"] == MAMBA
    assert error["id"] == error_id("vllm", "ValueError", normalize_template(MAMBA))
    (site,) = error["sites"]
    assert (site["path"], site["line"], site["end_line"]) == ("vllm/config/compilation.py", 1525, 1532)
    assert site["function"] == "CompilationConfig.resolve_cudagraph_mode_and_sizes"
    assert site["placeholders"] == ["max_num_reqs", "kv_cache_config.num_blocks"]
    assert site["guard"][-1].endswith("and max_num_reqs > kv_cache_config.num_blocks")
    assert site["comment"].startswith("For Mamba models with FULL decode cudagraphs")
    assert site["excerpt"].startswith("if (\n") and 'f"max_num_seqs ({max_num_reqs})' in site["excerpt"]


def test_mamba_cache_error_keeps_its_id_at_v0_26_0(corpus_scan):
    (now,) = mamba_errors(corpus_scan("v0.33.0"))
    (then,) = mamba_errors(corpus_scan("v0.26.0"))
    assert then["id"] == now["id"]
    assert then["sites"][0]["path"] == "vllm/config/compilation.py"
    assert then["sites"][0]["line"] != now["sites"][0]["line"]


def test_a_message_a_helper_returns_is_the_errors_other_form_and_keeps_its_id(corpus_scan):
    """v0.33.0's ``raise ValueError(err_msg)`` in verify_marlin_supported, whose ``err_msg`` is
    what _check_marlin_supported returns: it keeps its id (the one the pastes are labelled
    with) and its template ``{err_msg}``, and the helper's strings are the site's other forms."""
    catalog = corpus_scan("v0.33.0")
    (error,) = [e for e in catalog["errors"] if e["id"] == "4c762c389b0b2f46"]
    assert error["template"] == "{err_msg}"
    (site,) = error["sites"]
    assert site["function"] == "verify_marlin_supported"
    assert site["variants"][0].startswith("Marlin does not support weight_bits = {quant_type}. Only types = {supported_types}")
    assert any(v.startswith("Marlin does not support group_size = {group_size}.") for v in site["variants"])


def test_a_message_built_by_a_helper_call_and_an_asserted_exception_keep_their_ids(corpus_scan):
    """v0.33.0's ``raise ValueError(_make_log_unsupported(backend, reason))`` (the helper nested in
    select_fp8_moe_backend) and v0.6.0's ``assert is_cpu(), RuntimeError("...")``: each keeps the
    id its call template hashes to, and the text it really reports is its other form."""
    (fp8,) = [e for e in corpus_scan("v0.33.0")["errors"] if e["id"] == "285a643bd594dcfa"]
    assert fp8["template"] == "{_make_log_unsupported(backend, reason)}"
    assert fp8["sites"][0]["variants"] == [
        "FP8 MoE backend {backend.value} does not support the deployment configuration since {reason}.",
        "FP8 MoE backend '{backend.value}' does not support the deployment configuration.",
    ]
    sdpa = [e for e in corpus_scan("v0.6.0")["errors"]
            if e["template"].startswith('{RuntimeError("Torch SDPA backend is only used')]
    assert [e["id"] for e in sdpa] == ["6312459552d9f52d"]
    assert sdpa[0]["sites"][0]["variants"] == ["Torch SDPA backend is only used for the CPU device."]


def test_the_jit_monitor_warning_is_shown_filled_and_keeps_its_published_id(corpus_scan):
    """v0.33.0's ``logger.warning(message, *args)`` in jit_monitor.py: each ``%s`` is one of
    ``args``, and the id stays the one the curated entry and the pastes are labelled with."""
    catalog = corpus_scan("v0.33.0")
    (error,) = [e for e in catalog["errors"] if e["id"] == "a1e872b0ee570b97"]
    assert error["template"].startswith("{args[0]} {args[1]} during inference: {args[2]}{args[3]}. ")
    assert {s["path"] for s in error["sites"]} == {"vllm/utils/jit_monitor.py"}
    # and the RuntimeError of the same message, ``raise RuntimeError(message % args)``
    (raised,) = [e for e in catalog["errors"] if e["id"] == "65223fcc73075d31"]
    assert raised["template"].startswith("{args[0]} {args[1]} during inference: {args[2]}{args[3]}. ")


def test_every_release_scans_without_a_crash(corpus_scan):
    for rev in RELEASES:
        catalog = corpus_scan(rev)
        stats = catalog["stats"]
        assert stats["files"] > 100 and stats["sites"] > 300, (rev, stats)
        # Nothing in the corpus is beyond this Python's grammar; a skip would be a bug.
        assert stats["skipped"] == [], (rev, stats["skipped"])


def test_two_scans_give_byte_identical_json(corpus_bundle, tmp_path):
    """The first scan fills an empty cache, the second reads it: same bytes."""
    outputs = []
    for name in ("cold.json", "warm.json"):
        out = tmp_path / name
        result = subprocess.run(
            [sys.executable, "-m", "generator", "scan", "--source", str(corpus_bundle), "--rev", "v0.33.0",
             "--out", str(out), "--cache-dir", str(tmp_path / "cache")],
            cwd=ROOT, capture_output=True, text=True,
        )
        assert result.returncode == 0, result.stderr
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
