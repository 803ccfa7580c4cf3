"""The site's memory calculator: which pages carry it, and its data file ``api/memory.json``.

Not pure: ``site_data`` reads the GPU table (``gpus.json``) and ``bundled_models`` reads
the models folder it is given. ``templates/assets/memory.js`` is the calculator; every
table, size, threshold, error id and message it uses comes from ``site_data()``, so that
nothing of the Python calculator is copied into the JavaScript by hand.
"""

from __future__ import annotations

from dataclasses import asdict

from generator.memory import budget, findings, kv, model, settings
from generator.memory.configs import bundled_models
from generator.memory.gpus import load_gpus

__all__ = ["CALCULATOR_ENTRIES", "CALCULATOR_EXAMPLES", "bundled_models", "site_data"]

# The curated entries whose pages carry the calculator: the errors of the KV cache budget.
CALCULATOR_ENTRIES = ("kv-cache-too-small-for-max-model-len", "no-memory-for-kv-cache-blocks", "mamba-cache-blocks-below-max-num-seqs")
# What each of those pages' calculator starts with: a bundled model, a GPU and flags that
# meet that page's error (tests/test_memory_browser.py checks that they do).
CALCULATOR_EXAMPLES = {
    "kv-cache-too-small-for-max-model-len": {"model": "granite-4.0-h-tiny", "gpu": "T4"},
    "no-memory-for-kv-cache-blocks": {"model": "qwen2.5-32b", "gpu": "RTX-4090"},
    "mamba-cache-blocks-below-max-num-seqs": {"model": "granite-4.0-h-tiny", "gpu": "L4", "max_num_seqs": 4096},
}


def site_data(models: dict[str, dict]) -> dict:
    """api/memory.json: what templates/assets/memory.js needs besides its code.

    ``models``: the bundled configurations by name (``bundled_models(root / "models")``).
    """
    return {
        "gpus": [asdict(gpu) for gpu in load_gpus()],
        "models": {name: models[name] for name in sorted(models)},
        "constants": {
            **settings.shared_constants(),
            "model": model.shared_constants(),
            "kv": kv.shared_constants(),
            "budget": budget.shared_constants(),
            **findings.shared_constants(),
        },
    }
