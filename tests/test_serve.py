"""``errorkb serve`` as a contributor uses it: it builds the site of a small project, serves
it over HTTP, and rebuilds an entry's page when the entry's YAML changes (and not when the
YAML has a problem: the problem is printed and the page stays)."""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from gitrepo import tagged_repo

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT_S = 240  # a guard against a hang: the first build of a small project takes seconds

ENTRY = """\
# yaml-language-server: $schema=../generator/schemas/entry.schema.json
ids: [{id}]
title: {title}
summary: The configuration asks for more sequences than the cache can hold at once.
explanation: The scheduler refuses to start when max_num_seqs exceeds the blocks it has.
causes:
  - A max_num_seqs copied from a bigger machine.
solutions:
  - title: Lower the number of sequences
    why: Fewer sequences need fewer cache blocks.
    commands:
      vllm: vllm serve Qwen/Qwen2.5-0.5B-Instruct --max-num-seqs 64
"""


def project(tmp_path: Path) -> tuple[Path, str]:
    """A project beside a tiny vLLM repository: errorkb.toml, the real mkdocs.yml, templates
    and models, and one entry for the repository's one error."""
    repo = tagged_repo(tmp_path / "vllm", {"v1": {"vllm/config.py": (
        "def check(n, blocks):\n    if n > blocks:\n        raise ValueError(f'max_num_seqs ({n}) exceeds available cache blocks ({blocks})')\n")}})
    root = tmp_path / "project"
    (root / "errors").mkdir(parents=True)
    (root / "errorkb.toml").write_text(f'[pin]\nsource = "{repo}"\nrev = "v1"\n')
    (root / "mkdocs.yml").write_text((ROOT / "mkdocs.yml").read_text())
    for folder in ("templates", "models"):
        (root / folder).symlink_to(ROOT / folder)
    scanned = subprocess.run([sys.executable, "-m", "generator", "scan", "--out", "-"], cwd=root, env=env(tmp_path),
                             capture_output=True, text=True, check=True)
    error_id = json.loads(scanned.stdout)["errors"][0]["id"]
    (root / "errors" / "too-many-seqs.yaml").write_text(ENTRY.format(id=error_id, title="The first title"))
    return root, error_id


def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "ERRORKB_CACHE_DIR": str(tmp_path / "cache")}


class Server:
    """``errorkb serve`` in a process of its own; its stderr read line by line."""

    def __init__(self, root: Path, tmp_path: Path):
        self.process = subprocess.Popen([sys.executable, "-m", "generator", "serve", "--port", "0", "--workers", "1"],
                                        cwd=root, env=env(tmp_path), stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                        text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=lambda: [self.lines.put(line) for line in self.process.stderr], daemon=True).start()

    def wait_for(self, pattern: str) -> re.Match:
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=1)
            except queue.Empty:
                assert self.process.poll() is None, f"errorkb serve exited: {self.seen}"
                continue
            self.seen.append(line.rstrip())
            match = re.search(pattern, line)
            if match:
                return match
        pytest.fail(f"no line matching {pattern!r} in {TIMEOUT_S} s: {self.seen}")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.read().decode()


@pytest.mark.slow  # two builds of a small site: tens of seconds
def test_serve_builds_serves_and_rebuilds_an_entry_page(tmp_path):
    root, error_id = project(tmp_path)
    server = Server(root, tmp_path)
    try:
        url = server.wait_for(r"serving .* at (http://127\.0\.0\.1:\d+/)")[1]
        assert (root / "site" / "index.html").is_file()  # built first: there was no site
        page = url + f"errors/{error_id}/"
        assert "The first title" in fetch(page)
        assert json.loads(fetch(url + f"api/errors/{error_id}.json"))["entry"]["title"] == "The first title"

        entry = root / "errors" / "too-many-seqs.yaml"
        entry.write_text(ENTRY.format(id=error_id, title="A second title, written while serving"))
        server.wait_for(rf"rebuilt errors/{error_id}/ in ")
        assert "A second title, written while serving" in fetch(page)
        assert json.loads(fetch(url + f"api/errors/{error_id}.json"))["entry"]["title"].startswith("A second title")
        index = json.loads(fetch(url + "api/lookup-index.json"))  # the paste box answers with the new title too
        from generator.lookup.index import entries_of

        assert entries_of(index)[error_id]["title"].startswith("A second title")

        (root / "errors" / "reports.yaml").write_text(  # a report's message: the page's example
            f"reports:\n  - id: \"{error_id}\"\n    url: https://github.com/vllm-project/vllm/issues/1\n"
            "    message: \"ValueError: max_num_seqs (512) exceeds available cache blocks (100)\"\n")
        server.wait_for(rf"rebuilt errors/{error_id}/ in ")
        assert "max_num_seqs (512) exceeds available cache blocks (100)" in fetch(page)

        entry.write_text(ENTRY.format(id=error_id, title="x") + "unknown_key: 1\n")  # two problems
        server.wait_for(r"not rebuilt: 2 problems in the entries")
        assert "A second title, written while serving" in fetch(page)  # the page stays as it was
        assert not list(root.glob(".site.preview-*"))  # no temporary folder left beside the site
    finally:
        server.stop()


def test_a_port_in_use_is_one_line_and_exit_2(tmp_path):
    import socket

    root, _ = project(tmp_path)
    (root / "site").mkdir()
    (root / "site" / "index.html").write_text("<p>built before</p>\n")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-m", "generator", "serve", "--port", str(port)], cwd=root,
                              env=env(tmp_path), capture_output=True, text=True, timeout=TIMEOUT_S)
    assert done.returncode == 2
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"errorkb: error: cannot listen on 127.0.0.1:{port}: ") and "--port" in last
