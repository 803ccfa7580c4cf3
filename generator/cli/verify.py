"""``errorkb verify``: run the entries' error and fix cases against the real vLLM, record what happened."""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path

from generator.cli.common import add_source_options, load_entries_or_fail, scan_catalog
from generator.config import Config
from generator.errors import Findings, InputError
from generator.files import write_atomically


def add_parser(commands) -> None:
    verify = commands.add_parser("verify", help="run the entries' error and fix cases against the real vLLM and record what happened")
    verify.add_argument("select", nargs="*", metavar="ID", help="entry slugs or error ids to run (default: every entry with cases on the tier)")
    verify.add_argument("--tier", choices=("cpu", "cuda"), default="cpu", help="cpu: VLLM_TARGET_DEVICE=cpu, vLLM imported once, a forked child per case; cuda: a process per case on a GPU")
    verify.add_argument("--executor", choices=("local", "ray"), default="local", help="ray: each case as a Ray task (num_gpus=1 for CUDA cases)")
    verify.add_argument("--ray-address", default=None, help="the Ray cluster to submit to (default: a local Ray)")
    verify.add_argument("--records", type=Path, default=None, help="where the records go (default: errors/verifications/)")
    verify.add_argument("--no-record", action="store_true", help="run and report, write no records")
    verify.add_argument("--errors", type=Path, default=None, help="the folder of entries (default: errors/ beside errorkb.toml)")
    verify.add_argument("--sandbox", choices=("auto", "bwrap", "rlimits"), default=None,
                        help="how cases are isolated: bwrap (namespaces, read-only binds; refuse to run without it), "
                             "rlimits (limits, a clean environment and a temporary folder only), auto (bwrap where it works; "
                             "default, or ERRORKB_SANDBOX)")
    add_source_options(verify)
    verify.set_defaults(run=run)


def run(config: Config, args: argparse.Namespace) -> int:
    from generator.lookup.index import matcher_from_catalogs
    from generator.repro.harness import ForkServerRunner, ProcessRunner, Progress, RayRunner, gpu_snapshot
    from generator.repro.records import updated_records
    from generator.repro.verify import TIER_ENV, plan, problems, requests_for, run_pairs, unknown_selections
    from generator.vllm.env import require_vllm_python

    folder = args.errors or config.root / "errors"
    entries = load_entries_or_fail(folder, config.root)
    unknown = unknown_selections(entries, args.select)
    if unknown:
        raise InputError(f"no entry is named or explains {', '.join(unknown)}; give entry slugs (errors/<slug>.yaml) or error ids")
    repros = plan(entries, args.tier, args.select)
    if not repros:
        print(f"no entry has {args.tier} cases{' among ' + ', '.join(args.select) if args.select else ''}", file=sys.stderr)
        return 0
    python = require_vllm_python(config)
    if args.tier == "cuda" and gpu_snapshot() is None:
        raise InputError("the cuda tier needs an NVIDIA GPU and nvidia-smi on this machine; "
                         "run it where there is one (or submit to a GPU cluster with --executor ray --ray-address ADDR)")
    revision, catalog = scan_catalog(config, args)
    data = catalog.to_json()
    errors_by_id = {e["id"]: e for e in data["errors"]}
    matcher = matcher_from_catalogs([data], config.site_url)

    def match(text: str) -> str | None:
        matches, _ = matcher.lookup(text, top=5)
        return raising_match(matches, text)

    watch = args.tier == "cpu" and args.executor == "local"
    pairs = [requests_for(r, errors_by_id, config.root, watch) for r in repros]
    progress = Progress(len(pairs))
    # Cases run in a sandbox (generator/repro/sandbox.py) with an allowlisted environment;
    # the tier's variables are the server's too: vLLM picks its platform at import.
    options = {"tier_env": TIER_ENV[args.tier], "models": config.root / "models", "sandbox": args.sandbox}
    if args.executor == "ray":
        runner = RayRunner(python, args.ray_address, tier=args.tier, **options)
    elif args.tier == "cpu":
        runner = ForkServerRunner(python, repo_root=config.root, **options)
    else:
        runner = ProcessRunner(python, watch_gpu=True, tier="cuda", repo_root=config.root, **options)
    try:
        results = run_pairs(runner, repros, pairs, match, watch, lambda r: progress.step(r.repro.label, r.passed))
        environment = runner.environment
        isolation = runner.isolation
    finally:
        runner.close()
    if isolation and not isolation.startswith("bwrap"):
        print(f"warning: the cases ran without a namespace sandbox: {isolation}", file=sys.stderr)
    if environment.get("vllm") and environment["vllm"] != revision.rev.removeprefix("v"):
        print(f"note: the interpreter has vLLM {environment['vllm']}, the pin is {revision.rev}; records will show as stale",
              file=sys.stderr)
    if not args.no_record:
        date = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
        for path, text in updated_records(args.records or folder / "verifications", results, environment, date).items():
            write_atomically(path, text)
    failures = problems(results, {e.slug: e for e in entries})
    for line in failures:
        print(line)
    for result in results:
        if result.skipped:
            print(f"{result.repro.path}: skipped the {args.tier} pair: the case {result.skipped}", file=sys.stderr)
    passed = sum(r.passed for r in results)
    skipped = sum(bool(r.skipped) for r in results)
    summary = (f"{passed}/{len(results) - skipped} {args.tier} reproductions passed (error and fix), "
               f"{skipped} skipped, vLLM {environment.get('vllm')}; isolation: {isolation or 'none recorded'}")
    if failures:
        raise Findings(summary)
    print(summary, file=sys.stderr)
    return 0


def raising_match(matches: list, text: str) -> str | None:
    """The first match's id; of several pin errors tied with it (two sites whose messages
    differ only in spaces), the one raised at the traceback's innermost vLLM line."""
    from generator.lookup.foreign import FRAME

    if not matches:
        return None
    tied = [m for m in matches if m.rank_key == matches[0].rank_key]
    frames = [(f.group(1).replace("\\", "/"), int(f.group(2))) for f in FRAME.finditer(text) if "vllm/" in f.group(1)]
    if len(tied) > 1 and frames:
        path, line = frames[-1]
        path = path[path.rfind("vllm/"):]
        for m in tied:
            if any(site["path"] == path and site["line"] == line for site in m.error.sites):
                return m.error.id
    return matches[0].error.id
