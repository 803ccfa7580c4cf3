"""Model configurations from disk: one ``config.json`` (``errorkb memory --model``), or a folder of them.

Not pure: reads files. ``read_config`` checks what it read is a model we model
(``generator.memory.model.model_type_of``); ``bundled_models`` reads the configurations
that ship with errorkb (``models/<name>/config.json``) as they are.
"""

from __future__ import annotations

import json
from pathlib import Path

from generator.memory.model import model_type_of
from generator.memory.settings import MemoryInputError


def read_config(path: Path) -> dict:
    """A model's config.json (or the folder holding it), with a one-line error for what is wrong."""
    path = Path(path)
    if path.is_dir():
        path = path / "config.json"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MemoryInputError(f"{path}: no such file; give the path of the model's config.json (or its folder)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise MemoryInputError(f"{path}: cannot read it ({exc}); give the model's config.json") from None
    try:
        config = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MemoryInputError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg}); give the model's config.json") from None
    model_type_of(config, str(path))
    return config


def bundled_models(folder: Path) -> dict[str, dict]:
    """The model configurations in ``folder`` (the project's ``models/``: ``<name>/config.json``), by name."""
    return {path.parent.name: json.loads(path.read_text(encoding="utf-8")) for path in sorted(Path(folder).glob("*/config.json"))}
