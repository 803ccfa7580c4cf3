"""The analysis cache: a row per git blob, and rows per piece of a file, so work is done once, ever.

Keyed by the blob id, or the piece's key (its kind and text), and the scanner's own
fingerprint (a hash of the scanner's source), so a change to the scanner invalidates
what it wrote before without anyone remembering to bump a version. A blob's row is
its whole ``FileScan``: a revision already seen costs no parse at all. A piece's rows
are its outline and its variants (``generator.scan.incremental``): a blob not seen before costs
only the pieces of it not seen before. Analyses and pieces are stored with
``marshal``, several times quicker than JSON both ways (and as private to this Python
as the analyses are: its version is part of the fingerprint). One SQLite file: many
small rows, read in a few queries, written a transaction per few thousand blobs analysed.

The cache only ever saves work, so it heals itself: a file that is not a database, a
truncated or corrupt one (found when it is opened, or by any query later), or one with
other tables, is deleted (with its journal) and started afresh, with one warning line
on stderr; a worker that finds it corrupt reads nothing from it (a miss), and a row that
does not decode is a miss too. Other SQLite failures (a locked or unreadable file) are
a one-line ``CacheError``.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sqlite3
import sys
import zlib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Iterable, Iterator

import generator.scan.templates
import generator.scan.records
import generator.scan.incremental
import generator.scan.pieces
import generator.scan.walker
import generator.scan.ids
import generator.text
from generator.errors import InputError
from generator.scan.incremental import FileResult, Stored


def scanner_fingerprint() -> str:
    digest = hashlib.sha256()
    # ast (and marshal, which stores the pieces) differ between Python versions
    digest.update(f"python {sys.version_info[0]}.{sys.version_info[1]}".encode())
    for module in (generator.scan.walker, generator.scan.templates, generator.scan.ids, generator.scan.records,
                   generator.scan.pieces, generator.scan.incremental, generator.text):
        digest.update(Path(module.__file__).read_bytes())
    return digest.hexdigest()[:16]


@dataclass
class CacheStats:
    """What the scans through one cache did: blobs found or analysed, and pieces of the latter."""

    blobs_cached: int = 0
    blobs_analysed: int = 0
    pieces_reused: int = 0  # a stored variant held
    pieces_walked: int = 0  # analysed now
    pieces_parsed: int = 0
    pieces_quiet: int = 0  # quiet functions: neither parsed nor walked
    files_whole: int = 0  # analysed whole, not piece by piece

    def add_file(self, stats: dict[str, int]) -> None:
        self.blobs_analysed += 1
        self.pieces_reused += stats["reused"]
        self.pieces_walked += stats["walked"]
        self.pieces_parsed += stats["parsed"]
        self.pieces_quiet += stats["quiet"]
        self.files_whole += stats["whole"]

    def as_dict(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass
class Rows:
    """What analysing blobs adds to the cache, encoded (by the worker processes that analysed them)."""

    blobs: list[tuple[str, bytes]] = field(default_factory=list)  # (blob, encode_analysis)
    outlines: list[tuple[str, bytes]] = field(default_factory=list)  # (piece key, outline or b"")
    variants: list[tuple[str, str, bytes]] = field(default_factory=list)  # (piece key, variant id, variant)

    def add_analysis(self, blob: str, scan: dict) -> None:
        self.blobs.append((blob, encode_analysis(scan)))

    def add_pieces(self, outlines: dict[str, dict | None], variants: list[tuple[str, dict]]) -> None:
        """New outlines by piece key, and new (piece key, variant)s (``FileResult``'s)."""
        self.outlines.extend((key, marshal.dumps(o) if o is not None else b"") for key, o in outlines.items())
        for key, variant in variants:
            data = marshal.dumps(variant)
            # a variant two workers found is stored once (when it marshals the same)
            self.variants.append((key, hashlib.sha1(data).hexdigest()[:20], data))

    def extend(self, other: "Rows") -> None:
        self.blobs.extend(other.blobs)
        self.outlines.extend(other.outlines)
        self.variants.extend(other.variants)


class CacheError(InputError):
    """The cache database cannot be used (locked, unreadable, or corrupt again after a rebuild)."""

    def __init__(self, path: Path, cause: Exception):
        super().__init__(f"{path}: the analysis cache cannot be used ({cause}); check that it is a file you can write, "
                         f"or delete it (rm {path}): it is rebuilt from the sources")


def warn(message: str) -> None:
    """One warning line on stderr, as ``errorkb`` prints its errors."""
    print(f"errorkb: warning: {message}", file=sys.stderr, flush=True)


# The columns of each table: a database with other tables is not this cache.
_TABLES = {
    "analysis": ("fingerprint", "blob", "data"),
    "piece": ("fingerprint", "key", "outline"),
    "piece_variant": ("fingerprint", "key", "id", "data"),
}
# What a stored row may raise when its bytes were damaged: it is a miss.
_DECODE_ERRORS = (zlib.error, ValueError, EOFError, TypeError, MemoryError)


class _NotTheCache(sqlite3.DatabaseError):
    """A database whose tables are not the cache's."""

    sqlite_errorname = "SQLITE_NOTADB"


def is_corrupt(exc: BaseException) -> bool:
    """Whether a SQLite error says the file is damaged or no database (not locked, not unreadable)."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    name = getattr(exc, "sqlite_errorname", None) or ""
    if name:
        return name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB"))
    return "malformed" in str(exc) or "not a database" in str(exc)


def remove_database(path: Path) -> None:
    """Delete a SQLite file and its journals (a hot journal left beside a new file would be
    played into it)."""
    for suffix in ("", "-journal", "-wal", "-shm"):
        try:
            os.unlink(f"{path}{suffix}")
        except FileNotFoundError:
            pass


class BlobCache:
    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.fingerprint = scanner_fingerprint()
        self.stats = CacheStats()
        self.loaded: dict[str, dict] = {}  # analyses read in this process, decoded (catalog.scan_revision)
        self.resources: dict[str, object] = {}  # kept for the cache's lifetime, closed with it
        self.healed = False  # found corrupt and started afresh (once at most)
        try:
            self.db = self._connect()
        except sqlite3.DatabaseError as exc:
            if not is_corrupt(exc):
                raise CacheError(path, exc) from None
            self.db = self._heal(exc, connected=False)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path)
        try:
            self._create_tables(db)
        except BaseException:
            db.close()
            raise
        return db

    def _heal(self, cause: Exception, connected: bool = True) -> sqlite3.Connection:
        """Start afresh: the damaged file deleted, an empty cache in its place, one warning line."""
        if self.healed:  # damaged again: something else is wrong
            raise CacheError(self.path, cause) from None
        self.healed = True
        if connected:
            try:
                self.db.close()
            except sqlite3.Error:
                pass
        try:
            remove_database(self.path)
        except OSError as exc:
            raise CacheError(self.path, f"{cause}; it cannot be deleted: {exc.strerror or exc}") from None
        warn(f"{self.path}: the analysis cache was damaged ({cause}); it was deleted and is rebuilt from the sources")
        try:
            self.db = self._connect()
        except sqlite3.DatabaseError as exc:
            raise CacheError(self.path, exc) from None
        return self.db

    @staticmethod
    def _create_tables(db: sqlite3.Connection) -> None:
        with db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS analysis (fingerprint TEXT, blob TEXT, data BLOB,"
                " PRIMARY KEY (fingerprint, blob))"
            )
            # outline: marshalled, or empty when the piece does not parse on its own
            db.execute(
                "CREATE TABLE IF NOT EXISTS piece (fingerprint TEXT, key TEXT, outline BLOB,"
                " PRIMARY KEY (fingerprint, key))"
            )
            # id: a hash of the variant
            db.execute(
                "CREATE TABLE IF NOT EXISTS piece_variant (fingerprint TEXT, key TEXT, id TEXT, data BLOB,"
                " PRIMARY KEY (fingerprint, key, id))"
            )
        for table, columns in _TABLES.items():
            found = tuple(row[1] for row in db.execute(f"PRAGMA table_info({table})"))
            if found != columns:
                raise _NotTheCache(f"its table {table} has the columns {', '.join(found)}, not {', '.join(columns)}")

    def get_many(self, blobs: Iterable[str]) -> Iterator[tuple[str, dict]]:
        """(blob, analysis as JSON data) for those of ``blobs`` that are cached (and readable)."""
        wanted = list(dict.fromkeys(blobs))
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            try:
                rows = self.db.execute(
                    f"SELECT blob, data FROM analysis WHERE fingerprint = ? AND blob IN ({marks})",
                    [self.fingerprint, *chunk],
                ).fetchall()
            except sqlite3.DatabaseError as exc:
                if not is_corrupt(exc):
                    raise CacheError(self.path, exc) from None
                self._heal(exc)
                return  # the rest is a miss: analysed again
            for blob, data in rows:
                try:
                    analysis = decode_analysis(data)
                except _DECODE_ERRORS:
                    continue  # a damaged row: a miss
                yield blob, analysis

    def put_many(self, items: Iterable[tuple[str, dict]]) -> None:
        """Store (blob, analysis as JSON data) analyses."""
        self.store(Rows(blobs=[(blob, encode_analysis(scan)) for blob, scan in items]))

    def store(self, rows: Rows) -> None:
        try:
            self._store(rows)
        except sqlite3.DatabaseError as exc:
            if not is_corrupt(exc):
                raise CacheError(self.path, exc) from None
            self._heal(exc)
            self._store(rows)

    def _store(self, rows: Rows) -> None:
        with self.db:
            self.db.executemany(
                "INSERT OR REPLACE INTO analysis VALUES (?, ?, ?)", ((self.fingerprint, *row) for row in rows.blobs)
            )
            self.db.executemany(
                "INSERT OR REPLACE INTO piece VALUES (?, ?, ?)", ((self.fingerprint, *row) for row in rows.outlines)
            )
            self.db.executemany(
                "INSERT OR IGNORE INTO piece_variant VALUES (?, ?, ?, ?)",
                ((self.fingerprint, *row) for row in rows.variants),
            )

    def pieces(self) -> "PieceStore":
        """The stored pieces, for ``pieces.scan_file`` in this process."""
        return PieceStore(self.db, self.fingerprint)

    def close(self) -> None:
        for resource in self.resources.values():
            resource.close()
        self.resources.clear()
        self.db.close()

    def __enter__(self) -> "BlobCache":
        return self

    def __exit__(self, kind, exc, traceback) -> None:
        self.close()
        if isinstance(exc, sqlite3.DatabaseError):  # found while reading it, where no query expected it
            if is_corrupt(exc) and not self.healed:
                remove_database(self.path)
                raise CacheError(self.path, f"{exc}; it was deleted, run the command again") from None
            raise CacheError(self.path, exc) from None


class PieceStore:
    """Stored pieces as ``scan_file`` looks them up, kept in memory while they are in use.

    A worker process opens its own (read-only) connection: only the main process writes,
    every few thousand blobs, while the workers go on. The store is emptied before each
    file's chain of versions (``catalog.analyse_chains``), and ``refresh`` then takes in
    what was stored since: it holds the pieces the versions before had, which are what
    the next one asks for.

    A store that cannot read the database (damaged, or closed by ``BlobCache._heal``)
    stops asking it: every piece it does not hold in memory is then a miss.
    """

    def __init__(self, db: sqlite3.Connection | None, fingerprint: str):
        self.db = db
        self.fingerprint = fingerprint
        self.known: dict[str, Stored | None] = {}  # None: not stored
        # The keys stored as of the last ``refresh``: most pieces looked up are new, and a
        # set tells so without a query. (Only a hint: a key stored since is walked again.)
        self.stored: set[str] = set()
        self._last_row = 0  # the rowid of the newest piece row taken into ``stored``
        self.refresh()

    @classmethod
    def reader(cls, path: Path, fingerprint: str) -> "PieceStore":
        try:
            db = sqlite3.connect(f"file:{Path(path).absolute()}?mode=ro", uri=True)
        except sqlite3.Error:
            db = None
        return cls(db, fingerprint)

    def _unreadable(self) -> None:
        """The database failed a query: no more queries, the rest is a miss."""
        db, self.db = self.db, None
        try:
            if db is not None:
                db.close()
        except sqlite3.Error:
            pass

    def reset(self) -> None:
        self.known = {}
        self.refresh()

    def refresh(self) -> None:
        """Takes in the keys of the pieces stored since the last refresh (rows are only
        added: a stored key's row is replaced by a newer one)."""
        if self.db is None:
            return
        # "+fingerprint": the search goes by rowid, not over every key of the fingerprint
        try:
            rows = self.db.execute(
                "SELECT rowid, key FROM piece WHERE rowid > ? AND +fingerprint = ?", (self._last_row, self.fingerprint)
            ).fetchall()
        except sqlite3.Error:
            self._unreadable()
            return
        if rows:
            self._last_row = max(rowid for rowid, _ in rows)
            self.stored.update(key for _, key in rows)

    def lookup(self, keys: list[str]) -> dict[str, Stored]:
        known = self.known
        stored = self.stored
        wanted = []
        for key in keys:
            if key not in known:
                if key in stored:
                    wanted.append(key)
                else:
                    known[key] = None
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            for key in chunk:
                known[key] = None
            if self.db is None:
                continue
            marks = ",".join("?" * len(chunk))
            # one query for a piece and its variants (none: v.data is NULL)
            try:
                rows = self.db.execute(
                    "SELECT p.key, p.outline, v.data FROM piece p LEFT JOIN piece_variant v"
                    " ON v.fingerprint = p.fingerprint AND v.key = p.key"
                    f" WHERE p.fingerprint = ? AND p.key IN ({marks})",
                    [self.fingerprint, *chunk],
                ).fetchall()
            except sqlite3.Error:
                self._unreadable()
                continue
            damaged = set()
            for key, outline, data in rows:
                if key in damaged:
                    continue
                try:
                    found = known[key]
                    if found is None:
                        found = known[key] = Stored(marshal.loads(outline) if outline else None, [])
                    if data is not None:
                        found.variants.append(marshal.loads(data))
                except _DECODE_ERRORS:
                    damaged.add(key)  # a damaged row: the piece is a miss
                    known[key] = None
        return {k: s for k in keys if (s := known.get(k)) is not None}

    def learn(self, result: FileResult) -> None:
        """What a scan found that the cache will hold."""
        for key, found in result.outlines.items():
            if self.known.get(key) is None:
                self.known[key] = Stored(found, [])
        for key, variant in result.variants:
            stored = self.known.get(key)
            if stored is not None:
                stored.variants.append(variant)


def encode_analysis(scan: dict) -> bytes:
    """A file's analysis (``FileScan.to_json``) as the cache stores it: marshalled, compressed."""
    return zlib.compress(marshal.dumps(scan), 1)


def decode_analysis(data: bytes) -> dict:
    return marshal.loads(zlib.decompress(data))


