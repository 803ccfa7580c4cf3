"""The records of what ``errorkb verify`` observed: one JSON file per entry in
``errors/verifications/``, each tier's last run in it.

Only ``errorkb verify`` writes them (``updated_records``), from what the harness observed.
``record_problems`` is ``errorkb check``'s side: every record must validate against
``schemas/record.schema.json`` and be a record of the entry's cases as they are now
written (each case's sha256), else it is a problem saying how to re-record it; the site
shows no badge for such a record (``cases.trusted_runs``)."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

from generator.entries.problems import Problem, offset_position
from generator.repro.cases import Reproduction, merge_record, reproductions, run_mismatch
from generator.repro.validate import record_errors
from generator.repro.verify import PairResult


def record_path(folder: Path, slug: str) -> Path:
    return folder / f"{slug}.json"


def load_record(folder: Path, slug: str) -> dict | None:
    """The entry's record, or None when there is none or the file is not a record."""
    path = record_path(folder, slug)
    if not path.is_file():
        return None
    try:
        return _read_record(path)
    except (OSError, ValueError):
        return None


MAX_RECORD_BYTES = 4 * 1024 * 1024  # a record holds excerpts, not whole logs


def _read_record(path: Path) -> dict:
    """A record file's data; ValueError saying why when it is not a record: not a regular
    file (a link is not followed, a pipe or a device not read), too big, not UTF-8 JSON,
    not an object whose ``runs`` is an object of objects."""
    info = os.lstat(path)
    if not stat.S_ISREG(info.st_mode):
        raise ValueError("a symbolic link" if stat.S_ISLNK(info.st_mode) else "not a regular file")
    if info.st_size > MAX_RECORD_BYTES:
        raise ValueError(f"{info.st_size:,} bytes, over {MAX_RECORD_BYTES:,}")
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError("not a regular file")
        data = handle.read(MAX_RECORD_BYTES + 1)
    if len(data) > MAX_RECORD_BYTES:
        raise ValueError(f"over {MAX_RECORD_BYTES:,} bytes")
    try:
        record = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8: {exc.reason} at byte {exc.start}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise ValueError("not JSON: nested too deep") from None
    if not isinstance(record, dict):
        raise ValueError(f"a JSON {type(record).__name__}, not an object")
    runs = record.get("runs", {})
    if not isinstance(runs, dict) or not all(isinstance(run, dict) for run in runs.values()):
        raise ValueError("its `runs` is not an object of runs")
    return record


def load_records(folder: Path) -> dict[str, dict]:
    """Every entry's record, by slug (for the site). A file that is not a record (unreadable,
    not JSON, cut short, not an object) is left out, as if the entry had none, with one
    warning line on stderr: a damaged record never stops a build."""
    if not folder.is_dir():
        return {}
    records = {}
    for path in sorted(folder.glob("*.json")):
        try:
            records[path.stem] = _read_record(path)
        except (OSError, ValueError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            name = os.fsencode(str(path)).decode("utf-8", "backslashreplace")
            print(f"errorkb: warning: {name}: not a record ({why}); the page shows no record for it: "
                  "run `errorkb verify` again to write it", file=sys.stderr, flush=True)
    return records


def updated_records(folder: Path, results: list[PairResult], environment: dict, date: str) -> dict[str, str]:
    """The record files to write (path -> text): each entry's file with this run's tiers replaced."""
    out: dict[str, dict] = {}
    for result in results:
        if result.skipped:
            continue  # a pair that could not run here says nothing about the entry
        slug = result.repro.entry
        previous = out.get(slug) or load_record(folder, slug)
        if previous is not None and record_errors(previous):
            previous = None  # not a record errorkb wrote: replaced whole, its other runs are not kept
        out[slug] = merge_record(previous, slug, result.record(environment, date))
    return {str(record_path(folder, slug)): json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
            for slug, data in sorted(out.items())}


# ---------------------------------------------------------------- errorkb check


def _locate(text: str, key: tuple) -> tuple[int, int]:
    """Where the value at ``key`` (keys and indexes) is written in a record's JSON text,
    found key by key as ``"name":`` from where the previous one was; (1, 1) when not found."""
    at = 0
    for part in key:
        if isinstance(part, int):
            continue
        found = text.find(json.dumps(str(part), ensure_ascii=False) + ":", at)
        if found < 0:
            break
        at = found
    return offset_position(text, at) if at else (1, 1)


def _label(key) -> str:
    out = ""
    for part in key:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "the record"


def record_problems(entries: list, folder: Path, root: Path) -> list[Problem]:
    """Every problem of the records in ``folder`` (``errors/verifications/``), for ``errorkb check``:
    a file that is not a record, a record of no entry, a violation of the record schema, and a
    run that is not of the entry's cases as they are now written (stale). Each says how to re-record."""
    if not folder.is_dir():
        return []
    by_slug = {entry.slug: entry for entry in entries}
    problems = []
    for path in sorted(folder.glob("*.json")):
        try:
            shown = path.relative_to(root).as_posix()
        except ValueError:
            shown = path.as_posix()
        slug = path.stem
        entry = by_slug.get(slug)
        again = f"`errorkb verify --tier cpu {slug}` (and `--tier cuda` where there is a GPU)"
        try:
            record = _read_record(path)
            text = path.read_text(encoding="utf-8")
        except (OSError, ValueError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            line, col = 1, 1
            if isinstance(exc, ValueError) and why.startswith("not JSON") and not path.is_symlink():
                try:
                    json.loads(path.read_bytes().decode("utf-8"))
                except json.JSONDecodeError as bad:
                    line, col = bad.lineno, bad.colno
                except (OSError, ValueError, RecursionError):
                    pass
            problems.append(Problem(shown, line, col, f"not a record ({why}): records are written by errorkb verify only; "
                                                      f"delete it and run {again}"))
            continue
        if entry is None:
            problems.append(Problem(shown, 1, 1, f"a record of no entry (there is no errors/{slug}.yaml): delete it"))
            continue
        errors = record_errors(record)
        for error in errors[:20]:
            key = tuple(error.absolute_path)
            line, col = _locate(text, key)
            message = error.message if len(error.message) <= 200 else error.message[:199] + "…"
            problems.append(Problem(shown, line, col, f"`{_label(key)}` does not match the record schema ({message}): "
                                                      f"records are written by errorkb verify only; run {again}"))
        if errors:
            continue
        if record["entry"] != slug:
            problems.append(Problem(shown, *_locate(text, ("entry",)), f"`entry` is {record['entry']!r}, not {slug!r}: run {again}"))
        repros: dict[str, Reproduction] = {r.record_key: r for r in reproductions(entry.slug, entry.path, entry.reproduce)}
        for key, run in sorted(record["runs"].items()):
            command = f"`errorkb verify --tier {run['tier']} {slug}`"
            repro = repros.get(key)
            if repro is None:
                problems.append(Problem(shown, *_locate(text, ("runs", key)),
                                        f"`runs.{key}` is a run of a pair {entry.path} no longer has: the record is stale; "
                                        f"run {command} to rewrite it"))
                continue
            why = run_mismatch(repro, run)
            if why:
                where = ("runs", key, "error" if "error case" in why else "fix", "case_sha256") if "case changed" in why else ("runs", key)
                problems.append(Problem(shown, *_locate(text, where),
                                        f"`runs.{key}` is stale: {why}; run {command} to re-record it"))
    return problems
