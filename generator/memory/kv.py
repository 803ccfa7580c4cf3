"""The KV cache as vLLM plans it: each layer's cache, block sizes, groups, what one request takes.

Pure: no disk, no processes. The arithmetic repeats vLLM 0.33.0's start-up in its own
integer steps (tests/test_memory.py compares it with vLLM itself):

- bytes per token of an attention layer: ``AttentionSpec.page_size_bytes`` for one
  token (``vllm/v1/kv_cache_interface.py``), with the KV heads per GPU of
  ``ModelConfig.get_num_kv_heads`` (``vllm/config/model.py``) and one latent of
  ``kv_lora_rank + qk_rope_head_dim`` for MLA (``MLAAttention.get_kv_cache_spec``);
- a Mamba layer's per-sequence state: ``MambaStateShapeCalculator`` and
  ``MambaStateDtypeCalculator`` (``vllm/model_executor/layers/mamba/mamba_utils.py``);
- hybrid models' attention block size and Mamba page padding:
  ``Platform._align_hybrid_block_size`` (``vllm/platforms/interface.py``);
- groups, bytes per block, blocks per request and the maximum length estimate:
  ``get_kv_cache_groups``, ``_get_kv_cache_groups_uniform_page_size``,
  ``_max_memory_usage_bytes_from_groups`` and ``_estimate_max_model_len_from_groups``
  (``vllm/v1/core/kv_cache_planning.py``).

``shared_constants()`` is the part that ``templates/assets/memory.js`` reads from the
site's ``api/memory.json``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from generator.memory.model import (
    MAMBA1_MODELS,
    head_size,
    layer_kinds,
    model_type_of,
    positive_int,
    resolve_dtype,
    text_config,
)
from generator.memory.settings import DTYPE_BYTES, KV_CACHE_DTYPE_BYTES, MAMBA_DTYPE_BYTES, ServeSettings, input_error

# CacheConfig.DEFAULT_BLOCK_SIZE, also FlashAttention's smallest kernel block.
DEFAULT_BLOCK_SIZE = 16
# FlashMLA's only kernel block: the block size and alignment of MLA models.
MLA_BLOCK_SIZE = 64
# Platform._align_hybrid_block_size: MLA hybrids align attention blocks to at least this many tokens.
MLA_HYBRID_ALIGNMENT = 128
# MambaSpec.max_memory_usage_bytes: the state blocks one request holds, by mamba_cache_mode:
# 2 blocks + a prefill checkpoint (MambaMixer2) in "align" mode, else 1.
MAMBA_BLOCKS_PER_REQUEST = {"align": 3, "none": 1}
# _get_kv_cache_groups_uniform_page_size: buckets within this ratio share the largest's group size.
GROUP_SIZE_RATIO = 1.5


# --- each layer's cache ------------------------------------------------------------------------


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


def kv_cache_dtype_bytes(kv_cache_dtype: str, model_dtype_bytes: int) -> int:
    if kv_cache_dtype == "auto":
        return model_dtype_bytes
    if kv_cache_dtype not in KV_CACHE_DTYPE_BYTES:
        raise input_error("kv_cache_dtype", dtype=kv_cache_dtype)
    return KV_CACHE_DTYPE_BYTES[kv_cache_dtype]


def mamba_dtype_bytes(setting: str, model_dtype_bytes: int, name: str) -> int:
    """``MambaStateDtypeCalculator``: auto is the model's dtype (``get_kv_cache_torch_dtype``)."""
    if setting == "auto":
        return model_dtype_bytes
    if setting not in MAMBA_DTYPE_BYTES:
        raise input_error("mamba_dtype", flag=name, dtype=setting)
    return MAMBA_DTYPE_BYTES[setting]


def _divide(numerator: int, denominator: int, what: str, source: str) -> int:
    # vllm.distributed.divide asserts the split is exact; so does a sharded layer.
    if numerator % denominator:
        raise input_error("not_divisible", source=source, what=what, numerator=numerator, tp=denominator)
    return numerator // denominator


def mamba_state(cfg: dict, model_type: str, tp: int, conv_bytes: int, ssm_bytes: int, source: str) -> tuple[tuple, tuple]:
    """(shapes, dtype sizes) of one Mamba layer's state per GPU: ``get_mamba_state_shape_from_config``."""
    if model_type in MAMBA1_MODELS:
        # MambaStateShapeCalculator.mamba1_state_shape (conv layout "SD": (state_len, dim))
        inner = positive_int(cfg, "intermediate_size", source)
        dim = _divide(inner, tp, "intermediate_size", source)
        return ((positive_int(cfg, "conv_kernel", source) - 1, dim), (dim, positive_int(cfg, "state_size", source))), (conv_bytes, ssm_bytes)
    # granitemoehybrid: MambaStateShapeCalculator.mamba2_state_shape
    inner = positive_int(cfg, "mamba_expand", source) * positive_int(cfg, "hidden_size", source)
    groups = positive_int(cfg, "mamba_n_groups", source)
    # Groups are replicated so that every head shard has its group (extra_groups_for_head_shards).
    groups += 0 if groups % tp == 0 else tp - groups
    state = positive_int(cfg, "mamba_d_state", source)
    conv_dim = inner + 2 * groups * state
    conv = (positive_int(cfg, "mamba_d_conv", source) - 1, _divide(conv_dim, tp, "the Mamba conv dimension", source))
    temporal = (_divide(positive_int(cfg, "mamba_n_heads", source), tp, "mamba_n_heads", source),
                positive_int(cfg, "mamba_d_head", source), state)
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
            heads = cfg.get("num_key_value_heads") or positive_int(cfg, "num_attention_heads", source)
            per_gpu = max(1, heads // tp)  # ModelConfig.get_num_kv_heads: replicated below one per GPU
            size = head_size(cfg, source)
            layers.append(LayerCache(index, kind, bytes_per_token=per_gpu * 2 * size * kv_bytes, sliding_window=window))
    return layers, dtype_bytes


# --- blocks and groups (vllm/v1/core/kv_cache_planning.py) ------------------------------------


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
    block_size = settings.block_size or (MLA_BLOCK_SIZE if uses_mla else DEFAULT_BLOCK_SIZE)
    kernel_minimum = settings.kernel_block_alignment or (MLA_BLOCK_SIZE if uses_mla else DEFAULT_BLOCK_SIZE)
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
            alignment = max(alignment, MLA_HYBRID_ALIGNMENT)
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
            specs.append(CacheSpec("mamba", mamba_block_size, mamba_page if attention else layer.state_bytes,
                                   blocks_per_request=MAMBA_BLOCKS_PER_REQUEST[mode]))
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
    group_size = max(sizes) if max(sizes) < min(sizes) * GROUP_SIZE_RATIO else min(sizes)
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


def shared_constants() -> dict:
    """What memory.js reads: the block sizes and grouping thresholds."""
    return {
        "default_block_size": DEFAULT_BLOCK_SIZE,
        "mla_block_size": MLA_BLOCK_SIZE,
        "mla_hybrid_alignment": MLA_HYBRID_ALIGNMENT,
        "mamba_blocks_per_request": MAMBA_BLOCKS_PER_REQUEST,
        "group_size_ratio": GROUP_SIZE_RATIO,
    }
