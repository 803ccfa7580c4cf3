"""Engine arguments and `vllm serve` flags, read statically from vLLM's source."""

from __future__ import annotations

import dataclasses
import re
import subprocess
import textwrap

import pytest

from generator.vllm.engine_args import (
    EngineArg,
    engine_args_at,
    parse_engine_args,
    serve_flags,
    serve_flags_at,
)


def by_name(args: list[EngineArg]) -> dict[str, EngineArg]:
    return {a.name: a for a in args}


# A small modern layout: config classes in a package re-exported by vllm/config/__init__.py.
CONFIG_INIT = '''
    from vllm.config.cache import CacheConfig
    from vllm.config.model import ModelConfig
    from .scheduler import SchedulerConfig
    from vllm.config.lora import *
    from vllm.config.vllm import VllmConfig
'''
CACHE = '''
    from dataclasses import field
    from pydantic import Field
    from vllm.config.utils import config

    @config
    class CacheConfig:
        """Configuration for the KV cache."""

        DEFAULT_BLOCK_SIZE: ClassVar[int] = 16

        block_size: int = Field(default=None, gt=0)
        """Size of a contiguous cache block in number of tokens."""
        gpu_memory_utilization: float = Field(default=0.92, gt=0, le=1)
        """The fraction of GPU memory to be used for the model
        executor, which can range from 0 to 1.

        A second paragraph that is not part of the help."""
        cache_dtype: str = "auto"
        """Data type for kv cache storage."""
        skip_layers: list[str] = field(default_factory=list)
        """Layers to skip."""
        prefetch_block_size: int = Field(default=DEFAULT_PREFETCH, ge=1)
        """Prefetch block size."""
        sliding: bool = Field(False)
    DEFAULT_PREFETCH = 16 * 1024 * 1024
'''
MODEL = '''
    from dataclasses import dataclass, field
    from enum import Enum

    class ModelImpl(str, Enum):
        AUTO = "auto"
        VLLM = "vllm"

    @dataclass
    class BaseModelConfig:
        seed: int = 0
        """Random seed for reproducibility."""

    @dataclass
    class ModelConfig(BaseModelConfig):
        model: str = "Qwen/Qwen3-0.6B"
        """Name or path of the Hugging Face model to use."""
        max_model_len: int = Field(default=None, ge=-1)
        """Model context length (prompt and output)."""
        enforce_eager: bool = False
        """Whether to always use eager-mode PyTorch."""
        model_impl: str = ModelImpl.AUTO.value
        """Which implementation of the model to use."""
        hf_overrides: dict = field(default_factory=dict)
        allowed_origins: list[str] = field(default_factory=lambda: ["*"])
        async_output: bool = True
'''
SCHEDULER = '''
    from pydantic import Field
    from vllm.config.utils import config

    DEFAULT_MAX_NUM_SEQS = 128

    @config
    class SchedulerConfig:
        max_num_seqs: int = Field(default=DEFAULT_MAX_NUM_SEQS, ge=1)
        """Maximum number of sequences to be processed in a single iteration."""
        policy: str = "fcfs"
        """The scheduling policy to use."""
'''
LORA = '''
    from dataclasses import dataclass, field
    from pydantic import Field

    @dataclass
    class LoRAConfig:
        max_loras: int = Field(default=1, ge=1)
        """Max number of LoRAs in a single batch."""
        target_modules: list[str] | None = field(default_factory=list)
        """Restrict LoRA to specific module suffixes."""
'''
VLLM_CONFIG = '''
    from pydantic import Field
    from vllm.config.cache import CacheConfig

    @config
    class VllmConfig:
        cache_config: CacheConfig = Field(default_factory=CacheConfig)
        """Cache configuration."""
'''
ARG_UTILS = '''
    import argparse
    from dataclasses import dataclass, field
    from typing import Optional

    from vllm.config import (CacheConfig, LoRAConfig, ModelConfig, SchedulerConfig,
                             VllmConfig)
    from vllm.config.model import ModelImpl
    from vllm.config.utils import get_field

    SWAP_SPACE = 4

    def get_kwargs(cls):
        for field in fields(cls):
            if contains_type(type_hints, bool):
                kwargs[name]["action"] = argparse.BooleanOptionalAction

    @dataclass
    class EngineArgs:
        """Arguments for vLLM engine."""
        model: str = ModelConfig.model
        seed: int = ModelConfig.seed
        max_model_len: Optional[int] = ModelConfig.max_model_len
        max_num_seqs: int | None = None
        scheduling_policy: str = SchedulerConfig.policy
        gpu_memory_utilization: float = CacheConfig.gpu_memory_utilization
        kv_cache_dtype: str = CacheConfig.cache_dtype
        block_size: int | None = CacheConfig.block_size
        kv_cache_skip_layers: list[str] = get_field(CacheConfig, "skip_layers")
        prefetch_block_size: int = CacheConfig.prefetch_block_size
        max_loras: int = get_field(LoRAConfig, "max_loras")
        lora_target_modules: list[str] | None = get_field(LoRAConfig, "target_modules")
        cache_config: CacheConfig = get_field(VllmConfig, "cache_config")
        enforce_eager: bool = ModelConfig.enforce_eager
        enable_prefix_caching: bool | None = None
        disable_log_stats: bool = False
        swap_space: float = SWAP_SPACE
        tokenizer_mode: str = 'auto'
        hf_overrides: dict = field(default_factory=dict)
        extra: dict = field(default=None)
        model_impl: str = ModelConfig.model_impl
        impl: ModelImpl = ModelImpl.AUTO
        disable_async: bool = not ModelConfig.async_output
        weird: int = compute_default()
        quantization_config: "dict[str, Any] | None" = None
        """User-facing quantization configuration.

        More details."""
        _api_process_count: int = 1
        lora_dtype = "auto"
        CONSTANT: ClassVar[int] = 3

    @dataclass
    class AsyncEngineArgs(EngineArgs):
        enable_log_requests: bool = False
        """Enable logging requests."""
'''


def modern(**extra: str) -> dict[str, str]:
    """A fake tree (path -> text); ``extra`` adds or replaces files."""
    files = {
        "vllm/config/__init__.py": CONFIG_INIT,
        "vllm/config/cache.py": CACHE,
        "vllm/config/model.py": MODEL,
        "vllm/config/scheduler.py": SCHEDULER,
        "vllm/config/lora.py": LORA,
        "vllm/config/vllm.py": VLLM_CONFIG,
        "vllm/engine/arg_utils.py": ARG_UTILS,
        **extra,
    }
    return {path: textwrap.dedent(text) for path, text in files.items()}


@pytest.fixture(scope="module")
def fake_args() -> dict[str, EngineArg]:
    return by_name(parse_engine_args(modern().get))


# --------------------------------------------------------------------------- fake trees


def test_fake_tree_paths():
    files = modern()
    assert "vllm/config/__init__.py" in files and "vllm/engine/arg_utils.py" in files
    assert "vllm/config/cache.py" in files


def test_literal_and_none_defaults(fake_args):
    assert fake_args["tokenizer_mode"] == EngineArg(
        name="tokenizer_mode", flag="--tokenizer-mode", type="str", default="'auto'",
        default_from="", help="", group="", negatable=False)
    none = fake_args["max_num_seqs"]
    assert (none.type, none.default, none.default_from, none.flag) == ("int | None", "None", "", "--max-num-seqs")
    assert fake_args["disable_log_stats"].default == "False"


def test_class_attribute_resolved_through_config_reexport(fake_args):
    gpu = fake_args["gpu_memory_utilization"]
    assert gpu.default == "0.92"  # Field(default=0.92, ...) in vllm/config/cache.py
    assert gpu.default_from == "CacheConfig.gpu_memory_utilization"
    assert gpu.group == "CacheConfig"
    assert gpu.type == "float" and gpu.flag == "--gpu-memory-utilization"
    # the attribute's docstring, first paragraph, whitespace collapsed
    assert gpu.help == ("The fraction of GPU memory to be used for the model executor, "
                        "which can range from 0 to 1.")
    dtype = fake_args["kv_cache_dtype"]  # the field and the attribute have different names
    assert (dtype.default, dtype.default_from, dtype.help) == (
        "'auto'", "CacheConfig.cache_dtype", "Data type for kv cache storage.")
    # a relative re-export (from .scheduler import ...) and a module constant
    policy = fake_args["scheduling_policy"]
    assert (policy.default, policy.default_from, policy.group) == ("'fcfs'", "SchedulerConfig.policy",
                                                                  "SchedulerConfig")
    # an attribute of a base class
    seed = fake_args["seed"]
    assert (seed.default, seed.default_from, seed.help) == ("0", "ModelConfig.seed",
                                                            "Random seed for reproducibility.")


def test_pydantic_field_defaults(fake_args):
    assert fake_args["block_size"].default == "None"  # Field(default=None, gt=0)
    assert fake_args["max_model_len"].default == "None"
    assert fake_args["max_model_len"].type == "Optional[int]"
    # Field(default=NAME) with NAME a module constant of number arithmetic
    prefetch = fake_args["prefetch_block_size"]
    assert (prefetch.default, prefetch.default_from) == ("16 * 1024 * 1024", "CacheConfig.prefetch_block_size")


def test_get_field_and_default_factory(fake_args):
    skip = fake_args["kv_cache_skip_layers"]  # field(default_factory=list)
    assert (skip.default, skip.default_from, skip.group, skip.help) == (
        "[]", "CacheConfig.skip_layers", "CacheConfig", "Layers to skip.")
    loras = fake_args["max_loras"]  # from vllm.config.lora import * in the re-exports
    assert (loras.default, loras.default_from, loras.group) == ("1", "LoRAConfig.max_loras", "LoRAConfig")
    assert fake_args["lora_target_modules"].default == "[]"
    # Field(default_factory=CacheConfig): a default that is not a literal is unknown
    cache = fake_args["cache_config"]
    assert (cache.default, cache.default_from, cache.group) == ("", "VllmConfig.cache_config", "VllmConfig")
    assert fake_args["hf_overrides"].default == "{}"  # field(default_factory=dict) written in EngineArgs
    assert fake_args["extra"].default == "None"  # field(default=None)


def test_names_enums_and_unknown_defaults(fake_args):
    swap = fake_args["swap_space"]  # a module constant of arg_utils.py
    assert (swap.default, swap.default_from) == ("4", "SWAP_SPACE")
    assert fake_args["model_impl"].default == "'auto'"  # ModelImpl.AUTO.value
    impl = fake_args["impl"]  # an enum member is not a literal: unknown, never guessed
    assert (impl.default, impl.default_from, impl.group) == ("", "", "")
    assert fake_args["disable_async"].default == "False"  # not ModelConfig.async_output
    assert (fake_args["weird"].default, fake_args["weird"].default_from) == ("", "")
    assert fake_args["model"].default == "'Qwen/Qwen3-0.6B'"


def test_types_help_and_skipped_attributes(fake_args):
    quant = fake_args["quantization_config"]
    assert quant.type == "dict[str, Any] | None"  # a string annotation: its text
    assert quant.help == "User-facing quantization configuration."  # the field's own docstring
    # private fields, ClassVars and attributes without annotation are not engine arguments
    assert "_api_process_count" not in fake_args and "CONSTANT" not in fake_args
    assert "lora_dtype" not in fake_args


def test_bool_fields_are_negatable(fake_args):
    assert fake_args["enforce_eager"].negatable
    assert fake_args["enable_prefix_caching"].negatable  # bool | None
    assert fake_args["enable_log_requests"].negatable
    assert not fake_args["max_num_seqs"].negatable
    assert not fake_args["tokenizer_mode"].negatable


def test_async_engine_args_extras(fake_args):
    extra = fake_args["enable_log_requests"]
    assert (extra.flag, extra.type, extra.default, extra.help) == (
        "--enable-log-requests", "bool", "False", "Enable logging requests.")


def test_sorted_and_pure():
    files = modern()
    calls: list[str] = []

    def read(path: str) -> str | None:
        calls.append(path)
        return files.get(path)

    first = parse_engine_args(read)
    assert [a.name for a in first] == sorted(a.name for a in first)
    assert parse_engine_args(files.get) == first
    assert all(dataclasses.is_dataclass(a) for a in first)
    with pytest.raises(dataclasses.FrozenInstanceError):
        first[0].name = "x"  # type: ignore[misc]
    assert set(calls) <= set(files) | {"vllm/config.py", "vllm/config/utils.py",
                                        "vllm/config/utils/__init__.py"}


def test_missing_or_broken_arg_utils():
    assert parse_engine_args({}.get) == []
    assert serve_flags({}.get) == set()
    assert parse_engine_args({"vllm/engine/arg_utils.py": "def (:\n"}.get) == []

    def failing(path: str) -> str | None:
        raise OSError("no such blob")

    with pytest.raises(OSError):  # a reader's failure is not a missing file
        parse_engine_args(failing)


def test_serve_flags_without_cli_are_the_fields():
    flags = serve_flags(modern().get)
    assert {"--max-num-seqs", "--gpu-memory-utilization", "--enable-log-requests"} <= flags
    assert {"--no-enforce-eager", "--no-enable-prefix-caching"} <= flags
    assert "--no-max-num-seqs" not in flags and "---api-process-count" not in flags


ADD_CLI_ARGS = '''
    import argparse
    from dataclasses import dataclass
    from vllm.config import CacheConfig, SchedulerConfig

    def get_kwargs(cls):
        if contains_type(type_hints, bool):
            kwargs[name]["action"] = argparse.BooleanOptionalAction

    @dataclass
    class EngineArgs:
        max_num_seqs: int | None = None
        gpu_memory_utilization: float = CacheConfig.gpu_memory_utilization
        sliding: bool = False
        enforce_eager: bool = False
        disable_log_stats: bool = False
        enable_lora: bool = False
        device_ids: list[int] | None = None
        hidden: bool = False
        preemption_mode: str | None = None

        @staticmethod
        def add_cli_args(parser):
            cache_kwargs = get_kwargs(CacheConfig)
            scheduler_kwargs = get_kwargs(SchedulerConfig)
            cache_group = parser.add_argument_group(title="CacheConfig")
            cache_group.add_argument("--gpu-memory-utilization", "--device-memory-utilization",
                                     dest="gpu_memory_utilization",
                                     **cache_kwargs["gpu_memory_utilization"])
            sliding_kwargs = cache_kwargs["sliding"]
            cache_group.add_argument("--sliding", **sliding_kwargs)
            scheduler_group = parser.add_argument_group(title="SchedulerConfig")
            scheduler_group.add_argument(
                "--max-num-seqs", "-mns", **{**scheduler_kwargs["max_num_seqs"], "default": None})
            parser.add_argument("--enforce-eager", action="store_true",
                                help="Always use eager-mode PyTorch. " "Disables CUDA graphs.")
            parser.add_argument("--disable-log-stats", action="store_true", help=_HELP)
            parser.add_argument("--enable-lora", action=argparse.BooleanOptionalAction)
            parallel_group = parser.add_argument_group(title="ParallelConfig")
            parallel_group.add_argument("--device-ids", type=str, help="Use 50%% of them.")
            parser.add_argument("--only-a-flag", action=argparse.BooleanOptionalAction)
            parser.add_argument("--preemption_mode", type=str, default=None)
            parser.add_argument("model_tag", nargs="?")
            return parser

    _HELP = "Disable logging statistics."
'''


def test_add_cli_args_decides_groups_help_and_negation():
    files = modern(**{"vllm/engine/arg_utils.py": ADD_CLI_ARGS})
    args = by_name(parse_engine_args(files.get))
    seqs = args["max_num_seqs"]  # a literal default, registered from SchedulerConfig
    assert (seqs.default, seqs.default_from, seqs.group) == ("None", "", "SchedulerConfig")
    assert seqs.help == "Maximum number of sequences to be processed in a single iteration."
    assert not args["gpu_memory_utilization"].negatable
    assert args["sliding"].negatable  # a bool config field through get_kwargs
    assert args["sliding"].group == "CacheConfig"
    eager = args["enforce_eager"]  # store_true: no --no- form; help from add_argument
    assert not eager.negatable and eager.help == "Always use eager-mode PyTorch. Disables CUDA graphs."
    assert args["disable_log_stats"].help == "Disable logging statistics."
    assert args["enable_lora"].negatable
    ids = args["device_ids"]  # group from the argument group's title; argparse's %% unescaped
    assert (ids.group, ids.help) == ("ParallelConfig", "Use 50% of them.")
    assert args["preemption_mode"].flag == "--preemption_mode"  # the flag as registered

    flags = serve_flags(files.get)
    assert {"--max-num-seqs", "-mns", "--gpu-memory-utilization", "--device-memory-utilization",
            "--enforce-eager", "--no-enable-lora", "--no-sliding", "--only-a-flag",
            "--no-only-a-flag", "--device-ids"} <= flags
    assert "--no-enforce-eager" not in flags and "--no-disable-log-stats" not in flags
    assert "--no-max-num-seqs" not in flags
    assert "--hidden" not in flags  # a field that add_cli_args does not register
    assert "model_tag" not in flags


FRONTEND_DATACLASS = '''
    import argparse
    from dataclasses import field
    from vllm.config import config
    from vllm.engine.arg_utils import AsyncEngineArgs

    @config
    class BaseFrontendArgs:
        chat_template: str | None = None
        """The file path to the chat template."""
        enable_auto_tool_choice: bool = False
        _private: int = 0

    @config
    class FrontendArgs(BaseFrontendArgs):
        host: str | None = None
        port: int = 8000
        allowed_origins: list[str] = field(default_factory=list)
        uvicorn_log_level: str = "info"

    @config
    class UnusedArgs:
        not_a_serve_flag: int = 0

    def make_arg_parser(parser):
        parser.add_argument("model_tag", type=str, nargs="?")
        parser.add_argument("--headless", action="store_true", default=False)
        parser.add_argument("--api-server-count", "-asc", type=int, default=None)
        parser = FrontendArgs.add_cli_args(parser)
        parser = AsyncEngineArgs.add_cli_args(parser)
        return parser
'''


def test_frontend_flags_from_a_dataclass():
    files = modern(**{
        "vllm/entrypoints/cli/serve.py": '''
            from vllm.entrypoints.server.args import make_arg_parser, validate_parsed_serve_args
        ''',
        "vllm/entrypoints/server/args.py": FRONTEND_DATACLASS,
    })
    flags = serve_flags(files.get)
    assert {"--host", "--port", "--chat-template", "--allowed-origins", "--uvicorn-log-level",
            "--enable-auto-tool-choice", "--no-enable-auto-tool-choice", "--headless",
            "--api-server-count", "-asc"} <= flags
    assert "--no-headless" not in flags and "--no-port" not in flags
    assert "--not-a-serve-flag" not in flags and "---private" not in flags
    assert "--max-num-seqs" in flags and "--no-enforce-eager" in flags  # the engine's flags too
    assert {a.name for a in parse_engine_args(files.get)} == {a.name for a in parse_engine_args(modern().get)}


def test_frontend_flags_from_add_argument_calls():
    files = modern(**{
        "vllm/entrypoints/openai/cli_args.py": '''
            import argparse

            def make_arg_parser():
                parser = argparse.ArgumentParser(description="vLLM OpenAI-Compatible RESTful API server.")
                parser.add_argument("--host", type=str, default=None, help="host name")
                parser.add_argument('--port', type=int, default=8000, help="port number")
                parser.add_argument("--allow-credentials", action="store_true")
                parser.add_argument("--served-model-name", type=str, default=None)
                parser.add_argument("--chat-template", type=str, default=None)
                parser = AsyncEngineArgs.add_cli_args(parser)
                return parser
        ''',
        "vllm/scripts.py": '''
            def main():
                parser.add_argument("-v", "--version", action="version")
                serve_parser.add_argument("--config", type=str, default="")
                chat_parser.add_argument("--url", type=str)
        ''',
    })
    flags = serve_flags(files.get)
    assert {"--host", "--port", "--allow-credentials", "--served-model-name", "--chat-template",
            "--config"} <= flags
    assert "--no-allow-credentials" not in flags
    assert "--url" not in flags and "--version" not in flags  # other subcommands' flags


# --------------------------------------------------------------------------- the corpus


@pytest.fixture(scope="module")
def revisions(corpus_bundle, session_cache):
    from generator.scan.sources import resolve

    return {rev: resolve(str(corpus_bundle), rev, session_cache) for rev in ("v0.33.0", "v0.4.1")}


def blob(revision, path: str) -> str:
    return subprocess.run(["git", f"--git-dir={revision.repo_path}", "show", f"{revision.commit}:{path}"],
                          check=True, capture_output=True, text=True).stdout


def test_v0_33_0_engine_args(revisions):
    revision = revisions["v0.33.0"]
    args = by_name(engine_args_at(revision))
    assert len(args) > 200

    seqs = args["max_num_seqs"]
    assert (seqs.flag, seqs.type, seqs.default, seqs.group) == ("--max-num-seqs", "int | None", "None",
                                                                "SchedulerConfig")
    assert seqs.help.startswith("Maximum number of sequences")

    # the real default, written in vllm/config/cache.py as a pydantic Field
    cache_source = blob(revision, "vllm/config/cache.py")
    real = re.search(r"gpu_memory_utilization: float = Field\(default=([0-9.]+)", cache_source).group(1)
    gpu = args["gpu_memory_utilization"]
    assert gpu.default == real == "0.92"
    assert (gpu.flag, gpu.type, gpu.default_from, gpu.group) == (
        "--gpu-memory-utilization", "float", "CacheConfig.gpu_memory_utilization", "CacheConfig")
    assert gpu.help.startswith("The fraction of GPU memory to be used for the model executor")
    assert not gpu.negatable

    mml = args["max_model_len"]
    assert (mml.flag, mml.type, mml.default, mml.default_from, mml.group) == (
        "--max-model-len", "int", "None", "ModelConfig.max_model_len", "ModelConfig")
    tp = args["tensor_parallel_size"]
    assert (tp.flag, tp.type, tp.default, tp.default_from, tp.group) == (
        "--tensor-parallel-size", "int", "1", "ParallelConfig.tensor_parallel_size", "ParallelConfig")
    mnbt = args["max_num_batched_tokens"]
    assert (mnbt.flag, mnbt.type, mnbt.default, mnbt.group) == (
        "--max-num-batched-tokens", "int | None", "None", "SchedulerConfig")
    eager = args["enforce_eager"]
    assert (eager.flag, eager.type, eager.default, eager.default_from, eager.negatable) == (
        "--enforce-eager", "bool", "False", "ModelConfig.enforce_eager", True)
    kv = args["kv_cache_dtype"]
    assert (kv.flag, kv.type, kv.default, kv.default_from, kv.group) == (
        "--kv-cache-dtype", "CacheDType | str", "'auto'", "CacheConfig.cache_dtype", "CacheConfig")
    assert args["enable_prefix_caching"].negatable
    assert not args["disable_log_stats"].negatable  # action="store_true"
    assert args["enable_log_requests"].negatable  # AsyncEngineArgs
    assert "swap_space" not in args and "rope_scaling" not in args
    assert not any(name.startswith("_") for name in args)


def test_v0_33_0_serve_flags(revisions):
    flags = serve_flags_at(revisions["v0.33.0"])
    assert {"--max-num-seqs", "--host", "--port", "--chat-template", "--no-enable-prefix-caching",
            "--tensor-parallel-size", "-tp", "--device-memory-utilization", "--api-key",
            "--enable-log-requests", "--no-enable-log-requests", "--headless", "--model"} <= flags
    assert "--swap-space" not in flags and "--rope-scaling" not in flags
    assert "--no-disable-log-stats" not in flags and "--no-max-num-seqs" not in flags
    assert len(flags) > 300


def test_v0_4_1_older_layout(revisions):
    revision = revisions["v0.4.1"]
    args = by_name(engine_args_at(revision))
    assert len(args) > 40
    swap = args["swap_space"]
    assert (swap.flag, swap.type, swap.default, swap.default_from) == ("--swap-space", "int", "4", "")
    assert swap.help == "CPU swap space size (GiB) per GPU."  # the add_argument help
    seqs = args["max_num_seqs"]
    assert (seqs.type, seqs.default) == ("int", "256")
    gpu = args["gpu_memory_utilization"]
    assert gpu.default == "0.90" or gpu.default == "0.9"
    assert "50% GPU memory" in gpu.help
    assert not args["enforce_eager"].negatable  # store_true before BooleanOptionalAction
    assert args["max_model_len"].type == "Optional[int]"
    assert "engine_use_ray" in args  # AsyncEngineArgs

    flags = serve_flags_at(revision)
    assert {"--swap-space", "--max-num-seqs", "--host", "--port", "--chat-template",
            "--enable-prefix-caching", "--engine-use-ray", "--served-model-name", "-tp"} <= flags
    assert "--no-enable-prefix-caching" not in flags and "--no-enforce-eager" not in flags
    # the results are cached per revision but handed out as fresh containers
    assert serve_flags_at(revision) == flags and serve_flags_at(revision) is not flags
