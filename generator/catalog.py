"""A revision's catalog: every file's sites, grouped into errors with stable ids.

``assemble`` is pure (files in, ``Catalog`` out). ``scan_revision`` is the edge: it
lists the revision's blobs, takes what the blob cache has, analyses the rest in a
process pool, and stores what it learnt.
"""

from __future__ import annotations

import json
import multiprocessing
import os
from typing import Callable, Iterable

from generator.cache import BlobCache
from generator.messages import error_id, identity
from generator.models import Catalog, ErrorRecord, FileScan, RaiseSite
from generator.scanner import scan_source
from generator.sources import BlobReader, Revision, python_files

Progress = Callable[[int, int], None]  # (done, total)


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
        sites = sorted(groups[key], key=lambda s: (s.path, s.line))
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


def analyse_blob(item: tuple[str, bytes]) -> tuple[str, bytes]:
    """Worker: one blob's analysis as compact JSON (what the cache stores)."""
    blob, data = item
    scan = scan_source(data)
    return blob, json.dumps(scan.to_json(), separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def analyse_blobs(
    revision: Revision,
    blobs: list[str],
    cache: BlobCache,
    workers: int,
    progress: Progress | None = None,
) -> dict[str, bytes]:
    """Analyses of ``blobs``: from the cache, or computed now and cached."""
    found = dict(cache.get_many(blobs))
    missing = [b for b in dict.fromkeys(blobs) if b not in found]
    if not missing:
        return found
    fresh: list[tuple[str, bytes]] = []
    with BlobReader(revision.repo_path) as reader:
        items = ((blob, reader.read(blob)) for blob in missing)
        if workers <= 1:
            results: Iterable[tuple[str, bytes]] = map(analyse_blob, items)
            pool = None
        else:
            # fork: the workers inherit the imported scanner and start at once
            pool = multiprocessing.get_context("fork").Pool(workers)
            results = pool.imap_unordered(analyse_blob, items, chunksize=8)
        try:
            for blob, data in results:
                fresh.append((blob, data))
                if progress:
                    progress(len(fresh), len(missing))
        finally:
            if pool is not None:
                pool.close()
                pool.join()
    cache.put_many(fresh)
    found.update(fresh)
    return found


def scan_revision(
    project: str,
    revision: Revision,
    cache: BlobCache,
    workers: int | None = None,
    progress: Progress | None = None,
) -> Catalog:
    files = python_files(revision)
    analyses = analyse_blobs(revision, [blob for _, blob in files], cache, workers or os.cpu_count() or 1, progress)
    parsed: dict[str, dict] = {}

    def load(blob: str) -> FileScan:
        # A blob may stand at two paths: each gets its own sites.
        data = parsed.get(blob)
        if data is None:
            data = parsed[blob] = json.loads(analyses[blob])
        return FileScan.from_json(data)

    return assemble(
        project,
        revision.rev,
        revision.commit,
        revision.tag,
        revision.spec,
        ((path, load(blob)) for path, blob in files),
    )
