"""What several commands share: the source options, scanning the releases they name,
reading a paste, loading the entries, and the command's progress."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from generator.config import Config
from generator.errors import InputError


def add_source_options(parser: argparse.ArgumentParser, multiple_revs: bool = False) -> None:
    parser.add_argument("--source", help="git repository path, git bundle, git URL, or pypi:vllm==X.Y.Z (default: errorkb.toml's pin)")
    if multiple_revs:
        parser.add_argument("--rev", action="append", help="tag, branch or commit to read; repeat it to scan several releases in one pass (default: errorkb.toml's pin)")
    else:
        parser.add_argument("--rev", help="tag, branch or commit to read (default: errorkb.toml's pin)")
    parser.add_argument("--cache-dir", type=Path, help="where sources and analyses are cached (default: errorkb.toml's [cache] dir)")
    parser.add_argument("--workers", type=int, default=None, help="processes to analyse files with (default: one per CPU)")


def workers(args: argparse.Namespace) -> int:
    """--workers, checked; one per CPU when not given."""
    if args.workers is not None and args.workers < 1:
        raise InputError("--workers must be at least 1")
    return args.workers or os.cpu_count() or 1


def progress_of(args: argparse.Namespace):
    """The command's ``Progress`` (``--quiet`` honoured); a silent one when the command has none."""
    from generator.cli.progress import Progress

    found = getattr(args, "progress", None)
    return found if found is not None else Progress(silent=True)


def source_for(spec: str, rev: str) -> str:
    """The source to read ``rev`` from: ``pypi:NAME==X.Y.Z`` names one release, so another
    release (a [history] one) is read from ``pypi:NAME``, its version taken from ``rev``."""
    if spec.startswith("pypi:") and "==" in spec and spec.partition("==")[2] != rev.removeprefix("v"):
        return spec.partition("==")[0]
    return spec


def open_revision(config: Config, args: argparse.Namespace, rev: str | None = None, progress=None):
    """(revision, cache folder) of ``rev``, else --rev, else the pin."""
    from generator.scan.sources import resolve

    cache_dir = args.cache_dir or config.cache_dir
    spec = args.source or config.source
    if rev is not None:
        spec = source_for(spec, rev)
    return resolve(spec, rev or args.rev or config.rev, cache_dir, progress), cache_dir


def scan_catalogs(config: Config, args: argparse.Namespace, revs: list[str | None]) -> list:
    """(revision, catalog) of several releases, scanned in one pass through one cache."""
    from generator.scan.cache import BlobCache
    from generator.scan.catalog import scan_revisions

    count = workers(args)
    progress = progress_of(args)
    resolved = []
    for rev in revs:
        name = rev or args.rev or config.rev
        resolved.append(open_revision(config, args, rev, progress.step(f"fetching {name}'s Python files", "B", scale=True)))
    revisions = [revision for revision, _ in resolved]
    label = f"scanning {revisions[0].rev}" if len(revs) == 1 else f"scanning {len(revs)} releases"
    with BlobCache(resolved[0][1] / "analysis.sqlite") as cache:
        catalogs = scan_revisions(config.project, revisions, cache, count, progress.step(label, "files"))
    return list(zip(revisions, catalogs))


def scan_catalog(config: Config, args: argparse.Namespace, rev: str | None = None):
    """(revision, catalog) of one release (``rev``, else --rev, else the pin)."""
    return scan_catalogs(config, args, [rev])[0]


def history_revs(config: Config, args: argparse.Namespace) -> tuple[list[str], int | None]:
    """The releases a command covers, and the pin's place among them (None: the pin alone).

    The [history] releases when the pin is one of them and --pin-only is not given.
    """
    pin = args.rev or config.rev
    if config.releases and pin in config.releases and not getattr(args, "pin_only", False):
        return list(config.releases), config.releases.index(pin)
    return [pin], None


def read_paste(text: str) -> str:
    """The argument, or standard input when it is ``-``."""
    from generator.lookup.clean import decode_paste

    if text != "-":
        return text
    return decode_paste(sys.stdin.buffer.read())  # decodes only the end that lookup reads


def load_entries_or_fail(folder: Path, root: Path) -> list:
    """The entries of ``folder``; their problems printed and an InputError when there are any."""
    from generator.entries.load import load_entries

    if not folder.is_dir():
        raise InputError(f"{folder} is not a folder of entries; pass --errors DIR")
    entries, problems = load_entries(folder, root)
    if problems:
        for problem in problems:
            print(problem, file=sys.stderr)
        raise InputError(f"{len(problems)} problems in the entries (listed above); fix them, `errorkb check` lists them too")
    return entries
