"""The harness's runners on small real programs: a case that raises, hangs, crashes,
leaks a child process, or passes a traced function. The child script is stdlib-only,
so this interpreter stands in for vLLM's. Every case runs in the sandbox
(``generator/repro/sandbox.py``; bwrap where it works); ``tests/test_sandbox.py`` attacks it."""

from __future__ import annotations

import os
import sys
import textwrap
import time
from pathlib import Path

import pytest

from generator.repro.harness import CaseRequest, ForkServerRunner, ProcessRunner, Progress
from generator.repro.cases import ReproCase


def python_case(code: str, role: str = "error", timeout_s: float = 30, **extra) -> ReproCase:
    return ReproCase(role=role, kind="python", code=textwrap.dedent(code), timeout_s=timeout_s, **extra)


def request(case: ReproCase, cwd: Path | None = None, watch=(), name="t") -> CaseRequest:
    """``cwd`` is not used: a case runs in a fresh folder of its sandbox."""
    return CaseRequest(name, case, tuple(watch), (("ERRORKB_TEST_BASE", "base"),))


@pytest.fixture(scope="module")
def fork_server():
    with ForkServerRunner(sys.executable, preload=("json",)) as runner:
        yield runner


@pytest.fixture(params=["fork", "process"])
def runner(request, fork_server):
    return fork_server if request.param == "fork" else ProcessRunner(sys.executable)


def test_a_case_that_raises_is_recorded_with_its_traceback(runner, tmp_path):
    run = runner.run(request(python_case("def f():\n    raise ValueError('max_num_seqs (256) exceeds 128')\nf()"), tmp_path))
    assert run.outcome == "raised"
    assert run.exception["type"] == "ValueError"
    assert run.exception["message"] == "max_num_seqs (256) exceeds 128"
    assert "Traceback (most recent call last)" in run.exception["traceback"]
    assert "in f" in run.exception["traceback"]


def test_a_case_that_returns_sees_its_env_and_its_own_folder(runner, tmp_path):
    case = python_case("""
        import os, pathlib
        pathlib.Path('seen').write_text(os.environ['ERRORKB_TEST_BASE'] + os.environ['VLLM_MINE'])
        print('seen:', pathlib.Path('seen').read_text(), os.getcwd() == os.environ['HOME'] == os.environ['TMPDIR'])
        print('models:', sorted(os.listdir('models')))
    """, env=(("VLLM_MINE", "+case"),))
    run = runner.run(request(case, tmp_path))
    assert run.outcome == "returned", run.log_tail
    assert "seen: base+case True" in run.log_tail
    assert "'qwen2.5-0.5b'" in run.log_tail  # the project's models/, copied into the case's folder
    assert not (tmp_path / "seen").exists()


def test_a_case_that_hangs_is_killed_at_its_timeout_and_the_run_goes_on(runner, tmp_path):
    started = time.monotonic()
    run = runner.run(request(python_case("import time\nprint('waiting', flush=True)\ntime.sleep(600)", timeout_s=1.5), tmp_path))
    assert run.outcome == "timeout"
    assert time.monotonic() - started < 30
    assert "waiting" in run.log_tail
    after = runner.run(request(python_case("x = 1"), tmp_path))
    assert after.outcome == "returned"


def test_a_case_that_crashes_is_recorded_as_a_crash(runner, tmp_path):
    run = runner.run(request(python_case("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)"), tmp_path))
    assert run.outcome == "crashed"
    assert "SIGSEGV" in run.reason


def test_a_case_that_exits_early_without_a_result_is_a_crash(runner, tmp_path):
    run = runner.run(request(python_case("import os\nos._exit(3)"), tmp_path))
    assert run.outcome == "crashed"
    assert "exit status 3" in run.reason


def test_sys_exit_is_an_exit_not_a_crash(runner, tmp_path):
    run = runner.run(request(python_case("import sys\nsys.exit(4)"), tmp_path))
    assert (run.outcome, run.exit_code) == ("exited", 4)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0); it is dead for our purpose.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def _running(argv: list[str]) -> list[int]:
    """Processes of this machine whose command line is exactly ``argv`` (zombies are dead)."""
    found = []
    wanted = b"\0".join(a.encode() for a in argv) + b"\0"
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != os.getpid():
            try:
                if Path(f"/proc/{name}/cmdline").read_bytes() == wanted and _alive(int(name)):
                    found.append(int(name))
            except OSError:
                continue
    return found


def test_a_child_process_left_behind_is_killed_with_the_case(runner, tmp_path):
    # A duration no other process on the machine holds, so a concurrent build or test
    # run cannot be mistaken for the leaked child.
    seconds = f"3001.{os.getpid()}{time.monotonic_ns() % 1_000_000}"
    code = f"""
    import subprocess
    child = subprocess.Popen(["sleep", "{seconds}"])
    """
    run = runner.run(request(python_case(code), tmp_path))
    assert run.outcome == "returned"
    assert run.leaked_processes and run.leaked == ["sleep"]
    assert _running(["sleep", seconds]) == [], "the leaked child is still running"


def test_a_child_process_that_ends_right_after_the_case_is_not_left_behind(runner, tmp_path):
    """What the case started and is ending anyway (here a child with half a second to go, as
    multiprocessing's resource tracker has once its last user is gone) is no leak: it gets
    LEAK_GRACE_S to end on its own."""
    from generator.repro.child import LEAK_GRACE_S

    code = """
    import subprocess
    child = subprocess.Popen(["sleep", "0.5"])
    """
    assert LEAK_GRACE_S > 0.5
    run = runner.run(request(python_case(code), tmp_path))
    assert run.outcome == "returned"
    assert not run.leaked_processes and run.leaked == []


def test_a_command_line_case_runs_nothing_but_vllm(runner, tmp_path):
    case = ReproCase(role="fix", kind="cli", argv=(sys.executable, "-c", "import sys; print('a;b'); sys.exit(5)"), reach="exit-0")
    run = runner.run(request(case, tmp_path))
    assert run.outcome == "crashed" and run.reason.startswith("refused: a command-line case must start with vllm")
    assert "a;b" not in run.log_tail


BUDGET = """\
class Budget:
    def check(self, seqs, blocks):
        if seqs > blocks:
            raise ValueError(f"max_num_seqs ({seqs}) exceeds available Mamba cache blocks ({blocks})")
        return blocks - seqs
"""


def _module(tmp_path: Path) -> str:
    """Code that writes a little vllm/config/budget.py into the case's own folder (nothing
    of this machine's /tmp is in the sandbox) and puts it on sys.path."""
    return ("import os, sys; os.makedirs('lib/vllm/config')\n"
            f"open('lib/vllm/config/budget.py', 'w').write({BUDGET!r})\n"
            "sys.path.insert(0, os.path.abspath('lib'))\n")


WATCH = [{"path": "vllm/config/budget.py", "function": "Budget.check", "raise_lines": [4]}]


def test_the_watched_function_is_seen_returning_normally(runner, tmp_path):
    code = _module(tmp_path) + "from vllm.config.budget import Budget\nBudget().check(8, 128)\nBudget().check(1, 2)"
    run = runner.run(request(python_case(code, role="fix", reach="return"), tmp_path, WATCH))
    assert run.outcome == "returned", run.log_tail
    [watched] = run.watch
    assert (watched["entered"], watched["returned"], watched["escaped"], watched["raise_executed"]) == (2, 2, 0, 0)


def test_the_watched_raise_statement_is_seen_executing(runner, tmp_path):
    code = (_module(tmp_path) + "from vllm.config.budget import Budget\n"
            "try:\n    Budget().check(256, 128)\nexcept ValueError:\n    pass")
    run = runner.run(request(python_case(code, role="fix", reach="return"), tmp_path, WATCH))
    [watched] = run.watch
    assert (watched["entered"], watched["returned"], watched["escaped"], watched["raise_executed"]) == (1, 0, 1, 1)


CHECKED = """\
def check(seqs, blocks):
    assert seqs <= blocks, f"max_num_seqs ({seqs}) exceeds {blocks}"
    return blocks - seqs
"""


def test_a_watched_assert_counts_only_when_it_fails(runner, tmp_path):
    """An assert's line runs when it passes too: only an exception raised there is the raise."""
    code = ("import os, sys; os.makedirs('lib/vllm/config')\n"
            f"open('lib/vllm/config/checked.py', 'w').write({CHECKED!r})\n"
            "sys.path.insert(0, os.path.abspath('lib'))\n"
            "from vllm.config.checked import check\ncheck(8, 128)\ntry:\n    check(256, 128)\nexcept AssertionError:\n    pass")
    watch = [{"path": "vllm/config/checked.py", "function": "check", "raise_lines": [], "assert_lines": [2]}]
    run = runner.run(request(python_case(code, role="fix", reach="return"), tmp_path, watch))
    [watched] = run.watch
    assert (watched["entered"], watched["returned"], watched["escaped"], watched["raise_executed"]) == (2, 1, 1, 1)
    assert watched["assert_lines"] == [2]


ROUTE = """\
import asyncio

async def rerank(seqs):
    await asyncio.sleep(0)
    if seqs > 4:
        raise ValueError(f"too many: {seqs}")
    return await asyncio.ensure_future(asyncio.sleep(0, result=seqs))
"""


def test_a_watched_coroutine_that_awaits_is_seen_returning(runner, tmp_path):
    """A coroutine resumed after an await sees a StopIteration (the awaited value): with
    ``return await``, the return follows it at once, and no exception escaped."""
    code = ("import asyncio, os, sys; os.makedirs('lib/vllm/entrypoints')\n"
            f"open('lib/vllm/entrypoints/route.py', 'w').write({ROUTE!r})\n"
            "sys.path.insert(0, os.path.abspath('lib'))\n"
            "from vllm.entrypoints.route import rerank\nasyncio.run(rerank(2))")
    watch = [{"path": "vllm/entrypoints/route.py", "function": "rerank", "raise_lines": [6]}]
    run = runner.run(request(python_case(code, role="fix", reach="return"), tmp_path, watch))
    assert run.outcome == "returned", run.log_tail
    [watched] = run.watch
    assert watched["escaped"] == 0 and watched["returned"] >= 1 and watched["raise_executed"] == 0
    run = runner.run(request(python_case(code.replace("rerank(2)", "rerank(9)"), role="fix", reach="return"), tmp_path, watch))
    [watched] = run.watch
    assert watched["escaped"] == 1 and watched["raise_executed"] == 1

def test_the_fork_server_reports_what_it_preloaded():
    with ForkServerRunner(sys.executable, preload=("json", "email.mime.text")) as runner:
        assert runner.ready["preloaded"] == ["json", "email.mime.text"]


def test_a_preload_that_fails_stops_the_server_with_the_module_named():
    from generator.repro.harness import HarnessError

    with pytest.raises(HarnessError, match="no_such_module_xyz"):
        ForkServerRunner(sys.executable, preload=("no_such_module_xyz",)).start()


def test_progress_prints_a_line_per_step(capsys):
    progress = Progress(2, stream=sys.stdout)
    progress.step("a", True)
    progress.step("b", False)
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("1/2 a ok") and out[1].endswith("2/2 b FAILED")


@pytest.mark.slow  # starts a local Ray cluster
def test_ray_runs_each_case_as_a_task(tmp_path):
    try:
        import ray  # noqa: F401
    except ImportError:
        pytest.fail("Ray is missing: pip install -e '.[test]' installs it (the --executor ray tests need a local Ray)")
    from generator.repro.harness import RayRunner

    runner = RayRunner(sys.executable)
    try:
        runs = runner.run_all([
            request(python_case("raise KeyError('boom')"), tmp_path, name="a"),
            request(python_case("import time\ntime.sleep(600)", timeout_s=2), tmp_path, name="b"),
            request(python_case("x = 2"), tmp_path, name="c"),
        ])
    finally:
        runner.close()
    assert [r.outcome for r in runs] == ["raised", "timeout", "returned"]
    assert runs[0].exception["type"] == "KeyError"


# --- the CUDA tier's GPU bookkeeping, with nvidia-smi's output format ------------------------------
# No GPU here: a script on PATH answers nvidia-smi's query as a driver does, so the
# harness's reading of it (skips, memory before and after) is tested; the GPU runs
# themselves happen where there is one (`errorkb verify --tier cuda`).

FAKE_SMI = """#!/bin/sh
case "$*" in
  *compute_cap*) echo "0, NVIDIA L4, 1200, 23034, 550.54.15, 8.9" ;;
  *) echo "0, NVIDIA L4, 1200, 23034, 550.54.15" ;;
esac
"""


@pytest.fixture
def fake_gpu(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    smi = bin_dir / "nvidia-smi"
    smi.write_text(FAKE_SMI)
    smi.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")


def test_gpu_snapshot_reads_nvidia_smi(fake_gpu):
    from generator.repro.harness import gpu_snapshot

    assert gpu_snapshot() == [{"index": 0, "name": "NVIDIA L4", "used_mib": 1200, "total_mib": 23034,
                               "driver": "550.54.15", "compute_capability": 8.9}]


def test_cuda_cases_sized_for_another_gpu_are_skipped_saying_why(fake_gpu, tmp_path):
    runner = ProcessRunner(sys.executable, watch_gpu=True)
    big = python_case("x = 1", min_gpu_memory_gib=80)
    run = runner.run(request(big, tmp_path))
    assert (run.outcome, run.reason) == ("not-run", "needs 80 GiB of GPU memory, NVIDIA L4 has 22 GiB")
    old = python_case("x = 1", max_compute_capability=7.5)
    assert runner.run(request(old, tmp_path)).reason == "is for GPUs of compute capability 7.5 or lower, NVIDIA L4 has 8.9"
    fits = runner.run(request(python_case("x = 1", min_gpu_memory_gib=16), tmp_path))
    assert fits.outcome == "returned"
    assert fits.gpu_memory == {"before_mib": 1200, "after_mib": 1200}
