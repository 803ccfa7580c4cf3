"""``errorkb scan``: the catalog of one release, or the history of several, as JSON."""

from __future__ import annotations

import argparse
import json
import sys

from generator.cli.common import add_source_options, scan_catalogs, workers
from generator.config import Config
from generator.files import write_atomically


def add_parser(commands) -> None:
    scan = commands.add_parser("scan", help="write the catalog of every raise site at a revision (several: their history), as JSON")
    add_source_options(scan, multiple_revs=True)
    scan.add_argument("--out", required=True, help="file to write, or - for standard output")
    scan.set_defaults(run=run)


def run(config: Config, args: argparse.Namespace) -> int:
    from generator.history.lineage import assemble_history
    from generator.scan.catalog import catalog_json

    revs = args.rev or [config.rev]
    scanned = scan_catalogs(config, args, revs)
    if len(revs) == 1:
        revision, catalog = scanned[0]
        write_atomically(args.out, catalog_json(catalog))
        if args.out != "-":
            stats = catalog.stats
            print(f"{args.out}: {stats['errors']} errors from {stats['sites']} sites in {stats['files']} files "
                  f"at {revision.rev} ({revision.commit[:12]}); {stats['reraises']} re-raises, "
                  f"{len(stats['skipped'])} files skipped", file=sys.stderr)
        return 0
    # Several releases: one pass, one blob cache, and the history of their errors.
    history = assemble_history([catalog.to_json() for _, catalog in scanned], workers(args))
    write_atomically(args.out, json.dumps(history, indent=1, ensure_ascii=False) + "\n")
    if args.out != "-":
        stats = history["stats"]
        print(f"{args.out}: {stats['errors']} errors over {stats['releases']} releases; {stats['links']} lineage links "
              f"({', '.join(f'{n} {k}' for k, n in stats['by_kind'].items())})", file=sys.stderr)
    return 0
