"""generator/memory/: hand-worked figures, the errors and their fixes, the command, and vLLM itself.

The agreement tests run tests/vllm_memory_probe.py under the pinned vLLM's interpreter
(generator/vllm/env.py) with ``VLLM_TARGET_DEVICE=cpu``: vLLM builds its configuration from
each ``models/*/config.json``, instantiates the model on the meta device (one process per
rank under tensor parallelism), and reports the KV cache specs and budgets its engine
computes. Ours must equal them exactly.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from generator.cli.main import main
from generator.config import load_config
from generator.memory.configs import bundled_models, read_config
from generator.memory.findings import (
    AUTO_FIT_IMPOSSIBLE,
    ERROR_ENTRIES,
    HEADS_NOT_DIVISIBLE,
    KV_CACHE_TOO_SMALL,
    MAMBA_BLOCKS_BELOW_MAX_NUM_SEQS,
    MAX_MODEL_LEN_TOO_LONG,
    NO_MEMORY_FOR_CACHE,
    calculate,
)
from generator.memory.gpus import find_gpu, load_gpus
from generator.memory.kv import layer_caches
from generator.memory.model import ENCODERS, MAMBA1_MODELS, MLA_MODELS, count_parameters, model_facts
from generator.memory.settings import GIB, MemoryInputError, ServeSettings, parse_size
from generator.memory.site_data import site_data

ROOT = Path(__file__).resolve().parents[1]
MODELS = sorted(p.parent for p in (ROOT / "models").glob("*/config.json"))
PROBE = ROOT / "tests" / "vllm_memory_probe.py"


def model(name: str) -> dict:
    return read_config(ROOT / "models" / name)


def settings(**changes) -> ServeSettings:
    return ServeSettings(gpu_memory_bytes=80 * GIB, **changes)


def per_token(name: str, **changes) -> int:
    layers, _ = layer_caches(model(name), settings(**changes))
    return sum(layer.bytes_per_token for layer in layers)


# --- formulas against hand-worked figures ------------------------------------------------------------


def test_qwen2_5_32b_bytes_per_token():
    # 64 layers x 8 KV heads x 128 head size x 2 (K and V) x 2 bytes
    assert per_token("qwen2.5-32b") == 64 * 8 * 128 * 2 * 2 == 262_144
    assert per_token("qwen2.5-32b", dtype="float16") == 262_144
    assert per_token("qwen2.5-32b", kv_cache_dtype="fp8") == 131_072
    assert per_token("qwen2.5-32b", tensor_parallel_size=2) == 131_072  # 4 KV heads per GPU
    assert per_token("qwen2.5-32b", tensor_parallel_size=16) == 64 * 1 * 128 * 2 * 2  # a KV head replicated per GPU


def test_qwen2_5_0_5b_bytes_per_token_and_parameters():
    assert per_token("qwen2.5-0.5b") == 24 * 2 * 64 * 2 * 2 == 12_288
    # embeddings 151936 x 896 (tied); per layer q/k/v/o with biases, the MLP, two norms; the final norm
    h, kv, i, v = 896, 2 * 64, 4864, 151_936
    per_layer = h * h + h + 2 * (h * kv + kv) + h * h + 3 * h * i + 2 * h
    assert count_parameters(model("qwen2.5-0.5b")).total == v * h + 24 * per_layer + h == 494_032_768


@pytest.mark.parametrize(("name", "published"), [
    ("qwen2.5-32b", 32_763_876_352),  # the Hugging Face model page's safetensors total
    ("mixtral-8x7b", 46_702_792_704),
    ("deepseek-v2-lite", 15_706_484_224),
    ("gemma-2-2b", 2_614_341_888),
    ("qwen2-vl-2b", 2_208_985_600),
    ("mamba-130m", 129_135_360),
    ("gpt2", 124_439_808),
    ("bert-base-uncased", 109_514_298),
])
def test_parameters_match_the_published_counts(name, published):
    assert count_parameters(model(name)).total == published


def test_mla_stores_one_latent_per_layer():
    # DeepSeek-V2-Lite: 27 layers x (kv_lora_rank 512 + qk_rope_head_dim 64) x 2 bytes, the same on every GPU
    assert per_token("deepseek-v2-lite") == 27 * 576 * 2 == 31_104
    assert per_token("deepseek-v2-lite", tensor_parallel_size=2) == 31_104
    assert per_token("deepseek-v2-lite", kv_cache_dtype="fp8") == 27 * 576


def test_gemma2_alternates_sliding_window_and_full_attention():
    layers, _ = layer_caches(model("gemma-2-2b"), settings())
    assert [layer.kind for layer in layers[:4]] == ["sliding", "full", "sliding", "full"]
    assert {layer.sliding_window for layer in layers if layer.kind == "sliding"} == {4096}
    assert all(layer.bytes_per_token == 4 * 256 * 2 * 2 for layer in layers)  # float32 checkpoint, served in bf16


def test_mamba_states():
    layers, _ = layer_caches(model("mamba-130m"), settings())
    # conv (conv_kernel - 1, intermediate) + ssm (intermediate, state_size), in bf16
    assert {layer.state_bytes for layer in layers} == {(3 * 1536 + 1536 * 16) * 2}
    layers, _ = layer_caches(model("mamba-130m"), settings(mamba_ssm_cache_dtype="float32"))
    assert {layer.state_bytes for layer in layers} == {3 * 1536 * 2 + 1536 * 16 * 4}
    layers, _ = layer_caches(model("granite-4.0-h-tiny"), settings())
    mamba = [layer for layer in layers if layer.kind == "mamba"]
    # Mamba2: conv (3, 48 x 64 + 2 x 1 group x 128) + ssm (48 heads, 64, 128)
    assert len(mamba) == 36 and {layer.state_bytes for layer in mamba} == {3 * 3328 * 2 + 48 * 64 * 128 * 2}
    layers, _ = layer_caches(model("granite-4.0-h-tiny"), settings(tensor_parallel_size=2))
    # the single group is replicated so that each GPU's heads have it
    assert {layer.state_shapes for layer in layers if layer.kind == "mamba"} == {((3, 1792), (24, 64, 128))}


def test_hybrid_block_size_makes_an_attention_page_hold_a_mamba_state():
    report = calculate(model("granite-4.0-h-tiny"), settings(kv_cache_memory_bytes=8 * GIB))
    state = 3 * 3328 * 2 + 48 * 64 * 128 * 2
    attention_per_token = 4 * 128 * 2 * 2
    block = 16 * -(-state // (16 * attention_per_token))
    assert report.kv_cache["block_size"] == block == 400
    assert report.kv_cache["mamba_page_bytes"] == block * attention_per_token
    assert report.kv_cache["groups"] == [4] * 10  # 4 attention layers; 36 Mamba layers in 9 groups of 4
    # each request: cdiv(len, block) attention blocks + 3 state blocks in each Mamba group ("align" mode)
    length = report.settings["max_model_len"]
    assert report.budget["request_blocks"] == -(-length // block) + 9 * 3


def test_budget_of_a_dense_model():
    report = calculate(model("qwen2.5-0.5b"), settings(kv_cache_memory_bytes=GIB, max_model_len=32768))
    per_block = 24 * 16 * 512
    assert report.budget["bytes_per_block"] == per_block
    assert report.budget["num_blocks"] == GIB // per_block
    assert report.budget["request_blocks"] == 32768 // 16
    assert report.budget["tokens"] == int(GIB // per_block / 2048 * 32768)
    # the largest length whose blocks fit in the memory less the null block
    assert report.budget["largest_max_model_len"] == 32768


# --- errors and fixes -----------------------------------------------------------------------------------


def ids(report) -> list[str]:
    return [finding.id for finding in report.errors]


def test_kv_cache_too_small_gives_the_estimate_and_fixes():
    report = calculate(model("qwen2.5-32b"), settings(kv_cache_memory_bytes=4 * GIB))
    assert ids(report) == [KV_CACHE_TOO_SMALL]
    usable = 4 * GIB - 16 * 262_144
    estimate = usable // (16 * 262_144) * 16
    assert f"the estimated maximum model length is {estimate}." in report.errors[0].message
    flags = [fix["flags"] for fix in report.errors[0].fixes]
    # fp8 halves the 8 GiB a full request needs, still more than 4 GiB; four GPUs quarter it
    assert flags == [f"--max-model-len {estimate}", "--tensor-parallel-size 4"]
    on_a_gpu = calculate(model("qwen2.5-32b"), replace(settings(max_model_len=32768), gpu_memory_bytes=round(79.19 * GIB),
                                                       gpu_memory_utilization=0.90))
    assert ids(on_a_gpu) == [KV_CACHE_TOO_SMALL]
    flags = [fix["flags"] for fix in on_a_gpu.errors[0].fixes]
    assert flags[0].startswith("--max-model-len ")
    assert flags[1:] == ["--kv-cache-dtype fp8", "--gpu-memory-utilization 0.92", "--tensor-parallel-size 2"]


def test_no_memory_when_the_weights_fill_the_gpu():
    report = calculate(model("qwen2.5-32b"), replace(settings(), gpu_memory_bytes=round(23.55 * GIB)))
    assert ids(report) == [NO_MEMORY_FOR_CACHE]
    assert report.budget["weights_exceed_gpu"]
    assert [fix["flags"] for fix in report.errors[0].fixes] == ["--tensor-parallel-size 4"]


def test_auto_fit_and_its_error():
    report = calculate(model("qwen2.5-32b"), settings(kv_cache_memory_bytes=4 * GIB, max_model_len=-1))
    assert not report.errors and report.settings["max_model_len"] == report.budget["largest_max_model_len"] < 32768
    report = calculate(model("qwen2.5-32b"), settings(kv_cache_memory_bytes=GIB // 1024, max_model_len=-1))
    assert ids(report) == [AUTO_FIT_IMPOSSIBLE]


def test_mamba_blocks_below_max_num_seqs():
    report = calculate(model("granite-4.0-h-tiny"), settings(kv_cache_memory_bytes=2 * GIB, max_model_len=8192))
    assert ids(report) == [MAMBA_BLOCKS_BELOW_MAX_NUM_SEQS]
    blocks = report.budget["num_blocks"]
    assert blocks < 1024 and f"at most {blocks} or" in report.errors[0].message
    flags = [fix["flags"] for fix in report.errors[0].fixes]
    assert flags[:2] == [f"--max-num-seqs {blocks}", "--enforce-eager"]
    assert not calculate(model("granite-4.0-h-tiny"), settings(kv_cache_memory_bytes=2 * GIB, max_model_len=8192, enforce_eager=True)).errors


def test_configuration_errors():
    report = calculate(model("qwen2.5-0.5b"), settings(tensor_parallel_size=4))  # 14 heads
    assert ids(report) == [HEADS_NOT_DIVISIBLE]
    assert [fix["flags"] for fix in report.errors[0].fixes] == ["--tensor-parallel-size 2"]
    report = calculate(model("qwen2.5-0.5b"), settings(max_model_len=65536))
    assert MAX_MODEL_LEN_TOO_LONG in ids(report)


def test_error_ids_are_raised_at_the_pin_and_curated(corpus_scan):
    raised = {error["id"] for error in corpus_scan("v0.33.0")["errors"]}
    for error_id, slug in ERROR_ENTRIES.items():
        assert error_id in raised
        entry = (ROOT / "errors" / f"{slug}.yaml").read_text(encoding="utf-8")
        assert error_id in entry.split("\ntitle:")[0], (slug, error_id)


# --- the command ------------------------------------------------------------------------------------------


def test_command_text_and_json(capsys):
    assert main(["memory", "--model", str(ROOT / "models" / "qwen2.5-32b" / "config.json"), "--gpu", "h100"]) == 0
    out = capsys.readouterr().out
    assert "KV cache per token: 262,144 bytes" in out and "estimate:" in out and "Known errors: none" in out
    code = main(["memory", "--model", str(ROOT / "models" / "qwen2.5-32b"), "--gpu-memory", "80GiB",
                 "--kv-cache-memory", "4GiB", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1 and data["errors"][0]["id"] == KV_CACHE_TOO_SMALL
    assert data["errors"][0]["url"].endswith(f"errors/{KV_CACHE_TOO_SMALL}/ on the site")
    assert data["kv_cache"]["bytes_per_token"] == 262_144


@pytest.mark.parametrize(("args", "expected"), [
    (["--model", "nowhere/config.json", "--gpu", "H100"], "nowhere/config.json: no such file"),
    (["--model", "{bad}", "--gpu", "H100"], "not valid JSON"),
    (["--model", "{unknown}", "--gpu", "H100"], "model_type 't5' is not modelled"),
    (["--model", "models/qwen2.5-0.5b", "--gpu", "Z9000"], "unknown GPU 'Z9000'; use one of"),
    (["--model", "models/qwen2.5-0.5b", "--gpu-memory", "lots"], "cannot read the size 'lots'"),
    (["--model", "models/qwen2.5-0.5b", "--gpu", "H100", "--kv-cache-dtype", "int3"], "--kv-cache-dtype 'int3'"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, monkeypatch, args, expected):
    monkeypatch.chdir(ROOT)
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "unknown.json").write_text(json.dumps({"model_type": "t5", "architectures": ["T5ForConditionalGeneration"]}))
    args = [str(tmp_path / "bad.json") if a == "{bad}" else str(tmp_path / "unknown.json") if a == "{unknown}" else a for a in args]
    assert main(["memory", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and expected in err and err.startswith("errorkb: error: ")


def test_gpu_table_and_sizes():
    assert find_gpu("h100").name == "H100-80GB"
    assert find_gpu("RTX 4090").name == "RTX-4090"
    assert parse_size("24GiB") == 24 * GIB and parse_size("80GB") == 80 * 10**9 and parse_size("24") == 24 * GIB
    with pytest.raises(MemoryInputError):
        find_gpu("")


# --- agreement with vLLM -----------------------------------------------------------------------------------

CPU_BLOCK_SIZE = 128  # CPUAttentionBackend's preferred block (vLLM on the CPU)
CPU_KERNEL_BLOCK = 32  # CPUAttentionBackend: MultipleOf(32)
CPU_MLA_BLOCK = 16  # CPU_MLA (MLA models on the CPU): blocks of 16 tokens, no other size


def _amx_tiles() -> bool:
    """Whether vLLM on this CPU runs MLA models with AMX_MLA (CPUAttentionBackend's blocks, a
    multiple of 32) rather than CPU_MLA: vllm/platforms/cpu.py asks
    ``torch.cpu._is_amx_tile_supported()`` on x86, and Linux lists the CPU's flag."""
    try:
        return "amx_tile" in Path("/proc/cpuinfo").read_text().split()
    except OSError:
        return False


AMX_TILES = _amx_tiles()
AVAILABLE = [10 * 2**20, 256 * 2**20, GIB, 4 * GIB, 16 * GIB]
TP_AVAILABLE = [10 * 2**20, 256 * 2**20, GIB]
# --max-model-len auto: from not even one block (10 MiB) to the whole context (1 GiB for the small models).
AUTO_AVAILABLE = [10 * 2**20, 64 * 2**20, 256 * 2**20, GIB]
LIMITS = {"max_num_seqs": 64, "max_num_batched_tokens": 2048}


def agreement_cases() -> list[dict]:
    cases = []
    for folder in MODELS:
        config = read_config(folder)
        facts = model_facts(config)
        base = {"model": str(folder), "name": folder.name, "mamba_ssm_cache_dtype": "float32", **LIMITS}
        cases.append({**base, "available_memory": AVAILABLE})
        cases.append({**base, "max_model_len": min(4096, facts.derived_max_model_len // 2), "available_memory": [64 * 2**20, 2 * GIB]})
        if facts.model_type in ENCODERS:
            continue  # no KV cache: nothing more to compare
        if facts.model_type not in MLA_MODELS | MAMBA1_MODELS:  # vLLM's CPU MLA has no fp8 cache
            cases.append({**base, "kv_cache_dtype": "fp8", "available_memory": [GIB]})
        if not facts.num_attention_heads or facts.num_attention_heads % 2 == 0:
            cases.append({**base, "tp": 2, "available_memory": TP_AVAILABLE})
        if facts.model_type in ("qwen2", "gemma2"):
            cases.append({**base, "max_model_len": -1, "available_memory": AUTO_AVAILABLE})
    return cases


@pytest.fixture(scope="module")
def vllm_results():
    """What the pinned vLLM computes for every case; fails (never skips) when it is not installed."""
    from generator.vllm.env import VllmMissing, require_vllm_python

    try:
        python = require_vllm_python(load_config(ROOT / "errorkb.toml"))
    except VllmMissing as exc:
        pytest.fail(str(exc), pytrace=False)
    cases = agreement_cases()
    env = {**os.environ, "VLLM_TARGET_DEVICE": "cpu"}
    done = subprocess.run([str(python), str(PROBE)], input=json.dumps(cases), capture_output=True, text=True, env=env, timeout=1200)
    assert done.returncode == 0, done.stderr[-4000:]
    return list(zip(cases, json.loads(done.stdout)))


def ours(case: dict, available: int | None = None) -> ServeSettings:
    # MLA models take CPU_MLA's blocks, except where the CPU has AMX tiles (AMX_MLA)
    mla = model_facts(read_config(Path(case["model"]))).model_type in MLA_MODELS and not AMX_TILES
    return ServeSettings(
        gpu_memory_bytes=80 * GIB,
        kv_cache_memory_bytes=available,
        max_model_len=case.get("max_model_len"),
        kv_cache_dtype=case.get("kv_cache_dtype", "auto"),
        mamba_ssm_cache_dtype=case["mamba_ssm_cache_dtype"],
        tensor_parallel_size=case.get("tp", 1),
        block_size=CPU_MLA_BLOCK if mla else CPU_BLOCK_SIZE,
        kernel_block_alignment=CPU_MLA_BLOCK if mla else CPU_KERNEL_BLOCK,
        concurrent_batches=1,  # no async scheduling on the CPU
        **LIMITS,
    )


def case_id(pair) -> str:
    case = pair[0]
    extra = [f"{k}={case[k]}" for k in ("kv_cache_dtype", "tp", "max_model_len") if k in case]
    return "-".join([case["name"], *extra])


def pytest_generate_tests(metafunc):
    if "case_index" in metafunc.fixturenames:
        cases = agreement_cases()
        metafunc.parametrize("case_index", range(len(cases)), ids=[case_id((c, None)) for c in cases])


def test_every_model_has_agreement_cases():
    assert {Path(c["model"]).name for c in agreement_cases()} == {p.name for p in MODELS}
    assert len(MODELS) >= 8


def test_kv_cache_agrees_with_vllm(vllm_results, case_index):
    case, theirs = vllm_results[case_index]
    assert "failed" not in theirs, theirs["failed"]
    config = read_config(Path(case["model"]))
    layers, dtype_bytes = layer_caches(config, ours(case))
    assert dtype_bytes == theirs["dtype_size"]
    # Layer by layer, in the model's order, per GPU: the kind, the bytes per token, the window, the Mamba state.
    mine = []
    for layer in layers:
        if layer.kind == "mamba":
            mine.append(("mamba", layer.state_bytes, [list(s) for s in layer.state_shapes], list(layer.state_dtype_bytes)))
        else:
            mine.append((layer.kind, layer.bytes_per_token, layer.sliding_window))
    vllm = []
    for layer in theirs["layers"]:
        if layer["kind"] == "mamba":
            vllm.append(("mamba", layer["state_bytes"], layer["shapes"], layer["dtype_sizes"]))
        else:
            vllm.append((layer["kind"], layer["bytes_per_token"], layer["sliding_window"]))
    assert mine == vllm
    report = calculate(config, ours(case, AVAILABLE[0]), with_fixes=False)
    kv = report.kv_cache
    if case.get("max_model_len") == -1:
        # vLLM's configuration keeps the model's own length; planning the KV cache shortens it to
        # what fits, which test_budget_agrees_with_vllm compares for each amount of memory.
        assert report.model["derived_max_model_len"] == theirs["max_model_len"]
    else:
        assert report.settings["max_model_len"] == theirs["max_model_len"]
    if kv.get("mamba_page_bytes"):
        assert {layer["page_size_bytes"] for layer in theirs["layers"] if layer["kind"] == "mamba"} == {kv["mamba_page_bytes"]}
    if report.model["attention_layers"]:
        assert kv["block_size"] == theirs["block_size"]
    if "block_size" in kv:
        assert (kv["mamba_block_size"], kv["mamba_cache_mode"]) == (theirs["mamba_block_size"], theirs["mamba_cache_mode"])
    assert kv.get("groups") == theirs.get("groups")  # none for a model without a KV cache


ESTIMATE = re.compile(r"estimated maximum model length is (\d+)\.")


def test_budget_agrees_with_vllm(vllm_results, case_index):
    """Every amount of memory of every case: vLLM's error, or its block count, capacity and length."""
    case, theirs = vllm_results[case_index]
    assert "failed" not in theirs, theirs["failed"]
    config = read_config(Path(case["model"]))
    if not theirs["layers"]:
        # No KV cache (encoder-only): vLLM plans no budget and raises none of its errors; nor do we.
        assert theirs["budgets"] == [] and "groups" not in theirs
        for available in case["available_memory"]:
            report = calculate(config, ours(case, available), with_fixes=False)
            assert "bytes_per_block" not in report.budget and not report.errors and report.kv_cache["bytes_per_token"] == 0
        return
    assert [budget["available"] for budget in theirs["budgets"]] == case["available_memory"]
    for budget in theirs["budgets"]:
        report = calculate(config, ours(case, budget["available"]), with_fixes=False)
        found = ids(report)
        label = f"{case_id((case, None))} with {budget['available']:,} bytes"
        # The length served: the one given (or the model's), or with --max-model-len auto the one
        # vLLM chose to fit this memory (unchanged when it cannot fit one).
        assert report.settings["max_model_len"] == budget["max_model_len"], label
        if "error" in budget:
            if budget["error"].startswith("No available memory"):
                assert found == [NO_MEMORY_FOR_CACHE], label
            elif budget["error"].startswith("Cannot auto-fit"):
                assert found == [AUTO_FIT_IMPOSSIBLE], label
            else:
                assert found == [KV_CACHE_TOO_SMALL], label
                theirs_estimate = ESTIMATE.search(budget["error"])
                mine_estimate = ESTIMATE.search(report.errors[0].message)
                assert (mine_estimate and mine_estimate.group(1)) == (theirs_estimate and theirs_estimate.group(1)), label
        else:
            assert NO_MEMORY_FOR_CACHE not in found and KV_CACHE_TOO_SMALL not in found and AUTO_FIT_IMPOSSIBLE not in found, label
            assert (report.budget["num_blocks"], report.budget["tokens"], report.budget["concurrency"]) == (
                budget["num_blocks"], budget["tokens"], budget["concurrency"]), label


# --- the shared vectors (tests/test_memory_browser.py runs them in the browser too) ------------------------

VECTORS = json.loads((ROOT / "tests" / "data" / "memory_vectors.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_vector(vector):
    config = vector["config"] if "config" in vector else bundled_models(ROOT / "models")[vector["model"]]
    if "input_error" in vector["expect"]:
        with pytest.raises(MemoryInputError) as raised:
            calculate(config, ServeSettings(**vector["settings"]))
        assert str(raised.value) == vector["expect"]["input_error"]
        return
    report = calculate(config, ServeSettings(**vector["settings"]))
    assert ids(report) == vector["expect"]["errors"]


def test_site_data_is_json_and_sorted():
    data = site_data(bundled_models(ROOT / "models"))
    assert list(data["models"]) == sorted(p.name for p in MODELS)
    assert json.loads(json.dumps(data)) == data
    assert [g["name"] for g in data["gpus"]] == [g.name for g in load_gpus()]
    # memory.js reads every constant it shares with the Python calculator from here
    shipped = data["constants"]["errors"]
    assert {known["id"]: known["entry"] for known in shipped.values()} == ERROR_ENTRIES
    assert data["constants"]["settings_defaults"] == ServeSettings(gpu_memory_bytes=0).to_json()


def test_each_calculator_page_starts_on_an_example_of_its_own_error():
    """The model, GPU and flags a calculator page opens with meet that page's error."""
    from generator.memory.site_data import CALCULATOR_EXAMPLES
    from generator.entries.load import load_entries

    entries, _ = load_entries(ROOT / "errors", ROOT)
    ids = {entry.slug: set(entry.ids) for entry in entries}
    from generator.memory.gpus import gpu_memory_bytes

    gpus = {gpu.name: gpu for gpu in load_gpus()}
    models = bundled_models(ROOT / "models")
    for slug, example in CALCULATOR_EXAMPLES.items():
        settings = ServeSettings(gpu_memory_bytes=gpu_memory_bytes(gpus[example["gpu"]]), gpu_name=example["gpu"],
                                 max_num_seqs=example.get("max_num_seqs"))
        found = {error["id"] for error in calculate(models[example["model"]], settings).to_json()["errors"]}
        assert found & ids[slug], (slug, found)
