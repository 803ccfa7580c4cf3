"""The records of what ``errorkb verify`` observed: one JSON file per entry in
``errors/verifications/``, each tier's last run in it."""

from __future__ import annotations

import json
from pathlib import Path

from generator.repro.cases import merge_record
from generator.repro.verify import PairResult


def record_path(folder: Path, slug: str) -> Path:
    return folder / f"{slug}.json"


def load_record(folder: Path, slug: str) -> dict | None:
    path = record_path(folder, slug)
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def load_records(folder: Path) -> dict[str, dict]:
    """Every entry's record, by slug (for the site)."""
    if not folder.is_dir():
        return {}
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))}


def updated_records(folder: Path, results: list[PairResult], environment: dict, date: str) -> dict[str, str]:
    """The record files to write (path -> text): each entry's file with this run's tiers replaced."""
    out: dict[str, dict] = {}
    for result in results:
        if result.skipped:
            continue  # a pair that could not run here says nothing about the entry
        slug = result.repro.entry
        previous = out.get(slug) or load_record(folder, slug)
        out[slug] = merge_record(previous, slug, result.record(environment, date))
    return {str(record_path(folder, slug)): json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
            for slug, data in sorted(out.items())}
