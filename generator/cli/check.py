"""``errorkb check``: every problem in the curated entries, as ``path:line:col: message``."""

from __future__ import annotations

import argparse
from pathlib import Path

from generator.cli.common import add_source_options, history_revs, scan_catalogs
from generator.config import Config
from generator.errors import Findings, InputError


def add_parser(commands) -> None:
    check = commands.add_parser("check", help="check the curated entries (errors/*.yaml) against the schema and the pinned release")
    add_source_options(check)
    check.add_argument("--errors", type=Path, default=None, help="the folder of entries (default: errors/ beside errorkb.toml)")
    check.add_argument("--pin-only", action="store_true", help="accept only ids raised at the pin, not in older [history] releases")
    check.set_defaults(run=run)


def run(config: Config, args: argparse.Namespace) -> int:
    from generator.entries.check import check_entries
    from generator.entries.load import available_models, load_entries
    from generator.history.lineage import errors_of_releases
    from generator.entries.lineage import LINEAGE_FILE, link_problems, load_lineage
    from generator.entries.reports import REPORTS_FILE, load_reports, report_problems
    from generator.lookup.foreign import foreign_errors
    from generator.cli.lookup import release_index, with_entries
    from generator.lookup.index import matcher_from_index
    from generator.repro.records import record_problems
    from generator.vllm.engine_args import serve_flags_at

    folder = args.errors or config.root / "errors"
    if not folder.is_dir():
        raise InputError(f"{folder} is not a folder of entries; pass --errors DIR")
    entries, problems = load_entries(folder, config.root)
    revs, pin = history_revs(config, args)
    scanned = scan_catalogs(config, args, revs)
    jsons = [c.to_json() for _, c in scanned]
    revision, catalog = scanned[pin or 0]
    if pin is None:
        known, where = catalog.to_json()["errors"], revision.rev
    else:
        known = errors_of_releases(jsons, pin)
        where = f"{revision.rev} or any of the {len(revs)} [history] releases"
    lineage, link_shape = load_lineage(folder, config.root)
    links = lineage.links
    # the lookup as `errorkb lookup` runs it: lineage, these entries and these links included
    matcher = matcher_from_index(with_entries(release_index(config, args), entries, links))

    def lookup(text: str) -> list[str]:
        """The ids of the problems the lookup ranks first for ``text``, ties included: the
        error matched, its problem's current error and the problem's other ids (the same
        message logged and raised, or raised by several releases under several ids)."""
        matches, foreign = matcher.lookup(text, top=10)
        ids: list[str] = [foreign["id"]] if foreign and foreign.get("id") and foreign.get("role") == "answer" else []
        for m in matches:
            if m.score == matches[0].score:
                for id_ in (m.error.id, (m.current or m.error).id, *(a.id for a in m.also)):
                    if id_ not in ids:
                        ids.append(id_)
        return ids

    versions: dict[str, list[str]] = {}
    for (revision_, _), data in zip(scanned, jsons):
        for error in data["errors"]:
            versions.setdefault(error["id"], []).append(revision_.rev)
    link_found = link_shape + link_problems(links, f"{folder.name}/{LINEAGE_FILE}", versions, [r.rev for r, _ in scanned],
                                           lineage.apart)
    reports, report_shape = load_reports(folder, config.root)
    foreign_ids = {error.id for error in foreign_errors()}
    problems = sorted(problems + link_found + report_shape + report_problems(reports, f"{folder.name}/{REPORTS_FILE}",
                                                                {e["id"] for e in known} | foreign_ids, lookup)
                      + check_entries(entries, known, serve_flags_at(revision), where, available_models(config.root),
                                      lookup)
                      + record_problems(entries, folder / "verifications", config.root))
    files = len([f for f in folder.glob("*.yaml") if f.name not in (REPORTS_FILE, LINEAGE_FILE)])
    if not problems:
        print(f"{files} entries, no problems")
        return 0
    for problem in problems:
        print(problem)
    paths = len({problem.path for problem in problems})
    raise Findings(f"{len(problems)} problems in {paths} of {files} entries (at {revision.rev})")
