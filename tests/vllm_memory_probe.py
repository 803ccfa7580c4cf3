"""Run under the pinned vLLM's interpreter: what vLLM itself computes for a model's KV cache.

Reads a JSON list of cases on standard input and prints a JSON list of results, one per
case. Each case builds vLLM's configuration from a ``config.json`` folder (``EngineArgs
.create_engine_config``), instantiates the model on the meta device (no weights, no
memory), and then runs the steps the engine runs at start-up, in its order:

1. ``Platform.update_block_size_for_backend`` (executor, after loading the model): the
   block size, and for hybrid models the attention block size and Mamba page padding;
2. every attention layer's ``get_kv_cache_spec`` through ``customize_attention_spec``
   (``GPUModelRunner.get_kv_cache_spec``, which the CPU runner inherits);
3. ``resolve_kv_cache_layout``, ``get_global_kv_cache_groups``, ``get_kv_cache_configs``
   and ``get_kv_cache_capacity`` (``EngineCore._initialize_kv_caches``) for each
   amount of available memory the case lists, which either give the block count and
   capacity or raise vLLM's own memory errors.

With ``"tp"`` above 1 the same steps run in one process per rank (this script again,
``--rank R --world N --init FILE``), in a gloo process group of that size on the CPU: each
rank builds its shard of the model, so every layer's spec is vLLM's own per-GPU one. Rank
0 reports; every rank holds the same specs, so its plan is each worker's.

The test (tests/test_memory.py) compares all of it with generator/memory/.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import subprocess
import sys
import tempfile

os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")

import torch  # noqa: E402

from vllm.config import get_layers_from_vllm_config, set_current_vllm_config  # noqa: E402
from vllm.distributed import destroy_model_parallel, ensure_model_parallel_initialized, init_distributed_environment  # noqa: E402
from vllm.engine.arg_utils import EngineArgs  # noqa: E402
from vllm.model_executor.layers.attention_layer_base import AttentionLayerBase  # noqa: E402
from vllm.model_executor.model_loader.utils import initialize_model  # noqa: E402
from vllm.platforms import current_platform  # noqa: E402
from vllm.utils.torch_utils import get_dtype_size  # noqa: E402
from vllm.distributed.kv_transfer.kv_connector.utils import get_current_attn_backends  # noqa: E402
from vllm.v1.attention.backends.utils import get_supported_kv_cache_layouts, resolve_kv_cache_layout  # noqa: E402
from vllm.v1.core.kv_cache_planning import get_global_kv_cache_groups, get_kv_cache_configs  # noqa: E402
from vllm.v1.core.kv_cache_utils import get_kv_cache_capacity  # noqa: E402
from vllm.v1.kv_cache_interface import (  # noqa: E402
    AttentionSpec,
    MambaSpec,
    MLAAttentionSpec,
    SlidingWindowSpec,
)
from vllm.v1.worker.utils import customize_attention_spec  # noqa: E402

logging.disable(logging.WARNING)


def stub_missing_kernels() -> None:
    """Declare the compiled ops that layers look up when they are built, if this build lacks them.

    The vLLM wheel for CUDA, imported with ``VLLM_TARGET_DEVICE=cpu``, has no ``vllm._C``;
    some layers (the vision tower's ``QuickGELU``) fetch ``torch.ops._C.<op>`` in their
    constructor. A declaration without a kernel is enough: a model built on the meta
    device never runs a forward pass.
    """
    library = None
    for name in ("gelu_quick", "gelu_new", "gelu_fast", "gelu_and_mul", "gelu_tanh_and_mul", "silu_and_mul"):
        schema = f"{name}(Tensor(a!) out, Tensor input) -> ()"
        if not hasattr(torch.ops._C, name):
            library = library or torch.library.Library("_C", "FRAGMENT")
            library.define(schema)
    global _STUB_LIBRARY
    _STUB_LIBRARY = library  # the declarations live as long as the library object


_STUB_LIBRARY = None


def engine_config(case: dict):
    args = EngineArgs(
        model=case["model"],
        load_format="dummy",
        skip_tokenizer_init=True,
        dtype=case.get("dtype", "auto"),
        kv_cache_dtype=case.get("kv_cache_dtype", "auto"),
        mamba_ssm_cache_dtype=case.get("mamba_ssm_cache_dtype", "auto"),
        max_model_len=case.get("max_model_len"),
        max_num_seqs=case.get("max_num_seqs"),
        max_num_batched_tokens=case.get("max_num_batched_tokens"),
        tensor_parallel_size=case.get("tp", 1),
        # The KV cache depends on the language model alone; with no images allowed vLLM
        # skips the vision tower, whose CUDA-only activation ops the CPU build lacks.
        limit_mm_per_prompt=case.get("limit_mm_per_prompt"),
    )
    return args.create_engine_config()


def layer_json(name: str, spec) -> dict:
    data = {"name": name, "class": type(spec).__name__, "block_size": spec.block_size, "page_size_bytes": spec.page_size_bytes}
    if isinstance(spec, MambaSpec):
        data.update(
            kind="mamba",
            state_bytes=spec.real_page_size_bytes,
            shapes=[list(s) for s in spec.shapes],
            dtype_sizes=[get_dtype_size(d) for d in spec.dtypes],
        )
    elif isinstance(spec, AttentionSpec):
        kind = "mla" if isinstance(spec, MLAAttentionSpec) else "sliding" if isinstance(spec, SlidingWindowSpec) else "full"
        assert spec.real_page_size_bytes % spec.block_size == 0
        data.update(
            kind=kind,
            bytes_per_token=spec.real_page_size_bytes // spec.block_size,
            sliding_window=getattr(spec, "sliding_window", None),
        )
    else:
        data["kind"] = "other"
    return data


def instantiated(case: dict) -> dict:
    config = engine_config(case)
    # The model-parallel groups depend on the model (an expert-parallel group only for
    # MoE models, tensor-parallel groups of the case's size): set them up again for each case.
    destroy_model_parallel()
    with set_current_vllm_config(config):
        ensure_model_parallel_initialized(case.get("tp", 1), 1)
    with set_current_vllm_config(config), torch.device("meta"):
        initialize_model(vllm_config=config)
    current_platform.update_block_size_for_backend(config)
    specs = {}
    for name, layer in get_layers_from_vllm_config(config, AttentionLayerBase).items():
        if getattr(layer, "kv_sharing_target_layer_name", None):
            continue
        spec = layer.get_kv_cache_spec(config)
        if spec is None:
            continue
        if isinstance(spec, AttentionSpec):
            spec = customize_attention_spec(layer.get_attn_backend(), spec)
        specs[name] = spec
    result = {
        "dtype_size": get_dtype_size(config.model_config.dtype),
        "block_size": config.cache_config.block_size,
        "mamba_block_size": config.cache_config.mamba_block_size,
        "mamba_cache_mode": config.cache_config.mamba_cache_mode,
        "max_model_len": config.model_config.max_model_len,
        "max_num_seqs": config.scheduler_config.max_num_seqs,
        "max_num_batched_tokens": config.scheduler_config.max_num_batched_tokens,
        "max_in_flight_tokens": config.max_in_flight_tokens,
        "layers": [layer_json(name, spec) for name, spec in specs.items()],
        "budgets": [],
    }
    if not specs:
        return result
    with set_current_vllm_config(config):
        backends = get_current_attn_backends(config)
        resolve_kv_cache_layout(config, [[layout.name for layout in get_supported_kv_cache_layouts(backends)]], specs.values())
        groups = get_global_kv_cache_groups(config, [dict(specs)])
        derived = config.model_config.max_model_len
        for available in case.get("available_memory", []):
            budget = {"available": available}
            try:
                kv_config = get_kv_cache_configs(config, [dict(specs)], [available], groups)[0]
            except ValueError as exc:
                budget["error"] = str(exc)
            else:
                tokens, concurrency = get_kv_cache_capacity(config, kv_config)
                budget.update(num_blocks=kv_config.num_blocks, tokens=tokens, concurrency=concurrency)
            # With --max-model-len auto the engine shortens it to what fits; the next amount starts over.
            budget["max_model_len"] = config.model_config.max_model_len
            config.model_config.max_model_len = derived
            result["budgets"].append(budget)
        result["groups"] = [len(group.layer_names) for group in groups]
    return result


def run_cases(cases: list[dict], world: int = 1, rank: int = 0, init: str | None = None) -> list[dict]:
    """Every case in this process, as rank ``rank`` of a process group of ``world`` processes."""
    stub_missing_kernels()
    init = init or tempfile.mkstemp(prefix="errorkb-probe-")[1]
    with set_current_vllm_config(engine_config(cases[0])):
        init_distributed_environment(world_size=world, rank=rank, local_rank=rank, distributed_init_method=f"file://{init}", backend="gloo")
    results = []
    for case in cases:
        try:
            results.append(instantiated(case))
        except Exception as exc:  # noqa: BLE001 - reported per case, the others still run
            results.append({"failed": f"{type(exc).__name__}: {exc}"})
    return results


def run_ranks(cases: list[dict], world: int) -> list[dict]:
    """The cases of one tensor-parallel size, one process per rank; rank 0's results."""
    with tempfile.TemporaryDirectory(prefix="errorkb-probe-") as folder, contextlib.ExitStack() as files:
        init = os.path.join(folder, "init")
        ranks = []
        for rank in range(world):  # all started before any is waited for: they meet in the process group
            out = files.enter_context(open(os.path.join(folder, f"{rank}.out"), "w+", encoding="utf-8"))
            err = files.enter_context(open(os.path.join(folder, f"{rank}.err"), "w+", encoding="utf-8"))
            command = [sys.executable, __file__, "--world", str(world), "--rank", str(rank), "--init", init]
            process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=out, stderr=err, text=True)
            process.stdin.write(json.dumps(cases))
            process.stdin.close()
            ranks.append((process, out, err))
        try:
            for process, _, _ in ranks:
                process.wait(timeout=900)
        except subprocess.TimeoutExpired:
            for process, _, _ in ranks:
                process.kill()
            return [{"failed": f"the {world} ranks did not finish in 900 s"}] * len(cases)
        for rank, (process, _, err) in enumerate(ranks):
            if process.returncode:
                err.seek(0)
                return [{"failed": f"rank {rank} exited with {process.returncode}: {err.read()[-2000:]}"}] * len(cases)
        out = ranks[0][1]
        out.seek(0)
        return json.loads(out.read())


def main() -> None:
    if "--rank" in sys.argv:  # one rank of run_ranks
        options = dict(zip(sys.argv[1::2], sys.argv[2::2]))
        results = run_cases(json.load(sys.stdin), int(options["--world"]), int(options["--rank"]), options["--init"])
        if options["--rank"] == "0":
            json.dump(results, sys.stdout)
        return
    cases = json.load(sys.stdin)
    results: list[dict | None] = [None] * len(cases)
    sizes = sorted({case.get("tp", 1) for case in cases})
    for world in sizes:
        indexes = [i for i, case in enumerate(cases) if case.get("tp", 1) == world]
        ran = run_cases([cases[i] for i in indexes]) if world == 1 else run_ranks([cases[i] for i in indexes], world)
        for i, result in zip(indexes, ran):
            results[i] = result
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
