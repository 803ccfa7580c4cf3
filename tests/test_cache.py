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
