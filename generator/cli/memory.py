"""``errorkb memory``: parse the flags, call the memory calculator, print the report."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING
import json
from pathlib import Path

from generator import text
from generator.config import Config
from generator.memory.gpus import find_gpu, gpu_memory_bytes, load_gpus
# The calculator itself is imported where it runs: every other command starts without it.
if TYPE_CHECKING:
    from generator.memory.findings import MemoryReport
    from generator.memory.settings import ServeSettings


def add_parser(commands) -> None:
    memory = commands.add_parser(
        "memory",
        help="whether a model fits a GPU under the pinned vLLM, and which memory error it would raise",
        description="KV cache bytes per token as vLLM computes them, the budget left for the KV cache, "
        "what fits, and the known errors this configuration would raise with the flags that fix them.",
    )
    memory.add_argument("--model", required=True, type=Path, help="the model's config.json, or the folder holding it")
    where = memory.add_mutually_exclusive_group(required=True)
    where.add_argument("--gpu", help=f"a GPU from the table: {', '.join(g.name for g in load_gpus())}")
    where.add_argument("--gpu-memory", help="the GPU's memory, e.g. 24GiB or 80GB")
    memory.add_argument("--gpu-memory-utilization", type=float, default=0.92, help="vLLM's share of the GPU (default 0.92)")
    memory.add_argument("--max-model-len", help="tokens per request (default: the model's); auto or -1: the largest that fits")
    memory.add_argument("--max-num-seqs", type=int, help="sequences at once (default: vLLM's for the GPU)")
    memory.add_argument("--max-num-batched-tokens", type=int, help="tokens per step (default: vLLM's for the GPU)")
    memory.add_argument("--kv-cache-dtype", default="auto", help="auto (the model's dtype) or fp8")
    memory.add_argument("--dtype", default="auto", help="auto, bfloat16, float16 or float32")
    memory.add_argument("--quantization", help="fp8, awq, gptq, bitsandbytes, ... (default: the checkpoint's)")
    memory.add_argument("--tensor-parallel-size", type=int, default=1, help="GPUs the model is split over (default 1)")
    memory.add_argument("--mamba-ssm-cache-dtype", default="auto", help="Mamba state dtype: auto, float32, bfloat16")
    memory.add_argument("--enforce-eager", action="store_true", help="no CUDA graphs")
    memory.add_argument("--kv-cache-memory", help="the KV cache memory, as vLLM's --kv-cache-memory-bytes or its log's "
                        "\"Available KV cache memory\" (skips the estimates)")
    memory.add_argument("--block-size", type=int, help="tokens per KV cache block (default: 16, 64 for MLA)")
    memory.add_argument("--json", action="store_true", help="print the whole report as JSON")
    memory.set_defaults(run=run)


def settings_from(args: argparse.Namespace) -> ServeSettings:
    from generator.memory.settings import MemoryInputError, ServeSettings, parse_size

    gpu_name = ""
    if args.gpu:
        gpu = find_gpu(args.gpu)
        total, gpu_name = gpu_memory_bytes(gpu), gpu.name
    else:
        total = parse_size(args.gpu_memory)
    max_model_len = None
    if args.max_model_len is not None:
        text = str(args.max_model_len).strip().lower()
        if text in ("auto", "-1"):
            max_model_len = -1
        elif text.isdigit() and int(text) > 0:
            max_model_len = int(text)
        else:
            raise MemoryInputError(f"--max-model-len {args.max_model_len!r}: give a number of tokens, or auto")
    return ServeSettings(
        gpu_memory_bytes=total,
        gpu_memory_utilization=args.gpu_memory_utilization,
        max_model_len=max_model_len,
        max_num_seqs=args.max_num_seqs,
        max_num_batched_tokens=args.max_num_batched_tokens,
        dtype=args.dtype,
        kv_cache_dtype=args.kv_cache_dtype,
        mamba_ssm_cache_dtype=args.mamba_ssm_cache_dtype,
        quantization=args.quantization,
        tensor_parallel_size=args.tensor_parallel_size,
        enforce_eager=args.enforce_eager,
        kv_cache_memory_bytes=parse_size(args.kv_cache_memory) if args.kv_cache_memory else None,
        block_size=args.block_size,
        gpu_name=gpu_name,
    )


def run(config: Config, args: argparse.Namespace) -> int:
    from generator.memory.configs import read_config
    from generator.memory.findings import calculate

    model = read_config(args.model)
    report = calculate(model, settings_from(args), str(args.model))
    if args.json:
        data = report.to_json()
        for finding in data["errors"]:
            finding["url"] = error_url(config, finding["id"])
        print(json.dumps(data, indent=1, ensure_ascii=False))
    else:
        print(render_text(report, config))
    return 1 if report.errors else 0


def error_url(config: Config, error_id: str) -> str:
    url = text.error_url(config.site_url, error_id)
    return url if config.site_url else f"{url} on the site"


def entry_title(config: Config, slug: str) -> str:
    import yaml

    try:
        return yaml.safe_load((config.root / "errors" / f"{slug}.yaml").read_text(encoding="utf-8"))["title"]
    except (OSError, KeyError, TypeError, yaml.YAMLError):
        return slug


DEFAULT_LENGTH = "vLLM's default; config.json gives none"


def gib(size: int) -> str:
    from generator.memory.settings import GIB

    return f"{size / GIB:,.2f} GiB"


def render_text(report: MemoryReport, config: Config) -> str:
    from generator.memory.findings import REPORT_TEXTS

    model, settings, kv, budget = report.model, report.settings, report.kv_cache, report.budget
    lines = []
    kinds = [f"{model['attention_layers']} attention"]
    if model["sliding_window_layers"]:
        kinds.append(f"{model['sliding_window_layers']} of them sliding-window ({kv['sliding_window']} tokens)")
    if model["mla_layers"]:
        kinds.append("MLA")
    if model["mamba_layers"]:
        kinds.append(f"{model['mamba_layers']} Mamba")
    lines.append(f"{model['architecture']} ({model['model_type']}): {model['parameters']:,} parameters, "
                 f"{model['layers']} layers ({', '.join(kinds)}), context {model['derived_max_model_len']:,} "
                 f"({model['max_len_key'] or DEFAULT_LENGTH})")
    gpu = settings["gpu_name"] or "GPU"
    tp = settings["tensor_parallel_size"]
    lines.append(f"{gpu}: {gib(settings['gpu_memory_bytes'])} x {settings['gpu_memory_utilization']} = "
                 f"{gib(budget.get('requested_bytes', 0))} for vLLM per GPU" + (f", tensor parallel {tp}" if tp > 1 else ""))
    lines.append("")
    if not model["attention_layers"] and not model["mamba_layers"]:
        lines.append("No KV cache: an encoder-only model keeps nothing between steps.")
    if model["attention_layers"]:
        lines.append(f"KV cache per token: {kv['bytes_per_token']:,} bytes per GPU "
                     f"({model['attention_layers']} attention layers, {model['dtype_bytes'] if settings['kv_cache_dtype'] == 'auto' else settings['kv_cache_dtype']}"
                     f"{' bytes' if settings['kv_cache_dtype'] == 'auto' else ''} per element)")
        if kv["sliding_window_bytes_per_token"]:
            lines.append(f"  of which {kv['sliding_window_bytes_per_token']:,} bytes in sliding-window layers, kept for the last "
                         f"{kv['sliding_window']:,} tokens only")
    if model["mamba_layers"]:
        lines.append(f"Mamba state per sequence: {kv['mamba_state_bytes']:,} bytes ({model['mamba_layers']} layers x "
                     f"{kv['mamba_state_bytes_per_layer']:,}), whatever its length; one block is {kv.get('mamba_page_bytes', 0):,} bytes")
    if "block_size" in kv:
        lines.append(f"Blocks: {kv['block_size']} tokens, {len(kv['groups'])} group(s), "
                     f"{budget.get('bytes_per_block', 0):,} bytes per block")
    lines.append("")
    if budget.get("kv_cache_bytes_given"):
        lines.append(f"KV cache memory (given): {gib(budget['kv_cache_bytes'])}")
    else:
        lines.append("Taken before the KV cache (per GPU):")
        for reserve in budget.get("reserves", []):
            mark = "estimate: " if reserve["estimate"] else ""
            lines.append(f"  {reserve['name']:<24}{gib(reserve['bytes']):>12}  {mark}{reserve['source']}")
        lines.append(f"KV cache budget: {gib(budget.get('kv_cache_bytes', 0))}")
        if budget.get("weights_exceed_gpu"):
            lines.append(REPORT_TEXTS["weights_exceed_gpu"])
    if "num_blocks" in budget:
        lines.append(f"Fits: {budget['tokens']:,} tokens ({budget['num_blocks']:,} blocks); "
                     f"{budget['concurrency']:.2f} requests of {settings['max_model_len']:,} tokens at once")
    if "largest_max_model_len" in budget:
        lines.append(f"Largest --max-model-len that fits: {budget['largest_max_model_len']:,}")
    lines.append("")
    if not report.errors:
        lines.append("Known errors: none; " + REPORT_TEXTS["no_error"])
    for finding in report.errors:
        lines.append(f"Raises {finding.id}: {entry_title(config, finding.entry)}")
        lines.append(f"  {error_url(config, finding.id)}")
        lines.append(f"  vLLM: {finding.message}")
        if finding.fixes:
            fixes = "; ".join(REPORT_TEXTS["fix"].format(flags=fix["flags"], kv_cache_tokens=f"{fix['kv_cache_tokens']:,}")
                              for fix in finding.fixes)
            lines.append("  " + REPORT_TEXTS["fixes"].format(fixes=fixes))
        else:
            lines.append("  " + REPORT_TEXTS["no_fix"])
    return "\n".join(lines)

