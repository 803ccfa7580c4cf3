"""The GPU table: each GPU's memory as vLLM sees it, and finding one by name.

Not pure: the table is the packaged data file ``gpus.json`` beside this module, read once
by ``load_gpus()`` (which says, per GPU, where its figure comes from and how approximate
it is). Everything else here only reads that table.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from importlib import resources

from generator.memory.settings import GIB, input_error


@dataclass(frozen=True)
class Gpu:
    name: str
    memory_gib: float  # what the CUDA driver reports where a log shows it, else the nominal size
    source: str  # where that figure comes from, and how approximate it is


@functools.cache
def load_gpus() -> tuple[Gpu, ...]:
    """The GPUs of ``generator/memory/gpus.json``, in its order (a name prefix finds the first)."""
    data = json.loads(resources.files(__package__).joinpath("gpus.json").read_text(encoding="utf-8"))
    return tuple(Gpu(entry["name"], float(entry["memory_gib"]), entry["source"]) for entry in data["gpus"])


def gpu_memory_bytes(gpu: Gpu) -> int:
    return round(gpu.memory_gib * GIB)


def _squash(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def find_gpu(name: str) -> Gpu:
    """A GPU of the table by name, case and punctuation ignored ("h100" finds H100-80GB)."""
    gpus = load_gpus()
    wanted = _squash(name)
    exact = [g for g in gpus if _squash(g.name) == wanted]
    if exact:
        return exact[0]
    prefixed = [g for g in gpus if _squash(g.name).startswith(wanted)] if wanted else []
    if len(prefixed) >= 1:
        return prefixed[0]
    raise input_error("unknown_gpu", name=name, gpus=", ".join(g.name for g in gpus))
