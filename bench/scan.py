"""Scanner speed: the ast.parse floor, a cold scan and a warm scan, in one run.

    python bench/scan.py --source ../shared/corpus/vllm-releases.bundle --rev v0.33.0

Every figure uses the same worker count and the same files (the revision's
``vllm/**/*.py`` blobs, read through the same git reader). The floor is what any
scanner built on the stdlib parser must pay: read every blob and ``ast.parse`` it.
Cold starts from an empty analysis cache; warm runs again over the full cache.
The source itself is resolved (cloned, imported) before any timing starts.
"""

from __future__ import annotations

import ast
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import source_parser  # noqa: E402

from generator.scan.cache import BlobCache  # noqa: E402
from generator.scan.catalog import scan_revision  # noqa: E402
from generator.scan.sources import BlobReader, python_files, resolve  # noqa: E402


def _parse(item: tuple[str, bytes]) -> int:
    try:
        ast.parse(item[1])
    except (SyntaxError, ValueError):
        pass
    return 1


def ast_floor(revision, workers: int) -> float:
    files = python_files(revision)
    start = time.perf_counter()
    with BlobReader(revision.repo_path) as reader:
        items = ((blob, reader.read(blob)) for _, blob in files)
        if workers <= 1:
            for item in items:
                _parse(item)
        else:
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                for _ in pool.imap_unordered(_parse, items, chunksize=8):
                    pass
    return time.perf_counter() - start


def timed_scan(revision, cache_path: Path, workers: int) -> tuple[float, int]:
    start = time.perf_counter()
    with BlobCache(cache_path) as cache:
        catalog = scan_revision("vllm", revision, cache, workers)
    return time.perf_counter() - start, catalog.stats["sites"]


def main() -> int:
    parser = source_parser(__doc__)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()

    revision = resolve(args.source, args.rev, args.cache_dir)
    files = python_files(revision)
    print(f"{args.rev} ({revision.commit[:12]}): {len(files)} files, {args.workers} workers")
    with tempfile.TemporaryDirectory(prefix="errorkb-bench-") as tmp:
        cache_path = Path(tmp) / "analysis.sqlite"
        floor = ast_floor(revision, args.workers)
        cold, sites = timed_scan(revision, cache_path, args.workers)
        warm, warm_sites = timed_scan(revision, cache_path, args.workers)
    assert sites == warm_sites, "warm and cold scans disagree"
    print(f"ast.parse floor : {floor:7.2f} s")
    print(f"cold scan       : {cold:7.2f} s   cold/floor = {cold / floor:.2f}   (goal <= 2.00)")
    print(f"warm scan       : {warm:7.2f} s   warm/cold  = {warm / cold:.3f}  (goal <= 0.100)")
    print(f"sites           : {sites}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
