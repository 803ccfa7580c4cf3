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

__all__ = ["CALCULATOR_ENTRIES", "bundled_models", "site_data"]

# The curated entries whose pages carry the calculator: the errors of the KV cache budget.
CALCULATOR_ENTRIES = ("kv-cache-too-small-for-max-model-len", "no-memory-for-kv-cache-blocks", "mamba-cache-blocks-below-max-num-seqs")


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
