"""A revision's catalog: every file's sites, grouped into errors with stable ids.

``assemble`` is pure (files in, ``Catalog`` out). ``scan_revision`` is the edge: it
lists the revision's blobs, takes what the blob cache has, analyses the rest in a
process pool (piece by piece, reusing the pieces the cache has: ``generator.pieces``),
and stores what it learnt.
"""

from __future__ import annotations

import gc
import json
import multiprocessing
import operator
import os
from typing import Callable, Iterable

from generator.cache import BlobCache, PieceStore, Rows
from generator.messages import error_id, identity
from generator.models import Catalog, ErrorRecord, FileScan, RaiseSite, collector_paused
from generator.pieces import scan_file
from generator.sources import BlobReader, Revision, python_files

Progress = Callable[[int, int], None]  # (done, total)
_BY_PLACE = operator.attrgetter("path", "line")


def assemble(
    project: str,
    revision: str,
    commit: str,
    tag: str | None,
    source: str,
    files: Iterable[tuple[str, FileScan]],
) -> Catalog:
    groups: dict[str, list[RaiseSite]] = {}
    stats = {"files": 0, "sites": 0, "errors": 0, "raises": 0, "asserts": 0, "reraises": 0, "skipped": []}
    for path, scan in files:
        stats["files"] += 1
        stats["reraises"] += scan.reraises
        if scan.skipped:
            stats["skipped"].append({"path": path, "reason": scan.skipped})
        for site in scan.sites:
            site.path = path
            key = error_id(project, site.exception, identity(site.template, path, site.function))
            groups.setdefault(key, []).append(site)
            stats["sites"] += 1
            stats["asserts" if site.kind == "assert" else "raises"] += 1
    errors = []
    for key in sorted(groups):
        sites = sorted(groups[key], key=_BY_PLACE)
        first = sites[0]
        errors.append(
            ErrorRecord(
                id=key,
                kind=first.kind,
                exception=first.exception.rsplit(".", 1)[-1],
                template=first.template,
                sites=sites,
            )
        )
    stats["errors"] = len(errors)
    stats["skipped"].sort(key=lambda s: s["path"])
    return Catalog(project=project, revision=revision, commit=commit, tag=tag, source=source, errors=errors, stats=stats)


def catalog_json(catalog: Catalog) -> str:
    return json.dumps(catalog.to_json(), indent=1, ensure_ascii=False) + "\n"


class _Analyser:
    """Analyses blobs of one repository, piece by piece, in this process."""

    def __init__(self, repo_path, pieces: PieceStore):
        self.reader = BlobReader(repo_path)
        self.pieces = pieces

    def analyse(self, task: tuple[str, int]) -> tuple[str, dict, Rows, dict[str, int]]:
        """One blob's analysis (as JSON data), its rows for the cache, and piece statistics."""
        blob, generation = task
        self.pieces.generation(generation)
        result = scan_file(self.reader.read(blob), self.pieces.lookup)
        scan = result.scan.to_json()
        rows = Rows()
        rows.add(blob, scan, result)
        self.pieces.learn(rows)
        return blob, scan, rows, result.stats

    def close(self) -> None:
        self.reader.close()


_worker: _Analyser | None = None


def _start_worker(repo_path, cache_path, fingerprint: str) -> None:
    global _worker
    _worker = _Analyser(repo_path, PieceStore.reader(cache_path, fingerprint))
    # What the worker inherited lives as long as it does: the garbage collector need
    # not go over it again each time the syntax trees it makes call for a collection.
    # (It may have been forked with the collector paused: the worker runs with it on.)
    gc.freeze()
    gc.enable()


def _analyse_in_worker(task: tuple[str, int]):
    assert _worker is not None
    return _worker.analyse(task)


class _Workers:
    """A pool of worker processes for one repository, kept while the cache is open.

    Releases scanned one after another reuse it, and each worker keeps the pieces it
    looked up in memory from one release to the next.
    """

    def __init__(self, repo_path, cache: BlobCache, workers: int):
        self.key = (str(repo_path), workers)
        # fork: the workers inherit the imported scanner and start at once; each reads
        # its blobs and the stored pieces itself (only this process writes the cache)
        self.pool = multiprocessing.get_context("fork").Pool(
            workers, initializer=_start_worker, initargs=(repo_path, cache.path, cache.fingerprint)
        )

    def close(self) -> None:
        self.pool.close()
        self.pool.join()


def analyse_blobs(
    revision: Revision,
    blobs: list[str],
    cache: BlobCache,
    workers: int,
    progress: Progress | None = None,
) -> dict[str, dict]:
    """Analyses of ``blobs`` as JSON data: from the cache, or computed now (from cached pieces
    where they hold) and cached."""
    found = {blob: json.loads(data) for blob, data in cache.get_many(blobs)}
    missing = [b for b in dict.fromkeys(blobs) if b not in found]
    cache.stats.blobs_cached += len(found)
    if not missing:
        return found
    tasks = [(blob, cache.generation) for blob in missing]
    if workers <= 1:
        analyser = _Analyser(revision.repo_path, cache.pieces())
        results: Iterable = map(analyser.analyse, tasks)
    else:
        pool = cache.resources.get("workers")
        if not isinstance(pool, _Workers) or pool.key != (str(revision.repo_path), workers):
            if pool is not None:
                pool.close()
            pool = cache.resources["workers"] = _Workers(revision.repo_path, cache, workers)
        analyser = None
        results = pool.pool.imap_unordered(_analyse_in_worker, tasks, chunksize=2)
    rows = Rows()
    try:
        for blob, scan, learnt, stats in results:
            found[blob] = scan
            rows.extend(learnt)
            cache.stats.add_file(stats)
            if progress:
                progress(len(rows.blobs), len(missing))
    finally:
        if analyser is not None:
            analyser.close()
    cache.store(rows)
    return found


def scan_revision(
    project: str,
    revision: Revision,
    cache: BlobCache,
    workers: int | None = None,
    progress: Progress | None = None,
) -> Catalog:
    with collector_paused():
        return _scan_revision(project, revision, cache, workers, progress)


def _scan_revision(
    project: str, revision: Revision, cache: BlobCache, workers: int | None, progress: Progress | None
) -> Catalog:
    files = python_files(revision)
    blobs = [blob for _, blob in files]
    # Decoded once per cache: releases share most blobs. A blob may stand at two paths
    # (or in two releases): each gets its own sites.
    loaded = cache.loaded
    distinct = list(dict.fromkeys(blobs))
    wanted = [blob for blob in distinct if blob not in loaded]
    loaded.update(analyse_blobs(revision, wanted, cache, workers or os.cpu_count() or 1, progress))
    cache.stats.blobs_cached += len(distinct) - len(wanted)

    def load(blob: str) -> FileScan:
        return FileScan.from_json(loaded[blob])

    return assemble(
        project,
        revision.rev,
        revision.commit,
        revision.tag,
        revision.spec,
        ((path, load(blob)) for path, blob in files),
    )
