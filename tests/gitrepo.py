"""Real git repositories for tests: tagged commits built with the git command."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

GIT_ENV = {
    **os.environ,
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_AUTHOR_DATE": "2024-01-01T00:00:00+0000",
    "GIT_COMMITTER_DATE": "2024-01-01T00:00:00+0000",
}


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=GIT_ENV, check=True,
                          capture_output=True, text=True).stdout.strip()


def write(root: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def commit_all(repo: Path, message: str) -> str:
    git("add", "-A", cwd=repo)
    git("commit", "-q", "-m", message, cwd=repo)
    return git("rev-parse", "HEAD", cwd=repo)


def tagged_repo(path: Path, releases: dict[str, dict[str, bytes | str | None]]) -> Path:
    """A repository with one commit per release, tagged with its name.

    Each release lists the files it changes (text or bytes; None deletes a file).
    """
    path.mkdir(parents=True)
    git("init", "-q", "-b", "main", cwd=path)
    for tag, files in releases.items():
        for rel, data in files.items():
            if data is None:
                (path / rel).unlink()
            else:
                write(path, {rel: data.encode() if isinstance(data, str) else data})
        commit_all(path, tag)
        git("tag", tag, cwd=path)
    return path
