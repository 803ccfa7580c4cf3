"""The analysis cache: one row per git blob, so a blob is analysed once, ever.

Keyed by the blob id and the scanner's own fingerprint (a hash of the scanner's
source), so a change to the scanner invalidates what it wrote before without
anyone remembering to bump a version. One SQLite file: many small rows, read in
a few queries, written in one transaction.
"""

from __future__ import annotations

import hashlib
import sqlite3
import zlib
from pathlib import Path
from typing import Iterable, Iterator

import generator.messages
import generator.models
import generator.scanner


def scanner_fingerprint() -> str:
    digest = hashlib.sha256()
    for module in (generator.scanner, generator.messages, generator.models):
        digest.update(Path(module.__file__).read_bytes())
    return digest.hexdigest()[:16]


class BlobCache:
    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.fingerprint = scanner_fingerprint()
        self.db = sqlite3.connect(path)
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS analysis (fingerprint TEXT, blob TEXT, data BLOB,"
            " PRIMARY KEY (fingerprint, blob))"
        )

    def get_many(self, blobs: Iterable[str]) -> Iterator[tuple[str, bytes]]:
        """(blob, JSON bytes) for those of ``blobs`` that are cached."""
        wanted = list(dict.fromkeys(blobs))
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(
                f"SELECT blob, data FROM analysis WHERE fingerprint = ? AND blob IN ({marks})",
                [self.fingerprint, *chunk],
            )
            for blob, data in rows:
                yield blob, zlib.decompress(data)

    def put_many(self, items: Iterable[tuple[str, bytes]]) -> None:
        with self.db:
            self.db.executemany(
                "INSERT OR REPLACE INTO analysis VALUES (?, ?, ?)",
                ((self.fingerprint, blob, zlib.compress(data, 1)) for blob, data in items),
            )

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> "BlobCache":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
