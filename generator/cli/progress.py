"""Progress on long work: a bar per step on a terminal (tqdm), plain lines elsewhere.

A stage reports through a plain callable ``update(done, total)`` and knows nothing of
terminals; ``Progress.step`` makes one. On a terminal (and without ``--quiet``) it is a
tqdm bar on stderr; otherwise (CI logs, pipes, ``--quiet``) a step prints one line once
it has run for a while and one when it ends, with its count and time, so a log shows where a long
run is without a line per file. A step shorter than ``LONG_S`` (a cached release) says
nothing.
"""

from __future__ import annotations

import sys
import time
from typing import Callable, TextIO

Update = Callable[[int, int], None]


class Progress:
    """``quiet`` (``--quiet``): plain lines even on a terminal; ``silent``: nothing at all
    (a stage called from Python, not from the command line)."""

    def __init__(self, quiet: bool = False, stream: TextIO | None = None, silent: bool = False):
        self.stream = stream or sys.stderr
        self.silent = silent
        self.bars = not quiet and not silent and _is_terminal(self.stream)
        self.started = time.monotonic()

    def say(self, text: str) -> None:
        """One line on stderr."""
        if not self.silent:
            print(text, file=self.stream, flush=True)

    def step(self, label: str, unit: str = "", scale: bool = False) -> Update:
        """An ``update(done, total)`` for one step; the step ends when ``done >= total``.
        ``scale``: show the unit with SI prefixes (bytes)."""
        return _Bar(self, label, unit, scale) if self.bars else _Lines(self, label, unit, scale)

    def elapsed(self) -> str:
        return duration(time.monotonic() - self.started)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, seconds = divmod(round(seconds), 60)
    return f"{minutes} min {seconds:02d} s"


def amount(count: int, unit: str, scale: bool) -> str:
    if scale:
        for prefix, size in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
            if count >= size:
                return f"{count / size:.1f} {prefix}{unit}"
    return f"{count:,} {unit}".rstrip()


LONG_S = 2.0  # a step that ends sooner prints nothing in plain lines


class _Lines:
    def __init__(self, progress: Progress, label: str, unit: str, scale: bool):
        self.progress, self.label, self.unit, self.scale = progress, label, unit, scale
        self.started: float | None = None
        self.announced = False
        self.ended = False

    def __call__(self, done: int, total: int) -> None:
        if self.ended:
            return
        now = time.monotonic()
        if self.started is None:
            self.started = now
        long = now - self.started >= LONG_S
        if done >= total:
            self.ended = True
            if long or self.announced:
                self.progress.say(f"{self.label}: {amount(done, self.unit, self.scale)} in {duration(now - self.started)}")
        elif long and not self.announced:
            self.announced = True
            self.progress.say(f"{self.label} ... {amount(done, self.unit, self.scale)} of {amount(total, self.unit, self.scale)}")


class _Bar:
    def __init__(self, progress: Progress, label: str, unit: str, scale: bool):
        self.progress, self.label, self.unit, self.scale = progress, label, unit, scale
        self.bar = None

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            from tqdm import tqdm  # only on a terminal: a log never imports it

            self.bar = tqdm(total=total, desc=self.label, unit=self.unit or "it", unit_scale=self.scale,
                            file=self.progress.stream, leave=True, dynamic_ncols=True, delay=LONG_S)
        if total != self.bar.total:
            self.bar.total = total
        self.bar.update(done - self.bar.n)
        if done >= total:
            self.bar.close()
