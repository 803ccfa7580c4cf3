"""``errorkb lookup``: the vLLM error in a pasted message, traceback or log."""

from __future__ import annotations

import argparse
import json

from generator.cli.common import add_source_options, history_revs, open_revision, read_paste, scan_catalogs
from generator.config import Config
from generator.errors import InputError
from generator.text import shorten


def add_parser(commands) -> None:
    lookup = commands.add_parser("lookup", help="find the vLLM error in a pasted log, traceback or message")
    lookup.add_argument("text", nargs="?", default="-", help="the text, or - (the default) to read standard input")
    lookup.add_argument("--json", action="store_true", help="print the result as JSON")
    lookup.add_argument("--top", type=int, default=3, help="how many matches to show (default 3)")
    lookup.add_argument("--pin-only", action="store_true", help="match only the pin's errors, not those of older [history] releases")
    add_source_options(lookup)
    lookup.set_defaults(run=run)


def lookup_index(config: Config, args: argparse.Namespace) -> dict:
    """The compact lookup index of the pin, and of every [history] release when the pin is one."""
    from generator.lookup.cache import index_path, stored_index
    from generator.lookup.index import INDEX_SCHEMA_VERSION, compact_index
    from generator.scan.cache import scanner_fingerprint

    revs, _ = history_revs(config, args)
    resolved = [open_revision(config, args, rev) for rev in revs]
    path = index_path(resolved[0][1], [(r.rev, r.commit) for r, _ in resolved], scanner_fingerprint())
    return stored_index(path, lambda: compact_index([c.to_json() for _, c in scan_catalogs(config, args, revs)]), INDEX_SCHEMA_VERSION)


def run(config: Config, args: argparse.Namespace) -> int:
    from generator.history.lineage import version_ranges
    from generator.lookup.index import matcher_from_index

    if args.top < 1:
        raise InputError("--top must be at least 1")
    paste = read_paste(args.text)
    index = lookup_index(config, args)
    matches, foreign = matcher_from_index(index, config.site_url).lookup(paste, top=args.top)
    if args.json:
        print(json.dumps({"matches": [m.to_json() for m in matches], "not_vllm": foreign}, indent=1, ensure_ascii=False))
        return 0 if matches or foreign else 1
    if foreign:
        print(f"Not a vLLM error: {foreign['reason']} (from {foreign['source']}).")
        if matches:
            print("vLLM errors raised after it:")
    elif not paste.strip():
        print("Nothing to look up: the input is empty. Paste an error message, traceback or log.")
        return 1
    elif not matches:
        revisions = index["revisions"]
        covered = revisions[-1] if len(revisions) == 1 else f"{revisions[0]} – {revisions[-1]}"
        print(f"No vLLM error of {covered} matches this text.")
        return 1
    for rank, match in enumerate(matches, 1):
        data = match.to_json()
        site = data["sites"][0] if data["sites"] else None
        where = f" · {site['path']}:{site['line']}" if site else ""
        print(f"{rank}. {data['title']}  [score {data['score']:.2f}]")
        print(f"   id {data['id']} · {', '.join(version_ranges(data['versions'], index['revisions']))}{where}")
        print(f"   {data['url']}")
        for name, value in data["values"].items():
            print(f"   {{{name}}} = {shorten(value, 120)}")
    return 0
