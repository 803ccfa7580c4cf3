"""Lookup accuracy and speed, measured in one run.

    python bench/lookup.py --source ../shared/corpus/vllm-releases.bundle --rev v0.33.0

Everything over every [history] release (as `errorkb lookup` runs). Accuracy: top-1
and top-3 on the real pastes of both splits, tests/data/pastes/ (tuned on) and
tests/data/pastes-heldout/ (never tuned on); a result is right when the expected id is
its problem's (the current error or an id it had before). Non-vLLM pastes are right when
the foreign error is the answer. Coverage: of the pastes found whose error the pin still
raises, the share whose first result has a curated entry (issue 16's goal: 90 %). Speed: the matcher's build, the stored matcher's read,
p50/p99 in process, the browser index's size, and the command as a whole warm process
(nine runs, median), beside Python's own start.

Hostile pastes: 50 MB of random bytes, 100,000 `ESC ]` (200 KB, an OSC escape left
open: quadratic once), a 200 KB line (of words, or one word) under every foreign rule's
keywords, and 200 KB of blanks that end in "...", each timed in process (decoding as `errorkb lookup` decodes
standard input, then the lookup) and as a whole `errorkb lookup` process
reading it from standard input, next to the same process given a one-line message
(the ratio is what the paste itself costs; goal: under 5 s on the command line).
"""

from __future__ import annotations

import gzip
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, source_parser

from generator.lookup.clean import decode_paste  # noqa: E402
from generator.lookup.index import matcher_from_index  # noqa: E402
from generator.lookup.match import Matcher  # noqa: E402

PASTES = ROOT / "tests" / "data" / "pastes"
HELD_OUT = ROOT / "tests" / "data" / "pastes-heldout"  # never tuned on: see its README
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
LONG_LINE = 200_000  # characters of the hostile long line


def hostile_pastes() -> dict[str, bytes]:
    from generator.lookup.foreign import foreign_errors

    # every foreign rule's keywords (so that each rule runs), under a line of 200 KB that none of
    # them matches: a rule whose pattern can start anywhere and scan the rest of the line is
    # quadratic there (".*X", "\w+X" on a long word)
    keywords = " ".join(k for error in foreign_errors() for k in error.keywords)
    return {
        "50 MB random bytes": random.Random(20251201).randbytes(RANDOM_BYTES),
        "200 KB of ESC ]": b"\x1b]" * OSC_OPENINGS,
        "200 KB line + keys": ("ab_12.-:/ " * (LONG_LINE // 10) + "\n" + keywords).encode(),
        "200 KB word + keys": ("a" * LONG_LINE + "\n" + keywords).encode(),
        # blanks that a header's pattern gave back one at a time, each retrying the line (match.ANOTHERS_LOG_LINE)
        "200 KB blanks, ...": (" " * LONG_LINE + "...").encode(),
        # a foreign rule's words again and again on one line: each match reads its line and its
        # value (match._carried), once per line and cut at MAX_VALUE_CHARS, or it is quadratic
        "200 KB of NCCL words": ("NCCL error: x " * (LONG_LINE // 14)).encode(),
    }


def in_process(matcher, data: bytes, decode) -> float:
    """Seconds to decode ``data`` with ``decode`` and look it up."""
    start = time.perf_counter()
    matcher.lookup(decode(data))
    return time.perf_counter() - start


def decode_all(data: bytes) -> str:
    """As ``errorkb lookup`` reads standard input (generator/cli/common.py: read_paste)."""
    return data.decode("utf-8", errors="replace")


def as_process(args, data: bytes, history: bool = False) -> float:
    """Seconds for a whole ``errorkb lookup`` process reading ``data`` on stdin (``--pin-only``
    unless ``history``)."""
    command = [sys.executable, "-m", "generator", "lookup", *([] if history else ["--pin-only"]), "--source", args.source,
               "--rev", args.rev, "--cache-dir", str(args.cache_dir), "--json"]
    with tempfile.TemporaryFile() as stdin:
        stdin.write(data)
        stdin.seek(0)
        start = time.perf_counter()
        done = subprocess.run(command, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                              env=_installed_like(args))
        took = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"errorkb lookup failed ({done.returncode}): {done.stderr.decode(errors='replace')[-2000:]}")
    return took


def _installed_like(args) -> dict[str, str]:
    """The environment of an installed errorkb: `pip install` compiles the package's bytecode,
    so a person's second lookup does not compile its modules again. Where
    PYTHONDONTWRITEBYTECODE is set (this machine sets it), every run would compile them
    (40 ms); the bytecode goes to a folder of the cache instead of the source tree."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPATH": str(ROOT), "PYTHONPYCACHEPREFIX": str(Path(args.cache_dir).resolve() / "bytecode")}


def history_index(args) -> dict:
    """The lookup index over every [history] release, with their lineage, as `errorkb lookup` builds it."""
    from generator.config import load_config
    from generator.history.lineage import link_releases
    from generator.entries.lineage import load_lineage
    from generator.entries.load import load_entries
    from generator.lookup.index import compact_index, entries_for_index
    from generator.scan.cache import BlobCache
    from generator.scan.catalog import catalog_json, scan_revisions
    from generator.scan.sources import resolve
    from generator.cli.common import source_for

    config = load_config()
    revs = list(config.releases) if args.rev in config.releases else [args.rev]
    revisions = [resolve(source_for(args.source, rev), rev, args.cache_dir) for rev in revs]
    with BlobCache(args.cache_dir / "analysis.sqlite") as cache:
        catalogs = [json.loads(catalog_json(c)) for c in scan_revisions("vllm", revisions, cache, os.cpu_count() or 1)]
    lineage, _ = load_lineage(ROOT / "errors", ROOT)
    links = link_releases(catalogs, os.cpu_count() or 1, lineage.apart_pairs()) if len(catalogs) > 1 else []
    # and, as the command adds them, the project's curated entries and the links people wrote
    entries, _ = load_entries(ROOT / "errors", ROOT)
    return compact_index(catalogs, links=links + [(link.source, link.target) for link in lineage.links],
                         entries=entries_for_index(entries))


def curated_share(matcher, folder) -> tuple[int, int]:
    """(on a curated page, raised at the pin): of the pastes whose expected error's problem the
    pin raises and whose first result is that problem, how many land on a curated page."""
    pin = matcher.revisions[-1] if matcher.revisions else None
    curated = raised = 0
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if not data["expected"]:
            continue
        matches, _ = matcher.lookup(data["paste"], top=1)
        if not matches:
            continue
        first = matches[0].to_json()
        ids = {first["id"], first["current"]["id"], *(a["id"] for a in first["also"])}
        if data["expected"] in ids and pin in first["current"]["versions"]:
            raised += 1
            curated += bool(first.get("entry"))
    return curated, raised


def accuracy(matcher, folder) -> tuple[int, int, int, int, int, list[str]]:
    """(top-1 right, top-3 right, vLLM pastes, non-vLLM told apart, non-vLLM pastes, misses).

    A result is right when the expected id is its problem's: the current error, or one of
    the ids it had in other releases (``current`` and ``also``)."""
    top1 = top3 = total = foreign_ok = foreign_total = 0
    misses = []
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        matches, foreign = matcher.lookup(data["paste"], top=3)
        groups = [{m.error.id, (m.current or m.error).id, *(a.id for a in m.also)} for m in matches]
        if data["expected"]:
            total += 1
            right = {data["expected"], *data.get("acceptable", [])}
            top1 += bool(groups) and bool(right & groups[0])
            top3 += any(right & g for g in groups)
            if not groups or not right & groups[0]:
                misses.append(f"  {path.name}: got {matches[0].error.id if matches else None}, want {data['expected']}")
        else:
            foreign_total += 1
            told = foreign is not None and (not matches or foreign.get("role") == "answer")
            foreign_ok += told
            if not told:
                misses.append(f"  {path.name}: not vLLM's, got {matches[0].error.id if matches else None}")
    return top1, top3, total, foreign_ok, foreign_total, misses


def main() -> int:
    parser = source_parser(__doc__)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--show-misses", action="store_true", help="list the tuning split's misses (never the held-out's)")
    args = parser.parse_args()
    start = time.perf_counter()
    index = history_index(args)
    indexed = time.perf_counter() - start
    start = time.perf_counter()
    matcher = matcher_from_index(index)
    build = time.perf_counter() - start
    snapshot = matcher.snapshot()
    start = time.perf_counter()
    Matcher.from_snapshot(snapshot)
    load = time.perf_counter() - start

    print(f"{len(index['revisions'])} releases ({index['revisions'][0]} – {index['revisions'][-1]}): "
          f"{len(matcher.errors)} errors, {len(matcher.entries)} templates")
    for name, folder in (("tuning split", PASTES), ("held-out split", HELD_OUT)):
        top1, top3, total, foreign_ok, foreign_total, misses = accuracy(matcher, folder)
        print(f"{name:15s}: top-1 {top1}/{total} = {top1 / total:.2%}   top-3 {top3 / total:.1%}   "
              f"non-vLLM told apart {foreign_ok}/{foreign_total}   (goal >= 95% top-1 held-out, non-vLLM 100%)")
        on_page, raised = curated_share(matcher, folder)
        print(f"{'':15s}  of the {raised} found whose error the pin raises, {on_page} ({on_page / max(1, raised):.1%}) "
              f"land on a curated page   (goal >= 90%)")
        if args.show_misses and folder is PASTES and misses:
            print("\n".join(misses))

    message = latencies(matcher, MESSAGE, args.runs)
    log = latencies(matcher, log_of_200_lines(), max(50, args.runs // 5))
    print(f"matcher build      : {build * 1000:8.1f} ms from the index ({indexed:.1f} s to scan, link and index)")
    print(f"stored matcher     : {len(snapshot) / 1e6:6.1f} MB, read back in {load * 1000:6.1f} ms")
    print(f"one-line message   : p50 {message[0]:6.2f} ms   p99 {message[1]:6.2f} ms   (in process)")
    print(f"200-line log       : p50 {log[0]:6.2f} ms   p99 {log[1]:6.2f} ms   (in process)")
    site_index = json.dumps(index, ensure_ascii=False, separators=(",", ":")).encode()
    print(f"browser index      : {len(site_index) / 1e6:6.2f} MB, {len(gzip.compress(site_index, 9)) / 1e6:5.2f} MB gzipped   (goal <= 1 MB gzipped)")
    # The site is built from errorkb.toml's source (PyPI's wheels, which hold files the git tags
    # lack, such as vllm/vllm_flash_attn/): the index it ships is larger than the one above.
    shipped = ROOT / "site" / "api" / "lookup-index.json"
    if shipped.is_file():
        data = shipped.read_bytes()
        print(f"  as last built    : {len(data) / 1e6:6.2f} MB, {len(gzip.compress(data, 9)) / 1e6:5.2f} MB gzipped   ({shipped.relative_to(ROOT)}, "
              f"from errorkb.toml's source)")
    # The command as a whole process, warm (the first run stores the matcher).
    as_process(args, MESSAGE.encode(), history=True)
    runs = sorted(as_process(args, MESSAGE.encode(), history=True) for _ in range(9))
    baseline = statistics.median(runs)
    print(f"errorkb lookup, whole process, every release: p50 {baseline * 1000:6.0f} ms  "
          f"(min {runs[0] * 1000:.0f}, max {runs[-1] * 1000:.0f} of {len(runs)})   (goal p50 <= 250 ms)")
    python = sorted(_python_alone() for _ in range(5))
    print(f"  of which Python's own start: {statistics.median(python) * 1000:6.0f} ms (python -c pass)")
    for name, data in hostile_pastes().items():
        inside = in_process(matcher, data, decode_all)
        tail = in_process(matcher, data, decode_paste)
        whole = as_process(args, data, history=True)
        print(f"{name:18s} in process : {inside:6.2f} s (decoding only the end read, decode_paste: {tail:5.2f} s)   "
              f"command line : {whole:6.2f} s = {whole / baseline:4.2f} x the one-line message   (goal < 5 s)")
    return 0


def _python_alone() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - start


if __name__ == "__main__":
    raise SystemExit(main())
