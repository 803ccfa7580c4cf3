"""Running reproduction cases: the input/output edge of the harness.

Three runners share one request format (``child.py`` describes it):

- ``ForkServerRunner`` (CPU tier): one long-lived process of the vLLM interpreter
  imports vLLM once, then forks a child per case; a case costs about a second
  instead of vLLM's ten-second import.
- ``ProcessRunner`` (CUDA tier): a fresh process per case, in its own session, with
  the GPU's memory read before and after.
- ``RayRunner``: each case as a Ray task (with ``num_gpus`` for CUDA cases) that runs a
  ``ProcessRunner`` on whichever node Ray picks.

Every runner kills a case's whole process group at its timeout and after it ends,
and turns a crash, a hang or an unexpected exception into a ``CaseRun`` so that the
run goes on.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from generator.errors import InputError
from generator.repro.cases import CaseRun, ReproCase
from generator.repro.child import _kill_group  # stdlib only: the same code kills groups on both sides

CHILD = Path(__file__).resolve().parent / "child.py"
# What the cases import, loaded once by the fork server: vLLM's engine arguments and
# configuration, its command line (and what `vllm serve` imports before it builds the
# configuration), sampling parameters, and the quantization configs that a quantized
# model's configuration loads (seconds of imports each time otherwise).
PRELOAD_VLLM = (
    "vllm", "vllm.engine.arg_utils", "vllm.config", "vllm.sampling_params",
    "vllm.entrypoints.cli.main", "vllm.entrypoints.cli.preload", "vllm.entrypoints.openai.api_server",
    "vllm.model_executor.model_loader.weight_utils", "vllm.model_executor.layers.quantization.fp8",
)
LOG_TAIL_CHARS = 4000
_GRACE_S = 15.0  # beyond the case's own timeout: the runner's own bookkeeping


class HarnessError(InputError):
    """The harness itself cannot run (no interpreter, the fork server died, no GPU)."""


@dataclass(frozen=True)
class CaseRequest:
    """A case made concrete: what the child process is asked to do."""

    name: str
    case: ReproCase
    cwd: str
    watch: tuple = ()  # functions to trace (dicts); the CPU tier only
    base_env: tuple[tuple[str, str], ...] = ()  # set for every case of the tier (VLLM_TARGET_DEVICE=cpu)

    def payload(self, workdir: Path) -> dict:
        return {
            "name": self.name,
            "kind": self.case.kind,
            "code": self.case.code,
            "argv": list(self.case.argv),
            "env": dict(self.base_env) | dict(self.case.env),
            "cwd": self.cwd,
            "timeout_s": self.case.timeout_s,
            "stop_at": self.case.stop_at(),
            "watch": [dict(w) for w in self.watch],
            "log_path": str(workdir / "case.log"),
            "result_path": str(workdir / "result.json"),
        }


def _tail(path: Path, chars: int = LOG_TAIL_CHARS) -> str:
    try:
        data = path.read_bytes()
    except OSError:
        return ""
    return data[-chars:].decode("utf-8", "replace")


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def case_run_from(result: dict | None, reply: dict, log_tail: str) -> CaseRun:
    """A ``CaseRun`` from the child's result file (None if it wrote none) and the
    runner's own account of the process (timeout, signal, exit status)."""
    wall = float(reply.get("wall_s") or 0.0)
    if reply.get("timed_out"):
        return CaseRun("timeout", duration_s=wall, log_tail=log_tail, watch=(result or {}).get("watch", []))
    if result is None:
        if reply.get("signal"):
            how = f"killed by {_signal_name(reply['signal'])}"
        else:
            how = f"exit status {reply.get('exit_status')} before writing a result"
        return CaseRun("crashed", duration_s=wall, log_tail=log_tail, reason=how, signal=reply.get("signal"))
    return CaseRun(
        outcome=result.get("outcome", "crashed"),
        duration_s=float(result.get("duration_s", wall)),
        reached=result.get("reached"),
        exit_code=result.get("exit_code"),
        exception=result.get("exception"),
        watch=result.get("watch", []),
        log_tail=log_tail,
        leaked_processes=bool(reply.get("leaked_processes")),
    )


def _read_result(workdir: Path) -> dict | None:
    try:
        return json.loads((workdir / "result.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


# ---------------------------------------------------------------- the fork server (CPU tier)

class ForkServerRunner:
    """Cases run as forked children of one process that imported vLLM once."""

    def __init__(self, python: Path | str, preload: tuple[str, ...] = PRELOAD_VLLM, env: dict | None = None):
        self.python = str(python)
        self.preload = preload
        self.env = env
        self.process: subprocess.Popen | None = None
        self.ready: dict = {}

    def start(self) -> dict:
        self.process = subprocess.Popen(
            [self.python, str(CHILD), "--serve", "--preload", ",".join(self.preload)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, env=self.env, start_new_session=True,
        )
        line = self.process.stdout.readline()
        if not line:
            raise HarnessError(f"the fork server ({self.python} {CHILD.name}) exited before it was ready")
        self.ready = json.loads(line)
        if self.ready.get("preload_errors"):
            errors = "; ".join(f"{m}: {e}" for m, e in self.ready["preload_errors"].items())
            self.close()
            raise HarnessError(f"the fork server could not import what the cases need: {errors}")
        return self.ready

    @property
    def environment(self) -> dict:
        return self.ready.get("environment", {})

    def run(self, request: CaseRequest) -> CaseRun:
        if self.process is None:
            self.start()
        with tempfile.TemporaryDirectory(prefix="errorkb-case-") as tmp:
            workdir = Path(tmp)
            self.process.stdin.write(json.dumps(request.payload(workdir)) + "\n")
            self.process.stdin.flush()
            line = self.process.stdout.readline()
            if not line:
                raise HarnessError(f"the fork server died while running {request.name}")
            return case_run_from(_read_result(workdir), json.loads(line), _tail(workdir / "case.log"))

    def close(self) -> None:
        if self.process is not None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
            self.process = None

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.close()


# ---------------------------------------------------------------- one process per case (CUDA tier)

def gpu_snapshot() -> list[dict] | None:
    """Every NVIDIA GPU's name, memory (MiB), driver and compute capability, from nvidia-smi; None without one."""
    if shutil.which("nvidia-smi") is None:
        return None
    fields = ["index", "name", "memory.used", "memory.total", "driver_version", "compute_cap"]
    out = None
    for query in (fields, fields[:-1]):  # compute_cap needs a driver from 2022 on
        try:
            out = subprocess.run(["nvidia-smi", f"--query-gpu={','.join(query)}", "--format=csv,noheader,nounits"],
                                 capture_output=True, text=True, timeout=30, check=True).stdout
            break
        except (subprocess.SubprocessError, OSError):
            continue
    if out is None:
        return None
    gpus = []
    for line in out.strip().splitlines():
        parts = [part.strip() for part in line.split(",")]
        gpu = {"index": int(parts[0]), "name": parts[1], "used_mib": int(parts[2]), "total_mib": int(parts[3]),
               "driver": parts[4]}
        if len(parts) > 5:
            try:
                gpu["compute_capability"] = float(parts[5])
            except ValueError:
                pass
        gpus.append(gpu)
    return gpus or None


def not_runnable_here(case: ReproCase, gpus: list[dict] | None) -> str | None:
    """Why a CUDA case is skipped on this GPU (too little memory, too new), or None."""
    if not gpus:
        return None
    gpu = gpus[0]
    total_gib = gpu["total_mib"] / 1024
    if case.min_gpu_memory_gib and total_gib < case.min_gpu_memory_gib:
        return f"needs {case.min_gpu_memory_gib:g} GiB of GPU memory, {gpu['name']} has {total_gib:.0f} GiB"
    capability = gpu.get("compute_capability")
    if case.max_compute_capability and capability and capability > case.max_compute_capability:
        return (f"is for GPUs of compute capability {case.max_compute_capability:g} or lower, "
                f"{gpu['name']} has {capability:g}")
    return None


class ProcessRunner:
    """Each case in a fresh process of the vLLM interpreter, in a session of its own."""

    def __init__(self, python: Path | str, env: dict | None = None, watch_gpu: bool = False):
        self.python = str(python)
        self.env = env
        self.watch_gpu = watch_gpu
        self._environment: dict | None = None

    @property
    def environment(self) -> dict:
        if self._environment is None:
            out = subprocess.run([self.python, str(CHILD), "--environment"], capture_output=True, text=True, env=self.env, timeout=300)
            self._environment = json.loads(out.stdout.strip().splitlines()[-1]) if out.returncode == 0 and out.stdout.strip() else {}
            gpus = gpu_snapshot() if self.watch_gpu else None
            if gpus:
                gpu = self._environment.setdefault("gpu", {})
                gpu.setdefault("name", gpus[0]["name"])
                gpu.setdefault("memory_gib", round(gpus[0]["total_mib"] / 1024, 1))
                gpu["driver"] = gpus[0]["driver"]
                if gpus[0].get("compute_capability"):
                    gpu["compute_capability"] = gpus[0]["compute_capability"]
        return self._environment

    def run(self, request: CaseRequest) -> CaseRun:
        gpus_before = gpu_snapshot() if self.watch_gpu else None
        why_not = not_runnable_here(request.case, gpus_before)
        if why_not:
            return CaseRun("not-run", reason=why_not)
        with tempfile.TemporaryDirectory(prefix="errorkb-case-") as tmp:
            workdir = Path(tmp)
            spec = workdir / "request.json"
            spec.write_text(json.dumps(request.payload(workdir)), encoding="utf-8")
            started = time.monotonic()
            process = subprocess.Popen([self.python, str(CHILD), "--single", str(spec)],
                                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                       env=self.env, start_new_session=True)
            timed_out = False
            try:
                process.wait(timeout=request.case.timeout_s)
            except subprocess.TimeoutExpired:
                timed_out = True
            leaked = _kill_group(process.pid)
            status = process.wait()
            reply = {"timed_out": timed_out, "wall_s": round(time.monotonic() - started, 3),
                     "leaked_processes": leaked and not timed_out}
            if status < 0:
                reply["signal"] = -status
            else:
                reply["exit_status"] = status
            run = case_run_from(_read_result(workdir), reply, _tail(workdir / "case.log"))
        if gpus_before:
            run.gpu_memory = {"before_mib": gpus_before[0]["used_mib"], "after_mib": _settled_gpu_memory(gpus_before[0]["used_mib"])}
        return run

    def close(self) -> None:
        pass  # nothing outlives a case


def _settled_gpu_memory(before_mib: int, wait_s: float = 20.0) -> int:
    """GPU memory in use after a case, given a moment to be released by the driver."""
    deadline = time.monotonic() + wait_s
    while True:
        gpus = gpu_snapshot()
        used = gpus[0]["used_mib"] if gpus else before_mib
        if used <= before_mib + 256 or time.monotonic() >= deadline:
            return used
        time.sleep(1.0)


# ---------------------------------------------------------------- Ray

def _ray_task(python: str, request: CaseRequest, env: dict | None, watch_gpu: bool) -> tuple[CaseRun, dict]:
    runner = ProcessRunner(python, env=env, watch_gpu=watch_gpu)
    return runner.run(request), runner.environment


class RayRunner:
    """Each case as a Ray task on the cluster at ``address`` (or a local Ray).

    The task starts the vLLM interpreter named by ``python`` on the node it lands on,
    so every node needs vLLM at that path (or ``ERRORKB_VLLM_PYTHON`` set for the
    workers); CUDA cases ask Ray for one GPU.
    """

    def __init__(self, python: Path | str, address: str | None = None, env: dict | None = None, tier: str = "cpu"):
        try:
            import ray
        except ImportError:
            raise HarnessError("--executor ray needs Ray: pip install 'ray>=2.9'") from None
        self.ray = ray
        self.python = str(python)
        self.env = env
        self.tier = tier
        if not ray.is_initialized():
            ray.init(address=address, include_dashboard=False, log_to_driver=False,
                     runtime_env={"py_modules": [str(Path(__file__).resolve().parents[1])]} if address else None)
        self._remote = ray.remote(_ray_task)
        self._environment: dict = {}

    @property
    def environment(self) -> dict:
        return self._environment

    def submit(self, request: CaseRequest):
        options = {"num_cpus": 1, "max_retries": 0}
        if request.case.requires == "cuda":
            options["num_gpus"] = 1
        return self._remote.options(**options).remote(self.python, request, self.env, request.case.requires == "cuda")

    def run_all(self, requests: list[CaseRequest]) -> list[CaseRun]:
        """Submit every case at once; Ray schedules them over the cluster."""
        results = self.ray.get([self.submit(r) for r in requests])
        for _, environment in results:
            if environment:
                self._environment = environment
        return [run for run, _ in results]

    def run(self, request: CaseRequest) -> CaseRun:
        return self.run_all([request])[0]

    def close(self) -> None:
        self.ray.shutdown()


# ---------------------------------------------------------------- progress

class Progress:
    """``[3/40] entry: error ✓`` lines on standard error; one line rewritten on a terminal."""

    def __init__(self, total: int, stream=None):
        self.total = total
        self.done = 0
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()

    def step(self, label: str, passed: bool) -> None:
        self.done += 1
        width = 24
        filled = int(width * self.done / max(self.total, 1))
        bar = "#" * filled + "-" * (width - filled)
        line = f"[{bar}] {self.done}/{self.total} {label} {'ok' if passed else 'FAILED'}"
        if self.tty:
            self.stream.write("\r\033[K" + line + ("\n" if self.done == self.total or not passed else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()
