"""In which phase of a vLLM run an error is raised, read from where its raise site is.

vLLM's source is laid out by phase: argument parsing in the command-line modules, engine
configuration in ``vllm/config/`` and the platforms' checks, model loading in the loaders
and the layers' weight creation, memory profiling in the workers and KV cache planning,
request handling in the server, the renderers and the parameter classes. A page says the
phase so that a reader knows when the error can happen (at start-up, before the model is
loaded; or per request, with the server still running).

The rules read the raise site's module and function, not a call graph: a helper called
from several phases gets no phase rather than a wrong one. Pure: strings in, a phase out.
"""

from __future__ import annotations

import re

__all__ = ["PHASES", "phase_of_site"]

# What each phase means to a person reading a page, in the order a run meets them.
PHASES = {
    "argument parsing": "while `vllm serve` reads its command line, before anything is loaded",
    "engine configuration": "while vLLM checks the engine's configuration at start-up, before the model is loaded",
    "engine start-up": "while the engine's processes and workers start, or when one of them dies",
    "model loading": "while the model's weights are created and loaded",
    "memory profiling": "after loading, while vLLM measures memory and sizes the KV cache (or captures CUDA graphs)",
    "request handling": "for one request, while the server keeps running",
}

# (phase, module pattern, function pattern or None), first match wins; the patterns are
# searched in the path below ``vllm/`` and in the function's qualified name.
_RULES: tuple[tuple[str, str, str | None], ...] = (
    ("argument parsing", r"^entrypoints/(?:.+/)?cli_args\.py$|^entrypoints/cli/|^utils/argparse_utils\.py$", None),
    ("argument parsing", r"^engine/arg_utils\.py$", r"add_cli_args|from_cli_args|parse|_check_"),
    ("engine configuration", r"^engine/arg_utils\.py$", None),
    ("memory profiling", r"^v1/core/kv_cache_(?:utils|planning)\.py$", None),
    ("memory profiling", r"^v1/worker/", r"determine_available_memory|profile|_dummy_run|_dummy_sampler_run|"
                                         r"capture_model|initialize_kv_cache|request_memory|compile_or_warm_up"),
    ("memory profiling", r"^v1/worker/utils\.py$", r"memory"),
    ("model loading", r"^model_executor/model_loader/", None),
    ("model loading", r"^model_executor/(?:layers|models)/", r"load_weights|weight_loader|create_weights|"
                                                           r"process_weights_after_loading|_load_|load_model"),
    ("model loading", r"^v1/worker/", r"load_model"),
    ("engine configuration", r"^config/|^transformers_utils/config\.py$|^platforms/", None),
    ("engine configuration", r"^model_executor/models/", r"verify_and_update_config|__init__$"),
    ("engine start-up", r"^v1/engine/(?:core_client|utils|core)\.py$|^v1/executor/|^distributed/(?!kv_transfer/|ec_transfer/|eplb/)|^v1/utils\.py$", None),
    ("request handling", r"^entrypoints/|^sampling_params\.py$|^pooling_params\.py$|^renderers/|^inputs/|"
                         r"^tool_parsers/|^reasoning/|^v1/structured_output/|^tokenizers/|"
                         r"^v1/engine/(?:input_processor|output_processor|async_llm|llm_engine)\.py$", None),
)
_COMPILED = tuple((phase, re.compile(module), re.compile(function) if function else None)
                  for phase, module, function in _RULES)


def phase_of_site(path: str, function: str) -> str:
    """The phase an error raised at ``path`` (``vllm/...py``) in ``function`` belongs to,
    or "" when its place does not tell."""
    inner = path.split("/", 1)[1] if path.startswith("vllm/") else path
    for phase, module, pattern in _COMPILED:
        if module.search(inner) and (pattern is None or pattern.search(function or "")):
            return phase
    return ""
