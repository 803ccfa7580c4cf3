"""Will a model fit on a GPU under vLLM 0.33.0, and which memory error will it raise if not?

Pure functions from a model's ``config.json`` (a dict) and the serving flags
(``ServeSettings``) to a ``MemoryReport``. The KV cache arithmetic repeats what vLLM
computes at start-up, in vLLM's own integer steps, so that the figures are the ones vLLM
logs and checks (tests/test_memory.py compares them with vLLM itself):

- bytes per token of an attention layer: ``AttentionSpec.page_size_bytes`` for one
  token (``vllm/v1/kv_cache_interface.py``), with the KV heads per GPU of
  ``ModelConfig.get_num_kv_heads`` (``vllm/config/model.py``) and one latent of
  ``kv_lora_rank + qk_rope_head_dim`` for MLA (``MLAAttention.get_kv_cache_spec``);
- a Mamba layer's per-sequence state: ``MambaStateShapeCalculator`` and
  ``MambaStateDtypeCalculator`` (``vllm/model_executor/layers/mamba/mamba_utils.py``);
- hybrid models' attention block size and Mamba page padding:
  ``Platform._align_hybrid_block_size`` (``vllm/platforms/interface.py``);
- groups, bytes per block, blocks per request, the start-up checks and the maximum
  length estimate: ``get_kv_cache_groups``, ``_get_kv_cache_groups_uniform_page_size``,
  ``_max_memory_usage_bytes_from_groups``, ``_check_enough_kv_cache_memory`` and
  ``_estimate_max_model_len_from_groups`` (``vllm/v1/core/kv_cache_planning.py``);
  the capacity vLLM logs: ``get_kv_cache_capacity`` (``vllm/v1/core/kv_cache_utils.py``).

What vLLM measures rather than computes (the activation peak of its profiling pass,
memory outside PyTorch, CUDA graphs) is estimated here, and each such figure says so
and where it comes from. ``templates/assets/memory.js`` is a port of this module for the
site's calculator; tests/test_memory_browser.py checks that both give the same answers.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from generator.errors import InputError

GIB = 1 << 30
MIB = 1 << 20

# --- GPUs -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Gpu:
    name: str
    memory_gib: float  # what the CUDA driver reports where a log shows it, else the nominal size
    source: str


# The driver reports a little less than the marketed size (an "80 GB" H100 shows 79.19 GiB);
# vLLM's budget is that reported total times --gpu-memory-utilization.
GPUS: tuple[Gpu, ...] = (
    Gpu("H200", 139.8, "approximately what the driver reports for the 141 GB H200 (about 139-140 GiB)"),
    Gpu("H100-80GB", 79.19, "reported total in a vLLM log (kubernetes-sigs/gateway-api-inference-extension#550)"),
    Gpu("H100-94GB", 94.0, "nominal (H100 NVL)"),
    Gpu("H20", 96.0, "nominal"),
    Gpu("B200", 180.0, "nominal"),
    Gpu("GH200", 96.0, "nominal (the GPU's HBM3 part)"),
    Gpu("A100-80GB", 80.0, "nominal"),
    Gpu("A100-40GB", 40.0, "nominal"),
    Gpu("L40S", 48.0, "nominal"),
    Gpu("L40", 48.0, "nominal"),
    Gpu("A6000", 48.0, "nominal (RTX A6000)"),
    Gpu("L4", 24.0, "nominal"),
    Gpu("A10G", 24.0, "nominal"),
    Gpu("A10", 24.0, "nominal"),
    Gpu("RTX-4090", 23.55, "reported total of a 24 GB card in a vLLM log (vllm-project/vllm#11550)"),
    Gpu("RTX-3090", 23.55, "reported total of a 24 GB card in a vLLM log (vllm-project/vllm#11550)"),
    Gpu("RTX-5090", 31.36, "reported total in PyTorch's out-of-memory message"),
    Gpu("T4", 16.0, "nominal"),
    Gpu("V100-32GB", 32.0, "nominal"),
    Gpu("V100-16GB", 16.0, "nominal"),
    Gpu("MI300X", 192.0, "nominal"),
    Gpu("MI325X", 256.0, "nominal"),
)


class MemoryInputError(InputError, ValueError):
    """Input the person can fix (a config we cannot read, an unknown GPU): one line, what to do."""


def gpu_memory_bytes(gpu: Gpu) -> int:
    return round(gpu.memory_gib * GIB)


def find_gpu(name: str) -> Gpu:
    """A GPU of the table by name, case and punctuation ignored ("h100" finds H100-80GB)."""
    wanted = re.sub(r"[^a-z0-9]", "", name.lower())
    exact = [g for g in GPUS if re.sub(r"[^a-z0-9]", "", g.name.lower()) == wanted]
    if exact:
        return exact[0]
    prefixed = [g for g in GPUS if re.sub(r"[^a-z0-9]", "", g.name.lower()).startswith(wanted)] if wanted else []
    if len(prefixed) >= 1:
        return prefixed[0]
    raise MemoryInputError(f"unknown GPU {name!r}; use one of {', '.join(g.name for g in GPUS)}, or --gpu-memory SIZE (e.g. 24GiB)")


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(b|kb|kib|mb|mib|gb|gib|tb|tib)?\s*$", re.IGNORECASE)
_UNITS = {"b": 1, "kb": 10**3, "kib": 1 << 10, "mb": 10**6, "mib": 1 << 20, "gb": 10**9, "gib": 1 << 30, "tb": 10**12, "tib": 1 << 40}


def parse_size(text: str) -> int:
    """``24GiB``, ``80GB``, ``1.5 GiB``, ``123456`` (bytes) → bytes. A bare number over 1024 is bytes, else GiB."""
    match = _SIZE.match(str(text))
    if not match:
        raise MemoryInputError(f"cannot read the size {text!r}; write it like 24GiB, 80GB or 25769803776")
    number, unit = float(match.group(1)), (match.group(2) or "").lower()
    if not unit:
        unit = "b" if number > 1024 else "gib"
    return round(number * _UNITS[unit])


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


# --- the model --------------------------------------------------------------------------------

DTYPE_BYTES = {"float32": 4, "float": 4, "bfloat16": 2, "float16": 2, "half": 2}
KV_CACHE_DTYPE_BYTES = {"bfloat16": 2, "float16": 2, "fp8": 1, "fp8_e4m3": 1, "fp8_e5m2": 1, "fp8_inc": 1}
MAMBA_DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}
# The torch.float32 → preferred downcast of ModelConfig._resolve_auto_dtype on GPUs with bf16 (sm80+).
AUTO_FLOAT32_TO = "bfloat16"

DECODERS = {"llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "gemma", "gemma2", "qwen2_vl", "qwen2_5_vl", "gpt2"}
ENCODERS = {"bert"}  # encoder-only: EncoderOnlyAttention keeps no KV cache
MLA_MODELS = {"deepseek_v2", "deepseek_v3"}
MAMBA1_MODELS = {"mamba", "falcon_mamba"}
HYBRIDS = {"granitemoehybrid"}
SUPPORTED = sorted(DECODERS | ENCODERS | MLA_MODELS | MAMBA1_MODELS | HYBRIDS)
# Transformers config classes whose tie_word_embeddings defaults to true when config.json omits it.
TIED_BY_DEFAULT = {"gemma", "gemma2", "mamba", "gpt2", "bert"}
# The config classes' attribute_map: the standard names of the settings GPT-2 spells its own way.
ATTRIBUTE_MAPS = {"gpt2": {"hidden_size": "n_embd", "max_position_embeddings": "n_positions",
                           "num_attention_heads": "n_head", "num_hidden_layers": "n_layer"}}
# max_position_embeddings and the other keys vLLM reads the context length from, in its order.
MAX_LEN_KEYS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "model_max_length",
                "max_target_positions", "max_sequence_length", "max_seq_length", "seq_len")
ROPE_TYPES_ALREADY_SCALED = ("su", "longrope", "llama3", "yarn", "deepseek_yarn", "deepseek_llama_scaling")


@dataclass(frozen=True)
class LayerCache:
    """The cache one layer keeps, per GPU."""

    index: int
    kind: str  # "full", "sliding", "mla" (attention), "mamba"
    bytes_per_token: int = 0  # attention: K and V (MLA: the latent) of one token
    sliding_window: int | None = None
    state_bytes: int = 0  # mamba: one sequence's state
    state_shapes: tuple = ()
    state_dtype_bytes: tuple = ()


@dataclass(frozen=True)
class Parameters:
    linear: int  # weights of linear layers: what a quantization method stores in fewer bits
    embedding: int  # token embeddings and LM head: split by vocabulary across GPUs, not quantized
    other: int  # norms, biases, convolutions, the vision tower: in the model's dtype, on every GPU

    @property
    def total(self) -> int:
        return self.linear + self.embedding + self.other


@dataclass(frozen=True)
class ModelFacts:
    model_type: str
    architecture: str
    num_layers: int
    hidden_size: int
    vocab_size: int
    num_attention_heads: int
    num_kv_heads: int
    intermediate_size: int  # per token, dense MLP (MoE: the active experts' total)
    derived_max_model_len: int
    max_len_key: str
    parameters: Parameters
    quantization: dict | None  # config.json's quantization_config
    config_dtype: str
    is_moe: bool
    is_multimodal: bool


def text_config(config: dict) -> dict:
    """The language model's settings: ``text_config`` over the top level, as vLLM's ``hf_text_config``."""
    inner = config.get("text_config")
    merged = {**config, **inner} if isinstance(inner, dict) else config
    aliases = ATTRIBUTE_MAPS.get(merged.get("model_type"), {})
    if aliases:
        merged = {**merged, **{name: merged.get(own) for name, own in aliases.items() if own in merged}}
    return merged


def _need(config: dict, key: str, source: str):
    value = config.get(key)
    if value is None:
        raise MemoryInputError(f"{source}: `{key}` is missing; a {config.get('model_type')} config.json needs it")
    return value


def _int(config: dict, key: str, source: str) -> int:
    value = _need(config, key, source)
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise MemoryInputError(f"{source}: `{key}` must be a positive integer, got {value!r}")
    return value


def model_type_of(config: dict, source: str = "config.json") -> str:
    if not isinstance(config, dict):
        raise MemoryInputError(f"{source}: not a JSON object; give the model's config.json")
    model_type = config.get("model_type")
    if not isinstance(model_type, str):
        raise MemoryInputError(f"{source}: no `model_type`; give the model's config.json (the file beside its weights)")
    if model_type not in SUPPORTED:
        raise MemoryInputError(f"{source}: model_type {model_type!r} is not modelled; supported: {', '.join(SUPPORTED)}")
    return model_type


def head_size(cfg: dict, source: str) -> int:
    """``ModelArchitectureConfig.head_size``: ``head_dim`` when given, else hidden / heads; MLA: latent + rope."""
    if cfg.get("kv_lora_rank") is not None and cfg.get("model_type") in MLA_MODELS:
        return _int(cfg, "kv_lora_rank", source) + _int(cfg, "qk_rope_head_dim", source)
    if isinstance(cfg.get("head_dim"), int) and cfg["head_dim"] > 0:
        return cfg["head_dim"]
    return _int(cfg, "hidden_size", source) // _int(cfg, "num_attention_heads", source)


def layer_kinds(cfg: dict, model_type: str, source: str) -> list[tuple[str, int | None]]:
    """Each layer's cache kind and sliding window, as the model's vLLM class builds its layers."""
    n = _int(cfg, "num_hidden_layers", source)
    if model_type in MAMBA1_MODELS:
        return [("mamba", None)] * n
    if model_type in ENCODERS:
        return []
    if model_type in MLA_MODELS:
        return [("mla", None)] * n
    if model_type in HYBRIDS:
        types = cfg.get("layer_types")
        if not isinstance(types, list) or len(types) != n:
            raise MemoryInputError(f"{source}: `layer_types` must list each of the {n} layers as \"mamba\" or \"attention\"")
        return [("mamba", None) if t == "mamba" else ("full", None) for t in types]
    # Decoders. Transformers' own config classes normalize the sliding window before vLLM
    # reads it: Qwen2-family configs drop it unless use_sliding_window, Gemma-2 alternates
    # sliding (even layers) and full attention; vLLM then follows `layer_types` per layer,
    # or else gives every layer the model-level window (Attention: cache_config.sliding_window).
    window = cfg.get("sliding_window")
    if model_type in ("qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "qwen2_vl", "qwen2_5_vl"):
        if not cfg.get("use_sliding_window", False):
            window = None
    types = cfg.get("layer_types")
    if types is None and model_type == "gemma2":
        types = ["sliding_attention" if (i + 1) % 2 else "full_attention" for i in range(n)]
    if types is None and window is not None and model_type in ("qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "qwen2_vl", "qwen2_5_vl"):
        start = cfg.get("max_window_layers", n)
        types = ["sliding_attention" if i >= start else "full_attention" for i in range(n)]
    if not isinstance(window, int) or window <= 0:
        window = None
    if isinstance(types, list) and len(types) == n:
        return [("sliding", window) if t == "sliding_attention" and window else ("full", None) for t in types]
    return [("sliding", window) if window else ("full", None)] * n


def resolve_dtype(config: dict, dtype: str) -> tuple[str, str]:
    """(the model's dtype in vLLM, the checkpoint's), as ``_get_and_verify_dtype`` on a bf16-capable GPU."""
    cfg = text_config(config)
    checkpoint = str(cfg.get("torch_dtype") or cfg.get("dtype") or config.get("torch_dtype") or "float32").removeprefix("torch.")
    if checkpoint not in DTYPE_BYTES:
        checkpoint = "float32"
    if dtype == "auto":
        chosen = AUTO_FLOAT32_TO if DTYPE_BYTES[checkpoint] == 4 else checkpoint
    elif dtype in DTYPE_BYTES:
        chosen = dtype
    else:
        raise MemoryInputError(f"--dtype {dtype!r}: use auto, bfloat16, float16 or float32")
    chosen = {"half": "float16", "float": "float32"}.get(chosen, chosen)
    return chosen, checkpoint


def kv_cache_dtype_bytes(kv_cache_dtype: str, model_dtype_bytes: int) -> int:
    if kv_cache_dtype == "auto":
        return model_dtype_bytes
    if kv_cache_dtype not in KV_CACHE_DTYPE_BYTES:
        raise MemoryInputError(f"--kv-cache-dtype {kv_cache_dtype!r}: use auto, fp8, fp8_e4m3, fp8_e5m2, bfloat16 or float16")
    return KV_CACHE_DTYPE_BYTES[kv_cache_dtype]


def mamba_dtype_bytes(setting: str, model_dtype_bytes: int, name: str) -> int:
    """``MambaStateDtypeCalculator``: auto is the model's dtype (``get_kv_cache_torch_dtype``)."""
    if setting == "auto":
        return model_dtype_bytes
    if setting not in MAMBA_DTYPE_BYTES:
        raise MemoryInputError(f"--{name} {setting!r}: use auto, float32, bfloat16 or float16")
    return MAMBA_DTYPE_BYTES[setting]


def _divide(numerator: int, denominator: int, what: str, source: str) -> int:
    # vllm.distributed.divide asserts the split is exact; so does a sharded layer.
    if numerator % denominator:
        raise MemoryInputError(f"{source}: {what} ({numerator}) is not divisible by --tensor-parallel-size {denominator}")
    return numerator // denominator


def mamba_state(cfg: dict, model_type: str, tp: int, conv_bytes: int, ssm_bytes: int, source: str) -> tuple[tuple, tuple]:
    """(shapes, dtype sizes) of one Mamba layer's state per GPU: ``get_mamba_state_shape_from_config``."""
    if model_type in MAMBA1_MODELS:
        # MambaStateShapeCalculator.mamba1_state_shape (conv layout "SD": (state_len, dim))
        inner = _int(cfg, "intermediate_size", source)
        dim = _divide(inner, tp, "intermediate_size", source)
        return ((_int(cfg, "conv_kernel", source) - 1, dim), (dim, _int(cfg, "state_size", source))), (conv_bytes, ssm_bytes)
    # granitemoehybrid: MambaStateShapeCalculator.mamba2_state_shape
    inner = _int(cfg, "mamba_expand", source) * _int(cfg, "hidden_size", source)
    groups = _int(cfg, "mamba_n_groups", source)
    # Groups are replicated so that every head shard has its group (extra_groups_for_head_shards).
    groups += 0 if groups % tp == 0 else tp - groups
    state = _int(cfg, "mamba_d_state", source)
    conv_dim = inner + 2 * groups * state
    conv = (_int(cfg, "mamba_d_conv", source) - 1, _divide(conv_dim, tp, "the Mamba conv dimension", source))
    temporal = (_divide(_int(cfg, "mamba_n_heads", source), tp, "mamba_n_heads", source), _int(cfg, "mamba_d_head", source), state)
    return (conv, temporal), (conv_bytes, ssm_bytes)


def layer_caches(config: dict, settings: ServeSettings, source: str = "config.json") -> tuple[list[LayerCache], int]:
    """Every layer's cache per GPU, and the model's dtype size in bytes."""
    model_type = model_type_of(config, source)
    cfg = text_config(config)
    dtype, _ = resolve_dtype(config, settings.dtype)
    dtype_bytes = DTYPE_BYTES[dtype]
    tp = settings.tensor_parallel_size
    kv_bytes = kv_cache_dtype_bytes(settings.kv_cache_dtype, dtype_bytes)
    layers = []
    for index, (kind, window) in enumerate(layer_kinds(cfg, model_type, source)):
        if kind == "mamba":
            conv_bytes = mamba_dtype_bytes("auto", dtype_bytes, "mamba-cache-dtype")
            ssm_bytes = mamba_dtype_bytes(settings.mamba_ssm_cache_dtype, conv_bytes, "mamba-ssm-cache-dtype")
            shapes, sizes = mamba_state(cfg, model_type, tp, conv_bytes, ssm_bytes, source)
            state = sum(math.prod(shape) * size for shape, size in zip(shapes, sizes))
            layers.append(LayerCache(index, "mamba", state_bytes=state, state_shapes=shapes, state_dtype_bytes=sizes))
        elif kind == "mla":
            # MLAAttentionSpec: one latent per token, num_kv_heads=1, no separate V, on every GPU.
            layers.append(LayerCache(index, "mla", bytes_per_token=head_size(cfg, source) * kv_bytes))
        else:
            heads = cfg.get("num_key_value_heads") or _int(cfg, "num_attention_heads", source)
            per_gpu = max(1, heads // tp)  # ModelConfig.get_num_kv_heads: replicated below one per GPU
            size = head_size(cfg, source)
            layers.append(LayerCache(index, kind, bytes_per_token=per_gpu * 2 * size * kv_bytes, sliding_window=window))
    return layers, dtype_bytes


# --- parameters -------------------------------------------------------------------------------


def count_parameters(config: dict, source: str = "config.json") -> Parameters:
    """Parameters counted from the configuration, as the model's vLLM class lays them out."""
    model_type = model_type_of(config, source)
    cfg = text_config(config)
    hidden = _int(cfg, "hidden_size", source)
    vocab = _int(cfg, "vocab_size", source)
    n = _int(cfg, "num_hidden_layers", source)
    tied = bool(cfg.get("tie_word_embeddings", model_type in TIED_BY_DEFAULT))
    embedding = vocab * hidden * (1 if tied else 2)
    other = hidden  # the final norm
    linear = 0
    if model_type in MAMBA1_MODELS:
        inner = _int(cfg, "intermediate_size", source)
        state = _int(cfg, "state_size", source)
        rank = cfg.get("time_step_rank") or math.ceil(hidden / 16)
        kernel = _int(cfg, "conv_kernel", source)
        per_layer_linear = hidden * 2 * inner + inner * (rank + 2 * state) + rank * inner + inner * hidden
        per_layer_other = inner * kernel + inner * (1 if cfg.get("use_conv_bias", True) else 0) + inner + inner * state + inner + hidden
        return Parameters(linear=n * per_layer_linear, embedding=embedding, other=other + n * per_layer_other)
    if model_type in ("gpt2", "bert"):
        # Biased linear layers: q/k/v and output projection, a two-matrix MLP; LayerNorms with a bias.
        inner = cfg.get("n_inner") or cfg.get("intermediate_size") or 4 * hidden
        positions = cfg.get("max_position_embeddings") or 0
        per_layer_linear = 4 * hidden * hidden + 2 * hidden * inner
        per_layer_other = 4 * hidden + inner + hidden + 4 * hidden  # biases, two LayerNorms
        other = 2 * hidden + positions * hidden  # final LayerNorm, position embeddings
        if model_type == "bert":
            # token types; the masked-LM head: a dense layer, a LayerNorm and the decoder's bias
            other += (cfg.get("type_vocab_size") or 0) * hidden + hidden * hidden + hidden + 2 * hidden + vocab
        return Parameters(linear=n * per_layer_linear, embedding=embedding, other=other + n * per_layer_other)
    heads = _int(cfg, "num_attention_heads", source)
    kv_heads = cfg.get("num_key_value_heads") or heads
    kinds = layer_kinds(cfg, model_type, source)
    for index, (kind, _) in enumerate(kinds):
        if kind == "mamba":  # granitemoehybrid's Mamba2 mixer
            inner = cfg["mamba_expand"] * hidden
            groups, state, mheads = cfg["mamba_n_groups"], cfg["mamba_d_state"], cfg["mamba_n_heads"]
            conv_dim = inner + 2 * groups * state
            linear += hidden * (inner + conv_dim + mheads) + inner * hidden
            other += conv_dim * cfg["mamba_d_conv"] + (conv_dim if cfg.get("mamba_conv_bias", True) else 0) + 3 * mheads + inner
        elif kind == "mla":
            nope, rope, v = cfg["qk_nope_head_dim"], cfg["qk_rope_head_dim"], cfg["v_head_dim"]
            rank = cfg["kv_lora_rank"]
            q_rank = cfg.get("q_lora_rank")
            q = hidden * heads * (nope + rope) if not q_rank else hidden * q_rank + q_rank * heads * (nope + rope)
            linear += q + hidden * (rank + rope) + rank * heads * (nope + v) + heads * v * hidden
            other += rank + (q_rank or 0)
        else:
            size = head_size(cfg, source)
            linear += hidden * heads * size + 2 * hidden * kv_heads * size + heads * size * hidden
            if model_type in ("qwen2", "qwen2_moe", "qwen2_vl", "qwen2_5_vl") or cfg.get("attention_bias"):
                other += heads * size + 2 * kv_heads * size
            if model_type in ("qwen3", "qwen3_moe"):
                other += 2 * size  # q_norm, k_norm
        linear += mlp_parameters(cfg, model_type, index, hidden)
        other += hidden * (4 if model_type == "gemma2" else 2)  # the layer's norms
    other += vision_parameters(config, model_type)
    return Parameters(linear=linear, embedding=embedding, other=other)


def mlp_parameters(cfg: dict, model_type: str, index: int, hidden: int) -> int:
    """Linear weights of one layer's MLP or mixture of experts (routers included)."""
    inter = cfg.get("intermediate_size") or 0
    if model_type == "mixtral":
        experts = cfg["num_local_experts"]
        return experts * 3 * hidden * inter + hidden * experts
    if model_type in ("qwen2_moe", "qwen3_moe"):
        sparse = cfg.get("decoder_sparse_step", 1) or 1
        dense = index in (cfg.get("mlp_only_layers") or []) or cfg.get("num_experts", 0) == 0 or (index + 1) % sparse
        if dense:
            return 3 * hidden * inter
        experts, moe = cfg["num_experts"], cfg["moe_intermediate_size"]
        shared = cfg.get("shared_expert_intermediate_size") or 0
        return experts * 3 * hidden * moe + hidden * experts + 3 * hidden * shared + (hidden if shared else 0)
    if model_type in MLA_MODELS:
        moe_layer = cfg.get("n_routed_experts") and index >= cfg.get("first_k_dense_replace", 0) and index % cfg.get("moe_layer_freq", 1) == 0
        if not moe_layer:
            return 3 * hidden * inter
        experts, moe = cfg["n_routed_experts"], cfg["moe_intermediate_size"]
        return experts * 3 * hidden * moe + hidden * experts + 3 * hidden * moe * (cfg.get("n_shared_experts") or 0)
    if model_type in HYBRIDS:
        experts = cfg.get("num_local_experts") or 0
        shared = cfg.get("shared_intermediate_size") or 0
        return experts * 3 * hidden * inter + hidden * experts + 3 * hidden * shared
    return 3 * hidden * inter


def vision_parameters(config: dict, model_type: str) -> int:
    """The Qwen2-VL vision tower (patch embedding, ViT blocks, merger), kept in the model's dtype."""
    vision = config.get("vision_config")
    if model_type not in ("qwen2_vl", "qwen2_5_vl") or not isinstance(vision, dict):
        return 0
    embed = vision.get("embed_dim") or vision.get("hidden_size", 0)
    depth, ratio = vision.get("depth", 0), vision.get("mlp_ratio", 4)
    patch, temporal = vision.get("patch_size", 14), vision.get("temporal_patch_size", 2)
    merge = vision.get("spatial_merge_size", 2) ** 2
    out = vision.get("hidden_size", config.get("hidden_size", 0)) if model_type == "qwen2_vl" else vision.get("out_hidden_size", 0)
    mlp = int(embed * ratio)
    block = 4 * embed + (3 * embed * embed + 3 * embed) + (embed * embed + embed) + (embed * mlp + mlp) + (mlp * embed + embed)
    merger = 2 * embed + (embed * merge) ** 2 + embed * merge + embed * merge * out + out
    return depth * block + vision.get("in_chans", 3) * temporal * patch * patch * embed + merger


def derived_max_model_len(config: dict) -> tuple[int, str]:
    """``_get_and_verify_max_len`` with no --max-model-len: the config's smallest length key, RoPE-scaled."""
    cfg = text_config(config)
    found, key = None, ""
    for name in MAX_LEN_KEYS:
        value = cfg.get(name)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and (found is None or value < found):
            found, key = value, name
    if found is None:
        return 2048, ""  # vLLM's default, and then any --max-model-len is accepted
    rope = cfg.get("rope_scaling") or cfg.get("rope_parameters")
    if isinstance(rope, dict):
        rope_type = rope.get("rope_type") or rope.get("type")
        if rope_type not in ROPE_TYPES_ALREADY_SCALED and rope_type != "default" and isinstance(rope.get("factor"), (int, float)):
            found = found * rope["factor"]
    return int(found), key


def model_facts(config: dict, source: str = "config.json") -> ModelFacts:
    model_type = model_type_of(config, source)
    cfg = text_config(config)
    architectures = config.get("architectures") or [model_type]
    heads = cfg.get("num_attention_heads") or 0
    inter = cfg.get("intermediate_size") or 0
    experts_per_token = cfg.get("num_experts_per_tok") or 0
    moe_inter = cfg.get("moe_intermediate_size") or (inter if model_type in ("mixtral", "granitemoehybrid") else 0)
    is_moe = bool(cfg.get("num_local_experts") or cfg.get("num_experts") or cfg.get("n_routed_experts"))
    length, key = derived_max_model_len(config)
    _, checkpoint_dtype = resolve_dtype(config, "auto")
    quant = config.get("quantization_config") if isinstance(config.get("quantization_config"), dict) else None
    return ModelFacts(
        model_type=model_type,
        architecture=str(architectures[0]),
        num_layers=_int(cfg, "num_hidden_layers", source),
        hidden_size=_int(cfg, "hidden_size", source),
        vocab_size=_int(cfg, "vocab_size", source),
        num_attention_heads=heads,
        num_kv_heads=cfg.get("num_key_value_heads") or heads,
        intermediate_size=(experts_per_token * moe_inter) if is_moe else inter,
        derived_max_model_len=length,
        max_len_key=key,
        parameters=count_parameters(config, source),
        quantization=quant,
        config_dtype=checkpoint_dtype,
        is_moe=is_moe,
        is_multimodal=isinstance(config.get("vision_config"), dict),
    )


def read_config(path: Path) -> dict:
    """A model's config.json (or the folder holding it), with a one-line error for what is wrong."""
    path = Path(path)
    if path.is_dir():
        path = path / "config.json"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MemoryInputError(f"{path}: no such file; give the path of the model's config.json (or its folder)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise MemoryInputError(f"{path}: cannot read it ({exc}); give the model's config.json") from None
    try:
        config = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MemoryInputError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg}); give the model's config.json") from None
    model_type_of(config, str(path))
    return config


# --- the KV cache budget (vllm/v1/core/kv_cache_planning.py) -----------------------------------


@dataclass(frozen=True)
class CacheSpec:
    """A layer's ``KVCacheSpec`` as the engine sees it: what grouping and sizing compare."""

    kind: str
    block_size: int
    page_size: int  # bytes of one block of this layer
    sliding_window: int | None = None
    blocks_per_request: int = 0  # mamba: the state blocks one request holds


@dataclass(frozen=True)
class BlockPlan:
    """Block sizes after ``Platform.update_block_size_for_backend``, and each layer's spec."""

    block_size: int
    mamba_block_size: int | None
    mamba_cache_mode: str
    mamba_page_size: int  # padded to the attention page in hybrid models
    specs: tuple[CacheSpec, ...]


def plan_blocks(layers: list[LayerCache], settings: ServeSettings, max_model_len: int) -> BlockPlan:
    attention = [layer for layer in layers if layer.kind != "mamba"]
    mambas = [layer for layer in layers if layer.kind == "mamba"]
    uses_mla = any(layer.kind == "mla" for layer in attention)
    # CacheConfig.DEFAULT_BLOCK_SIZE (16), FlashMLA's only kernel block (64) for MLA models.
    block_size = settings.block_size or (64 if uses_mla else 16)
    kernel_minimum = settings.kernel_block_alignment or (64 if uses_mla else 16)
    # MambaModelConfig: hybrid models cache prefixes by default ("align" mode); models
    # without attention do not support prefix caching (ModelConfig.is_prefix_caching_supported).
    caching = settings.enable_prefix_caching if settings.enable_prefix_caching is not None else True
    mode = "align" if (mambas and attention and caching) else "none"
    mamba_page = max((layer.state_bytes for layer in mambas), default=0)
    if mambas and attention:
        # Platform._align_hybrid_block_size: the smallest block, a multiple of the kernel
        # alignment, whose attention page holds a whole Mamba state; Mamba pages are padded to it.
        per_token = attention[0].bytes_per_token
        alignment = max(kernel_minimum, block_size)
        if uses_mla:
            alignment = max(alignment, 128)
        needed = alignment * -(-mamba_page // (alignment * per_token))
        needed = kernel_minimum * -(-needed // kernel_minimum)
        block_size = max(block_size, needed)
        mamba_page = block_size * per_token
    mamba_block_size = None
    if mambas:
        mamba_block_size = block_size if mode == "align" else max_model_len
    specs = []
    for layer in layers:
        if layer.kind == "mamba":
            # MambaSpec.max_memory_usage_bytes: 2 blocks + a prefill checkpoint (MambaMixer2) in "align" mode, else 1.
            specs.append(CacheSpec("mamba", mamba_block_size, mamba_page if attention else layer.state_bytes,
                                   blocks_per_request=3 if mode == "align" else 1))
        else:
            specs.append(CacheSpec(layer.kind, block_size, block_size * layer.bytes_per_token, layer.sliding_window))
    return BlockPlan(block_size, mamba_block_size, mode, mamba_page, tuple(specs))


def group_layers(specs: tuple[CacheSpec, ...]) -> tuple[list[list[int]], tuple[CacheSpec, ...]]:
    """``get_kv_cache_groups``: the layer indexes of each group, and the specs after page unification."""
    if len(set(specs)) == 1:
        return [list(range(len(specs)))], specs  # one spec for all layers (_get_kv_cache_groups_uniform_spec)
    kinds = {("full" if s.kind == "mla" else s.kind, s.sliding_window) for s in specs}
    if len(kinds) == 1 and len({s.block_size for s in specs}) == 1 and "mamba" not in {s.kind for s in specs}:
        return [list(range(len(specs)))], specs  # UniformTypeKVCacheSpecs: one group, pages added up
    # unify_kv_cache_spec_page_size: smaller pages grow to the largest, by a larger block
    # where it divides evenly, else (Mamba, other attention) by padding.
    largest = max(s.page_size for s in specs)
    unified = []
    for spec in specs:
        if spec.page_size == largest or spec.kind == "mamba" or largest % spec.page_size:
            unified.append(replace(spec, page_size=largest))
        else:
            unified.append(replace(spec, block_size=spec.block_size * (largest // spec.page_size), page_size=largest))
    buckets: dict[CacheSpec, list[int]] = {}
    for index, spec in enumerate(unified):
        buckets.setdefault(spec, []).append(index)
    # _get_kv_cache_groups_uniform_page_size: groups of equal size, the smallest bucket's,
    # or the largest's when they are within 1.5x; layer i of a bucket goes to group i % n.
    sizes = [len(members) for members in buckets.values()]
    group_size = max(sizes) if max(sizes) < min(sizes) * 1.5 else min(sizes)
    groups = []
    for members in buckets.values():
        count = -(-len(members) // group_size)
        groups.extend(members[i::count] for i in range(count))
    return groups, tuple(unified)


def blocks_per_request(spec: CacheSpec, max_model_len: int, in_flight_tokens: int) -> int:
    """``cdiv(spec.max_memory_usage_bytes(), spec.page_size_bytes)`` for one group's spec."""
    if spec.kind == "mamba":
        return spec.blocks_per_request
    if spec.kind == "sliding":
        # SlidingWindowSpec.max_admission_blocks_per_request: the window, the tokens still
        # in flight, and one more block because the window need not start at a block boundary.
        tokens = min(spec.sliding_window - 1 + in_flight_tokens, max_model_len)
        return -(-tokens // spec.block_size) + 1
    return -(-max_model_len // spec.block_size)


@dataclass(frozen=True)
class KvLayout:
    plan: BlockPlan
    groups: list[list[int]]
    specs: tuple[CacheSpec, ...]
    bytes_per_block: int

    def request_blocks(self, max_model_len: int, in_flight_tokens: int) -> int:
        """Blocks one request of ``max_model_len`` tokens takes from the shared pool, all groups together."""
        total = 0
        for members in self.groups:
            total += max(blocks_per_request(self.specs[i], max_model_len, in_flight_tokens) for i in members)
        return total

    def request_bytes(self, max_model_len: int, in_flight_tokens: int) -> int:
        return self.bytes_per_block * self.request_blocks(max_model_len, in_flight_tokens)


def kv_layout(layers: list[LayerCache], settings: ServeSettings, max_model_len: int) -> KvLayout | None:
    if not layers:
        return None
    plan = plan_blocks(layers, settings, max_model_len)
    groups, specs = group_layers(plan.specs)
    # _get_kv_cache_bytes_per_block: the largest group's pages side by side.
    bytes_per_block = max(sum(specs[i].page_size for i in members) for members in groups)
    return KvLayout(plan, groups, specs, bytes_per_block)


def estimate_max_model_len(layout: KvLayout, memory: int, upper: int, in_flight_tokens: int) -> int:
    """``_estimate_max_model_len_from_groups``: binary search for the longest length whose request fits."""
    if layout.request_bytes(1, in_flight_tokens) > memory:
        return 0
    left, right, best = 1, upper, 1
    while left <= right:
        middle = (left + right) // 2
        if layout.request_bytes(middle, in_flight_tokens) <= memory:
            best, left = middle, middle + 1
        else:
            right = middle - 1
    return best


# --- what vLLM takes before the KV cache ------------------------------------------------------

# Quantization methods and the bytes a linear weight takes (scales included, approximately).
QUANTIZATION_BITS = {"fp8": 8, "int8": 8, "awq": 4, "gptq": 4, "bitsandbytes": 4, "compressed-tensors": 4}
NON_TORCH_ONE_GPU = round(0.2 * GIB)
NON_TORCH_TENSOR_PARALLEL = round(0.7 * GIB)
CUDA_GRAPHS = round(0.5 * GIB)


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
    if method in (None, "", "none"):
        method = config.get("quant_method") if not settings.quantization else None
    if method in (None, "", "none"):
        return None, 0, 0
    method = str(method).lower()
    if method not in QUANTIZATION_BITS:
        raise MemoryInputError(f"quantization {method!r} is not modelled; use one of {', '.join(sorted(QUANTIZATION_BITS))}, or none")
    bits = config.get("bits") if isinstance(config.get("bits"), int) else QUANTIZATION_BITS[method]
    if method == "bitsandbytes":
        bits = 8 if config.get("load_in_8bit") else 4
    group = config.get("group_size") if isinstance(config.get("group_size"), int) and config.get("group_size") > 0 else 128
    return method, bits, group


def weights_bytes(facts: ModelFacts, dtype_bytes: int, settings: ServeSettings) -> tuple[int, str]:
    """Bytes of weights on one GPU: linear weights and embeddings split by tensor parallelism, the rest on every GPU."""
    params, tp = facts.parameters, settings.tensor_parallel_size
    method, bits, group = quantization_of(facts, settings)
    if method is None:
        linear = params.linear * dtype_bytes
        how = f"{params.total:,} parameters counted from config.json, {dtype_bytes} bytes each"
    elif bits == 8:
        linear = params.linear  # one byte per weight; per-channel scales are negligible
        how = f"{params.total:,} parameters counted from config.json; linear weights in {method} (1 byte), the rest {dtype_bytes} bytes"
    else:
        # bits per weight, plus a scale (model dtype) and a zero point (bits) per group of weights
        linear = -(-params.linear * (bits * group + 8 * dtype_bytes + bits) // (8 * group))
        how = (f"{params.total:,} parameters counted from config.json; linear weights in {method} "
               f"({bits} bits and a scale per {group}), the rest {dtype_bytes} bytes")
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
        Reserve("model weights", weights, facts.quantization is not None or settings.quantization not in (None, "", "none"),
                how + (f", split over {tp} GPUs" if tp > 1 else "")),
        Reserve("activation peak", activation_bytes(facts, dtype_bytes, settings, max_num_batched_tokens, max_num_seqs), True,
                f"formula for a {max_num_batched_tokens:,}-token profiling pass and {max_num_seqs} sampled sequences; "
                "vLLM measures it (gpu_worker.determine_available_memory)"),
        Reserve("memory outside PyTorch", NON_TORCH_ONE_GPU if tp == 1 else NON_TORCH_TENSOR_PARALLEL, True,
                "cuBLAS workspaces and, with tensor parallelism, NCCL buffers; vLLM logs 0.16-0.20 GiB on one GPU "
                "(vllm-project/vllm#12126, #14447) and more with TP (#10511)"),
    ]
    if not settings.enforce_eager:
        items.append(Reserve("CUDA graphs", CUDA_GRAPHS, True,
                             "vLLM subtracts its estimate of CUDA graph memory (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1); "
                             "captures take 0.2-1 GiB (vllm-project/vllm#11349: 0.21 GiB for Llama-3.2-1B); 0 with --enforce-eager"))
    return items


def default_batch_limits(gpu_memory_bytes: int, gpu_name: str, max_model_len: int, settings: ServeSettings) -> tuple[int, int]:
    """(max_num_seqs, max_num_batched_tokens) as ``EngineArgs._set_default_max_num_seqs_and_batched_tokens_args`` sets them for ``vllm serve``."""
    if gpu_memory_bytes >= 160 * GIB:
        seqs, tokens = 1024, 16384
    elif gpu_memory_bytes >= 70 * GIB and "a100" not in gpu_name.lower():
        seqs, tokens = 1024, 8192
    else:
        seqs, tokens = 256, 2048
    chosen_tokens = settings.max_num_batched_tokens
    if chosen_tokens is None:
        chosen_tokens = min((settings.max_num_seqs or seqs) * max_model_len, tokens)
    chosen_seqs = settings.max_num_seqs
    if chosen_seqs is None:
        chosen_seqs = min(seqs, chosen_tokens)
    return chosen_seqs, chosen_tokens


# --- the errors this configuration raises -----------------------------------------------------

# vLLM 0.33.0's error ids (the catalog's), each explained by a curated entry in errors/.
MAX_MODEL_LEN_TOO_LONG = "40a9e62adbd6db45"
HEADS_NOT_DIVISIBLE = "a5afdbb71761aa63"
NO_MEMORY_FOR_CACHE = "8178110fb39acd5c"
KV_CACHE_TOO_SMALL = "bdaa78831d773037"
AUTO_FIT_IMPOSSIBLE = "127c118f2e944b5f"
MAMBA_BLOCKS_BELOW_MAX_NUM_SEQS = "c8f7b9d6b5fb8793"
ERROR_ENTRIES = {
    MAX_MODEL_LEN_TOO_LONG: "max-model-len-exceeds-derived-limit",
    HEADS_NOT_DIVISIBLE: "tensor-parallel-size-does-not-divide-model",
    NO_MEMORY_FOR_CACHE: "no-memory-for-kv-cache-blocks",
    KV_CACHE_TOO_SMALL: "kv-cache-too-small-for-max-model-len",
    AUTO_FIT_IMPOSSIBLE: "no-memory-for-kv-cache-blocks",
    MAMBA_BLOCKS_BELOW_MAX_NUM_SEQS: "mamba-cache-blocks-below-max-num-seqs",
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
        raise MemoryInputError("--tensor-parallel-size must be at least 1")
    if not 0 < settings.gpu_memory_utilization <= 1:
        raise MemoryInputError("--gpu-memory-utilization must be above 0 and at most 1")
    errors: list[Finding] = []
    derived = facts.derived_max_model_len
    auto_fit = settings.max_model_len == -1
    max_model_len = derived if settings.max_model_len in (None, -1) else settings.max_model_len
    if max_model_len < 1:
        raise MemoryInputError("--max-model-len must be a positive number of tokens, or -1 / auto")
    if settings.max_model_len not in (None, -1) and settings.max_model_len > derived and facts.max_len_key:
        errors.append(Finding(MAX_MODEL_LEN_TOO_LONG, ERROR_ENTRIES[MAX_MODEL_LEN_TOO_LONG],
                              f"User-specified max_model_len ({settings.max_model_len}) is greater than the derived "
                              f"max_model_len ({facts.max_len_key}={derived} in model's config.json)."))
    if facts.num_attention_heads and facts.num_attention_heads % tp:
        errors.append(Finding(HEADS_NOT_DIVISIBLE, ERROR_ENTRIES[HEADS_NOT_DIVISIBLE],
                              f"Total number of attention heads ({facts.num_attention_heads}) must be divisible by "
                              f"tensor parallel size ({tp})."))
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
        budget.update(budget_figures(layout, available, max_model_len, derived, in_flight, auto_fit, max_num_seqs,
                                     settings.enforce_eager, errors))
        max_model_len = budget["max_model_len"]
    return _report(facts, settings, layers, layout, max_model_len, errors, budget, limits, with_fixes, config, source, dtype_bytes)


def budget_figures(layout: KvLayout, available: int, max_model_len: int, derived: int, in_flight: int, auto_fit: bool,
                   max_num_seqs: int, enforce_eager: bool, errors: list[Finding]) -> dict:
    """``get_kv_cache_configs`` for one worker: auto-fit, the start-up checks, the block count and capacity."""
    check = available - layout.bytes_per_block  # the null block BlockPool always holds back
    figures: dict = {"bytes_per_block": layout.bytes_per_block, "usable_bytes": check}
    largest = estimate_max_model_len(layout, check, derived, in_flight) if check > 0 else 0
    figures["largest_max_model_len"] = largest
    if auto_fit:
        if largest <= 0:
            errors.append(Finding(AUTO_FIT_IMPOSSIBLE, ERROR_ENTRIES[AUTO_FIT_IMPOSSIBLE],
                                  "Cannot auto-fit max_model_len: not enough GPU memory available to serve even a single "
                                  "token. Try increasing `gpu_memory_utilization`."))
        else:
            max_model_len = min(largest, derived)
    figures["max_model_len"] = max_model_len
    needed = layout.request_bytes(max_model_len, in_flight)
    figures["request_bytes"] = needed
    figures["request_blocks"] = layout.request_blocks(max_model_len, in_flight)
    if any(e.id == AUTO_FIT_IMPOSSIBLE for e in errors):
        return figures
    if check <= 0:
        errors.append(Finding(NO_MEMORY_FOR_CACHE, ERROR_ENTRIES[NO_MEMORY_FOR_CACHE],
                              "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
                              "initializing the engine."))
        return figures
    if needed > check:
        estimate = estimate_max_model_len(layout, check, max_model_len, in_flight)
        hint = f"Based on the available memory, the estimated maximum model length is {estimate}. " if estimate > 0 else ""
        errors.append(Finding(KV_CACHE_TOO_SMALL, ERROR_ENTRIES[KV_CACHE_TOO_SMALL],
                              f"To serve at least one request with the model's max seq len ({max_model_len}), "
                              f"({format_gib(needed)} GiB KV cache is needed, which is larger than the available KV cache "
                              f"memory ({format_gib(check)} GiB). {hint}Try increasing `gpu_memory_utilization` or "
                              "decreasing `max_model_len` when initializing the engine."))
        return figures
    num_blocks = available // layout.bytes_per_block
    concurrency = num_blocks / figures["request_blocks"]
    figures.update(num_blocks=num_blocks, concurrency=concurrency, tokens=int(concurrency * max_model_len))
    has_mamba = any(spec.kind == "mamba" for spec in layout.specs)
    # CompilationConfig.resolve_cudagraph_mode_and_sizes: full decode graphs need a Mamba
    # block per sequence; Mamba models default to FULL_AND_PIECEWISE graphs.
    if has_mamba and not enforce_eager and max_num_seqs > num_blocks:
        errors.append(Finding(MAMBA_BLOCKS_BELOW_MAX_NUM_SEQS, ERROR_ENTRIES[MAMBA_BLOCKS_BELOW_MAX_NUM_SEQS],
                              f"max_num_seqs ({max_num_seqs}) exceeds available Mamba cache blocks ({num_blocks}). Each "
                              "decode sequence requires one Mamba cache block, so CUDA graph capture cannot proceed. "
                              f"Please lower max_num_seqs to at most {num_blocks} or increase gpu_memory_utilization."))
    return figures


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
        for finding in errors:
            finding.fixes.extend(fixes_for(finding, report, config, settings, source))
    return report


def fixes_for(finding: Finding, report: MemoryReport, config: dict, settings: ServeSettings, source: str) -> list[dict]:
    """The flags that, each alone, make this configuration start: every candidate is calculated again."""
    candidates: list[tuple[str, ServeSettings]] = []
    budget = report.budget
    derived = report.model["derived_max_model_len"]
    heads = model_facts(config, source).num_attention_heads
    tp = settings.tensor_parallel_size

    def parallel() -> None:
        for size in (2, 4, 8):
            if size > tp and (not heads or heads % size == 0):
                candidates.append((f"--tensor-parallel-size {size}", replace(settings, tensor_parallel_size=size)))

    def utilization() -> None:
        start = math.floor(settings.gpu_memory_utilization * 100) + 1
        for hundredths in range(start, 99):
            candidates.append((f"--gpu-memory-utilization {hundredths / 100}", replace(settings, gpu_memory_utilization=hundredths / 100)))

    if finding.id == MAX_MODEL_LEN_TOO_LONG:
        candidates.append((f"--max-model-len {derived}", replace(settings, max_model_len=derived)))
    elif finding.id == HEADS_NOT_DIVISIBLE:
        # the nearest size that divides the heads first (ties: the smaller)
        for size in sorted((1, 2, 4, 8, 16), key=lambda size: (abs(size - tp), size)):
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


# --- the site's calculator ------------------------------------------------------------------------

# The curated entries whose pages carry the calculator: the errors of the KV cache budget.
CALCULATOR_ENTRIES = ("kv-cache-too-small-for-max-model-len", "no-memory-for-kv-cache-blocks", "mamba-cache-blocks-below-max-num-seqs")
MODELS_FOLDER = Path(__file__).resolve().parents[2] / "models"


def bundled_models(folder: Path = MODELS_FOLDER) -> dict[str, dict]:
    """The model configurations that ship with errorkb (models/<name>/config.json), by name."""
    return {path.parent.name: json.loads(path.read_text(encoding="utf-8")) for path in sorted(folder.glob("*/config.json"))}


def site_data(models: dict[str, dict]) -> dict:
    """api/memory.json: what templates/assets/memory.js needs besides its code."""
    return {"gpus": [asdict(gpu) for gpu in GPUS], "models": {name: models[name] for name in sorted(models)}}
