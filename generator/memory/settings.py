"""The calculator's input: the ``vllm serve`` flags that decide memory, sizes and dtype sizes.

Pure: no disk, no processes. ``shared_constants()`` is the part of this module that
``templates/assets/memory.js`` reads from the site's ``api/memory.json``.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from generator.errors import InputError

GIB = 1 << 30
MIB = 1 << 20


class MemoryInputError(InputError, ValueError):
    """Input the person can fix (a config we cannot read, an unknown GPU): one line, what to do."""


# The calculator's one-line messages for input it cannot take, as str.format templates
# ("{value!r}": Python's repr; memory.js fills them the same way).
INPUT_ERRORS = {
    "size": "cannot read the size {text!r}; write it like 24GiB, 80GB or 25769803776",
    "unknown_gpu": "unknown GPU {name!r}; use one of {gpus}, or --gpu-memory SIZE (e.g. 24GiB)",
    "missing_key": "{source}: `{key}` is missing; a {model_type} config.json needs it",
    "not_positive_int": "{source}: `{key}` must be a positive integer, got {value!r}",
    "not_object": "{source}: not a JSON object; give the model's config.json",
    "no_model_type": "{source}: no `model_type`; give the model's config.json (the file beside its weights)",
    "unsupported_model": "{source}: model_type {model_type!r} is not modelled; supported: {supported}",
    "layer_types": "{source}: `layer_types` must list each of the {n} layers as \"mamba\" or \"attention\"",
    "dtype": "--dtype {dtype!r}: use auto, bfloat16, float16 or float32",
    "kv_cache_dtype": "--kv-cache-dtype {dtype!r}: use auto, fp8, fp8_e4m3, fp8_e5m2, bfloat16 or float16",
    "mamba_dtype": "--{flag} {dtype!r}: use auto, float32, bfloat16 or float16",
    "not_divisible": "{source}: {what} ({numerator}) is not divisible by --tensor-parallel-size {tp}",
    "quantization": "quantization {method!r} is not modelled; use one of {methods}, or none",
    "tensor_parallel_size": "--tensor-parallel-size must be at least 1",
    "gpu_memory_utilization": "--gpu-memory-utilization must be above 0 and at most 1",
    "max_model_len": "--max-model-len must be a positive number of tokens, or -1 / auto",
}


def input_error(kind: str, /, **values) -> MemoryInputError:
    """The MemoryInputError ``INPUT_ERRORS[kind]`` says, with these values."""
    return MemoryInputError(INPUT_ERRORS[kind].format(**values))


# --- sizes ------------------------------------------------------------------------------------

SIZE_UNITS = {"b": 1, "kb": 10**3, "kib": 1 << 10, "mb": 10**6, "mib": 1 << 20, "gb": 10**9, "gib": 1 << 30, "tb": 10**12, "tib": 1 << 40}
# A number without a unit: bytes above this, else GiB ("24" is 24 GiB, "25769803776" bytes).
BARE_NUMBER_BYTES_ABOVE = 1024
BARE_NUMBER_UNIT = "gib"
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(" + "|".join(SIZE_UNITS) + r")?\s*$", re.IGNORECASE)


def parse_size(text: str) -> int:
    """``24GiB``, ``80GB``, ``1.5 GiB``, ``123456`` (bytes) → bytes. A bare number over 1024 is bytes, else GiB."""
    match = _SIZE.match(str(text))
    if not match:
        raise input_error("size", text=text)
    number, unit = float(match.group(1)), (match.group(2) or "").lower()
    if not unit:
        unit = "b" if number > BARE_NUMBER_BYTES_ABOVE else BARE_NUMBER_UNIT
    return round(number * SIZE_UNITS[unit])


# --- dtypes -----------------------------------------------------------------------------------

DTYPE_BYTES = {"float32": 4, "float": 4, "bfloat16": 2, "float16": 2, "half": 2}
DTYPE_ALIASES = {"half": "float16", "float": "float32"}
KV_CACHE_DTYPE_BYTES = {"bfloat16": 2, "float16": 2, "fp8": 1, "fp8_e4m3": 1, "fp8_e5m2": 1, "fp8_inc": 1}
MAMBA_DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}
# The torch.float32 → preferred downcast of ModelConfig._resolve_auto_dtype on GPUs with bf16 (sm80+).
AUTO_FLOAT32_TO = "bfloat16"


# --- the settings -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ServeSettings:
    """The ``vllm serve`` flags that decide memory, with vLLM's defaults; None: vLLM decides."""

    gpu_memory_bytes: int
    gpu_memory_utilization: float = 0.92  # CacheConfig.gpu_memory_utilization
    max_model_len: int | None = None  # None: the model's; -1: "auto", the largest that fits
    max_num_seqs: int | None = None
    max_num_batched_tokens: int | None = None
    dtype: str = "auto"
    kv_cache_dtype: str = "auto"
    mamba_ssm_cache_dtype: str = "auto"
    quantization: str | None = None  # None: the checkpoint's own (config.json quantization_config)
    tensor_parallel_size: int = 1
    enforce_eager: bool = False
    enable_prefix_caching: bool | None = None  # None: vLLM's default for the model
    kv_cache_memory_bytes: int | None = None  # vLLM's --kv-cache-memory-bytes: skips profiling
    # What the attention backend decides; the defaults are CUDA's FlashAttention / FlashMLA.
    block_size: int | None = None  # None: 16, or 64 for MLA models
    kernel_block_alignment: int | None = None  # None: the smallest kernel block (16; 64 for MLA)
    concurrent_batches: int = 2  # async scheduling keeps two batches in flight (VllmConfig.max_concurrent_batches)
    gpu_name: str = ""

    def to_json(self) -> dict:
        return asdict(self)


def shared_constants() -> dict:
    """What memory.js reads: the input errors, the settings' defaults, the size units, the dtype sizes."""
    return {
        "input_errors": INPUT_ERRORS,
        "settings_defaults": ServeSettings(gpu_memory_bytes=0).to_json(),
        "sizes": {"units": SIZE_UNITS, "bare_number_bytes_above": BARE_NUMBER_BYTES_ABOVE, "bare_number_unit": BARE_NUMBER_UNIT},
        "dtypes": {
            "dtype_bytes": DTYPE_BYTES,
            "dtype_aliases": DTYPE_ALIASES,
            "kv_cache_dtype_bytes": KV_CACHE_DTYPE_BYTES,
            "mamba_dtype_bytes": MAMBA_DTYPE_BYTES,
            "auto_float32_to": AUTO_FLOAT32_TO,
        },
    }
