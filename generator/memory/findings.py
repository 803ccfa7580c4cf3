"""Which vLLM error a configuration raises at start-up, and the flags that fix it: ``calculate``.

Pure: no disk, no processes. From a model's ``config.json`` (a dict) and the serving
flags (``ServeSettings``) to a ``MemoryReport``: the model, the KV cache, the budget, and
the errors of vLLM 0.33.0 this configuration raises, in vLLM's own words and with this
configuration's numbers. The start-up checks are ``_check_enough_kv_cache_memory`` and
the auto-fit of ``get_kv_cache_configs`` (``vllm/v1/core/kv_cache_planning.py``).
``templates/assets/memory.js`` is a port of ``calculate`` for the site's calculator
(tests/test_memory_browser.py checks that both give the same answers); ``shared_constants()``
is the part of this module it reads from the site's ``api/memory.json``.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace

from generator.memory.budget import budget_figures, default_batch_limits, reserves
from generator.memory.kv import KvLayout, estimate_max_model_len, kv_layout, layer_caches
from generator.memory.model import model_facts
from generator.memory.settings import GIB, MemoryInputError, ServeSettings, input_error

# vLLM 0.33.0's error ids (the catalog's), each explained by a curated entry in errors/.
MAX_MODEL_LEN_TOO_LONG = "40a9e62adbd6db45"
HEADS_NOT_DIVISIBLE = "a5afdbb71761aa63"
NO_MEMORY_FOR_CACHE = "8178110fb39acd5c"
KV_CACHE_TOO_SMALL = "bdaa78831d773037"
AUTO_FIT_IMPOSSIBLE = "127c118f2e944b5f"
MAMBA_BLOCKS_BELOW_MAX_NUM_SEQS = "c8f7b9d6b5fb8793"
KNOWN_ERRORS = {  # by the names memory.js uses for them
    "MAX_MODEL_LEN_TOO_LONG": MAX_MODEL_LEN_TOO_LONG,
    "HEADS_NOT_DIVISIBLE": HEADS_NOT_DIVISIBLE,
    "NO_MEMORY_FOR_CACHE": NO_MEMORY_FOR_CACHE,
    "KV_CACHE_TOO_SMALL": KV_CACHE_TOO_SMALL,
    "AUTO_FIT_IMPOSSIBLE": AUTO_FIT_IMPOSSIBLE,
    "MAMBA_BLOCKS_BELOW_MAX_NUM_SEQS": MAMBA_BLOCKS_BELOW_MAX_NUM_SEQS,
}
ERROR_ENTRIES = {
    MAX_MODEL_LEN_TOO_LONG: "max-model-len-exceeds-derived-limit",
    HEADS_NOT_DIVISIBLE: "tensor-parallel-size-does-not-divide-model",
    NO_MEMORY_FOR_CACHE: "no-memory-for-kv-cache-blocks",
    KV_CACHE_TOO_SMALL: "kv-cache-too-small-for-max-model-len",
    AUTO_FIT_IMPOSSIBLE: "no-memory-for-kv-cache-blocks",
    MAMBA_BLOCKS_BELOW_MAX_NUM_SEQS: "mamba-cache-blocks-below-max-num-seqs",
}
# What vLLM says, as str.format templates of this configuration's numbers (memory.js fills them the same way).
MESSAGES = {
    MAX_MODEL_LEN_TOO_LONG: "User-specified max_model_len ({max_model_len}) is greater than the derived max_model_len "
                            "({key}={derived} in model's config.json).",
    HEADS_NOT_DIVISIBLE: "Total number of attention heads ({heads}) must be divisible by tensor parallel size ({tp}).",
    NO_MEMORY_FOR_CACHE: "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
                         "initializing the engine.",
    KV_CACHE_TOO_SMALL: "To serve at least one request with the model's max seq len ({max_model_len}), "
                        "({needed_gib} GiB KV cache is needed, which is larger than the available KV cache "
                        "memory ({available_gib} GiB). {estimate_hint}Try increasing `gpu_memory_utilization` or "
                        "decreasing `max_model_len` when initializing the engine.",
    AUTO_FIT_IMPOSSIBLE: "Cannot auto-fit max_model_len: not enough GPU memory available to serve even a single "
                         "token. Try increasing `gpu_memory_utilization`.",
    MAMBA_BLOCKS_BELOW_MAX_NUM_SEQS: "max_num_seqs ({max_num_seqs}) exceeds available Mamba cache blocks ({num_blocks}). Each "
                                     "decode sequence requires one Mamba cache block, so CUDA graph capture cannot proceed. "
                                     "Please lower max_num_seqs to at most {num_blocks} or increase gpu_memory_utilization.",
}
ESTIMATE_HINT = "Based on the available memory, the estimated maximum model length is {estimate}. "

# The flags fixes_for tries: more GPUs (in this order), sizes that may divide the attention
# heads (the nearest to the current one first), and --gpu-memory-utilization up to 0.98.
FIX_TENSOR_PARALLEL_SIZES = (2, 4, 8)
DIVIDING_TENSOR_PARALLEL_SIZES = (1, 2, 4, 8, 16)
FIX_UTILIZATION_UP_TO_HUNDREDTHS = 98

# Sentences both `errorkb memory` (generator/cli/memory.py) and the site's calculator print.
REPORT_TEXTS = {
    "weights_exceed_gpu": "The weights alone exceed the GPU's memory: loading them fails with CUDA out of memory first.",
    "no_error": "vLLM should start with these settings (the estimates aside).",
    "fixes": "Each of these alone fixes it: {fixes}",
    "fix": "{flags} ({kv_cache_tokens} tokens fit)",
    "no_fix": "No single flag fixes it: use a larger GPU, more GPUs, or a smaller model.",
}


def format_gib(size: int) -> str:
    """``vllm.utils.mem_utils.format_gib``: GiB with two decimals, as vLLM's messages print them."""
    return f"{round(size / GIB, 2)}"


@dataclass(frozen=True)
class Finding:
    id: str
    entry: str
    message: str  # what vLLM would say, with this configuration's numbers
    fixes: list[dict] = field(default_factory=list)  # {"flags": "--max-model-len 34304", "result": "..."}


def finding(error_id: str, **numbers) -> Finding:
    return Finding(error_id, ERROR_ENTRIES[error_id], MESSAGES[error_id].format(**numbers))


# --- the report -------------------------------------------------------------------------------


@dataclass(frozen=True)
class MemoryReport:
    model: dict
    settings: dict
    kv_cache: dict
    budget: dict
    errors: list[Finding]

    def to_json(self) -> dict:
        return {
            "model": self.model,
            "settings": self.settings,
            "kv_cache": self.kv_cache,
            "budget": self.budget,
            "errors": [asdict(f) for f in self.errors],
        }


def calculate(config: dict, settings: ServeSettings, source: str = "config.json", with_fixes: bool = True) -> MemoryReport:
    """Everything ``errorkb memory`` prints, for one model config and one set of flags."""
    facts = model_facts(config, source)
    tp = settings.tensor_parallel_size
    if tp < 1:
        raise input_error("tensor_parallel_size")
    if not 0 < settings.gpu_memory_utilization <= 1:
        raise input_error("gpu_memory_utilization")
    errors: list[Finding] = []
    derived = facts.derived_max_model_len
    auto_fit = settings.max_model_len == -1
    max_model_len = derived if settings.max_model_len in (None, -1) else settings.max_model_len
    if max_model_len < 1:
        raise input_error("max_model_len")
    if settings.max_model_len not in (None, -1) and settings.max_model_len > derived and facts.max_len_key:
        errors.append(finding(MAX_MODEL_LEN_TOO_LONG, max_model_len=settings.max_model_len, key=facts.max_len_key, derived=derived))
    if facts.num_attention_heads and facts.num_attention_heads % tp:
        errors.append(finding(HEADS_NOT_DIVISIBLE, heads=facts.num_attention_heads, tp=tp))
        return _report(facts, settings, None, None, max_model_len, errors, {}, {}, with_fixes, config, source)
    layers, dtype_bytes = layer_caches(config, settings, source)
    max_num_seqs, max_num_batched_tokens = default_batch_limits(settings.gpu_memory_bytes, settings.gpu_name, max_model_len, settings)
    in_flight = settings.concurrent_batches * max_num_batched_tokens
    items = reserves(facts, dtype_bytes, settings, max_num_batched_tokens, max_num_seqs)
    requested = math.ceil(settings.gpu_memory_bytes * settings.gpu_memory_utilization)
    available = settings.kv_cache_memory_bytes if settings.kv_cache_memory_bytes is not None else requested - sum(r.bytes for r in items)
    layout = kv_layout(layers, settings, max_model_len)
    budget: dict = {"requested_bytes": requested, "reserves": [asdict(r) for r in items], "kv_cache_bytes": available,
                    "kv_cache_bytes_given": settings.kv_cache_memory_bytes is not None,
                    # Then loading fails with CUDA out of memory before any of vLLM's own checks.
                    "weights_exceed_gpu": items[0].bytes > settings.gpu_memory_bytes}
    limits = {"max_num_seqs": max_num_seqs, "max_num_batched_tokens": max_num_batched_tokens, "in_flight_tokens": in_flight}
    if layout is not None:
        budget.update(budget_figures(layout, available, max_model_len, derived, in_flight, auto_fit))
        errors.extend(budget_findings(layout, budget, in_flight, auto_fit, max_num_seqs, settings.enforce_eager))
        max_model_len = budget["max_model_len"]
    return _report(facts, settings, layers, layout, max_model_len, errors, budget, limits, with_fixes, config, source, dtype_bytes)


def budget_findings(layout: KvLayout, figures: dict, in_flight: int, auto_fit: bool, max_num_seqs: int,
                    enforce_eager: bool) -> list[Finding]:
    """The start-up checks of ``get_kv_cache_configs`` on ``budget_figures``: the first that fails, if any."""
    usable, max_model_len = figures["usable_bytes"], figures["max_model_len"]
    if auto_fit and figures["largest_max_model_len"] <= 0:
        return [finding(AUTO_FIT_IMPOSSIBLE)]
    if usable <= 0:
        return [finding(NO_MEMORY_FOR_CACHE)]
    needed = figures["request_bytes"]
    if needed > usable:  # _check_enough_kv_cache_memory
        estimate = estimate_max_model_len(layout, usable, max_model_len, in_flight)
        hint = ESTIMATE_HINT.format(estimate=estimate) if estimate > 0 else ""
        return [finding(KV_CACHE_TOO_SMALL, max_model_len=max_model_len, needed_gib=format_gib(needed),
                        available_gib=format_gib(usable), estimate_hint=hint)]
    num_blocks = figures["num_blocks"]
    has_mamba = any(spec.kind == "mamba" for spec in layout.specs)
    # CompilationConfig.resolve_cudagraph_mode_and_sizes: full decode graphs need a Mamba
    # block per sequence; Mamba models default to FULL_AND_PIECEWISE graphs.
    if has_mamba and not enforce_eager and max_num_seqs > num_blocks:
        return [finding(MAMBA_BLOCKS_BELOW_MAX_NUM_SEQS, max_num_seqs=max_num_seqs, num_blocks=num_blocks)]
    return []


def _report(facts, settings, layers, layout, max_model_len, errors, budget, limits, with_fixes, config, source, dtype_bytes=0) -> MemoryReport:
    layers = layers or []
    attention = [layer for layer in layers if layer.kind != "mamba"]
    model = {
        "model_type": facts.model_type,
        "architecture": facts.architecture,
        "parameters": facts.parameters.total,
        "layers": facts.num_layers,
        "attention_layers": len(attention),
        "sliding_window_layers": sum(1 for layer in layers if layer.kind == "sliding"),
        "mla_layers": sum(1 for layer in layers if layer.kind == "mla"),
        "mamba_layers": len(layers) - len(attention),
        "derived_max_model_len": facts.derived_max_model_len,
        "max_len_key": facts.max_len_key,
        "dtype_bytes": dtype_bytes,
        "is_moe": facts.is_moe,
        "is_multimodal": facts.is_multimodal,
    }
    kv_cache: dict = {
        "bytes_per_token": sum(layer.bytes_per_token for layer in attention),
        "full_attention_bytes_per_token": sum(layer.bytes_per_token for layer in attention if layer.kind != "sliding"),
        "sliding_window_bytes_per_token": sum(layer.bytes_per_token for layer in attention if layer.kind == "sliding"),
        "sliding_window": max((layer.sliding_window or 0 for layer in attention), default=0) or None,
        "mamba_state_bytes": sum(layer.state_bytes for layer in layers if layer.kind == "mamba"),
        "mamba_state_bytes_per_layer": max((layer.state_bytes for layer in layers if layer.kind == "mamba"), default=0),
    }
    if layout is not None:
        kv_cache.update(
            block_size=layout.plan.block_size,
            mamba_block_size=layout.plan.mamba_block_size,
            mamba_cache_mode=layout.plan.mamba_cache_mode,
            mamba_page_bytes=layout.plan.mamba_page_size if model["mamba_layers"] else 0,
            groups=[len(members) for members in layout.groups],
        )
    resolved = {**settings.to_json(), **limits, "max_model_len": max_model_len}
    report = MemoryReport(model, resolved, kv_cache, budget, errors)
    if with_fixes and errors:
        for item in errors:
            item.fixes.extend(fixes_for(item, report, config, settings, source))
    return report


# --- the fixes --------------------------------------------------------------------------------


def fixes_for(finding: Finding, report: MemoryReport, config: dict, settings: ServeSettings, source: str) -> list[dict]:
    """The flags that, each alone, make this configuration start: every candidate is calculated again."""
    candidates: list[tuple[str, ServeSettings]] = []
    budget = report.budget
    derived = report.model["derived_max_model_len"]
    heads = model_facts(config, source).num_attention_heads
    tp = settings.tensor_parallel_size

    def parallel() -> None:
        for size in FIX_TENSOR_PARALLEL_SIZES:
            if size > tp and (not heads or heads % size == 0):
                candidates.append((f"--tensor-parallel-size {size}", replace(settings, tensor_parallel_size=size)))

    def utilization() -> None:
        start = math.floor(settings.gpu_memory_utilization * 100) + 1
        for hundredths in range(start, FIX_UTILIZATION_UP_TO_HUNDREDTHS + 1):
            candidates.append((f"--gpu-memory-utilization {hundredths / 100}", replace(settings, gpu_memory_utilization=hundredths / 100)))

    if finding.id == MAX_MODEL_LEN_TOO_LONG:
        candidates.append((f"--max-model-len {derived}", replace(settings, max_model_len=derived)))
    elif finding.id == HEADS_NOT_DIVISIBLE:
        # the nearest size that divides the heads first (ties: the smaller)
        for size in sorted(DIVIDING_TENSOR_PARALLEL_SIZES, key=lambda size: (abs(size - tp), size)):
            if size != tp and heads % size == 0:
                candidates.append((f"--tensor-parallel-size {size}", replace(settings, tensor_parallel_size=size)))
    elif finding.id == KV_CACHE_TOO_SMALL:
        if budget.get("largest_max_model_len", 0) > 0:
            candidates.append((f"--max-model-len {budget['largest_max_model_len']}", replace(settings, max_model_len=budget["largest_max_model_len"])))
            candidates.append(("--max-model-len auto", replace(settings, max_model_len=-1)))
        if settings.kv_cache_dtype == "auto" and report.model["dtype_bytes"] > 1 and report.model["attention_layers"]:
            candidates.append(("--kv-cache-dtype fp8", replace(settings, kv_cache_dtype="fp8")))
        utilization()
        parallel()
    elif finding.id in (NO_MEMORY_FOR_CACHE, AUTO_FIT_IMPOSSIBLE):
        utilization()
        if not settings.enforce_eager:
            candidates.append(("--enforce-eager", replace(settings, enforce_eager=True)))
        if settings.quantization in (None, "", "none") and not (model_facts(config, source).quantization or {}).get("quant_method"):
            candidates.append(("--quantization fp8", replace(settings, quantization="fp8")))
        parallel()
    elif finding.id == MAMBA_BLOCKS_BELOW_MAX_NUM_SEQS:
        if budget.get("num_blocks", 0) >= 1:
            candidates.append((f"--max-num-seqs {budget['num_blocks']}", replace(settings, max_num_seqs=budget["num_blocks"])))
        if not settings.enforce_eager:
            candidates.append(("--enforce-eager", replace(settings, enforce_eager=True)))
        utilization()
        parallel()
    fixes, seen_kinds = [], set()
    for flags, changed in candidates:
        kind = flags.split(" ")[0]
        if kind in seen_kinds:
            continue  # the first (smallest) value of each flag that works
        try:
            result = calculate(config, changed, source, with_fixes=False)
        except MemoryInputError:
            continue
        if result.errors:
            continue
        seen_kinds.add(kind)
        fixes.append({"flags": flags, "kv_cache_tokens": result.budget.get("tokens", 0), "max_model_len": result.settings["max_model_len"]})
    return fixes


def shared_constants() -> dict:
    """What memory.js reads: the errors (id, entry, message), the fixes it tries, the report's sentences."""
    return {
        "errors": {name: {"id": error_id, "entry": ERROR_ENTRIES[error_id], "message": MESSAGES[error_id]}
                   for name, error_id in KNOWN_ERRORS.items()},
        "estimate_hint": ESTIMATE_HINT,
        "fix_tensor_parallel_sizes": list(FIX_TENSOR_PARALLEL_SIZES),
        "dividing_tensor_parallel_sizes": list(DIVIDING_TENSOR_PARALLEL_SIZES),
        "fix_utilization_up_to_hundredths": FIX_UTILIZATION_UP_TO_HUNDREDTHS,
        "report_texts": REPORT_TEXTS,
    }
