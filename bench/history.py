"""History speed: a cold scan of every release against a cold scan of the pin, in one run.

    python bench/history.py --source ../shared/corpus/vllm-releases.bundle

Each cold scan starts from an empty analysis cache (the sources are resolved first
and not timed); the warm history scan reruns the releases over the full cache. The
releases are errorkb.toml's [history] list, scanned in one pass (catalog.scan_revisions).
Goal: history cold <= 4x one release cold (the median of the runs' ratios, each run's
two cold scans back to back); warm history <= 10 s. A cold scan analyses
each new blob piece by piece (generator/scan/pieces.py cuts it, generator/scan/incremental.py
walks it): the brackets say how many pieces it walked, reused, and passed over as quiet
functions.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import source_parser  # noqa: E402

from generator.scan.cache import BlobCache  # noqa: E402
from generator.scan.catalog import scan_revisions  # noqa: E402
from generator.config import load_config  # noqa: E402
from generator.history.lineage import assemble_history  # noqa: E402
from generator.scan.sources import python_files, resolve  # noqa: E402


def scan_all(revisions, cache_path: Path, workers: int) -> tuple[float, dict[str, int]]:
    start = time.perf_counter()
    with BlobCache(cache_path) as cache:
        catalogs = [catalog.to_json() for catalog in scan_revisions("vllm", revisions, cache, workers)]
        stats = cache.stats.as_dict()
    if len(catalogs) > 1:
        assemble_history(catalogs, workers)
    return time.perf_counter() - start, stats


def main() -> int:
    config = load_config()
    parser = source_parser(__doc__, rev=False)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeat", type=int, default=3, help="runs of the three scans")
    args = parser.parse_args()

    revisions = [resolve(args.source, rev, args.cache_dir) for rev in config.releases]
    pin = next(r for r in revisions if r.rev == config.rev)
    blobs = {blob for r in revisions for _, blob in python_files(r)}
    print(f"{len(revisions)} releases, {len(blobs)} distinct blobs; pin {pin.rev}: {len(python_files(pin))} files; {args.workers} workers")
    ones, colds, warms = [], [], []
    # Alternated and repeated: this machine's speed drifts from one minute to the next.
    for attempt in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="errorkb-bench-") as tmp:
            ones.append(scan_all([pin], Path(tmp) / "one.sqlite", args.workers))
            colds.append(scan_all(revisions, Path(tmp) / "all.sqlite", args.workers))
            warms.append(scan_all(revisions, Path(tmp) / "all.sqlite", args.workers))
        print(f"  run {attempt + 1}: one {ones[-1][0]:.1f} s, history cold {colds[-1][0]:.1f} s, "
              f"warm {warms[-1][0]:.1f} s (history/one {colds[-1][0] / ones[-1][0]:.2f})")
    (one, one_stats), (cold, cold_stats), (warm, _) = min(ones), min(colds), min(warms)
    # The ratio of each run, its two scans back to back; their median stands for them all
    # (the best times of different runs may come from minutes of different speeds).
    ratios = sorted(c[0] / o[0] for o, c in zip(ones, colds))
    middle = len(ratios) // 2
    median = ratios[middle] if len(ratios) % 2 else (ratios[middle - 1] + ratios[middle]) / 2
    print(f"one release cold : {one:7.1f} s (best)   {_pieces(one_stats)}")
    print(f"history cold     : {cold:7.1f} s (best)   {_pieces(cold_stats)}")
    print(f"history/one      : {median:7.2f}   median of the runs' ratios (goal <= 4.00); best against best {cold / one:.2f}")
    print(f"history warm     : {warm:7.1f} s (best)   (goal <= 10 s)")
    return 0


def _pieces(stats: dict[str, int]) -> str:
    return (f"[{stats['blobs_analysed']} blobs analysed: pieces {stats['pieces_walked']} walked, "
            f"{stats['pieces_reused']} reused, {stats['pieces_quiet']} quiet; {stats['files_whole']} files whole]")


if __name__ == "__main__":
    raise SystemExit(main())
