"""What vLLM takes from the GPU before the KV cache, its default batch limits, and the budget's figures.

Pure: no disk, no processes. What vLLM measures rather than computes (the activation
peak of its profiling pass, memory outside PyTorch, CUDA graphs) is estimated here, and
each such figure says so and where it comes from. ``shared_constants()`` is the part
that ``templates/assets/memory.js`` reads from the site's ``api/memory.json``.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.memory.kv import KvLayout, estimate_max_model_len
from generator.memory.model import ModelFacts
from generator.memory.settings import GIB, ServeSettings, input_error

# Quantization methods and the bits a linear weight takes (scales included, approximately).
QUANTIZATION_BITS = {"fp8": 8, "int8": 8, "awq": 4, "gptq": 4, "bitsandbytes": 4, "compressed-tensors": 4}
DEFAULT_QUANTIZATION_GROUP_SIZE = 128  # weights per scale when quantization_config gives no group_size
NON_TORCH_ONE_GPU = round(0.2 * GIB)
NON_TORCH_TENSOR_PARALLEL = round(0.7 * GIB)
CUDA_GRAPHS = round(0.5 * GIB)

# The reserves, and where each figure comes from: str.format templates (memory.js fills them the same way).
RESERVE_NAMES = {"weights": "model weights", "activations": "activation peak", "non_torch": "memory outside PyTorch",
                 "cuda_graphs": "CUDA graphs"}
RESERVE_SOURCES = {
    "weights": "{parameters} parameters counted from config.json, {dtype_bytes} bytes each",
    "weights_8_bits": "{parameters} parameters counted from config.json; linear weights in {method} (1 byte), the rest {dtype_bytes} bytes",
    "weights_grouped": ("{parameters} parameters counted from config.json; linear weights in {method} "
                        "({bits} bits and a scale per {group}), the rest {dtype_bytes} bytes"),
    "weights_split": ", split over {tp} GPUs",
    "activations": ("formula for a {tokens}-token profiling pass and {seqs} sampled sequences; "
                    "vLLM measures it (gpu_worker.determine_available_memory)"),
    "non_torch": ("cuBLAS workspaces and, with tensor parallelism, NCCL buffers; vLLM logs 0.16-0.20 GiB on one GPU "
                  "(vllm-project/vllm#12126, #14447) and more with TP (#10511)"),
    "cuda_graphs": ("vLLM subtracts its estimate of CUDA graph memory (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1); "
                    "captures take 0.2-1 GiB (vllm-project/vllm#11349: 0.21 GiB for Llama-3.2-1B); 0 with --enforce-eager"),
}

# EngineArgs._set_default_max_num_seqs_and_batched_tokens_args for `vllm serve`: the first tier
# whose memory the GPU has, and whose excluded names the GPU's name does not contain, else the last.
BATCH_LIMIT_TIERS = (
    {"min_gpu_memory_bytes": 160 * GIB, "except_gpu_names": [], "max_num_seqs": 1024, "max_num_batched_tokens": 16384},
    {"min_gpu_memory_bytes": 70 * GIB, "except_gpu_names": ["a100"], "max_num_seqs": 1024, "max_num_batched_tokens": 8192},
)
BATCH_LIMITS_OTHERWISE = {"max_num_seqs": 256, "max_num_batched_tokens": 2048}


def _no_quantization(value: str | None) -> bool:
    return value in (None, "", "none")


# --- what vLLM takes before the KV cache ------------------------------------------------------


@dataclass(frozen=True)
class Reserve:
    name: str
    bytes: int
    estimate: bool
    source: str


def quantization_of(facts: ModelFacts, settings: ServeSettings) -> tuple[str | None, int, int]:
    """(method, bits, group size) of the weights: --quantization, else the checkpoint's quantization_config."""
    method = settings.quantization
    config = facts.quantization or {}
    if _no_quantization(method):
        method = config.get("quant_method") if not settings.quantization else None
    if _no_quantization(method):
        return None, 0, 0
    method = str(method).lower()
    if method not in QUANTIZATION_BITS:
        raise input_error("quantization", method=method, methods=", ".join(sorted(QUANTIZATION_BITS)))
    bits = config.get("bits") if isinstance(config.get("bits"), int) else QUANTIZATION_BITS[method]
    if method == "bitsandbytes":
        bits = 8 if config.get("load_in_8bit") else 4
    group_size = config.get("group_size")
    group = group_size if isinstance(group_size, int) and group_size > 0 else DEFAULT_QUANTIZATION_GROUP_SIZE
    return method, bits, group


def weights_bytes(facts: ModelFacts, dtype_bytes: int, settings: ServeSettings) -> tuple[int, str]:
    """Bytes of weights on one GPU: linear weights and embeddings split by tensor parallelism, the rest on every GPU."""
    params, tp = facts.parameters, settings.tensor_parallel_size
    method, bits, group = quantization_of(facts, settings)
    numbers = {"parameters": f"{params.total:,}", "dtype_bytes": dtype_bytes, "method": method, "bits": bits, "group": group}
    if method is None:
        linear = params.linear * dtype_bytes
        how = RESERVE_SOURCES["weights"].format(**numbers)
    elif bits == 8:
        linear = params.linear  # one byte per weight; per-channel scales are negligible
        how = RESERVE_SOURCES["weights_8_bits"].format(**numbers)
    else:
        # bits per weight, plus a scale (model dtype) and a zero point (bits) per group of weights
        linear = -(-params.linear * (bits * group + 8 * dtype_bytes + bits) // (8 * group))
        how = RESERVE_SOURCES["weights_grouped"].format(**numbers)
    total = -(-(linear + params.embedding * dtype_bytes) // tp) + params.other * dtype_bytes
    return total, how


def activation_bytes(facts: ModelFacts, dtype_bytes: int, settings: ServeSettings, max_num_batched_tokens: int, max_num_seqs: int) -> int:
    """The profiling pass's peak above the weights: a rough formula, not vLLM's measurement.

    vLLM runs one forward pass of ``max_num_batched_tokens`` tokens and a sampler pass of
    ``max_num_seqs`` sequences and measures the peak. The largest live tensors are the MLP's
    gate/up and activation outputs (3 x intermediate per token, per GPU), a few hidden-size
    buffers per token, and the float32 logits of every sequence (twice: logits and probabilities).
    """
    tp = settings.tensor_parallel_size
    per_token = 4 * facts.hidden_size + 3 * facts.intermediate_size // tp
    return max_num_batched_tokens * per_token * dtype_bytes + 2 * max_num_seqs * facts.vocab_size * 4


def reserves(facts: ModelFacts, dtype_bytes: int, settings: ServeSettings, max_num_batched_tokens: int, max_num_seqs: int) -> list[Reserve]:
    weights, how = weights_bytes(facts, dtype_bytes, settings)
    tp = settings.tensor_parallel_size
    items = [
        Reserve(RESERVE_NAMES["weights"], weights, facts.quantization is not None or not _no_quantization(settings.quantization),
                how + (RESERVE_SOURCES["weights_split"].format(tp=tp) if tp > 1 else "")),
        Reserve(RESERVE_NAMES["activations"], activation_bytes(facts, dtype_bytes, settings, max_num_batched_tokens, max_num_seqs), True,
                RESERVE_SOURCES["activations"].format(tokens=f"{max_num_batched_tokens:,}", seqs=max_num_seqs)),
        Reserve(RESERVE_NAMES["non_torch"], NON_TORCH_ONE_GPU if tp == 1 else NON_TORCH_TENSOR_PARALLEL, True,
                RESERVE_SOURCES["non_torch"]),
    ]
    if not settings.enforce_eager:
        items.append(Reserve(RESERVE_NAMES["cuda_graphs"], CUDA_GRAPHS, True, RESERVE_SOURCES["cuda_graphs"]))
    return items


def default_batch_limits(gpu_memory_bytes: int, gpu_name: str, max_model_len: int, settings: ServeSettings) -> tuple[int, int]:
    """(max_num_seqs, max_num_batched_tokens) as ``EngineArgs._set_default_max_num_seqs_and_batched_tokens_args`` sets them for ``vllm serve``."""
    tier = BATCH_LIMITS_OTHERWISE
    for candidate in BATCH_LIMIT_TIERS:
        if gpu_memory_bytes >= candidate["min_gpu_memory_bytes"] and not any(
                name in gpu_name.lower() for name in candidate["except_gpu_names"]):
            tier = candidate
            break
    seqs, tokens = tier["max_num_seqs"], tier["max_num_batched_tokens"]
    chosen_tokens = settings.max_num_batched_tokens
    if chosen_tokens is None:
        chosen_tokens = min((settings.max_num_seqs or seqs) * max_model_len, tokens)
    chosen_seqs = settings.max_num_seqs
    if chosen_seqs is None:
        chosen_seqs = min(seqs, chosen_tokens)
    return chosen_seqs, chosen_tokens


# --- the KV cache budget (vllm/v1/core/kv_cache_planning.py) -----------------------------------


def budget_figures(layout: KvLayout, available: int, max_model_len: int, derived: int, in_flight: int, auto_fit: bool) -> dict:
    """``get_kv_cache_configs`` for one worker, its figures: what the start-up checks compare, and what fits.

    The memory less the null block, the longest length that fits (``--max-model-len auto``
    takes it), what one request takes, and, when vLLM starts, the block count and the
    capacity it logs (``get_kv_cache_capacity``, ``vllm/v1/core/kv_cache_utils.py``).
    ``generator.memory.findings.budget_findings`` says which check fails otherwise.
    """
    usable = available - layout.bytes_per_block  # the null block BlockPool always holds back
    figures: dict = {"bytes_per_block": layout.bytes_per_block, "usable_bytes": usable}
    largest = estimate_max_model_len(layout, usable, derived, in_flight) if usable > 0 else 0
    figures["largest_max_model_len"] = largest
    if auto_fit and largest > 0:
        max_model_len = min(largest, derived)
    figures["max_model_len"] = max_model_len
    needed = layout.request_bytes(max_model_len, in_flight)
    figures["request_bytes"] = needed
    figures["request_blocks"] = layout.request_blocks(max_model_len, in_flight)
    if (auto_fit and largest <= 0) or usable <= 0 or needed > usable:
        return figures  # vLLM stops at start-up
    num_blocks = available // layout.bytes_per_block
    concurrency = num_blocks / figures["request_blocks"]
    figures.update(num_blocks=num_blocks, concurrency=concurrency, tokens=int(concurrency * max_model_len))
    return figures


def shared_constants() -> dict:
    """What memory.js reads: the quantization table, the reserves' sizes and texts, the batch limits."""
    return {
        "quantization_bits": QUANTIZATION_BITS,
        "default_quantization_group_size": DEFAULT_QUANTIZATION_GROUP_SIZE,
        "non_torch_one_gpu": NON_TORCH_ONE_GPU,
        "non_torch_tensor_parallel": NON_TORCH_TENSOR_PARALLEL,
        "cuda_graphs": CUDA_GRAPHS,
        "reserve_names": RESERVE_NAMES,
        "reserve_sources": RESERVE_SOURCES,
        "batch_limit_tiers": list(BATCH_LIMIT_TIERS),
        "batch_limits_otherwise": BATCH_LIMITS_OTHERWISE,
    }
