"""How long a reproduction case takes on the CPU tier, after vLLM's one import.

Runs every CPU case of every entry through the fork server (vLLM imported once, a
forked child per case, the fix cases traced as `errorkb verify` traces them), then a
few of the same cases each in a fresh process, as the CUDA tier runs them, and prints
the times and their ratio, all measured in this one run.

    python bench/verify.py [--source ../shared/corpus/vllm-releases.bundle] [--fresh 4]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import pin_catalog, source_parser  # noqa: E402
from generator.config import load_config  # noqa: E402
from generator.entries.load import load_entries  # noqa: E402
from generator.repro.harness import ForkServerRunner, ProcessRunner  # noqa: E402
from generator.repro.verify import TIER_ENV, plan, requests_for  # noqa: E402
from generator.vllm.env import require_vllm_python  # noqa: E402


def main() -> int:
    parser = source_parser(__doc__)
    parser.add_argument("--fresh", type=int, default=4, help="cases to also run in a fresh process each (default 4)")
    args = parser.parse_args()
    config = load_config(ROOT / "errorkb.toml")
    python = require_vllm_python(config)
    _, catalog = pin_catalog(args)
    errors_by_id = {e["id"]: e for e in catalog["errors"]}
    entries, problems = load_entries(ROOT / "errors", ROOT)
    if problems:
        raise SystemExit("\n".join(map(str, problems)))
    repros = plan(entries, "cpu", [])
    requests = [r for repro in repros for r in requests_for(repro, errors_by_id, ROOT, watch=True)]
    env = os.environ | TIER_ENV["cpu"]

    started = time.monotonic()
    runner = ForkServerRunner(python, env=env)
    ready = runner.start()
    startup = time.monotonic() - started
    walls: list[tuple[float, str]] = []
    for request in requests:
        t = time.monotonic()
        runner.run(request)
        walls.append((time.monotonic() - t, request.name))
    runner.close()
    total = time.monotonic() - started

    times = sorted(w for w, _ in walls)
    print(f"fork server: {len(requests)} cases of {len(repros)} entries, vLLM {ready['environment'].get('vllm')}")
    print(f"  start (vLLM imported once): {startup:6.2f} s (imports alone {ready['import_s']:.2f} s)")
    print(f"  per case: mean {statistics.mean(times):.2f} s, median {statistics.median(times):.2f} s, "
          f"p90 {times[int(0.9 * (len(times) - 1))]:.2f} s, max {times[-1]:.2f} s")
    print(f"  cases over 2 s: {sum(t > 2 for t in times)}/{len(times)}: "
          + ", ".join(f"{name} {w:.1f} s" for w, name in sorted(walls, reverse=True) if w > 2))
    print(f"  all cases: {total:6.2f} s")

    fresh_runner = ProcessRunner(python, env=env)
    sample = sorted(walls)[len(walls) // 2 - args.fresh // 2: len(walls) // 2 - args.fresh // 2 + args.fresh]
    by_name = {r.name: r for r in requests}
    fresh, forked = [], []
    for forked_wall, name in sample:
        t = time.monotonic()
        fresh_runner.run(by_name[name])
        fresh.append(time.monotonic() - t)
        forked.append(forked_wall)
    print(f"fresh process per case ({len(sample)} median cases): mean {statistics.mean(fresh):.2f} s "
          f"against {statistics.mean(forked):.2f} s forked: {statistics.mean(fresh) / statistics.mean(forked):.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
