"""``errorkb new``: a skeleton entry for the vLLM error a pasted message shows."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from generator.cli.common import add_source_options, read_paste, scan_catalog
from generator.config import Config
from generator.errors import InputError
from generator.files import write_atomically


def add_parser(commands) -> None:
    new = commands.add_parser("new", help="start a curated entry for the vLLM error in a pasted message")
    new.add_argument("text", nargs="?", default="-", help="the pasted error, or - (the default) to read standard input")
    add_source_options(new)
    new.add_argument("--errors", type=Path, default=None, help="the folder of entries (default: errors/ beside errorkb.toml)")
    new.add_argument("--force", action="store_true", help="overwrite an entry file that exists")
    new.set_defaults(run=run)


def run(config: Config, args: argparse.Namespace) -> int:
    from generator.entries.skeleton import new_entry
    from generator.lookup.index import matcher_from_catalogs
    from generator.vllm.engine_args import engine_args_at

    paste = read_paste(args.text)
    if not paste.strip():
        raise InputError("nothing to look up: paste the error message (or - to read it from standard input)")
    folder = args.errors or config.root / "errors"
    revision, catalog = scan_catalog(config, args)
    data = catalog.to_json()
    matches, foreign = matcher_from_catalogs([data], config.site_url).lookup(paste, top=1)
    if not matches:
        why = f"; it looks like {foreign['reason']} (from {foreign['source']})" if foreign else ""
        raise InputError(f"no vLLM error at {revision.rev} matches this text{why}; check the paste with `errorkb lookup`")
    error = next(e for e in data["errors"] if e["id"] == matches[0].error.id)
    slug, text = new_entry(error, engine_args_at(revision), revision.rev)
    target = folder / f"{slug}.yaml"
    if target.exists() and not args.force:
        raise InputError(f"{target} exists; pass --force to overwrite it")
    write_atomically(target, text)
    print(target)
    print(f"{error['id']}: {matches[0].error.title}; fill in the TODOs, then run `errorkb check`", file=sys.stderr)
    return 0
