"""Releases as ranges: ``v0.26.0 – v0.28.0`` (pure, and light: the lookup command prints them)."""

from __future__ import annotations


def version_ranges(versions: list[str], releases: list[str]) -> list[str]:
    """``["v0.26.0", "v0.28.0", "v0.33.0"]`` of the releases → ``["v0.26.0 – v0.28.0", "v0.33.0"]``."""
    present = set(versions)
    ranges: list[str] = []
    start = previous = None
    for release in releases:
        if release in present:
            start = start or release
            previous = release
        elif start:
            ranges.append(start if start == previous else f"{start} – {previous}")
            start = None
    if start:
        ranges.append(start if start == previous else f"{start} – {previous}")
    return ranges
