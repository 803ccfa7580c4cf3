"""Where a problem with an entry file is: ``Problem`` (path, line, column, message) and key paths.

``generator.entries.load``, ``generator.entries.schema`` and ``generator.entries.check``
all report ``Problem``s at a ``Key`` (the path of keys and indexes to a value) of an
entry file. Pure: no disk, no processes.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Key", "Problem", "key_label", "offset_position"]

Key = tuple  # a path of keys and indexes: ("solutions", 0, "commands", "vllm")


@dataclass(order=True)
class Problem:
    """One thing to fix, at a 1-based line and column of a file (path relative to the repository)."""

    path: str
    line: int
    col: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.message}"


def offset_position(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of a character offset."""
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


def key_label(key: Key) -> str:
    """``("solutions", 0, "commands")`` → ``solutions[0].commands``; the entry itself is ``the entry``."""
    out = ""
    for part in key:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "the entry"
