"""The sandbox every reproduction case runs in, on both tiers and every executor.

A case is text from a stranger's pull request: a ``python:`` snippet is code, and a
``cli:`` case runs vLLM's command line on arguments the stranger chose. So the process
that runs cases (``child.py``: the fork server of the CPU tier, or one process per case)
is started by ``Sandbox.command``:

- **bwrap** (Debian's ``bubblewrap``), when it works here: new network (only a loopback
  interface: no connection leaves the sandbox), PID, IPC, UTS and mount namespaces; a
  filesystem of read-only binds (``/usr``, a few files of ``/etc`` (``ETC``), the vLLM
  interpreter's own prefixes, so the vLLM environment is read-only) with no home folder
  and no repository, a private ``/proc`` and ``/dev``, size-capped tmpfs for ``/tmp``,
  ``/dev/shm`` and the cases' folders; a new session (no terminal to inject into); it
  dies with its parent, and every process in it dies when it ends. As root, it keeps
  only the capabilities to change user and to kill, and each case gives up root for
  uid 65534 (RLIMIT_NPROC binds no root process).
- **rlimits only**, where ``bwrap`` is missing or cannot make namespaces (said in the
  record's ``isolation``, on the badge and by ``errorkb verify``): the same process
  tree, environment, folders, limits and killing, but the case shares this machine's
  network, processes and filesystem, as uid 65534 when errorkb runs as root and the
  interpreter can run as that user, as root when it cannot (an interpreter under
  /root), as the invoking user otherwise.

In both, each case (``child.py``'s ``enter_sandbox``) gets: an environment built from an
allowlist (``PASS_THROUGH`` from the caller's, the tier's variables, the case's own
``env:``; ``HOME`` and ``TMPDIR`` its own folder), a fresh folder holding a read-only
copy of ``models/`` (only ``models/NAME/*.json``), the rlimits of ``Limits`` (processes,
address space, CPU time, file size, open files, no core dumps), a timeout of at most
``MAX_TIMEOUT_S``, and at its end every descendant killed, the names of those it left
behind recorded.

``mode``: ``auto`` (bwrap when it works, else rlimits only, saying why), ``bwrap`` (refuse
to run without it) or ``rlimits``. ``ERRORKB_SANDBOX`` sets the default.
"""

from __future__ import annotations

import fcntl
import glob
import json
import os
import re
import shutil
import subprocess
import tempfile
import weakref
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

from generator.errors import InputError
from generator.repro.cases import MAX_TIMEOUT_S
from generator.repro.child import _remove  # stdlib only: one rule for removing a case's folder

CHILD = Path(__file__).resolve().parent / "child.py"
MODES = ("auto", "bwrap", "rlimits")
NOBODY = (65534, 65534)  # the uid and gid a case runs as when errorkb runs as root
GIB = 1 << 30
# What a case may inherit from errorkb's own environment: the locale, the time zone, which
# GPUs it may use (set by Ray for a task) and the tier's variables; nothing else
# (no tokens, no LD_PRELOAD, no PYTHONPATH).
PASS_THROUGH = (
    "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ",
    "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES", "CUDA_DEVICE_ORDER",
    "VLLM_TARGET_DEVICE", "HF_HUB_OFFLINE", "VLLM_NO_USAGE_STATS", "DO_NOT_TRACK",
)
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# What of /etc a case sees (read-only): users and groups, the dynamic loader's cache, the
# time zone, the alternatives (links of /usr/bin), certificates, MIME types, the OS's name.
# Not the rest: a machine's /etc may hold configuration with credentials (pip.conf, ...).
ETC = ("passwd", "group", "nsswitch.conf", "hosts", "host.conf", "ld.so.cache", "ld.so.conf", "ld.so.conf.d",
       "localtime", "timezone", "alternatives", "ssl", "ca-certificates", "mime.types", "os-release", "lsb-release",
       "debian_version", "gai.conf")
INSIDE = "/errorkb"  # where the sandbox's own folders are, under bwrap


class HarnessError(InputError):
    """The harness itself cannot run (no interpreter, the fork server died, no GPU, no sandbox)."""


@dataclass(frozen=True)
class Limits:
    """What one case may use (``child.py`` sets them as rlimits in the case's process).

    ``nproc`` counts the case user's processes and threads on top of those it already
    has; ``address_space`` is virtual memory per process (None on the CUDA tier: CUDA
    reserves more address space than any machine has memory); ``cpu_s_per_timeout_s``
    CPU seconds per second of the case's timeout (threads count); ``tmpfs_bytes`` is the
    size of each writable tmpfs under bwrap (/tmp, /dev/shm, the cases' folders).
    """

    nproc: int = 1024
    address_space: int | None = 16 * GIB
    cpu_s_per_timeout_s: float = float(max(2, os.cpu_count() or 2))
    file_size: int = 1 * GIB
    nofile: int = 4096
    core: int = 0
    tmpfs_bytes: int = 4 * GIB

    @classmethod
    def for_tier(cls, tier: str) -> "Limits":
        # A vLLM server on a GPU runs several processes of many threads each.
        return cls(address_space=None, nproc=4096) if tier == "cuda" else cls()

    def rlimits(self) -> dict:
        out = asdict(self)
        out.pop("tmpfs_bytes")
        return out


def default_mode() -> str:
    mode = os.environ.get("ERRORKB_SANDBOX", "auto")
    if mode not in MODES:
        raise HarnessError(f"ERRORKB_SANDBOX={mode!r}: use one of {', '.join(MODES)}")
    return mode


def models_snapshot(folder: Path | None) -> dict[str, bytes]:
    """The model configurations a case may read: ``NAME/FILE.json`` -> bytes, from the
    regular files (no links) of ``models/NAME/``, each at most 4 MiB."""
    out: dict[str, bytes] = {}
    if folder is None or not Path(folder).is_dir():
        return out
    for model in sorted(Path(folder).iterdir()):
        if model.is_symlink() or not model.is_dir() or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", model.name):
            continue
        for file in sorted(model.iterdir()):
            if (file.is_symlink() or not file.is_file() or file.suffix != ".json"
                    or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", file.name) or file.stat().st_size > 4 << 20):
                continue
            out[f"{model.name}/{file.name}"] = file.read_bytes()
    return out


def _clean_env(source: dict[str, str]) -> dict[str, str]:
    return {name: source[name] for name in PASS_THROUGH if name in source and "\x00" not in source[name]}


@lru_cache(maxsize=8)
def _python_paths(python: str) -> tuple[str, ...]:
    """The folders the interpreter reads: its prefixes and ``sys.path``."""
    code = "import sys, json; print(json.dumps([sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, *sys.path]))"
    try:
        out = subprocess.run([python, "-I", "-c", code], capture_output=True, text=True, timeout=120,
                             env={"PATH": SYSTEM_PATH, "LANG": "C.UTF-8"})
        paths = json.loads(out.stdout.strip().splitlines()[-1])
    except (OSError, ValueError, IndexError, subprocess.SubprocessError):
        raise HarnessError(f"{python} does not run: cannot read its prefix and sys.path") from None
    return tuple(paths)


def _binds(python: str, repo_root: Path | None) -> list[str]:
    """The interpreter's folders to bind read-only, outermost first: its prefixes (a vLLM
    virtual environment, the Python it was made from) and the rest of ``sys.path``, but
    never the repository (nor a folder above it, nor a ``sys.path`` entry inside it)."""
    paths = _python_paths(python)
    prefixes = [*paths[:4], os.path.dirname(os.path.dirname(os.path.realpath(python)))]
    repo = str(repo_root.resolve()) if repo_root else None

    def inside(path: str, folder: str) -> bool:
        return path == folder or path.startswith(folder.rstrip("/") + "/")

    candidates = {q for p in prefixes if p for q in (p, os.path.realpath(p))}
    candidates |= {q for p in paths[4:] if p for q in (p, os.path.realpath(p)) if not (repo and inside(q, repo))}
    keep: list[str] = []
    for path in sorted(candidates, key=lambda p: (len(p), p)):
        if path == "/" or not os.path.isdir(path) or (repo and inside(repo, path)):
            continue
        if any(inside(path, k) for k in (*keep, "/usr", "/etc")):
            continue
        keep.append(path)
    return keep


def _bwrap_works(argv: tuple[str, ...]) -> str | None:
    """None when ``argv`` (a bwrap command that runs ``python -c pass``) works here, else why not."""
    try:
        result = subprocess.run(list(argv), capture_output=True, text=True, timeout=120,
                                env={"PATH": SYSTEM_PATH, "LANG": "C.UTF-8"})
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bwrap did not run: {exc}"
    if result.returncode == 0:
        return None
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    return f"bwrap failed: {lines[-1] if lines else f'exit status {result.returncode}'}"


def _words(text: str, limit: int = 200) -> str:
    """Text safe to keep in a record: printable ASCII, one line, at most ``limit`` characters."""
    text = re.sub(r"[^\x20-\x7e]+", " ", text).strip()
    return text[:limit]


class Sandbox:
    """The isolation of one runner: its folders on this machine, the command that starts
    ``child.py`` in it, the configuration each case's setup follows, and its ``isolation``
    in words (for the record). ``close`` removes its folders."""

    def __init__(self, python: Path | str, tier: str = "cpu", mode: str | None = None,
                 models: dict[str, bytes] | None = None, limits: Limits | None = None,
                 env: dict[str, str] | None = None, tier_env: dict[str, str] | None = None,
                 repo_root: Path | None = None):
        self.python = str(python)
        self.tier = tier
        self.mode = mode or default_mode()
        if self.mode not in MODES:
            raise HarnessError(f"sandbox mode {self.mode!r}: use one of {', '.join(MODES)}")
        self.limits = limits or Limits.for_tier(tier)
        self.tier_env = dict(tier_env or {})
        self.passed_env = _clean_env(dict(os.environ if env is None else env))
        self.repo_root = repo_root
        self.root = os.geteuid() == 0
        self.drop_to = list(NOBODY) if self.root else None
        self.why_root = ""
        sweep_sandboxes()
        self.dir = Path(tempfile.mkdtemp(prefix=SANDBOX_PREFIX))
        owner = _hold_owner_lock(self.dir)
        self._finalizer = weakref.finalize(self, _remove_tree, self.dir, owner)  # removed even if nobody calls close
        try:
            self._write_models(models or {})
            self.why_not_bwrap: str | None = None
            self.kind = "rlimits"
            if self.mode != "rlimits":
                self.why_not_bwrap = self._probe()
                if self.why_not_bwrap is None:
                    self.kind = "bwrap"
                elif self.mode == "bwrap":
                    raise HarnessError(f"the sandbox needs bubblewrap and {self.why_not_bwrap}; "
                                       "install it (apt-get install bubblewrap) where user and network namespaces "
                                       "are allowed, or run with --sandbox rlimits to run cases without namespaces")
            if self.kind == "rlimits" and self.drop_to and not self._runs_as(self.drop_to):
                self.drop_to = None  # e.g. an interpreter under /root: it runs as root, and says so
                self.why_root = f"the interpreter cannot run as uid {NOBODY[0]}"
            if self.kind == "rlimits":
                cases = self.dir / "cases"
                cases.mkdir()
                cases.chmod(0o1777 if self.drop_to else 0o700)
                (self.dir / "vllm-cache").mkdir(mode=0o755)
                (self.dir / "home").mkdir()
                (self.dir / "home").chmod(0o1777 if self.drop_to else 0o700)
                self.dir.chmod(0o755)
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------ layout

    def _write_models(self, models: dict[str, bytes]) -> None:
        folder = self.dir / "models"
        folder.mkdir()
        for name, data in sorted(models.items()):
            model, _, file = name.partition("/")
            if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", model) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", file):
                continue
            (folder / model).mkdir(exist_ok=True, mode=0o755)
            (folder / model / file).write_bytes(data)
            (folder / model / file).chmod(0o644)
        folder.chmod(0o755)

    @property
    def cases_dir(self) -> str:
        return f"{INSIDE}/cases" if self.kind == "bwrap" else str(self.dir / "cases")

    @property
    def cwd(self) -> str:
        return str(self.dir) if self.kind == "bwrap" else str(self.dir / "cases")

    def _bwrap(self) -> list[str]:
        size = str(self.limits.tmpfs_bytes)
        argv = ["bwrap", "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
                "--new-session", "--die-with-parent", "--hostname", "errorkb-sandbox",
                "--ro-bind", "/usr", "/usr"]
        for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
            path = f"/{name}"
            if os.path.islink(path):
                argv += ["--symlink", os.readlink(path), path]
            elif os.path.isdir(path):
                argv += ["--ro-bind", path, path]
        argv += ["--perms", "0755", "--dir", "/etc"]
        for name in ETC:
            argv += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
        argv += ["--ro-bind-try", "/sys", "/sys", "--proc", "/proc", "--dev", "/dev",
                 "--perms", "1777", "--size", size, "--tmpfs", "/tmp",
                 "--perms", "1777", "--size", size, "--tmpfs", "/dev/shm",
                 "--dir", INSIDE,
                 "--perms", "1777", "--size", size, "--tmpfs", f"{INSIDE}/cases",
                 # HOME of the server: what vLLM and its libraries put there at import (caches) is
                 # theirs; what a case adds is removed after it (clean_dirs)
                 "--perms", "1777", "--size", str(256 << 20), "--tmpfs", f"{INSIDE}/home",
                 # vLLM's model-info cache, filled by the fork server (child.py warm_model_info)
                 "--perms", "0755", "--size", str(64 << 20), "--tmpfs", f"{INSIDE}/vllm-cache",
                 "--ro-bind", str(self.dir / "models"), f"{INSIDE}/models",
                 "--ro-bind", str(CHILD), f"{INSIDE}/child.py"]
        made = {"/", "/usr", "/etc", "/tmp", "/dev", "/proc", "/sys", INSIDE}
        for path in _binds(self.python, self.repo_root):
            # bwrap makes missing parents 0700: make them 0755 first, so uid 65534 can pass
            parents = [str(p) for p in reversed(Path(path).parents) if str(p) not in made]
            for parent in parents:
                argv += ["--perms", "0755", "--dir", parent]
                made.add(parent)
            argv += ["--ro-bind", path, path]
        if self.tier == "cuda":
            for device in sorted(glob.glob("/dev/nvidia*")) + sorted(glob.glob("/dev/dri")):
                argv += ["--dev-bind", device, device]
        if self.root:
            argv += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_KILL"]
        argv += ["--chdir", f"{INSIDE}/cases", "--"]
        return argv

    def _runs_as(self, ids: list[int]) -> bool:
        try:
            return subprocess.run([self.python, "-I", "-c", "import json, subprocess, ctypes"], user=ids[0], group=ids[1],
                                  extra_groups=[], capture_output=True, timeout=120, cwd="/",
                                  env={"PATH": SYSTEM_PATH, "LANG": "C.UTF-8"}).returncode == 0
        except (OSError, subprocess.SubprocessError):
            return False

    def _probe(self) -> str | None:
        """None when bwrap runs the interpreter here (as uid 65534 when root), else why not."""
        if shutil.which("bwrap") is None:
            return "bwrap is not installed"
        if self.drop_to:
            drop = (f"import os; os.setgroups([]); os.setgid({self.drop_to[1]}); os.setuid({self.drop_to[0]}); "
                    "import json, subprocess, ctypes")
            if _bwrap_works(tuple(self._bwrap() + [self.python, "-I", "-c", drop])) is None:
                return None
            self.drop_to = None
            self.why_root = f"the interpreter cannot run as uid {NOBODY[0]}"
        why = _bwrap_works(tuple(self._bwrap() + [self.python, "-I", "-c", "pass"]))
        if why is not None and self.root:
            self.drop_to, self.why_root = list(NOBODY), ""
        return why

    # ------------------------------------------------------------ what runs

    def command(self, args: list[str]) -> list[str]:
        """The argv that runs ``child.py ARGS`` in the sandbox."""
        if self.kind == "bwrap":
            return self._bwrap() + [self.python, "-I", "-B", f"{INSIDE}/child.py", *args]
        return [self.python, "-I", "-B", str(CHILD), *args]

    def process_env(self) -> dict[str, str]:
        """The environment of the process that ``command`` starts (the fork server's too)."""
        home = f"{INSIDE}/home" if self.kind == "bwrap" else str(self.dir / "home")
        return {**self.base_env(), **self.tier_env, "HOME": home, "TMPDIR": "/tmp" if self.kind == "bwrap" else home}

    def base_env(self) -> dict[str, str]:
        """What every case's environment starts from (``child.py`` adds the tier's, the case's, HOME and TMPDIR)."""
        bin_dir = os.path.dirname(self.python)
        return {"LANG": "C.UTF-8", **self.passed_env, "PATH": f"{bin_dir}:{SYSTEM_PATH}",
                "PYTHONNOUSERSITE": "1", "PYTHONDONTWRITEBYTECODE": "1"}

    def config(self) -> dict:
        """``child.py --config``: how each case's process enters the sandbox."""
        return {
            "cases_dir": self.cases_dir,
            "models_dir": f"{INSIDE}/models" if self.kind == "bwrap" else str(self.dir / "models"),
            "base_env": self.base_env(),
            "drop_to": self.drop_to,
            "limits": self.limits.rlimits(),
            "max_timeout_s": MAX_TIMEOUT_S,
            "clean_dirs": ["/tmp", "/dev/shm", f"{INSIDE}/home"] if self.kind == "bwrap" else [str(self.dir / "home")],
            "vllm_cache": f"{INSIDE}/vllm-cache" if self.kind == "bwrap" else str(self.dir / "vllm-cache"),
        }

    @property
    def isolation(self) -> str:
        """What this sandbox gives a case, in words (the record's ``isolation``)."""
        if self.drop_to:
            who = f"as uid {self.drop_to[0]}"
        else:
            who = f"as root ({self.why_root})" if self.root else "as the invoking user"
        limits = "rlimits (processes, memory, CPU, file size, open files)"
        if self.kind == "bwrap":
            return (f"bwrap: network, pid, ipc, uts and mount namespaces; read-only system and vLLM, no repository; "
                    f"{limits}; {who}")
        return f"rlimits only ({_words(self.why_not_bwrap or 'sandbox turned off')}): no namespaces, shares this machine's network and files; {limits}; {who}"

    def close(self) -> None:
        self._finalizer()


def _remove_tree(folder: Path, owner: int) -> None:
    """Remove a sandbox's folder, read-only copies of models/ included (the child's own rule),
    then let go of its owner lock."""
    _remove(str(folder))
    os.close(owner)


SANDBOX_PREFIX = "errorkb-sandbox-"
OWNER_LOCK = ".owner.lock"


def _hold_owner_lock(folder: Path) -> int:
    """Take the lock that says ``folder`` is in use, held (by an open descriptor that no
    child inherits) until the sandbox closes or its process dies, however it dies."""
    fd = os.open(folder / OWNER_LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def sweep_sandboxes(parent: Path | None = None) -> list[Path]:
    """Remove the folders of sandboxes whose process was killed (SIGKILL runs no finalizer):
    those under the temporary folder whose owner lock nobody holds. A sandbox in use by
    another ``errorkb verify`` holds its lock and is left alone."""
    parent = Path(parent or tempfile.gettempdir())
    swept = []
    for folder in sorted(parent.glob(glob.escape(SANDBOX_PREFIX) + "*")):
        if folder.is_symlink() or not folder.is_dir() or folder.stat().st_uid != os.geteuid():
            continue  # not one of ours
        try:
            fd = os.open(folder / OWNER_LOCK, os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW)
        except FileNotFoundError:
            continue  # being created right now (the lock comes just after the folder), or not ours
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue  # held: a live sandbox
        _remove(str(folder))
        os.close(fd)
        swept.append(folder)
    return swept
