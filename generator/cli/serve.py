"""``errorkb serve``: build the site when needed, serve it on this machine, and rebuild an
entry's pages when its YAML (or its record) changes."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from generator.cli.common import add_source_options, progress_of
from generator.config import Config
from generator.errors import ErrorkbError, InputError

POLL_S = 1.0


def add_parser(commands) -> None:
    serve = commands.add_parser("serve", help="build the site if needed and serve it locally; an entry's pages are rebuilt when its YAML changes")
    add_source_options(serve)
    serve.add_argument("--out", type=Path, default=None, help="the site's folder (default: site/ beside errorkb.toml)")
    serve.add_argument("--pin-only", action="store_true", help="document the pin alone, without the [history] releases")
    serve.add_argument("--host", default="127.0.0.1", help="the address to listen on (default: 127.0.0.1, this machine only)")
    serve.add_argument("--port", type=int, default=8000, help="the port (default: 8000; 0 picks a free one)")
    serve.add_argument("--rebuild", action="store_true", help="build the site again even when one is there")
    serve.set_defaults(run=run)


def run(config: Config, args: argparse.Namespace) -> int:
    from generator.cli import build
    from generator.entries.load import load_entries
    from generator.entries.lineage import LINEAGE_FILE, load_lineage
    from generator.entries.reports import REPORTS_FILE, load_reports
    from generator.site.preview import rebuild_error_pages, start_server, watched_files

    if not 0 <= args.port <= 65535:
        raise InputError(f"--port {args.port} is not a port; pass a number from 1 to 65535 (0: any free port)")
    progress = progress_of(args)
    out = (args.out or config.root / "site").resolve()
    errors = config.root / "errors"
    seen = watched_files(errors)
    site = build.site_input(config, args)  # scans (cached after the first time) and loads the entries
    if args.rebuild or not (out / "index.html").is_file():
        build.build(config, args, site, out)
    else:
        progress.say(f"serving the site already built in {out} (--rebuild builds it again)")
    try:
        server = start_server(out, args.host, args.port)
    except OSError as exc:
        raise InputError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}; "
                                 "pass another --port (0 picks a free one)") from None
    host, port = server.server_address[:2]
    progress.say(f"serving {out} at http://{host}:{port}/ ; editing errors/*.yaml rebuilds that entry's pages "
                 "and the lookup's index; Ctrl-C stops")
    try:
        while True:
            time.sleep(POLL_S)
            now = watched_files(errors)
            if now == seen:
                continue
            changed = {path for path in set(now) | set(seen) if now.get(path) != seen.get(path)}
            seen = now
            entries, problems = load_entries(errors, config.root)
            if _refused(progress, problems, "the entries"):
                continue
            ids = _ids_of(site.entries, changed, errors) | _ids_of(entries, changed, errors)
            if str(errors / LINEAGE_FILE) in changed:  # the pages of every link, before and after
                lineage, problems = load_lineage(errors, config.root)
                if _refused(progress, problems, LINEAGE_FILE):
                    continue
                ids |= {i for link in [*site.manual_links, *lineage.links] for i in (link.source, link.target)}
                ids |= {i for pair in site.apart | lineage.apart_pairs() for i in pair}
                site.manual_links, site.apart = lineage.links, lineage.apart_pairs()
            if str(errors / REPORTS_FILE) in changed:  # the pages of every report, before and after
                reports, problems = load_reports(errors, config.root)
                if _refused(progress, problems, REPORTS_FILE):
                    continue
                ids |= {r.id for r in site.reports} | {r.id for r in reports}
                site.reports = reports
            site.entries = entries
            site.verifications = build.load_records(errors / "verifications")
            started = time.monotonic()
            try:
                written = rebuild_error_pages(config.root / "mkdocs.yml", site, out, ids)
            except ErrorkbError as exc:
                progress.say(f"not rebuilt: {exc}")
                continue
            names = ", ".join(f"errors/{i}/" for i in written) or "no page"
            progress.say(f"rebuilt {names} in {time.monotonic() - started:.1f} s; reload the page")
    except KeyboardInterrupt:
        server.shutdown()
        return 0


def _refused(progress, problems: list, where: str) -> bool:
    """Say the problems, and that nothing is rebuilt; False when there are none."""
    for problem in problems:
        progress.say(str(problem))
    if problems:
        progress.say(f"not rebuilt: {len(problems)} problems in {where} (listed above); the pages stay as they were")
    return bool(problems)


def _ids_of(entries: list, changed: set[str], errors: Path) -> set[str]:
    """The ids of the entries whose file, or whose record, is among ``changed``."""
    out = set()
    for entry in entries:
        mine = {str(errors / Path(entry.path).name), str(errors / "verifications" / f"{entry.slug}.json")}
        if mine & changed:
            out.update(entry.ids)
    return out
