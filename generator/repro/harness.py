"""Running reproduction cases: the input/output edge of the harness.

Three runners share one request format (``child.py`` describes it), and every case runs
in the sandbox of ``sandbox.py`` (bwrap where it works, rlimits only where it does not,
said in each run's ``isolation``):

- ``ForkServerRunner`` (CPU tier): one long-lived process of the vLLM interpreter, inside
  one sandbox, imports vLLM once, then forks a child per case; the child enters the case's
  own part of the sandbox (a fresh folder, a clean environment, rlimits, uid 65534 under
  root) before the case's first line. A case costs about a second instead of vLLM's
  ten-second import.
- ``ProcessRunner`` (CUDA tier): a fresh sandbox and process per case, with the GPU's
  memory read before and after.
- ``RayRunner``: each case as a Ray task (with ``num_gpus`` for CUDA cases) that runs a
  ``ProcessRunner`` on whichever node Ray picks; the model configurations travel with it.

The verdict comes from what the case's supervisor inside the sandbox observed and
passed back on a stream the case cannot reach (``child.py``); nothing a case writes in
its folder is read. A crash, a hang, an unexpected exception or a malformed report
becomes a ``CaseRun`` so that the run goes on; a sandbox that cannot be set up stops the
run (``HarnessError``): no case runs outside it.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from generator.repro.cases import CASE_ENV_NAME, MAX_TIMEOUT_S, REACH_POINTS, CaseRun, ReproCase
from generator.repro.sandbox import CHILD, HarnessError, Limits, Sandbox, models_snapshot

__all__ = ["CHILD", "PRELOAD_VLLM", "CaseRequest", "ForkServerRunner", "HarnessError", "ProcessRunner",
           "Progress", "RayRunner", "case_run_from", "gpu_snapshot", "not_runnable_here", "refusal"]

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
_GRACE_S = 60.0  # beyond the case's own timeout: the supervisor's bookkeeping (killing, cleaning)
LEAKED_NAMES = 10


@dataclass(frozen=True)
class CaseRequest:
    """A case made concrete: what the sandboxed child is asked to do."""

    name: str
    case: ReproCase
    watch: tuple = ()  # functions to trace (dicts); the CPU tier only
    base_env: tuple[tuple[str, str], ...] = ()  # set for every case of the tier (VLLM_TARGET_DEVICE=cpu)

    @property
    def timeout_s(self) -> float:
        return min(float(self.case.timeout_s), MAX_TIMEOUT_S)

    def payload(self) -> dict:
        return {
            "name": self.name,
            "kind": self.case.kind,
            "code": self.case.code,
            "argv": list(self.case.argv),
            "tier_env": dict(self.base_env),
            "env": dict(self.case.env),
            "timeout_s": self.timeout_s,
            "stop_at": self.case.stop_at(),
            "watch": [dict(w) for w in self.watch],
        }


def refusal(case: ReproCase) -> str | None:
    """Why a case is not run at all (what ``errorkb check`` rejects), or None."""
    if case.kind == "cli" and case.argv[:1] != ("vllm",):
        return "a command-line case must start with vllm (cli: [vllm, ...])"
    bad = [name for name, _ in case.env if not CASE_ENV_NAME.match(name)]
    if bad:
        return f"the case sets {', '.join(bad)}, which a case may not set (env: VLLM_*, CUDA_*, NCCL_*, ...)"
    return None


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _int(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text(value, limit: int = 100_000) -> str:
    return value[:limit] if isinstance(value, str) else ""


def _exception(value) -> dict | None:
    if not isinstance(value, dict):
        return None
    causes = [{"type": _text(c.get("type"), 200), "message": _text(c.get("message"))}
              for c in value.get("causes") or [] if isinstance(c, dict)][:10]
    return {"type": _text(value.get("type"), 200), "module": _text(value.get("module"), 200),
            "message": _text(value.get("message")), "traceback": _text(value.get("traceback"), 1_000_000),
            "causes": causes}


def _watch(value) -> list[dict]:
    out = []
    for item in value if isinstance(value, list) else []:
        if not isinstance(item, dict):
            continue
        counts = {key: _int(item.get(key)) or 0 for key in ("entered", "returned", "escaped", "raise_executed")}
        watched = {"path": _text(item.get("path"), 300), "function": _text(item.get("function"), 300),
                   "raise_lines": [n for n in item.get("raise_lines") or [] if _int(n)][:1000], **counts}
        if item.get("assert_lines"):
            watched["assert_lines"] = [n for n in item["assert_lines"] if _int(n)][:1000]
        out.append(watched)
    return out[:100]


def case_run_from(reply: dict, isolation: str = "") -> CaseRun:
    """A ``CaseRun`` from the reply of the case's supervisor (``child.py``'s ``serve_one``):
    how the process ended, as it observed it, and the case's report, checked field by field."""
    if reply.get("sandbox_failed"):
        raise HarnessError(f"case {reply.get('name')} could not enter its sandbox: "
                           f"{(reply.get('log_tail') or '').strip().splitlines()[-1:] or 'no reason given'}")
    wall = float(reply.get("wall_s") or 0.0)
    log_tail = _text(reply.get("log_tail"))[-LOG_TAIL_CHARS:]
    report = reply.get("report") if isinstance(reply.get("report"), dict) else None
    leaked = [_text(name, 64) for name in reply.get("leaked") or []][:LEAKED_NAMES]
    common = {"log_tail": log_tail, "isolation": isolation}
    if reply.get("timed_out"):
        return CaseRun("timeout", duration_s=wall, watch=_watch((report or {}).get("watch")), **common)
    clean_exit = reply.get("signal") is None and reply.get("exit_status") == 0
    if report is None or not clean_exit:
        if reply.get("signal"):
            how = f"killed by {_signal_name(reply['signal'])}"
        elif report is not None:
            how = f"exit status {reply.get('exit_status')} after its report"
        elif reply.get("bad_report"):
            how = f"exit status {reply.get('exit_status')}, and {reply['bad_report']}"
        else:
            how = f"exit status {reply.get('exit_status')} before writing a result"
        return CaseRun("crashed", duration_s=wall, reason=how, signal=reply.get("signal"),
                       leaked_processes=bool(leaked), leaked=leaked, **common)
    outcome = report.get("outcome")
    if outcome not in ("returned", "reached", "raised", "exited"):
        return CaseRun("crashed", duration_s=wall, reason="its report names no outcome",
                       leaked_processes=bool(leaked), leaked=leaked, **common)
    duration = report.get("duration_s")
    duration = float(duration) if isinstance(duration, (int, float)) and 0 <= duration <= wall + 1 else wall
    reached = report.get("reached") if report.get("reached") in REACH_POINTS else None
    return CaseRun(
        outcome=outcome,
        duration_s=duration,
        reached=reached,
        exit_code=_int(report.get("exit_code")),
        exception=_exception(report.get("exception")),
        watch=_watch(report.get("watch")),
        leaked_processes=bool(leaked),
        leaked=leaked,
        **common,
    )


def _models(models) -> dict[str, bytes]:
    """The model configurations cases may read: a snapshot, or taken from a folder (default: the project's models/)."""
    if isinstance(models, dict):
        return models
    if models is None:
        from generator.config import load_config

        models = load_config().root / "models"
    return models_snapshot(Path(models))


def _kill_group(pgid: int) -> bool:
    """Kill every process left in a group; True when there were some."""
    try:
        os.killpg(pgid, signal.SIGKILL)
        return True
    except (ProcessLookupError, PermissionError):
        return False


# ---------------------------------------------------------------- the fork server (CPU tier)

class ForkServerRunner:
    """Cases run as forked, sandboxed children of one sandboxed process that imported vLLM once.

    ``env``: where the allowlisted variables (``sandbox.PASS_THROUGH``) are taken from
    (default: this process's environment); ``tier_env``: set for the server and every case;
    ``models``: a folder or a ``models_snapshot``; ``sandbox``: ``auto``, ``bwrap`` or ``rlimits``.
    """

    def __init__(self, python: Path | str, preload: tuple[str, ...] = PRELOAD_VLLM, env: dict | None = None,
                 tier_env: dict | None = None, models=None, sandbox: str | None = None, limits: Limits | None = None,
                 tier: str = "cpu", repo_root: Path | None = None):
        self.python = str(python)
        self.preload = preload
        self.env = env
        self.tier_env = tier_env
        self.models = models
        self.mode = sandbox
        self.limits = limits
        self.tier = tier
        self.repo_root = repo_root
        self.sandbox: Sandbox | None = None
        self.process: subprocess.Popen | None = None
        self.ready: dict = {}
        self._stderr = None

    def start(self) -> dict:
        self.sandbox = Sandbox(self.python, self.tier, self.mode, _models(self.models), self.limits,
                               self.env, self.tier_env, self.repo_root or _repo_root())
        self._stderr = tempfile.TemporaryFile()
        command = self.sandbox.command(["--serve", "--preload", ",".join(self.preload),
                                        "--config", json.dumps(self.sandbox.config())])
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
            text=True, env=self.sandbox.process_env(), cwd=self.sandbox.cwd, start_new_session=True,
        )
        line = self._readline(600)
        if not line:
            why = self._stderr_tail()
            self.close()
            raise HarnessError(f"the fork server ({self.python} {CHILD.name}) exited before it was ready"
                               + (f": {why}" if why else ""))
        self.ready = json.loads(line)
        if self.ready.get("preload_errors"):
            errors = "; ".join(f"{m}: {e}" for m, e in self.ready["preload_errors"].items())
            self.close()
            raise HarnessError(f"the fork server could not import what the cases need: {errors}")
        return self.ready

    def _readline(self, timeout_s: float) -> str:
        ready, _, _ = select.select([self.process.stdout], [], [], timeout_s)
        return self.process.stdout.readline() if ready else ""

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        self._stderr.seek(0)
        lines = [line for line in self._stderr.read().decode("utf-8", "replace").splitlines() if line.strip()]
        return lines[-1][:500] if lines else ""

    @property
    def environment(self) -> dict:
        return self.ready.get("environment", {})

    @property
    def isolation(self) -> str:
        if self.sandbox is None:
            return ""
        extra = "" if self.ready.get("subreaper", True) else "; processes that leave the case's session are not tracked"
        return self.sandbox.isolation + extra

    def run(self, request: CaseRequest) -> CaseRun:
        refused = refusal(request.case)
        if refused:
            return CaseRun("crashed", reason=f"refused: {refused}", isolation=self.isolation)
        if self.process is None:
            self.start()
        self.process.stdin.write(json.dumps(request.payload()) + "\n")
        self.process.stdin.flush()
        line = self._readline(request.timeout_s + _GRACE_S)
        if not line:
            why = self._stderr_tail()
            self.close()
            raise HarnessError(f"the fork server died while running {request.name}" + (f": {why}" if why else ""))
        return case_run_from(json.loads(line), self.isolation)

    def close(self) -> None:
        if self.process is not None:
            try:
                self.process.stdin.close()
            except OSError:
                pass
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            _kill_group(self.process.pid)  # bwrap's namespace ends with it; without bwrap, the group
            self.process.wait()
            self.process = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
        if self.sandbox is not None:
            self.sandbox.close()
            self.sandbox = None

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.close()


def _repo_root() -> Path | None:
    try:
        from generator.config import load_config

        return load_config().root
    except Exception:  # noqa: BLE001 - no project here: nothing to keep out
        return None


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
    """Each case in a fresh sandbox and process of the vLLM interpreter (``child.py --single``)."""

    def __init__(self, python: Path | str, env: dict | None = None, watch_gpu: bool = False, tier_env: dict | None = None,
                 models=None, sandbox: str | None = None, limits: Limits | None = None, tier: str | None = None,
                 repo_root: Path | None = None):
        self.python = str(python)
        self.env = env
        self.watch_gpu = watch_gpu
        self.tier_env = tier_env
        self.models = _models(models)
        self.mode = sandbox
        self.tier = tier or ("cuda" if watch_gpu else "cpu")
        self.limits = limits
        self.repo_root = repo_root
        self._sandbox: Sandbox | None = None
        self._environment: dict | None = None

    @property
    def sandbox(self) -> Sandbox:
        if self._sandbox is None:
            self._sandbox = Sandbox(self.python, self.tier, self.mode, self.models, self.limits, self.env,
                                    self.tier_env, self.repo_root or _repo_root())
        return self._sandbox

    @property
    def isolation(self) -> str:
        return self.sandbox.isolation

    @property
    def environment(self) -> dict:
        if self._environment is None:
            sandbox = self.sandbox
            out = subprocess.run(sandbox.command(["--environment"]), capture_output=True, text=True,
                                 env=sandbox.process_env(), cwd=sandbox.cwd, timeout=300, start_new_session=True)
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
        sandbox = self.sandbox
        refused = refusal(request.case)
        if refused:
            return CaseRun("crashed", reason=f"refused: {refused}", isolation=sandbox.isolation)
        started = time.monotonic()
        with tempfile.TemporaryFile() as stderr:
            process = subprocess.Popen(sandbox.command(["--single", "--config", json.dumps(sandbox.config())]),
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                                       env=sandbox.process_env(), cwd=sandbox.cwd, start_new_session=True)
            try:
                out, _ = process.communicate(json.dumps(request.payload()).encode(), timeout=request.timeout_s + _GRACE_S)
            except subprocess.TimeoutExpired:
                _kill_group(process.pid)
                process.communicate()
                out = b""
                reply = {"name": request.name, "timed_out": True, "wall_s": round(time.monotonic() - started, 3)}
            else:
                lines = out.decode("utf-8", "replace").strip().splitlines()
                try:
                    reply = json.loads(lines[-1]) if lines else None
                except ValueError:
                    reply = None
                if not isinstance(reply, dict):
                    stderr.seek(0)
                    tail = [line for line in stderr.read().decode("utf-8", "replace").splitlines() if line.strip()]
                    raise HarnessError(f"the case process for {request.name} ended without a reply (exit status "
                                       f"{process.returncode})" + (f": {tail[-1][:500]}" if tail else ""))
            _kill_group(process.pid)  # bwrap's namespace ended with it; without bwrap, the group (the supervisor killed the rest)
        run = case_run_from(reply, sandbox.isolation)
        if gpus_before:
            run.gpu_memory = {"before_mib": gpus_before[0]["used_mib"], "after_mib": _settled_gpu_memory(gpus_before[0]["used_mib"])}
        return run

    def close(self) -> None:
        if self._sandbox is not None:
            self._sandbox.close()
            self._sandbox = None


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

def _ray_task(python: str, request: CaseRequest, env: dict | None, watch_gpu: bool, tier_env: dict | None,
              models: dict[str, bytes], sandbox: str | None, limits: Limits | None, tier: str) -> tuple[CaseRun, dict]:
    runner = ProcessRunner(python, env=env, watch_gpu=watch_gpu, tier_env=tier_env, models=models,
                           sandbox=sandbox, limits=limits, tier=tier)
    try:
        return runner.run(request), runner.environment
    finally:
        runner.close()


class RayRunner:
    """Each case as a Ray task on the cluster at ``address`` (or a local Ray).

    The task starts the vLLM interpreter named by ``python`` on the node it lands on, in
    a sandbox made there (``ProcessRunner``), so every node needs vLLM at that path (or
    ``ERRORKB_VLLM_PYTHON`` set for the workers) and, for namespaces, bubblewrap; the
    model configurations travel with the task. CUDA cases ask Ray for one GPU.
    """

    def __init__(self, python: Path | str, address: str | None = None, env: dict | None = None, tier: str = "cpu",
                 tier_env: dict | None = None, models=None, sandbox: str | None = None, limits: Limits | None = None):
        try:
            import ray
        except ImportError:
            raise HarnessError("--executor ray needs Ray: pip install 'ray>=2.9'") from None
        self.ray = ray
        self.python = str(python)
        self.env = None if env is None else {k: v for k, v in env.items()}
        self.tier = tier
        self.tier_env = tier_env
        self.models = _models(models)
        self.mode = sandbox
        self.limits = limits
        if not ray.is_initialized():
            ray.init(address=address, include_dashboard=False, log_to_driver=False,
                     runtime_env={"py_modules": [str(Path(__file__).resolve().parents[1])]} if address else None)
        self._remote = ray.remote(_ray_task)
        self._environment: dict = {}
        self.isolation = ""

    @property
    def environment(self) -> dict:
        return self._environment

    def submit(self, request: CaseRequest):
        options = {"num_cpus": 1, "max_retries": 0}
        if request.case.requires == "cuda":
            options["num_gpus"] = 1
        from generator.repro.sandbox import _clean_env

        env = _clean_env(self.env if self.env is not None else dict(os.environ))
        return self._remote.options(**options).remote(self.python, request, env, request.case.requires == "cuda",
                                                      self.tier_env, self.models, self.mode, self.limits, self.tier)

    def run_all(self, requests: list[CaseRequest]) -> list[CaseRun]:
        """Submit every case at once; Ray schedules them over the cluster."""
        results = self.ray.get([self.submit(r) for r in requests])
        for run, environment in results:
            if environment:
                self._environment = environment
            if run.isolation:
                self.isolation = run.isolation
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
