"""``errorkb build``: the site (pages, search, lookup, JSON API) of the pin and its history."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from generator.cli.common import add_source_options, history_revs, load_entries_or_fail, scan_catalogs, workers
from generator.config import Config
from generator.errors import InputError


def add_parser(commands) -> None:
    build = commands.add_parser("build", help="build the site (pages, search, lookup, JSON API)")
    add_source_options(build)
    build.add_argument("--out", type=Path, default=None, help="where the site goes (default: site/ beside errorkb.toml)")
    build.add_argument("--pin-only", action="store_true", help="document the pin alone, without the [history] releases")
    build.set_defaults(run=run)


def run(config: Config, args: argparse.Namespace) -> int:
    from generator.repro.records import load_records
    from generator.site.build import SiteInput, build_site
    from generator.site.pages import Flag
    from generator.vllm.engine_args import engine_args_at

    out = args.out or config.root / "site"
    count = workers(args)
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
    site = SiteInput(
        catalog=catalog.to_json(), entries=entries, engine_args=engine_args,
        issues_url=config.issues_url, releases=[c.to_json() for _, c in scanned] if pin is not None else None,
        verifications=load_records(config.root / "errors" / "verifications"), workers=count,
    )
    pages = build_site(config.root / "mkdocs.yml", site, out)
    curated = sum(p.curated for p in pages)
    print(f"{out}: {len(pages)} error pages ({curated} curated) for {revision.rev}", file=sys.stderr)
    return 0
