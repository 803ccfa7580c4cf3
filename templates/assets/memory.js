/*
 * errorkb memory calculator in the browser: will a model fit a GPU under the pinned vLLM,
 * and which memory error will it raise if not.
 *
 * A faithful port of generator/memory/ (read the docstrings of its model.py, kv.py, budget.py
 * and findings.py for which vLLM functions each step repeats). `calculate(config, settings)`
 * returns what `generator.memory.findings.calculate(config, settings).to_json()` returns;
 * tests/test_memory_browser.py runs the same vectors through both in headless Chromium.
 * Everything that is data rather than code travels in api/memory.json, written by
 * generator/memory/site_data.py when the site is built: the GPU table, the bundled model
 * configurations, and under "constants" every table, size, threshold, error id and message
 * the Python calculator has (the `shared_constants()` of its modules). Nothing of it is
 * copied here: `load()` (or `_setData`) must run before anything is calculated.
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

  /** str.format of a template from api/memory.json: "{name}" is str(value), "{name!r}" repr(value). */
  function fill(template, values) {
    return template.replace(/\{(\w+)(!r)?\}/g, (match, name, repr) => {
      if (!Object.prototype.hasOwnProperty.call(values || {}, name)) throw new Error("no value for " + match + " in " + JSON.stringify(template));
      return repr ? pyRepr(values[name]) : pyStr(values[name]);
    });
  }

  class MemoryInputError extends Error {}

  /** The MemoryInputError that K.input_errors[name] (settings.py's INPUT_ERRORS) says, with these values. */
  function inputError(name, values) {
    return new MemoryInputError(fill(K.input_errors[name], values));
  }

  // --- the data: api/memory.json ----------------------------------------------------------------

  let DATA = { gpus: [], models: {}, constants: null };
  let K = null; // DATA.constants: the Python calculator's tables, sizes, thresholds, ids and messages
  let GIB = 0;
  let SIZE = null;

  function useData(data) {
    DATA = data;
    K = data.constants;
    GIB = K.sizes.units.gib;
    // settings.py's _SIZE, from the same units
    SIZE = new RegExp("^\\s*(\\d+(?:\\.\\d+)?)\\s*(" + Object.keys(K.sizes.units).join("|") + ")?\\s*$", "i");
  }

  function requireData() {
    if (!K) throw new Error("errorkbMemory: the calculator's data (api/memory.json) is not loaded; call load() first");
  }

  // --- GPUs -----------------------------------------------------------------------------------

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
    throw inputError("unknown_gpu", { name, gpus: DATA.gpus.map((g) => g.name).join(", ") });
  }

  function parseSize(text) {
    requireData();
    const match = SIZE.exec(String(text));
    if (!match) throw inputError("size", { text: String(text) });
    const number = parseFloat(match[1]);
    let unit = (match[2] || "").toLowerCase();
    if (!unit) unit = number > K.sizes.bare_number_bytes_above ? "b" : K.sizes.bare_number_unit;
    return roundHalfEven(number * K.sizes.units[unit]);
  }

  // --- the settings ---------------------------------------------------------------------------

  function serveSettings(values) {
    const settings = {};
    const defaults = K.settings_defaults; // ServeSettings' fields and defaults (gpu_memory_bytes: 0)
    for (const key of Object.keys(defaults)) {
      settings[key] = values && values[key] !== undefined ? values[key] : defaults[key];
    }
    return settings;
  }

  function replace(settings, changes) {
    return Object.assign({}, settings, changes);
  }

  // --- the model ------------------------------------------------------------------------------

  // model.py's tables: K.model (the model families, config keys, defaults) and K.dtypes.

  function textConfig(config) {
    const inner = get(config, "text_config");
    let merged = isDict(inner) ? Object.assign({}, config, inner) : config;
    const aliases = get(K.model.attribute_maps, get(merged, "model_type"), null) || {};
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
      throw inputError("missing_key", { source, key, model_type: get(config, "model_type") });
    }
    return value;
  }

  function intOf(config, key, source) {
    const value = need(config, key, source);
    if (!isInt(value) || value <= 0) {
      throw inputError("not_positive_int", { source, key, value });
    }
    return value;
  }

  function modelTypeOf(config, source) {
    source = source || "config.json";
    if (!isDict(config)) throw inputError("not_object", { source });
    const modelType = get(config, "model_type");
    if (typeof modelType !== "string") {
      throw inputError("no_model_type", { source });
    }
    if (!K.model.supported.includes(modelType)) {
      throw inputError("unsupported_model", { source, model_type: modelType, supported: K.model.supported.join(", ") });
    }
    return modelType;
  }

  function headSize(cfg, source) {
    if (get(cfg, "kv_lora_rank") !== null && K.model.mla_models.includes(get(cfg, "model_type"))) {
      return intOf(cfg, "kv_lora_rank", source) + intOf(cfg, "qk_rope_head_dim", source);
    }
    if (isInt(get(cfg, "head_dim")) && cfg.head_dim > 0) return cfg.head_dim;
    return floorDiv(intOf(cfg, "hidden_size", source), intOf(cfg, "num_attention_heads", source));
  }

  function layerKinds(cfg, modelType, source) {
    const n = intOf(cfg, "num_hidden_layers", source);
    const repeat = (item) => Array.from({ length: n }, () => item);
    if (K.model.mamba1_models.includes(modelType)) return repeat(["mamba", null]);
    if (K.model.encoders.includes(modelType)) return [];
    if (K.model.mla_models.includes(modelType)) return repeat(["mla", null]);
    if (K.model.hybrids.includes(modelType)) {
      const types = get(cfg, "layer_types");
      if (!Array.isArray(types) || types.length !== n) {
        throw inputError("layer_types", { source, n });
      }
      return types.map((t) => (t === "mamba" ? ["mamba", null] : ["full", null]));
    }
    let window = get(cfg, "sliding_window");
    if (K.model.sliding_window_opt_in.includes(modelType) && !truthy(get(cfg, "use_sliding_window", false))) window = null;
    let types = get(cfg, "layer_types");
    if (types === null && modelType === "gemma2") {
      types = Array.from({ length: n }, (_, i) => ((i + 1) % 2 ? "sliding_attention" : "full_attention"));
    }
    if (types === null && window !== null && K.model.sliding_window_opt_in.includes(modelType)) {
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
    if (!(checkpoint in K.dtypes.dtype_bytes)) checkpoint = "float32";
    let chosen;
    if (dtype === "auto") chosen = K.dtypes.dtype_bytes[checkpoint] === 4 ? K.dtypes.auto_float32_to : checkpoint;
    else if (dtype in K.dtypes.dtype_bytes) chosen = dtype;
    else throw inputError("dtype", { dtype });
    chosen = get(K.dtypes.dtype_aliases, chosen, chosen);
    return [chosen, checkpoint];
  }

  function kvCacheDtypeBytes(kvCacheDtype, modelDtypeBytes) {
    if (kvCacheDtype === "auto") return modelDtypeBytes;
    if (!(kvCacheDtype in K.dtypes.kv_cache_dtype_bytes)) {
      throw inputError("kv_cache_dtype", { dtype: kvCacheDtype });
    }
    return K.dtypes.kv_cache_dtype_bytes[kvCacheDtype];
  }

  function mambaDtypeBytes(setting, modelDtypeBytes, name) {
    if (setting === "auto") return modelDtypeBytes;
    if (!(setting in K.dtypes.mamba_dtype_bytes)) throw inputError("mamba_dtype", { flag: name, dtype: setting });
    return K.dtypes.mamba_dtype_bytes[setting];
  }

  function divide(numerator, denominator, what, source) {
    if (numerator % denominator) {
      throw inputError("not_divisible", { source, what, numerator, tp: denominator });
    }
    return floorDiv(numerator, denominator);
  }

  function mambaState(cfg, modelType, tp, convBytes, ssmBytes, source) {
    if (K.model.mamba1_models.includes(modelType)) {
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
    const dtypeBytes = K.dtypes.dtype_bytes[dtype];
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
    const tied = truthy(get(cfg, "tie_word_embeddings", K.model.tied_by_default.includes(modelType)));
    const embedding = vocab * hidden * (tied ? 1 : 2);
    let other = hidden;
    let linear = 0;
    if (K.model.mamba1_models.includes(modelType)) {
      const inner = intOf(cfg, "intermediate_size", source);
      const state = intOf(cfg, "state_size", source);
      const rank = pyOr(get(cfg, "time_step_rank"), Math.ceil(hidden / 16));
      const kernel = intOf(cfg, "conv_kernel", source);
      const perLayerLinear = hidden * 2 * inner + inner * (rank + 2 * state) + rank * inner + inner * hidden;
      const perLayerOther = inner * kernel + inner * (truthy(get(cfg, "use_conv_bias", true)) ? 1 : 0) + inner + inner * state + inner + hidden;
      return { linear: n * perLayerLinear, embedding, other: other + n * perLayerOther };
    }
    if (K.model.biased_linear_models.includes(modelType)) {
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
        if (K.model.qkv_bias_models.includes(modelType) || truthy(get(cfg, "attention_bias"))) {
          other += heads * size + 2 * kvHeads * size;
        }
        if (K.model.qk_norm_models.includes(modelType)) other += 2 * size;
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
    if (K.model.qwen_moe_models.includes(modelType)) {
      const sparse = pyOr(get(cfg, "decoder_sparse_step", 1), 1);
      const dense = pyOr(get(cfg, "mlp_only_layers"), []).includes(index) || get(cfg, "num_experts", 0) === 0 || (index + 1) % sparse;
      if (truthy(dense)) return 3 * hidden * inter;
      const experts = cfg.num_experts, moe = cfg.moe_intermediate_size;
      const shared = pyOr(get(cfg, "shared_expert_intermediate_size"), 0);
      return experts * 3 * hidden * moe + hidden * experts + 3 * hidden * shared + (truthy(shared) ? hidden : 0);
    }
    if (K.model.mla_models.includes(modelType)) {
      const moeLayer = truthy(get(cfg, "n_routed_experts")) && index >= get(cfg, "first_k_dense_replace", 0) && index % get(cfg, "moe_layer_freq", 1) === 0;
      if (!moeLayer) return 3 * hidden * inter;
      const experts = cfg.n_routed_experts, moe = cfg.moe_intermediate_size;
      return experts * 3 * hidden * moe + hidden * experts + 3 * hidden * moe * pyOr(get(cfg, "n_shared_experts"), 0);
    }
    if (K.model.hybrids.includes(modelType)) {
      const experts = pyOr(get(cfg, "num_local_experts"), 0);
      const shared = pyOr(get(cfg, "shared_intermediate_size"), 0);
      return experts * 3 * hidden * inter + hidden * experts + 3 * hidden * shared;
    }
    return 3 * hidden * inter;
  }

  function visionParameters(config, modelType) {
    const vision = get(config, "vision_config");
    if (!K.model.qwen2_vl_models.includes(modelType) || !isDict(vision)) return 0;
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
    for (const name of K.model.max_len_keys) {
      const value = get(cfg, name);
      if (typeof value === "number" && (found === null || value < found)) {
        found = value;
        key = name;
      }
    }
    if (found === null) return [K.model.default_max_model_len, ""];
    const rope = pyOr(get(cfg, "rope_scaling"), get(cfg, "rope_parameters"));
    if (isDict(rope)) {
      const ropeType = pyOr(get(rope, "rope_type"), get(rope, "type"));
      if (!K.model.rope_types_already_scaled.includes(ropeType) && ropeType !== "default" && typeof get(rope, "factor") === "number") {
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
    const moeInter = pyOr(get(cfg, "moe_intermediate_size"), K.model.moe_intermediate_is_intermediate.includes(modelType) ? inter : 0);
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
    let blockSize = pyOr(settings.block_size, usesMla ? K.kv.mla_block_size : K.kv.default_block_size);
    const kernelMinimum = pyOr(settings.kernel_block_alignment, usesMla ? K.kv.mla_block_size : K.kv.default_block_size);
    const caching = settings.enable_prefix_caching !== null ? settings.enable_prefix_caching : true;
    const mode = mambas.length && attention.length && caching ? "align" : "none";
    let mambaPage = mambas.length ? Math.max(...mambas.map((l) => l.state_bytes)) : 0;
    if (mambas.length && attention.length) {
      const perToken = attention[0].bytes_per_token;
      let alignment = Math.max(kernelMinimum, blockSize);
      if (usesMla) alignment = Math.max(alignment, K.kv.mla_hybrid_alignment);
      let needed = alignment * ceilDiv(mambaPage, alignment * perToken);
      needed = kernelMinimum * ceilDiv(needed, kernelMinimum);
      blockSize = Math.max(blockSize, needed);
      mambaPage = blockSize * perToken;
    }
    let mambaBlockSize = null;
    if (mambas.length) mambaBlockSize = mode === "align" ? blockSize : maxModelLen;
    const specs = layers.map((layer) =>
      layer.kind === "mamba"
        ? cacheSpec("mamba", mambaBlockSize, attention.length ? mambaPage : layer.state_bytes, null, K.kv.mamba_blocks_per_request[mode])
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
    const groupSize = Math.max(...sizes) < Math.min(...sizes) * K.kv.group_size_ratio ? Math.max(...sizes) : Math.min(...sizes);
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

  // --- what vLLM takes before the KV cache (budget.py: K.budget) ---------------------------------

  function noQuantization(value) {
    return value === null || value === undefined || value === "" || value === "none";
  }

  function quantizationOf(facts, settings) {
    const bitsOf = K.budget.quantization_bits;
    let method = settings.quantization;
    const config = facts.quantization || {};
    if (noQuantization(method)) method = !truthy(settings.quantization) ? get(config, "quant_method") : null;
    if (noQuantization(method)) return [null, 0, 0];
    method = String(method).toLowerCase();
    if (!(method in bitsOf)) {
      throw inputError("quantization", { method, methods: Object.keys(bitsOf).sort().join(", ") });
    }
    let bits = isInt(get(config, "bits")) ? config.bits : bitsOf[method];
    if (method === "bitsandbytes") bits = truthy(get(config, "load_in_8bit")) ? 8 : 4;
    const group = isInt(get(config, "group_size")) && config.group_size > 0 ? config.group_size : K.budget.default_quantization_group_size;
    return [method, bits, group];
  }

  function weightsBytes(facts, dtypeBytes, settings) {
    const params = facts.parameters, tp = settings.tensor_parallel_size;
    const [method, bits, group] = quantizationOf(facts, settings);
    const numbers = { parameters: commas(parametersTotal(params)), dtype_bytes: dtypeBytes, method, bits, group };
    const sources = K.budget.reserve_sources;
    let linear, how;
    if (method === null) {
      linear = params.linear * dtypeBytes;
      how = fill(sources.weights, numbers);
    } else if (bits === 8) {
      linear = params.linear;
      how = fill(sources.weights_8_bits, numbers);
    } else {
      linear = ceilDiv(params.linear * (bits * group + 8 * dtypeBytes + bits), 8 * group);
      how = fill(sources.weights_grouped, numbers);
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
    const names = K.budget.reserve_names, sources = K.budget.reserve_sources;
    const items = [
      {
        name: names.weights,
        bytes: weights,
        estimate: facts.quantization !== null || !noQuantization(settings.quantization),
        source: how + (tp > 1 ? fill(sources.weights_split, { tp }) : ""),
      },
      {
        name: names.activations,
        bytes: activationBytes(facts, dtypeBytes, settings, maxNumBatchedTokens, maxNumSeqs),
        estimate: true,
        source: fill(sources.activations, { tokens: commas(maxNumBatchedTokens), seqs: maxNumSeqs }),
      },
      { name: names.non_torch, bytes: tp === 1 ? K.budget.non_torch_one_gpu : K.budget.non_torch_tensor_parallel, estimate: true, source: sources.non_torch },
    ];
    if (!settings.enforce_eager) items.push({ name: names.cuda_graphs, bytes: K.budget.cuda_graphs, estimate: true, source: sources.cuda_graphs });
    return items;
  }

  function defaultBatchLimits(gpuMemoryBytes, gpuName, maxModelLen, settings) {
    let tier = K.budget.batch_limits_otherwise;
    for (const candidate of K.budget.batch_limit_tiers) {
      if (gpuMemoryBytes >= candidate.min_gpu_memory_bytes && !candidate.except_gpu_names.some((name) => gpuName.toLowerCase().includes(name))) {
        tier = candidate;
        break;
      }
    }
    const seqs = tier.max_num_seqs, tokens = tier.max_num_batched_tokens;
    let chosenTokens = settings.max_num_batched_tokens;
    if (chosenTokens === null) chosenTokens = Math.min(pyOr(settings.max_num_seqs, seqs) * maxModelLen, tokens);
    let chosenSeqs = settings.max_num_seqs;
    if (chosenSeqs === null) chosenSeqs = Math.min(seqs, chosenTokens);
    return [chosenSeqs, chosenTokens];
  }

  function budgetFigures(layout, available, maxModelLen, derived, inFlight, autoFit) {
    const usable = available - layout.bytes_per_block;
    const figures = { bytes_per_block: layout.bytes_per_block, usable_bytes: usable };
    const largest = usable > 0 ? estimateMaxModelLen(layout, usable, derived, inFlight) : 0;
    figures.largest_max_model_len = largest;
    if (autoFit && largest > 0) maxModelLen = Math.min(largest, derived);
    figures.max_model_len = maxModelLen;
    const needed = requestBytes(layout, maxModelLen, inFlight);
    figures.request_bytes = needed;
    figures.request_blocks = requestBlocks(layout, maxModelLen, inFlight);
    if ((autoFit && largest <= 0) || usable <= 0 || needed > usable) return figures;
    const numBlocks = floorDiv(available, layout.bytes_per_block);
    const concurrency = numBlocks / figures.request_blocks;
    Object.assign(figures, { num_blocks: numBlocks, concurrency, tokens: Math.trunc(concurrency * maxModelLen) });
    return figures;
  }

  // --- the errors (findings.py: K.errors, by name: id, entry, message) ---------------------------

  function finding(name, numbers) {
    const known = K.errors[name];
    return { id: known.id, entry: known.entry, message: fill(known.message, numbers || {}), fixes: [] };
  }

  function isError(item, name) {
    return item.id === K.errors[name].id;
  }

  /** round(size / GIB, 2) as vLLM's format_gib prints it. */
  function formatGib(size) {
    return round2(size / GIB);
  }

  function budgetFindings(layout, figures, inFlight, autoFit, maxNumSeqs, enforceEager) {
    const usable = figures.usable_bytes, maxModelLen = figures.max_model_len;
    if (autoFit && figures.largest_max_model_len <= 0) return [finding("AUTO_FIT_IMPOSSIBLE")];
    if (usable <= 0) return [finding("NO_MEMORY_FOR_CACHE")];
    const needed = figures.request_bytes;
    if (needed > usable) {
      const estimate = estimateMaxModelLen(layout, usable, maxModelLen, inFlight);
      const hint = estimate > 0 ? fill(K.estimate_hint, { estimate }) : "";
      return [finding("KV_CACHE_TOO_SMALL", { max_model_len: maxModelLen, needed_gib: formatGib(needed), available_gib: formatGib(usable), estimate_hint: hint })];
    }
    const numBlocks = figures.num_blocks;
    const hasMamba = layout.specs.some((s) => s.kind === "mamba");
    if (hasMamba && !enforceEager && maxNumSeqs > numBlocks) {
      return [finding("MAMBA_BLOCKS_BELOW_MAX_NUM_SEQS", { max_num_seqs: maxNumSeqs, num_blocks: numBlocks })];
    }
    return [];
  }

  // --- the report -------------------------------------------------------------------------------

  function calculate(config, settingsIn, source, withFixes) {
    requireData();
    source = source || "config.json";
    withFixes = withFixes === undefined ? true : withFixes;
    const settings = serveSettings(settingsIn);
    const facts = modelFacts(config, source);
    const tp = settings.tensor_parallel_size;
    if (tp < 1) throw inputError("tensor_parallel_size");
    if (!(settings.gpu_memory_utilization > 0 && settings.gpu_memory_utilization <= 1)) {
      throw inputError("gpu_memory_utilization");
    }
    const errors = [];
    const derived = facts.derived_max_model_len;
    const autoFit = settings.max_model_len === -1;
    let maxModelLen = settings.max_model_len === null || settings.max_model_len === -1 ? derived : settings.max_model_len;
    if (maxModelLen < 1) throw inputError("max_model_len");
    if (settings.max_model_len !== null && settings.max_model_len !== -1 && settings.max_model_len > derived && facts.max_len_key) {
      errors.push(finding("MAX_MODEL_LEN_TOO_LONG", { max_model_len: settings.max_model_len, key: facts.max_len_key, derived }));
    }
    if (facts.num_attention_heads && facts.num_attention_heads % tp) {
      errors.push(finding("HEADS_NOT_DIVISIBLE", { heads: facts.num_attention_heads, tp }));
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
      Object.assign(budget, budgetFigures(layout, available, maxModelLen, derived, inFlight, autoFit));
      errors.push(...budgetFindings(layout, budget, inFlight, autoFit, maxNumSeqs, settings.enforce_eager));
      maxModelLen = budget.max_model_len;
    }
    return report(facts, settings, layers, layout, maxModelLen, errors, budget, limits, withFixes, config, source, dtypeBytes);
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
      for (const size of K.fix_tensor_parallel_sizes) {
        if (size > tp && (!heads || heads % size === 0)) candidates.push(["--tensor-parallel-size " + size, replace(settings, { tensor_parallel_size: size })]);
      }
    }
    function utilization() {
      const start = Math.floor(settings.gpu_memory_utilization * 100) + 1;
      for (let hundredths = start; hundredths <= K.fix_utilization_up_to_hundredths; hundredths++) {
        candidates.push(["--gpu-memory-utilization " + String(hundredths / 100), replace(settings, { gpu_memory_utilization: hundredths / 100 })]);
      }
    }

    if (isError(item, "MAX_MODEL_LEN_TOO_LONG")) {
      candidates.push(["--max-model-len " + derived, replace(settings, { max_model_len: derived })]);
    } else if (isError(item, "HEADS_NOT_DIVISIBLE")) {
      const sizes = K.dividing_tensor_parallel_sizes.slice().sort((a, b) => Math.abs(a - tp) - Math.abs(b - tp) || a - b);
      for (const size of sizes) {
        if (size !== tp && heads % size === 0) candidates.push(["--tensor-parallel-size " + size, replace(settings, { tensor_parallel_size: size })]);
      }
    } else if (isError(item, "KV_CACHE_TOO_SMALL")) {
      if ((budget.largest_max_model_len || 0) > 0) {
        candidates.push(["--max-model-len " + budget.largest_max_model_len, replace(settings, { max_model_len: budget.largest_max_model_len })]);
        candidates.push(["--max-model-len auto", replace(settings, { max_model_len: -1 })]);
      }
      if (settings.kv_cache_dtype === "auto" && result.model.dtype_bytes > 1 && result.model.attention_layers) {
        candidates.push(["--kv-cache-dtype fp8", replace(settings, { kv_cache_dtype: "fp8" })]);
      }
      utilization();
      parallel();
    } else if (isError(item, "NO_MEMORY_FOR_CACHE") || isError(item, "AUTO_FIT_IMPOSSIBLE")) {
      utilization();
      if (!settings.enforce_eager) candidates.push(["--enforce-eager", replace(settings, { enforce_eager: true })]);
      if (noQuantization(settings.quantization) && !truthy(get(facts.quantization || {}, "quant_method"))) {
        candidates.push(["--quantization fp8", replace(settings, { quantization: "fp8" })]);
      }
      parallel();
    } else if (isError(item, "MAMBA_BLOCKS_BELOW_MAX_NUM_SEQS")) {
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
          useData(data);
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
      useData(data); // for tests and for a page that has the data already
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

  const SVG = "http://www.w3.org/2000/svg";
  const CHART_COLOURS = { "model weights": "#5c6bc0", "activation peak": "#ffb74d", "CUDA graphs": "#ef6c00",
    "memory outside PyTorch": "#90a4ae", "KV cache": "#43a047", "free": "#e0e0e0", "short": "#e53935" };

  /** The GPU's memory as one stacked bar (weights, activations and CUDA graphs, other, KV cache, and
   * what --gpu-memory-utilization leaves free), with the table's figures as its legend. */
  function memoryChart(budget, settings) {
    const total = settings.gpu_memory_bytes;
    if (!total || budget.kv_cache_bytes_given || !budget.reserves) return null;
    const parts = budget.reserves.map((r) => [r.name, r.bytes]);
    const kv = budget.kv_cache_bytes || 0;
    if (kv > 0) parts.push(["KV cache", kv]);
    const used = parts.reduce((sum, [, bytes]) => sum + bytes, 0);
    const free = Math.max(0, total - Math.max(used, budget.requested_bytes || 0));
    if (free > 0) parts.push(["free", free]);
    const scale = Math.max(total, used);
    const figure = element("figure", "errorkb-memory-chart");
    const svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", "0 0 1000 40");
    svg.setAttribute("preserveAspectRatio", "none");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", "GPU memory: " + parts.map(([name, bytes]) => name + " " + gib(bytes)).join(", "));
    let x = 0;
    for (const [name, bytes] of parts) {
      const rect = document.createElementNS(SVG, "rect");
      const width = (1000 * bytes) / scale;
      rect.setAttribute("x", x.toFixed(2));
      rect.setAttribute("y", "0");
      rect.setAttribute("width", Math.max(width, 0).toFixed(2));
      rect.setAttribute("height", "40");
      rect.setAttribute("fill", CHART_COLOURS[name] || "#9e9e9e");
      rect.dataset.part = name;
      rect.dataset.bytes = String(bytes);
      const title = document.createElementNS(SVG, "title");
      title.textContent = name + ": " + gib(bytes);
      rect.appendChild(title);
      svg.appendChild(rect);
      x += width;
    }
    if (used > total) { // the reserves alone pass the GPU's memory: mark the end of the GPU
      const line = document.createElementNS(SVG, "rect");
      line.setAttribute("x", ((1000 * total) / scale - 2).toFixed(2));
      line.setAttribute("y", "0");
      line.setAttribute("width", "4");
      line.setAttribute("height", "40");
      line.setAttribute("fill", CHART_COLOURS.short);
      line.dataset.part = "end of the GPU";
      svg.appendChild(line);
    }
    figure.appendChild(svg);
    const legend = element("figcaption");
    for (const [name, bytes] of parts) {
      const item = element("span", "errorkb-memory-legend");
      const swatch = element("span", "errorkb-memory-swatch");
      swatch.style.background = CHART_COLOURS[name] || "#9e9e9e";
      item.append(swatch, name + " " + gib(bytes));
      legend.appendChild(item);
    }
    legend.appendChild(element("span", "errorkb-memory-legend", "of " + gib(total) + (used > total ? " (the reserves alone need " + gib(used) + ")" : "")));
    figure.appendChild(legend);
    return figure;
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
      if ((budget.kv_cache_bytes || 0) < 0) {
        // never a negative budget: what is left is nothing, and by how much the rest is short
        row(table, "= KV cache budget", "none", "the model does not fit: " + gib(-budget.kv_cache_bytes) + " short before any KV cache");
      } else {
        row(table, "= KV cache budget", gib(budget.kv_cache_bytes || 0), "");
      }
    }
    if (budget.num_blocks !== undefined) {
      row(table, "Tokens that fit", commas(budget.tokens), commas(budget.num_blocks) + " blocks of " + kv.block_size + " tokens");
      row(table, "Requests of " + commas(settings.max_model_len) + " tokens at once", budget.concurrency.toFixed(2), "max_model_len " + commas(settings.max_model_len));
    }
    if (budget.largest_max_model_len !== undefined) row(table, "Largest --max-model-len that fits", commas(budget.largest_max_model_len), "");
    nodes.push(table);
    const chart = memoryChart(budget, settings);
    if (chart) nodes.push(chart);
    const texts = K.report_texts; // the sentences errorkb memory prints too

    if (budget.weights_exceed_gpu) nodes.push(element("p", "errorkb-memory-warning", texts.weights_exceed_gpu));
    if (!result.errors.length) {
      nodes.push(element("p", "errorkb-memory-ok", "No known error: " + texts.no_error));
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
        ? fill(texts.fixes, { fixes: item.fixes.map((f) => fill(texts.fix, { flags: f.flags, kv_cache_tokens: commas(f.kv_cache_tokens) })).join("; ") })
        : texts.no_fix));
      nodes.push(block);
    }
    out.replaceChildren(...nodes);
  }

  /** A bad value, shown at its field. */
  class FieldError extends Error {
    constructor(field, message) {
      super(message);
      this.field = field;
    }
  }

  function number(form, name, { integer = true, min = 1, max = Infinity } = {}) {
    const text = form.elements[name].value.trim();
    if (text === "") return null;
    const value = Number(text);
    if (!/^[0-9]+(\.[0-9]+)?$/.test(text) || !Number.isFinite(value) || (integer && !Number.isInteger(value)) || value < min || value > max) {
      const what = integer ? "a whole number" : "a number";
      throw new FieldError(name, form.elements[name].closest("label").firstChild.textContent.trim() + " must be " + what +
        (max < Infinity ? " from " + min + " to " + max : " of at least " + min) + ", not \u201c" + text + "\u201d");
    }
    return value;
  }

  function readForm(form) {
    const settings = {};
    const gpu = form.elements.gpu.value;
    if (gpu === "custom") {
      const text = form.elements.gpu_memory.value.trim();
      let bytes = null;
      try {
        bytes = parseSize(text);
      } catch (error) {
        bytes = null;
      }
      if (!text || !(bytes > 0)) throw new FieldError("gpu_memory", "GPU memory must be a size such as 24GiB or 80GB" + (text ? ", not \u201c" + text + "\u201d" : ""));
      settings.gpu_memory_bytes = bytes;
    } else {
      const found = findGpu(gpu);
      settings.gpu_memory_bytes = gpuMemoryBytes(found);
      settings.gpu_name = found.name;
    }
    settings.gpu_memory_utilization = number(form, "gpu_memory_utilization", { integer: false, min: 0.01, max: 1 }) ||
      K.settings_defaults.gpu_memory_utilization;
    const length = form.elements.max_model_len.value.trim().toLowerCase();
    settings.max_model_len = length === "" ? null : length === "auto" ? -1 : number(form, "max_model_len");
    settings.max_num_seqs = number(form, "max_num_seqs");
    settings.kv_cache_dtype = form.elements.kv_cache_dtype.value;
    settings.dtype = form.elements.dtype.value;
    settings.quantization = form.elements.quantization.value || null;
    settings.tensor_parallel_size = number(form, "tensor_parallel_size", { max: 1024 }) || K.settings_defaults.tensor_parallel_size;
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
    // The page's own example (data-model, data-gpu, data-max-num-seqs on the container: a model
    // with a KV cache that meets this page's error), else the first bundled model with a KV cache.
    const wanted = form.parentElement.dataset;
    const withCache = Object.keys(DATA.models).find((name) => DATA.models[name].model_type !== "bert");
    models.value = wanted.model in DATA.models ? wanted.model : withCache || Object.keys(DATA.models)[0] || "paste";
    gpus.value = DATA.gpus.some((gpu) => gpu.name === wanted.gpu) ? wanted.gpu : DATA.gpus.length ? DATA.gpus[0].name : "custom";
    if (wanted.maxNumSeqs) form.elements.max_num_seqs.value = wanted.maxNumSeqs;
    for (const name of ["gpu_memory_utilization", "tensor_parallel_size"]) form.elements[name].placeholder = String(K.settings_defaults[name]);
  }

  // The form is built here, not shipped in every page's HTML: it only works with this script.
  const FIELDS = [
    ["error_paste", "Your error (optional: its numbers fill the fields)", "textarea", "Paste what vLLM printed: its numbers (max seq len, max_num_seqs, free memory, utilization) fill the fields below", "errorkb-memory-error-paste"],
    ["model", "Model", "select", [["paste", "Paste a config.json…"]]],
    ["config", "config.json", "textarea", '{"model_type": "llama", "num_hidden_layers": 32, ...}', "errorkb-memory-paste"],
    ["gpu", "GPU", "select", [["custom", "Other: give its memory…"]]],
    ["gpu_memory", "GPU memory", "input", "24GiB", "errorkb-memory-custom"],
    ["gpu_memory_utilization", "--gpu-memory-utilization", "input", ""], // placeholders: vLLM's defaults, once loaded
    ["max_model_len", "--max-model-len", "input", "the model's, or auto"],
    ["max_num_seqs", "--max-num-seqs", "input", "vLLM's default"],
    ["tensor_parallel_size", "--tensor-parallel-size", "input", ""],
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
          field.rows = name === "error_paste" ? 3 : 8;
          field.spellcheck = false;
        }
      }
      if (className && className !== "errorkb-memory-error-paste") wrapper.hidden = true; // shown for its choice only
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

  // What a pasted error says about the settings: vLLM's own wording in the memory errors.
  const FROM_PASTE = [
    ["max_model_len", /max seq len \((\d+)\)|max_model_len[ =(]+(\d+)|--max-model-len[ =](\d+)/i],
    ["max_num_seqs", /max_num_seqs \((\d+)\)|--max-num-seqs[ =](\d+)|max_num_seqs=(\d+)/i],
    ["gpu_memory_utilization", /GPU memory utilization \((0?\.\d+|1(?:\.0+)?)|gpu_memory_utilization[ =]+(0?\.\d+)|--gpu-memory-utilization[ =](0?\.\d+)/i],
    ["tensor_parallel_size", /tensor parallel size \((\d+)\)|--tensor-parallel-size[ =](\d+)|tensor_parallel_size=(\d+)/i],
    ["gpu_memory", /Free memory on device \S+ \([\d.]+\/([\d.]+) GiB\)/i],
  ];

  /** The settings a pasted error names, as {field: value}. */
  function numbersFromPaste(text) {
    const found = {};
    for (const [name, pattern] of FROM_PASTE) {
      const match = pattern.exec(text);
      if (match) found[name] = match.slice(1).find((group) => group !== undefined);
    }
    if (found.gpu_memory) found.gpu_memory += "GiB";
    return found;
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
    function clearFieldErrors() {
      for (const node of form.querySelectorAll(".errorkb-field-error")) node.remove();
      for (const field of form.elements) if (field.removeAttribute) field.removeAttribute("aria-invalid");
    }
    function run(event) {
      if (event && event.preventDefault) event.preventDefault();
      toggle();
      clearFieldErrors();
      try {
        const settings = readForm(form);
        const config = readModel(form);
        renderReport(out, calculate(config, settings, "config.json"));
      } catch (error) {
        if (error instanceof FieldError) {
          const field = form.elements[error.field];
          field.setAttribute("aria-invalid", "true");
          field.closest("label").appendChild(element("span", "errorkb-field-error", error.message));
          out.replaceChildren(element("p", "errorkb-message errorkb-error", "Fix the value marked above: " + error.message));
        } else {
          out.replaceChildren(element("p", "errorkb-message errorkb-error", error instanceof MemoryInputError ? error.message : "The calculation failed: " + error));
        }
      }
    }
    let pending = null;
    function soon() { // results follow the typing, a moment after the last key
      clearTimeout(pending);
      pending = setTimeout(run, 250);
    }
    const note = element("p", "errorkb-memory-from-paste");
    note.setAttribute("aria-live", "polite");
    form.elements.error_paste.closest("label").after(note);
    function readPaste() {
      const found = numbersFromPaste(form.elements.error_paste.value);
      const names = Object.keys(found);
      if (found.gpu_memory) form.elements.gpu.value = "custom";
      for (const name of names) form.elements[name].value = found[name];
      note.textContent = names.length
        ? "Read from your error: " + names.map((name) => (name === "gpu_memory" ? "GPU memory" : "--" + name.replace(/_/g, "-")) + " " + found[name]).join(", ") + ". Pick the model and GPU you ran."
        : form.elements.error_paste.value.trim() ? "No setting found in it; fill the fields below." : "";
    }
    load().then(
      () => {
        fillChoices(form);
        toggle();
        form.addEventListener("submit", run);
        form.addEventListener("change", () => { toggle(); soon(); });
        form.addEventListener("input", (event) => {
          if (event.target === form.elements.error_paste) readPaste();
          soon();
        });
        form.dataset.errorkbLoaded = "1";
        run();
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
