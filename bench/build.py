"""Site build speed: the full build at the pin and a build of about half the pages.

    python bench/build.py --source ../shared/corpus/vllm-releases.bundle --rev v0.33.0

Both builds run in one process, one after the other, with the same entries and
engine arguments; the scan is warmed first and not timed. Prints each time, the
ratio of time to the ratio of pages (goal: 2x the pages in at most 2.2x the
time), and the size of the error pages' HTML (goal: at most 40 KB each).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from common import ROOT, pin_catalog, source_parser

from generator.vllm.engine_args import engine_args_at  # noqa: E402
from generator.entries.load import load_entries  # noqa: E402
from generator.site.pages import Flag  # noqa: E402
from generator.site.build import SiteInput, build_site  # noqa: E402


def timed_build(catalog: dict, entries, args, out: Path) -> tuple[float, int, list[int]]:
    start = time.perf_counter()
    pages = build_site(ROOT / "mkdocs.yml", SiteInput(catalog=catalog, entries=entries, engine_args=args), out)
    elapsed = time.perf_counter() - start
    sizes = [(out / "errors" / p.id / "index.html").stat().st_size for p in pages]
    return elapsed, len(pages), sizes


def main() -> int:
    args = source_parser(__doc__).parse_args()
    revision, catalog = pin_catalog(args)
    entries, problems = load_entries(ROOT / "errors", ROOT)
    if problems:
        print("\n".join(map(str, problems)))
        return 1
    engine = {a.name: Flag(a.name, a.flag, a.type, a.default, a.help) for a in engine_args_at(revision)}
    half = dict(catalog, errors=catalog["errors"][::2])

    with tempfile.TemporaryDirectory(prefix="errorkb-bench-") as tmp:
        half_time, half_pages, _ = timed_build(half, entries, engine, Path(tmp) / "half")
        full_time, full_pages, sizes = timed_build(catalog, entries, engine, Path(tmp) / "full")
    page_ratio = full_pages / half_pages
    time_ratio = full_time / half_time
    print(f"{args.rev}: {full_pages} error pages ({len(entries)} curated entries)")
    print(f"half build  : {half_pages:5d} pages {half_time:7.1f} s")
    print(f"full build  : {full_pages:5d} pages {full_time:7.1f} s   (goal <= 60 s)")
    print(f"scaling     : {page_ratio:.2f}x the pages in {time_ratio:.2f}x the time   "
          f"(normalised to 2x pages: {time_ratio / page_ratio * 2:.2f}x; goal <= 2.2x)")
    print(f"error page  : {sum(sizes) / len(sizes) / 1024:.1f} KB on average, {max(sizes) / 1024:.1f} KB at most (goal <= 40 KB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
