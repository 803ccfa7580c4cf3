"""The lookup index of a set of releases, kept on disk so that a lookup costs one file read.

Keyed by the releases' commits and the fingerprints of the scanner, the lineage and the
index: a new release, another commit or changed code makes a new file. Only the
STORED_KEPT files of each kind used last stay (a read counts as a use): the rest were made
for code, entries or releases since changed, and would otherwise fill the cache. A file of another
schema version is a miss; a file that cannot be read or is not an index (truncated, corrupt, edited) is a
miss too, with one warning line on stderr: the index is built again and the file
replaced, never a crash.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import json
import sys
from pathlib import Path
from typing import Callable

from generator.files import write_atomically
from generator.lookup.index import ERROR_COLUMNS

# Of each kind of stored file, how many stay, the ones used last: a few projects or checkouts
# sharing one cache (the user's, outside a project) keep theirs; each is 8 to 20 MB.
STORED_KEPT = 4

# a row of the index's "errors" columns: id, exception, template, has_message, versions (a
# bitmask over "revisions"), sites ([path number in "paths", line, function]), forms
_ROW_TYPES = (str, str, str, bool, int, list, list)


def index_path(cache_dir: Path, commits: list[tuple[str, str]], fingerprint: str) -> Path:
    """Where the index of these ``(rev, commit)`` pairs lives under ``cache_dir``."""
    key = hashlib.sha256(("\n".join(f"{rev}={commit}" for rev, commit in commits) + fingerprint).encode()).hexdigest()[:16]
    return cache_dir / f"lookup-index-{key}.json"


def _site_ok(site, paths: int) -> bool:
    return (isinstance(site, list) and len(site) == 3 and _int(site[0]) and 0 <= site[0] < paths
            and _int(site[1]) and isinstance(site[2], str))


def index_problem(index) -> str | None:
    """What keeps ``index`` from being a lookup index the matcher can read, or None."""
    if not isinstance(index, dict):
        return "not a JSON object"
    revisions, errors = index.get("revisions"), index.get("errors")
    if not isinstance(revisions, list) or not all(isinstance(r, str) for r in revisions):
        return "no list of revisions"
    if (not isinstance(errors, dict) or set(errors) != set(ERROR_COLUMNS)
            or not all(isinstance(errors[c], list) and len(errors[c]) == len(errors["id"]) for c in ERROR_COLUMNS)):
        return f"`errors` is not a mapping of the columns {', '.join(ERROR_COLUMNS)}, of one length"
    errors = [list(row) for row in zip(*(errors[c] for c in ERROR_COLUMNS))]
    paths = index.get("paths", {})
    if not isinstance(paths, dict) or not all(isinstance(v, int) and not isinstance(v, bool) for v in paths.values()):
        return "`paths` is not a mapping of release masks"
    for row in errors:
        if (not isinstance(row, list) or len(row) != len(_ROW_TYPES)
                or not all(isinstance(value, kind) and not (kind is int and isinstance(value, bool))
                           for value, kind in zip(row, _ROW_TYPES))
                or row[4] < 0 or row[4] >> len(revisions)
                or not all(_site_ok(site, len(paths)) for site in row[5])
                or not all(isinstance(f, str) for f in row[6])):
            return f"an error row that is not [id, exception, template, has_message, versions, sites, forms]: {str(row)[:80]}"
    for name in ("groups", "curated"):
        table = index.get(name, {})
        if not isinstance(table, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in table.items()):
            return f"`{name}` is not a mapping of strings"
    kinds = index.get("kinds", {})
    if not isinstance(kinds, dict) or not all(
            isinstance(rows, list) and all(_int(n) and 0 <= n < len(errors) for n in rows) for rows in kinds.values()):
        return "`kinds` is not a mapping of kind to row numbers"
    entries = index.get("entries", {})
    if not isinstance(entries, dict) or not all(
            isinstance(v, dict) and isinstance(v.get("ids"), list) and all(isinstance(i, str) for i in v["ids"])
            for v in entries.values()):
        return "`entries` is not a mapping of slug to entries with their ids"
    lines = index.get("raise_lines", {})
    if not isinstance(lines, dict) or not all(
            isinstance(rows, list) and all(isinstance(row, list) and len(row) == 3
                                           and isinstance(row[0], str) and _int(row[1]) and _int(row[2]) for row in rows)
            for rows in lines.values()):
        return "`raise_lines` is not a mapping of [path, line, releases] rows"
    logged = index.get("log_lines", {})
    if not isinstance(logged, dict) or not all(
            isinstance(at, list) and all(isinstance(place, str) for place in at) for at in logged.values()):
        return "`log_lines` is not a mapping of error ids to \"file.py:line\" strings"
    before = index.get("functions_before", {})
    if not isinstance(before, dict) or not all(
            isinstance(k, str) and k.isdigit() and int(k) < len(paths) and isinstance(v, str) for k, v in before.items()):
        return "`functions_before` is not a mapping of path numbers to function names"
    given = index.get("reasons", {})
    if not isinstance(given, dict) or not all(
            isinstance(k, str) and k.isdigit() and int(k) < len(errors) and isinstance(v, list)
            and all(isinstance(r, str) for r in v) for k, v in given.items()):
        return "`reasons` is not a mapping of row numbers to the reasons a message gives"
    return None


def _int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def stored_index(path: Path, build: Callable[[], dict], schema_version: int) -> dict:
    """The index stored at ``path`` when it has ``schema_version``, else ``build()``'s,
    stored there for next time."""
    damage = None
    try:
        index = json.loads(path.read_bytes().decode("utf-8"))
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        damage = getattr(exc, "strerror", None) or type(exc).__name__
    else:
        if isinstance(index, dict) and index.get("schema_version") != schema_version:
            pass  # an index of another format: built again, nothing is wrong
        else:
            damage = index_problem(index)
            if damage is None:
                mark_used(path)
                return index
    if damage is not None:
        print(f"errorkb: warning: {path}: the stored lookup index was damaged ({damage}); it is built again",
              file=sys.stderr, flush=True)
    index = build()
    write_atomically(path, json.dumps(index, ensure_ascii=False, separators=(",", ":")))
    prune_stored(path.parent, "lookup-index-*.json")
    return index


def mark_used(path: Path) -> None:
    """Count a read of a stored file as a use: its time is what prune_stored keeps by. A cache
    that cannot be written (read-only, another user's) is read all the same."""
    try:
        os.utime(path)
    except OSError:
        pass


def prune_stored(cache_dir: Path, pattern: str, keep: int = STORED_KEPT) -> list[Path]:
    """Remove the files of ``cache_dir`` named like ``pattern`` but the ``keep`` used last
    (by modification time, then name, so that a tie is settled the same way each time); the
    removed ones, in that order. One that another process removed first, or that cannot be
    removed, is passed over: a later store tries again."""
    stamped = []
    for path in cache_dir.glob(pattern):
        try:
            stamped.append((path.stat().st_mtime_ns, path.name, path))
        except OSError:
            continue
    stamped.sort(reverse=True)
    removed = []
    for _, _, path in stamped[keep:]:
        try:
            path.unlink()
        except OSError:
            continue
        removed.append(path)
    return removed


# --- the stored matcher: `errorkb lookup` without building anything ------------------------------

MATCHER_CODE = ("generator/lookup", "generator/scan", "generator/history", "generator/text.py", "generator/entries")
# ... and what turns the releases' catalogs into the stored release index, beside the scanner
# (whose fingerprint keys the index too): the lineage and the index's columns
INDEX_CODE = ("generator/history/lineage.py", "generator/lookup/index.py")


def code_fingerprint(package_root: Path, parts: tuple[str, ...] = MATCHER_CODE) -> str:
    """A hash of the code that decides what a stored matcher holds (the scanner, lineage,
    the lookup, the foreign errors), or of ``parts`` of it: a change to any of it stores a
    new one."""
    digest = hashlib.sha256(f"python {sys.version_info[0]}.{sys.version_info[1]}".encode())
    for part in parts:
        path = package_root.parent / part
        files = sorted(path.rglob("*.py")) + sorted(path.rglob("*.yaml")) if path.is_dir() else [path]
        for file in files:
            digest.update(file.name.encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()[:16]


def source_identity(spec: str) -> str | None:
    """What tells a source's releases apart without opening it: a PyPI release never
    changes; a local repository or bundle is known by its files' times and sizes. None for
    anything else (a remote git URL): it is resolved every time."""
    if spec.startswith("pypi:"):
        return spec + "\0" + os.environ.get("ERRORKB_INDEX_URL", "") + "\0" + os.environ.get("ERRORKB_PIP_ARGS", "")
    path = Path(spec).expanduser()
    if not path.exists():
        return None
    marks = []
    for candidate in (path, path / ".git", path / ".git" / "packed-refs", path / ".git" / "refs" / "tags",
                      path / "packed-refs", path / "refs" / "tags", path / ".git" / "HEAD"):
        try:
            stat = candidate.stat()
        except OSError:
            continue
        marks.append(f"{candidate}:{stat.st_mtime_ns}:{stat.st_size}")
    return str(path.resolve()) + "\0" + "\0".join(marks)


def entries_identity(folder: Path) -> str:
    """The curated entries' names, times and sizes: an edited entry stores a new matcher."""
    try:
        files = sorted(folder.glob("*.yaml"))
    except OSError:
        return ""
    marks = []
    for file in files:
        try:
            stat = file.stat()
        except OSError:
            continue
        marks.append(f"{file.name}:{stat.st_mtime_ns}:{stat.st_size}")
    return "\0".join(marks)


def matcher_path(cache_dir: Path, parts: list[str]) -> Path:
    key = hashlib.sha256("\x1e".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return cache_dir / f"lookup-matcher-{key}.marshal"


def write_bytes_atomically(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
