"""``errorkb lookup``: the vLLM error in a pasted message, traceback or log."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from generator.cli.common import add_source_options, history_revs, open_revision, read_paste, scan_catalogs, workers
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
    """The compact lookup index of the pin, and of every [history] release when the pin is
    one, with the releases' lineage and the curated entries of ``errors/``."""
    # The entries and the links people wrote change more often than the releases: read them afresh.
    entries, links = _entries(config)
    return with_entries(release_index(config, args), entries, links)


def release_index(config: Config, args: argparse.Namespace) -> dict:
    """The lookup index of the releases and their lineage alone (less the links
    ``errors/lineage.yaml`` keeps apart), stored in the cache."""
    import generator
    from generator.lookup.cache import INDEX_CODE, code_fingerprint, index_path, stored_index
    from generator.lookup.index import INDEX_SCHEMA_VERSION
    from generator.scan.cache import scanner_fingerprint

    revs, _ = history_revs(config, args)
    resolved = [open_revision(config, args, rev) for rev in revs]
    apart = _lineage(config).apart_pairs()
    # the command line's index also has the lines of the raises (``raise_lines``), the site's does not
    key = "+raise-lines" + "".join(f"+apart:{'-'.join(sorted(pair))}" for pair in sorted(apart, key=sorted))
    path = index_path(resolved[0][1], [(r.rev, r.commit) for r, _ in resolved], scanner_fingerprint() + code_fingerprint(Path(generator.__file__).parent, INDEX_CODE) + key)
    return stored_index(path, lambda: _index(config, args, revs, apart), INDEX_SCHEMA_VERSION)


def with_entries(index: dict, entries: list, links: list) -> dict:
    """``index`` with curated entries' ids and the lineage people wrote joined into its problems."""
    if not entries and not links:
        return index
    from generator.lookup.index import entries_for_index, regroup

    return regroup(index, entries_for_index(entries), [(link.source, link.target) for link in links])


def _index(config: Config, args: argparse.Namespace, revs: list, apart: frozenset) -> dict:
    from generator.history.lineage import link_releases
    from generator.lookup.index import compact_index

    catalogs = [c.to_json() for _, c in scan_catalogs(config, args, revs)]
    return compact_index(catalogs, links=link_releases(catalogs, workers(args), apart) if len(catalogs) > 1 else [],
                         raise_lines=True)


def _entries(config: Config) -> tuple[list, list]:
    """The project's curated entries and lineage links (an item with problems is left out;
    `errorkb check` names them)."""
    from generator.entries.load import load_entries

    folder = config.entries_dir
    if not folder.is_dir():
        return [], []
    entries, _ = load_entries(folder, config.root)
    return entries, _lineage(config).links


def _lineage(config: Config):
    """What the project's ``errors/lineage.yaml`` says (an item with problems is left out)."""
    from generator.entries.lineage import Lineage, load_lineage

    folder = config.entries_dir
    return load_lineage(folder, config.root)[0] if folder.is_dir() else Lineage([], [])


def stored_matcher(config: Config, args: argparse.Namespace):
    """The matcher for this project's pin (and history), read from the cache when nothing
    it was built from has changed since; else built and stored for the next lookup."""
    from generator.lookup.cache import (code_fingerprint, entries_identity, mark_used, matcher_path, prune_stored, source_identity,
                                        write_bytes_atomically)
    from generator.lookup.match import Matcher

    spec = args.source or config.source
    revs, _ = history_revs(config, args)
    source = source_identity(spec)
    path = None
    if source is not None:
        import generator

        parts = [source, *(r or "" for r in revs), config.site_url, config.project, code_fingerprint(Path(generator.__file__).parent),
                 entries_identity(config.entries_dir)]
        path = matcher_path(Path(args.cache_dir or config.cache_dir), parts)
        try:
            matcher = Matcher.from_snapshot(path.read_bytes())
            mark_used(path)
            return matcher
        except FileNotFoundError:
            pass
        except (OSError, ValueError) as exc:
            print(f"errorkb: warning: {path}: the stored matcher is unreadable ({exc}); it is built again", file=sys.stderr)
    from generator.lookup.index import matcher_from_index

    matcher = matcher_from_index(lookup_index(config, args), config.site_url)
    if path is not None:
        try:
            write_bytes_atomically(path, matcher.snapshot())
        except OSError as exc:
            print(f"errorkb: warning: cannot store the matcher at {path}: {exc.strerror or exc}", file=sys.stderr)
        else:
            prune_stored(path.parent, "lookup-matcher-*.marshal")
    return matcher


def run(config: Config, args: argparse.Namespace) -> int:
    if args.top < 1:
        raise InputError("--top must be at least 1")
    paste = read_paste(args.text)
    matcher = stored_matcher(config, args)
    matches, foreign = matcher.lookup(paste, top=args.top)
    releases = matcher.releases_of(paste, matches)
    if args.json:
        print(json.dumps({"matches": [m.to_json() for m in matches], "not_vllm": foreign, "releases": releases},
                         indent=1, ensure_ascii=False))
        return 0 if matches or foreign else 1
    if not paste.strip():
        print("Nothing to look up: the input is empty. Paste an error message, traceback or log.")
        return 1
    for line in describe(matcher, matches, foreign, releases):
        print(terminal_safe(line))
    return 0 if matches or foreign else 1


# What a terminal would act on rather than show (an escape sequence's ESC, CSI as one C1 byte,
# a carriage return): a scanned message is the source's text, and a source may be hostile.
_TERMINAL_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def terminal_safe(line: str) -> str:
    """A line to print, its control characters shown as U+FFFD."""
    return _TERMINAL_CONTROLS.sub("\ufffd", line)


def describe(matcher, matches: list, foreign: dict | None, releases: dict | None = None) -> list[str]:
    """The answer as lines for a terminal: per result the title, the curated summary and
    first fix, the message with the paste's values, then a small line of score and ids."""
    from generator.history.ranges import version_ranges

    lines: list[str] = []
    revisions = matcher.revisions
    if foreign is not None and foreign.get("role") == "answer":
        lines += _foreign_lines(foreign, "Not a vLLM error")
        if matches:
            lines.append("Near vLLM messages, worded otherwise:" if all(m.verdict != "exact" for m in matches)
                         else "vLLM also logged:" if all(m.error.kind == "log" for m in matches) else "vLLM errors after it:")
    elif not matches:
        covered = revisions[-1] if len(revisions) == 1 else f"{revisions[0]} – {revisions[-1]}" if revisions else "the pin"
        return [f"No vLLM error of {covered} matches this text.",
                "Try fewer lines: the last exception line, or the message alone."]
    if _says_which(releases, revisions) and matches:
        shown = ", ".join(version_ranges(releases["releases"], revisions))
        version = f" (vLLM {releases['version']})" if releases.get("version") else ""
        lines.append(f"This log matches vLLM {shown}{version}: by {', '.join(releases['evidence'])}.")
    for rank, match in enumerate(matches, 1):
        data = match.to_json()
        current = data["current"]
        partial = data["verdict"] != "exact"
        # nothing of the message's words in the paste: its raise's frame or its log header named it
        why = ("only its exception type is shown, which vLLM raises with other messages too" if data.get("type_only")
               else "the message may have been reworded" if data["coverage"] else "found where vLLM raises or logs it, not by its words")
        lines.append(f"{rank}. {data['title']}" + (f"  (partial: {why})" if partial else ""))
        entry = data.get("entry")
        if entry:
            lines.append(f"   {shorten(entry['summary'], 300)}")
            if entry.get("fix"):
                lines.append(f"   Fix: {entry['fix']['title']}")
                if entry["fix"].get("command"):
                    lines += _command_lines(entry["fix"]["command"])
                if entry["fix"].get("from_paste"):
                    lines.append(f"     ({_from_paste(entry['fix']['from_paste'])} from your paste; the rest is the entry's example)")
        if data["message"]:
            lines.append(f"   {shorten(data['message'], 300)}")
        if data.get("reason"):
            lines.append(f"   your paste quotes one of the reasons it gives: {shorten(data['reason'], 200)}")
        ranges = ", ".join(version_ranges(current["versions"], revisions)) if revisions else ""
        site = current["sites"][0] if current["sites"] else None
        where = f" · {site['path']}:{site['line']}" if site else ""
        lines.append(f"   score {data['score']:.2f} · {data['verdict']} · id {current['id']} · {ranges}{where}")
        if data["id"] != current["id"]:
            lines.append(f"   your release's wording ({data['id']}, {', '.join(version_ranges(data['versions'], revisions))}):"
                         f" {shorten(data['template'], 200)}")
            lines.append(f"   the pin's error is {current['id']}; its page says what changed since")
        elif data["also"]:
            lines.append("   other ids of this problem: " + ", ".join(f"{a['id']} ({', '.join(version_ranges(a['versions'], revisions))})"
                                                       for a in data["also"][:4]))
        lines.append(f"   {current['url']}")
    if foreign is not None and foreign.get("role") == "cause":
        lines += _foreign_lines(foreign, "Its cause, not vLLM's")
    if foreign is not None and foreign.get("role") == "wrapper":
        lines += _foreign_lines(foreign, "Re-raised by another program, not vLLM")
    return lines


def _command_lines(command: str) -> list[str]:
    """A fix's command as terminal lines: a prompt before each command, a line that continues
    the one before it (after a backslash) indented under it."""
    lines, continued = [], False
    for line in command.splitlines():
        lines.append(("       " if continued else "     $ ") + line.strip())
        continued = line.rstrip().endswith("\\")
    return lines


def _from_paste(settings: dict[str, str]) -> str:
    """``{"max_num_seqs": "128"}`` → ``max_num_seqs=128``: the settings a fix took from the paste."""
    return ", ".join(f"{setting}={value}" for setting, value in settings.items())


def _says_which(releases: dict | None, revisions: list[str]) -> bool:
    """Whether "this log matches vLLM ..." tells something: fewer releases than all, and more
    than the message's wording alone says of a message the pin still prints."""
    return bool(releases and releases["releases"] and len(releases["releases"]) < len(revisions)
                and (revisions[-1] not in releases["releases"] or len(releases["evidence"]) > 1))


def _foreign_lines(foreign: dict, heading: str) -> list[str]:
    title = foreign.get("title") or foreign["reason"]
    lines = [f"{heading}: {title} (from {foreign['source']})."]
    if foreign.get("why"):
        lines.append(f"   Why: {foreign['why']}")
    if foreign.get("line"):
        lines.append(f"   The line: {foreign['line']}")
    if foreign.get("phase"):
        lines.append(f"   It happened during {foreign['phase']}: {foreign.get('advice', '')}")
    for step in foreign.get("steps", [])[:3]:
        lines.append(f"   - {step}")
    if foreign.get("url"):
        lines.append(f"   {foreign['url']}")
    return lines
