"""Where the pinned vLLM lives: a virtual environment of its own, apart from errorkb's.

vLLM pins hundreds of packages (torch, transformers, pydantic ...); keeping it in its
own environment means errorkb's tools never inherit those pins, and one environment
per vLLM version can be cached between CI runs. Everything that runs vLLM (the
reproduction harness, the memory calculator's agreement tests) runs this interpreter.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from generator.config import Config, user_cache_home
from generator.errors import InputError


class VllmMissing(InputError):
    """The pinned vLLM is not installed where errorkb looks for it; says how to install it."""


def pinned_version(config: Config) -> str:
    """The vLLM version of the pin: ``0.33.0`` for rev ``v0.33.0``."""
    return config.rev.removeprefix("v")


def default_venv(version: str) -> Path:
    return user_cache_home() / f"vllm-{version}"


def install_command(version: str) -> str:
    venv = default_venv(version)
    return f"python -m venv {venv} && {venv}/bin/pip install vllm=={version}"


def vllm_python(config: Config) -> Path:
    """The interpreter that has the pinned vLLM: ``ERRORKB_VLLM_PYTHON``, or the default venv's."""
    explicit = os.environ.get("ERRORKB_VLLM_PYTHON")
    if explicit:
        return Path(explicit)
    return default_venv(pinned_version(config)) / "bin" / "python"


def require_vllm_python(config: Config) -> Path:
    """``vllm_python``, checked: it exists and imports a vLLM of the pinned version."""
    python = vllm_python(config)
    version = pinned_version(config)
    how = f"install it with `{install_command(version)}` (about 9 GB), or set ERRORKB_VLLM_PYTHON to an interpreter that has it"
    if not python.exists():
        raise VllmMissing(f"no vLLM interpreter at {python}; {how}")
    probe = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m; print(m.version('vllm'))"],
        capture_output=True, text=True, timeout=60,
    )
    found = probe.stdout.strip()
    if probe.returncode != 0:
        raise VllmMissing(f"{python} has no vLLM; {how}")
    if found != version:
        raise VllmMissing(f"{python} has vLLM {found}, the pin is {version}; {how}")
    return python
