"""Lookup accuracy and speed, measured in one run.

    python bench/lookup.py --source ../shared/corpus/vllm-releases.bundle --rev v0.33.0

Accuracy: top-1 and top-3 on the real pastes in tests/data/pastes/ (an entry's
`acceptable` ids count as right), and how many non-vLLM pastes got no vLLM match.
Speed: the matcher's build time over every template of the scanned release, and
p50/p99 latency for a one-line message and for a 200-line server log.

Hostile pastes: 50 MB of random bytes and 100,000 `ESC ]` (200 KB, an OSC escape left
open: quadratic once), each timed in process (decoding as `errorkb lookup` decodes
standard input, then the lookup) and as a whole `errorkb lookup --pin-only` process
reading it from standard input, next to the same process given a one-line message
(the ratio is what the paste itself costs; goal: under 5 s on the command line).
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

from common import ROOT, pin_catalog, source_parser

from generator.lookup.clean import decode_paste  # noqa: E402
from generator.lookup.index import matcher_from_catalogs  # noqa: E402

PASTES = ROOT / "tests" / "data" / "pastes"
MESSAGE = "ValueError: Total number of attention heads (28) must be divisible by tensor parallel size (8)."
LOG_LINE = "(APIServer pid=1) INFO 11-18 18:07:{s:02d} [loggers.py:123] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: {n}.1 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.{n}%, Prefix cache hit rate: 0.0%"
TRACEBACK = """(EngineCore_DP0 pid=316) ERROR 11-18 18:07:28 [core.py:710] EngineCore failed to start.
(EngineCore_DP0 pid=316) ERROR 11-18 18:07:28 [core.py:710] Traceback (most recent call last):
(EngineCore_DP0 pid=316) ERROR 11-18 18:07:28 [core.py:710]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 701, in run_engine_core
(EngineCore_DP0 pid=316) ERROR 11-18 18:07:28 [core.py:710]     engine_core = EngineCoreProc(*args, **kwargs)
(EngineCore_DP0 pid=316) ERROR 11-18 18:07:28 [core.py:710]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_planning.py", line 77, in check_enough_kv_cache_memory
(EngineCore_DP0 pid=316) ERROR 11-18 18:07:28 [core.py:710]     raise ValueError(
(EngineCore_DP0 pid=316) ERROR 11-18 18:07:28 [core.py:710] ValueError: To serve at least one request with the model's max seq len (131072), (16.0 GiB KV cache is needed, which is larger than the available KV cache memory (9.5 GiB). Based on the available memory, the estimated maximum model length is 77824. Try increasing `gpu_memory_utilization` (which also controls CPU memory on the CPU backend) or decreasing `max_model_len` when initializing the engine. See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details."""


def log_of_200_lines() -> str:
    tail = TRACEBACK.split("\n")
    head = [LOG_LINE.format(s=i % 60, n=i % 10) for i in range(200 - len(tail))]
    return "\n".join(head + tail)


def latencies(matcher, text: str, runs: int) -> tuple[float, float]:
    matcher.lookup(text)  # warm up
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        matcher.lookup(text)
        times.append(time.perf_counter() - start)
    times.sort()
    return statistics.median(times) * 1000, times[int(len(times) * 0.99) - 1] * 1000


RANDOM_BYTES = 50 * 1024 * 1024
OSC_OPENINGS = 100_000


def hostile_pastes() -> dict[str, bytes]:
    return {
        "50 MB random bytes": random.Random(20251201).randbytes(RANDOM_BYTES),
        "200 KB of ESC ]": b"\x1b]" * OSC_OPENINGS,
    }


def in_process(matcher, data: bytes, decode) -> float:
    """Seconds to decode ``data`` with ``decode`` and look it up."""
    start = time.perf_counter()
    matcher.lookup(decode(data))
    return time.perf_counter() - start


def decode_all(data: bytes) -> str:
    """As ``errorkb lookup`` reads standard input (generator/cli/common.py: read_paste)."""
    return data.decode("utf-8", errors="replace")


def as_process(args, data: bytes) -> float:
    """Seconds for a whole ``errorkb lookup --pin-only`` process reading ``data`` on stdin."""
    command = [sys.executable, "-m", "generator", "lookup", "--pin-only", "--source", args.source, "--rev", args.rev,
               "--cache-dir", str(args.cache_dir), "--json"]
    with tempfile.TemporaryFile() as stdin:
        stdin.write(data)
        stdin.seek(0)
        start = time.perf_counter()
        done = subprocess.run(command, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        took = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"errorkb lookup failed ({done.returncode}): {done.stderr.decode(errors='replace')[-2000:]}")
    return took


def main() -> int:
    parser = source_parser(__doc__)
    parser.add_argument("--runs", type=int, default=300)
    args = parser.parse_args()
    _, catalog = pin_catalog(args)
    start = time.perf_counter()
    matcher = matcher_from_catalogs([catalog])
    build = time.perf_counter() - start

    top1 = top3 = total = foreign_ok = foreign_total = 0
    misses = []
    for path in sorted(PASTES.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        matches, foreign = matcher.lookup(data["paste"], top=3)
        ids = [m.error.id for m in matches]
        if data["expected"]:
            total += 1
            right = {data["expected"], *data.get("acceptable", [])}
            top1 += bool(ids) and ids[0] in right
            top3 += bool(right & set(ids))
            if not ids or ids[0] not in right:
                misses.append(f"  {path.name}: got {ids[:1]}, want {data['expected']}")
        else:
            foreign_total += 1
            foreign_ok += not matches and foreign is not None

    message = latencies(matcher, MESSAGE, args.runs)
    log = latencies(matcher, log_of_200_lines(), max(50, args.runs // 5))
    print(f"{args.rev}: {len(matcher.errors)} errors, {len(matcher.entries)} templates")
    print(f"index build        : {build * 1000:8.1f} ms")
    print(f"top-1 accuracy     : {top1}/{total} = {top1 / total:.1%}   (goal >= 95%)")
    print(f"top-3 accuracy     : {top3}/{total} = {top3 / total:.1%}")
    print(f"non-vLLM pastes    : {foreign_ok}/{foreign_total} told apart, with no vLLM match")
    print(f"one-line message   : p50 {message[0]:6.2f} ms   p99 {message[1]:6.2f} ms   (goal p50 <= 1 ms)")
    print(f"200-line log       : p50 {log[0]:6.2f} ms   p99 {log[1]:6.2f} ms   (goal p50 <= 20 ms)")
    # Hostile pastes: in process, and as a whole command-line process (after one run that
    # stores the lookup index, so that every timed process reads it).
    as_process(args, MESSAGE.encode())
    baseline = min(as_process(args, MESSAGE.encode()) for _ in range(3))
    print(f"command line, one-line message : {baseline:6.2f} s   (the process: start, index, matcher)")
    for name, data in hostile_pastes().items():
        inside = in_process(matcher, data, decode_all)
        tail = in_process(matcher, data, decode_paste)
        whole = as_process(args, data)
        print(f"{name:18s} in process : {inside:6.2f} s (decoding only the end read, decode_paste: {tail:5.2f} s)   "
              f"command line : {whole:6.2f} s = {whole / baseline:4.2f} x the one-line message   (goal < 5 s)")
    if misses:
        print("misses:")
        print("\n".join(misses))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
