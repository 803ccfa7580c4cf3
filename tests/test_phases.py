"""generator.vllm.phases: the phase a raise site's module and function tell, or none."""

from __future__ import annotations

import pytest

from generator.vllm.phases import PHASES, phase_of_site


@pytest.mark.parametrize("path, function, phase", [
    ("vllm/entrypoints/common/cli_args.py", "validate_parsed_serve_args", "argument parsing"),
    ("vllm/engine/arg_utils.py", "EngineArgs.create_engine_config", "engine configuration"),
    ("vllm/config/model.py", "ModelConfig._verify_quantization", "engine configuration"),
    ("vllm/platforms/cuda.py", "CudaPlatformBase.get_attn_backend_cls", "engine configuration"),
    ("vllm/model_executor/model_loader/default_loader.py", "DefaultModelLoader._prepare_weights", "model loading"),
    ("vllm/model_executor/models/llama.py", "LlamaModel.load_weights", "model loading"),
    ("vllm/v1/core/kv_cache_planning.py", "check_enough_kv_cache_memory", "memory profiling"),
    ("vllm/v1/worker/gpu_worker.py", "Worker.determine_available_memory", "memory profiling"),
    ("vllm/v1/engine/core_client.py", "MPClient.ensure_alive", "engine start-up"),
    ("vllm/distributed/device_communicators/shm_broadcast.py", "ShmRingBuffer.__init__", "engine start-up"),
    ("vllm/sampling_params.py", "SamplingParams._verify_args", "request handling"),
    ("vllm/entrypoints/openai/chat_completion/serving.py", "OpenAIServingChat.create_chat_completion", "request handling"),
])
def test_a_site_of_a_phase_is_told(path, function, phase):
    assert phase_of_site(path, function) == phase
    assert phase in PHASES


@pytest.mark.parametrize("path, function", [
    ("vllm/model_executor/models/llama.py", "LlamaAttention.forward"),  # runs in every phase after loading
    ("vllm/distributed/kv_transfer/kv_connector/v1/nixl/base_worker.py", "f"),
    ("vllm/utils/__init__.py", "cdiv"),
    ("not-vllm/x.py", ""),
])
def test_a_place_that_does_not_tell_gets_no_phase(path, function):
    assert phase_of_site(path, function) == ""
