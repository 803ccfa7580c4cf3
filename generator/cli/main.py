"""The ``errorkb`` command line."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from generator.config import Config, ConfigError, load_config
from generator.text import shorten


class UsageError(Exception):
    """Bad input the person can fix: printed as one line, exit code 2."""


def _add_source_options(parser: argparse.ArgumentParser, multiple_revs: bool = False) -> None:
    parser.add_argument("--source", help="git repository path, git bundle, git URL, or pypi:vllm==X.Y.Z (default: errorkb.toml's pin)")
    if multiple_revs:
        parser.add_argument("--rev", action="append", help="tag, branch or commit to read; repeat it to scan several releases in one pass (default: errorkb.toml's pin)")
    else:
        parser.add_argument("--rev", help="tag, branch or commit to read (default: errorkb.toml's pin)")
    parser.add_argument("--cache-dir", type=Path, help="where sources and analyses are cached (default: errorkb.toml's [cache] dir)")
    parser.add_argument("--workers", type=int, default=None, help="processes to analyse files with (default: one per CPU)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="errorkb", description="The vLLM error knowledge base.")
    commands = parser.add_subparsers(dest="command", required=True)

    scan = commands.add_parser("scan", help="write the catalog of every raise site at a revision (several: their history), as JSON")
    _add_source_options(scan, multiple_revs=True)
    scan.add_argument("--out", required=True, help="file to write, or - for standard output")
    scan.set_defaults(run=run_scan)

    lookup = commands.add_parser("lookup", help="find the vLLM error in a pasted log, traceback or message")
    lookup.add_argument("text", nargs="?", default="-", help="the text, or - (the default) to read standard input")
    lookup.add_argument("--json", action="store_true", help="print the result as JSON")
    lookup.add_argument("--top", type=int, default=3, help="how many matches to show (default 3)")
    lookup.add_argument("--pin-only", action="store_true", help="match only the pin's errors, not those of older [history] releases")
    _add_source_options(lookup)
    lookup.set_defaults(run=run_lookup)

    drift_parser = commands.add_parser("drift", help="what changed in vLLM's errors between two releases")
    drift_parser.add_argument("old", help="the older release, e.g. v0.32.0")
    drift_parser.add_argument("new", help="the newer release, e.g. v0.33.0")
    drift_parser.add_argument("--json", action="store_true", help="print the whole report as JSON")
    drift_parser.add_argument("--limit", type=int, default=10, help="items shown per kind (default 10)")
    _add_source_options(drift_parser)
    drift_parser.set_defaults(run=run_drift)

    build = commands.add_parser("build", help="build the site (pages, search, lookup, JSON API)")
    _add_source_options(build)
    build.add_argument("--out", type=Path, default=None, help="where the site goes (default: site/ beside errorkb.toml)")
    build.add_argument("--pin-only", action="store_true", help="document the pin alone, without the [history] releases")
    build.set_defaults(run=run_build)

    check = commands.add_parser("check", help="check the curated entries (errors/*.yaml) against the schema and the pinned release")
    _add_source_options(check)
    check.add_argument("--errors", type=Path, default=None, help="the folder of entries (default: errors/ beside errorkb.toml)")
    check.add_argument("--pin-only", action="store_true", help="accept only ids raised at the pin, not in older [history] releases")
    check.set_defaults(run=run_check)

    new = commands.add_parser("new", help="start a curated entry for the vLLM error in a pasted message")
    new.add_argument("text", nargs="?", default="-", help="the pasted error, or - (the default) to read standard input")
    _add_source_options(new)
    new.add_argument("--errors", type=Path, default=None, help="the folder of entries (default: errors/ beside errorkb.toml)")
    new.add_argument("--force", action="store_true", help="overwrite an entry file that exists")
    new.set_defaults(run=run_new)

    verify = commands.add_parser("verify", help="run the entries' error and fix cases against the real vLLM and record what happened")
    verify.add_argument("select", nargs="*", metavar="ID", help="entry slugs or error ids to run (default: every entry with cases on the tier)")
    verify.add_argument("--tier", choices=("cpu", "cuda"), default="cpu", help="cpu: VLLM_TARGET_DEVICE=cpu, vLLM imported once, a forked child per case; cuda: a process per case on a GPU")
    verify.add_argument("--executor", choices=("local", "ray"), default="local", help="ray: each case as a Ray task (num_gpus=1 for CUDA cases)")
    verify.add_argument("--ray-address", default=None, help="the Ray cluster to submit to (default: a local Ray)")
    verify.add_argument("--records", type=Path, default=None, help="where the records go (default: errors/verifications/)")
    verify.add_argument("--no-record", action="store_true", help="run and report, write no records")
    verify.add_argument("--errors", type=Path, default=None, help="the folder of entries (default: errors/ beside errorkb.toml)")
    _add_source_options(verify)
    verify.set_defaults(run=run_verify)

    # errorkb memory: the memory calculator (generator/memory.py, generator/memory_cli.py)
    from generator.cli.memory import add_memory_command

    add_memory_command(commands)
    return parser


def write_atomically(path: str, text: str) -> None:
    """Write ``text`` to ``path`` (``-``: stdout) so that a reader never sees half of it."""
    if path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    target = Path(path)
    if target.exists() and not target.is_file():
        # /dev/null, a FIFO: write into it; replacing it would put a plain file in its place.
        with open(target, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        return
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


def open_revision(config: Config, args: argparse.Namespace, rev: str | None = None):
    from generator.scan.sources import resolve

    cache_dir = args.cache_dir or config.cache_dir
    return resolve(args.source or config.source, rev or args.rev or config.rev, cache_dir), cache_dir


def scan_catalog(config: Config, args: argparse.Namespace, rev: str | None = None):
    """(revision, catalog) of one release (``rev``, else --rev, else the pin)."""
    return scan_catalogs(config, args, [rev])[0]


def scan_catalogs(config: Config, args: argparse.Namespace, revs: list[str | None]) -> list:
    """(revision, catalog) of several releases, scanned in one pass through one cache."""
    from generator.scan.cache import BlobCache
    from generator.scan.catalog import scan_revisions

    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers must be at least 1")
    resolved = [open_revision(config, args, rev) for rev in revs]
    revisions = [revision for revision, _ in resolved]
    label = f"scanning {revisions[0].rev}" if len(revs) == 1 else f"scanning {len(revs)} releases"
    with BlobCache(resolved[0][1] / "analysis.sqlite") as cache:
        catalogs = scan_revisions(config.project, revisions, cache, args.workers, progress_bar(label))
    return list(zip(revisions, catalogs))


def run_scan(config: Config, args: argparse.Namespace) -> int:
    import json

    from generator.scan.catalog import catalog_json
    from generator.history.lineage import assemble_history

    revs = args.rev or [config.rev]
    if len(revs) == 1:
        revision, catalog = scan_catalog(config, args, revs[0])
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
    # Several releases: one pass, one blob cache, and the history of their errors.
    catalogs = [catalog.to_json() for _, catalog in scan_catalogs(config, args, revs)]
    history = assemble_history(catalogs, args.workers or os.cpu_count() or 1)
    write_atomically(args.out, json.dumps(history, indent=1, ensure_ascii=False) + "\n")
    if args.out != "-":
        stats = history["stats"]
        print(f"{args.out}: {stats['errors']} errors over {stats['releases']} releases; {stats['links']} lineage links "
              f"({', '.join(f'{n} {k}' for k, n in stats['by_kind'].items())})", file=sys.stderr)
    return 0


def run_drift(config: Config, args: argparse.Namespace) -> int:
    import json

    from generator.entries.load import load_entries
    from generator.history.lineage import drift

    old, new = (catalog.to_json() for _, catalog in scan_catalogs(config, args, [args.old, args.new]))
    entries, _ = load_entries(config.root / "errors", config.root)
    weights: dict[str, int] = {}
    for paste in sorted((config.root / "tests" / "data" / "pastes").glob("*.json")):
        expected = json.loads(paste.read_text(encoding="utf-8")).get("expected")
        if expected:
            weights[expected] = weights.get(expected, 0) + 1
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
    weighted = f", {cov['weighted_share']:.1%} weighted by the lookup test set" if cov["weighted_share"] is not None else ""
    print(f"coverage at {report['new']}: {cov['curated']}/{cov['errors']} errors curated ({cov['share']:.1%}){weighted}")
    return 0


def read_paste(text: str) -> str:
    if text != "-":
        return text
    data = sys.stdin.buffer.read()
    return data.decode("utf-8", errors="replace")


def lookup_index(config: Config, args: argparse.Namespace) -> tuple[dict, str]:
    """The compact lookup index of the pin, and of every [history] release when the pin is one.

    Built once per set of commits (and scanner) and kept in the cache: a lookup over
    23 releases then costs one file read, not 23 scans.
    """
    import hashlib
    import json

    from generator.scan.cache import scanner_fingerprint
    from generator.lookup.match import compact_index

    pin = args.rev or config.rev
    revs = list(config.releases) if config.releases and pin in config.releases and not args.pin_only else [pin]
    resolved = [open_revision(config, args, rev) for rev in revs]
    cache_dir = resolved[0][1]
    key = hashlib.sha256(("\n".join(f"{r.rev}={r.commit}" for r, _ in resolved) + scanner_fingerprint()).encode()).hexdigest()[:16]
    path = cache_dir / f"lookup-index-{key}.json"
    if path.is_file():
        return json.loads(path.read_text(encoding="utf-8")), pin
    index = compact_index([catalog.to_json() for _, catalog in scan_catalogs(config, args, revs)])
    write_atomically(str(path), json.dumps(index, ensure_ascii=False, separators=(",", ":")))
    return index, pin


def run_lookup(config: Config, args: argparse.Namespace) -> int:
    import json

    from generator.history.lineage import version_ranges
    from generator.lookup.match import matcher_from_index

    if args.top < 1:
        raise UsageError("--top must be at least 1")
    paste = read_paste(args.text)
    index, pin = lookup_index(config, args)
    matcher = matcher_from_index(index, config.site_url)
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
        print(f"No vLLM error of {', '.join(index['revisions'][-1:] if len(index['revisions']) == 1 else [index['revisions'][0] + ' – ' + index['revisions'][-1]])} matches this text.")
        return 1
    for rank, match in enumerate(matches, 1):
        data = match.to_json()
        site = data["sites"][0] if data["sites"] else None
        where = f" · {site['path']}:{site['line']}" if site else ""
        print(f"{rank}. {data['title']}  [score {data['score']:.2f}]")
        print(f"   id {data['id']} · {', '.join(version_ranges(data['versions'], index['revisions']))}{where}")
        print(f"   {data['url']}")
        for name, value in data["values"].items():
            value = shorten(value, 120)
            print(f"   {{{name}}} = {value}")
    return 0


def run_build(config: Config, args: argparse.Namespace) -> int:
    from generator.vllm.engine_args import engine_args_at
    from generator.entries.load import load_entries
    from generator.site.pages import Flag
    from generator.site.build import BuildError, SiteInput, build_site

    out = args.out or config.root / "site"
    mkdocs_file = config.root / "mkdocs.yml"
    if not mkdocs_file.is_file():
        raise UsageError(f"{mkdocs_file} is missing: the site's mkdocs configuration lives beside errorkb.toml")
    entries, problems = load_entries(config.root / "errors", config.root)
    if problems:
        for problem in problems:
            print(problem, file=sys.stderr)
        raise UsageError(f"{len(problems)} problems in the entries (listed above); fix them, `errorkb check` lists them too")
    pin = args.rev or config.rev
    releases = None
    if config.releases and not args.pin_only:
        if pin not in config.releases:
            raise UsageError(f"the pin {pin} is not among errorkb.toml's [history] releases; add it or pass --pin-only")
        scanned = scan_catalogs(config, args, list(config.releases))
        revision, catalog = scanned[config.releases.index(pin)]
        releases = [c.to_json() for _, c in scanned]
    else:
        revision, catalog = scan_catalog(config, args)
    engine_args = {
        a.name: Flag(name=a.name, flag=a.flag, type=a.type, default=a.default, help=a.help)
        for a in engine_args_at(revision)
    }
    from generator.repro.verify import load_records

    site = SiteInput(catalog=catalog.to_json(), entries=entries, engine_args=engine_args, issues_url=config.issues_url,
                     releases=releases, verifications=load_records(config.root / "errors" / "verifications"),
                     workers=args.workers or os.cpu_count() or 1)
    try:
        pages = build_site(mkdocs_file, site, out)
    except BuildError as exc:
        raise UsageError(f"{exc}; the previous site at {out} is untouched") from None
    curated = sum(p.curated for p in pages)
    print(f"{out}: {len(pages)} error pages ({curated} curated) for {revision.rev}", file=sys.stderr)
    return 0


def run_check(config: Config, args: argparse.Namespace) -> int:
    from generator.entries.check import check_entries
    from generator.vllm.engine_args import serve_flags_at
    from generator.entries.load import load_entries

    folder = args.errors or config.root / "errors"
    if not folder.is_dir():
        raise UsageError(f"{folder} is not a folder of entries; pass --errors DIR")
    entries, problems = load_entries(folder, config.root)
    pin = args.rev or config.rev
    history = bool(config.releases) and pin in config.releases and not args.pin_only
    scanned = scan_catalogs(config, args, list(config.releases) if history else [pin])
    revision, catalog = scanned[config.releases.index(pin)] if history else scanned[0]
    flags = serve_flags_at(revision)
    known = catalog.to_json()["errors"]
    where = revision.rev
    if history:
        # An entry may also explain an older wording (pages of past errors stay up).
        seen = {e["id"] for e in known}
        for other, other_catalog in reversed(scanned):
            if other.rev == revision.rev:
                continue
            for error in other_catalog.to_json()["errors"]:
                if error["id"] not in seen:
                    seen.add(error["id"])
                    known.append(error)
        where = f"{revision.rev} or any of the {len(config.releases)} [history] releases"
    problems = sorted(problems + check_entries(entries, known, flags, where, config.root))
    files = len(list(folder.glob("*.yaml")))
    if not problems:
        print(f"{files} entries, no problems")
        return 0
    for problem in problems:
        print(problem)
    paths = len({problem.path for problem in problems})
    print(f"{len(problems)} problems in {paths} of {files} entries (at {revision.rev})", file=sys.stderr)
    return 1


def run_new(config: Config, args: argparse.Namespace) -> int:
    from generator.vllm.engine_args import engine_args_at
    from generator.entries.load import new_entry
    from generator.lookup.match import matcher_from_catalogs

    paste = read_paste(args.text)
    if not paste.strip():
        raise UsageError("nothing to look up: paste the error message (or - to read it from standard input)")
    folder = args.errors or config.root / "errors"
    revision, catalog = scan_catalog(config, args)
    data = catalog.to_json()
    matches, foreign = matcher_from_catalogs([data], config.site_url).lookup(paste, top=1)
    if not matches:
        why = f"; it looks like {foreign['reason']} (from {foreign['source']})" if foreign else ""
        raise UsageError(f"no vLLM error at {revision.rev} matches this text{why}; check the paste with `errorkb lookup`")
    error = next(e for e in data["errors"] if e["id"] == matches[0].error.id)
    slug, text = new_entry(error, engine_args_at(revision), revision.rev)
    target = folder / f"{slug}.yaml"
    if target.exists() and not args.force:
        raise UsageError(f"{target} exists; pass --force to overwrite it")
    write_atomically(str(target), text)
    print(target)
    print(f"{error['id']}: {matches[0].error.title}; fill in the TODOs, then run `errorkb check`", file=sys.stderr)
    return 0


def run_verify(config: Config, args: argparse.Namespace) -> int:
    import datetime

    from generator.entries.load import load_entries
    from generator.repro.harness import ForkServerRunner, HarnessError, ProcessRunner, Progress, RayRunner, gpu_snapshot
    from generator.lookup.match import matcher_from_catalogs
    from generator.repro.verify import TIER_ENV, judge_pair, plan, problems, requests_for, unknown_selections, updated_records
    from generator.vllm.env import VllmMissing, require_vllm_python

    folder = args.errors or config.root / "errors"
    entries, entry_problems = load_entries(folder, config.root)
    if entry_problems:
        for problem in entry_problems:
            print(problem, file=sys.stderr)
        raise UsageError(f"{len(entry_problems)} problems in the entries (listed above); fix them first")
    unknown = unknown_selections(entries, args.select)
    if unknown:
        raise UsageError(f"no entry is named or explains {', '.join(unknown)}; give entry slugs (errors/<slug>.yaml) or error ids")
    repros = plan(entries, args.tier, args.select)
    if not repros:
        print(f"no entry has {args.tier} cases{' among ' + ', '.join(args.select) if args.select else ''}", file=sys.stderr)
        return 0
    try:
        python = require_vllm_python(config)
    except VllmMissing as exc:
        raise UsageError(str(exc)) from None
    if args.tier == "cuda" and gpu_snapshot() is None:
        raise UsageError("the cuda tier needs an NVIDIA GPU and nvidia-smi on this machine; "
                         "run it where there is one (or submit to a GPU cluster with --executor ray --ray-address ADDR)")
    revision, catalog = scan_catalog(config, args)
    data = catalog.to_json()
    errors_by_id = {e["id"]: e for e in data["errors"]}
    matcher = matcher_from_catalogs([data], config.site_url)

    def match(text: str):
        matches, _ = matcher.lookup(text, top=1)
        return matches[0].error.id if matches else None

    watch = args.tier == "cpu" and args.executor == "local"
    pairs = [requests_for(r, errors_by_id, config.root, watch) for r in repros]
    progress = Progress(len(pairs))
    results = []
    runner = None
    try:
        if args.executor == "ray":
            runner = RayRunner(python, args.ray_address, env=os.environ | TIER_ENV[args.tier], tier=args.tier)
            flat = runner.run_all([request for pair in pairs for request in pair])
            for i, repro in enumerate(repros):
                results.append(judge_pair(repro, flat[2 * i], flat[2 * i + 1], match, watch))
                progress.step(repro.label, results[-1].passed)
        else:
            # The tier's environment is the server's too: vLLM picks its platform at import.
            env = os.environ | TIER_ENV[args.tier]
            runner = ForkServerRunner(python, env=env) if args.tier == "cpu" else ProcessRunner(python, env=env, watch_gpu=True)
            for repro, (error_request, fix_request) in zip(repros, pairs):
                results.append(judge_pair(repro, runner.run(error_request), runner.run(fix_request), match, watch))
                progress.step(repro.label, results[-1].passed)
        environment = runner.environment
    except HarnessError as exc:
        raise UsageError(str(exc)) from None
    finally:
        if runner is not None:
            runner.close()
    if environment.get("vllm") and environment["vllm"] != revision.rev.removeprefix("v"):
        print(f"note: the interpreter has vLLM {environment['vllm']}, the pin is {revision.rev}; records will show as stale",
              file=sys.stderr)
    if not args.no_record:
        date = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
        for path, text in updated_records(args.records or folder / "verifications", results, environment, date).items():
            write_atomically(path, text)
    by_slug = {e.slug: e for e in entries}
    failures = problems(results, by_slug)
    for line in failures:
        print(line)
    for result in results:
        if result.skipped:
            print(f"{result.repro.path}: skipped the {args.tier} pair: the case {result.skipped}", file=sys.stderr)
    passed = sum(r.passed for r in results)
    skipped = sum(bool(r.skipped) for r in results)
    print(f"{passed}/{len(results) - skipped} {args.tier} reproductions passed (error and fix), "
          f"{skipped} skipped, vLLM {environment.get('vllm')}", file=sys.stderr)
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    from generator.scan.sources import SourceError

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
