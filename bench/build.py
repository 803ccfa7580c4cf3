"""Site build speed: the full build at the pin and a build of about half the pages.

    python bench/build.py --source ../shared/corpus/vllm-releases.bundle --rev v0.33.0

Both builds run in one process, one after the other, with the same entries and
engine arguments; the scan is warmed first and not timed. Prints each time, the
ratio of time to the ratio of pages (goal: 2x the pages in at most 2.2x the
time), the size of the error pages' HTML (goal: at most 46 KB each: the theme's frame
is about 20 KB of it), and the weight of the home page and a curated error page with what
they load before the reader types.
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
        weights = {name: page_weight(Path(tmp) / "full", page) for name, page in
                   (("home page", "index.html"), ("curated error page", f"errors/{CURATED}/index.html"))}
    page_ratio = full_pages / half_pages
    time_ratio = full_time / half_time
    print(f"{args.rev}: {full_pages} error pages ({len(entries)} curated entries)")
    print(f"half build  : {half_pages:5d} pages {half_time:7.1f} s")
    print(f"full build  : {full_pages:5d} pages {full_time:7.1f} s   (goal <= 60 s)")
    print(f"scaling     : {page_ratio:.2f}x the pages in {time_ratio:.2f}x the time   "
          f"(normalised to 2x pages: {time_ratio / page_ratio * 2:.2f}x; goal <= 2.2x)")
    print(f"error page  : {sum(sizes) / len(sizes) / 1024:.1f} KB on average, {max(sizes) / 1024:.1f} KB at most (goal <= 46 KB)")
    for name, (html, loaded, gzipped) in weights.items():
        print(f"page weight : {name}: {html / 1024:.0f} KB of HTML, {loaded / 1024:.0f} KB with what it loads before "
              f"the reader types ({gzipped / 1024:.0f} KB gzipped; the search and lookup indexes wait for the reader)")
    return 0


CURATED = "c8f7b9d6b5fb8793"  # the Mamba page: reproductions, flags and the memory calculator


def page_weight(site: Path, page: str) -> tuple[int, int, int]:
    """The page's HTML, and with the stylesheets, scripts and images it names (what a browser
    fetches on load: the search index and the lookup index are fetched on use), plain and gzipped."""
    import gzip
    import re

    path = site / page
    html = path.read_bytes()
    parts = [html]
    for ref in re.findall(rb'<(?:link[^>]+rel="stylesheet"[^>]+href|script[^>]+src|img[^>]+src)="([^"#?]+)', html):
        target = (path.parent / ref.decode()).resolve()
        if target.is_file():
            parts.append(target.read_bytes())
    return len(html), sum(map(len, parts)), sum(len(gzip.compress(p)) for p in parts)


if __name__ == "__main__":
    raise SystemExit(main())
