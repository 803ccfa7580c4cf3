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
"""

from __future__ import annotations

import hashlib
import marshal
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
    """The cache database cannot be read (corrupt or truncated); deleting it is safe."""

    def __init__(self, path: Path, cause: Exception):
        super().__init__(f"{path}: the analysis cache cannot be read ({cause}); delete it (rm {path}) and run again, "
                         "it is rebuilt from the sources")


class BlobCache:
    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.fingerprint = scanner_fingerprint()
        self.stats = CacheStats()
        self.loaded: dict[str, dict] = {}  # analyses read in this process, decoded (catalog.scan_revision)
        self.resources: dict[str, object] = {}  # kept for the cache's lifetime, closed with it
        try:
            self.db = sqlite3.connect(path)
            self._create_tables()
        except sqlite3.DatabaseError as exc:
            raise CacheError(path, exc) from None

    def _create_tables(self) -> None:
        with self.db:
            self.db.execute(
                "CREATE TABLE IF NOT EXISTS analysis (fingerprint TEXT, blob TEXT, data BLOB,"
                " PRIMARY KEY (fingerprint, blob))"
            )
            # outline: marshalled, or empty when the piece does not parse on its own
            self.db.execute(
                "CREATE TABLE IF NOT EXISTS piece (fingerprint TEXT, key TEXT, outline BLOB,"
                " PRIMARY KEY (fingerprint, key))"
            )
            # id: a hash of the variant
            self.db.execute(
                "CREATE TABLE IF NOT EXISTS piece_variant (fingerprint TEXT, key TEXT, id TEXT, data BLOB,"
                " PRIMARY KEY (fingerprint, key, id))"
            )

    def get_many(self, blobs: Iterable[str]) -> Iterator[tuple[str, dict]]:
        """(blob, analysis as JSON data) for those of ``blobs`` that are cached."""
        wanted = list(dict.fromkeys(blobs))
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(
                f"SELECT blob, data FROM analysis WHERE fingerprint = ? AND blob IN ({marks})",
                [self.fingerprint, *chunk],
            )
            for blob, data in rows:
                yield blob, decode_analysis(data)

    def put_many(self, items: Iterable[tuple[str, dict]]) -> None:
        """Store (blob, analysis as JSON data) analyses."""
        self.store(Rows(blobs=[(blob, encode_analysis(scan)) for blob, scan in items]))

    def store(self, rows: Rows) -> None:
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
        if isinstance(exc, sqlite3.DatabaseError):  # found corrupt while reading it (here or in a worker)
            raise CacheError(self.path, exc) from None


class PieceStore:
    """Stored pieces as ``scan_file`` looks them up, kept in memory while they are in use.

    A worker process opens its own (read-only) connection: only the main process writes,
    every few thousand blobs, while the workers go on. The store is emptied before each
    file's chain of versions (``catalog.analyse_chains``), and ``refresh`` then takes in
    what was stored since: it holds the pieces the versions before had, which are what
    the next one asks for.
    """

    def __init__(self, db: sqlite3.Connection, fingerprint: str):
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
        return cls(sqlite3.connect(f"file:{Path(path).absolute()}?mode=ro", uri=True), fingerprint)

    def reset(self) -> None:
        self.known = {}
        self.refresh()

    def refresh(self) -> None:
        """Takes in the keys of the pieces stored since the last refresh (rows are only
        added: a stored key's row is replaced by a newer one)."""
        # "+fingerprint": the search goes by rowid, not over every key of the fingerprint
        rows = self.db.execute(
            "SELECT rowid, key FROM piece WHERE rowid > ? AND +fingerprint = ?", (self._last_row, self.fingerprint)
        ).fetchall()
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
            marks = ",".join("?" * len(chunk))
            # one query for a piece and its variants (none: v.data is NULL)
            for key, outline, data in self.db.execute(
                "SELECT p.key, p.outline, v.data FROM piece p LEFT JOIN piece_variant v"
                " ON v.fingerprint = p.fingerprint AND v.key = p.key"
                f" WHERE p.fingerprint = ? AND p.key IN ({marks})",
                [self.fingerprint, *chunk],
            ):
                found = known[key]
                if found is None:
                    found = known[key] = Stored(marshal.loads(outline) if outline else None, [])
                if data is not None:
                    found.variants.append(marshal.loads(data))
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


