"""``errorkb drift``: what changed in vLLM's errors between two releases."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from generator.cli.common import add_source_options, scan_catalogs
from generator.config import Config
from generator.errors import InputError


def add_parser(commands) -> None:
    drift = commands.add_parser("drift", help="what changed in vLLM's errors between two releases")
    drift.add_argument("old", help="the older release, e.g. v0.32.0")
    drift.add_argument("new", help="the newer release, e.g. v0.33.0")
    drift.add_argument("--json", action="store_true", help="print the whole report as JSON")
    drift.add_argument("--limit", type=int, default=10, help="items shown per kind (default 10)")
    drift.add_argument("--weights", type=Path, default=None,
                       help="a JSON file mapping error ids to how often people hit them (a count, or a list of "
                            "reports); coverage is also weighted by it (default: the counts of errors/reports.yaml)")
    add_source_options(drift)
    drift.set_defaults(run=run)


def read_weights(path: Path) -> dict[str, int]:
    """``{id: count}`` from a JSON object whose values are counts or lists of reports."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"--weights {path}: {exc}; give a JSON object of error id to count") from None
    if not isinstance(data, dict):
        raise InputError(f"--weights {path}: a JSON object of error id to count is expected")
    weights = {}
    for key, value in data.items():
        count = len(value) if isinstance(value, list) else value
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise InputError(f"--weights {path}: {key!r} has {value!r}; give a count or a list of reports")
        weights[str(key)] = count
    return weights


def run(config: Config, args: argparse.Namespace) -> int:
    from generator.entries.load import load_entries
    from generator.history.drift import drift

    from generator.entries.reports import load_reports, report_counts

    if args.weights:
        weights, weighted_by = read_weights(args.weights), f"--weights {args.weights}"
    else:  # how often people hit each error, as the project counted it
        reports, problems = load_reports(config.root / "errors", config.root)
        if problems:
            raise InputError(f"{problems[0]}; or give --weights")
        weights, weighted_by = report_counts(reports), "the reports in errors/reports.yaml"
    old, new = (catalog.to_json() for _, catalog in scan_catalogs(config, args, [args.old, args.new]))
    entries, _ = load_entries(config.root / "errors", config.root)
    report = drift(old, new, entries, weights)
    if args.json:
        print(json.dumps(report, indent=1, ensure_ascii=False))
        return 0
    print(f"Errors from {report['old']} to {report['new']}:")
    for kind in ("added", "removed", "reworded", "retyped", "moved"):
        items = report[kind]
        print(f"\n{kind}: {len(items)}")
        for item in items[: args.limit]:
            if kind in ("reworded", "retyped"):
                print(f"  {item['from']} -> {item['to']} ({item['kind']}, {item['score']}): {item['new']['template'][:90]}")
            elif kind == "moved":
                print(f"  {item['id']}: {', '.join(item['from'])} -> {', '.join(item['to'])}")
            else:
                print(f"  {item['id']} {item['exception']}: {item['template'][:90]}")
        if len(items) > args.limit:
            print(f"  ... and {len(items) - args.limit} more (--json for all)")
    print(f"\nstale curated entries: {len(report['stale_entries'])}")
    for stale in report["stale_entries"]:
        print(f"  errors/{stale['entry']}.yaml: {', '.join(stale['ids'])} no longer raised")
    cov = report["coverage"]
    weighted = f", {cov['weighted_share']:.1%} weighted by {weighted_by}" if cov["weighted_share"] is not None else ""
    print(f"coverage at {report['new']}: {cov['curated']}/{cov['errors']} errors curated ({cov['share']:.1%}){weighted}")
    return 0
