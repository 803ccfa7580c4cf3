"""The blob cache and its stored pieces, on real SQLite files."""

from __future__ import annotations

from generator.scan.cache import BlobCache, PieceStore, Rows


def rows_of(pieces: dict[str, dict]) -> Rows:
    rows = Rows()
    rows.add_pieces(pieces, [(key, {"reads": [], "n": index}) for index, key in enumerate(pieces)])
    return rows


def test_a_store_sees_the_pieces_stored_before_its_last_refresh(tmp_path):
    with BlobCache(tmp_path / "a.sqlite") as cache:
        cache.store(rows_of({"k1": {"stmts": []}}))
        reader = PieceStore.reader(cache.path, cache.fingerprint)
        cache.store(rows_of({"k2": {"stmts": [["def", "f"]]}}))  # after the reader opened
        found = reader.lookup(["k1", "k2", "k3"])
        assert set(found) == {"k1"}
        assert found["k1"].outline == {"stmts": []} and found["k1"].variants == [{"reads": [], "n": 0}]
        reader.reset()  # a new chain: what was stored since is seen
        assert set(reader.lookup(["k1", "k2", "k3"])) == {"k1", "k2"}


def test_a_stored_key_is_looked_up_once_and_a_replaced_row_is_still_found(tmp_path):
    with BlobCache(tmp_path / "a.sqlite") as cache:
        cache.store(rows_of({"k1": {"stmts": []}, "k2": None}))
        cache.store(rows_of({"k1": {"stmts": [["other", ""]]}}))  # INSERT OR REPLACE: a new rowid
        store = cache.pieces()
        assert store.stored == {"k1", "k2"}
        found = store.lookup(["k1", "k2"])
        assert found["k1"].outline == {"stmts": [["other", ""]]} and found["k2"].outline is None
        queries = []
        cache.db.set_trace_callback(queries.append)
        store.lookup(["k1", "k2", "k9"])  # known, known, not stored: no query
        cache.db.set_trace_callback(None)
        assert queries == []


def test_a_row_that_does_not_decode_is_a_miss(tmp_path):
    """Bytes damaged inside a row (the database itself sound): that blob or piece is analysed again."""
    with BlobCache(tmp_path / "a.sqlite") as cache:
        cache.put_many([("good", {"sites": []}), ("bad", {"sites": []})])
        cache.store(rows_of({"k1": {"stmts": []}, "k2": {"stmts": []}}))
        with cache.db:
            cache.db.execute("UPDATE analysis SET data = x'00ff00' WHERE blob = 'bad'")
            cache.db.execute("UPDATE piece SET outline = x'ff' WHERE key = 'k2'")
        assert dict(cache.get_many(["good", "bad"])) == {"good": {"sites": []}}
        assert set(cache.pieces().lookup(["k1", "k2"])) == {"k1"}


def test_a_store_that_cannot_read_the_database_finds_nothing(tmp_path):
    """A worker's reader of a file that is no database (or that was deleted and made again):
    every piece is a miss, never an exception in the worker."""
    (tmp_path / "a.sqlite").write_bytes(b"not a database" * 300)
    reader = PieceStore.reader(tmp_path / "a.sqlite", "fingerprint")
    assert reader.lookup(["k1"]) == {} and reader.stored == set()
    reader.reset()
    assert reader.lookup(["k1", "k2"]) == {}
