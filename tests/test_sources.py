"""generator.scan.sources against real git repositories, bundles, clones and wheels (no mocks)."""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import zipfile
from pathlib import Path

import pytest

from generator.scan.sources import BlobReader, Revision, SourceError, python_files, resolve
from gitrepo import commit_all, git, write


V1_FILES = {
    "vllm/__init__.py": b"from vllm.engine.core import Engine\n",
    "vllm/engine/__init__.py": b"",
    "vllm/engine/core.py": b"class Engine:\n    def run(self):\n        raise ValueError('no model')\n",
    "vllm/engine/deep/nested.py": b"def f():\n    raise RuntimeError('nested')\n",
    "vllm/README.md": b"# not python\n",
    "setup.py": b"print('outside the package')\n",
}
V2_CHANGES = {
    "vllm/engine/core.py": b"class Engine:\n    def run(self):\n        raise ValueError('still no model')\n",
    "vllm/new.py": b"X = 1\n",
}
V2_PY = ["vllm/__init__.py", "vllm/engine/__init__.py", "vllm/engine/core.py",
         "vllm/engine/deep/nested.py", "vllm/new.py"]


@pytest.fixture
def upstream(tmp_path: Path) -> Path:
    """main: v0.1.0 (lightweight tag) <- v0.2.0 (annotated tag, plus a symlink .py)."""
    repo = tmp_path / "upstream"
    repo.mkdir()
    git("init", "-q", "-b", "main", cwd=repo)
    write(repo, V1_FILES)
    commit_all(repo, "v1")
    git("tag", "v0.1.0", cwd=repo)
    write(repo, V2_CHANGES)
    os.symlink("new.py", repo / "vllm/link.py")  # a link, not a file: skipped
    commit_all(repo, "v2")
    git("tag", "-a", "v0.2.0", "-m", "release 0.2.0", cwd=repo)
    return repo


def expected_v2() -> dict[str, bytes]:
    return {path: V2_CHANGES.get(path, V1_FILES.get(path)) for path in V2_PY}


def check_v2(revision: Revision, repo: Path) -> None:
    assert revision.commit == git("rev-parse", "v0.2.0^{commit}", cwd=repo)
    files = python_files(revision)
    assert [path for path, _ in files] == V2_PY
    expected = expected_v2()
    with BlobReader(revision.repo_path) as reader:
        for path, sha in files:
            assert reader.read(sha) == expected[path]
    # the default prefix keeps setup.py out; an empty prefix lets it in
    assert "setup.py" in [path for path, _ in python_files(revision, prefix="")]


def sources(cache: Path) -> list[str]:
    folder = cache / "sources"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


# ------------------------------------------------------------------ local repositories


def test_local_repository(upstream: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    revision = resolve(str(upstream), "v0.2.0", cache)
    assert revision.spec == str(upstream) and revision.rev == "v0.2.0"
    assert revision.repo_path == (upstream / ".git").resolve()
    assert revision.tag == "v0.2.0"  # annotated tag: the commit, not the tag object
    check_v2(revision, upstream)
    assert sources(cache) == []  # used in place

    # a branch or a commit id finds the tag on that commit
    assert resolve(str(upstream), "main", cache).tag == "v0.2.0"
    v1 = git("rev-parse", "v0.1.0", cwd=upstream)
    by_id = resolve(str(upstream), v1[:10], cache)
    assert (by_id.commit, by_id.tag) == (v1, "v0.1.0")
    assert [p for p, _ in python_files(by_id)] == [
        "vllm/__init__.py", "vllm/engine/__init__.py", "vllm/engine/core.py",
        "vllm/engine/deep/nested.py"]


def test_blobs_read_many_at_once(upstream: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import generator.scan.sources as sources_module

    monkeypatch.setattr(sources_module, "_ASK_AT_ONCE", 2)  # several batches
    revision = resolve(str(upstream), "v0.2.0", tmp_path / "cache")
    files = python_files(revision)
    expected = expected_v2()
    with BlobReader(revision.repo_path) as reader:
        shas = [sha for _, sha in files] + [files[0][1]]  # a blob twice too
        assert reader.read_many(shas) == [expected[path] for path, _ in files] + [expected[files[0][0]]]
        assert reader.read(files[1][1]) == expected[files[1][0]]  # one at a time after: still in step
        with pytest.raises(SourceError, match="is not in"):
            reader.read_many([files[0][1], "0" * 40, files[1][1]])
        with pytest.raises(ValueError, match="closed"):  # answers were left unread: not used again
            reader.read(files[0][1])


def test_relative_path_and_bare_repository(upstream: Path, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    bare = tmp_path / "bare.git"
    git("clone", "-q", "--bare", str(upstream), str(bare), cwd=tmp_path)
    monkeypatch.chdir(tmp_path)
    revision = resolve("bare.git", "v0.2.0", tmp_path / "cache")
    assert revision.repo_path == bare.resolve()
    assert revision.tag == "v0.2.0"
    check_v2(revision, upstream)


# ------------------------------------------------------------------ bundles


def test_bundle_is_cloned_once(upstream: Path, tmp_path: Path) -> None:
    bundle = tmp_path / "x.bundle"
    git("bundle", "create", "-q", str(bundle), "--all", cwd=upstream)
    cache = tmp_path / "cache"
    revision = resolve(str(bundle), "v0.2.0", cache)
    digest = hashlib.sha256(bundle.read_bytes()).hexdigest()[:16]
    assert revision.repo_path == cache.absolute() / "sources" / f"bundle-{digest}"
    assert git("rev-parse", "--is-bare-repository", cwd=revision.repo_path) == "true"
    assert revision.tag == "v0.2.0"
    check_v2(revision, upstream)
    assert sources(cache) == [f"bundle-{digest}"]  # no temporary folders left

    inode = revision.repo_path.stat().st_ino
    again = resolve(str(bundle), "v0.1.0", cache)
    assert again.repo_path == revision.repo_path and again.repo_path.stat().st_ino == inode
    assert again.tag == "v0.1.0"
    assert sources(cache) == [f"bundle-{digest}"]


def test_unknown_revision_in_bundle(upstream: Path, tmp_path: Path) -> None:
    bundle = tmp_path / "x.bundle"
    git("bundle", "create", "-q", str(bundle), "--all", cwd=upstream)
    with pytest.raises(SourceError) as err:
        resolve(str(bundle), "v9.9", tmp_path / "cache")
    assert str(err.value) == (f"unknown revision 'v9.9' in {bundle.resolve()}; known tags: "
                              "v0.1.0, v0.2.0 (2); pass one of them with --rev")


def test_bad_bundle(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    plain = tmp_path / "notes.txt"
    plain.write_text("hello\n")
    with pytest.raises(SourceError, match="neither a git bundle nor a git repository"):
        resolve(str(plain), "v1", cache)

    broken = tmp_path / "broken.bundle"
    broken.write_bytes(b"# v2 git bundle\n" + b"0" * 40 + b" refs/heads/main\n\nnot a pack")
    with pytest.raises(SourceError) as err:
        resolve(str(broken), "v1", cache)
    message = str(err.value)
    assert message.startswith(f"cannot clone the git bundle {broken.resolve()}: ")
    assert "\n" not in message and "git bundle verify" in message
    assert sources(cache) == []  # no half-written entry


# ------------------------------------------------------------------ URLs


def test_file_url_clone_reuse_and_fetch(upstream: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    url = upstream.as_uri()
    assert url.startswith("file://")
    revision = resolve(url, "v0.2.0", cache)
    digest = hashlib.sha256(url.encode()).hexdigest()[:16]
    assert revision.repo_path == cache.absolute() / "sources" / f"git-{digest}"
    assert git("rev-parse", "--is-bare-repository", cwd=revision.repo_path) == "true"
    check_v2(revision, upstream)
    assert sources(cache) == [f"git-{digest}"]

    # the second resolve reuses the clone
    inode = revision.repo_path.stat().st_ino
    assert resolve(url, "v0.1.0", cache).repo_path.stat().st_ino == inode

    # a tag made upstream after the clone is found by fetching once
    write(upstream, {"vllm/later.py": b"LATER = True\n"})
    v3 = commit_all(upstream, "v3")
    git("tag", "v0.3.0", cwd=upstream)
    later = resolve(url, "v0.3.0", cache)
    assert (later.commit, later.tag, later.repo_path) == (v3, "v0.3.0", revision.repo_path)
    assert "vllm/later.py" in dict(python_files(later))

    # with the upstream gone, known revisions still resolve from the clone ...
    shutil.rmtree(upstream)
    assert resolve(url, "v0.1.0", cache).commit == git(
        "rev-parse", "v0.1.0", cwd=revision.repo_path)
    # ... and an unknown one says that the fetch failed
    with pytest.raises(SourceError) as err:
        resolve(url, "v9.9", cache)
    message = str(err.value)
    assert message.startswith(f"unknown revision 'v9.9' in {url} (fetching it again failed: ")
    assert message.endswith("known tags: v0.1.0, v0.2.0, v0.3.0 (3); pass one of them with --rev")
    assert "\n" not in message


def test_unreachable_url(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    url = (tmp_path / "nowhere").as_uri()
    with pytest.raises(SourceError) as err:
        resolve(url, "v1", cache)
    message = str(err.value)
    assert message.startswith(f"cannot clone {url}: ") and "\n" not in message
    assert "check the URL" in message
    assert sources(cache) == []


# ------------------------------------------------------------------ other errors


def test_unknown_revision_in_local_repo(upstream: Path, tmp_path: Path) -> None:
    with pytest.raises(SourceError) as err:
        resolve(str(upstream), "v9.9", tmp_path / "cache")
    assert str(err.value) == (f"unknown revision 'v9.9' in {upstream.resolve()}; known tags: "
                              "v0.1.0, v0.2.0 (2); pass one of them with --rev")


def test_many_tags_are_summarised(upstream: Path, tmp_path: Path) -> None:
    for minor in range(3, 12):
        git("tag", f"v0.{minor}.0", "v0.1.0", cwd=upstream)
    with pytest.raises(SourceError) as err:
        resolve(str(upstream), "nope", tmp_path / "cache")
    assert "known tags: v0.1.0 … v0.11.0 (11); pass one of them with --rev" in str(err.value)


def test_not_a_repository_or_missing_path(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    with pytest.raises(SourceError, match="exists but is neither a git repository nor a git bundle"):
        resolve(str(folder), "v1", tmp_path / "cache")
    with pytest.raises(SourceError, match="neither an existing path .* nor a git URL nor pypi:"):
        resolve(str(tmp_path / "missing"), "v1", tmp_path / "cache")
    with pytest.raises(SourceError, match="invalid revision"):
        resolve(str(folder), "--upload-pack=touch", tmp_path / "cache")


# ------------------------------------------------------------------ pypi


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


WHEEL_PY = {
    "vllm/__init__.py": b"__version__ = '0.0.1'\n",
    "vllm/a/b.py": b"def g():\n    raise KeyError('b')\n",
}


def build_wheel(folder: Path, version: str = "0.0.1") -> Path:
    """A small, valid pure-Python wheel of `vllm`."""
    folder.mkdir(parents=True, exist_ok=True)
    info = f"vllm-{version}.dist-info"
    members = {
        **WHEEL_PY,
        "vllm/py.typed": b"",
        "vllm/a/data.json": b"{}\n",
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: vllm\nVersion: {version}\n".encode(),
        f"{info}/WHEEL": (b"Wheel-Version: 1.0\nGenerator: errorkb-tests\n"
                          b"Root-Is-Purelib: true\nTag: py3-none-any\n"),
    }
    record = "".join(f"{name},{_record_hash(data)},{len(data)}\n" for name, data in members.items())
    members[f"{info}/RECORD"] = (record + f"{info}/RECORD,,\n").encode()
    wheel = folder / f"vllm-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(members, key=lambda n: (n == f"{info}/RECORD", n)):
            zf.writestr(name, members[name])
    return wheel


def test_pypi_wheel_import(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wheels = tmp_path / "wheels"
    build_wheel(wheels)
    monkeypatch.setenv("ERRORKB_PIP_ARGS", f"--no-index --find-links {wheels}")
    cache = tmp_path / "cache"

    revision = resolve("pypi:vllm==0.0.1", "v0.0.1", cache)
    repo = cache.absolute() / "sources" / "pypi-vllm"
    assert revision.repo_path == repo and revision.tag == "v0.0.1"
    assert git("rev-parse", "--is-bare-repository", cwd=repo) == "true"
    assert git("tag", "--list", cwd=repo) == "v0.0.1"
    assert git("rev-parse", "v0.0.1", cwd=repo) == revision.commit
    assert git("log", "--format=%an <%ae> %at|%cn <%ce> %ct", "v0.0.1", cwd=repo) == (
        "errorkb <errorkb@localhost> 0|errorkb <errorkb@localhost> 0")
    assert sources(cache) == ["pypi-vllm"]  # the download folder is gone

    files = python_files(revision)
    assert [path for path, _ in files] == ["vllm/__init__.py", "vllm/a/b.py"]
    assert git("ls-tree", "-r", "--name-only", revision.commit, cwd=repo).split() == [
        "vllm/__init__.py", "vllm/a/b.py"]
    with BlobReader(revision.repo_path) as reader:
        assert {path: reader.read(sha) for path, sha in files} == WHEEL_PY

    # the next resolve does not need pip: the wheel source is gone, it still works;
    # `pypi:vllm` takes the version from the revision
    shutil.rmtree(wheels)
    for spec in ("pypi:vllm==0.0.1", "pypi:vllm"):
        again = resolve(spec, "v0.0.1", cache)
        assert (again.commit, again.tag, again.spec) == (revision.commit, "v0.0.1", spec)
    assert resolve("pypi:vllm", "0.0.1", cache).commit == revision.commit
    with pytest.raises(SourceError, match=r"is not release 0\.0\.1.*--rev v0\.0\.1"):
        resolve("pypi:vllm==0.0.1", "v0.0.2", cache)


def test_pypi_commit_is_deterministic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wheels = tmp_path / "wheels"
    build_wheel(wheels)
    monkeypatch.setenv("ERRORKB_PIP_ARGS", f"--no-index --find-links {wheels}")
    first = resolve("pypi:vllm==0.0.1", "v0.0.1", tmp_path / "one")
    second = resolve("pypi:vllm", "v0.0.1", tmp_path / "two")
    assert first.repo_path != second.repo_path
    assert first.commit == second.commit


def test_pypi_missing_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wheels = tmp_path / "wheels"
    build_wheel(wheels)
    monkeypatch.setenv("ERRORKB_PIP_ARGS", f"--no-index --find-links {wheels}")
    cache = tmp_path / "cache"
    with pytest.raises(SourceError) as err:
        resolve("pypi:vllm==9.9.9", "v9.9.9", cache)
    message = str(err.value)
    assert message.startswith("pip could not download the wheel of vllm==9.9.9: ")
    assert "No matching distribution found for vllm==9.9.9" in message
    assert "ERRORKB_PIP_ARGS" in message and "\n" not in message
    repo = cache / "sources" / "pypi-vllm"
    assert git("tag", "--list", cwd=repo) == ""  # no tag for a failed import
    assert sources(cache) == ["pypi-vllm"]  # no download folder left behind


# ------------------------------------------------------------------ the real corpus


@pytest.mark.slow
def test_corpus_bundle(corpus_bundle: Path, tmp_path: Path) -> None:
    """A clone of the whole bundle, in a cache of its own (the fixture fails saying where to put it)."""
    revision = resolve(str(corpus_bundle), "v0.33.0", tmp_path / "cache")
    assert revision.tag == "v0.33.0"
    files = python_files(revision)
    assert len(files) == 2991
    paths = [path for path, _ in files]
    assert paths == sorted(paths)
    assert "vllm/config/compilation.py" in paths
    with BlobReader(revision.repo_path) as reader:
        assert b"class CompilationConfig" in reader.read(dict(files)["vllm/config/compilation.py"])
