"""The model, from its ``config.json`` (a dict): layer kinds, dtype, parameters, context length.

Pure: no disk, no processes (``generator.memory.configs`` reads the files). Each function
follows what vLLM, or the Transformers config class it reads, does with the same keys.
``shared_constants()`` is the part that ``templates/assets/memory.js`` reads from the
site's ``api/memory.json``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from generator.memory.settings import AUTO_FLOAT32_TO, DTYPE_ALIASES, DTYPE_BYTES, input_error

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
# _get_and_verify_max_len when config.json gives no length: vLLM's default, and then any --max-model-len is accepted.
DEFAULT_MAX_MODEL_LEN = 2048
# Qwen-family configs: sliding windows only with use_sliding_window, from max_window_layers on.
SLIDING_WINDOW_OPT_IN = {"qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "qwen2_vl", "qwen2_5_vl"}
# Families laid out their own way in count_parameters / mlp_parameters.
BIASED_LINEAR_MODELS = {"gpt2", "bert"}  # biased q/k/v/o and a two-matrix MLP, LayerNorms with a bias
QKV_BIAS_MODELS = {"qwen2", "qwen2_moe", "qwen2_vl", "qwen2_5_vl"}  # q/k/v biases (else: config.json attention_bias)
QK_NORM_MODELS = {"qwen3", "qwen3_moe"}  # q_norm and k_norm per layer
QWEN_MOE_MODELS = {"qwen2_moe", "qwen3_moe"}  # sparse layers every decoder_sparse_step, shared experts
QWEN2_VL_MODELS = {"qwen2_vl", "qwen2_5_vl"}  # the Qwen2-VL vision tower
MOE_INTERMEDIATE_IS_INTERMEDIATE = {"mixtral", "granitemoehybrid"}  # experts sized by intermediate_size


# --- reading the configuration ----------------------------------------------------------------


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
        raise input_error("missing_key", source=source, key=key, model_type=config.get("model_type"))
    return value


def positive_int(config: dict, key: str, source: str) -> int:
    """``config[key]``, which must be a positive integer; else a one-line error naming the file and key."""
    value = _need(config, key, source)
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise input_error("not_positive_int", source=source, key=key, value=value)
    return value


def model_type_of(config: dict, source: str = "config.json") -> str:
    if not isinstance(config, dict):
        raise input_error("not_object", source=source)
    model_type = config.get("model_type")
    if not isinstance(model_type, str):
        raise input_error("no_model_type", source=source)
    if model_type not in SUPPORTED:
        raise input_error("unsupported_model", source=source, model_type=model_type, supported=", ".join(SUPPORTED))
    return model_type


def head_size(cfg: dict, source: str) -> int:
    """``ModelArchitectureConfig.head_size``: ``head_dim`` when given, else hidden / heads; MLA: latent + rope."""
    if cfg.get("kv_lora_rank") is not None and cfg.get("model_type") in MLA_MODELS:
        return positive_int(cfg, "kv_lora_rank", source) + positive_int(cfg, "qk_rope_head_dim", source)
    if isinstance(cfg.get("head_dim"), int) and cfg["head_dim"] > 0:
        return cfg["head_dim"]
    return positive_int(cfg, "hidden_size", source) // positive_int(cfg, "num_attention_heads", source)


def layer_kinds(cfg: dict, model_type: str, source: str) -> list[tuple[str, int | None]]:
    """Each layer's cache kind and sliding window, as the model's vLLM class builds its layers."""
    n = positive_int(cfg, "num_hidden_layers", source)
    if model_type in MAMBA1_MODELS:
        return [("mamba", None)] * n
    if model_type in ENCODERS:
        return []
    if model_type in MLA_MODELS:
        return [("mla", None)] * n
    if model_type in HYBRIDS:
        types = cfg.get("layer_types")
        if not isinstance(types, list) or len(types) != n:
            raise input_error("layer_types", source=source, n=n)
        return [("mamba", None) if t == "mamba" else ("full", None) for t in types]
    # Decoders. Transformers' own config classes normalize the sliding window before vLLM
    # reads it: Qwen2-family configs drop it unless use_sliding_window, Gemma-2 alternates
    # sliding (even layers) and full attention; vLLM then follows `layer_types` per layer,
    # or else gives every layer the model-level window (Attention: cache_config.sliding_window).
    window = cfg.get("sliding_window")
    if model_type in SLIDING_WINDOW_OPT_IN:
        if not cfg.get("use_sliding_window", False):
            window = None
    types = cfg.get("layer_types")
    if types is None and model_type == "gemma2":
        types = ["sliding_attention" if (i + 1) % 2 else "full_attention" for i in range(n)]
    if types is None and window is not None and model_type in SLIDING_WINDOW_OPT_IN:
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
        raise input_error("dtype", dtype=dtype)
    chosen = DTYPE_ALIASES.get(chosen, chosen)
    return chosen, checkpoint


# --- parameters -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Parameters:
    linear: int  # weights of linear layers: what a quantization method stores in fewer bits
    embedding: int  # token embeddings and LM head: split by vocabulary across GPUs, not quantized
    other: int  # norms, biases, convolutions, the vision tower: in the model's dtype, on every GPU

    @property
    def total(self) -> int:
        return self.linear + self.embedding + self.other


def count_parameters(config: dict, source: str = "config.json") -> Parameters:
    """Parameters counted from the configuration, as the model's vLLM class lays them out."""
    model_type = model_type_of(config, source)
    cfg = text_config(config)
    hidden = positive_int(cfg, "hidden_size", source)
    vocab = positive_int(cfg, "vocab_size", source)
    n = positive_int(cfg, "num_hidden_layers", source)
    tied = bool(cfg.get("tie_word_embeddings", model_type in TIED_BY_DEFAULT))
    embedding = vocab * hidden * (1 if tied else 2)
    other = hidden  # the final norm
    linear = 0
    if model_type in MAMBA1_MODELS:
        inner = positive_int(cfg, "intermediate_size", source)
        state = positive_int(cfg, "state_size", source)
        rank = cfg.get("time_step_rank") or math.ceil(hidden / 16)
        kernel = positive_int(cfg, "conv_kernel", source)
        per_layer_linear = hidden * 2 * inner + inner * (rank + 2 * state) + rank * inner + inner * hidden
        per_layer_other = inner * kernel + inner * (1 if cfg.get("use_conv_bias", True) else 0) + inner + inner * state + inner + hidden
        return Parameters(linear=n * per_layer_linear, embedding=embedding, other=other + n * per_layer_other)
    if model_type in BIASED_LINEAR_MODELS:
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
    heads = positive_int(cfg, "num_attention_heads", source)
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
            if model_type in QKV_BIAS_MODELS or cfg.get("attention_bias"):
                other += heads * size + 2 * kv_heads * size
            if model_type in QK_NORM_MODELS:
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
    if model_type in QWEN_MOE_MODELS:
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
    if model_type not in QWEN2_VL_MODELS or not isinstance(vision, dict):
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


# --- the model's facts ------------------------------------------------------------------------


def derived_max_model_len(config: dict) -> tuple[int, str]:
    """``_get_and_verify_max_len`` with no --max-model-len: the config's smallest length key, RoPE-scaled."""
    cfg = text_config(config)
    found, key = None, ""
    for name in MAX_LEN_KEYS:
        value = cfg.get(name)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and (found is None or value < found):
            found, key = value, name
    if found is None:
        return DEFAULT_MAX_MODEL_LEN, ""
    rope = cfg.get("rope_scaling") or cfg.get("rope_parameters")
    if isinstance(rope, dict):
        rope_type = rope.get("rope_type") or rope.get("type")
        if rope_type not in ROPE_TYPES_ALREADY_SCALED and rope_type != "default" and isinstance(rope.get("factor"), (int, float)):
            found = found * rope["factor"]
    return int(found), key


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


def model_facts(config: dict, source: str = "config.json") -> ModelFacts:
    model_type = model_type_of(config, source)
    cfg = text_config(config)
    architectures = config.get("architectures") or [model_type]
    heads = cfg.get("num_attention_heads") or 0
    inter = cfg.get("intermediate_size") or 0
    experts_per_token = cfg.get("num_experts_per_tok") or 0
    moe_inter = cfg.get("moe_intermediate_size") or (inter if model_type in MOE_INTERMEDIATE_IS_INTERMEDIATE else 0)
    is_moe = bool(cfg.get("num_local_experts") or cfg.get("num_experts") or cfg.get("n_routed_experts"))
    length, key = derived_max_model_len(config)
    _, checkpoint_dtype = resolve_dtype(config, "auto")
    quant = config.get("quantization_config") if isinstance(config.get("quantization_config"), dict) else None
    return ModelFacts(
        model_type=model_type,
        architecture=str(architectures[0]),
        num_layers=positive_int(cfg, "num_hidden_layers", source),
        hidden_size=positive_int(cfg, "hidden_size", source),
        vocab_size=positive_int(cfg, "vocab_size", source),
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


def shared_constants() -> dict:
    """What memory.js reads: the model families, the config keys and their defaults."""
    return {
        "decoders": sorted(DECODERS),
        "encoders": sorted(ENCODERS),
        "mla_models": sorted(MLA_MODELS),
        "mamba1_models": sorted(MAMBA1_MODELS),
        "hybrids": sorted(HYBRIDS),
        "supported": SUPPORTED,
        "tied_by_default": sorted(TIED_BY_DEFAULT),
        "attribute_maps": ATTRIBUTE_MAPS,
        "max_len_keys": list(MAX_LEN_KEYS),
        "rope_types_already_scaled": list(ROPE_TYPES_ALREADY_SCALED),
        "default_max_model_len": DEFAULT_MAX_MODEL_LEN,
        "sliding_window_opt_in": sorted(SLIDING_WINDOW_OPT_IN),
        "biased_linear_models": sorted(BIASED_LINEAR_MODELS),
        "qkv_bias_models": sorted(QKV_BIAS_MODELS),
        "qk_norm_models": sorted(QK_NORM_MODELS),
        "qwen_moe_models": sorted(QWEN_MOE_MODELS),
        "qwen2_vl_models": sorted(QWEN2_VL_MODELS),
        "moe_intermediate_is_intermediate": sorted(MOE_INTERMEDIATE_IS_INTERMEDIATE),
    }
