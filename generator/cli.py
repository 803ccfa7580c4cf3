"""The ``errorkb`` command line."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from generator.config import Config, ConfigError, load_config


class UsageError(Exception):
    """Bad input the person can fix: printed as one line, exit code 2."""


def _add_source_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--source", help="git repository path, git bundle, git URL, or pypi:vllm==X.Y.Z (default: errorkb.toml's pin)")
    parser.add_argument("--rev", help="tag, branch or commit to read (default: errorkb.toml's pin)")
    parser.add_argument("--cache-dir", type=Path, help="where sources and analyses are cached (default: errorkb.toml's [cache] dir)")
    parser.add_argument("--workers", type=int, default=None, help="processes to analyse files with (default: one per CPU)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="errorkb", description="The vLLM error knowledge base.")
    commands = parser.add_subparsers(dest="command", required=True)

    scan = commands.add_parser("scan", help="write the catalog of every raise site at a revision, as JSON")
    _add_source_options(scan)
    scan.add_argument("--out", required=True, help="file to write, or - for standard output")
    scan.set_defaults(run=run_scan)

    lookup = commands.add_parser("lookup", help="find the vLLM error in a pasted log, traceback or message")
    lookup.add_argument("text", nargs="?", default="-", help="the text, or - (the default) to read standard input")
    lookup.add_argument("--json", action="store_true", help="print the result as JSON")
    lookup.add_argument("--top", type=int, default=3, help="how many matches to show (default 3)")
    _add_source_options(lookup)
    lookup.set_defaults(run=run_lookup)

    build = commands.add_parser("build", help="build the site (pages, search, lookup, JSON API)")
    _add_source_options(build)
    build.add_argument("--out", type=Path, default=None, help="where the site goes (default: site/ beside errorkb.toml)")
    build.set_defaults(run=run_build)
    return parser


def write_atomically(path: str, text: str) -> None:
    """Write ``text`` to ``path`` (``-``: stdout) so that a reader never sees half of it."""
    if path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private; give it a normal file's mode
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def progress_bar(label: str):
    """A progress line on a terminal; nothing when stderr is not one (CI logs)."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        width = 30
        filled = width * done // max(total, 1)
        sys.stderr.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show


def open_revision(config: Config, args: argparse.Namespace):
    from generator.sources import resolve

    cache_dir = args.cache_dir or config.cache_dir
    return resolve(args.source or config.source, args.rev or config.rev, cache_dir), cache_dir


def scan_catalog(config: Config, args: argparse.Namespace):
    from generator.cache import BlobCache
    from generator.catalog import scan_revision

    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers must be at least 1")
    revision, cache_dir = open_revision(config, args)
    with BlobCache(cache_dir / "analysis.sqlite") as cache:
        catalog = scan_revision(config.project, revision, cache, args.workers, progress_bar(f"scanning {revision.rev}"))
    return revision, catalog


def run_scan(config: Config, args: argparse.Namespace) -> int:
    from generator.catalog import catalog_json

    revision, catalog = scan_catalog(config, args)
    write_atomically(args.out, catalog_json(catalog))
    if args.out != "-":
        stats = catalog.stats
        print(
            f"{args.out}: {stats['errors']} errors from {stats['sites']} sites in {stats['files']} files "
            f"at {revision.rev} ({revision.commit[:12]}); {stats['reraises']} re-raises, "
            f"{len(stats['skipped'])} files skipped",
            file=sys.stderr,
        )
    return 0


def read_paste(text: str) -> str:
    if text != "-":
        return text
    data = sys.stdin.buffer.read()
    return data.decode("utf-8", errors="replace")


def run_lookup(config: Config, args: argparse.Namespace) -> int:
    import json

    from generator.lookup import matcher_from_catalogs

    if args.top < 1:
        raise UsageError("--top must be at least 1")
    paste = read_paste(args.text)
    _, catalog = scan_catalog(config, args)
    matcher = matcher_from_catalogs([catalog.to_json()], config.site_url)
    matches, foreign = matcher.lookup(paste, top=args.top)
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
        print(f"No vLLM error at {catalog.revision} matches this text.")
        return 1
    for rank, match in enumerate(matches, 1):
        data = match.to_json()
        site = data["sites"][0] if data["sites"] else None
        where = f" · {site['path']}:{site['line']}" if site else ""
        print(f"{rank}. {data['title']}  [score {data['score']:.2f}]")
        print(f"   id {data['id']} · {', '.join(data['versions'])}{where}")
        print(f"   {data['url']}")
        for name, value in data["values"].items():
            value = value if len(value) <= 120 else value[:117] + "..."
            print(f"   {{{name}}} = {value}")
    return 0


def run_build(config: Config, args: argparse.Namespace) -> int:
    from generator.site import BuildError, build_site

    out = args.out or config.root / "site"
    revision, catalog = scan_catalog(config, args)
    mkdocs_file = config.root / "mkdocs.yml"
    if not mkdocs_file.is_file():
        raise UsageError(f"{mkdocs_file} is missing: the site's mkdocs configuration lives beside errorkb.toml")
    try:
        build_site(mkdocs_file, [catalog.to_json()], out)
    except BuildError as exc:
        raise UsageError(f"{exc}; the previous site at {out} is untouched") from None
    print(f"{out}: site for {revision.rev} ({catalog.stats['errors']} errors)", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    from generator.sources import SourceError

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        config = load_config()
        return args.run(config, args)
    except (UsageError, ConfigError, SourceError) as exc:
        print(f"errorkb: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
