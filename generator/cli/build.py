"""``errorkb build``: the site (pages, search, lookup, JSON API) of the pin and its history."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from generator.cli.common import add_source_options, history_revs, load_entries_or_fail, progress_of, scan_catalogs, workers
from generator.config import Config
from generator.errors import InputError


def add_parser(commands) -> None:
    build = commands.add_parser("build", help="build the site (pages, search, lookup, JSON API)")
    add_source_options(build)
    build.add_argument("--out", type=Path, default=None, help="where the site goes (default: site/ beside errorkb.toml)")
    build.add_argument("--pin-only", action="store_true", help="document the pin alone, without the [history] releases")
    build.set_defaults(run=run)


def run(config: Config, args: argparse.Namespace) -> int:
    build(config, args, site_input(config, args), args.out or config.root / "site")
    return 0


def site_input(config: Config, args: argparse.Namespace):
    """What the site is built from: the entries, the releases scanned, the pin's flags and
    the records (``args.site_rev``: the pin's tag, for the summary line)."""
    from generator.entries.lineage import load_lineage
    from generator.entries.reports import load_reports
    from generator.site.build import SiteInput
    from generator.site.pages import Flag
    from generator.vllm.engine_args import engine_args_at

    entries = load_entries_or_fail(config.root / "errors", config.root)
    revs, pin = history_revs(config, args)
    if config.releases and not args.pin_only and pin is None:
        raise InputError(f"the pin {revs[0]} is not among errorkb.toml's [history] releases; add it or pass --pin-only")
    scanned = scan_catalogs(config, args, revs)
    revision, catalog = scanned[pin or 0]
    engine_args = {
        a.name: Flag(name=a.name, flag=a.flag, type=a.type, default=a.default, help=a.help)
        for a in engine_args_at(revision)
    }
    args.site_rev, args.site_older = revision.rev, (len(revs) - 1 if pin is not None else 0)
    reports, problems = load_reports(config.root / "errors", config.root)
    if problems:
        for problem in problems:
            print(problem, file=sys.stderr)
        raise InputError(f"{len(problems)} problems in errors/reports.yaml (listed above); fix them, `errorkb check` lists them too")
    lineage, link_shape = load_lineage(config.root / "errors", config.root)
    if link_shape:
        for problem in link_shape:
            print(problem, file=sys.stderr)
        raise InputError(f"{len(link_shape)} problems in errors/lineage.yaml (listed above); fix them, `errorkb check` lists them too")
    return SiteInput(
        reports=reports, manual_links=lineage.links, apart=lineage.apart_pairs(),
        catalog=catalog.to_json(), entries=entries, engine_args=engine_args,
        issues_url=config.issues_url, releases=[c.to_json() for _, c in scanned] if pin is not None else None,
        verifications=load_records(config.root / "errors" / "verifications"), workers=workers(args),
    )


def build(config: Config, args: argparse.Namespace, site, out: Path) -> list:
    """Build ``site`` into ``out``, with progress and a summary on stderr."""
    from generator.site.build import build_site

    progress = progress_of(args)
    pages = build_site(config.root / "mkdocs.yml", site, out, progress.step)
    curated = sum(p.curated for p in pages)
    older = f" and {args.site_older} older releases" if args.site_older else ""
    print(f"{out}: {len(pages)} error pages ({curated} curated) for {args.site_rev}{older}, built in {progress.elapsed()}",
          file=sys.stderr)
    if args.command == "build":
        serve = "errorkb serve" + ("" if args.out is None else f" --out {args.out}")
        progress.say(f"preview it with `{serve}` (http://127.0.0.1:8000/), or open {out / 'index.html'}")
    return pages


def load_records(folder: Path) -> dict:
    from generator.repro.records import load_records as load

    return load(folder)
