"""The ``NAME/**/*.py`` files of a release's wheel, read from the package index with
HTTP range requests: the zip's central directory, then only the Python members.

A vLLM wheel is mostly compiled kernels (336 MB for 0.33.0); its Python files are a
few megabytes of it. A zip file lists its members at its end, so three kinds of request
are enough: the last 64 KiB (the end-of-central-directory record, Zip64 included), the
central directory, and the byte spans of the wanted members, neighbours merged into one
request (``spans``). Every member is checked against its CRC-32 and against the sha256
that the wheel's own ``RECORD`` lists for it.

The index is read through its PEP 691 JSON simple API (``ERRORKB_INDEX_URL``, default
https://pypi.org/simple/). A server that ignores ``Range`` makes this a ``RangeNotServed``
and ``sources.py`` falls back to downloading the whole wheel with pip.
"""

from __future__ import annotations

import base64
import bisect
import csv
import hashlib
import io
import json
import os
import re
import struct
import urllib.error
import urllib.parse
import urllib.request
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Callable

INDEX_URL_ENV = "ERRORKB_INDEX_URL"
DEFAULT_INDEX_URL = "https://pypi.org/simple/"
TAIL_BYTES = 64 * 1024
MERGE_GAP = 64 * 1024  # neighbouring spans closer than this are fetched as one request
MAX_SPAN = 8 * 1024 * 1024  # but no request longer than this (the parts fetch in parallel)
CONNECTIONS = 8
TIMEOUT_S = 60
# The platforms whose wheel is read, in order of preference: every platform's wheel holds
# the same Python files, and one fixed choice keeps a release's commit the same everywhere.
PLATFORM_PREFERENCE = ("manylinux", "x86_64")


class WheelError(Exception):
    """A wheel that cannot be read this way; the message says which and why."""


class RangeNotServed(WheelError):
    """The server sent the whole file for a range request: use a whole download instead."""


@dataclass(frozen=True)
class Member:
    name: str
    method: int  # 0 stored, 8 deflated
    crc: int
    compressed_size: int
    size: int
    offset: int  # of its local header
    end: int  # where the next member's local header (or the central directory) starts


@dataclass
class Fetched:
    """What a ranged read fetched: the files, the wheel's name, and the bytes it took."""
    files: list[tuple[str, bytes]]
    wheel: str
    url: str
    bytes_read: int
    wheel_size: int
    requests: int


def index_url() -> str:
    url = os.environ.get(INDEX_URL_ENV, "").strip() or DEFAULT_INDEX_URL
    return url if url.endswith("/") else url + "/"


def _request(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers={"User-Agent": "errorkb", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as exc:
        raise WheelError(f"{url} answered HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise WheelError(f"cannot reach {url}: {reason}") from None


def wheel_url(name: str, version: str) -> tuple[str, str, int]:
    """(url, filename, size) of the release's wheel that is read, from the simple API."""
    project = re.sub(r"[-_.]+", "-", name).lower()
    url = urllib.parse.urljoin(index_url(), f"{project}/")
    status, headers, body = _request(url, {"Accept": "application/vnd.pypi.simple.v1+json"})
    if "json" not in headers.get("content-type", ""):
        raise RangeNotServed(f"{url} has no JSON simple API (PEP 691)")
    try:
        files = json.loads(body)["files"]
    except (ValueError, KeyError, TypeError):
        raise WheelError(f"{url} did not answer a PEP 691 project page") from None
    prefix = f"{project.replace('-', '_')}-{version}-"
    wheels = [f for f in files if isinstance(f, dict) and str(f.get("filename", "")).lower().startswith(prefix.lower())
              and str(f.get("filename")).endswith(".whl") and not f.get("yanked")]
    if not wheels:
        raise WheelError(f"{url} lists no wheel of {name} {version}")
    wheels.sort(key=lambda f: (-sum(word in f["filename"] for word in PLATFORM_PREFERENCE), f["filename"]))
    chosen = wheels[0]
    return urllib.parse.urljoin(url, chosen["url"]), chosen["filename"], int(chosen.get("size") or 0)


def _range(url: str, start: int, end: int) -> bytes:
    """Bytes [start, end) of ``url``."""
    status, headers, body = _request(url, {"Range": f"bytes={start}-{end - 1}"})
    if status != 206:
        raise RangeNotServed(f"{url} ignores range requests (HTTP {status})")
    if len(body) != end - start:
        raise WheelError(f"{url} sent {len(body)} bytes for a range of {end - start}")
    return body


def _total_size(url: str) -> tuple[int, bytes]:
    """The file's size and its last TAIL_BYTES, from one suffix range request."""
    status, headers, body = _request(url, {"Range": f"bytes=-{TAIL_BYTES}"})
    if status != 206:
        raise RangeNotServed(f"{url} ignores range requests (HTTP {status})")
    match = re.match(r"bytes (\d+)-(\d+)/(\d+)", headers.get("content-range", ""))
    if not match:
        raise RangeNotServed(f"{url} sent no Content-Range")
    return int(match[3]), body


def central_directory(url: str) -> tuple[list[Member], int, int]:
    """The wheel's members, its size, and the bytes read to list them."""
    size, tail = _total_size(url)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0:
        raise WheelError(f"{url} is not a zip file (no end of central directory in its last {TAIL_BYTES} bytes)")
    (_, _, _, _, count, cd_size, cd_offset, _) = struct.unpack("<4sHHHHIIH", tail[at:at + 22])
    if cd_offset == 0xFFFFFFFF or count == 0xFFFF or cd_size == 0xFFFFFFFF:
        locator = tail.rfind(b"PK\x06\x07", 0, at)
        if locator < 0:
            raise WheelError(f"{url}: a Zip64 file without its locator")
        (eocd64,) = struct.unpack("<Q", tail[locator + 8:locator + 16])
        tail_start = size - len(tail)
        record = tail[eocd64 - tail_start:] if eocd64 >= tail_start else _range(url, eocd64, eocd64 + 56)
        count, cd_size, cd_offset = struct.unpack("<QQQ", record[32:56])
    tail_start = size - len(tail)
    read = len(tail)
    if cd_offset >= tail_start:
        directory = tail[cd_offset - tail_start:cd_offset - tail_start + cd_size]
    else:
        directory = _range(url, cd_offset, cd_offset + cd_size)
        read += cd_size
    return _members(directory, cd_offset, url), size, read


def _members(directory: bytes, cd_offset: int, url: str) -> list[Member]:
    raw = []
    pos = 0
    while pos + 46 <= len(directory) and directory[pos:pos + 4] == b"PK\x01\x02":
        (method, crc, csize, usize, name_len, extra_len, comment_len, offset) = (
            struct.unpack("<H", directory[pos + 10:pos + 12])[0],
            *struct.unpack("<III", directory[pos + 16:pos + 28]),
            *struct.unpack("<HHH", directory[pos + 28:pos + 34]),
            struct.unpack("<I", directory[pos + 42:pos + 46])[0])
        name = directory[pos + 46:pos + 46 + name_len].decode("utf-8", "surrogateescape")
        extra = directory[pos + 46 + name_len:pos + 46 + name_len + extra_len]
        if 0xFFFFFFFF in (csize, usize, offset):
            csize, usize, offset = _zip64_sizes(extra, csize, usize, offset)
        raw.append((offset, name, method, crc, csize, usize))
        pos += 46 + name_len + extra_len + comment_len
    if not raw:
        raise WheelError(f"{url}: an empty or unreadable central directory")
    raw.sort()
    ends = [o for o, *_ in raw[1:]] + [cd_offset]
    return [Member(name, method, crc, csize, usize, offset, end)
            for (offset, name, method, crc, csize, usize), end in zip(raw, ends)]


def _zip64_sizes(extra: bytes, csize: int, usize: int, offset: int) -> tuple[int, int, int]:
    pos = 0
    while pos + 4 <= len(extra):
        tag, length = struct.unpack("<HH", extra[pos:pos + 4])
        if tag == 0x0001:
            values = list(struct.unpack(f"<{length // 8}Q", extra[pos + 4:pos + 4 + length - length % 8]))
            if usize == 0xFFFFFFFF:
                usize = values.pop(0)
            if csize == 0xFFFFFFFF:
                csize = values.pop(0)
            if offset == 0xFFFFFFFF:
                offset = values.pop(0)
            break
        pos += 4 + length
    return csize, usize, offset


def is_package_python_file(name: str, package: str) -> bool:
    """``package/**/*.py``, with no absolute or climbing paths (the same rule as a whole wheel)."""
    parts = PurePosixPath(name).parts
    return (name.endswith(".py") and bool(parts) and parts[0] == package and not name.startswith("/")
            and not any(p in ("", ".", "..") for p in name.split("/")))


def spans(members: list[Member]) -> list[tuple[int, int]]:
    """Byte ranges covering ``members`` (sorted by offset): neighbours less than MERGE_GAP
    apart share one request, up to MAX_SPAN long."""
    out: list[list[int]] = []
    for member in members:
        if out and member.offset - out[-1][1] <= MERGE_GAP and member.end - out[-1][0] <= MAX_SPAN:
            out[-1][1] = member.end
        else:
            out.append([member.offset, member.end])
    return [(start, end) for start, end in out]


def _extract(member: Member, blob: bytes, url: str) -> bytes:
    if blob[:4] != b"PK\x03\x04":
        raise WheelError(f"{url}: no local header at {member.offset} for {member.name}")
    name_len, extra_len = struct.unpack("<HH", blob[26:30])
    start = 30 + name_len + extra_len
    data = blob[start:start + member.compressed_size]
    if member.method == 0:
        content = data
    elif member.method == 8:
        try:
            content = zlib.decompress(data, -15)
        except zlib.error:
            raise WheelError(f"{url}: {member.name} does not decompress (its CRC-32 cannot match); "
                             "the download was damaged, run again") from None
    else:
        raise WheelError(f"{url}: {member.name} is compressed with method {member.method}, which errorkb cannot read")
    if zlib.crc32(content) != member.crc or len(content) != member.size:
        raise WheelError(f"{url}: {member.name} does not match its CRC-32; the download was damaged, run again")
    return content


def _record_hashes(record: bytes) -> dict[str, str]:
    """The wheel's RECORD: path -> urlsafe-base64 sha256 (without padding)."""
    hashes = {}
    for row in csv.reader(io.StringIO(record.decode("utf-8", "replace"))):
        if len(row) >= 2 and row[1].startswith("sha256="):
            hashes[row[0]] = row[1].removeprefix("sha256=")
    return hashes


def read_python_files(name: str, version: str, package: str,
                      progress: Callable[[int, int], None] | None = None) -> Fetched:
    """The ``package/**/*.py`` files of ``name``'s ``version`` wheel, sorted by path, read
    with range requests. ``progress(bytes_done, bytes_total)`` is called as parts arrive."""
    url, filename, _ = wheel_url(name, version)
    members, size, read = central_directory(url)
    record_name = next((m.name for m in members if m.name.endswith(".dist-info/RECORD")), None)
    wanted = [m for m in members if is_package_python_file(m.name, package) or m.name == record_name]
    parts = spans(wanted)
    total = sum(end - start for start, end in parts)
    done = 0
    if progress:
        progress(0, total)
    blobs: dict[int, bytes] = {}
    with ThreadPoolExecutor(CONNECTIONS) as pool:
        for (start, end), blob in zip(parts, pool.map(lambda span: _range(url, *span), parts)):
            blobs[start] = blob
            done += len(blob)
            if progress:
                progress(done, total)
    starts = sorted(blobs)
    contents: dict[str, bytes] = {}
    for member in wanted:
        start = starts[bisect.bisect_right(starts, member.offset) - 1]  # the span that holds it
        blob = blobs[start]
        contents[member.name] = _extract(member, blob[member.offset - start:member.end - start], url)
    hashes = _record_hashes(contents.pop(record_name)) if record_name else {}
    for path, content in contents.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b"=").decode()
        if path in hashes and hashes[path] != digest:
            raise WheelError(f"{url}: {path} does not match the sha256 in the wheel's RECORD; run again")
    return Fetched(sorted(contents.items()), filename, url, read + total, size, 2 + len(parts))
