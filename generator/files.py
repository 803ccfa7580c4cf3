"""Writing files so that a reader never sees half of one."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from generator.errors import InputError


def write_atomically(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` (``-``: stdout) so that a reader never sees half of it."""
    try:
        _write(path, text)
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}; choose another path") from None


def _write(path: str | Path, text: str) -> None:
    if str(path) == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    target = Path(path)
    if target.exists() and not target.is_file():
        # /dev/null, a FIFO: write into it; replacing it would put a plain file in its place.
        with open(target, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private; give it a normal file's mode
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
