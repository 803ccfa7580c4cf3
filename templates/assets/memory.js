/*
 * errorkb memory calculator in the browser: will a model fit a GPU under the pinned vLLM,
 * and which memory error will it raise if not.
 *
 * A faithful port of generator/memory.py (read its module docstring for which vLLM
 * functions each step repeats). `calculate(config, settings)` returns what
 * `generator.memory.calculator.calculate(config, settings).to_json()` returns; tests/test_memory_browser.py
 * runs the same vectors through both in headless Chromium. The data that is not code (the
 * GPU table, the bundled model configurations) travels in api/memory.json, written from
 * generator/memory.py and models/ when the site is built.
 *
 * Python and JavaScript differ in ways that matter here, and this file makes up for them:
 *  - integers: Python's are exact at any size, JavaScript's numbers only below 2**53; every
 *    figure here stays far below that, and integer division is done by floorDiv / ceilDiv,
 *    which correct the float quotient, never by a bare Math.floor(a / b);
 *  - truthiness: Python's `x or default` treats empty lists and objects as false (pyOr),
 *    and `dict.get(key, default)` only defaults a missing key, not a null one (get);
 *  - round(x, 2) rounds the exact binary value half to even, str(float) writes "8.0" (gib);
 *  - f"{n:,}" thousands separators and repr() of a string (commas, pyRepr).
 */
(function () {
  "use strict";

  const GIB = 2 ** 30;

  // --- Python, in JavaScript -------------------------------------------------------------------

  function floorDiv(a, b) {
    let q = Math.floor(a / b);
    while (q * b > a) q -= 1;
    while ((q + 1) * b <= a) q += 1;
    return q;
  }

  function ceilDiv(a, b) {
    return -floorDiv(-a, b);
  }

  function roundHalfEven(x) {
    const low = Math.floor(x);
    const diff = x - low;
    if (diff > 0.5) return low + 1;
    if (diff < 0.5) return low;
    return low % 2 === 0 ? low : low + 1;
  }

  function isEmptyObject(value) {
    return value !== null && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0;
  }

  function truthy(value) {
    if (value === null || value === undefined || value === false || value === 0 || value === "") return false;
    if (typeof value === "number" && Number.isNaN(value)) return false;
    if (Array.isArray(value)) return value.length > 0;
    if (isEmptyObject(value)) return false;
    return true;
  }

  function pyOr(value, fallback) {
    return truthy(value) ? value : fallback;
  }

  function get(object, key, fallback) {
    if (object !== null && typeof object === "object" && Object.prototype.hasOwnProperty.call(object, key)) return object[key];
    return fallback === undefined ? null : fallback;
  }

  function isInt(value) {
    return typeof value === "number" && Number.isInteger(value);
  }

  function isDict(value) {
    return value !== null && typeof value === "object" && !Array.isArray(value);
  }

  function pyStr(value) {
    if (value === null || value === undefined) return "None";
    if (value === true) return "True";
    if (value === false) return "False";
    return String(value);
  }

  function pyRepr(value) {
    if (value === null || value === undefined) return "None";
    if (value === true) return "True";
    if (value === false) return "False";
    if (typeof value === "number") return String(value);
    if (typeof value === "string") {
      const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
      let out = "";
      for (const ch of value) {
        if (ch === "\\") out += "\\\\";
        else if (ch === quote) out += "\\" + ch;
        else if (ch === "\n") out += "\\n";
        else if (ch === "\r") out += "\\r";
        else if (ch === "\t") out += "\\t";
        else out += ch;
      }
      return quote + out + quote;
    }
    if (Array.isArray(value)) return "[" + value.map(pyRepr).join(", ") + "]";
    return "{" + Object.keys(value).map((k) => pyRepr(k) + ": " + pyRepr(value[k])).join(", ") + "}";
  }

  function commas(n) {
    const sign = n < 0 ? "-" : "";
    return sign + String(Math.abs(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }

  /** f"{round(x, 2)}": half to even on the exact binary value, written as Python writes floats. */
  function round2(x) {
    const eighths = x * 8; // exact; a tie at the 3rd decimal is an odd number of eighths
    let value;
    if (Number.isInteger(eighths) && eighths % 2 !== 0) {
      const low = Math.floor(x * 100); // exact here (k * 12.5)
      value = (low % 2 === 0 ? low : low + 1) / 100;
    } else {
      value = Number(x.toFixed(2));
    }
    return Number.isInteger(value) ? value.toFixed(1) : String(value);
  }

  function prod(values) {
    return values.reduce((a, b) => a * b, 1);
  }

  function sum(values) {
    return values.reduce((a, b) => a + b, 0);
  }

  class MemoryInputError extends Error {}

  // --- GPUs -----------------------------------------------------------------------------------

  let DATA = { gpus: [], models: {} };

  function gpuMemoryBytes(gpu) {
    return roundHalfEven(gpu.memory_gib * GIB);
  }

  function squashName(name) {
    return name.toLowerCase().replace(/[^a-z0-9]/g, "");
  }

  function findGpu(name) {
    const wanted = squashName(name);
    const exact = DATA.gpus.filter((g) => squashName(g.name) === wanted);
    if (exact.length) return exact[0];
    const prefixed = wanted ? DATA.gpus.filter((g) => squashName(g.name).startsWith(wanted)) : [];
    if (prefixed.length >= 1) return prefixed[0];
    throw new MemoryInputError(
      "unknown GPU " + pyRepr(name) + "; use one of " + DATA.gpus.map((g) => g.name).join(", ") + ", or --gpu-memory SIZE (e.g. 24GiB)",
    );
  }

  const SIZE = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|kib|mb|mib|gb|gib|tb|tib)?\s*$/i;
  const UNITS = { b: 1, kb: 1e3, kib: 2 ** 10, mb: 1e6, mib: 2 ** 20, gb: 1e9, gib: 2 ** 30, tb: 1e12, tib: 2 ** 40 };

  function parseSize(text) {
    const match = SIZE.exec(String(text));
    if (!match) throw new MemoryInputError("cannot read the size " + pyRepr(String(text)) + "; write it like 24GiB, 80GB or 25769803776");
    const number = parseFloat(match[1]);
    let unit = (match[2] || "").toLowerCase();
    if (!unit) unit = number > 1024 ? "b" : "gib";
    return roundHalfEven(number * UNITS[unit]);
  }

  // --- the settings ---------------------------------------------------------------------------

  const SETTINGS_DEFAULTS = {
    gpu_memory_bytes: 0,
    gpu_memory_utilization: 0.92,
    max_model_len: null,
    max_num_seqs: null,
    max_num_batched_tokens: null,
    dtype: "auto",
    kv_cache_dtype: "auto",
    mamba_ssm_cache_dtype: "auto",
    quantization: null,
    tensor_parallel_size: 1,
    enforce_eager: false,
    enable_prefix_caching: null,
    kv_cache_memory_bytes: null,
    block_size: null,
    kernel_block_alignment: null,
    concurrent_batches: 2,
    gpu_name: "",
  };

  function serveSettings(values) {
    const settings = {};
    for (const key of Object.keys(SETTINGS_DEFAULTS)) {
      settings[key] = values && values[key] !== undefined ? values[key] : SETTINGS_DEFAULTS[key];
    }
    return settings;
  }

  function replace(settings, changes) {
    return Object.assign({}, settings, changes);
  }

  // --- the model ------------------------------------------------------------------------------

  const DTYPE_BYTES = { float32: 4, float: 4, bfloat16: 2, float16: 2, half: 2 };
  const KV_CACHE_DTYPE_BYTES = { bfloat16: 2, float16: 2, fp8: 1, fp8_e4m3: 1, fp8_e5m2: 1, fp8_inc: 1 };
  const MAMBA_DTYPE_BYTES = { float32: 4, bfloat16: 2, float16: 2 };
  const AUTO_FLOAT32_TO = "bfloat16";

  const DECODERS = ["llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "gemma", "gemma2", "qwen2_vl", "qwen2_5_vl", "gpt2"];
  const ENCODERS = ["bert"];
  const MLA_MODELS = ["deepseek_v2", "deepseek_v3"];
  const MAMBA1_MODELS = ["mamba", "falcon_mamba"];
  const HYBRIDS = ["granitemoehybrid"];
  const SUPPORTED = [...DECODERS, ...ENCODERS, ...MLA_MODELS, ...MAMBA1_MODELS, ...HYBRIDS].sort();
  const TIED_BY_DEFAULT = ["gemma", "gemma2", "mamba", "gpt2", "bert"];
  const ATTRIBUTE_MAPS = { gpt2: { hidden_size: "n_embd", max_position_embeddings: "n_positions", num_attention_heads: "n_head", num_hidden_layers: "n_layer" } };
  const QWEN_FAMILY = ["qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "qwen2_vl", "qwen2_5_vl"];
  const MAX_LEN_KEYS = ["max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "model_max_length",
    "max_target_positions", "max_sequence_length", "max_seq_length", "seq_len"];
  const ROPE_TYPES_ALREADY_SCALED = ["su", "longrope", "llama3", "yarn", "deepseek_yarn", "deepseek_llama_scaling"];

  function textConfig(config) {
    const inner = get(config, "text_config");
    let merged = isDict(inner) ? Object.assign({}, config, inner) : config;
    const aliases = ATTRIBUTE_MAPS[get(merged, "model_type")] || {};
    const names = Object.keys(aliases).filter((name) => Object.prototype.hasOwnProperty.call(merged, aliases[name]));
    if (Object.keys(aliases).length) {
      merged = Object.assign({}, merged);
      for (const name of names) merged[name] = get(merged, aliases[name]);
    }
    return merged;
  }

  function need(config, key, source) {
    const value = get(config, key);
    if (value === null) {
      throw new MemoryInputError(source + ": `" + key + "` is missing; a " + pyStr(get(config, "model_type")) + " config.json needs it");
    }
    return value;
  }

  function intOf(config, key, source) {
    const value = need(config, key, source);
    if (!isInt(value) || value <= 0) {
      throw new MemoryInputError(source + ": `" + key + "` must be a positive integer, got " + pyRepr(value));
    }
    return value;
  }

  function modelTypeOf(config, source) {
    source = source || "config.json";
    if (!isDict(config)) throw new MemoryInputError(source + ": not a JSON object; give the model's config.json");
    const modelType = get(config, "model_type");
    if (typeof modelType !== "string") {
      throw new MemoryInputError(source + ": no `model_type`; give the model's config.json (the file beside its weights)");
    }
    if (!SUPPORTED.includes(modelType)) {
      throw new MemoryInputError(source + ": model_type " + pyRepr(modelType) + " is not modelled; supported: " + SUPPORTED.join(", "));
    }
    return modelType;
  }

  function headSize(cfg, source) {
    if (get(cfg, "kv_lora_rank") !== null && MLA_MODELS.includes(get(cfg, "model_type"))) {
      return intOf(cfg, "kv_lora_rank", source) + intOf(cfg, "qk_rope_head_dim", source);
    }
    if (isInt(get(cfg, "head_dim")) && cfg.head_dim > 0) return cfg.head_dim;
    return floorDiv(intOf(cfg, "hidden_size", source), intOf(cfg, "num_attention_heads", source));
  }

  function layerKinds(cfg, modelType, source) {
    const n = intOf(cfg, "num_hidden_layers", source);
    const repeat = (item) => Array.from({ length: n }, () => item);
    if (MAMBA1_MODELS.includes(modelType)) return repeat(["mamba", null]);
    if (ENCODERS.includes(modelType)) return [];
    if (MLA_MODELS.includes(modelType)) return repeat(["mla", null]);
    if (HYBRIDS.includes(modelType)) {
      const types = get(cfg, "layer_types");
      if (!Array.isArray(types) || types.length !== n) {
        throw new MemoryInputError(source + ": `layer_types` must list each of the " + n + ' layers as "mamba" or "attention"');
      }
      return types.map((t) => (t === "mamba" ? ["mamba", null] : ["full", null]));
    }
    let window = get(cfg, "sliding_window");
    if (QWEN_FAMILY.includes(modelType) && !truthy(get(cfg, "use_sliding_window", false))) window = null;
    let types = get(cfg, "layer_types");
    if (types === null && modelType === "gemma2") {
      types = Array.from({ length: n }, (_, i) => ((i + 1) % 2 ? "sliding_attention" : "full_attention"));
    }
    if (types === null && window !== null && QWEN_FAMILY.includes(modelType)) {
      const start = get(cfg, "max_window_layers", n);
      types = Array.from({ length: n }, (_, i) => (i >= start ? "sliding_attention" : "full_attention"));
    }
    if (!isInt(window) || window <= 0) window = null;
    if (Array.isArray(types) && types.length === n) {
      return types.map((t) => (t === "sliding_attention" && truthy(window) ? ["sliding", window] : ["full", null]));
    }
    return repeat(truthy(window) ? ["sliding", window] : ["full", null]);
  }

  function resolveDtype(config, dtype) {
    const cfg = textConfig(config);
    let checkpoint = String(pyOr(get(cfg, "torch_dtype"), pyOr(get(cfg, "dtype"), pyOr(get(config, "torch_dtype"), "float32"))));
    if (checkpoint.startsWith("torch.")) checkpoint = checkpoint.slice(6);
    if (!(checkpoint in DTYPE_BYTES)) checkpoint = "float32";
    let chosen;
    if (dtype === "auto") chosen = DTYPE_BYTES[checkpoint] === 4 ? AUTO_FLOAT32_TO : checkpoint;
    else if (dtype in DTYPE_BYTES) chosen = dtype;
    else throw new MemoryInputError("--dtype " + pyRepr(dtype) + ": use auto, bfloat16, float16 or float32");
    chosen = { half: "float16", float: "float32" }[chosen] || chosen;
    return [chosen, checkpoint];
  }

  function kvCacheDtypeBytes(kvCacheDtype, modelDtypeBytes) {
    if (kvCacheDtype === "auto") return modelDtypeBytes;
    if (!(kvCacheDtype in KV_CACHE_DTYPE_BYTES)) {
      throw new MemoryInputError("--kv-cache-dtype " + pyRepr(kvCacheDtype) + ": use auto, fp8, fp8_e4m3, fp8_e5m2, bfloat16 or float16");
    }
    return KV_CACHE_DTYPE_BYTES[kvCacheDtype];
  }

  function mambaDtypeBytes(setting, modelDtypeBytes, name) {
    if (setting === "auto") return modelDtypeBytes;
    if (!(setting in MAMBA_DTYPE_BYTES)) throw new MemoryInputError("--" + name + " " + pyRepr(setting) + ": use auto, float32, bfloat16 or float16");
    return MAMBA_DTYPE_BYTES[setting];
  }

  function divide(numerator, denominator, what, source) {
    if (numerator % denominator) {
      throw new MemoryInputError(source + ": " + what + " (" + numerator + ") is not divisible by --tensor-parallel-size " + denominator);
    }
    return floorDiv(numerator, denominator);
  }

  function mambaState(cfg, modelType, tp, convBytes, ssmBytes, source) {
    if (MAMBA1_MODELS.includes(modelType)) {
      const inner = intOf(cfg, "intermediate_size", source);
      const dim = divide(inner, tp, "intermediate_size", source);
      return [[[intOf(cfg, "conv_kernel", source) - 1, dim], [dim, intOf(cfg, "state_size", source)]], [convBytes, ssmBytes]];
    }
    const inner = intOf(cfg, "mamba_expand", source) * intOf(cfg, "hidden_size", source);
    let groups = intOf(cfg, "mamba_n_groups", source);
    groups += groups % tp === 0 ? 0 : tp - groups;
    const state = intOf(cfg, "mamba_d_state", source);
    const convDim = inner + 2 * groups * state;
    const conv = [intOf(cfg, "mamba_d_conv", source) - 1, divide(convDim, tp, "the Mamba conv dimension", source)];
    const temporal = [divide(intOf(cfg, "mamba_n_heads", source), tp, "mamba_n_heads", source), intOf(cfg, "mamba_d_head", source), state];
    return [[conv, temporal], [convBytes, ssmBytes]];
  }

  function layerCaches(config, settings, source) {
    source = source || "config.json";
    const modelType = modelTypeOf(config, source);
    const cfg = textConfig(config);
    const dtype = resolveDtype(config, settings.dtype)[0];
    const dtypeBytes = DTYPE_BYTES[dtype];
    const tp = settings.tensor_parallel_size;
    const kvBytes = kvCacheDtypeBytes(settings.kv_cache_dtype, dtypeBytes);
    const layers = [];
    layerKinds(cfg, modelType, source).forEach(([kind, window], index) => {
      if (kind === "mamba") {
        const convBytes = mambaDtypeBytes("auto", dtypeBytes, "mamba-cache-dtype");
        const ssmBytes = mambaDtypeBytes(settings.mamba_ssm_cache_dtype, convBytes, "mamba-ssm-cache-dtype");
        const [shapes, sizes] = mambaState(cfg, modelType, tp, convBytes, ssmBytes, source);
        const state = sum(shapes.map((shape, i) => prod(shape) * sizes[i]));
        layers.push({ index, kind: "mamba", bytes_per_token: 0, sliding_window: null, state_bytes: state, state_shapes: shapes, state_dtype_bytes: sizes });
      } else if (kind === "mla") {
        layers.push({ index, kind: "mla", bytes_per_token: headSize(cfg, source) * kvBytes, sliding_window: null, state_bytes: 0, state_shapes: [], state_dtype_bytes: [] });
      } else {
        const kvHeads = get(cfg, "num_key_value_heads");
        const heads = truthy(kvHeads) ? kvHeads : intOf(cfg, "num_attention_heads", source); // `or`: only read when needed
        const perGpu = Math.max(1, floorDiv(heads, tp));
        const size = headSize(cfg, source);
        layers.push({ index, kind, bytes_per_token: perGpu * 2 * size * kvBytes, sliding_window: window, state_bytes: 0, state_shapes: [], state_dtype_bytes: [] });
      }
    });
    return [layers, dtypeBytes];
  }

  // --- parameters -------------------------------------------------------------------------------

  function countParameters(config, source) {
    source = source || "config.json";
    const modelType = modelTypeOf(config, source);
    const cfg = textConfig(config);
    const hidden = intOf(cfg, "hidden_size", source);
    const vocab = intOf(cfg, "vocab_size", source);
    const n = intOf(cfg, "num_hidden_layers", source);
    const tied = truthy(get(cfg, "tie_word_embeddings", TIED_BY_DEFAULT.includes(modelType)));
    const embedding = vocab * hidden * (tied ? 1 : 2);
    let other = hidden;
    let linear = 0;
    if (MAMBA1_MODELS.includes(modelType)) {
      const inner = intOf(cfg, "intermediate_size", source);
      const state = intOf(cfg, "state_size", source);
      const rank = pyOr(get(cfg, "time_step_rank"), Math.ceil(hidden / 16));
      const kernel = intOf(cfg, "conv_kernel", source);
      const perLayerLinear = hidden * 2 * inner + inner * (rank + 2 * state) + rank * inner + inner * hidden;
      const perLayerOther = inner * kernel + inner * (truthy(get(cfg, "use_conv_bias", true)) ? 1 : 0) + inner + inner * state + inner + hidden;
      return { linear: n * perLayerLinear, embedding, other: other + n * perLayerOther };
    }
    if (modelType === "gpt2" || modelType === "bert") {
      const inner = pyOr(get(cfg, "n_inner"), pyOr(get(cfg, "intermediate_size"), 4 * hidden));
      const positions = pyOr(get(cfg, "max_position_embeddings"), 0);
      const perLayerLinear = 4 * hidden * hidden + 2 * hidden * inner;
      const perLayerOther = 4 * hidden + inner + hidden + 4 * hidden;
      other = 2 * hidden + positions * hidden;
      if (modelType === "bert") other += pyOr(get(cfg, "type_vocab_size"), 0) * hidden + hidden * hidden + hidden + 2 * hidden + vocab;
      return { linear: n * perLayerLinear, embedding, other: other + n * perLayerOther };
    }
    const heads = intOf(cfg, "num_attention_heads", source);
    const kvHeads = pyOr(get(cfg, "num_key_value_heads"), heads);
    layerKinds(cfg, modelType, source).forEach(([kind], index) => {
      if (kind === "mamba") {
        const inner = cfg.mamba_expand * hidden;
        const groups = cfg.mamba_n_groups, state = cfg.mamba_d_state, mheads = cfg.mamba_n_heads;
        const convDim = inner + 2 * groups * state;
        linear += hidden * (inner + convDim + mheads) + inner * hidden;
        other += convDim * cfg.mamba_d_conv + (truthy(get(cfg, "mamba_conv_bias", true)) ? convDim : 0) + 3 * mheads + inner;
      } else if (kind === "mla") {
        const nope = cfg.qk_nope_head_dim, rope = cfg.qk_rope_head_dim, v = cfg.v_head_dim;
        const rank = cfg.kv_lora_rank;
        const qRank = get(cfg, "q_lora_rank");
        const q = !truthy(qRank) ? hidden * heads * (nope + rope) : hidden * qRank + qRank * heads * (nope + rope);
        linear += q + hidden * (rank + rope) + rank * heads * (nope + v) + heads * v * hidden;
        other += rank + pyOr(qRank, 0);
      } else {
        const size = headSize(cfg, source);
        linear += hidden * heads * size + 2 * hidden * kvHeads * size + heads * size * hidden;
        if (["qwen2", "qwen2_moe", "qwen2_vl", "qwen2_5_vl"].includes(modelType) || truthy(get(cfg, "attention_bias"))) {
          other += heads * size + 2 * kvHeads * size;
        }
        if (modelType === "qwen3" || modelType === "qwen3_moe") other += 2 * size;
      }
      linear += mlpParameters(cfg, modelType, index, hidden);
      other += hidden * (modelType === "gemma2" ? 4 : 2);
    });
    other += visionParameters(config, modelType);
    return { linear, embedding, other };
  }

  function parametersTotal(params) {
    return params.linear + params.embedding + params.other;
  }

  function mlpParameters(cfg, modelType, index, hidden) {
    const inter = pyOr(get(cfg, "intermediate_size"), 0);
    if (modelType === "mixtral") {
      const experts = cfg.num_local_experts;
      return experts * 3 * hidden * inter + hidden * experts;
    }
    if (modelType === "qwen2_moe" || modelType === "qwen3_moe") {
      const sparse = pyOr(get(cfg, "decoder_sparse_step", 1), 1);
      const dense = pyOr(get(cfg, "mlp_only_layers"), []).includes(index) || get(cfg, "num_experts", 0) === 0 || (index + 1) % sparse;
      if (truthy(dense)) return 3 * hidden * inter;
      const experts = cfg.num_experts, moe = cfg.moe_intermediate_size;
      const shared = pyOr(get(cfg, "shared_expert_intermediate_size"), 0);
      return experts * 3 * hidden * moe + hidden * experts + 3 * hidden * shared + (truthy(shared) ? hidden : 0);
    }
    if (MLA_MODELS.includes(modelType)) {
      const moeLayer = truthy(get(cfg, "n_routed_experts")) && index >= get(cfg, "first_k_dense_replace", 0) && index % get(cfg, "moe_layer_freq", 1) === 0;
      if (!moeLayer) return 3 * hidden * inter;
      const experts = cfg.n_routed_experts, moe = cfg.moe_intermediate_size;
      return experts * 3 * hidden * moe + hidden * experts + 3 * hidden * moe * pyOr(get(cfg, "n_shared_experts"), 0);
    }
    if (HYBRIDS.includes(modelType)) {
      const experts = pyOr(get(cfg, "num_local_experts"), 0);
      const shared = pyOr(get(cfg, "shared_intermediate_size"), 0);
      return experts * 3 * hidden * inter + hidden * experts + 3 * hidden * shared;
    }
    return 3 * hidden * inter;
  }

  function visionParameters(config, modelType) {
    const vision = get(config, "vision_config");
    if (!(modelType === "qwen2_vl" || modelType === "qwen2_5_vl") || !isDict(vision)) return 0;
    const embed = pyOr(get(vision, "embed_dim"), get(vision, "hidden_size", 0));
    const depth = get(vision, "depth", 0), ratio = get(vision, "mlp_ratio", 4);
    const patch = get(vision, "patch_size", 14), temporal = get(vision, "temporal_patch_size", 2);
    const merge = get(vision, "spatial_merge_size", 2) ** 2;
    const out = modelType === "qwen2_vl" ? get(vision, "hidden_size", get(config, "hidden_size", 0)) : get(vision, "out_hidden_size", 0);
    const mlp = Math.trunc(embed * ratio);
    const block = 4 * embed + (3 * embed * embed + 3 * embed) + (embed * embed + embed) + (embed * mlp + mlp) + (mlp * embed + embed);
    const merger = 2 * embed + (embed * merge) ** 2 + embed * merge + embed * merge * out + out;
    return depth * block + get(vision, "in_chans", 3) * temporal * patch * patch * embed + merger;
  }

  function derivedMaxModelLen(config) {
    const cfg = textConfig(config);
    let found = null, key = "";
    for (const name of MAX_LEN_KEYS) {
      const value = get(cfg, name);
      if (typeof value === "number" && (found === null || value < found)) {
        found = value;
        key = name;
      }
    }
    if (found === null) return [2048, ""]; // vLLM's default, and then any --max-model-len is accepted
    const rope = pyOr(get(cfg, "rope_scaling"), get(cfg, "rope_parameters"));
    if (isDict(rope)) {
      const ropeType = pyOr(get(rope, "rope_type"), get(rope, "type"));
      if (!ROPE_TYPES_ALREADY_SCALED.includes(ropeType) && ropeType !== "default" && typeof get(rope, "factor") === "number") {
        found = found * rope.factor;
      }
    }
    return [Math.trunc(found), key];
  }

  function modelFacts(config, source) {
    source = source || "config.json";
    const modelType = modelTypeOf(config, source);
    const cfg = textConfig(config);
    const architectures = pyOr(get(config, "architectures"), [modelType]);
    const heads = pyOr(get(cfg, "num_attention_heads"), 0);
    const inter = pyOr(get(cfg, "intermediate_size"), 0);
    const experts = pyOr(get(cfg, "num_experts_per_tok"), 0);
    const moeInter = pyOr(get(cfg, "moe_intermediate_size"), modelType === "mixtral" || modelType === "granitemoehybrid" ? inter : 0);
    const isMoe = truthy(pyOr(get(cfg, "num_local_experts"), pyOr(get(cfg, "num_experts"), get(cfg, "n_routed_experts"))));
    const [length, key] = derivedMaxModelLen(config);
    const checkpoint = resolveDtype(config, "auto")[1];
    const quant = isDict(get(config, "quantization_config")) ? config.quantization_config : null;
    return {
      model_type: modelType,
      architecture: String(architectures[0]),
      num_layers: intOf(cfg, "num_hidden_layers", source),
      hidden_size: intOf(cfg, "hidden_size", source),
      vocab_size: intOf(cfg, "vocab_size", source),
      num_attention_heads: heads,
      num_kv_heads: pyOr(get(cfg, "num_key_value_heads"), heads),
      intermediate_size: isMoe ? experts * moeInter : inter,
      derived_max_model_len: length,
      max_len_key: key,
      parameters: countParameters(config, source),
      quantization: quant,
      config_dtype: checkpoint,
      is_moe: isMoe,
      is_multimodal: isDict(get(config, "vision_config")),
    };
  }

  // --- the KV cache budget ----------------------------------------------------------------------

  function cacheSpec(kind, blockSize, pageSize, slidingWindow, blocksPerRequest) {
    return { kind, block_size: blockSize, page_size: pageSize, sliding_window: slidingWindow === undefined ? null : slidingWindow, blocks_per_request: blocksPerRequest || 0 };
  }

  function specKey(spec) {
    return [spec.kind, spec.block_size, spec.page_size, spec.sliding_window, spec.blocks_per_request].join("|");
  }

  function planBlocks(layers, settings, maxModelLen) {
    const attention = layers.filter((l) => l.kind !== "mamba");
    const mambas = layers.filter((l) => l.kind === "mamba");
    const usesMla = attention.some((l) => l.kind === "mla");
    let blockSize = pyOr(settings.block_size, usesMla ? 64 : 16);
    const kernelMinimum = pyOr(settings.kernel_block_alignment, usesMla ? 64 : 16);
    const caching = settings.enable_prefix_caching !== null ? settings.enable_prefix_caching : true;
    const mode = mambas.length && attention.length && caching ? "align" : "none";
    let mambaPage = mambas.length ? Math.max(...mambas.map((l) => l.state_bytes)) : 0;
    if (mambas.length && attention.length) {
      const perToken = attention[0].bytes_per_token;
      let alignment = Math.max(kernelMinimum, blockSize);
      if (usesMla) alignment = Math.max(alignment, 128);
      let needed = alignment * ceilDiv(mambaPage, alignment * perToken);
      needed = kernelMinimum * ceilDiv(needed, kernelMinimum);
      blockSize = Math.max(blockSize, needed);
      mambaPage = blockSize * perToken;
    }
    let mambaBlockSize = null;
    if (mambas.length) mambaBlockSize = mode === "align" ? blockSize : maxModelLen;
    const specs = layers.map((layer) =>
      layer.kind === "mamba"
        ? cacheSpec("mamba", mambaBlockSize, attention.length ? mambaPage : layer.state_bytes, null, mode === "align" ? 3 : 1)
        : cacheSpec(layer.kind, blockSize, blockSize * layer.bytes_per_token, layer.sliding_window),
    );
    return { block_size: blockSize, mamba_block_size: mambaBlockSize, mamba_cache_mode: mode, mamba_page_size: mambaPage, specs };
  }

  function groupLayers(specs) {
    const all = specs.map((_, i) => i);
    if (new Set(specs.map(specKey)).size === 1) return [[all], specs];
    const kinds = new Set(specs.map((s) => (s.kind === "mla" ? "full" : s.kind) + "|" + s.sliding_window));
    if (kinds.size === 1 && new Set(specs.map((s) => s.block_size)).size === 1 && !specs.some((s) => s.kind === "mamba")) return [[all], specs];
    const largest = Math.max(...specs.map((s) => s.page_size));
    const unified = specs.map((spec) => {
      if (spec.page_size === largest || spec.kind === "mamba" || largest % spec.page_size) return Object.assign({}, spec, { page_size: largest });
      return Object.assign({}, spec, { block_size: spec.block_size * floorDiv(largest, spec.page_size), page_size: largest });
    });
    const buckets = new Map();
    unified.forEach((spec, index) => {
      const key = specKey(spec);
      if (!buckets.has(key)) buckets.set(key, []);
      buckets.get(key).push(index);
    });
    const sizes = [...buckets.values()].map((m) => m.length);
    const groupSize = Math.max(...sizes) < Math.min(...sizes) * 1.5 ? Math.max(...sizes) : Math.min(...sizes);
    const groups = [];
    for (const members of buckets.values()) {
      const count = ceilDiv(members.length, groupSize);
      for (let i = 0; i < count; i++) groups.push(members.filter((_, j) => j % count === i));
    }
    return [groups, unified];
  }

  function blocksPerRequest(spec, maxModelLen, inFlight) {
    if (spec.kind === "mamba") return spec.blocks_per_request;
    if (spec.kind === "sliding") {
      const tokens = Math.min(spec.sliding_window - 1 + inFlight, maxModelLen);
      return ceilDiv(tokens, spec.block_size) + 1;
    }
    return ceilDiv(maxModelLen, spec.block_size);
  }

  function requestBlocks(layout, maxModelLen, inFlight) {
    let total = 0;
    for (const members of layout.groups) total += Math.max(...members.map((i) => blocksPerRequest(layout.specs[i], maxModelLen, inFlight)));
    return total;
  }

  function requestBytes(layout, maxModelLen, inFlight) {
    return layout.bytes_per_block * requestBlocks(layout, maxModelLen, inFlight);
  }

  function kvLayout(layers, settings, maxModelLen) {
    if (!layers.length) return null;
    const plan = planBlocks(layers, settings, maxModelLen);
    const [groups, specs] = groupLayers(plan.specs);
    const bytesPerBlock = Math.max(...groups.map((members) => sum(members.map((i) => specs[i].page_size))));
    return { plan, groups, specs, bytes_per_block: bytesPerBlock };
  }

  function estimateMaxModelLen(layout, memory, upper, inFlight) {
    if (requestBytes(layout, 1, inFlight) > memory) return 0;
    let left = 1, right = upper, best = 1;
    while (left <= right) {
      const middle = floorDiv(left + right, 2);
      if (requestBytes(layout, middle, inFlight) <= memory) {
        best = middle;
        left = middle + 1;
      } else {
        right = middle - 1;
      }
    }
    return best;
  }

  // --- what vLLM takes before the KV cache ------------------------------------------------------

  const QUANTIZATION_BITS = { fp8: 8, int8: 8, awq: 4, gptq: 4, bitsandbytes: 4, "compressed-tensors": 4 };
  const NON_TORCH_ONE_GPU = roundHalfEven(0.2 * GIB);
  const NON_TORCH_TENSOR_PARALLEL = roundHalfEven(0.7 * GIB);
  const CUDA_GRAPHS = roundHalfEven(0.5 * GIB);

  function noQuantization(value) {
    return value === null || value === undefined || value === "" || value === "none";
  }

  function quantizationOf(facts, settings) {
    let method = settings.quantization;
    const config = facts.quantization || {};
    if (noQuantization(method)) method = !truthy(settings.quantization) ? get(config, "quant_method") : null;
    if (noQuantization(method)) return [null, 0, 0];
    method = String(method).toLowerCase();
    if (!(method in QUANTIZATION_BITS)) {
      throw new MemoryInputError("quantization " + pyRepr(method) + " is not modelled; use one of " + Object.keys(QUANTIZATION_BITS).sort().join(", ") + ", or none");
    }
    let bits = isInt(get(config, "bits")) ? config.bits : QUANTIZATION_BITS[method];
    if (method === "bitsandbytes") bits = truthy(get(config, "load_in_8bit")) ? 8 : 4;
    const group = isInt(get(config, "group_size")) && config.group_size > 0 ? config.group_size : 128;
    return [method, bits, group];
  }

  function weightsBytes(facts, dtypeBytes, settings) {
    const params = facts.parameters, tp = settings.tensor_parallel_size;
    const [method, bits, group] = quantizationOf(facts, settings);
    const total = parametersTotal(params);
    let linear, how;
    if (method === null) {
      linear = params.linear * dtypeBytes;
      how = commas(total) + " parameters counted from config.json, " + dtypeBytes + " bytes each";
    } else if (bits === 8) {
      linear = params.linear;
      how = commas(total) + " parameters counted from config.json; linear weights in " + method + " (1 byte), the rest " + dtypeBytes + " bytes";
    } else {
      linear = ceilDiv(params.linear * (bits * group + 8 * dtypeBytes + bits), 8 * group);
      how = commas(total) + " parameters counted from config.json; linear weights in " + method + " (" + bits + " bits and a scale per " + group + "), the rest " + dtypeBytes + " bytes";
    }
    return [ceilDiv(linear + params.embedding * dtypeBytes, tp) + params.other * dtypeBytes, how];
  }

  function activationBytes(facts, dtypeBytes, settings, maxNumBatchedTokens, maxNumSeqs) {
    const tp = settings.tensor_parallel_size;
    const perToken = 4 * facts.hidden_size + floorDiv(3 * facts.intermediate_size, tp);
    return maxNumBatchedTokens * perToken * dtypeBytes + 2 * maxNumSeqs * facts.vocab_size * 4;
  }

  function reserves(facts, dtypeBytes, settings, maxNumBatchedTokens, maxNumSeqs) {
    const [weights, how] = weightsBytes(facts, dtypeBytes, settings);
    const tp = settings.tensor_parallel_size;
    const items = [
      { name: "model weights", bytes: weights, estimate: facts.quantization !== null || !noQuantization(settings.quantization), source: how + (tp > 1 ? ", split over " + tp + " GPUs" : "") },
      {
        name: "activation peak",
        bytes: activationBytes(facts, dtypeBytes, settings, maxNumBatchedTokens, maxNumSeqs),
        estimate: true,
        source: "formula for a " + commas(maxNumBatchedTokens) + "-token profiling pass and " + maxNumSeqs + " sampled sequences; vLLM measures it (gpu_worker.determine_available_memory)",
      },
      {
        name: "memory outside PyTorch",
        bytes: tp === 1 ? NON_TORCH_ONE_GPU : NON_TORCH_TENSOR_PARALLEL,
        estimate: true,
        source: "cuBLAS workspaces and, with tensor parallelism, NCCL buffers; vLLM logs 0.16-0.20 GiB on one GPU (vllm-project/vllm#12126, #14447) and more with TP (#10511)",
      },
    ];
    if (!settings.enforce_eager) {
      items.push({
        name: "CUDA graphs",
        bytes: CUDA_GRAPHS,
        estimate: true,
        source: "vLLM subtracts its estimate of CUDA graph memory (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1); captures take 0.2-1 GiB (vllm-project/vllm#11349: 0.21 GiB for Llama-3.2-1B); 0 with --enforce-eager",
      });
    }
    return items;
  }

  function defaultBatchLimits(gpuMemoryBytes, gpuName, maxModelLen, settings) {
    let seqs, tokens;
    if (gpuMemoryBytes >= 160 * GIB) [seqs, tokens] = [1024, 16384];
    else if (gpuMemoryBytes >= 70 * GIB && !gpuName.toLowerCase().includes("a100")) [seqs, tokens] = [1024, 8192];
    else [seqs, tokens] = [256, 2048];
    let chosenTokens = settings.max_num_batched_tokens;
    if (chosenTokens === null) chosenTokens = Math.min(pyOr(settings.max_num_seqs, seqs) * maxModelLen, tokens);
    let chosenSeqs = settings.max_num_seqs;
    if (chosenSeqs === null) chosenSeqs = Math.min(seqs, chosenTokens);
    return [chosenSeqs, chosenTokens];
  }

  // --- the errors -------------------------------------------------------------------------------

  const MAX_MODEL_LEN_TOO_LONG = "40a9e62adbd6db45";
  const HEADS_NOT_DIVISIBLE = "a5afdbb71761aa63";
  const NO_MEMORY_FOR_CACHE = "8178110fb39acd5c";
  const KV_CACHE_TOO_SMALL = "bdaa78831d773037";
  const AUTO_FIT_IMPOSSIBLE = "127c118f2e944b5f";
  const MAMBA_BLOCKS_BELOW_MAX_NUM_SEQS = "c8f7b9d6b5fb8793";
  const ERROR_ENTRIES = {
    [MAX_MODEL_LEN_TOO_LONG]: "max-model-len-exceeds-derived-limit",
    [HEADS_NOT_DIVISIBLE]: "tensor-parallel-size-does-not-divide-model",
    [NO_MEMORY_FOR_CACHE]: "no-memory-for-kv-cache-blocks",
    [KV_CACHE_TOO_SMALL]: "kv-cache-too-small-for-max-model-len",
    [AUTO_FIT_IMPOSSIBLE]: "no-memory-for-kv-cache-blocks",
    [MAMBA_BLOCKS_BELOW_MAX_NUM_SEQS]: "mamba-cache-blocks-below-max-num-seqs",
  };

  function finding(id, message) {
    return { id, entry: ERROR_ENTRIES[id], message, fixes: [] };
  }

  // --- the report -------------------------------------------------------------------------------

  function calculate(config, settingsIn, source, withFixes) {
    source = source || "config.json";
    withFixes = withFixes === undefined ? true : withFixes;
    const settings = serveSettings(settingsIn);
    const facts = modelFacts(config, source);
    const tp = settings.tensor_parallel_size;
    if (tp < 1) throw new MemoryInputError("--tensor-parallel-size must be at least 1");
    if (!(settings.gpu_memory_utilization > 0 && settings.gpu_memory_utilization <= 1)) {
      throw new MemoryInputError("--gpu-memory-utilization must be above 0 and at most 1");
    }
    const errors = [];
    const derived = facts.derived_max_model_len;
    const autoFit = settings.max_model_len === -1;
    let maxModelLen = settings.max_model_len === null || settings.max_model_len === -1 ? derived : settings.max_model_len;
    if (maxModelLen < 1) throw new MemoryInputError("--max-model-len must be a positive number of tokens, or -1 / auto");
    if (settings.max_model_len !== null && settings.max_model_len !== -1 && settings.max_model_len > derived && facts.max_len_key) {
      errors.push(finding(MAX_MODEL_LEN_TOO_LONG,
        "User-specified max_model_len (" + settings.max_model_len + ") is greater than the derived max_model_len (" + facts.max_len_key + "=" + derived + " in model's config.json)."));
    }
    if (facts.num_attention_heads && facts.num_attention_heads % tp) {
      errors.push(finding(HEADS_NOT_DIVISIBLE,
        "Total number of attention heads (" + facts.num_attention_heads + ") must be divisible by tensor parallel size (" + tp + ")."));
      return report(facts, settings, null, null, maxModelLen, errors, {}, {}, withFixes, config, source, 0);
    }
    const [layers, dtypeBytes] = layerCaches(config, settings, source);
    const [maxNumSeqs, maxNumBatchedTokens] = defaultBatchLimits(settings.gpu_memory_bytes, settings.gpu_name, maxModelLen, settings);
    const inFlight = settings.concurrent_batches * maxNumBatchedTokens;
    const items = reserves(facts, dtypeBytes, settings, maxNumBatchedTokens, maxNumSeqs);
    const requested = Math.ceil(settings.gpu_memory_bytes * settings.gpu_memory_utilization);
    const available = settings.kv_cache_memory_bytes !== null ? settings.kv_cache_memory_bytes : requested - sum(items.map((r) => r.bytes));
    const layout = kvLayout(layers, settings, maxModelLen);
    const budget = {
      requested_bytes: requested,
      reserves: items,
      kv_cache_bytes: available,
      kv_cache_bytes_given: settings.kv_cache_memory_bytes !== null,
      weights_exceed_gpu: items[0].bytes > settings.gpu_memory_bytes,
    };
    const limits = { max_num_seqs: maxNumSeqs, max_num_batched_tokens: maxNumBatchedTokens, in_flight_tokens: inFlight };
    if (layout !== null) {
      Object.assign(budget, budgetFigures(layout, available, maxModelLen, derived, inFlight, autoFit, maxNumSeqs, settings.enforce_eager, errors));
      maxModelLen = budget.max_model_len;
    }
    return report(facts, settings, layers, layout, maxModelLen, errors, budget, limits, withFixes, config, source, dtypeBytes);
  }

  function budgetFigures(layout, available, maxModelLen, derived, inFlight, autoFit, maxNumSeqs, enforceEager, errors) {
    const check = available - layout.bytes_per_block;
    const figures = { bytes_per_block: layout.bytes_per_block, usable_bytes: check };
    const largest = check > 0 ? estimateMaxModelLen(layout, check, derived, inFlight) : 0;
    figures.largest_max_model_len = largest;
    if (autoFit) {
      if (largest <= 0) {
        errors.push(finding(AUTO_FIT_IMPOSSIBLE,
          "Cannot auto-fit max_model_len: not enough GPU memory available to serve even a single token. Try increasing `gpu_memory_utilization`."));
      } else {
        maxModelLen = Math.min(largest, derived);
      }
    }
    figures.max_model_len = maxModelLen;
    const needed = requestBytes(layout, maxModelLen, inFlight);
    figures.request_bytes = needed;
    figures.request_blocks = requestBlocks(layout, maxModelLen, inFlight);
    if (errors.some((e) => e.id === AUTO_FIT_IMPOSSIBLE)) return figures;
    if (check <= 0) {
      errors.push(finding(NO_MEMORY_FOR_CACHE,
        "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine."));
      return figures;
    }
    if (needed > check) {
      const estimate = estimateMaxModelLen(layout, check, maxModelLen, inFlight);
      const hint = estimate > 0 ? "Based on the available memory, the estimated maximum model length is " + estimate + ". " : "";
      errors.push(finding(KV_CACHE_TOO_SMALL,
        "To serve at least one request with the model's max seq len (" + maxModelLen + "), (" + round2(needed / GIB) +
        " GiB KV cache is needed, which is larger than the available KV cache memory (" + round2(check / GIB) + " GiB). " + hint +
        "Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."));
      return figures;
    }
    const numBlocks = floorDiv(available, layout.bytes_per_block);
    const concurrency = numBlocks / figures.request_blocks;
    Object.assign(figures, { num_blocks: numBlocks, concurrency, tokens: Math.trunc(concurrency * maxModelLen) });
    const hasMamba = layout.specs.some((s) => s.kind === "mamba");
    if (hasMamba && !enforceEager && maxNumSeqs > numBlocks) {
      errors.push(finding(MAMBA_BLOCKS_BELOW_MAX_NUM_SEQS,
        "max_num_seqs (" + maxNumSeqs + ") exceeds available Mamba cache blocks (" + numBlocks + "). Each decode sequence requires one Mamba cache block, so CUDA graph capture cannot proceed. Please lower max_num_seqs to at most " + numBlocks + " or increase gpu_memory_utilization."));
    }
    return figures;
  }

  function report(facts, settings, layers, layout, maxModelLen, errors, budget, limits, withFixes, config, source, dtypeBytes) {
    layers = layers || [];
    const attention = layers.filter((l) => l.kind !== "mamba");
    const mambas = layers.filter((l) => l.kind === "mamba");
    const model = {
      model_type: facts.model_type,
      architecture: facts.architecture,
      parameters: parametersTotal(facts.parameters),
      layers: facts.num_layers,
      attention_layers: attention.length,
      sliding_window_layers: layers.filter((l) => l.kind === "sliding").length,
      mla_layers: layers.filter((l) => l.kind === "mla").length,
      mamba_layers: layers.length - attention.length,
      derived_max_model_len: facts.derived_max_model_len,
      max_len_key: facts.max_len_key,
      dtype_bytes: dtypeBytes,
      is_moe: facts.is_moe,
      is_multimodal: facts.is_multimodal,
    };
    const windows = attention.map((l) => l.sliding_window || 0);
    const kvCache = {
      bytes_per_token: sum(attention.map((l) => l.bytes_per_token)),
      full_attention_bytes_per_token: sum(attention.filter((l) => l.kind !== "sliding").map((l) => l.bytes_per_token)),
      sliding_window_bytes_per_token: sum(attention.filter((l) => l.kind === "sliding").map((l) => l.bytes_per_token)),
      sliding_window: pyOr(windows.length ? Math.max(...windows) : 0, null),
      mamba_state_bytes: sum(mambas.map((l) => l.state_bytes)),
      mamba_state_bytes_per_layer: mambas.length ? Math.max(...mambas.map((l) => l.state_bytes)) : 0,
    };
    if (layout !== null) {
      Object.assign(kvCache, {
        block_size: layout.plan.block_size,
        mamba_block_size: layout.plan.mamba_block_size,
        mamba_cache_mode: layout.plan.mamba_cache_mode,
        mamba_page_bytes: model.mamba_layers ? layout.plan.mamba_page_size : 0,
        groups: layout.groups.map((members) => members.length),
      });
    }
    const resolved = Object.assign({}, settings, limits, { max_model_len: maxModelLen });
    const result = { model, settings: resolved, kv_cache: kvCache, budget, errors };
    if (withFixes && errors.length) {
      for (const item of errors) item.fixes.push(...fixesFor(item, result, config, settings, source));
    }
    return result;
  }

  function fixesFor(item, result, config, settings, source) {
    const candidates = [];
    const budget = result.budget;
    const derived = result.model.derived_max_model_len;
    const facts = modelFacts(config, source);
    const heads = facts.num_attention_heads;
    const tp = settings.tensor_parallel_size;

    function parallel() {
      for (const size of [2, 4, 8]) {
        if (size > tp && (!heads || heads % size === 0)) candidates.push(["--tensor-parallel-size " + size, replace(settings, { tensor_parallel_size: size })]);
      }
    }
    function utilization() {
      const start = Math.floor(settings.gpu_memory_utilization * 100) + 1;
      for (let hundredths = start; hundredths < 99; hundredths++) {
        candidates.push(["--gpu-memory-utilization " + String(hundredths / 100), replace(settings, { gpu_memory_utilization: hundredths / 100 })]);
      }
    }

    if (item.id === MAX_MODEL_LEN_TOO_LONG) {
      candidates.push(["--max-model-len " + derived, replace(settings, { max_model_len: derived })]);
    } else if (item.id === HEADS_NOT_DIVISIBLE) {
      const sizes = [1, 2, 4, 8, 16].sort((a, b) => Math.abs(a - tp) - Math.abs(b - tp) || a - b);
      for (const size of sizes) {
        if (size !== tp && heads % size === 0) candidates.push(["--tensor-parallel-size " + size, replace(settings, { tensor_parallel_size: size })]);
      }
    } else if (item.id === KV_CACHE_TOO_SMALL) {
      if ((budget.largest_max_model_len || 0) > 0) {
        candidates.push(["--max-model-len " + budget.largest_max_model_len, replace(settings, { max_model_len: budget.largest_max_model_len })]);
        candidates.push(["--max-model-len auto", replace(settings, { max_model_len: -1 })]);
      }
      if (settings.kv_cache_dtype === "auto" && result.model.dtype_bytes > 1 && result.model.attention_layers) {
        candidates.push(["--kv-cache-dtype fp8", replace(settings, { kv_cache_dtype: "fp8" })]);
      }
      utilization();
      parallel();
    } else if (item.id === NO_MEMORY_FOR_CACHE || item.id === AUTO_FIT_IMPOSSIBLE) {
      utilization();
      if (!settings.enforce_eager) candidates.push(["--enforce-eager", replace(settings, { enforce_eager: true })]);
      if (noQuantization(settings.quantization) && !truthy(get(facts.quantization || {}, "quant_method"))) {
        candidates.push(["--quantization fp8", replace(settings, { quantization: "fp8" })]);
      }
      parallel();
    } else if (item.id === MAMBA_BLOCKS_BELOW_MAX_NUM_SEQS) {
      if ((budget.num_blocks || 0) >= 1) candidates.push(["--max-num-seqs " + budget.num_blocks, replace(settings, { max_num_seqs: budget.num_blocks })]);
      if (!settings.enforce_eager) candidates.push(["--enforce-eager", replace(settings, { enforce_eager: true })]);
      utilization();
      parallel();
    }
    const fixes = [];
    const seenKinds = new Set();
    for (const [flags, changed] of candidates) {
      const kind = flags.split(" ")[0];
      if (seenKinds.has(kind)) continue;
      let outcome;
      try {
        outcome = calculate(config, changed, source, false);
      } catch (error) {
        if (error instanceof MemoryInputError) continue;
        throw error;
      }
      if (outcome.errors.length) continue;
      seenKinds.add(kind);
      fixes.push({ flags, kv_cache_tokens: outcome.budget.tokens || 0, max_model_len: outcome.settings.max_model_len });
    }
    return fixes;
  }

  /** Like calculate, but a MemoryInputError comes back as {"error": message} (for the page and the tests). */
  function tryCalculate(config, settings) {
    try {
      return calculate(config, settings);
    } catch (error) {
      if (error instanceof MemoryInputError) return { error: error.message };
      throw error;
    }
  }

  // --- where the site is, and its data --------------------------------------------------------

  const SCRIPT_URL = (function () {
    if (typeof document === "undefined") return "";
    if (document.currentScript && document.currentScript.src) return document.currentScript.src;
    const scripts = document.getElementsByTagName("script");
    for (let i = scripts.length - 1; i >= 0; i--) {
      if (/(?:^|\/)assets\/memory\.js(?:[?#].*)?$/.test(scripts[i].src)) return scripts[i].src;
    }
    return document.baseURI;
  })();
  function resolveUrl(path) {
    try {
      return new URL(path, SCRIPT_URL).href;
    } catch (error) {
      return path;
    }
  }
  const DATA_URL = resolveUrl("../api/memory.json");
  const SITE_ROOT = resolveUrl("../");

  let loading = null;
  function load() {
    if (!loading) {
      loading = fetch(DATA_URL)
        .then((response) => {
          if (!response.ok) throw new Error("HTTP " + response.status + " for " + DATA_URL);
          return response.json();
        })
        .then((data) => {
          DATA = data;
          return data;
        });
      loading.catch(() => {
        loading = null;
      });
    }
    return loading;
  }

  const api = {
    load,
    calculate,
    tryCalculate,
    findGpu: (name) => findGpu(name),
    parseSize,
    get data() {
      return DATA;
    },
    _setData(data) {
      DATA = data; // for tests and for a page that has the data already
    },
    dataUrl: DATA_URL,
  };
  (typeof window !== "undefined" ? window : globalThis).errorkbMemory = api;

  // --- the page -------------------------------------------------------------------------------------

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function gib(size) {
    return (size / GIB).toFixed(2) + " GiB";
  }

  function row(table, name, value, note) {
    const tr = element("tr");
    tr.appendChild(element("td", null, name));
    tr.appendChild(element("td", "errorkb-number", value));
    tr.appendChild(element("td", "errorkb-note", note || ""));
    table.appendChild(tr);
  }

  function renderReport(out, result) {
    const nodes = [];
    const model = result.model, kv = result.kv_cache, budget = result.budget, settings = result.settings;
    nodes.push(element("p", "errorkb-memory-model",
      model.architecture + ": " + commas(model.parameters) + " parameters, " + model.layers + " layers (" + model.attention_layers +
      " attention" + (model.sliding_window_layers ? ", " + model.sliding_window_layers + " sliding-window" : "") +
      (model.mamba_layers ? ", " + model.mamba_layers + " Mamba" : "") + "), context " + commas(model.derived_max_model_len)));
    const table = element("table", "errorkb-memory-table");
    if (model.attention_layers) row(table, "KV cache per token", commas(kv.bytes_per_token) + " bytes", "per GPU, as vLLM computes it");
    if (model.mamba_layers) row(table, "Mamba state per sequence", commas(kv.mamba_state_bytes) + " bytes", model.mamba_layers + " layers, whatever the length");
    row(table, "vLLM's share of the GPU", gib(budget.requested_bytes || 0), "memory × --gpu-memory-utilization");
    if (budget.kv_cache_bytes_given) {
      row(table, "KV cache memory", gib(budget.kv_cache_bytes), "given");
    } else {
      for (const reserve of budget.reserves || []) row(table, "− " + reserve.name, gib(reserve.bytes), (reserve.estimate ? "estimate: " : "") + reserve.source);
      row(table, "= KV cache budget", gib(budget.kv_cache_bytes || 0), "");
    }
    if (budget.num_blocks !== undefined) {
      row(table, "Tokens that fit", commas(budget.tokens), commas(budget.num_blocks) + " blocks of " + kv.block_size + " tokens");
      row(table, "Requests of " + commas(settings.max_model_len) + " tokens at once", budget.concurrency.toFixed(2), "max_model_len " + commas(settings.max_model_len));
    }
    if (budget.largest_max_model_len !== undefined) row(table, "Largest --max-model-len that fits", commas(budget.largest_max_model_len), "");
    nodes.push(table);
    if (budget.weights_exceed_gpu) nodes.push(element("p", "errorkb-memory-warning", "The weights alone exceed the GPU's memory: loading them fails with CUDA out of memory first."));
    if (!result.errors.length) {
      nodes.push(element("p", "errorkb-memory-ok", "No known error: vLLM should start with these settings (the estimates aside)."));
    }
    for (const item of result.errors) {
      const block = element("div", "errorkb-memory-error");
      const heading = element("p", "errorkb-title");
      const link = element("a", null, "Raises " + item.id);
      link.href = new URL("errors/" + item.id + "/", SITE_ROOT).href;
      heading.appendChild(link);
      block.appendChild(heading);
      block.appendChild(element("p", "errorkb-meta", item.message));
      block.appendChild(element("p", null, item.fixes.length
        ? "Each of these alone fixes it: " + item.fixes.map((f) => f.flags + " (" + commas(f.kv_cache_tokens) + " tokens fit)").join("; ")
        : "No single flag fixes it: use a larger GPU, more GPUs, or a smaller model."));
      nodes.push(block);
    }
    out.replaceChildren(...nodes);
  }

  function number(form, name) {
    const text = form.elements[name].value.trim();
    return text === "" ? null : Number(text);
  }

  function readForm(form) {
    const settings = {};
    const gpu = form.elements.gpu.value;
    if (gpu === "custom") {
      settings.gpu_memory_bytes = parseSize(form.elements.gpu_memory.value);
    } else {
      const found = findGpu(gpu);
      settings.gpu_memory_bytes = gpuMemoryBytes(found);
      settings.gpu_name = found.name;
    }
    settings.gpu_memory_utilization = number(form, "gpu_memory_utilization") || 0.92;
    const length = form.elements.max_model_len.value.trim().toLowerCase();
    settings.max_model_len = length === "" ? null : length === "auto" ? -1 : Number(length);
    settings.max_num_seqs = number(form, "max_num_seqs");
    settings.kv_cache_dtype = form.elements.kv_cache_dtype.value;
    settings.dtype = form.elements.dtype.value;
    settings.quantization = form.elements.quantization.value || null;
    settings.tensor_parallel_size = number(form, "tensor_parallel_size") || 1;
    settings.enforce_eager = form.elements.enforce_eager.checked;
    return settings;
  }

  function readModel(form) {
    const choice = form.elements.model.value;
    if (choice !== "paste") return DATA.models[choice];
    const text = form.elements.config.value;
    if (!text.trim()) throw new MemoryInputError("Paste the model's config.json first.");
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new MemoryInputError("The pasted config.json is not valid JSON: " + error.message);
    }
  }

  function fillChoices(form) {
    const models = form.elements.model;
    for (const name of Object.keys(DATA.models)) {
      const option = element("option", null, name);
      option.value = name;
      models.insertBefore(option, models.lastElementChild);
    }
    const gpus = form.elements.gpu;
    for (const gpu of DATA.gpus) {
      const option = element("option", null, gpu.name + " (" + gpu.memory_gib + " GiB)");
      option.value = gpu.name;
      gpus.insertBefore(option, gpus.lastElementChild);
    }
    if (DATA.gpus.length) gpus.value = DATA.gpus[0].name;
    models.value = Object.keys(DATA.models)[0] || "paste";
  }

  // The form is built here, not shipped in every page's HTML: it only works with this script.
  const FIELDS = [
    ["model", "Model", "select", [["paste", "Paste a config.json…"]]],
    ["config", "config.json", "textarea", '{"model_type": "llama", "num_hidden_layers": 32, ...}', "errorkb-memory-paste"],
    ["gpu", "GPU", "select", [["custom", "Other: give its memory…"]]],
    ["gpu_memory", "GPU memory", "input", "24GiB", "errorkb-memory-custom"],
    ["gpu_memory_utilization", "--gpu-memory-utilization", "input", "0.92"],
    ["max_model_len", "--max-model-len", "input", "the model's, or auto"],
    ["max_num_seqs", "--max-num-seqs", "input", "vLLM's default"],
    ["tensor_parallel_size", "--tensor-parallel-size", "input", "1"],
    ["kv_cache_dtype", "--kv-cache-dtype", "select", [["auto", "auto"], ["fp8", "fp8"]]],
    ["dtype", "--dtype", "select", [["auto", "auto"], ["bfloat16", "bfloat16"], ["float16", "float16"], ["float32", "float32"]]],
    ["quantization", "--quantization", "select", [["", "the checkpoint's"], ["none", "none"], ["fp8", "fp8"], ["awq", "awq"], ["gptq", "gptq"], ["bitsandbytes", "bitsandbytes"]]],
  ];

  function buildForm(container) {
    const form = element("form");
    form.id = "errorkb-memory-form";
    form.autocomplete = "off";
    for (const [name, label, tag, detail, className] of FIELDS) {
      const wrapper = element("label", className, label + " ");
      const field = element(tag);
      field.name = name;
      if (tag === "select") {
        for (const [value, text] of detail) {
          const option = element("option", null, text);
          option.value = value;
          field.appendChild(option);
        }
      } else {
        field.placeholder = detail;
        if (tag === "textarea") {
          field.rows = 8;
          field.spellcheck = false;
        }
      }
      if (className) wrapper.hidden = true;
      wrapper.appendChild(field);
      form.appendChild(wrapper);
    }
    const eager = element("label");
    const box = element("input");
    box.type = "checkbox";
    box.name = "enforce_eager";
    eager.append(box, " --enforce-eager");
    const button = element("button", null, "Calculate");
    button.type = "submit";
    form.append(eager, button);
    const out = element("div");
    out.id = "errorkb-memory-results";
    out.setAttribute("aria-live", "polite");
    container.replaceChildren(form, out);
    return [form, out];
  }

  function setUp() {
    const container = document.getElementById("errorkb-memory");
    if (!container || container.dataset.errorkbReady) return;
    container.dataset.errorkbReady = "1";
    const [form, out] = buildForm(container);
    const paste = form.querySelector(".errorkb-memory-paste");
    const custom = form.querySelector(".errorkb-memory-custom");
    function toggle() {
      paste.hidden = form.elements.model.value !== "paste";
      custom.hidden = form.elements.gpu.value !== "custom";
    }
    function run(event) {
      if (event) event.preventDefault();
      toggle();
      try {
        renderReport(out, calculate(readModel(form), readForm(form), "config.json"));
      } catch (error) {
        out.replaceChildren(element("p", "errorkb-message errorkb-error", error instanceof MemoryInputError ? error.message : "The calculation failed: " + error));
      }
    }
    load().then(
      () => {
        fillChoices(form);
        toggle();
        form.addEventListener("submit", run);
        form.addEventListener("change", toggle);
        form.dataset.errorkbLoaded = "1";
      },
      (error) => out.replaceChildren(element("p", "errorkb-message errorkb-error", "The calculator's data could not be loaded: " + error.message)),
    );
  }

  if (typeof document !== "undefined") {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
    else setUp();
    if (window.document$ && typeof window.document$.subscribe === "function") window.document$.subscribe(setUp);
  }
})();
