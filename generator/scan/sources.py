"""Source specs and revisions: where the scanned Python code comes from.

Every command takes ``--source SPEC --rev REV``. ``resolve`` turns the pair into a
``Revision`` -- a commit in a git repository on this machine -- and the scanner reads
that commit's Python files as git blobs (``python_files`` + ``BlobReader``), never
from a working tree. Kinds of SPEC:

* a local git repository (normal or bare): used in place;
* a git bundle file: cloned once, bare, into ``<cache>/sources/bundle-<sha256[:16]>``;
* a git URL (``https://``, ``ssh://``, ``git://``, ``file://``, ``user@host:path``):
  cloned once, bare, into ``<cache>/sources/git-<sha256(url)[:16]>``; fetched again
  once when a revision is not in the clone;
* ``pypi:NAME==VERSION`` or ``pypi:NAME`` (version taken from the revision,
  ``v0.32.0`` -> ``0.32.0``): the ``NAME/**/*.py`` files of the release's wheel, read
  from the index with range requests (``wheels.py``; the whole wheel with pip when
  ``ERRORKB_PIP_ARGS`` is set or the index serves no ranges), committed into ``<cache>/sources/pypi-NAME`` (bare, one
  root commit per release, tagged ``vVERSION``, deterministic commit id).

Cache entries are built in a temporary folder inside ``<cache>/sources`` and renamed
into place when complete, so an interrupted run never leaves a half-written entry.
Problems are reported as ``SourceError`` with a one-line message that says what went
wrong and what to do about it.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from generator.errors import InputError

try:
    import git
except ImportError:  # GitPython will not even import without a git executable
    raise InputError("git is not installed or not on PATH; install it (apt-get install git) and run again") from None

__all__ = ["SourceError", "Revision", "resolve", "python_files", "BlobReader"]

PIP_ARGS_ENV = "ERRORKB_PIP_ARGS"

# A fixed identity and date for commits made from wheels: the same wheel gives the
# same commit id on every machine.
_IMPORT_IDENT = b"errorkb <errorkb@localhost> 0 +0000"

_URL_RE = re.compile(r"^(?:https?|ssh|git|file|git\+ssh|ssh\+git)://", re.IGNORECASE)
_SCP_RE = re.compile(r"^[A-Za-z0-9._-]+@[A-Za-z0-9._-]+:(?!//)")
_PYPI_RE = re.compile(r"^pypi:(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)(?:==(?P<version>[^\s=]+))?$")
_VERSION_RE = re.compile(r"^[0-9][A-Za-z0-9.!+_-]*$")
_HEX40_RE = re.compile(r"^[0-9a-f]{40}$")
_OBJECT_ID_RE = re.compile(r"^[0-9a-fA-F]{4,64}$")

# Environment variables that would point git at some other repository than the one
# named on its command line (see `git rev-parse --local-env-vars`).
_GIT_LOCAL_ENV = (
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE",
    "GIT_PREFIX", "GIT_GRAFT_FILE", "GIT_REPLACE_REF_BASE", "GIT_NO_REPLACE_OBJECTS",
    "GIT_SHALLOW_FILE", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
    "GIT_IMPLICIT_WORK_TREE", "GIT_INTERNAL_SUPER_PREFIX",
)


class SourceError(InputError):
    """A source or revision that cannot be used; the message is one line for the user."""


@dataclass(frozen=True)
class Revision:
    spec: str  # the spec as given
    rev: str  # the revision as given (e.g. "v0.33.0")
    commit: str  # 40-hex commit id
    repo_path: Path  # git dir of the repository used
    tag: str | None  # a tag pointing at the commit (``rev`` itself when it is one)


# --------------------------------------------------------------------------- helpers


def _git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _GIT_LOCAL_ENV}
    env["GIT_TERMINAL_PROMPT"] = "0"  # never wait for a password
    env.setdefault("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
    return env


def _git(repo_path: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    """Run ``git --git-dir=REPO ARGS`` and capture its output (bytes)."""
    proc = subprocess.run(
        ["git", f"--git-dir={repo_path}", *args],
        cwd=repo_path,
        env=_git_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
    )
    if check and proc.returncode != 0:
        raise SourceError(
            f"git {args[0]} failed in {repo_path}: {_meaningful_line(proc.stderr)}"
            "; check that the repository is intact (delete it if it is a cache entry)"
        )
    return proc


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _meaningful_line(text: str | bytes, first_error: bool = False) -> str:
    """The line of a tool's stderr that says what went wrong.

    ``first_error``: prefer the first ``fatal:``/``error:`` line (git tends to print
    the cause first and generic advice after it); otherwise the last ``ERROR:`` line
    (pip's summary), falling back to the last non-empty line.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    # GitCommandError.stderr wraps the text as "\n  stderr: '...'".
    match = re.match(r"^\s*stderr: '(.*)'\s*$", text, re.DOTALL)
    if match:
        text = match.group(1)
    lines = [line.strip() for line in text.splitlines()]
    lines = [line for line in lines if line and not line.startswith("[notice]")]
    if not lines:
        return "(no error output)"
    errors = [line for line in lines if re.match(r"^(fatal|error|ERROR|ssh):", line)]
    line = (errors[0] if first_error else errors[-1]) if errors else lines[-1]
    return _one_line(line).rstrip(".")


def _git_error(exc: git.GitCommandError) -> str:
    return _meaningful_line(str(exc.stderr or ""), first_error=True)


def _sources_dir(cache_dir: Path) -> Path:
    path = Path(cache_dir).expanduser().absolute() / "sources"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SourceError(f"cannot create the cache folder {path}: {exc.strerror}; "
                          "check the cache dir setting and its permissions") from None
    return path


def _install(tmp: Path, final: Path) -> None:
    """Move a completed cache entry into place (another process may have won)."""
    os.chmod(tmp, 0o755)  # mkdtemp made it private
    try:
        os.replace(tmp, final)
    except OSError:
        if not final.exists():
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        shutil.rmtree(tmp, ignore_errors=True)  # someone else finished it first


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _check_rev(rev: str) -> None:
    if not rev or rev != rev.strip() or rev.startswith("-") or any(c in rev for c in "\n\r\t\0 "):
        raise SourceError(f"invalid revision {rev!r}; pass a tag, branch or commit id with --rev")


def _rev_commit(repo_path: Path, rev: str) -> str | None:
    proc = _git(repo_path, "rev-parse", "--verify", "--quiet", "--end-of-options",
                f"{rev}^{{commit}}", check=False)
    out = proc.stdout.decode().strip()
    return out if proc.returncode == 0 and _HEX40_RE.match(out) else None


def _tags(repo_path: Path) -> list[str]:
    out = _git(repo_path, "tag", "--list", "--sort=version:refname").stdout.decode("utf-8", "replace")
    return [line for line in out.splitlines() if line]


def _tag_for(repo_path: Path, rev: str, commit: str) -> str | None:
    """A tag pointing at ``commit``: ``rev`` itself when it names one, else the newest."""
    out = _git(repo_path, "for-each-ref", f"--points-at={commit}", "--sort=-version:refname",
               "--format=%(refname:strip=2)", "refs/tags").stdout.decode("utf-8", "replace")
    tags = [line for line in out.splitlines() if line]
    for candidate in (rev, rev.removeprefix("refs/tags/"), rev.removeprefix("tags/")):
        if candidate in tags:
            return candidate
    return tags[0] if tags else None


def _describe_tags(tags: list[str]) -> str:
    if not tags:
        return "it has no tags"
    if len(tags) <= 4:
        return f"known tags: {', '.join(tags)} ({len(tags)})"
    return f"known tags: {tags[0]} … {tags[-1]} ({len(tags)})"


def _unknown_rev(rev: str, where: str, repo_path: Path, extra: str = "") -> SourceError:
    tags = _tags(repo_path)
    hint = "pass one of them with --rev" if tags else "pass a branch name or commit id with --rev"
    return SourceError(f"unknown revision {rev!r} in {where}{extra}; {_describe_tags(tags)}; {hint}")


def _revision(spec: str, rev: str, repo_path: Path, commit: str) -> Revision:
    return Revision(spec=spec, rev=rev, commit=commit, repo_path=repo_path,
                    tag=_tag_for(repo_path, rev, commit))


# --------------------------------------------------------------------------- kinds


def _open_local(path: Path, spec: str) -> Path:
    try:
        repo = git.Repo(path)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise SourceError(
            f"{path} exists but is neither a git repository nor a git bundle; pass the "
            "top folder of a git checkout, a bare repository, a .bundle file, a git URL "
            "or pypi:NAME==VERSION with --source"
        ) from None
    try:
        git_dir = Path(repo.git_dir).resolve()
    finally:
        repo.close()
    proc = _git(git_dir, "rev-parse", "--git-dir", check=False)
    if proc.returncode != 0:
        msg = _meaningful_line(proc.stderr, first_error=True)
        hint = ("; if you trust it, run `git config --global --add safe.directory "
                f"{path}`" if "safe.directory" in proc.stderr.decode("utf-8", "replace")
                else "; check that it is an intact git repository")
        raise SourceError(f"cannot read the git repository {path}: {msg}{hint}")
    return git_dir


def _is_bundle(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            head = fh.read(32)
    except OSError:
        return False
    return re.match(rb"^# v[23] git bundle\n", head) is not None


def _clone(url: str, final: Path, what: str, hint: str) -> Path:
    """Clone ``url`` bare into ``final`` (through a temporary folder) with all tags."""
    tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{final.name}-", dir=final.parent))
    try:
        repo = git.Repo.clone_from(url, tmp, bare=True, env=_git_env())
        try:
            # A bare clone takes branches and the tags on them; take every tag.
            repo.git.fetch("--quiet", "origin", "+refs/tags/*:refs/tags/*", env=_git_env())
        finally:
            repo.close()
    except git.GitCommandError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise SourceError(f"cannot clone {what}: {_git_error(exc)}; {hint}") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _install(tmp, final)
    return final


def _bundle_repo(path: Path, cache_dir: Path) -> Path:
    if not _is_bundle(path):
        raise SourceError(
            f"{path} is neither a git bundle nor a git repository (a bundle starts with "
            "'# v2 git bundle'); make one with `git bundle create FILE --all` or pass a "
            "repository path, git URL or pypi:NAME==VERSION with --source"
        )
    final = _sources_dir(cache_dir) / f"bundle-{_sha256_file(path)[:16]}"
    if final.is_dir():
        return final
    return _clone(str(path), final, f"the git bundle {path}",
                  "check that the bundle is complete (`git bundle verify FILE`) and has no "
                  "prerequisite commits (create it with --all)")


def _url_repo(url: str, cache_dir: Path) -> tuple[Path, bool]:
    """The clone of ``url`` and whether it was just made."""
    final = _sources_dir(cache_dir) / f"git-{hashlib.sha256(url.encode()).hexdigest()[:16]}"
    if final.is_dir():
        return final, False
    _clone(url, final, url, "check the URL, your network access and credentials")
    return final, True


def _fetch(repo_path: Path) -> str | None:
    """Fetch branches and tags again; the error line when that fails."""
    proc = _git(repo_path, "fetch", "--quiet", "--prune", "origin",
                "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*", check=False)
    return None if proc.returncode == 0 else _meaningful_line(proc.stderr, first_error=True)


# --------------------------------------------------------------------------- pypi


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pip_download(requirement: str, dest: Path) -> Path:
    extra = shlex.split(os.environ.get(PIP_ARGS_ENV, ""))
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
           requirement, "-d", str(dest), "--no-input", "--progress-bar", "off",
           "--disable-pip-version-check", *extra]
    proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True)
    if proc.returncode != 0:
        raise SourceError(
            f"pip could not download the wheel of {requirement}: "
            f"{_meaningful_line(proc.stderr)}; check that the version exists on PyPI, "
            f"your network access, and {PIP_ARGS_ENV} (now {os.environ.get(PIP_ARGS_ENV, '')!r})"
        )
    wheels = sorted(dest.glob("*.whl"))
    if len(wheels) != 1:
        raise SourceError(f"pip download of {requirement} gave {len(wheels)} wheels in {dest}, "
                          f"expected one; check {PIP_ARGS_ENV}")
    return wheels[0]


def _quote_path(path: str) -> bytes:
    raw = path.encode("utf-8", "surrogateescape")
    if not raw.startswith(b'"') and b"\n" not in raw:
        return raw
    escaped = raw.replace(b"\\", b"\\\\").replace(b'"', b'\\"').replace(b"\n", b"\\n")
    return b'"' + escaped + b'"'


def _wheel_python_files(wheel: Path, package: str) -> list[tuple[str, bytes]]:
    try:
        with zipfile.ZipFile(wheel) as zf:
            members: dict[str, zipfile.ZipInfo] = {}
            for info in zf.infolist():
                name = info.filename
                parts = PurePosixPath(name).parts
                if (info.is_dir() or not name.endswith(".py") or not parts
                        or parts[0] != package or name.startswith("/")
                        or any(p in ("", ".", "..") for p in name.split("/"))):
                    continue
                members[name] = info
            return [(name, zf.read(members[name])) for name in sorted(members)]
    except (zipfile.BadZipFile, OSError) as exc:
        raise SourceError(f"cannot read the wheel {wheel.name}: {exc}; check {PIP_ARGS_ENV} "
                          "and the package index it points at") from None


def _fast_import(repo_path: Path, ref: str, message: str, files: list[tuple[str, bytes]]) -> None:
    msg = message.encode()
    chunks = [b"feature done\n", f"commit {ref}\n".encode(),
              b"author " + _IMPORT_IDENT + b"\n", b"committer " + _IMPORT_IDENT + b"\n",
              b"data %d\n" % len(msg), msg, b"\n"]
    for path, data in files:
        chunks += [b"M 100644 inline " + _quote_path(path) + b"\n", b"data %d\n" % len(data), data, b"\n"]
    chunks.append(b"done\n")
    proc = subprocess.run(["git", f"--git-dir={repo_path}", "fast-import", "--quiet"],
                          input=b"".join(chunks), cwd=repo_path, env=_git_env(), capture_output=True)
    if proc.returncode != 0:
        raise SourceError(f"git fast-import into {repo_path} failed: "
                          f"{_meaningful_line(proc.stderr, first_error=True)}; delete {repo_path} "
                          "and try again")


def _pypi_repo(name: str, cache_dir: Path) -> Path:
    final = _sources_dir(cache_dir) / f"pypi-{_normalize(name)}"
    if final.is_dir():
        return final
    tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{final.name}-", dir=final.parent))
    try:
        git.Repo.init(tmp, bare=True).close()
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _install(tmp, final)
    return final


def _fetch_python_files(name: str, version: str, package: str, scratch: Path,
                        progress=None) -> tuple[list[tuple[str, bytes]], str]:
    """The wheel's ``package/**/*.py`` files and the wheel's name: read with range requests
    (``wheels.py``: a few MB instead of the whole wheel), or the whole wheel downloaded with
    pip when ``ERRORKB_PIP_ARGS`` is set (a mirror, a folder of wheels) or the index does not
    serve ranges."""
    from generator.scan import wheels

    if not os.environ.get(PIP_ARGS_ENV, "").strip():
        try:
            fetched = wheels.read_python_files(name, version, package, progress)
            return fetched.files, fetched.wheel
        except wheels.RangeNotServed:
            pass  # a whole download below
        except wheels.WheelError as exc:
            raise SourceError(f"cannot fetch {name} {version} from {wheels.index_url()}: {exc}; check your "
                              f"network access and that {name} {version} is on the index "
                              f"(set {wheels.INDEX_URL_ENV} for a mirror, or {PIP_ARGS_ENV} to download with pip)") from None
    with tempfile.TemporaryDirectory(prefix=".tmp-pip-", dir=scratch) as tmp:
        wheel = _pip_download(f"{name}=={version}", Path(tmp))
        return _wheel_python_files(wheel, package), wheel.name


def _resolve_pypi(spec: str, rev: str, name: str, version: str | None, cache_dir: Path,
                  progress=None) -> Revision:
    if version is None:
        version = rev.removeprefix("v")
        if not _VERSION_RE.match(version):
            raise SourceError(f"cannot tell which {name} release {rev!r} is; pass --rev vX.Y.Z "
                              f"or --source pypi:{name}==X.Y.Z")
    elif not _VERSION_RE.match(version):
        raise SourceError(f"invalid version {version!r} in {spec!r}; write pypi:{name}==X.Y.Z")
    repo_path = _pypi_repo(name, cache_dir)
    tag = f"v{version}"
    commit = _rev_commit(repo_path, f"refs/tags/{tag}")
    if commit is None:
        package = _normalize(name).replace("-", "_")
        files, wheel_name = _fetch_python_files(name, version, package, repo_path.parent, progress)
        if not files:
            raise SourceError(f"the wheel {wheel_name} has no {package}/**/*.py files; "
                              f"check the project name in {spec!r}")
        message = (f"{_normalize(name)} {version}\n\nThe {package}/**/*.py files of the "
                   f"{_normalize(name)} {version} wheel, imported by errorkb.\n")
        _fast_import(repo_path, f"refs/tags/{tag}", message, files)
        commit = _rev_commit(repo_path, f"refs/tags/{tag}")
        if commit is None:
            raise SourceError(f"importing {name} {version} into {repo_path} left no tag {tag}; "
                              f"delete {repo_path} and try again")
    if rev not in (version, tag, f"refs/tags/{tag}") and _rev_commit(repo_path, rev) != commit:
        raise SourceError(f"revision {rev!r} is not release {version} of {spec!r}; pass "
                          f"--rev {tag}, or --source pypi:{name} to take the version from --rev")
    return Revision(spec=spec, rev=rev, commit=commit, repo_path=repo_path, tag=tag)


# --------------------------------------------------------------------------- public


def resolve(spec: str, rev: str, cache_dir: Path, progress=None) -> Revision:
    """Turn ``--source SPEC --rev REV`` into a commit in a git repository on this machine.

    ``progress(done, total)``: bytes of a release fetched from PyPI, as they arrive."""
    _check_rev(rev)
    cache_dir = Path(cache_dir)

    pypi = _PYPI_RE.match(spec)
    if pypi:
        return _resolve_pypi(spec, rev, pypi["name"], pypi["version"], cache_dir, progress)
    if spec.startswith("pypi:"):
        raise SourceError(f"cannot read the source {spec!r}; write pypi:NAME==VERSION or pypi:NAME")

    if _URL_RE.match(spec) or _SCP_RE.match(spec):
        repo_path, fresh = _url_repo(spec, cache_dir)
        commit = _rev_commit(repo_path, rev)
        extra = ""
        if commit is None and not fresh:
            failure = _fetch(repo_path)
            commit = _rev_commit(repo_path, rev)
            extra = f" (fetching it again failed: {failure})" if failure else " (even after fetching it again)"
        if commit is None:
            raise _unknown_rev(rev, spec, repo_path, extra)
        return _revision(spec, rev, repo_path, commit)

    path = Path(spec).expanduser()
    if not spec or not path.exists():
        raise SourceError(
            f"source {spec!r} is neither an existing path ({path.absolute()} does not exist) nor a "
            "git URL nor pypi:NAME==VERSION; check --source"
        )
    path = path.resolve()
    repo_path = _bundle_repo(path, cache_dir) if path.is_file() else _open_local(path, spec)
    commit = _rev_commit(repo_path, rev)
    if commit is None:
        raise _unknown_rev(rev, str(path), repo_path)
    return _revision(spec, rev, repo_path, commit)


def python_files(revision: Revision, prefix: str = "vllm/") -> list[tuple[str, str]]:
    """(path, blob hex sha) of every ``*.py`` blob under ``prefix`` in the commit, sorted by path."""
    args = ["ls-tree", "-r", "-z", "--full-tree", revision.commit]
    if prefix:
        args += ["--", prefix]
    out = _git(revision.repo_path, *args).stdout
    files = []
    for entry in out.split(b"\0"):
        if not entry:
            continue
        meta, _, raw_path = entry.partition(b"\t")
        mode, kind, sha = meta.split(b" ")
        if kind != b"blob" or mode not in (b"100644", b"100755"):
            continue  # submodules, symlinks
        path = raw_path.decode("utf-8", "surrogateescape")
        if path.endswith(".py") and path.startswith(prefix):
            files.append((path, sha.decode()))
    files.sort()
    return files


_ASK_AT_ONCE = 64  # blob ids written to git cat-file before reading its answers


class BlobReader:
    """Reads blobs through one persistent ``git cat-file --batch`` process (not thread-safe)."""

    def __init__(self, repo_path: Path):
        self.repo_path = Path(repo_path)
        self._proc: subprocess.Popen[bytes] | None = subprocess.Popen(
            ["git", f"--git-dir={self.repo_path}", "cat-file", "--batch"],
            cwd=self.repo_path, env=_git_env(),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )

    def read(self, sha: str) -> bytes:
        return self.read_many([sha])[0]

    def read_many(self, shas: list[str]) -> list[bytes]:
        """The blobs, asked for at once: one round trip to git instead of one each."""
        if self._proc is None:
            raise ValueError("BlobReader is closed")
        for sha in shas:
            if not _OBJECT_ID_RE.match(sha):
                raise ValueError(f"not an object id: {sha!r}")
        assert self._proc.stdin is not None and self._proc.stdout is not None
        found: list[bytes] = []
        # In batches: the answers wait in a pipe while the questions are written.
        for start in range(0, len(shas), _ASK_AT_ONCE):
            batch = shas[start : start + _ASK_AT_ONCE]
            try:
                self._proc.stdin.write(b"".join(sha.encode() + b"\n" for sha in batch))
                self._proc.stdin.flush()
            except BrokenPipeError:
                raise SourceError(f"git cat-file in {self.repo_path} stopped; check the repository") from None
            try:
                found.extend(self._answer(sha) for sha in batch)
            except SourceError:
                self.close()  # the answers left in the pipe would be taken for the next ones
                raise
        return found

    def _answer(self, sha: str) -> bytes:
        assert self._proc is not None and self._proc.stdout is not None
        header = self._proc.stdout.readline()
        fields = header.split()
        if len(fields) != 3:
            if header.endswith(b" missing\n") or header.endswith(b" ambiguous\n"):
                raise SourceError(f"blob {sha} is not in {self.repo_path}; resolve the revision again")
            raise SourceError(f"git cat-file in {self.repo_path} answered {header!r}; check the repository")
        kind, size = fields[1], int(fields[2])
        data = self._proc.stdout.read(size + 1)[:size]  # content, then LF
        if len(data) != size:
            raise SourceError(f"git cat-file in {self.repo_path} stopped mid-object; check the repository")
        if kind != b"blob":
            raise SourceError(f"{sha} in {self.repo_path} is a {kind.decode()}, not a blob")
        return data

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            if proc.stdin:
                proc.stdin.close()
            proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()
        finally:
            if proc.stdout:
                proc.stdout.close()

    def __enter__(self) -> BlobReader:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass
