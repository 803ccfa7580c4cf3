"""The side of the reproduction harness that runs inside the vLLM interpreter.

This file is run by path with the interpreter that has the pinned vLLM (see
``generator/vllm_env.py``), never imported by errorkb itself, so it uses the standard
library only. Two modes:

``--serve``      a fork server: import what the cases need once (``--preload``), then for
                 each request read from standard input fork a child that runs one case
                 in a process group of its own, so one case cannot disturb another;
                 a reply per request on the protocol stream (the original stdout).
``--single F``   run the one case described by the JSON file F in this process (the
                 CUDA tier and Ray tasks: one process per case).

A request (JSON) holds: ``name``, ``kind`` (``python`` or ``cli``), ``code`` or ``argv``,
``env``, ``cwd``, ``timeout_s``, ``stop_at`` (``engine-config`` or ``health`` or null),
``watch`` (the functions to trace, with the raise lines to look for), ``log_path`` and
``result_path``. The result (JSON) says how the case ended: ``returned``, ``reached``
(the stop point), ``raised`` (an exception, with its text), ``exited`` (SystemExit or a
command's exit status), and what the watched functions did.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
import traceback

PROTOCOL_FD_ENV = "ERRORKB_PROTOCOL_FD"


class StopPointReached(BaseException):
    """Raised inside the case when it reaches its stop point; a BaseException so that
    vLLM's own ``except Exception`` handlers do not swallow it."""


# ---------------------------------------------------------------- watching functions

class FunctionWatch:
    """Traces the functions that raise an error, to tell whether a fix case got past them.

    A watched function is named by its file (``vllm/config/model.py``) and qualified
    name; ``raise_lines`` are the lines of its raise statements. For each, it counts
    calls, normal returns, exceptions that escaped, and raise lines executed.
    """

    def __init__(self, watch: list[dict]):
        self.targets = [
            {
                "path": item["path"],
                "function": item.get("function") or "",
                "raise_lines": set(item.get("raise_lines") or ()),
                "entered": 0, "returned": 0, "escaped": 0, "raise_executed": 0,
            }
            for item in watch
        ]
        self._codes: dict = {}  # code object -> target dict or None
        self._escaping: set = set()  # frames with an exception in flight

    def _target_for(self, code):
        filename = code.co_filename.replace(os.sep, "/")
        qualname = getattr(code, "co_qualname", code.co_name).replace(".<locals>", "")
        for target in self.targets:
            if not filename.endswith("/" + target["path"]):
                continue
            if target["function"] and qualname == target["function"]:
                return target
            if not target["function"] and code.co_name == "<module>":
                return target
        return None

    def _global(self, frame, event, arg):
        code = frame.f_code
        try:
            target = self._codes[code]
        except KeyError:
            target = self._codes[code] = self._target_for(code)
        if target is None:
            return None
        target["entered"] += 1
        return self._local_for(target)

    def _local_for(self, target):
        def local(frame, event, arg):
            if event == "line":
                self._escaping.discard(id(frame))
                if frame.f_lineno in target["raise_lines"]:
                    target["raise_executed"] += 1
            elif event == "exception":
                self._escaping.add(id(frame))
            elif event == "return":
                if id(frame) in self._escaping:
                    self._escaping.discard(id(frame))
                    target["escaped"] += 1
                else:
                    target["returned"] += 1
            return local
        return local

    def start(self) -> None:
        if self.targets:
            threading.settrace(self._global)
            sys.settrace(self._global)

    def stop(self) -> None:
        sys.settrace(None)
        threading.settrace(None)

    def report(self) -> list[dict]:
        return [
            {key: (sorted(value) if isinstance(value, set) else value) for key, value in target.items()}
            for target in self.targets
        ]


# ---------------------------------------------------------------- stop points

def _install_engine_config_stop(state: dict) -> None:
    """Stop the case once vLLM has built the engine configuration.

    For a configuration error this is "past the point where the error is raised":
    every check of the engine's configuration ran and passed.
    """
    from vllm.engine.arg_utils import EngineArgs

    original = EngineArgs.create_engine_config

    def create_engine_config(self, *args, **kwargs):
        config = original(self, *args, **kwargs)
        state["reached"] = "engine-config"
        state["detail"] = {
            "model": str(getattr(config.model_config, "model", "")),
            "max_model_len": getattr(config.model_config, "max_model_len", None),
        }
        raise StopPointReached()

    EngineArgs.create_engine_config = create_engine_config


def _health_port(argv: list[str]) -> int:
    for i, arg in enumerate(argv):
        if arg == "--port" and i + 1 < len(argv):
            return int(argv[i + 1])
        if arg.startswith("--port="):
            return int(arg.split("=", 1)[1])
    return 8000


def _start_health_poller(argv: list[str], result: dict, result_path: str) -> None:
    """A server case reaches its stop point when ``GET /health`` answers 200."""
    import urllib.request

    url = f"http://127.0.0.1:{_health_port(argv)}/health"

    def poll():
        while True:
            try:
                with urllib.request.urlopen(url, timeout=2) as response:
                    if response.status == 200:
                        result.update(outcome="reached", reached="health", detail={"url": url})
                        _finish(result, result_path)
            except Exception:
                pass
            time.sleep(0.5)

    threading.Thread(target=poll, daemon=True).start()


# ---------------------------------------------------------------- running one case

def _exception_record(exc: BaseException) -> dict:
    causes = []  # what it was raised from or while handling, innermost last
    seen = {id(exc)}
    inner = exc.__cause__ or exc.__context__
    while inner is not None and id(inner) not in seen and len(causes) < 10:
        seen.add(id(inner))
        causes.append({"type": type(inner).__qualname__, "message": str(inner)})
        inner = inner.__cause__ or inner.__context__
    return {
        "type": type(exc).__qualname__,
        "module": type(exc).__module__,
        "message": str(exc),
        "traceback": "".join(traceback.format_exception(exc)),
        "causes": causes,
    }


def _write_json(path: str, data: dict) -> None:
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(data, handle)
    os.replace(tmp, path)


def _finish(result: dict, result_path: str) -> None:
    """Write the result and end the process at once: vLLM may have started threads
    and processes that a normal interpreter exit would wait for."""
    result["duration_s"] = round(time.monotonic() - result.pop("_started", time.monotonic()), 3)
    watch = result.pop("_watch", None)
    if watch is not None:
        watch.stop()
        result["watch"] = watch.report()
    try:
        _write_json(result_path, result)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def run_case(request: dict) -> None:
    """Run one case in this process and end it; the result goes to ``result_path``."""
    result: dict = {"name": request.get("name"), "_started": time.monotonic()}
    result_path = request["result_path"]
    log = os.open(request["log_path"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
    sys.stderr = os.fdopen(2, "w", buffering=1, closefd=False)
    os.environ.update(request.get("env") or {})
    if request.get("cwd"):
        os.chdir(request["cwd"])
    state: dict = {}
    watch = FunctionWatch(request.get("watch") or [])
    result["_watch"] = watch
    stop_at = request.get("stop_at")
    kind = request["kind"]
    try:
        if stop_at == "engine-config":
            _install_engine_config_stop(state)
        if stop_at == "health":
            _start_health_poller(request["argv"], result, result_path)
        watch.start()
        if kind == "python":
            namespace = {"__name__": "__main__"}
            exec(compile(request["code"], f"<case {request.get('name')}>", "exec"), namespace)
            result["outcome"] = "returned"
        elif request["argv"][0] == "vllm":
            from vllm.entrypoints.cli.main import main

            sys.argv = list(request["argv"])
            main()
            result["outcome"] = "returned"
        else:
            import subprocess

            watch.stop()
            completed = subprocess.run(request["argv"], stdout=sys.stdout, stderr=sys.stderr)
            result.update(outcome="exited", exit_code=completed.returncode)
    except StopPointReached:
        result.update(outcome="reached", reached=state.get("reached"), detail=state.get("detail"))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        result.update(outcome="exited", exit_code=code)
        if exc.__context__ is not None:
            result["exception"] = _exception_record(exc.__context__)
    except BaseException as exc:  # noqa: BLE001 - the case's exception is what we record
        result.update(outcome="raised", exception=_exception_record(exc))
    _finish(result, result_path)


# ---------------------------------------------------------------- environment

def environment() -> dict:
    """What this interpreter runs: vLLM, Python, torch, platform, GPU."""
    import platform

    env: dict = {"python": platform.python_version(), "platform": platform.platform()}
    try:
        import importlib.metadata as metadata

        env["vllm"] = metadata.version("vllm")
    except Exception:
        env["vllm"] = None
    try:
        from vllm import _version

        env["vllm_commit"] = getattr(_version, "commit_id", None) or getattr(_version, "__commit_id__", None)
    except Exception:
        env["vllm_commit"] = None
    try:
        import torch

        env["torch"] = torch.__version__
        env["cuda"] = torch.version.cuda
        if torch.cuda.is_available():
            props = torch.cuda.get_device_properties(0)
            env["gpu"] = {"name": props.name, "memory_gib": round(props.total_memory / 2**30, 1)}
    except Exception:
        env.setdefault("torch", None)
    return env


# ---------------------------------------------------------------- the fork server

def _wait(pid: int, timeout_s: float) -> tuple[int | None, bool]:
    """Wait for the child; returns (wait status or None, timed out)."""
    deadline = time.monotonic() + timeout_s
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status, False
        if time.monotonic() >= deadline:
            return None, True
        time.sleep(0.01)


def _kill_group(pgid: int) -> bool:
    """Kill every process left in the case's group; True when there were some."""
    try:
        os.killpg(pgid, signal.SIGKILL)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def serve_one(request: dict) -> dict:
    """Fork a child for one case, wait for it (killing its group on timeout) and
    describe what became of it."""
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()  # its own session and process group: the timeout kills them all
            run_case(request)
        finally:
            os._exit(70)
    status, timed_out = _wait(pid, float(request.get("timeout_s") or 120))
    if timed_out:
        _kill_group(pid)
        status = os.waitpid(pid, 0)[1]
    # Processes the case started and left behind are part of its group: end them too.
    leaked = _kill_group(pid)
    reply = {
        "name": request.get("name"),
        "timed_out": timed_out,
        "leaked_processes": leaked and not timed_out,
        "wall_s": round(time.monotonic() - started, 3),
    }
    if os.WIFSIGNALED(status):
        reply["signal"] = os.WTERMSIG(status)
    else:
        reply["exit_status"] = os.WEXITSTATUS(status)
    return reply


def serve(preload: list[str]) -> None:
    protocol = os.fdopen(os.dup(1), "w", buffering=1)
    # vLLM logs to stdout; keep the protocol stream for replies only.
    os.dup2(2, 1)
    ready: dict = {"ready": True, "preloaded": [], "preload_errors": {}}
    started = time.monotonic()
    for module in preload:
        try:
            __import__(module)
            ready["preloaded"].append(module)
        except BaseException as exc:  # noqa: BLE001 - reported, a case will show it
            ready["preload_errors"][module] = f"{type(exc).__name__}: {exc}"
    ready["import_s"] = round(time.monotonic() - started, 3)
    ready["environment"] = environment() if "vllm" in preload else {}
    protocol.write(json.dumps(ready) + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        protocol.write(json.dumps(serve_one(json.loads(line))) + "\n")


def main(argv: list[str]) -> int:
    if argv[:1] == ["--serve"]:
        preload = argv[argv.index("--preload") + 1].split(",") if "--preload" in argv else []
        serve([m for m in preload if m])
        return 0
    if argv[:1] == ["--single"] and len(argv) == 2:
        with open(argv[1], encoding="utf-8") as handle:
            run_case(json.load(handle))
    if argv[:1] == ["--environment"]:
        print(json.dumps(environment()))
        return 0
    print("usage: child.py --serve [--preload MOD,...] | --single REQUEST.json | --environment", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
