"""The side of the reproduction harness that runs inside the vLLM interpreter, inside the sandbox.

This file is run by path with the interpreter that has the pinned vLLM (see
``generator/vllm/env.py``), never imported by errorkb itself, so it uses the standard
library only. ``generator/repro/sandbox.py`` starts it (under ``bwrap`` where it can)
and ``generator/repro/harness.py`` talks to it. Modes:

``--serve``      a fork server: import what the cases need once (``--preload``), then for
                 each request read from standard input fork a child that runs one case;
                 a reply per request on the protocol stream (the original stdout).
``--single``     the same for one request read from standard input (the CUDA tier and
                 Ray tasks: one process per case), its reply on standard output.
``--environment`` what this interpreter runs (vLLM, Python, torch, GPU), as JSON.

``--config JSON`` describes the sandbox a case gets (``sandbox.py`` writes it):
``cases_dir`` (where each case gets a fresh folder), ``models_dir`` (read-only model
configurations, copied into the case's folder as ``models/``), ``base_env`` (the
allowlisted environment), ``drop_to`` ([uid, gid] a case runs as, when this process is
root), ``limits`` (rlimits) and ``max_timeout_s``.

A request (JSON) holds: ``name``, ``kind`` (``python`` or ``cli``), ``code`` or ``argv``,
``tier_env`` and ``env`` (the case's own variables), ``timeout_s``, ``stop_at``
(``engine-config`` or ``health`` or null) and ``watch`` (the functions to trace, with
the raise lines to look for).

How a case runs (``serve_one``): this process, the case's supervisor inside the sandbox,
forks a child. The child starts a session of its own, points standard output and error at
a pipe (the log), keeps one more pipe (the report), closes every other descriptor (the
protocol stream and the requests are out of its reach), replaces its environment by the
allowlisted one, sets its rlimits, gives up root for ``drop_to`` (so it cannot signal,
trace or read this process), makes its fresh folder and goes into it, says so on the
report pipe (``ENTERED``: without it, the case never ran and the run stops), and only
then runs the case. This process reads both pipes while it waits, kills the case at its timeout,
and when the case ends kills every process it left behind (after ``LEAK_GRACE_S`` for those
that are ending on their own): it is a child subreaper, so
processes that left the case's group or session (``setsid``) are still its descendants;
their names are reported as leaked. Then the case's folder is removed.

What the reply says about the case's exit (status, signal, timeout, leaks, time) is
observed here. The report (how the case ended: ``returned``, ``reached``, ``raised``,
``exited``; the exception; what the watched functions did) is written by the case's own
process, so code that runs in it (a ``python:`` snippet) can write a report of its own:
a snippet is trusted as far as its reviewers read it. It cannot write the record.
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import threading
import time
import traceback

SANDBOX_FAILED = 71  # the child's exit status when it could not enter the sandbox; the case never ran
ENTERED = b"entered\n"  # the first line on the report pipe: the sandbox is set up, the case starts
LOG_KEEP_BYTES = 64 * 1024  # the end of a case's output kept for the reply
REPORT_MAX_BYTES = 8 * 1024 * 1024
DEFAULT_TIMEOUT_S = 120.0
MAX_TIMEOUT_S = 900.0
# After the case's process ends, what it started and is ending too (multiprocessing's resource
# tracker, which exits once its last user has gone; a worker that its parent's exit stopped)
# gets this long to end on its own before it counts as left behind: on a busy machine such a
# process was still alive at the first look, and a case that leaks nothing was reported leaking.
LEAK_GRACE_S = 3.0


class StopPointReached(BaseException):
    """Raised inside the case when it reaches its stop point; a BaseException so that
    vLLM's own ``except Exception`` handlers do not swallow it."""


# ---------------------------------------------------------------- watching functions

# A coroutine that resumes after an await (or an ``async for`` that ends) sees one of these
# as an exception event in its own frame; it is how Python hands over the awaited value.
_RESUMED = (StopIteration, StopAsyncIteration)


class FunctionWatch:
    """Traces the functions that raise an error, to tell whether a fix case got past them.

    A watched function is named by its file (``vllm/config/model.py``) and qualified
    name; ``raise_lines`` are the lines of its raise statements, ``assert_lines`` those of
    its asserts (executed only when an exception is raised there: a passing assert runs its
    line too). For each, it counts calls, normal returns, exceptions that escaped, and raise
    lines executed.
    """

    def __init__(self, watch: list[dict]):
        self.targets = [
            {
                "path": item["path"],
                "function": item.get("function") or "",
                "raise_lines": set(item.get("raise_lines") or ()),
                "assert_lines": set(item.get("assert_lines") or ()),
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
                if arg[0] in _RESUMED:
                    return local  # a coroutine resumed after an await: its value, no error
                self._escaping.add(id(frame))
                if frame.f_lineno in target["assert_lines"]:
                    target["raise_executed"] += 1
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


def _start_health_poller(argv: list[str], result: dict, report_fd: int) -> None:
    """A server case reaches its stop point when ``GET /health`` answers 200."""
    import urllib.request

    url = f"http://127.0.0.1:{_health_port(argv)}/health"

    def poll():
        while True:
            try:
                with urllib.request.urlopen(url, timeout=2) as response:
                    if response.status == 200:
                        result.update(outcome="reached", reached="health", detail={"url": url})
                        _finish(result, report_fd)
            except Exception:
                pass
            time.sleep(0.5)

    threading.Thread(target=poll, daemon=True).start()


# ---------------------------------------------------------------- running one case (in the case's process)

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


_finishing = threading.Lock()


def _finish(result: dict, report_fd: int) -> None:
    """Write the report and end the process at once: vLLM may have started threads
    and processes that a normal interpreter exit would wait for."""
    if not _finishing.acquire(blocking=False):
        time.sleep(3600)  # another thread is finishing; it ends the process
    try:
        result["duration_s"] = round(time.monotonic() - result.pop("_started", time.monotonic()), 3)
        watch = result.pop("_watch", None)
        if watch is not None:
            watch.stop()
            result["watch"] = watch.report()
        data = (json.dumps(result, default=str) + "\n").encode("utf-8")
        while data:
            data = data[os.write(report_fd, data):]
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(0)


def run_case(request: dict, report_fd: int) -> None:
    """Run one case in this process and end it; the report goes to ``report_fd``."""
    result: dict = {"name": request.get("name"), "_started": time.monotonic()}
    state: dict = {}
    watch = FunctionWatch(request.get("watch") or [])
    result["_watch"] = watch
    stop_at = request.get("stop_at")
    kind = request["kind"]
    try:
        if kind == "cli" and list(request.get("argv") or [])[:1] != ["vllm"]:
            # errorkb check refuses such a case; this is the same rule, where the case runs.
            raise SystemExit("errorkb sandbox: a command-line case runs vLLM's own command line only: cli must start with vllm")
        if stop_at == "engine-config":
            _install_engine_config_stop(state)
        if stop_at == "health":
            _start_health_poller(request["argv"], result, report_fd)
        watch.start()
        if kind == "python":
            namespace = {"__name__": "__main__"}
            exec(compile(request["code"], f"<case {request.get('name')}>", "exec"), namespace)
            result["outcome"] = "returned"
        else:
            from vllm.entrypoints.cli.main import main

            sys.argv = list(request["argv"])
            main()
            result["outcome"] = "returned"
    except StopPointReached:
        result.update(outcome="reached", reached=state.get("reached"), detail=state.get("detail"))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if isinstance(exc.code, str):
            print(exc.code, file=sys.stderr)
        result.update(outcome="exited", exit_code=code)
        if exc.__context__ is not None:
            result["exception"] = _exception_record(exc.__context__)
    except BaseException as exc:  # noqa: BLE001 - the case's exception is what we record
        result.update(outcome="raised", exception=_exception_record(exc))
    _finish(result, report_fd)


# ---------------------------------------------------------------- entering the sandbox (in the case's process)

RLIMITS = {  # limits key -> resource name
    "nproc": "RLIMIT_NPROC", "address_space": "RLIMIT_AS", "cpu_s": "RLIMIT_CPU",
    "file_size": "RLIMIT_FSIZE", "nofile": "RLIMIT_NOFILE", "core": "RLIMIT_CORE",
}


def _tasks_of(uid: int) -> int:
    """Threads of processes whose real uid is ``uid``, as far as this /proc shows them
    (RLIMIT_NPROC counts them all against a new limit)."""
    count = 0
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status", encoding="utf-8", errors="replace") as handle:
                fields = dict(line.split(":", 1) for line in handle if ":" in line)
            if int(fields["Uid"].split()[0]) == uid:
                count += int(fields["Threads"])
        except (OSError, KeyError, ValueError):
            continue
    return count


def _set_limits(limits: dict, timeout_s: float, uid: int) -> None:
    import resource

    for key, name in RLIMITS.items():
        value = limits.get(key)
        if key == "cpu_s" and value is None and limits.get("cpu_s_per_timeout_s"):
            value = int(timeout_s * limits["cpu_s_per_timeout_s"]) + 30
        if value is None:
            continue
        value = int(value)
        if key == "nproc":
            value += _tasks_of(uid)  # the limit is per user: room for the case's own on top
        what = getattr(resource, name)
        _, hard = resource.getrlimit(what)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(what, (value, value))


def _drop_privileges(uid: int, gid: int) -> None:
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    if os.getuid() != uid or os.geteuid() != uid:
        raise OSError(f"still uid {os.getuid()} after setuid({uid})")
    try:
        os.setuid(0)
    except PermissionError:
        return
    raise OSError("could set uid 0 again after dropping it")


def _copy_models(source: str, target: str) -> None:
    """A read-only copy of the model configurations: folders and regular files only."""
    os.mkdir(target, 0o755)
    if source and os.path.isdir(source):
        for name in sorted(os.listdir(source)):
            folder = os.path.join(source, name)
            if os.path.islink(folder) or not os.path.isdir(folder):
                continue
            os.mkdir(os.path.join(target, name), 0o755)
            for file in sorted(os.listdir(folder)):
                path = os.path.join(folder, file)
                if os.path.islink(path) or not os.path.isfile(path):
                    continue
                with open(path, "rb") as src, open(os.path.join(target, name, file), "xb") as dst:
                    dst.write(src.read())
                os.chmod(os.path.join(target, name, file), 0o444)
            os.chmod(os.path.join(target, name), 0o555)
    os.chmod(target, 0o555)


def _prctl(option: int, value: int) -> bool:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, value, 0, 0, 0) == 0
    except Exception:  # noqa: BLE001 - not Linux, or no libc: the caller says what it lacks
        return False


PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36


def enter_sandbox(request: dict, config: dict, case_dir: str, log_fd: int, report_fd: int) -> None:
    """Everything between fork and the case's first line (see the module's docstring)."""
    os.setsid()
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(log_fd, 1)
    os.dup2(log_fd, 2)
    for fd in (null, log_fd):
        if fd > 2:
            os.close(fd)
    # Every descriptor this process inherited but the report: the protocol stream, the
    # requests, whatever the preloaded modules opened.
    os.closerange(3, report_fd)
    os.closerange(report_fd + 1, 1 << 16)
    sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
    sys.stderr = os.fdopen(2, "w", buffering=1, closefd=False)
    os.environ.clear()
    os.environ.update(config.get("base_env") or {})
    os.environ.update(request.get("tier_env") or {})
    os.environ.update(request.get("env") or {})
    os.environ.update({"HOME": case_dir, "TMPDIR": case_dir, "PWD": case_dir})
    if config.get("vllm_cache"):
        os.environ["VLLM_CACHE_ROOT"] = config["vllm_cache"]  # read-only to the case (see warm_model_info)
    drop = config.get("drop_to") if os.geteuid() == 0 else None
    timeout_s = min(float(request.get("timeout_s") or DEFAULT_TIMEOUT_S), float(config.get("max_timeout_s") or MAX_TIMEOUT_S))
    _set_limits(config.get("limits") or {}, timeout_s, drop[0] if drop else os.getuid())
    if drop:
        _drop_privileges(int(drop[0]), int(drop[1]))
    _prctl(PR_SET_DUMPABLE, 1)  # its own processes may inspect it; the server stays undumpable
    os.umask(0o077)
    os.mkdir(case_dir, 0o700)
    os.chdir(case_dir)
    _copy_models(config.get("models_dir") or "", os.path.join(case_dir, "models"))


# ---------------------------------------------------------------- the case's supervisor inside the sandbox

def _proc_table() -> dict[int, tuple[int, str, str]]:
    """pid -> (parent pid, state, name) of every process this /proc shows."""
    table = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                stat = handle.read().decode("utf-8", "replace")
        except OSError:
            continue
        comm = stat[stat.find("(") + 1: stat.rfind(")")]
        fields = stat[stat.rfind(")") + 2:].split()
        try:
            table[int(name)] = (int(fields[1]), fields[0], comm)
        except (IndexError, ValueError):
            continue
    return table


def descendants(root: int, exclude: frozenset = frozenset()) -> dict[int, str]:
    """The live (not zombie) descendants of ``root`` but those under ``exclude``: pid -> name."""
    table = _proc_table()
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    found, todo = {}, list(children.get(root, ()))
    while todo:
        pid = todo.pop()
        if pid in exclude:
            continue
        _, state, comm = table[pid]
        if state not in ("Z", "X"):
            found[pid] = comm
        todo.extend(children.get(pid, ()))
    return found


class Reaper:
    """Collects the exit status of this process's children (and of orphans it inherits as a subreaper)."""

    def __init__(self):
        self.statuses: dict[int, int] = {}

    def reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            self.statuses[pid] = status


def _let_end(reaper: Reaper, exclude: frozenset, grace_s: float) -> None:
    """Wait up to ``grace_s`` for this process's descendants (but ``exclude``) to end on their own."""
    end = time.monotonic() + grace_s
    while descendants(os.getpid(), exclude) and time.monotonic() < end:
        time.sleep(0.02)
        reaper.reap()
    reaper.reap()


def kill_descendants(reaper: Reaper, exclude: frozenset = frozenset(), deadline_s: float = 60.0) -> list[str]:
    """Kill every descendant of this process (but ``exclude``); the names of those alive at
    the first look.

    First every one is stopped (SIGSTOP), again until no new one shows up: a stopped
    process forks no more, so a fork bomb is frozen whole; then all are killed (SIGKILL)
    until none is left. "None" is two empty looks in a row: one look at /proc is not a
    snapshot, and a process whose parent was exiting may be missed once.
    """
    names: list[str] | None = None
    me = os.getpid()
    end = time.monotonic() + deadline_s
    for sig in (signal.SIGSTOP, signal.SIGKILL):
        done: set[int] = set()
        empty = 0
        while empty < 2 and time.monotonic() < end:
            alive = descendants(me, exclude)
            if names is None:
                names = sorted(alive.values())
            todo = [pid for pid in alive if sig == signal.SIGKILL or pid not in done]
            if not todo:
                empty += 1
                time.sleep(0.002)
                continue
            empty = 0
            for pid in todo:
                try:
                    os.kill(pid, sig)
                except (ProcessLookupError, PermissionError):
                    pass
                done.add(pid)
            if sig == signal.SIGKILL:
                time.sleep(0.005)
                reaper.reap()
    reaper.reap()
    return names or []


class _Pipe:
    """The read end of a pipe, drained while the case runs; keeps the first ``cap`` bytes or the last ``keep``."""

    def __init__(self, fd: int, keep: int | None = None, cap: int | None = None):
        self.fd, self.keep, self.cap = fd, keep, cap
        self.data = bytearray()
        self.overflow = False
        os.set_blocking(fd, False)

    def read(self) -> None:
        while self.fd is not None:
            try:
                chunk = os.read(self.fd, 65536)
            except BlockingIOError:
                return
            if not chunk:
                os.close(self.fd)
                self.fd = None
                return
            self.data += chunk
            if self.keep and len(self.data) > 2 * self.keep:
                del self.data[:-self.keep]
            if self.cap and len(self.data) > self.cap:
                self.overflow = True
                del self.data[self.cap:]

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _parse_report(data: bytes, overflow: bool) -> tuple[dict | None, str]:
    if overflow:
        return None, f"its report was over {REPORT_MAX_BYTES} bytes"
    lines = [line for line in bytes(data).split(b"\n") if line.strip()]
    if not lines:
        return None, ""
    if len(lines) > 1:
        return None, f"it wrote {len(lines)} reports instead of one"
    try:
        report = json.loads(lines[0])
    except ValueError:
        return None, "its report is not JSON"
    return (report, "") if isinstance(report, dict) else (None, "its report is not a JSON object")


class CaseSupervisor:
    """Runs cases one at a time in forked, sandboxed children (``serve_one``)."""

    def __init__(self, config: dict):
        self.config = config
        self.reaper = Reaper()
        self.count = 0
        self.subreaper = _prctl(PR_SET_CHILD_SUBREAPER, 1)
        _prctl(PR_SET_DUMPABLE, 0)  # a case running as this same user cannot open this process's descriptors
        self.own = frozenset()  # processes this one started itself (none, unless a preloaded module did)
        self.tmp_before: dict[str, set] = {}

    def ready(self) -> None:
        """After the preload: what is this process's own, not a case's."""
        self.own = frozenset(descendants(os.getpid()))
        for folder in self.config.get("clean_dirs") or ():
            try:
                self.tmp_before[folder] = set(os.listdir(folder))
            except OSError:
                self.tmp_before[folder] = set()

    def serve_one(self, request: dict) -> dict:
        """Fork a sandboxed child for one case, wait for it (killing it at its timeout) and
        describe what became of it."""
        self.count += 1
        started = time.monotonic()
        timeout_s = min(float(request.get("timeout_s") or DEFAULT_TIMEOUT_S),
                        float(self.config.get("max_timeout_s") or MAX_TIMEOUT_S))
        case_dir = os.path.join(self.config["cases_dir"], f"case-{os.getpid()}-{self.count}")
        log_r, log_w = os.pipe()
        report_r, report_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(log_r)
                os.close(report_r)
                enter_sandbox(request, self.config, case_dir, log_w, report_w)
            except BaseException as exc:  # noqa: BLE001 - the case must not run outside its sandbox
                try:  # to the log once it is standard output, else to this server's standard error
                    os.write(1, f"errorkb sandbox: the case could not enter its sandbox: {exc!r}\n".encode())
                finally:
                    os._exit(SANDBOX_FAILED)
            try:
                os.write(report_w, ENTERED)  # from here on, an early exit is the case's, not the sandbox's
                run_case(request, report_w)
            finally:
                os._exit(70)
        os.close(log_w)
        os.close(report_w)
        log, report = _Pipe(log_r, keep=LOG_KEEP_BYTES), _Pipe(report_r, cap=REPORT_MAX_BYTES)
        deadline = started + timeout_s
        timed_out = False
        while pid not in self.reaper.statuses:
            fds = [p.fd for p in (log, report) if p.fd is not None]
            if fds:
                select.select(fds, [], [], 0.05)
            else:
                time.sleep(0.02)
            log.read()
            report.read()
            self.reaper.reap()
            if pid not in self.reaper.statuses and time.monotonic() >= deadline:
                timed_out = True
                break
        wall = round(time.monotonic() - started, 3)
        if not timed_out:
            _let_end(self.reaper, self.own, LEAK_GRACE_S)
        # Whatever is left (everything at a timeout): killed, the case's process too.
        leaked = kill_descendants(self.reaper, self.own)
        while pid not in self.reaper.statuses:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            time.sleep(0.01)
            self.reaper.reap()
        status = self.reaper.statuses.pop(pid)
        for pipe in (log, report):  # every writer is gone: read to the end
            end = time.monotonic() + 5
            while pipe.fd is not None and time.monotonic() < end:
                select.select([pipe.fd], [], [], 0.05)
                pipe.read()
            pipe.close()
        self.reaper.statuses.clear()
        self._clean(case_dir)
        entered = bytes(report.data[:len(ENTERED)]) == ENTERED
        parsed, bad_report = _parse_report(report.data[len(ENTERED):] if entered else b"", report.overflow)
        reply = {
            "name": request.get("name"),
            "timed_out": timed_out,
            "timeout_s": timeout_s,
            "leaked": [] if timed_out else leaked,
            "wall_s": wall,
            "log_tail": bytes(log.data[-LOG_KEEP_BYTES:]).decode("utf-8", "replace"),
            "report": parsed,
        }
        if bad_report:
            reply["bad_report"] = bad_report
        if os.WIFSIGNALED(status):
            reply["signal"] = os.WTERMSIG(status)
        else:
            reply["exit_status"] = os.WEXITSTATUS(status)
        if not entered and not timed_out:
            reply["sandbox_failed"] = True  # the case never ran
        return reply

    def _clean(self, case_dir: str) -> None:
        """Remove the case's folder and what it left in the sandbox's own temporary
        folders, as the user the case ran as (root here may not enter its folders)."""
        drop = self.config.get("drop_to") if os.geteuid() == 0 else None
        pid = os.fork()
        if pid == 0:
            try:
                if drop:
                    _drop_privileges(int(drop[0]), int(drop[1]))
                _remove(case_dir)
                for folder, before in self.tmp_before.items():
                    for name in os.listdir(folder):
                        if name not in before:
                            _remove(os.path.join(folder, name))
            finally:
                os._exit(0)
        deadline = time.monotonic() + 60
        while pid not in self.reaper.statuses and time.monotonic() < deadline:
            time.sleep(0.01)
            self.reaper.reap()
        if pid not in self.reaper.statuses:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        self.reaper.statuses.pop(pid, None)


def _remove(path: str) -> None:
    import shutil

    def writable(function, name, exc_info):
        try:
            os.chmod(os.path.dirname(name), 0o700)
            os.chmod(name, 0o700)
            function(name)
        except OSError:
            pass

    try:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, onerror=writable)
        else:
            os.unlink(path)
    except OSError:
        pass


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

def _config(argv: list[str]) -> dict:
    if "--config" not in argv:
        raise SystemExit("child.py: --config JSON is required (generator/repro/sandbox.py writes it)")
    return json.loads(argv[argv.index("--config") + 1])


def warm_model_info(config: dict) -> dict:
    """Fill vLLM's model-info cache (``VLLM_CACHE_ROOT/modelinfos``) for the architectures of
    the model configurations, in this process, before any case runs.

    vLLM inspects a model class in a fresh interpreter (about ten seconds) unless its cache
    has it; a case's own cache would be empty every time. The cache folder belongs to this
    process (a case, as another user, only reads it), so no case can plant an answer in it
    for another. The CPU tier needs no subprocess to keep CUDA uninitialised.
    """
    import glob

    from vllm.model_executor.models import registry

    os.environ["VLLM_CACHE_ROOT"] = config["vllm_cache"]
    archs = set()
    for path in glob.glob(os.path.join(config.get("models_dir") or "", "*", "config.json")):
        try:
            with open(path, encoding="utf-8") as handle:
                archs.update(a for a in json.load(handle).get("architectures") or [] if isinstance(a, str))
        except (OSError, ValueError, AttributeError):
            continue
    # and vLLM's Transformers backend (`--model-impl transformers`), whatever the model
    archs.update(a for a in registry.ModelRegistry.models if a.startswith("Transformers"))
    warmed, errors = [], {}
    original = registry._run_in_subprocess
    registry._run_in_subprocess = lambda fn: fn()
    try:
        for arch in sorted(archs):
            model = registry.ModelRegistry.models.get(arch)
            if model is None:
                continue
            try:
                model.inspect_model_cls()
                warmed.append(arch)
            except Exception as exc:  # noqa: BLE001 - a case inspects it again, the usual way
                errors[arch] = f"{type(exc).__name__}: {exc}"[:300]
    finally:
        registry._run_in_subprocess = original
    for folder, dirs, files in os.walk(config["vllm_cache"]):  # vLLM writes them 0600: readable by the cases
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o644)
    return {"warmed": warmed, "warm_errors": errors}


def serve(preload: list[str], config: dict) -> None:
    protocol = os.fdopen(os.dup(1), "w", buffering=1)
    # vLLM logs to stdout; keep the protocol stream for replies only.
    os.dup2(2, 1)
    supervisor = CaseSupervisor(config)
    ready: dict = {"ready": True, "preloaded": [], "preload_errors": {}, "subreaper": supervisor.subreaper,
                   "uid": os.getuid(), "pid": os.getpid()}
    started = time.monotonic()
    for module in preload:
        try:
            __import__(module)
            ready["preloaded"].append(module)
        except BaseException as exc:  # noqa: BLE001 - reported, a case will show it
            ready["preload_errors"][module] = f"{type(exc).__name__}: {exc}"
    if config.get("vllm_cache") and "vllm" in ready["preloaded"]:
        try:
            ready.update(warm_model_info(config))
        except Exception as exc:  # noqa: BLE001 - cases inspect models the slow way
            ready["warm_errors"] = {"*": f"{type(exc).__name__}: {exc}"[:300]}
    ready["import_s"] = round(time.monotonic() - started, 3)
    ready["environment"] = environment() if "vllm" in preload else {}
    supervisor.ready()
    protocol.write(json.dumps(ready) + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        protocol.write(json.dumps(supervisor.serve_one(json.loads(line))) + "\n")


def single(config: dict) -> None:
    protocol = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    request = json.loads(sys.stdin.read())
    supervisor = CaseSupervisor(config)
    supervisor.ready()
    reply = supervisor.serve_one(request)
    reply["subreaper"] = supervisor.subreaper
    protocol.write(json.dumps(reply) + "\n")


def main(argv: list[str]) -> int:
    if argv[:1] == ["--serve"]:
        preload = argv[argv.index("--preload") + 1].split(",") if "--preload" in argv else []
        serve([m for m in preload if m], _config(argv))
        return 0
    if argv[:1] == ["--single"]:
        single(_config(argv))
        return 0
    if argv[:1] == ["--environment"]:
        print(json.dumps(environment()))
        return 0
    print("usage: child.py --serve [--preload MOD,...] --config JSON | --single --config JSON | --environment", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
