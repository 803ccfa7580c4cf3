"""The lookup index of a set of releases, kept on disk so that a lookup costs one file read.

Keyed by the releases' commits and the scanner's fingerprint: a new release, another
commit or a changed scanner makes a new file. A file that cannot be read (truncated,
corrupt) is a miss: the index is built again and the file replaced.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Callable

from generator.files import write_atomically


def index_path(cache_dir: Path, commits: list[tuple[str, str]], fingerprint: str) -> Path:
    """Where the index of these ``(rev, commit)`` pairs lives under ``cache_dir``."""
    key = hashlib.sha256(("\n".join(f"{rev}={commit}" for rev, commit in commits) + fingerprint).encode()).hexdigest()[:16]
    return cache_dir / f"lookup-index-{key}.json"


def stored_index(path: Path, build: Callable[[], dict], schema_version: int) -> dict:
    """The index stored at ``path`` when it has ``schema_version``, else ``build()``'s,
    stored there for next time."""
    try:
        index = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(index, dict) and index.get("schema_version") == schema_version and "errors" in index:
            return index
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        pass
    index = build()
    write_atomically(path, json.dumps(index, ensure_ascii=False, separators=(",", ":")))
    return index
