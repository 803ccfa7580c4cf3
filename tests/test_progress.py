"""Progress output: plain lines in logs (only for steps that take a while), bars on a terminal."""

from __future__ import annotations

import io

from generator.cli import progress as progress_module
from generator.cli.progress import Progress


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_a_log_gets_a_line_for_long_steps_only(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(progress_module.time, "monotonic", clock)
    out = io.StringIO()
    progress = Progress(stream=out)
    quick = progress.step("scanning v1", "files")
    quick(0, 3)
    quick(3, 3)  # at once: a cached release says nothing
    slow = progress.step("fetching v2's Python files", "B", scale=True)
    slow(0, 12_800_000)
    clock.now += 3
    slow(6_400_000, 12_800_000)
    slow(7_000_000, 12_800_000)  # announced once
    clock.now += 2
    slow(12_800_000, 12_800_000)
    slow(12_800_000, 12_800_000)  # after the end: nothing more
    assert out.getvalue().splitlines() == [
        "fetching v2's Python files ... 6.4 MB of 12.8 MB",
        "fetching v2's Python files: 12.8 MB in 5.0 s",
    ]


def test_silent_progress_says_nothing():
    out = io.StringIO()
    progress = Progress(stream=out, silent=True)
    progress.say("news")
    step = progress.step("x")
    step(1, 1)
    assert out.getvalue() == ""


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_a_terminal_gets_a_bar_and_quiet_gets_lines(monkeypatch):
    monkeypatch.setattr(progress_module, "LONG_S", 0)
    out = Terminal()
    step = Progress(stream=out).step("scanning 23 releases", "files")
    for done in range(0, 101, 10):
        step(done, 100)
    assert "scanning 23 releases" in out.getvalue() and "100/100" in out.getvalue() and "\r" in out.getvalue()
    quiet = Terminal()
    assert not Progress(stream=quiet, quiet=True).bars
