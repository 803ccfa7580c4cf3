"""Reading a release's Python files from a package index with range requests
(``generator/scan/wheels.py``), against a real HTTP server on this machine that serves a
real wheel: what it reads, that it is the same commit as a whole download, and what
happens when the server ignores ranges, damages a member or cannot be reached."""

from __future__ import annotations

import http.server
import json
import os
import re
import threading
import zipfile
from pathlib import Path

import pytest

from generator.scan import wheels
from generator.scan.sources import SourceError, resolve
from test_sources import WHEEL_PY, build_wheel


class Index:
    """A PEP 691 simple index of the wheels in a folder, with range requests."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.ignore_range = False
        self.corrupt = False
        self.ranges: list[str] = []
        index = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                if self.path == "/simple/vllm/":
                    files = [{"filename": p.name, "url": f"../../files/{p.name}", "hashes": {}}
                             for p in sorted(index.folder.glob("*.whl"))]
                    body = json.dumps({"meta": {"api-version": "1.0"}, "name": "vllm", "files": files}).encode()
                    return self.answer(200, body, {"Content-Type": "application/vnd.pypi.simple.v1+json"})
                if self.path.startswith("/files/"):
                    data = (index.folder / self.path.removeprefix("/files/")).read_bytes()
                    wanted = self.headers.get("Range")
                    if not wanted or index.ignore_range:
                        return self.answer(200, data, {})
                    index.ranges.append(wanted)
                    match = re.fullmatch(r"bytes=(\d*)-(\d*)", wanted)
                    start, end = (len(data) - int(match[2]), len(data) - 1) if not match[1] else (int(match[1]), int(match[2]))
                    part = bytearray(data[start:end + 1])
                    if index.corrupt and len(part) < len(data) // 2 and b"raise KeyError" not in part:
                        part[len(part) // 2] ^= 0xFF  # a member's bytes, not the directory's
                    return self.answer(206, bytes(part), {"Content-Range": f"bytes {start}-{end}/{len(data)}"})
                self.answer(404, b"not found", {})

            def answer(self, status, body, headers):
                self.send_response(status)
                for key, value in {"Content-Length": str(len(body)), **headers}.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(body)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/simple/"


@pytest.fixture
def index(tmp_path, monkeypatch):
    folder = tmp_path / "wheels"
    wheel = build_wheel(folder)
    with zipfile.ZipFile(wheel, "a", zipfile.ZIP_STORED) as zf:  # compiled kernels: most of a real wheel
        zf.writestr("vllm/_C.abi3.so", os.urandom(2_000_000))
    served = Index(folder)
    monkeypatch.setenv(wheels.INDEX_URL_ENV, served.url)
    monkeypatch.delenv("ERRORKB_PIP_ARGS", raising=False)
    yield served
    served.server.shutdown()


def test_only_the_python_files_are_read(index):
    fetched = wheels.read_python_files("vllm", "0.0.1", "vllm")
    assert dict(fetched.files) == WHEEL_PY
    assert fetched.wheel == "vllm-0.0.1-py3-none-any.whl"
    assert fetched.wheel_size > 2_000_000 and fetched.bytes_read < fetched.wheel_size / 10
    assert index.ranges and all(r.startswith("bytes=") for r in index.ranges)


def test_a_ranged_read_is_the_same_commit_as_a_whole_download(index, tmp_path, monkeypatch):
    ranged = resolve("pypi:vllm", "v0.0.1", tmp_path / "ranged")
    monkeypatch.setenv("ERRORKB_PIP_ARGS", f"--no-index --find-links {index.folder}")
    whole = resolve("pypi:vllm", "v0.0.1", tmp_path / "whole")
    assert ranged.commit == whole.commit


def test_a_server_that_ignores_ranges_gets_a_whole_download_with_pip(index, tmp_path, monkeypatch):
    index.ignore_range = True
    with pytest.raises(wheels.RangeNotServed):
        wheels.read_python_files("vllm", "0.0.1", "vllm")
    # errorkb falls back to pip, which reads the same index (and nothing else)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.delenv("PIP_FIND_LINKS", raising=False)
    monkeypatch.setenv("PIP_INDEX_URL", index.url)
    monkeypatch.delenv("PIP_EXTRA_INDEX_URL", raising=False)
    revision = resolve("pypi:vllm", "v0.0.1", tmp_path / "cache")
    assert revision.tag == "v0.0.1"


def test_a_damaged_member_is_refused(index, tmp_path):
    index.corrupt = True
    with pytest.raises(SourceError) as err:
        resolve("pypi:vllm", "v0.0.1", tmp_path / "cache")
    message = str(err.value)
    assert message.startswith("cannot fetch vllm 0.0.1 from ") and "CRC-32" in message and "\n" not in message


def test_an_unknown_release_and_an_unreachable_index_say_which_release_and_what_to_do(index, tmp_path, monkeypatch):
    with pytest.raises(SourceError, match=r"cannot fetch vllm 9\.9\.9 .* lists no wheel of vllm 9\.9\.9.*ERRORKB_INDEX_URL"):
        resolve("pypi:vllm", "v9.9.9", tmp_path / "cache")
    monkeypatch.setenv(wheels.INDEX_URL_ENV, "http://127.0.0.1:9/simple/")  # the discard port: nothing listens
    with pytest.raises(SourceError, match=r"cannot fetch vllm 0\.0\.1 from http://127\.0\.0\.1:9/simple/: cannot reach"):
        resolve("pypi:vllm", "v0.0.1", tmp_path / "cache")
