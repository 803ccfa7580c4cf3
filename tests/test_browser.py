"""The browser lookup (templates/assets/lookup.js) in a real headless Chromium.

The site is built from the corpus (v0.33.0), served over HTTP under a sub-path, and
the page's ``window.errorkb`` must give the answers of the Python matcher: the shared
vectors, every real paste (top 3, scores and all), and pastes made to hit the places
where Python and JavaScript differ (code points vs UTF-16, Unicode regex classes,
HTML entities, rounding).
"""

from __future__ import annotations

import functools
import json
import random
import re
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from generator.lookup.clean import clean_paste
from generator.lookup.index import INDEX_SCHEMA_VERSION, rules
from generator.lookup.match import STOP_GRAM_ENTRIES

ROOT = Path(__file__).resolve().parents[1]
LOOKUP_JS = ROOT / "templates" / "assets" / "lookup.js"
DATA = ROOT / "tests" / "data"
VECTORS = json.loads((DATA / "lookup_vectors.json").read_text(encoding="utf-8"))
PASTES = sorted((DATA / "pastes").glob("*.json"))
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
BASE = "site"  # built to <tmp>/site and served from <tmp>: the site lives under /site/, not at the root

ATTENTION = "Total number of attention heads ({}) must be divisible by tensor parallel size ({})."
MAMBA = (
    "max_num_seqs (256) exceeds available Mamba cache blocks (128). Each decode sequence requires one Mamba "
    "cache block, so CUDA graph capture cannot proceed. Please lower max_num_seqs to at most 128 or increase "
    "gpu_memory_utilization."
)

# Pastes that exercise the differences between Python and JavaScript.
EDGE_PASTES = {
    # a wrapper cut right after its value, a whole message of vLLM's inside it (match.py: value_to_line_end)
    "a wrapper whose value is all of a short message": (
        "RuntimeError: Worker failed with error 'Hidden size mismatch', please check the stack trace above for the root cause"),
    "a wrapper cut after the message it holds": "RuntimeError: Worker failed with error 'Some layers are not assigned to any group.'",
    # a reason a message gives, quoted alone (match.py: reasons, tried when no message matches)
    # a line that begins inside a message, its opening cut off (match.py: _head_cut_off)
    "a message whose opening is cut off": "ValueError: ...frames to RGB before preprocessing: whether the alpha is straight or "
                                           "premultiplied is not recoverable from a bare frame array, so it cannot be composited correctly here.",
    # a word of the message's opening left out after its type (match.py: _opening_reworded)
    "a message with a word of its opening left out": "ValueError: trace_decode_token_ids not supported with prompt_logprobs.",
    # a paste that names vLLM nowhere (foreign.py: unmatched_unnamed)
    "a paste that names vLLM nowhere": "Please set `use_tensor_cores=True` in BatchDecodeWithPagedKVCacheWrapper for group size 3\n",
    # a traceback that ends in a file of no package and none of vLLM's (foreign.py: frame_outside_vllm)
    "a traceback that ends outside vLLM": ('Traceback (most recent call last):\n  File "C:\\Users\\u\\ms-swift\\swift\\llm\\base.py", '
                                           "line 1107, in _swift_encode\n    assert query_role in ('user', 'tool')\nquery_role: tool_call"),
    # a tool's prefix on every line, read off before vLLM's header (clean.py: COLLECTOR_PREFIX,
    # and DOCKER_COMPOSE_PREFIX for a container's own name); the first one wraps at the terminal
    "a container's own name before every line": "\n".join("vllm-server  | " + line for line in (
        "(EngineCore_DP0 pid=1) ERROR 12-01 10:00:00 [core.py:88] EngineCore failed to start.",
        "(EngineCore_DP0 pid=1) ERROR 12-01 10:00:00 [core.py:88] Traceback (most recent call last):",
        "(EngineCore_DP0 pid=1) ERROR 12-01 10:00:00 [core.py:88] ValueError: " + ATTENTION.format(28, 8)[:40])) + "\n" + ATTENTION.format(28, 8)[40:],
    "kubectl's prefix before every line": "\n".join("[pod/vllm-0/vllm] " + line for line in (
        "WARNING 12-01 10:00:00 [config.py:1] Casting torch.bfloat16 to torch.float16.", "0: x", "ERROR    | y")),
    # the user's ellipsis for words left out of the message's middle (match.py: _elided_between)
    # a report of a failure printed twice, by two workers: a copy above is no foreign failure (match.py)
    "a report printed by two workers": "(VllmWorker TP0 pid=100) RuntimeError: Engine core initialization failed. See root cause above. "
    "Failed core proc(s): {'EngineCore_0': 1}\n(VllmWorker TP1 pid=101) RuntimeError: Engine core initialization failed. See root "
    "cause above. Failed core proc(s): {'EngineCore_0': 1}",
    "a failure above a report printed twice": "PermissionError: [Errno 13] Permission denied: '/root/.cache'\nRuntimeError: Engine "
    "core initialization failed. See root cause above.\nRuntimeError: Engine core initialization failed. See root cause above.",
    # a quote that leaves out the middle of a message, its first and last words whole: a near match (match.py)
    "the middle of a message left out": "ValueError: max_num_seqs (256) CUDA graph capture cannot proceed. Please lower max_num_seqs to "
    "at most 128 or increase gpu_memory_utilization.",
    "an ellipsis for words left out": "ValueError: Total number of attention heads (28)... tensor parallel size (8).",
    "an ellipsis inside a chunk": "ValueError: Total number of attention heads (28) must be... parallel size (8).",
    "an ellipsis, then a sentence without its stop": "exceeds available Mamba cache blocks (95)... CUDA graph capture cannot proceed",
    "an ellipsis after a value for words left out": "[Bug]: ValueError: Total number of attention heads (28\u2026 parallel size (8).",
    "a blob that names vLLM nowhere": "ab_c 1234567890 1234567890 1234567890 de fg\n" + "\ufffd use_tensor_cores=True in BatchDecode\n",
    "a reason alone": "[Bug]: Gemma on SM120 fails: attention sinks not supported by every compatible backend",
    "a reason worded by its message": "[Bug]: ExllamaLinearKernel cannot implement due to: Group size (32) does not evenly divide the number of input features (4304)",
    "escaped surrogate pair and lone half in a JSON body": '{"message": "\\ud83d\\ude80 \\udc00 ValueError: ' + ATTENTION.format(28, 8) + '"}',
    "template opening with a quoted hole": "TypeError: x\nValueError: `a.b` must be a mapping of names to values",
    # values that open or close a message: read from the paste, for the page
    "opening value after a tag": "[Bug]: sharegpt4v🚀 is not a supported multimodal dataset when running vllm bench serve",
    "opening value in quotes": "NotImplementedError: `ray🚀` does not support async scheduling yet.",
    "closing value in a JSON body": '{"object":"error","message":"Invalid backend for piecewise compilation: \\ud83d\\ude80x","type":"BadRequestError","param":null,"code":400}',
    "closing value in a Python repr": "Exception: RuntimeError('Invalid backend for piecewise compilation: eager')",
    "closing value before pydantic's report": "  Value error, Invalid backend for piecewise compilation: eager [type=value_error, input_value={}, input_type=dict]",
    "closing value before Ray's count": "(EngineCore pid=1) ValueError: Invalid backend for piecewise compilation: eager [repeated 7x across cluster]",
    "closing value in a Markdown fence": "ValueError: Invalid backend for piecewise compilation: ```",
    "closing value in a quote left open, before Ray's count": "ValueError('Invalid backend for piecewise compilation: eager [repeated 7x across cluster]",
    "last value before the closing stop": "ValueError: input.dtype needs to be fp16 or bf16 but got torch.float32🚀.",
    "last value before the user's next sentence": "ValueError: input.dtype needs to be fp16 or bf16 but got fp32. Please help.",
    "quote-only segment at the end": "AttributeError: 'Foo' object has no attribute 'bar'",
    "emoji before the message": "🚀🚀 done 🚀\nValueError: " + ATTENTION.format(28, 8),
    # 6 inserted code points cost 3 (12 UTF-16 units would cost 6); 15 lie within WINDOW (30 units would not)
    "emoji between chunks": "ValueError: Total number of 😀😀😀 😀😀😀 attention heads (28) must be divisible by tensor parallel size (8).",
    "emoji at the edge of the window": "ValueError: Total number of " + "😀" * 15 + " attention heads (28) must be divisible by tensor parallel size (8).",
    "emoji breaking a chunk": "ValueError: Total number of attention 😀😀😀 heads (28) must be divisible 😀 by tensor parallel size (8).",
    "astral value": "ValueError: " + ATTENTION.format("𝟐𝟖 🚀", 8),
    "json surrogate escapes": "{\\\"detail\\\": \\\"ValueError: Total number of \\ud83d\\ude80\\ud83d\\ude80 attention heads (28\\ud83d\\ude80) must be divisible by tensor parallel size (8).\\\"}",
    "html entities": "ValueError: " + MAMBA.replace("(", "&#40;").replace(".", "&period;").replace("max", "m&#x61;x"),
    "named entities without semicolons": "ValueError: &notit; &ampx &AElig &Afr; " + ATTENTION.format("&lt;28&gt;", "&#128;8"),
    "astral entity": "ValueError: " + ATTENTION.format("&Afr;&#x1D4D0;", 8),
    "unicode whitespace and digits": "\x85[rank٣]: ValueError: " + ATTENTION.format(28, 8) + "\u2028\u3000trailing",
    "feff is not whitespace to python": "\ufeff[rank0]: ValueError: " + ATTENTION.format(28, 8),
    "ansi after a letter": "é[31mValueError: " + ATTENTION.format(28, 8) + "[0m",
    "truncated with emoji": "🚀 ValueError: Total number of attention heads (28) must be divisible by tensor par",
    "reworded": "ValueError: Total number of heads (28) must be divisible by tensor parallel size (8).",
    # coverage 13/16 = 0.8125: round() gives 0.812 (half to even), not 0.813
    "half-even rounding": "ValueError: No IOProcessor plugins installed but one is re",
    "huge emoji paste": "🚀" * 150_000 + "\nValueError: " + ATTENTION.format(28, 8),
    # 900 distinct astral symbols in two pastes: more than there are slots for at once
    "many distinct symbols": "".join(map(chr, range(0x1F300, 0x1F300 + 500))) + "\nValueError: " + ATTENTION.format("🟢 28", 8),
    "many more distinct symbols": "".join(map(chr, range(0x1F900, 0x1F900 + 400))) + "\nValueError: " + ATTENTION.format("🟠 28", 8),
    "deseret capitals": "𐐀𐐁 ValueError: " + ATTENTION.format("𐐀", 8),
    "sigma": "ΟΔΟΣ ValueError: " + ATTENTION.format("ΑΣ", 8),
    "dotted capital i": "İİİ ValueError: " + ATTENTION.format("İ28", 8),
    "raise without a message": (
        "Traceback (most recent call last):\n"
        '  File "/opt/venv/lib/python3.12/site-packages/vllm/v1/engine/core_client.py", line 195, in profile\n'
        "    raise NotImplementedError\n"
        "NotImplementedError"
    ),
    # round 54's rules: another package's Python warning, a logger header naming a module, a
    # fork's raise in a function that no release raises in, and one that only an older release has
    "python warning of another package": ("<frozen importlib._bootstrap_external>:1301: FutureWarning: The cuda.cudart module is "
                                          "deprecated and will be removed in a future release, please switch to use cuda.bindings."),
    "logger header naming a module": ("2025-04-14:10:53:14,506 WARNING  [lm_eval.models.vllm_causallms:109] You might experience "
                                      "occasional issues with model weight downloading when data_parallel is in use."),
    "a plugin's warning in vLLM's log format": ("(StageEngineCoreProc pid=169460) WARNING 05-06 02:07:54 [gpu_model_runner.py:1147] "
                                               "additional_information on scheduled_cached_reqs 🚀 is deprecated, use model_intermediate_buffer"),
    "a native backtrace under vLLM's error header": ("(EngineCore_DP0 pid=280) ERROR 07-15 10:48:46 core.py:1033] backtrace:\n"
                                                     "(EngineCore_DP0 pid=280) ERROR 07-15 10:48:46 core.py:1033]  --- "
                                                     "/opt/tt-metal/build/lib/libtt_metal.so(+0xc1e74a) [0x7efb7391d74a]"),
    "python's suggestion after its own words": ("AttributeError: module 'jax.experimental.pallas.tpu' has no attribute 'TPUMemorySpace'.\n"
                                                "Did you mean: 'MemorySpace'?"),
    "a fork's raise": (
        '  File "/wm/vllm-fork/vllm/worker/model_runner_base.py", line 233, in prepare_model_input_align_worker\n'
        "    raise NotImplementedError\n"
        "NotImplementedError"
    ),
    "a fork's raise in a file the pin has": (
        '  File "/wm/vllm-fork/vllm/v1/engine/core_client.py", line 233, in prepare_model_input_align_worker\n'
        "    raise NotImplementedError(\n"
        "NotImplementedError: the fork's warm-up does not know this model"
    ),
    "a raise only an older release has": (
        '  File "/env/lib/python3.8/site-packages/vllm/transformers_utils/tokenizer.py", line 42, in get_tokenizer\n'
        "    raise RuntimeError(err_msg) from e\n"
        "RuntimeError: Failed to load the tokenizer. If you are using a LLaMA-based model, use another tokenizer"
    ),
    "foreign frame": (
        "Traceback (most recent call last):\n"
        '  File "/opt/venv/lib/python3.12/site-packages/transformers/models/auto/configuration_auto.py", line 1, in f\n'
        "KeyError: 'qwen9'"
    ),
    "a word changed in a message's first words": "AssertionError: libcudart.so is not loaded in the current process",
    "a type alone under a frame that asserts with words elsewhere": (
        '  File "/x/site-packages/vllm/model_executor/layers/linear.py", line 1113, in weight_loader\n'
        "    assert param_data.shape == loaded_weight.shape\n"
        "AssertionError"
    ),
    # the rules of the last rounds, each on a path the real pastes may not take
    "exception type of another package": "httpx.ConnectError: [Errno -2] Name or service not known",
    "python's own wording without its raise": "AttributeError: 'Qwen3Config' object has no attribute 'rope_scaling_factor'",
    "short message with values as a whole line": "WARNING 08-22 16:28:32 config.py:710] Casting torch.bfloat16 to torch.float16.",
    "short message with values inside a sentence": "We kept Casting torch.bfloat16 to torch.float16. and then it crashed",
    "access log line": 'INFO:     10.0.0.1:52846 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error',
    "vllm's wrapper raised with its own type": "RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)",
    "a wrapper quoting the foreign error": (
        "RuntimeError: Worker failed with error 'CUDA error: no kernel image is available for execution on the device', "
        "please check the stack trace above for the root cause"
    ),
    "a log line repeating vllm's message": (
        "RuntimeError: Error in model execution (input dumped to /tmp/e.pkl): FlashAttention only supports Ampere GPUs or newer.\n"
        "ERROR 01-11 13:09:40 engine.py:366] Error in model execution (input dumped to /tmp/e.pkl): FlashAttention only supports Ampere GPUs or newer."
    ),
    "oom with vllm frame": (
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3/site-packages/vllm/worker/gpu_worker.py", line 200, in determine_available_memory\n'
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
    ),
    # a pager's "^M" for each carriage return, and a log format with a pid where vLLM's has a date
    "caret-m line ends under another log format": (
        '2024-12-19 21:40:35 ERROR 56542 [async_llm_engine.py:64]   File "/opt/conda/lib/python3.8/site-packages/vllm/worker/model_runner_base.py", line 146, in _wrapper^M\n'
        '2024-12-19 21:40:35 ERROR 56542 [async_llm_engine.py:64]     raise type(err)(f"Error in model execution: "^M\n'
        "2024-12-19 21:40:35 ERROR 56542 [async_llm_engine.py:64] RuntimeError: Error in model execution: CUDA error: an illegal memory access was encountered^M"
    ),
    "a wrapped log line quoting a foreign error": (
        "ERROR 10-17 04:46:12 [gpt_oss_triton_kernels_moe.py:40] Failed to import Triton kernels. Please mak\n"
        "e sure your triton version is compatible. Error: No module named 'triton_kernels.tensor'"
    ),
    "a short message whose last word the paste makes longer": "The worker is crashed unexpectedly due to other unexpected errors.",
    "a flattened frame and its raise with no message": 'File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/quantization/base_config.py", line 55, in tie_weights     raise NotImplementedError',
    "a raise's frame and its message as an older release worded it": (
        '  File "/x/site-packages/vllm/transformers_utils/tokenizer.py", line 42, in get_tokenizer\n    raise RuntimeError(err_msg) from e\n'
        "RuntimeError: Failed to load the tokenizer. If you are using a LLaMA-based model, use 'hf-internal-testing/llama-tokenizer' instead."
    ),
    "a raise's frame and a message cut after its parenthesis": (
        '  File "/x/site-packages/vllm/model_executor/layers/quantization/compressed_tensors/compressed_tensors.py", line 354, in _check_scheme_supported\n'
        "    raise RuntimeError(\nRuntimeError: ("
    ),
    "a word added inside a chunk": "ValueError: max_num_seqs (256) exceeds the available Mamba cache blocks (128).",
    "a word changed inside a chunk": "ValueError: Total number of attention heads (28) should be divisible by tensor parallel size (8).",
    "another server's message with a chunk of vllm's changed": "Error code: 400 - {'code': 20015, 'message': 'length of prompt_tokens (70462) must be less than max_seq_len (65536).', 'data': None}",
    "another package's exception type": "jax.errors.JaxRuntimeError: INVALID_ARGUMENT: MemoryStats is only supported for addressable PjRt devices.",
    "a chunk reworded right after a value": "ValueError: Model architectures ['LlamaForCausalLM'] are not thing for now. Supported architectures: ['A', 'B']",
    "a short message inside a near whole one": (
        "WARNING 05-01 10:00:00 [custom_all_reduce.py:1] Custom allreduce is disabled because your platform lacks GPU P2P "
        "capability or P2P test thing. To silence this warning, specify disable_custom_all_reduce=True explicitly."
    ),
    "a nearly whole failure before its report": (
        "RuntimeError: DeepGEMM backend is not available or outdated. Please install or thing the `deep_gemm` to a newer "
        "version to enable FP8 kernels.\nERROR 01-01 00:00:00 [core.py:1] EngineCore failed to start."
    ),
    "python's own words where a template begins alike": "AttributeError: module 'trl.scripts.vllm_serve' has no attribute 'WeightSyncWorkerExtension'",
    "a few words of a message mid-sentence": "ERROR 03-05 12:36:31 [core.py:1006] hip runtime failed to load.",
    "a warning above an exception logged as its repr": (
        "WARNING 06-24 19:02:15 [api_server.py:816] To indicate that the rerank API is not part of the standard OpenAI API, we have "
        "located it at `/rerank`. Please update your client accordingly. (Note: Conforms to JinaAI rerank API)\n"
        "ERROR 06-24 19:02:15 [engine.py:165] AttributeError(\"'Qwen2ForCausalLM' object has no attribute 'pooler'\")"
    ),
    "a short message without its full stop": "The model `Qwen1.5-14B-Chat-GPTQ-Int8` does not exist",
    "a quoted value with other words after it": (
        "(ActorModelRayActor pid=8249) Refer to the documentation on how to address the out of memory issue: "
        "https://docs.ray.io/en/latest/ray-core/scheduling/ray-oom-prevention.html. To disable worker killing, set the "
        "environment variable `RAY_memory_monitor_refresh_ms` to zero."
    ),
    "a few words then a value over lines": (
        'lmstudio returned: Engine protocol predict request returned 400:\n{"error":{"code":400,"message":"Unable to generate '
        "parser for this template.\nAutomatic parser generation failed: While executing CallExpression at line 79,\ncolumn 24 "
        "in source: ...multi_step_tool %}  {{- raise_exception('No user"
    ),
    "a cut message of several releases": "vllm.engine.async_llm_engine.AsyncEngineDeadError: Task finished unexpectedly.",
    "a longer message reworded": "RuntimeError: Engine process failed to start. See the trace for the root cause.",
    "a raised report after a near failure": (
        "RuntimeError: DeepGEMM backend is not available or outdated. Please install or renew the `deep_gemm` to a newer "
        "version to enable FP8 kernels.\nRuntimeError: Engine core initialization failed. See root cause above. "
        "Failed core proc(s): {'EngineCore_DP0': 1}"
    ),
    "torch_npu's error header": "(EngineCore_DP0 pid=2011231) ERROR 11-20 20:48:03 [core.py:708] [ERROR] 2025-11-20-20:48:03 (PID:2011231, Device:0, RankID:-1) ERR00007 PTA feature not supported",
    "a long message cut after its opening": "ValueError: To serve at least one request with the model's m",
    "a message cut by the user's ellipsis": "Qwen3.6-27B int4 inference: ValueError: Fused module 'language_model.model.layers.0.mlp.gate_up_proj' ...",
    "the same without the ellipsis": "Qwen3.6-27B int4 inference: ValueError: Fused module 'language_model.model.layers.0.mlp.gate_up_proj'",
    "another program's Python logging warning": "__main__ - WARNING - Attempt 287: Please wait for vllm server to become ready...",
    "a message cut short after its type named in vLLM's package": "vllm.exceptions.VLLMValidationError: top_p must be in (0,",
    "a message cut inside a word of its opening": "RuntimeError: Engine proce",
    "a message cut inside a word after its opening": "(EngineCore pid=1) ERROR [core.py:1] ValueError: The decoder prompt (lengt\n",
    "a message cut at a word's end": "ValueError: The decoder prompt",
    "a flag's dash made typographic by a blog": 'Error code: 400 - \u201cauto\u201d tool choice requires \u2014enable-auto-tool-choice and \u2014tool-call-parser to be set',
    "a first sentence then a question of one's own": "Model architectures ['GlmForCausalLM'] are not supported for now. Any idea how to fix this?",
    "an exception group's traceback": (
        "  + Exception Group Traceback (most recent call last):\n  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)\n"
        "  +-+---------------- 1 ----------------\n    | Traceback (most recent call last):\n"
        '    |   File "/x/vllm/entrypoints/openai/serving_chat.py", line 9, in create_chat_completion\n'
        '    | ValueError: "auto" tool choice requires --enable-auto-tool-choice and\n    | --tool-call-parser to be set\n    +-----------'),
    "a JSON logger's records": (
        '{"asctime": "2025-06-01 10:00:00", "levelname": "ERROR", "message": "Error in chat completion stream generator.", '
        '"exc_info": "Traceback (most recent call last):\\n  File \\"/x/vllm/a.py\\", line 3, in f\\nValueError: max_num_seqs (256) '
        'exceeds available Mamba cache blocks (128)."}'),
    "a double-spaced log with a launcher's prefix": (
        "[pod/vllm-0/vllm] (EngineCore_DP0 pid=316) ERROR 11-04 18:02:56 [core.py:1] EngineCore failed to start.\n\n"
        "[pod/vllm-0/vllm] (EngineCore_DP0 pid=316) ERROR 11-04 18:02:56 [core.py:1] Traceback (most recent call last):\n\n"
        '[pod/vllm-0/vllm] (EngineCore_DP0 pid=316) ERROR 11-04 18:02:56 [core.py:1]   File "/x/vllm/v1/core/kv_cache_utils.py", line 3, in f\n\n'
        "[pod/vllm-0/vllm] (EngineCore_DP0 pid=316) ERROR 11-04 18:02:56 [core.py:1] ValueError: No available memory for the cache blocks. "
        "Try increasing `gpu_memory_utilization` when initializing the engine."),
    "a bare raise, then the person's question": (
        '  File "/x/vllm/model_executor/layers/quantization/base_config.py", line 55, in tie_weights\n    raise NotImplementedError\n\n'
        "How can I fix this? Any help is appreciated.\nThanks in advance!"),
    "a bare raise in an issue's form": (
        "### 🐛 Describe the bug\n\nI start the server and get:\n\n```\n"
        '  File "/x/vllm/model_executor/layers/quantization/base_config.py", line 55, in tie_weights\n    raise NotImplementedError\n'
        "```\n\n### Before submitting a new issue...\n\n- [x] Make sure you already searched for relevant issues, and asked the "
        "chatbot living at the bottom right corner of the [documentation page](https://docs.vllm.ai/en/latest/)."),
    "the person's question after a long paste": "🚀" * 5000 + "\nValueError: x\n\nAny idea? 🚀\nThanks!",
    "a message cut short, then the shutdown's noise": (
        "ValueError: No available memory for the cache blocks\n/usr/lib/python3.10/multiprocessing/resource_tracker.py:224: UserWarning: "
        "resource_tracker: There appear to be 1 leaked semaphore objects to clean up at shutdown\n  warnings.warn('resource_tracker: There appear to be %d '"),
    "the shutdown's noise alone": "```\ndestroy_process_group() was not called before program exit\n```",
    "a message the user cut, then a line break": "Qwen3.6-27B int4 inference: ValueError: Fused module 'language_model.model.layers.0.mlp.gate_up_proj' ...\n\n",
    "a message in Markdown's strong emphasis": "**Model architectures ['GlmForCausalLM'] are not supported for now.**",
    "a title in strong emphasis whose words run on": "**Aborted due to the lack of CPU swap space, but there is enough RAM and swap**",
    "a traceback copied with no-break spaces": '\u00a0 File "/x/vllm/v1/engine/core.py",\u00a0line 3, in f\n\u00a0\u00a0\u00a0 raise\u00a0EngineDeadError()\nvllm.v1.engine.exceptions.EngineDeadError:\u202fEngineCore encountered an issue',
    "a title quoting a first sentence that ends in words after a value": "[Bug]: ValueError: This model's maximum context length is 131072 tokens on my 8 GPUs",
    "a message opening mid-line with its capital": "[ERROR]Generate embedding error This model's maximum context length is 8192 tokens. However, you requested 0 output tokens and your prompt contains at least 8193 input tokens PaddleOCR",
    "a message whose capital word is written small mid-line": "Previous response with id 'resp_06a5' not found.",
    "a statement of what is wrong in words of no failure": "The number of Falses in the mask is not a multiple of the chunk size.",
    "an error logged with its traceback under it": "ERROR 07-02 08:52:02 [serving_chat.py:883] Error in chat completion stream generator.\nERROR 07-02 08:52:02 [serving_chat.py:883] Traceback (most recent call last):\nERROR 07-02 08:52:02 [serving_chat.py:883]   File \"/x/vllm/engine/multiprocessing/client.py\", line 686, in f\nERROR 07-02 08:52:02 [serving_chat.py:883]     raise request_output\nERROR 07-02 08:52:02 [serving_chat.py:883] RuntimeError: Failed to apply Qwen2_5OmniProcessor on data={'text': '<|VIDEO|>', 'videos': [array([[[[142, 128,  99],",
    "an error logged above a traceback shown in part": (
        "(EngineCore_DP0 pid=669) ERROR 11-17 00:53:02 [multiproc_executor.py:230] Worker proc VllmWorker-0 died unexpectedly, "
        "shutting down executor.\n...\nFile \"/x/vllm/v1/engine/core.py\", line 228, in _initialize_kv_caches\n"
        "  available_gpu_memory = self.model_executor.determine_available_memory()\n...\n"
        "RuntimeError: Worker failed with error 'This flash attention build does not support headdim not being a multiple of 32.'"
    ),
    "a wrapper around a few words that fit a template": (
        "RuntimeError: Worker failed with error 'Invalid thread config: thread_m_blocks = 1, thread_k = -1 for MKN = "
        "[2048, 5472, 4096]', please check the stack trace above for the root cause"
    ),
    "a message grown past the one the raising frame names": (
        '  File "/x/site-packages/vllm/v1/executor/multiproc_executor.py", line 185, in collective_rpc\n'
        "    raise RuntimeError(\nRuntimeError: Worker failed with error 'at 1:0:"
    ),
    "a value that another program's words name": "AssertionError: rollout world_size: 1 is not divisible by infer_tp: 2",
    "a value opening vLLM's message after a prefix": "(Worker pid=1027546) AssertionError: 32001 is not divisible by 8 [repeated 7x across cluster]",
    "a value opening vLLM's message in a client's error body": (
        "openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': '32001 is not divisible by 8', 'type': "
        "'BadRequestError', 'param': None, 'code': 400}"),
    "... after words of a script without spaces": "运行时报错：AssertionError: 32001 is not divisible by 8，请问怎么解决",
    "... in a quote in a sentence": 'I get "AssertionError: 32001 is not divisible by 8" when starting',
    "... in the newer envelope": "Error code: 400 - {'error': {'message': '32001 is not divisible by 8', 'type': 'BadRequestError'}}",
    "an exception above vLLM's report of a failure above": (
        "PermissionError: [Errno 13] Permission denied: '/app/.cache/vllm'\n"
        "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {'EngineCore_DP0': 1}"
    ),
    "a title quoting a first sentence that ends with a number": "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0 on my V100",
    "a title quoting a first sentence that ends with a unit in brackets": (
        "[Bug]: Free memory on device (7.34/139.72 GiB) on startup is less than desired GPU memory utilization (0.9, 125.75 GiB) with 2 GPUs"),
    "an untyped title quoting a long first sentence": "max_num_seqs (256) exceeds available Mamba cache blocks (128) when serving Qwen3-Next",
    "an untyped title quoting a first sentence of 30 letters": "No available memory for the cache blocks when serving Qwen3-32B",
    "... that goes on in a sentence of its own": "No available memory for the cache blocks on H20. After a restart it works",
    "... in a log line, its prefix taken off": "vllm-1  | No available memory for the cache blocks when serving Qwen3-32B",
    "... after a value, words that end its sentence": "This model's maximum context length is 8192 tokens when serving Qwen3-32B",
    "... and a shorter one": "Engine core initialization failed when serving Qwen3-32B",
    "... after a title's lead-in and its colon": "Error: No available memory for the cache blocks when serving Qwen3-32B",
    "a title that goes on after a short first sentence of a long template": "[Bug]: FlashInfer is not available when serving Qwen3-32B",
    "... after a lead-in of words and a full-width colon": "vllm serve Qwen3-32B fails\uff1aNo available memory for the cache blocks on 2x A100",
    "an untyped title that opens with a value and a space": "sharegpt4v is not a supported multimodal dataset when running vllm bench serve",
    "... after a tag": "[Bug]: sharegpt4v is not a supported multimodal dataset when running vllm bench serve",
    "a title's full-width colon after the type": "ValueError\uff1aNo available memory for the cache blocks on H20",
    "a title with two tags": "[Bug][V1]: ValueError: max_num_seqs (256) exceeds available Mamba cache blocks (128) when serving Qwen3-Next",
    "a title with two tags, no type": "[Bug] [gpt-oss-120b]: No available memory for the cache blocks on H20",
    "another's fewer words where a message opens with a value": 'Qwen3-32B fails with "Pipeline parallelism is not supported yet."',
    "an issue tag where a message opens with a value": "[Bug]: Expected kv_cache to have 4 dims, got (2, 16, 8)",
    "an exception type where a message opens with a value": "AssertionError: Expected kv_cache to have 4 dims, got (2, 16, 8)",
    "a template of only common grams": "KeyError: Tool 'get_weather' is not supported",
    "a vLLM warning after a bare Error:": "Error: Tensor parallel size (16) exceeds available GPUs (8) when serving Qwen3-32B",
    "a first sentence in a Japanese title's corner brackets": "vLLMで「No available memory for the cache blocks」エラー",
    "an untyped first sentence then a sentence of the paste's own": (
        "max_num_seqs (256) exceeds available Mamba cache blocks (128). My server then stopped and I could not find out why."),
    "a logged message's words inside a client's error body": (
        '{\n  "detail": "Chat completion failed: 500: An unexpected error occurred: Client error \'400 Bad Request\' for url '
        '\'http://10.0.59.209/v1/chat/completions\'"\n}'),
    "vLLM's report under its raise, another program's error above": (
        "RuntimeError: The NVIDIA driver on your system is too old (found version 11080). Please update your GPU driver\n"
        '  File "/x/site-packages/vllm/entrypoints/openai/api_server.py", line 230, in build_async_engine_client_from_engine_args\n'
        "    raise RuntimeError(\nRuntimeError: Engine process failed to start. See stack trace for the root cause."),
    "an error body printed over lines": '{\n    "error": {\n        "message": "No text prompt found in messages",\n        "type": "BadRequestError",\n        "code": 400\n    }\n}',
    "a kernel library's refusal in an issue title": "This flash attention build does not support tanh softcapping: gemma-2-2b-it on H100 NVL",
    "the operating system's refusal": "get_mempolicy: Operation not permitted",
    "glog's warning of a native program": "W0304 23:43:37.274643 1 model_lifecycle.cc:108] ignore version directory '.ipynb_checkpoints'",
    "the C++ runtime's terminate line": "terminate called after throwing an instance of 'std::bad_array_new_length'",
    "a crash handler's signal line": "python scripts/vllm_infer.py failed: Caught signal 8 (Floating point exception: integer divide by zero)",
    "a statement of what should not be": "spec.rayClusterConfig.headGroupSpec.headService.metadata.name should not be set",
    "an issue title's tag after other words": "Sadly [Bug]: No available memory for the cache blocks on H20",
    "an issue title's tag before a short first sentence without its stop": "[Bug]: Task finished unexpectedly when serving Qwen2 on 8 GPUs",
    "a full stop that ends the paste after other words": "ValueError: Marlin does not support weight_bits = uint4b8. Only types = [] are supported (for group_size = 128, min_capability = 75, zp = False).",
    "a message that opens with a value, cut after a later one": "max_tokens=131072 cannot be greater than max_model_len=max_total_tokens=40960",
    "another program's loguru warning": "2025-09-01 17:15:24.634 | WARNING  | tenacity.after:log_it:44 - Finished call to 'x' after 26.180(s), this was the 1st time calling it.",
    "a title quoting a first sentence that ends in a quoted value": "[Bug]: ValueError: Unknown attention backend: 'ASCEND' on my 910B",
    "a title quoting a short first sentence that ends in words after a value": "[Bug]: ValueError: Current node has no GPU available on my 8 GPUs",
    "a message whose full stop a title drops": "[Bug]: 1P1D deployment, the decode node reports: RPC call to sample_tokens timed out",
    "a message whose full stop the sentence drops": "EngineCore crashes with TimeoutError: RPC call to sample_tokens timed out on DGX Spark (GB10)",
    "a title quoting a first sentence, then its own words": "[Bug]: ValueError: No available memory for the cache blocks on main branch after commit 46f98893",
    "a title quoting a first sentence that ends in a value": "ValueError: max_num_seqs (256) exceeds available Mamba cache blocks (128) when serving Qwen3-Next",
    "a message's opening word in a path": (
        "future: <Task finished name='Task-12' coro=<AsyncLLM.collective_rpc() done, defined at /x/vllm/v1/engine/async_llm.py:532> "
        "exception=Exception('Call to collective_rpc method failed: NCCL error: internal error')>"
    ),
    "a title quoting a first sentence that is its first chunk, without its stop": "[Bug]: AsyncEngineDeadError: Task finished unexpectedly when serving Qwen2",
    "a raise and its exception run together behind docker-compose's prefix": 'vllm-1  | raise ValueError(f"x {n}.") ValueError: max_new_tokens must be greater than 0, but is -5923.',
    "a CI log's time in brackets before vLLM's header": ("[2025-10-20T13:11:22Z] (EngineCore_DP0 pid=1) ERROR 10-20 13:11:22 [core.py:710] "
                                                        "ValueError: max_num_seqs (256) exceeds available Mamba cache blocks (128)."),
    "LMCache's line, its time in brackets": "[2025-06-16 14:29:56,882] LMCache WARNING: Failed to initialize/re-establish remote connection: boom",
    "another program's log header behind kubectl's timestamp": "2025-06-05T16:30:08.123456789Z [Gloo] Rank 0 is connected to 0 peer ranks. Expected number of connected peer ranks is : 0",
    "a cut frame behind docker-compose's prefix": ('vllm-1  | lib/python3.12/site-packages/transformers/models/llama/configuration_llama.py", line 182, in _rope_scaling_validation\n'
                                                   "vllm-1  |     raise ValueError(\nvllm-1  | ValueError: `rope_scaling` must be a dictionary with two fields, `type` and `factor`, got {'factor': 8.0}"),
    "a reply quoting log lines of one width": ("> (Worker_TP6 pid=903) ERROR 06-12 08:47:02 [multiproc_executor.py:962]     assert self.ratio is not None\n"
                                               "> (Worker_TP6 pid=903) ERROR 06-12 08:47:02 [multiproc_executor.py:962]           ^^^^^^^^^^^^^^^^^^^^^^^\n"
                                               "> (Worker_TP6 pid=903) ERROR 06-12 08:47:02 [multiproc_executor.py:962] AssertionError"),
    "a type's name cut by a terminal's wrap": ("(Worker pid=3) ERROR 06-06 16:17:09 [multiproc_executor.py:671]     assert token_lora_mapping.size(0) == M\n"
                                              "(Worker pid=3) ERROR 06-06 16:17:09 [multiproc_executor.py:671] AssertionError: mapping of size 17 vs 4096\n"
                                              "(Worker pid=3) ERROR 06-06 16:17:09 [multiproc_executor.py:671] in load_model on rank 0 of 8 GPUs it got A\nssertionError"),
    "a message of one chunk without its stop": "ValueError: store_full_fp8 requires store_full_kv",
    "a message of one chunk alone on its line, without its stop": "INFO starting\nstore_full_fp8 requires store_full_kv\n",
    "a title quoting a message of one chunk that ends in a number": "[Bug]: ValueError: trace_decode_token_ids requires n=1 with beam search",
    "a title quoting a first sentence that ends with a bracket": "ValueError: Please use Flashinfer backend for models with logits_soft_cap (i.e., Gemma-2) on my MI300X",
    "a stop of the paste's own where vLLM's words go on": ("litellm.BadRequestError: Error code: 400 - You passed 8193 input tokens "
                                                          "and requested 0 output tokens.\nHowever, the model's context length is only 8192 tokens."),
    "a status followed by a reason in words": "Error code: 400 - You passed 8193 input tokens, the limit is 8192",
    "a statement of what is wrong: not a valid, unrecognized": "400 deepseek-r1t-chimera:free is not a valid model ID\nUnrecognized keys in `rope_scaling`",
    "an issue title's tag before another program's exception": "[Usage]: zmq.error.ZMQError: Operation not supported",
    "an issue title's tag where a title quotes a first sentence": "[Usage]: No available memory for the cache blocks. on H20",
    "a message cut after a value that begins like its next words": "AssertionError: Tried to load weights of size torch.Size([3096576, 1])",
    "a line V0 logged above its cut traceback": (
        "ERROR 02-24 23:19:35 engine.py:389] If cu_seqlens_k is passed in, then page table is not supported\n"
        "ERROR 02-24 23:19:35 engine.py:389] Traceback (most recent call last):\n"
        'ERROR 02-24 23:19:35 engine.py:389]   File "/usr/lib/python3/dist-packages/vllm/engine/llm_engine.py", line 276, in __init__\n'
        "ERROR 02-24 23:19:35 engine.py:389]     self._initialize_kv_caches()"
    ),
    "a traceback cut at another package's raise line": (
        'File "/vllm-workspace/vllm-ascend/vllm_ascend/eplb/utils.py", line 80, in model_register\n'
        ' raise NotImplementedError("EPLB is not supported.")'
    ),
    "a sentence printed in vLLM's process without its header": (
        "(APIServer pid=65324) The image processor of type `Qwen2VLImageProcessor` 🚀 is now loaded as a fast processor by "
        "default, even if the model checkpoint was saved with a slow processor."
    ),
    "PyTorch's C++ log header": ("[W530 17:23:59.243033714 OperatorEntry.cpp:154] Warning: Warning only once for all operators,  "
                                 "other operators may also be overridden.\n  Overriding a previously registered kernel"),
    "a key alone as a 500 body's message": '{\n  "error": {\n    "message": "4226",\n    "type": "InternalServerError",\n    "code": 500\n  }\n}',
    "a warning's words inside another warning's line": (
        "(MainProcess pid=13) WARNING 12-04 20:54:53 [system_utils.py:154] We must use the `spawn` multiprocessing start method. "
        "Overriding VLLM_WORKER_MULTIPROC_METHOD to 'spawn'. See https://docs.vllm.ai/en/latest/usage/troubleshooting.html"
        "#python-multiprocessing for more information. Reasons: NUMA binding requires spawn method\nspawn"
    ),
    "several warnings, the last not the longest": (
        "(EngineCore pid=53257) WARNING 03-31 17:59:51 [vllm.py:806] Inductor compilation was disabled by user settings, "
        "optimizations settings that are only active during inductor compilation will be ignored.\n"
        "(EngineCore pid=53257) INFO 03-31 17:59:51 [platform.py:103] Loading scheduler from: vllm.v1.core.sched.scheduler.Scheduler\n"
        "(EngineCore pid=53257) WARNING 03-31 17:59:51 [scheduler.py:173] Using custom scheduler class "
        "vllm.v1.core.sched.scheduler.Scheduler. This scheduler interface is not public and compatibility may not be maintained."
    ),
    # fixes.py: the paste's number goes into the fix command, a value with more than a number in it does not
    "a fix command filled from a sentence's number": "ValueError: To serve at least one request with the model's max seq len (131072), (16.00 GiB KV cache is needed, which is larger than the available KV cache memory (9.34 GiB). Based on the available memory, the estimated maximum model length is 76496. Try increasing `gpu_memory_utilization`",
    "a fix command not filled with a shell line": "ValueError: max_num_seqs (256) exceeds available Mamba cache blocks (1; rm -rf ~). Each decode sequence requires one Mamba cache block",
    # match.py _typed_words_before: a label's value after another exception's words (LiteLLM's)
    "another exception's words before a label": "litellm.BadRequestError: Invalid value for 'function.description': expected a string, got null",
    "a fix command filled twice from one value": "ValueError: max_num_batched_tokens (64) must be greater than or equal to max_num_seqs (128).",
    # match.py _small_word_inserted: a small word inside a chunk (partial, above a template alike),
    # and a name inserted there (no near match)
    "a small word inserted into a message": "ValueError: num_attention_heads must be divisible by the num_key_value_heads",
    "a name inserted into a message": "NotImplementedError: Current platform does not support w4a4 nvfp4 quantization.",
    # ... and into the chunk before the anchor, its end too short to be found alone (_chunk_with_small_word_before)
    "a small word inserted before the anchor": "ValueError: NixlConnectorScheduler expects the NixlHandshakePayload for handshake metadata.",
    "a small word inserted before a short end": "RuntimeError: release_kv_cache_memory() requires now all executor memory to be resident",
    # match.py _word_left_out: a word left out of a chunk, and out of the chunk before the anchor (partial)
    "a word left out of a message": "ValueError: sampling distribution replay Model Runner V2",
    "a word left out before the anchor": "ValueError: Unsupported for MistralParser. Only `json` and `json_object` are supported.",
    # match.py _carried: vLLM's words that a foreign rule names as its (pynccl's), without the type; and PyTorch's
    "vLLM's words a foreign rule names": "xinference vllm部署deepseek-r1报错 NCCL error: unhandled system error",
    "a worker's report cut in the value that holds them": "Exception in worker VllmWorkerProcess while processing method init_device: NCCL error: unhandled cuda error",
    "vLLM's words with closers after them": "future: <Task exception=Exception('Call to collective_rpc method failed: NCCL error: internal error')>",
    "vLLM's words with a bracket of their own": "NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)",
    # match.py _head_cut_off: after an issue title's tag; a line begun inside the message, a value ending it
    "a title begun inside a message": "[Bug]: KV cache is needed, which is larger than the available KV cache memory",
    "a line begun inside a message, ended by a value": "KV cache is needed, which is larger than the available KV cache memory (9.34 GiB). Based on the available memory, the estimated maximum model length is 76496.",
    "PyTorch's NCCL words": "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, unhandled cuda error",
    "the words in a traceback's raise": '  File "/x/vllm/distributed/device_communicators/pynccl_wrapper.py", line 257, in NCCL_CHECK\n    raise RuntimeError(f"NCCL error: {error_str}")\nRuntimeError: [address=1] NCCL failed',
}

# Strings whose cleaning differs easily between Python and a naive port.
CLEAN_CASES = [
    # a frame cut at a terminal's width inside its path, and one inside its function's name (clean.py: join_wrapped_frames)
    '  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/quantiz\nation/base_config.py", line 55, in tie_weights\n'
    '    raise NotImplementedError\n  File "vllm/distributed/device_communicators/all2all.py", line 355, in dispat\nch_router_logits\n'
    '  File "/x/vllm/engine/llm_engine.py", line 5, in f\nNotImplementedError\n  File "a.py", line 5, in f\nx',
    # a line that is one quoted exception line is that line (clean.py: QUOTED_EXCEPTION_LINE)
    '"ValueError: image_embeds has rank 3 but expected 2"\n  \'KeyError: \\\'x\\\' not found\',\n`Error: a` and `b`\n"TypeError: a\u2028b"',
    # a refused request's access log line keeps its request and status; a 200 goes
    'INFO:     10.0.0.1:5 - "POST /v1/embeddings HTTP/1.1" 200 OK\nINFO:     10.0.0.1:6 - "GET /x HTTP/1.1" 404 Not Found',
    "model&#x27;s &lt;max&gt; &notit; &ampx; &#128; &#0; &#x1b; &#1114112; &AElig &Afr; &NotEqualTilde; &unknown; &#65",
    "&#xD800; &#55296; &#x10FFFF; &#xFDD0; &#13;x &amp;amp; &#00000065; &#x00000041;",
    '{\\"message\\": \\"a\\\\nb\\"}',
    "\x1b[1;31mValueError: boom\x1b[0m",
    "Dec  1 10:00:00 gpu-host vllm[1234]: ValueError: boom\nDec 01 10:00:00 h python3.12[88]: (EngineCore_DP0 pid=3) x",
    "\u62a5\u9519ValueError\uff1aNo available memory\n\u6a21\u578b\uff1aQwen3\nvllm.errors.XError\uff1a\u3000x",
    "[0m text a[31mb é[0m ][0m",
    "🚀 ERROR 11-18 18:07:28 [core.py:1] ValueError: x 😀",
    "INFO 11-18 18:07:28 [core.py:1] chatter\nValueError: real\nDEBUG 11-18 18:07:28 [x.py:2] Error kept",
    "vllm-1  | (EngineCore_DP0 pid=316) ERROR 09-01 10:00:00.123 [core.py:710] ValueError: boom",
    "line\u2028sep\r\nwindows\rmac",
    "\x85[rank٣]: x\n\ufeff[rank0]: y",
    "2025-01-02 03:04:05,678 - ValueError: boom\n> quoted\nINFO:vllm.engine:hello",
    "😀" * 30 + "INFO 11-18 18:07:28 [core.py:1] after 30 emoji",
    "🚀" * 200_500 + "\nValueError: only the last 200000 code points are read",
    "x" * 79 + "🚀INFO 11-18 18:07:28 [core.py:1] the emoji is one char",
    "éINFO 11-18 18:07:28 [core.py:1] no word boundary for python\nnoé-1  | kept",
    "vllmé-1  | (Engine_Ω pid=3) [rank0]: 𝐀[0mValueError: x",
    "0] Traceback:\n0] a\n\n1] b\n0] ValueError: x\n\n  \n",  # a shared prefix on most lines, blank ones aside
    "w1: a\nw2: b\nw1: c\nw2: d",  # two prefixes, equally common: the first is taken, on half the lines only
    "ValueError: a\nValueError: b\nValueError: c",
    # log records run together on one line: cut before each record, blank parts dropped
    "x ERROR 11-04 18:02:56 [a.py:1] one\u00a0ERROR 11-04 18:02:56 [a.py:1] RuntimeError: two \u3000",
    "(EngineCore_DP0 pid=1) ERROR 11-04 18:02:56.5 [a.py:1] a (Worker pid=2) INFO 11-04 18:02:56 [a.py:1] b  ERROR 11-04 18:02:56 x.py:3] c",
    "éERROR 11-04 18:02:56 [a.py:1] a éERROR 11-04 18:02:56 [a.py:1] b ERROR 11-04 18:02:56 [a.py:1]   ",
    # a traceback run together on one line: cut before frames, the exception, an access log record
    '[rank1]: Traceback (most recent call last): [rank1]:   File "/x/vllm/a.py", line 3, in f [rank1]:     g() '
    '[rank1]:   File "/x/vllm/b.py", line 9, in check\u3000raise RuntimeError(f"e: {e}")\u00a0RuntimeError: e: boom '
    'INFO:     10.0.0.1:5 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error \u3000',
    '🚀 File "/x/🚀.py", line 3, in f raise ImportError("x") 😀ImportError: no\x85ImportError: twice',
    "2025-06-05T16:30:08.123456789Z stderr F ValueError: boom\n2025-06-05T16:30:08Z stdout P  x",
    # access log records run into other text: cut out of it
    'ValueError: boom (APIServer pid=1) INFO:     10.0.0.1:5 - "POST /v1/rerank HTTP/1.1" 500 Internal Server Error '
    'INFO 09-11 06:30:05 [__init__.py:241] chatter\u3000INFO:     [1.2.3.4:5](http://x/) - "GET /health HTTP/1.1" 200 OK \U0001f680 x',
    'vllm-1  | INFO:     1.2.3.4:5 - "POST /v1/x HTTP/1.1" 200 OK\n\u00a0INFO:   a - "GET / HTTP/1.0" 404 Not Found\u2028tail',
    # a terminal's cuts at 40 columns (an astral character counts one), not before a record,
    # an exception line, or a whole frame's code line
    "ERROR 11-04 18:02:56 [a.py:1] \U0001f680 Casting \ntorch.bfloat16 to torch.float16 because \n"
    'ImportError("x") ortError(y) was seen\nValueError: next one here and there and \nmore words to fill\n'
    '  File "/x/vllm/a.py", line 3, in ffffff\n    g()\nRuntimeError: ortError: end\u3000 and more words to f\nill',
    # process tags and a raise's code line run together: cut back into lines
    "(APIServer pid=4) ValueError: a\u00a0(APIServer pid=4) b (APIServer pid=4)(EngineCore_DP0 pid=5)  ERROR 11-04 18:02:56 [a.py:1] x (pid=3) y",
    '  raise RuntimeError(f"NCCL error: {e}")\u3000RuntimeError: NCCL error: x \U0001f680ValueError: y',
    # docker's json-file log lines: each its "log" value
    '{"log":"ERROR 11-04 18:02:56 [a.py:1] \\"x\\" \\u00e9\\ud83d\\ude80 $1 \\\\n\\r\\n","stream":"stderr","time":"2025-03-06T11:03:52Z"}'
    '{"log":"b\\n","stream":"stdout","time":"t"}\n{"log":"c","stream":"x","time":"t"}',
    'ImportError: x INFO: 1.2.3.4:0 -"POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error \u3000tail',
    # a frame's quotes made typographic; curly quotes elsewhere kept
    "File \u201c/x/vllm/\U0001f680.py\u201d, line 3, in f\n  raise X\nsaid \u201chi\u201d File \u201ca\u201d, line x",
    # what a page made of the printed characters: invisible ones, a flag's dash, Markdown's strong emphasis
    "max_\u200bnum_\u200bseqs\u00ad \ufeffx \u2014enable-x \u2013y \u2014 z a\u2014b \u2014Note\n**ValueError: a b.** f(**kw) 2**63 (**x**) ** y **",
    # an exception group's bars, a CI viewer's; a Markdown table's row stays
    "  + Exception Group Traceback:\n  | ExceptionGroup: x\n    |   File \"/x/vllm/a.py\", line 3, in f\n    | | ValueError: y\n  |\n| a | b |\n  | [2025-03-10T15:07:20Z] z |x",
    # a JSON logger's lines: the message, then its traceback or error; a body, NaN, no string, too deep: as they are
    '{"asctime": "t", "levelname": "ERROR", "message": "Error in x.\\r\\n", "exc_info": "Traceback:\\nValueError: \\ud83d\\ude80 \\ud800 \U0001f680"}\n'
    '{"level":"error","msg":"a","error":"b","stacktrace":"c\\n\\td.go:3"}\n{"object": "error", "message": "m", "code": 404}\n'
    '{"time": NaN, "msg": "x"}\n{"time": 1, "msg": 5, "log": "l"}\n  {"ts": 1, "event": "e"}  \n{"time": 1, "msg": "x", "d": ' + "[" * 300 + "]" * 300 + "}",
    # launchers' and collectors' prefixes, and vLLM's logger in Python's common format
    "[pod/v-1/vllm] a\nv_v.1.x@n1    | b\n0|vllm     | c\n(task, pid=1) d\n(w1, rank=1, pid=2, ip=1.2.3.4) e\n[default0]:f\n[1,0]<stderr>:g\n"
    "2025-06-01 10:00:00,123 - vllm.engine - ERROR - h\n2025-06-01 10:00:00,123 - __main__ - ERROR - i\nx (task, pid=1) ERROR 11-04 18:02:56 [a.py:1] j (t, pid=2) ERROR 11-04 18:02:56 [a.py:1] k",
    # double-spaced pastes, read as printed; pastes that are not
    "\n  a\n\n  b\r\n\r\n  c \u3000\n\n\n\n\n  d\n \n  e\n\n",
    "a\n\nb\nc\n\nd\n\ne\n\nf",
    "a\n\nb\n\n\nc\n\nd\n\ne",
    # a paste that opens inside a frame's path: its 'File "' put back
    '\n lib/python3.12/site-packages/transformers/\U0001f680.py", line 182, in f\n    raise ValueError(\nValueError: x y z',
]

LOOKUP = """
const [texts, top, done] = arguments;
Promise.all(texts.map((text) => window.errorkb.lookup(text, top)))
  .then((found) => done({found}), (error) => done({error: String(error && error.stack || error)}));
"""

CLEAN = """
const [texts, done] = arguments;
Promise.all(texts.map((text) => window.errorkb._clean(text)))
  .then((found) => done({found}), (error) => done({error: String(error && error.stack || error)}));
"""


def _whole(text: str) -> str:
    """Python's lone surrogates (from JSON escapes) as the pairs the browser hands back."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def python_result(matcher, text: str, top: int) -> dict:
    matches, foreign = matcher.lookup(text, top=top)
    found = []
    for match in matches:
        data = match.to_json()
        data["values"] = {name: _whole(value) for name, value in data["values"].items()}
        found.append(data)
    return {"matches": found, "not_vllm": foreign, "releases": matcher.releases_of(text, matches)}


def comparable(result: dict) -> dict:
    """Everything but the url, which is relative to the site in the browser."""
    return {
        "matches": [{k: v for k, v in m.items() if k != "url"} for m in result["matches"]],
        "not_vllm": result["not_vllm"],
        "releases": result["releases"],
    }


# --- the site, the server, the browser ------------------------------------------------------------


@pytest.fixture(scope="session")
def served_site(corpus_site):
    """The folder holding the full corpus site as its `site/` sub-folder (see BASE)."""
    out, _, _ = corpus_site
    assert out.name == BASE
    return out.parent


@pytest.fixture(scope="session")
def site_url(served_site):
    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format, *args):  # noqa: A002 - the base class's name
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(served_site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/{BASE}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.is_file()]
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing.append("the selenium package (pip install selenium)")
    if missing:
        pytest.fail(
            f"the browser tests need Chromium, chromedriver and selenium; missing: {', '.join(missing)}. "
            "install them: apt-get install chromium chromium-driver",
            pytrace=False,
        )
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        # The theme asks Google for its fonts: fail that at once instead of waiting on the network.
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}",
    ):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_script_timeout(120)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


@pytest.fixture(scope="session")
def site_matcher(served_site, pin_matcher):
    """The Python matcher over the very index the browser loads (curated titles included), and
    the same errors and forms as the matcher over the pin's catalog."""
    from generator.lookup.index import matcher_from_index

    matcher = matcher_from_index(json.loads((served_site / BASE / "api" / "lookup-index.json").read_text()))
    assert [e.id for e in matcher.errors] == [e.id for e in pin_matcher.errors]
    return matcher


def _home_with_the_index(browser, site_url):
    browser.get(site_url)
    errors = browser.execute_async_script(
        "const done = arguments[0]; window.errorkb.ready.then(() => done(null), (e) => done(String(e)));"
    )
    assert errors is None, errors
    return browser


@pytest.fixture(scope="session")
def lookup_page(browser, site_url):
    """The home page, with the index loaded; for the lookups run through window.errorkb."""
    return _home_with_the_index(browser, site_url)


def js_lookup(driver, texts: list[str], top: int) -> list[dict]:
    answer = driver.execute_async_script(LOOKUP, texts, top)
    assert "error" not in answer, answer["error"]
    return answer["found"]


@pytest.fixture(scope="session")
def vector_results(lookup_page):
    return dict(zip([v["name"] for v in VECTORS], js_lookup(lookup_page, [v["paste"] for v in VECTORS], 5)))


@pytest.fixture(scope="session")
def paste_results(lookup_page):
    texts = [json.loads(p.read_text(encoding="utf-8"))["paste"] for p in PASTES]
    return dict(zip([p.name for p in PASTES], js_lookup(lookup_page, texts, 3)))


# --- answers: the same as the Python matcher's -----------------------------------------------------


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_vector(vector_results, vector):
    """As tests/test_lookup.py::test_vector checks the Python matcher."""
    found = vector_results[vector["name"]]
    matches = found["matches"]
    got = matches[0]["id"] if matches else None
    assert got == vector["expected"], [(m["id"], m["template"][:60], m["score"]) for m in matches]
    assert (found["not_vllm"] or {}).get("source") == vector["not_vllm"]
    for name, value in vector.get("values", {}).items():
        assert matches[0]["values"][name] == value


@pytest.mark.parametrize("path", PASTES, ids=[p.stem for p in PASTES])
def test_real_paste_as_python(paste_results, site_matcher, path):
    """Top 3 with ids, scores, coverage, values, titles, and the non-vLLM verdict: all as in Python."""
    text = json.loads(path.read_text(encoding="utf-8"))["paste"]
    js = paste_results[path.name]
    py = python_result(site_matcher, text, 3)
    assert [(m["id"], m["score"]) for m in js["matches"]] == [(m["id"], m["score"]) for m in py["matches"]]
    assert (js["not_vllm"] or {}).get("source") == (py["not_vllm"] or {}).get("source")
    assert comparable(js) == comparable(py)
    for match in js["matches"]:
        assert match["url"] == f"errors/{match['id']}/"


def test_edge_pastes_as_python(lookup_page, site_matcher):
    names = list(EDGE_PASTES)
    found = js_lookup(lookup_page, [EDGE_PASTES[n] for n in names], 5)
    differ = {}
    for name, js in zip(names, found):
        py = python_result(site_matcher, EDGE_PASTES[name], 5)
        if comparable(js) != comparable(py):
            differ[name] = {"js": comparable(js), "python": comparable(py)}
    assert not differ, json.dumps(differ, indent=1, ensure_ascii=False)[:6000]


def test_a_reason_quoted_alone_is_found_in_the_browser(lookup_page, site_matcher):
    """lookup.js, as match.py: a paste that quotes only a reason a message gives finds that message's error."""
    names = ["a reason alone", "a reason worded by its message"]
    for name, js in zip(names, js_lookup(lookup_page, [EDGE_PASTES[n] for n in names], 3)):
        py = python_result(site_matcher, EDGE_PASTES[name], 3)
        assert js["matches"] and js["matches"][0].get("reason"), (name, js)
        assert [(m["id"], m.get("reason"), m["message"]) for m in js["matches"]] == \
            [(m["id"], m.get("reason"), m["message"]) for m in py["matches"]], name
    assert js["matches"][0]["reason"].startswith("ExllamaLinearKernel cannot implement due to: Group size (32)")


def test_the_browser_fills_a_fix_command_with_the_paste_s_numbers(lookup_page):
    """lookup.js, as fixes.fix_with_values: a number, or the number a sentence ends with, goes in; a shell line does not."""
    names = ["a fix command filled from a sentence's number", "a fix command not filled with a shell line",
             "a fix command filled twice from one value"]
    sentence, shell, twice = (found["matches"][0]["entry"]["fix"] for found in js_lookup(lookup_page, [EDGE_PASTES[n] for n in names], 1))
    assert sentence["command"].endswith(" --max-model-len 76496") and sentence["from_paste"] == {"max_model_len": "76496"}, sentence
    assert "from_paste" not in shell and shell["command"].endswith(" --max-num-seqs 256"), shell
    assert twice["command"].endswith(" --max-num-batched-tokens 64 --max-num-seqs 64"), twice


def test_a_forks_raise_is_told_in_the_browser(lookup_page):
    """lookup.js, as foreign.raise_vllm_never_wrote: a raise in a function of the pin's file that
    no release raises in is a fork's; in a function that raises at the pin it is not."""
    fork = EDGE_PASTES["a fork's raise in a file the pin has"]
    own = fork.replace("prepare_model_input_align_worker", "profile")
    found = js_lookup(lookup_page, [fork, own], 1)
    assert found[0]["matches"] == [] and found[0]["not_vllm"]["id"] == "exception-not-in-vllm", found[0]
    assert "prepare_model_input_align_worker of vllm/v1/engine/core_client.py" in found[0]["not_vllm"]["reason"]
    assert found[1]["not_vllm"] is None or found[1]["not_vllm"]["id"] != "exception-not-in-vllm", found[1]


def test_of_several_warnings_the_browser_puts_the_last_first(lookup_page):
    """lookup.js, as match._last_of_warnings: the longer warning above does not come first."""
    found = js_lookup(lookup_page, [EDGE_PASTES["several warnings, the last not the longest"]], 3)[0]
    assert found["matches"][0]["template"].startswith("Using custom scheduler class"), found["matches"]


def test_a_traceback_cut_at_another_packages_raise_is_told_in_the_browser(lookup_page):
    """lookup.js, as match._cut_at_anothers_raise: vllm-ascend's raise line is not vLLM's "EPLB is not supported ..."."""
    found = js_lookup(lookup_page, [EDGE_PASTES["a traceback cut at another package's raise line"]], 1)[0]
    assert found["matches"] == [] and found["not_vllm"]["source"] == "vllm_ascend", found


def test_a_sentence_printed_in_vllms_process_is_told_in_the_browser(lookup_page):
    """lookup.js, as match.unmatched_process_line: shown as the line judged, the emoji kept whole."""
    found = js_lookup(lookup_page, [EDGE_PASTES["a sentence printed in vLLM's process without its header"]], 1)[0]
    assert found["matches"] == [] and found["not_vllm"]["id"] == "message-not-in-vllm", found
    assert "without vLLM's log header" in found["not_vllm"]["reason"]
    assert found["not_vllm"]["line"].startswith("The image processor of type `Qwen2VLImageProcessor` 🚀 is now")


def test_a_plugins_warning_in_vllms_log_format_is_told_in_the_browser(lookup_page):
    """lookup.js, as match.unmatched_vllm_log_line: read from the paste as given (the cleaned one
    has lost the header), and shown as the line judged."""
    found = js_lookup(lookup_page, [EDGE_PASTES["a plugin's warning in vLLM's log format"]], 1)[0]
    assert found["matches"] == [] and found["not_vllm"]["id"] == "message-not-in-vllm", found
    assert "vLLM's log header" in found["not_vllm"]["reason"]
    assert found["not_vllm"]["line"].startswith("additional_information on scheduled_cached_reqs 🚀 is deprecated")


def test_variants_as_python(lookup_page, site_matcher):
    """Real pastes cut, wrapped, garbled and joined at random (a fixed seed): still the same answers."""
    rng = random.Random(20251129)
    sources = [json.loads(p.read_text(encoding="utf-8"))["paste"] for p in PASTES] + [v["paste"] for v in VECTORS]
    junk = ["😀", "🚀 ", "é", "\u00a0", " ", "\n", "xyz ", "'", '"', "`", "İ", "Σ", "&amp;", "&lt;", "\\n", '\\"',
            "\x1b[31m", "[0m", "ERROR 11-18 18:07:28 [core.py:1] ", "\nINFO 11-18 18:07:28 [a.py:1] x\n",
            "\nTraceback (most recent call last):\n", "\nValueError: ", "{", "}", "."]
    texts = []
    for _ in range(600):
        text = rng.choice(sources)
        for _ in range(rng.randint(1, 5)):
            op, at = rng.random(), rng.randint(0, len(text))
            if op < 0.35:
                text = text[:at] + rng.choice(junk) + text[at:]
            elif op < 0.55:
                text = text[:at] + text[at + rng.randint(1, 30):]
            elif op < 0.65:
                text = text[:at]
            elif op < 0.75:
                text = text[at:]
            elif op < 0.9:
                text = text.replace(" ", "\n", rng.randint(1, 5))
            else:
                text += "\n" + rng.choice(sources)
        texts.append(text)
    differ = []
    for text, js in zip(texts, js_lookup(lookup_page, texts, 5)):
        py = python_result(site_matcher, text, 5)
        if comparable(js) != comparable(py):
            differ.append({"paste": text, "js": comparable(js), "python": comparable(py)})
    assert not differ, json.dumps(differ[:2], indent=1, ensure_ascii=False)[:6000]


SPANS = """
const [cases, done] = arguments;
done(cases.map(([source, flags, text]) => {
  try {
    return window.errorkb._spans(source, flags, text);
  } catch (error) {
    return String(error);
  }
}));
"""


def _index_patterns() -> list[str]:
    """Every pattern the index carries for lookup.js, in Python syntax (flags inline)."""
    index_rules = rules()
    return [*index_rules["patterns"].values(), *index_rules["line_prefixes"], *(rule[2] for rule in index_rules["not_vllm"])]


def _python_patterns() -> list[tuple[str, str]]:
    """Every pattern the port runs, in Python syntax, with its flags."""
    import html

    return [(source, "") for source in _index_patterns()] + [(html._charref.pattern, "")]


def _function_body(js: str, head: str) -> str:
    start = js.index(head)
    return js[start : js.index("\n  }\n", start)]


def test_lookup_js_reads_the_rules_from_the_index():
    """lookup.js copies no number, text or pattern of generator/lookup/: it reads them all from the index."""
    import json
    import re

    js = LOOKUP_JS.read_text(encoding="utf-8")
    index_rules = rules()
    # It reads every rule the index carries, and only those (compileRules).
    body = _function_body(js, "function compileRules(rules) {")
    read = set(re.findall(r"\brules\.(\w+)", body)) - {"patterns"}
    read_patterns = set(re.findall(r"\bpatterns\.(\w+)", body))
    assert read == set(index_rules) - {"patterns"}, f"unread: {set(index_rules) - read - {'patterns'}}, unknown: {read - set(index_rules)}"
    assert read_patterns == set(index_rules["patterns"]), read_patterns ^ set(index_rules["patterns"])
    # The one number it keeps is the index format it reads; the index says which it is.
    constants = dict(re.findall(r"\bconst ([A-Z][A-Z0-9_]*) = (-?[0-9][0-9_.]*);", js))
    assert constants == {"INDEX_SCHEMA_VERSION": str(INDEX_SCHEMA_VERSION)}, constants
    # No copy of a rule's value: numbers of two digits or more, texts, patterns (as written in
    # JavaScript source, raw or escaped). One-digit numbers are too common to look for.
    code = re.sub(r"^\s*(?://|/?\*).*$", "", js, flags=re.M)  # comments may name values
    # ... and JavaScript's own numbers are no rules: parseInt's radix, a surrogate pair's shift
    code = re.sub(r"\? 16 : 10\)|<< 10\)", "", code)
    code = re.sub(r"\bconst INDEX_SCHEMA_VERSION = \d+;", "", code)  # the format's number, checked above
    for key, value in index_rules.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool) and len(str(value)) > 1:
            assert not re.search(rf"(?<![\w.\\]){re.escape(str(value))}(?![\w.])", code), f"lookup.js copies {key} = {value}"
    texts = [index_rules["ellipsis"], index_rules["cut_trailing"], index_rules["error_path"].split("{")[0], index_rules["foreign_frame_reason"].split("{")[0],
             *index_rules["foreign_packages"], *(rule[4] for rule in index_rules["not_vllm"])]
    texts += [source.removeprefix("(?i)") for source in _index_patterns()]
    for text in texts:
        for form in (text, json.dumps(text, ensure_ascii=False)[1:-1], json.dumps(text)[1:-1]):
            assert f'"{form}' not in code and f"`{form}" not in code and f"/{form}/" not in code, f"lookup.js copies {text!r}"
    # The names of the Python constants are not used for JavaScript copies either.
    from generator.lookup import clean, foreign, match

    names = {name for module in (clean, foreign, match) for name, value in vars(module).items()
             if name.isupper() and isinstance(value, (int, float, str, tuple, list, re.Pattern))}
    assert names and not [name for name in names if re.search(rf"\b{name}\b", code)]


def test_ported_standard_library_is_in_sync():
    """What lookup.js does carry itself are ports of Python's own behaviour: they follow the running Python."""
    import html
    import re
    import sys

    js = LOOKUP_JS.read_text(encoding="utf-8")
    assert "String.raw`" + html._charref.pattern + "`" in js, "html.unescape's pattern changed: port it to lookup.js"
    # str.isspace(), which str.split(), str.strip() and re's \s follow
    space = re.search(r'const PY_SPACE = "([^"]+)";', js).group(1).replace("\\\\", "\\")
    spaces = re.compile("[" + space + "]")
    assert {c for c in range(sys.maxunicode + 1) if chr(c).isspace()} == {
        c for c in range(sys.maxunicode + 1) if spaces.fullmatch(chr(c))
    }


def test_foreign_examples_as_python(lookup_page, site_matcher):
    """Every example of foreign.yaml is answered in the browser as in Python."""
    from generator.lookup.foreign import foreign_errors

    examples = [example for error in foreign_errors() for example in error.examples]
    found = js_lookup(lookup_page, examples, 3)
    differ = [{"paste": text[:100], "js": comparable(js), "python": comparable(python_result(site_matcher, text, 3))}
              for text, js in zip(examples, found) if comparable(js) != comparable(python_result(site_matcher, text, 3))]
    assert not differ, json.dumps(differ[:5], indent=1, ensure_ascii=False)[:6000]


PATTERN_BATCH = 20_000  # (pattern, text) cases sent to the browser in one script call


def test_patterns_as_python(lookup_page):
    """The rules' regular expressions, rewritten for JavaScript, match where Python's re matches."""
    import re

    subjects = CLEAN_CASES[:12] + [
        "CANNOT RE-İNİTİALİZE CUDA IN FORKED SUBPROCESS; cannot re-ınıtıalıze cuda in forked subprocess",
        "énccl error ncclInternalError DistBackendError NCCL WARN x NCCL WARNING",
        "ImportError: cannot import name 'x' / undefined symbol: _ZN3c10 / undefined symbol: 𝐀𝐁",
        "GGUF model with architecture 🚀 is not supported yet; model type `qwen9` but Transformers",
        '  File "/a/vllm/b.py", line 1, in <module>\n  File "/é/x.py", line ٣, in fönction.𝐀',
        "ValueError\nKeyboardInterrupt\nvllm.errors.VLLMValidationError(ValueError): x\u2028y\nAssertionError",
    ] + [json.loads(p.read_text(encoding="utf-8"))["paste"] for p in PASTES[::4]]
    cases, want = [], []
    for source, flags in _python_patterns():
        compiled = re.compile(source, re.I if flags else 0)
        for text in subjects:
            texts = [text] if "^" not in source else text.split("\n")  # anchored ones run per line
            for line in texts:
                cases.append([source, flags, line])
                want.append([[m.start(), m.end()] for m in compiled.finditer(line)])
    got = []
    for at in range(0, len(cases), PATTERN_BATCH):  # a batch at a time: WebDriver refuses a message too large
        got += lookup_page.execute_async_script(SPANS, cases[at : at + PATTERN_BATCH])
    differ = [(c[0], c[2][:80], g, w) for c, g, w in zip(cases, got, want) if g != w]
    assert not differ, differ[:5]


def test_cleaning_as_python(lookup_page):
    from html.entities import html5

    every_entity = " ".join(f"&{name}x &{name}" for name in sorted(html5))  # the browser reads them
    texts = CLEAN_CASES + [every_entity] + [json.loads(p.read_text(encoding="utf-8"))["paste"] for p in PASTES]
    answer = lookup_page.execute_async_script(CLEAN, texts)
    assert "error" not in answer, answer["error"]
    differ = [(t, js, clean_paste(t)) for t, js in zip(texts, answer["found"]) if js != clean_paste(t)]
    assert not differ, differ[:5]


# --- the page ---------------------------------------------------------------------------------------------



def _ask(driver, site_url, text: str, keyboard: bool = False):
    """Type (set) the paste, press the button (or Ctrl+Enter), wait for the answer."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    if driver.current_url != site_url:
        driver.get(site_url)
    driver.execute_script("document.getElementById('errorkb-results').replaceChildren();")
    driver.execute_script("document.getElementById('errorkb-paste').value = arguments[0];", text)  # send_keys is slow
    if keyboard:
        driver.find_element(By.ID, "errorkb-paste").send_keys(Keys.CONTROL, Keys.ENTER)
    else:
        driver.find_element(By.ID, "errorkb-find").click()

    def answered(d):
        results = d.find_element(By.ID, "errorkb-results")
        text = results.text
        return results if text and not text.startswith("Looking it up") else False

    return WebDriverWait(driver, 30).until(answered)


def test_the_index_is_fetched_where_the_box_is_and_only_once(browser, site_url, site_matcher):
    """A page without the paste box never fetches the lookup index; the home page fetches it
    once the box is on screen and the page idle, before anyone types, and not again."""
    from selenium.webdriver.support.ui import WebDriverWait

    fetched = "return performance.getEntriesByType('resource').filter((e) => e.name.includes('lookup-index.json')).length;"
    some_error = site_matcher.errors[0].id
    browser.get(f"{site_url}errors/{some_error}/")
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return document.readyState") == "complete")
    assert browser.execute_script(fetched) == 0
    browser.get(site_url)
    WebDriverWait(browser, 30).until(lambda d: d.execute_script(fetched) == 1)  # no click, no focus
    _ask(browser, site_url, "ValueError: " + ATTENTION.format(28, 8))
    assert browser.execute_script(fetched) == 1
    assert browser.execute_script("return window.errorkb.indexUrl;") == f"{site_url}api/lookup-index.json"


def test_ui_shows_the_match(browser, site_url):
    from selenium.webdriver.common.by import By

    vector = next(v for v in VECTORS if v["name"] == "clean message")
    results = _ask(browser, site_url, vector["paste"])
    blocks = results.find_elements(By.CSS_SELECTOR, ".errorkb-match")
    assert blocks
    link = blocks[0].find_element(By.CSS_SELECTOR, "a")
    assert link.get_attribute("href") == f"{site_url}errors/{vector['expected']}/"
    assert link.text == "Fewer Mamba cache blocks than max_num_seqs, so full CUDA graphs cannot be captured"  # its entry's title
    first = blocks[0].text
    assert f"id {vector['expected']}" in first and "v0.33.0" in first and "score 1.00" in first
    filled = blocks[0].find_element(By.CSS_SELECTOR, ".errorkb-filled").text  # the message, the paste's values in it
    assert filled.startswith("max_num_seqs (") and all(f"({value})" in filled for value in vector["values"].values())
    assert blocks[0].find_element(By.CSS_SELECTOR, ".errorkb-summary").text  # the curated summary
    assert blocks[0].find_element(By.CSS_SELECTOR, ".errorkb-fix").text.startswith("Fix: ")
    command = blocks[0].find_element(By.CSS_SELECTOR, ".errorkb-command code").text
    # the paste's block count, not the entry's example value, and a line that says so
    assert command.startswith("vllm serve ") and command.endswith(" --max-num-seqs 128"), command
    assert "(max_num_seqs=128 from your paste; the rest is the entry's example)" in first
    assert "exact" in first and ".py:" in first  # the verdict; the first site, path:line


def test_ui_lists_a_problems_other_ids_current_ones_too(browser, site_url):
    from selenium.webdriver.common.by import By

    results = _ask(browser, site_url, "RuntimeError: Worker failed with error 'boom', please check the stack trace above for the root cause")
    first = results.find_elements(By.CSS_SELECTOR, ".errorkb-match")[0].text
    assert "Other ids of this problem: " in first and "68282f3e0aed8535 (v0.33.0)" in first
    assert "Earlier ids" not in first


def test_ui_says_when_the_words_did_not_name_it(browser, site_url, site_matcher):
    """A traceback cut above its log message is named by vLLM's log header alone: the result
    says that its words did not name it."""
    from selenium.webdriver.common.by import By

    site = site_matcher.errors[site_matcher.number["21bc81fe498968ab"]].sites[0]  # "EngineCore failed to start."
    paste = (f'ERROR 06-10 03:43:37 [{site["path"].rsplit("/", 1)[-1]}:{site["line"]}]   File '
             '"/x/vllm/v1/engine/core.py", line 1, in run_engine_core')
    assert [m.error.id for m in site_matcher.lookup(paste)[0]] == ["21bc81fe498968ab"]
    block = _ask(browser, site_url, paste).find_elements(By.CSS_SELECTOR, ".errorkb-match")[0]
    assert block.find_element(By.CSS_SELECTOR, ".errorkb-verdict").text.strip() == \
        "partial: found where vLLM raises or logs it, not by its words"


def test_ui_ctrl_enter(browser, site_url, site_matcher):
    from selenium.webdriver.common.by import By

    vector = next(v for v in VECTORS if v["name"] == "old vLLM log header")
    results = _ask(browser, site_url, vector["paste"], keyboard=True)
    link = results.find_element(By.CSS_SELECTOR, ".errorkb-match a")
    first = python_result(site_matcher, vector["paste"], 1)["matches"][0]
    assert vector["expected"] in {first["id"], first["current"]["id"], *(a["id"] for a in first["also"])}
    assert link.get_attribute("href").endswith(f"/errors/{first['current']['id']}/")  # the problem's current page
    for value in vector["values"].values():
        assert value in results.text


def test_ui_empty_input(browser, site_url):
    results = _ask(browser, site_url, "   \n  ")
    assert results.text == "Paste an error message, traceback or log first."


def test_ui_nothing_matches(browser, site_url):
    from selenium.webdriver.common.by import By

    results = _ask(browser, site_url, "the weather is nice")
    assert results.text == "No vLLM error matches this text. Search the site for these words"
    link = results.find_element(By.CSS_SELECTOR, "a")  # the site search, given the pasted words
    assert link.get_attribute("href") == f"{site_url}?q=the%20weather%20is%20nice"


def test_ui_not_vllm(browser, site_url):
    from selenium.webdriver.common.by import By

    vector = next(v for v in VECTORS if v["not_vllm"] == "torch")
    results = _ask(browser, site_url, vector["paste"])
    box = results.find_element(By.CSS_SELECTOR, ".errorkb-foreign")
    assert box.text.startswith("Not a vLLM error: PyTorch: CUDA out of memory (from torch)")
    link = box.find_element(By.CSS_SELECTOR, "a")  # the foreign error's own page
    assert link.get_attribute("href") == f"{site_url}foreign/torch-cuda-out-of-memory/"
    assert box.find_elements(By.CSS_SELECTOR, ".errorkb-steps li code")  # what to do, flags as code
    assert not results.find_elements(By.CSS_SELECTOR, ".errorkb-match")


def test_ui_not_vllm_with_a_near_vllm_message(browser, site_url):
    from selenium.webdriver.common.by import By

    # vLLM's ValueError, one word changed, raised as another program's RuntimeError
    results = _ask(browser, site_url, "RuntimeError: max_num_seqs (256) exceeds the available Mamba cache blocks (128). Each decode "
                                      "sequence requires one Mamba cache block, so CUDA graph capture cannot proceed.")
    box = results.find_element(By.CSS_SELECTOR, ".errorkb-foreign")
    assert box.text.startswith("Not a vLLM error: An exception whose message vLLM never writes")
    assert "Near vLLM messages, worded otherwise:" in results.text
    assert results.find_elements(By.CSS_SELECTOR, ".errorkb-match")  # the near one, listed after


def test_ui_vllm_error_another_program_reraised(browser, site_url):
    from selenium.webdriver.common.by import By

    # Dynamo re-raised vLLM's RuntimeError under its own type: vLLM's error first, the wrapper after it
    results = _ask(browser, site_url, "torch._dynamo.exc.InternalTorchDynamoError: RuntimeError: Assigning / modifying buffers of "
                                      "nn.Module during forward pass is not allowed when using cudagraph inside the compiler because "
                                      "it will cause silent errors. Please use eager mode or fix the code.")
    assert results.find_elements(By.CSS_SELECTOR, ".errorkb-match")
    box = results.find_element(By.CSS_SELECTOR, ".errorkb-foreign")
    assert box.text.startswith("Re-raised by another program, not vLLM: torch.compile failed")
    assert results.text.index("Assigning / modifying buffers") < results.text.index("Re-raised by another program")


# --- no markup from the paste or the catalog ---------------------------------------------------------------


@pytest.mark.parametrize(
    "paste",
    [
        'ValueError: <img src=x onerror="window.pwned=1"> <script>window.pwned=2</script>',
        "ValueError: " + ATTENTION.format('<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>', 8),
        'helm upgrade x\nthe release could not be reached <img src=x onerror="window.pwned=1"><script>window.pwned=2</script>',
    ],
    ids=["no match", "markup in a value", "markup in the line judged not vLLM's"],
)
def test_pasted_markup_stays_text(browser, site_url, paste):
    from selenium.webdriver.common.by import By

    results = _ask(browser, site_url, paste)
    assert not results.find_elements(By.CSS_SELECTOR, "img, script, *[onerror]")
    assert browser.execute_script("return typeof window.pwned;") == "undefined"
    if "attention" in paste:
        assert '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>' in results.text
    if "helm" in paste:  # the line shown as it was pasted, as text
        line = results.find_element(By.CSS_SELECTOR, ".errorkb-foreign .errorkb-line code")
        assert line.text == paste.split("\n")[1]


def test_catalog_markup_stays_text(browser, site_url):
    from selenium.webdriver.common.by import By

    results = _ask(browser, site_url, "ValueError: Image token '<|image_pad|>' not found in tokenizer vocabulary")
    link = results.find_element(By.CSS_SELECTOR, ".errorkb-match a")
    assert link.text == "ValueError: Image token '<|image_pad|>' not found in tokenizer vocabulary"
    assert link.get_attribute("href").endswith("/site/errors/32360b7bb67915d2/")


@pytest.fixture(scope="session")
def hostile_site_url(tmp_path_factory):
    """A small site whose message and entry hold markup, script and javascript: links."""
    from generator.entries.load import load_entries
    from generator.site.build import SiteInput, build_site
    from test_site import CATALOG, ENGINE_ARGS, ENTRY

    root = tmp_path_factory.mktemp("hostile")
    (root / "errors").mkdir()
    (root / "errors" / "hostile.yaml").write_text(ENTRY)
    entries, problems = load_entries(root / "errors", root)
    assert not problems
    build_site(ROOT / "mkdocs.yml", SiteInput(catalog=CATALOG, entries=entries, engine_args=ENGINE_ARGS), root / "site")

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format, *args):  # noqa: A002 - the base class's name
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/site/"
    server.shutdown()
    server.server_close()


def test_hostile_error_page_runs_nothing(browser, hostile_site_url):
    browser.get(hostile_site_url + "errors/0123456789abcdef/")
    state = browser.execute_script(
        "const article = document.querySelector('article');"
        "return {pwned: window.pwned === undefined ? null : window.pwned,"
        " scripts: article.querySelectorAll('script').length,"
        " images: article.querySelectorAll('img').length,"
        " js_links: Array.from(document.querySelectorAll('a')).filter(a => a.href.startsWith('javascript:')).length,"
        " title: document.querySelector('h1').textContent, header: document.title};"
    )
    assert state["pwned"] is None and state["scripts"] == 0 and state["images"] == 0 and state["js_links"] == 0
    assert state["title"].startswith("A hostile <script>alert(1)</script> title")  # the entry's title, as text
    assert "A hostile <script>alert(1)</script> title" in state["header"]


# --- the site as people see it: titles, phones, dark mode, links shared -------------------------

PHONE = (390, 844)
DESKTOP = (1366, 900)
MAMBA = "c8f7b9d6b5fb8793"  # curated, with flags, reproductions and the memory calculator


@pytest.fixture
def phone(browser):
    browser.set_window_size(*PHONE)
    yield browser
    browser.set_window_size(*DESKTOP)


def _sample_pages(out: Path) -> list[str]:
    """A page of every kind: home, lists, groups, releases, the API page, a curated error
    page, an automatic one with a flags table, one with no message, and one no longer raised
    (when the site has history)."""
    index = json.loads((out / "api" / "errors" / "index.json").read_text())
    automatic = [e for e in index["errors"] if not e["curated"]]
    with_flags = next(e["id"] for e in automatic
                      if json.loads((out / "api" / "errors" / f"{e['id']}.json").read_text())["flags"])
    bare = next(e["id"] for e in automatic if not e["template"])
    gone = [f"errors/{e['id']}/" for e in automatic if not e["current"]][:1]  # in a site with history
    releases = [f"releases/{p.parent.name}/" for p in sorted((out / "releases").glob("*/index.html"))][-1:]
    return ["", "curated/", "subsystems/", "exceptions/", "exceptions/ValueError/", "releases/", *releases,
            "json-api/", f"errors/{MAMBA}/", f"errors/{with_flags}/", f"errors/{bare}/", *gone]


def test_no_page_scrolls_sideways_on_a_phone(phone, site_url, served_site):
    """At 390 px, wide tables scroll inside their box and long commands wrap: the page
    itself never scrolls sideways."""
    wide = {}
    for page in _sample_pages(served_site / BASE):
        phone.get(site_url + page)
        width, inner = phone.execute_script("return [document.documentElement.scrollWidth, window.innerWidth]")
        if width > inner:
            wide[page] = width
    assert not wide, f"pages wider than {PHONE[0]} px: {wide}"


def test_a_curated_page_is_titled_by_its_entry(browser, site_url, served_site):
    entry = json.loads((served_site / BASE / "api" / "errors" / f"{MAMBA}.json").read_text())["entry"]
    browser.get(site_url + f"errors/{MAMBA}/")
    heading = browser.execute_script("return document.querySelector('article h1').textContent")
    assert heading.rstrip("¶") == entry["title"]
    assert browser.title.startswith(entry["title"])
    og = browser.execute_script(
        "return Object.fromEntries(Array.from(document.querySelectorAll('meta[property^=og]'))"
        ".map((m) => [m.getAttribute('property'), m.content]))")
    assert og["og:title"].startswith(entry["title"]) and og["og:description"].startswith(entry["summary"][:40])
    canonical = browser.execute_script("return document.querySelector('link[rel=canonical]').href")
    assert canonical.endswith(f"/errors/{MAMBA}/") and canonical.startswith("https://")


def test_an_uncurated_page_has_a_readable_title(browser, site_url, served_site):
    index = json.loads((served_site / BASE / "api" / "errors" / "index.json").read_text())
    bare = next(e for e in index["errors"] if not e["curated"] and not e["template"] and e["current"])
    browser.get(site_url + f"errors/{bare['id']}/")
    heading = browser.execute_script("return document.querySelector('article h1').textContent").rstrip("¶")
    assert heading.startswith(bare["exception"] + " in ") and len(heading) > len(bare["exception"]) + 4


def test_dark_mode_is_one_click_away(browser, site_url):
    browser.get(site_url + f"errors/{MAMBA}/")
    scheme = "return document.body.getAttribute('data-md-color-scheme')"
    first = browser.execute_script(scheme)
    browser.execute_script("document.querySelector('label.md-header__button[for^=__palette]').click()")
    second = browser.execute_script(scheme)
    assert {first, second} == {"default", "slate"}
    browser.execute_script("document.querySelector('label.md-header__button[for^=__palette]').click()")  # as it was


def test_the_sitemap_lists_every_page(served_site):
    import gzip

    out = served_site / BASE
    urls = re.findall(r"<loc>([^<]+)</loc>", gzip.decompress((out / "sitemap.xml.gz").read_bytes()).decode())
    pages = len(list(out.glob("errors/*/index.html")))
    assert len(urls) > pages and all(u.startswith("https://") for u in urls)


def _search(browser, query: str) -> list[str]:
    """The locations of the site search's first results for ``query``, typed into the box."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.execute_script("if (!document.getElementById('__search').checked) document.querySelector('label[for=__search]').click()")
    box = browser.find_element(By.CSS_SELECTOR, "[data-md-component=search-query]")
    box.clear()
    box.send_keys(query)
    results = "return Array.from(document.querySelectorAll('.md-search-result__item > a')).map(a => a.getAttribute('href'))"
    # Each key sends a query of its own ("K", "KV", ...), and a partial query's results can
    # show first: the results count once the whole query is in and they hold still.
    seen = []

    def settled(b) -> bool:
        seen.append(b.execute_script(results))
        return box.get_attribute("value") == query and len(seen) >= 2 and seen[-1] and seen[-1] == seen[-2]

    WebDriverWait(browser, 60, poll_frequency=0.5).until(settled)
    return [href.split("?")[0].split("/site/", 1)[-1] for href in seen[-1]]


def test_the_search_index_loads_only_when_the_search_is_used(browser, site_url):
    browser.get(site_url + f"errors/{MAMBA}/")
    loaded = "return performance.getEntriesByType('resource').filter((e) => e.name.includes('search_index')).length"
    browser.execute_script("window.scrollBy(0, 400)")
    assert browser.execute_script(loaded) == 0 and not browser.execute_script("return window.errorkbSearchIndexRequested()")
    _search(browser, "Mamba")
    assert browser.execute_script(loaded) == 1


def test_search_ranks_curated_pages_first_and_finds_ids_and_flags(browser, site_url, served_site):
    index = json.loads((served_site / BASE / "api" / "errors" / "index.json").read_text())
    curated = {f"errors/{e['id']}/" for e in index["errors"] if e["curated"]}
    browser.get(site_url)
    found = _search(browser, "KV cache")
    assert found[0] in curated and found[1] in curated, found[:5]
    some_id = next(e["id"] for e in index["errors"] if not e["curated"] and e["template"])
    assert _search(browser, some_id)[0] == f"errors/{some_id}/"
    about = _search(browser, "--max-num-seqs")[:5]  # a flag as people write it: pages about that flag
    flags = [json.loads((served_site / BASE / "api" / f"{href.rstrip('/')}.json").read_text())["flags"] for href in about]
    has_flag = [any(f["flag"] == "--max-num-seqs" for f in page) for page in flags]
    assert has_flag[0] and sum(has_flag) >= 2, about  # the first, and others among pages on max_num_batched_tokens


def test_the_search_index_is_small(served_site):
    import gzip

    size = len(gzip.compress((served_site / BASE / "search" / "search_index.json").read_bytes()))
    assert size <= 1_500_000, f"the search index is {size:,} bytes gzipped; the goal is at most 1.5 MB"


def test_the_home_page_has_curated_cards_and_a_one_click_example(browser, site_url):
    browser.get(site_url)
    cards = browser.execute_script(
        "return Array.from(document.querySelectorAll('.errorkb-cards li a')).map((a) => [a.textContent, a.getAttribute('href')])")
    assert 6 <= len(cards) <= 12 and len({title for title, _ in cards}) == len(cards)  # one card per entry
    browser.execute_script("document.getElementById('errorkb-sample').click()")
    from selenium.webdriver.support.ui import WebDriverWait

    first = "const a = document.querySelector('#errorkb-results .errorkb-match a'); return a && a.getAttribute('href');"
    WebDriverWait(browser, 60).until(lambda b: b.execute_script(first))
    assert browser.execute_script(first).endswith("errors/bdaa78831d773037/")  # the example's own error
    assert "1048576" in browser.execute_script("return document.getElementById('errorkb-paste').value")


def test_long_lists_are_split_and_filtered(browser, site_url, served_site):
    out = served_site / BASE
    assert (out / "exceptions" / "ValueError-page-2" / "index.html").is_file()
    browser.get(site_url + "exceptions/ValueError/")
    rows = "return Array.from(document.querySelectorAll('table.errorkb-list tbody tr')).filter((r) => !r.hidden).length"
    assert browser.execute_script(rows) == 500
    box = browser.find_element("css selector", ".errorkb-filter input")
    box.send_keys("mamba")
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, 10).until(lambda b: 0 < b.execute_script(rows) < 50)  # a key at a time: "m" first
    names = [p.name for p in (out / "exceptions").iterdir()]
    assert "helpers" in names and "_dispatch_expr_error" not in names and "bypass_cls" not in names


def test_paste_results_are_titled_like_the_pages(browser, site_url):
    """A curated error's result carries its entry's title, in the browser as on its page."""
    lookup_page = _home_with_the_index(browser, site_url)  # tests before it may have left for another site
    found = lookup_page.execute_async_script(LOOKUP, [
        "ValueError: max_num_seqs (1024) exceeds available Mamba cache blocks (600). Each decode sequence requires one Mamba "
        "cache block, so CUDA graph capture cannot proceed. Please lower max_num_seqs to at most 600 or increase "
        "gpu_memory_utilization."], 1)
    assert "error" not in found, found
    assert found["found"][0]["matches"][0]["title"] == \
        "Fewer Mamba cache blocks than max_num_seqs, so full CUDA graphs cannot be captured"


def test_one_result_per_problem_in_the_browser(lookup_page):
    from test_lookup import _releases_with_the_same_message

    from generator.lookup.index import compact_index, matcher_from_index

    index = compact_index(_releases_with_the_same_message())
    text = "max_num_seqs (256) exceeds available Mamba cache blocks (161)."
    found = lookup_page.execute_async_script(
        "const [index, text, done] = arguments; Promise.resolve(window.errorkb._lookupWith(index, text, 2))"
        ".then((r) => done(r), (e) => done({error: String(e && e.stack || e)}));", json.dumps(index), text)
    assert "error" not in found, found
    py = python_result(matcher_from_index(index), text, 2)
    assert found == py
    assert [m["id"] for m in found["matches"]] == ["b000000000000001"]
    assert found["matches"][0]["also"] == [{"id": "a000000000000001", "versions": ["v1", "v2"]}]


# Templates of older releases that the pin's site lacks, for rules that need them: a small
# index of two releases, read by lookup.js and by the Python matcher alike.
SMALL_INDEX_ERRORS = [
    ("c000000000000001", "RuntimeError", "Worker failed", "vllm/v1/executor/multiproc_executor.py", "MultiprocExecutor.collective_rpc", "raise"),
    ("c000000000000002", "RuntimeError", "Worker failed with error '{result}', please check the stack trace above for the root cause",
     "vllm/v1/executor/multiproc_executor.py", "get_response", "raise"),
    ("c000000000000003", "ValueError", "Invalid {kind} config: {e}", "vllm/config/a.py", "check", "raise"),
    ("c000000000000004", "ERROR", "Worker proc {proc_name} died unexpectedly, shutting down executor.",
     "vllm/v1/executor/multiproc_executor.py", "monitor", "log"),
    ("c000000000000005", "AssertionError", "{numerator} is not divisible by {denominator}", "vllm/distributed/utils.py",
     "ensure_divisibility", "raise"),
    ("c000000000000006", "RuntimeError", "Engine core initialization failed. See root cause above. Failed core proc(s): {finished}",
     "vllm/v1/engine/utils.py", "wait_for_engine_startup", "raise"),
    ("c000000000000007", "RuntimeError", "Engine process failed to start. See stack trace for the root cause.",
     "vllm/entrypoints/openai/api_server.py", "build_async_engine_client_from_engine_args", "raise"),
    ("c000000000000008", "ERROR", "An unexpected error occurred", "vllm/tool_parsers/b.py", "parse", "log"),
    ("c000000000000009", "ValueError", "Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your {gpu} GPU "
     "{compute}. You can use float16 instead.", "vllm/platforms/cuda.py", "check_dtype", "raise"),
    ("c000000000000010", "ValueError", "Free memory on device ({free}/{total} GiB) on startup is less than desired GPU memory "
     "utilization ({util}, {want} GiB). Decrease GPU memory utilization.", "vllm/v1/worker/utils.py", "request_memory", "raise"),
    ("c000000000000011", "ValueError", "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
     "initializing the engine.", "vllm/v1/core/kv_cache_utils.py", "check_enough_kv_cache_memory", "raise"),
    ("c000000000000012", "ERROR", "Error in {name}: {e}", "vllm/distributed/c.py", "run", "log"),
    ("c000000000000013", "WARNING", "{arch} has no vLLM implementation, falling back to Transformers implementation.",
     "vllm/model_executor/model_loader/utils.py", "resolve", "log"),
    ("c000000000000014", "ValueError", "{arch} has no vLLM implementation and the Transformers implementation is not compatible "
     "with vLLM.", "vllm/model_executor/model_loader/utils.py", "resolve", "raise"),
    ("c000000000000015", "ERROR", "Worker {process.name} pid {process.pid} died, exit code: {process.exitcode}",
     "vllm/executor/multiproc_worker_utils.py", "run", "log"),
    ("c000000000000016", "WARNING", "FlashInfer is not available. Falling back to the PyTorch-native implementation of top-p & "
     "top-k sampling. For the best performance, please install FlashInfer.", "vllm/v1/sample/ops/topk_topp_sampler.py",
     "TopKTopPSampler.__init__", "log"),
    ("c000000000000017", "ValueError", "Model architecture '{model_arch}' is not supported by ROCm for now.", "vllm/model_executor/models/registry.py",
     "_raise_for_unsupported", "raise"),
    # ... and as many messages that share its first words: their grams tell nothing
    *[(f"d{i:015d}", "ValueError", f"{i} FlashInfer is not avail", "vllm/x.py", "f", "raise") for i in range(STOP_GRAM_ENTRIES + 1)],
]
SMALL_INDEX_PASTES = {
    "a title's tag before a message cut where a raise and a warning read alike": (
        "[Bug]: StableLMAlphaForCausalLM has no vLLM implementation", "c000000000000014"),
    "... without the tag": ("StableLMAlphaForCausalLM has no vLLM implementation", "c000000000000013"),
    "an exception above V0's report that a worker died": (
        'ERROR 01-24 11:29:27 engine.py:366]   File "/usr/local/lib/python3.10/dist-packages/vllm/model_executor/models/'
        'internlm2.py", line 430, in load_weights\nERROR 01-24 11:29:27 engine.py:366]     param = params_dict[name]\n'
        "ERROR 01-24 11:29:27 engine.py:366] KeyError: 'model.layers.0.attention.wqkv.qweight'\n"
        "ERROR 01-24 11:29:28 multiproc_worker_utils.py:123] Worker VllmWorkerProcess pid 6961 died, exit code: -15", None),
    "a title that goes on after the first sentence of a long template whose grams tell little": (
        "[Bug]: FlashInfer is not available when serving Qwen3-32B", "c000000000000016"),
    "... on a later line, where no title is": ("Log:\n[Bug]: FlashInfer is not available when serving Qwen3-32B", None),
    "... the report alone": ("ERROR 01-24 11:29:28 multiproc_worker_utils.py:123] Worker VllmWorkerProcess pid 6961 died, "
                             "exit code: -15", "c000000000000015"),
    "a message grown past the one the frame names": (
        '  File "/x/site-packages/vllm/v1/executor/multiproc_executor.py", line 185, in collective_rpc\n'
        "    raise RuntimeError(\nRuntimeError: Worker failed with error 'at 1:0:", "c000000000000002"),
    "a wrapper around a few words of a template": (
        "RuntimeError: Worker failed with error 'Invalid thread config: thread_m_blocks = 1, thread_k = -1', please check the "
        "stack trace above for the root cause", "c000000000000002"),
    "an error logged above a traceback shown in part": (
        "ERROR 11-17 00:53:02 [multiproc_executor.py:230] Worker proc VllmWorker-0 died unexpectedly, shutting down executor.\n"
        '...\nFile "/x/vllm/v1/engine/core.py", line 228, in _initialize_kv_caches\n...\n'
        "RuntimeError: Worker failed with error 'This flash attention build does not support headdim not being a multiple of 32.'",
        "c000000000000002"),
    "a value another program's words name": ("AssertionError: rollout world_size: 1 is not divisible by infer_tp: 2", None),
    "a value after a prefix": ("[rank0]: AssertionError: 32768 is not divisible by 3", "c000000000000005"),
    "an exception above a report of a root cause above": (
        "ValueError: Check 0 == ret failed, left operand=0, speculative_attention failed\n"
        "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {'EngineCore_DP0': 1}", None),
    "a report under its raise after another program's error": (
        "RuntimeError: The NVIDIA driver on your system is too old (found version 11080).\n"
        '  File "/x/vllm/entrypoints/openai/api_server.py", line 230, in build_async_engine_client_from_engine_args\n'
        "    raise RuntimeError(\nRuntimeError: Engine process failed to start. See stack trace for the root cause.", None),
    "a logged message inside a client's error body": ('{"detail":"Internal server error: An unexpected error occurred."}', None),
    "the logged message on a log line": ("ERROR 01-01 00:00:00 [b.py:1] An unexpected error occurred", "c000000000000008"),
    "a title that ends a first sentence with a number": (
        "[Bug]: Bfloat16 is only supported on GPUs with compute capability of at least 8.0 on my V100", "c000000000000009"),
    "an untyped title that ends a first sentence with a unit in brackets": (
        "Free memory on device (7.34/139.72 GiB) on startup is less than desired GPU memory utilization (0.9, 125.75 GiB) "
        "with 2 GPUs", "c000000000000010"),
    "vLLM's helper copied into another package": (
        '  File "/usr/lib/python3.11/site-packages/sglang/srt/distributed/utils.py", line 23, in ensure_divisibility\n'
        '    assert numerator % denominator == 0, "{} is not divisible by {}".format(\n'
        "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^\nAssertionError: 16 is not divisible by 6", None),
    "vLLM's message written in an unknown package's own raise": (
        '  File "/x/site-packages/someplugin/worker.py", line 9, in init\n'
        '    raise ValueError("No available memory for the cache blocks. Try increasing `gpu_memory_utilization` "\n'
        "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the "
        "engine.", None),
    "pydantic's value error before a title's short first sentence": (
        "1 validation error for ModelConfig\n  Value error, No available memory for the cache blocks on my H20 "
        "[type=value_error, input_value=ArgsKwargs((), {}), input_type=ArgsKwargs]", "c000000000000011"),
    "the same, then a sentence of the paste's own": (
        "Free memory on device (7.34/139.72 GiB) on startup is less than desired GPU memory utilization (0.9, 125.75 GiB). "
        "My server then stopped.", "c000000000000010 partial"),
    "a word that runs on past vLLM's word before a value": (
        "Error: Error Internal (cutlass_kernel_file_gemm_grouped_sm120_M128_BS_group2.generated.cu:60)", None),
    "vLLM's word before a value, then the value": ("Error: Error in cutlass_grouped_gemm: status 60", "c000000000000012"),
    "a word before a quoted value that runs on in the paste": (
        "ValueError: Model architectures ['TTQwen2ForCausalLM'] are ... for now.", None),
    "the word, then the quoted value": ("ValueError: Model architecture 'TTQwen2ForCausalLM' is not supported by ROCm for now.", "c000000000000017"),
}


def test_rules_that_need_older_templates_as_python(lookup_page):
    """The rules for wrappers, reports, logs, opening values and titles, over a small index of the
    templates they need (the pin's site lacks some): lookup.js answers as the Python matcher,
    and the Python matcher as intended."""
    from generator.lookup.index import compact_index, matcher_from_index

    errors = [{"id": id_, "exception": exception, "template": template, "has_message": True, "kind": kind,
               "sites": [{"path": path, "line": 10 + n, "function": function, "template": template}]}
              for n, (id_, exception, template, path, function, kind) in enumerate(SMALL_INDEX_ERRORS)]
    index = compact_index([{"revision": "v1", "errors": errors[:1]}, {"revision": "v2", "errors": errors[1:]}])
    matcher = matcher_from_index(index)
    names = list(SMALL_INDEX_PASTES)
    found = lookup_page.execute_async_script(
        "const [index, texts, done] = arguments; Promise.all(texts.map((t) => window.errorkb._lookupWith(index, t, 3)))"
        ".then((r) => done(r), (e) => done({error: String(e && e.stack || e)}));",
        json.dumps(index), [SMALL_INDEX_PASTES[n][0] for n in names])
    assert "error" not in found, found
    differ, unintended = {}, {}
    for name, js in zip(names, found):
        text, want = SMALL_INDEX_PASTES[name]
        py = python_result(matcher, text, 3)
        if comparable(js) != comparable(py):
            differ[name] = {"js": comparable(js), "python": comparable(py)}
        first = None  # the answer: the first match, exact unless said, or another program's error
        if py["matches"] and not (py["not_vllm"] and py["not_vllm"]["role"] == "answer"):
            first = py["matches"][0]["id"] + ("" if py["matches"][0]["verdict"] == "exact" else " partial")
        if first != want:
            unintended[name] = first
    assert not differ, json.dumps(differ, indent=1)[:6000]
    assert not unintended, unintended
