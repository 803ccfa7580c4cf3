"""Bad files and hostile input fail cleanly, in bounded time and memory (issue 14, parts 5-7).

- Entries: anchors, aliases and merge keys (the billion laughs), nesting past the limit,
  files over 1 MiB, links (to /dev/zero), pipes, names and contents that are not UTF-8:
  each a ``path:line:col: what to do`` problem, ``errorkb check`` exit 1, never a hang.
- Caches: a damaged analysis database, lookup index or record is a miss (rebuilt, one
  warning line), never a crash.
- Builds: one at a time per output folder, swapped in without a moment where the folder
  is missing, temporary folders of killed builds swept, strict mode's warnings shown.
- Pastes: pathological ones finish (a hang guard, not a timing: speed is measured by
  ``bench/lookup.py``), in Python, on the command line and in Chromium, where the work is
  done off the page's thread.

Whatever could hang or exhaust memory if it regressed runs in a subprocess with a
timeout (and, for memory, an address-space limit).
"""

from __future__ import annotations

import functools
import html
import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from generator.entries.load import MAX_DEPTH, MAX_ENTRY_BYTES, load_entries, load_entry
from generator.entries.schema import SCHEMA_LINE
from generator.lookup.clean import (ANSI, MAX_TEXT_CHARS, clean_paste, decode_paste, squash_text, squashes_longer,
                                    unescape_html)
from gitrepo import tagged_repo
from generator.lookup.index import INDEX_SCHEMA_VERSION

ROOT = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent
HANG_GUARD_S = 60  # a guard against a hang, not a measure of speed

# 9 levels of 9 aliases: 9^9 (387 million) strings once expanded; a few hundred bytes of text.
BILLION_LAUGHS = SCHEMA_LINE + "\n" + "".join(
    ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n']
    + [f"{c}: &{c} [{','.join(['*' + p] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi")]
)


def run_python(code: str, *, timeout: float = HANG_GUARD_S, memory_bytes: int | None = None,
               stdin: bytes | None = None, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter, killed past ``timeout``; optionally with its address space capped."""
    prelude = ""
    if memory_bytes:
        prelude = f"import resource; resource.setrlimit(resource.RLIMIT_AS, ({memory_bytes}, {memory_bytes}))\n"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(TESTS)])}
    return subprocess.run([sys.executable, "-c", prelude + code], input=stdin, capture_output=True, timeout=timeout,
                          cwd=cwd, env=env)


def entry_problems(folder: Path, *, memory_bytes: int | None = None) -> list[str]:
    """``load_entries(folder)``'s problems, computed in a subprocess under the hang guard."""
    code = ("import json, sys; from pathlib import Path; from generator.entries.load import load_entries\n"
            f"entries, problems = load_entries(Path({str(folder)!r}), Path({str(folder)!r}))\n"
            "sys.stdout.write(json.dumps([len(entries), [str(p) for p in problems]]))\n")
    done = run_python(code, memory_bytes=memory_bytes)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-3000:]
    count, problems = json.loads(done.stdout)
    return problems


def warnings_in(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("errorkb: warning: ")]


# --- 5. entries: YAML and files ------------------------------------------------------------------


def test_the_billion_laughs_is_rejected_at_its_anchors_in_bounded_memory(tmp_path):
    assert len(BILLION_LAUGHS.encode()) < 1000
    (tmp_path / "laughs.yaml").write_text(BILLION_LAUGHS)
    problems = entry_problems(tmp_path, memory_bytes=1 << 30)  # 1 GiB: the expansion would need far more
    assert problems[0] == ("laughs.yaml:2:4: `&a` is a YAML anchor: remove it, and write out in full every value "
                           "that refers to it (an entry uses no anchors, aliases or merge keys)")
    assert problems[2].startswith("laughs.yaml:3:8: `*a` is a YAML alias: write the value it stands for out in full")
    # Ten are listed, the rest counted at the first one left out.
    assert len(problems) == 11 and problems[-1].startswith("laughs.yaml:3:32: 71 more anchors, aliases or merge keys")


def test_an_alias_and_a_merge_key_are_problems_at_their_line_and_column(tmp_path):
    (tmp_path / "alias.yaml").write_text(SCHEMA_LINE + "\n" + (
        "ids: [a000000000000001]\n"
        "title: Shared\n"
        "summary: &s A summary long enough for the schema.\n"
        "explanation: *s\n"
        "solutions:\n"
        "  - {title: One, why: because}\n"
        "  - <<: {title: Two}\n"
        "    why: because\n"
    ))
    entry, problems = load_entry(tmp_path / "alias.yaml", tmp_path)
    assert entry is None
    assert [str(p).split(": ", 1)[0] for p in problems] == ["alias.yaml:4:10", "alias.yaml:5:14", "alias.yaml:8:5"]
    assert "`&s` is a YAML anchor" in problems[0].message and "`*s` is a YAML alias" in problems[1].message
    assert "`<<` is a YAML merge key" in problems[2].message
    # A key written "<<" in quotes is only a string: no merge.
    (tmp_path / "alias.yaml").write_text(SCHEMA_LINE + "\nids: [a000000000000001]\n'<<': x\n")
    _, problems = load_entry(tmp_path / "alias.yaml", tmp_path)
    assert not any("merge key" in p.message for p in problems)


def test_nesting_deeper_than_the_limit_stops_at_once(tmp_path):
    """100,000 open brackets (200 KB): libyaml's own composer overflows the C stack on these."""
    (tmp_path / "deep.yaml").write_text(SCHEMA_LINE + "\nids: " + "[" * 100_000 + "]" * 100_000 + "\n")
    (problem,) = entry_problems(tmp_path)
    # Ours at the 33rd level; PyYAML 6.0.4 and later refuse deep flow nesting in their scanner
    # themselves, which may come first (their tokens are read ahead of the events).
    assert problem in (f"deep.yaml:2:{6 + MAX_DEPTH - 1}: the entry nests deeper than {MAX_DEPTH} levels: an entry "
                       "is a few levels of mappings and lists; flatten it",
                       "deep.yaml:2:1005: YAML syntax error: while increasing flow level exceeded maximum nesting depth; "
                       "fix the YAML (quote a value that holds `: ` or starts with a special character)"), problem


def test_an_entry_over_1_mib_is_not_read(tmp_path):
    (tmp_path / "big.yaml").write_text(SCHEMA_LINE + "\ntitle: " + "x" * (2 * 1024 * 1024) + "\n")
    (tmp_path / "limit.yaml").write_text(SCHEMA_LINE + "\ntitle: " + "x" * (MAX_ENTRY_BYTES - len(SCHEMA_LINE) - 9) + "\n")
    assert (tmp_path / "limit.yaml").stat().st_size == MAX_ENTRY_BYTES
    problems = [str(p) for p in load_entries(tmp_path, tmp_path)[1]]
    size = (tmp_path / "big.yaml").stat().st_size
    assert problems[0] == (f"big.yaml:1:1: the entry is {size:,} bytes; an entry is at most 1,048,576 bytes (1 MiB): "
                           "shorten it, or split it into entries of their own")
    assert not any(p.startswith("limit.yaml:1:1: the entry is") for p in problems)  # exactly the limit is read


@pytest.mark.slow  # seconds: kept out of the quick subset
def test_a_megabyte_of_problems_is_checked_in_bounded_time(tmp_path):
    """50,000 ids (some read as numbers: jsonschema's uniqueItems compared every pair, minutes)
    and 100,000 unknown keys (each one compared with the known ones): the first problems are
    listed, and that there are more."""
    from generator.entries.schema import MAX_SCHEMA_PROBLEMS

    (tmp_path / "ids.yaml").write_text(SCHEMA_LINE + "\ntitle: x\nsummary: x\nids: ["
                                       + ", ".join(f"{i:016x}" for i in range(50_000)) + "]\n")
    (tmp_path / "keys.yaml").write_text(SCHEMA_LINE + "\n" + "".join(f"k{i}: v\n" for i in range(100_000)))
    assert all(p.stat().st_size <= MAX_ENTRY_BYTES for p in tmp_path.iterdir())
    problems = entry_problems(tmp_path)
    for name in ("ids.yaml", "keys.yaml"):
        mine = [p for p in problems if p.startswith(name + ":")]
        assert len(mine) == MAX_SCHEMA_PROBLEMS + 1
        assert sum(f"more problems than these {MAX_SCHEMA_PROBLEMS}: fix these, and run the check again" in p for p in mine) == 1


@pytest.mark.slow  # seconds: kept out of the quick subset
def test_fifty_thousand_unknown_ids_are_checked_against_the_catalog_in_bounded_time(tmp_path):
    """The "did you mean" guess is the same for every unknown id of an entry: one search of
    the catalog per entry, not one per id (50,000 ids against 20,000 templates took minutes)."""
    (tmp_path / "ids.yaml").write_text(SCHEMA_LINE + "\ntitle: x\nsummary: cache blocks\nids: ["
                                       + ", ".join(f"'{i:016x}'" for i in range(50_000)) + "]\n")
    code = ("import json, sys; from pathlib import Path; from generator.entries.load import load_entries\n"
            "from generator.entries.check import check_entries\n"
            f"entries, _ = load_entries(Path({str(tmp_path)!r}), Path({str(tmp_path)!r}))\n"
            "catalog = [{'id': f'{i:016x}'.replace('0', 'f', 1), 'template': f'message {i} about cache blocks {{n}}'}"
            " for i in range(20_000)]\n"
            "problems = check_entries(entries, catalog, set(), 'v1')\n"
            "sys.stdout.write(json.dumps([str(p) for p in problems]))\n")
    done = run_python(code)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-3000:]
    problems = json.loads(done.stdout)
    assert len(problems) == 50_000
    assert problems[0].startswith("ids.yaml:") and "is not raised at v1; did you mean f" in problems[0]


def test_a_link_to_dev_zero_and_a_pipe_are_problems_not_hangs(tmp_path):
    os.symlink("/dev/zero", tmp_path / "zero.yaml")
    os.symlink(tmp_path / "elsewhere.yaml", tmp_path / "link.yaml")
    (tmp_path / "elsewhere.yaml").write_text(SCHEMA_LINE + "\nids: [a000000000000001]\n")
    os.mkfifo(tmp_path / "pipe.yaml")  # no writer: a blocking read would wait forever
    problems = [p for p in entry_problems(tmp_path) if not p.startswith("elsewhere.yaml")]
    assert problems == [
        "link.yaml:1:1: the entry is a symbolic link; an entry is a regular file of its own: "
        "replace the link by a copy of the file it points to",
        "pipe.yaml:1:1: the entry cannot be read (a named pipe): an entry is a plain YAML file",
        "zero.yaml:1:1: the entry is a symbolic link; an entry is a regular file of its own: "
        "replace the link by a copy of the file it points to",
    ]


def test_names_and_contents_that_are_not_utf8(tmp_path):
    (tmp_path / os.fsdecode(b"caf\xe9.yaml")).write_text(SCHEMA_LINE + "\nids: [a000000000000001]\n")
    (tmp_path / "latin1.yaml").write_bytes(SCHEMA_LINE.encode() + b"\nids: [a000000000000001]\ntitle: caf\xe9 au lait\n")
    (tmp_path / "nul.yaml").write_text(SCHEMA_LINE + "\ntitle: a\x00b\n")
    entries, problems = load_entries(tmp_path, tmp_path)
    assert entries == []
    text = [str(p) for p in problems]
    assert text == [
        "caf\\xe9.yaml:1:1: the file name is not UTF-8: rename it to lowercase letters, digits and dashes, ending in .yaml",
        "latin1.yaml:3:11: the file is not UTF-8 (invalid continuation byte at byte 105): save it as UTF-8",
        "nul.yaml:2:9: the character U+0000 is not allowed in YAML: remove it, or write it as an escape in a double-quoted string",
    ]
    for line in text:
        line.encode("utf-8")  # printable as it is


def test_errorkb_check_prints_each_as_path_line_col_and_exits_1(tmp_path):
    repo = tagged_repo(tmp_path / "r", {"v1": {"vllm/a.py": "raise ValueError('boom')\n"}})
    errors = tmp_path / "errors"
    errors.mkdir()
    (errors / "laughs.yaml").write_text(BILLION_LAUGHS)
    os.symlink("/dev/zero", errors / "zero.yaml")
    (errors / "big.yaml").write_text(SCHEMA_LINE + "\ntitle: " + "x" * (2 * 1024 * 1024) + "\n")
    done = subprocess.run([sys.executable, "-m", "generator", "check", "--source", str(repo), "--rev", "v1",
                           "--errors", str(errors), "--pin-only"], cwd=ROOT, capture_output=True, text=True,
                          timeout=HANG_GUARD_S, env={**os.environ, "ERRORKB_CACHE_DIR": str(tmp_path / "c")})
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines and all(re.match(r"^\S+\.yaml:\d+:\d+: \S", line) for line in lines), lines
    assert {Path(line.split(":", 1)[0]).name for line in lines} == {"laughs.yaml", "zero.yaml", "big.yaml"}
    assert done.stderr.strip().splitlines() == ["errorkb: error: 13 problems in 3 of 3 entries (at v1)"]


# --- 6. caches, records and builds that heal -------------------------------------------------------------


def scan(repo: Path, cache: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "generator", "scan", "--source", str(repo), "--rev", "v1",
                           "--out", "-", "--cache-dir", str(cache), *extra], cwd=ROOT, capture_output=True,
                          text=True, timeout=HANG_GUARD_S, env={**os.environ, "ERRORKB_CACHE_DIR": str(cache)})


def _garbage(data: bytes) -> bytes:
    return b"this is not a database" * 100


def _truncated(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _other_tables(data: bytes) -> bytes:
    return b""  # filled below: a real SQLite database with another table "analysis"


@pytest.mark.slow  # seconds: kept out of the quick subset
@pytest.mark.parametrize("damage", [_garbage, _truncated, _other_tables], ids=["garbage", "truncated", "other tables"])
@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_damaged_analysis_cache_is_rebuilt_with_one_warning(tmp_path, damage, workers):
    files = {f"vllm/m{i}.py": f"def f{i}(x):\n    if x:\n        raise ValueError('boom {i} ' + str(x))\n" for i in range(40)}
    repo = tagged_repo(tmp_path / "r", {"v1": files})
    cache = tmp_path / "c"
    clean = scan(repo, cache, "--workers", workers)
    assert clean.returncode == 0 and warnings_in(clean.stderr) == [], clean.stderr
    db = cache / "analysis.sqlite"
    if damage is _other_tables:
        db.unlink()
        with sqlite3.connect(db) as other:
            other.execute("CREATE TABLE analysis (name TEXT)")
        other.close()
    else:
        db.write_bytes(damage(db.read_bytes()))
    healed = scan(repo, cache, "--workers", workers)
    assert healed.returncode == 0, healed.stderr
    assert "Traceback" not in healed.stderr
    (warning,) = warnings_in(healed.stderr)
    assert str(db) in warning and "rebuilt" in warning
    assert json.loads(healed.stdout) == json.loads(clean.stdout)
    again = scan(repo, cache, "--workers", workers)  # healed for good
    assert again.returncode == 0 and warnings_in(again.stderr) == [] and again.stdout == clean.stdout


def test_a_cache_damaged_after_it_was_opened_is_a_miss(tmp_path, capsys):
    """Pages damaged where opening the file does not look: found by the queries, in the main
    process (rebuilt, one warning) and in a worker's reader (a miss)."""
    from generator.scan.cache import BlobCache, PieceStore, Rows

    path = tmp_path / "analysis.sqlite"
    with BlobCache(path) as cache:
        rows = Rows()
        for i in range(3000):
            rows.add_analysis(f"blob{i:05d}", {"sites": [], "n": i, "pad": "x" * 200})
        rows.add_pieces({f"piece{i}": {"stmts": [["def", f"f{i}"]]} for i in range(3000)}, [])
        cache.store(rows)
    size = path.stat().st_size
    with open(path, "r+b") as handle:  # scribble over every tenth page past the first few
        for page in range(8, size // 4096, 10):
            handle.seek(page * 4096 + 64)
            handle.write(b"\xff" * 512)
    reader = PieceStore.reader(path, "any")  # as a worker opens it: no exception, misses
    assert reader.lookup([f"piece{i}" for i in range(3000)]) == {}
    with BlobCache(path) as cache:
        found = dict(cache.get_many(f"blob{i:05d}" for i in range(3000)))
        assert len(found) < 3000  # what could not be read is a miss
        cache.put_many([("new", {"sites": []})])  # and the cache works on
        assert dict(cache.get_many(["new"])) == {"new": {"sites": []}}
    (warning,) = warnings_in(capsys.readouterr().err)
    assert str(path) in warning and "damaged" in warning
    with BlobCache(path) as cache:
        assert dict(cache.get_many(["new"])) == {"new": {"sites": []}}
    assert warnings_in(capsys.readouterr().err) == []


def test_a_locked_cache_is_not_deleted(tmp_path):
    """Only damage heals the cache: a database another process holds is an error, and kept."""
    from generator.scan.cache import BlobCache, CacheError

    path = tmp_path / "analysis.sqlite"
    with BlobCache(path) as cache:
        cache.put_many([("kept", {"sites": []})])
    holder = sqlite3.connect(path, timeout=0, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another writer: this one waits, then gives up
    try:
        with BlobCache(path) as cache:
            cache.db.execute("PRAGMA busy_timeout = 0")
            with pytest.raises(CacheError, match="locked"):
                cache.put_many([("other", {"sites": []})])
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    with BlobCache(path) as cache:
        assert dict(cache.get_many(["kept"])) == {"kept": {"sites": []}}


def _index_text(sites='[[0, 1, "f"]]', versions="1", extra="", ids='["x"]') -> bytes:
    """A one-error lookup index of the current schema, with one part of it damaged."""
    return ('{"schema_version": %d, "revisions": ["v1"], "paths": {"p": 1}, "errors": {"id": %s, '
            '"exception": ["E"], "template": ["t"], "has_message": [true], "versions": [%s], "sites": [%s], '
            '"forms": [[]]}%s}' % (INDEX_SCHEMA_VERSION, ids, versions, sites, extra)).encode()


@pytest.mark.parametrize("text", [b"{not json", b'{"schema_version": %d, "errors": [1, 2]}' % INDEX_SCHEMA_VERSION, b"\xff\xfe", b"[]",
                                  b'{"schema_version": %d, "revisions": ["v1"], "paths": {"p": 1}, "errors": [["x", "E", "t", true, 1, [[0, 1, "f"]], []]]}'
                                  % INDEX_SCHEMA_VERSION,
                                  _index_text(ids='["x", "y"]'),
                                  _index_text(sites='[[0, "1", "f"]]'),
                                  _index_text(sites='[[3, 1, "f"]]'),
                                  _index_text(versions="4"),
                                  _index_text(extra=', "kinds": {"log": [1]}'),
                                  _index_text(extra=', "log_lines": {"x": [500]}'),
                                  _index_text(extra=', "functions_before": {"3": "f"}'),
                                  _index_text(extra=', "reasons": {"1": ["a reason past the errors"]}')],
                         ids=["truncated", "bad rows", "not utf-8", "a list", "rows, not columns", "columns of two lengths",
                              "a bad site", "a path number past the paths",
                              "a release past the revisions", "a kind's row past the errors", "a log line not a string",
                              "a function's path number past the paths", "a reason's row past the errors"])
def test_a_damaged_lookup_index_is_built_again_with_one_warning(tmp_path, capsys, text):
    from generator.lookup.cache import stored_index
    from generator.lookup.index import INDEX_SCHEMA_VERSION, compact_index, matcher_from_index
    from test_site import CATALOG

    path = tmp_path / "lookup-index-x.json"
    path.write_bytes(text)
    built = []

    def build():
        built.append(1)
        return compact_index([CATALOG])

    index = stored_index(path, build, INDEX_SCHEMA_VERSION)
    matcher_from_index(index)  # usable
    assert built == [1]
    (warning,) = warnings_in(capsys.readouterr().err)
    assert str(path) in warning and "built again" in warning
    assert stored_index(path, build, INDEX_SCHEMA_VERSION) == index and built == [1]  # stored: read, no warning
    # An index of another format is an ordinary miss: built again, no warning.
    path.write_text(json.dumps({"schema_version": INDEX_SCHEMA_VERSION - 1, "errors": []}))
    stored_index(path, build, INDEX_SCHEMA_VERSION)
    assert built == [1, 1] and warnings_in(capsys.readouterr().err) == []


def test_a_malformed_record_is_no_record_with_one_warning_and_the_site_builds(tmp_path, capsys):
    from generator.repro.records import load_records
    from generator.site.build import SiteInput, build_site
    from test_site import CATALOG, ENGINE_ARGS, ENTRY, RECORD

    records = tmp_path / "verifications"
    records.mkdir()
    (records / "good.json").write_text(json.dumps(RECORD))
    (records / "hostile.json").write_text('{"entry": "hostile", "runs": {"cpu-0": ')  # cut short
    (records / "list.json").write_text("[1, 2]")
    (records / "runs.json").write_text('{"runs": {"cpu-0": 5}}')
    (records / "latin1.json").write_bytes(b'{"entry": "caf\xe9"}')
    (records / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    os.symlink("/dev/zero", records / "zero.json")
    os.mkfifo(records / "pipe.json")
    found = load_records(records)
    assert set(found) == {"good"}
    lines = warnings_in(capsys.readouterr().err)
    assert len(lines) == 7 and all("not a record" in line for line in lines)
    assert {Path(line.split(": ")[2]).stem for line in lines} == {"hostile", "list", "runs", "latin1", "deep", "zero", "pipe"}
    (tmp_path / "errors").mkdir()
    (tmp_path / "errors" / "hostile.yaml").write_text(ENTRY)
    entries, problems = load_entries(tmp_path / "errors", tmp_path)
    assert not problems
    build_site(ROOT / "mkdocs.yml", SiteInput(catalog=CATALOG, entries=entries, engine_args=ENGINE_ARGS,
                                              verifications=found), tmp_path / "site")
    page = json.loads((tmp_path / "site" / "api" / "errors" / "0123456789abcdef.json").read_text())
    assert page["verified"] is None  # the damaged record shows as none


# --- builds: a lock, a swap with no gap, sweeping -------------------------------------------------------

BUILD = """
import sys
from pathlib import Path
from generator.site.build import SiteInput, build_site
from test_site import CATALOG, ENGINE_ARGS
build_site(Path({config!r}), SiteInput(catalog=CATALOG, entries=[], engine_args=ENGINE_ARGS), Path({out!r}))
"""


def start_build(out: Path, config: Path = ROOT / "mkdocs.yml") -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(TESTS)])}
    return subprocess.Popen([sys.executable, "-c", BUILD.format(config=str(config), out=str(out))], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


def finish(process: subprocess.Popen) -> str:
    _, stderr = process.communicate(timeout=HANG_GUARD_S * 2)
    assert process.returncode == 0, stderr.decode(errors="replace")[-3000:]
    return stderr.decode()


POLL = """
import os, sys
out, stop = sys.argv[1], sys.argv[2]
checks = missing = 0
while not os.path.exists(stop):
    checks += 1
    if not os.path.isfile(os.path.join(out, "index.html")):
        missing += 1
print(checks, missing)
"""


def poller(out: Path) -> tuple[subprocess.Popen, Path]:
    """A reader looking at ``out/index.html`` as fast as it can until told to stop."""
    stop = out.parent / "stop-polling"
    return subprocess.Popen([sys.executable, "-c", POLL, str(out), str(stop)], stdout=subprocess.PIPE, text=True), stop


def stop_polling(process: subprocess.Popen, stop: Path) -> tuple[int, int]:
    stop.touch()
    checks, missing = map(int, process.communicate(timeout=HANG_GUARD_S)[0].split())
    return checks, missing


def test_swapping_in_a_site_leaves_no_moment_without_one(tmp_path):
    """Many swaps while a reader polls: the folder is always there (the exchange is one step)."""
    from generator.site.build import _remove, _swap

    out = tmp_path / "site"
    out.mkdir()
    (out / "index.html").write_text("0")
    reader, stop = poller(out)
    while not reader.poll() and not out.exists():
        pass
    time.sleep(0.2)
    for i in range(1, 400):
        new = tmp_path / f".site.build-{i}"
        new.mkdir()
        (new / "index.html").write_text(str(i))
        _swap(new, out)
        _remove(new)  # the old site, now at the temporary path
    checks, missing = stop_polling(reader, stop)
    assert (out / "index.html").read_text() == "399"
    assert checks > 1000 and missing == 0


def test_swapping_without_an_exchange_still_replaces_the_site(tmp_path, monkeypatch):
    """Where renameat2 cannot exchange (another system, another file system): two renames."""
    import generator.site.build as build

    monkeypatch.setattr(build, "_exchange", lambda a, b: False)
    out = tmp_path / "site"
    out.mkdir()
    (out / "old.html").write_text("old")
    new = tmp_path / "new"
    new.mkdir()
    (new / "index.html").write_text("new")
    build._swap(new, out)
    assert [p.name for p in out.iterdir()] == ["index.html"] and not new.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


@pytest.mark.slow  # seconds: kept out of the quick subset
def test_two_builds_racing_on_one_out_never_leave_it_missing(tmp_path):
    out = tmp_path / "public" / "site"
    out.parent.mkdir()
    out.mkdir()
    (out / "index.html").write_text("a plain folder the user had")
    (out / "stray.txt").write_text("not the site's")
    reader, stop = poller(out)
    builds = [start_build(out) for _ in range(3)]
    for build in builds:
        finish(build)
    checks, missing = stop_polling(reader, stop)
    assert checks > 1000 and missing == 0
    assert not (out / "stray.txt").exists() and (out / "api" / "lookup-index.json").is_file()
    assert sorted(p.name for p in out.parent.iterdir()) == ["site", "stop-polling"]  # no temporary folder, no lock file


@pytest.mark.slow  # seconds: kept out of the quick subset
def test_a_build_waits_for_the_lock(tmp_path):
    from generator.site.build import output_lock

    out = tmp_path / "site"
    with output_lock(out):
        build = start_build(out)
        line = build.stderr.readline().decode()
        assert line.strip() == f"errorkb: waiting for another build of {out} to finish"
        time.sleep(0.5)
        assert build.poll() is None and not out.exists()
    finish(build)
    assert (out / "index.html").is_file()
    assert not (tmp_path / ".site.lock").exists()


@pytest.mark.slow  # seconds: kept out of the quick subset
def test_a_killed_build_is_swept_by_the_next(tmp_path):
    out = tmp_path / "site"
    killed = start_build(out)
    deadline = time.monotonic() + HANG_GUARD_S
    while not list(tmp_path.glob(".site.build-*/docs/errors")) and time.monotonic() < deadline:
        time.sleep(0.005)
    os.killpg(killed.pid, signal.SIGKILL)
    killed.communicate(timeout=HANG_GUARD_S)
    left = list(tmp_path.glob(".site.build-*"))
    assert left, "the build was killed before it made its temporary folder"
    (tmp_path / ".site.old").mkdir()  # what a swap of the old way, killed, left
    finish(start_build(out))
    assert (out / "index.html").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_strict_mode_aborts_show_the_warnings(tmp_path):
    from generator.site.build import BuildError, SiteInput, build_site
    from test_site import CATALOG, ENGINE_ARGS

    config = (ROOT / "mkdocs.yml").read_text()
    assert "  - JSON API: json-api.md\n" in config
    (tmp_path / "mkdocs.yml").write_text(config.replace("  - JSON API: json-api.md\n",
                                                        "  - JSON API: json-api.md\n  - Gone: no-such-page.md\n"))
    for folder in ("templates", "models"):
        (tmp_path / folder).symlink_to(ROOT / folder)
    with pytest.raises(BuildError) as failed:
        build_site(tmp_path / "mkdocs.yml", SiteInput(catalog=CATALOG, entries=[], engine_args=ENGINE_ARGS), tmp_path / "site")
    message = str(failed.value)
    assert "Aborted with 1 warnings in strict mode" in message
    assert "WARNING: A reference to 'no-such-page.md' is included in the 'nav' configuration" in message
    assert "\n" not in message  # one line, as errorkb prints it


# --- 7. bounded time on any paste --------------------------------------------------------------------------

OSC_PASTE = "\x1b]" * 100_000  # 200 KB of OSC escapes left open


def test_an_osc_escape_ends_at_the_next_escape():
    """What makes cleaning linear: an OSC's body never reaches past the next ESC, so each is read once."""
    assert ANSI.match("\x1b]0;title\x07").group() == "\x1b]0;title\x07"
    assert ANSI.match("\x1b]8;;https://x\x1b\\").group() == "\x1b]8;;https://x\x1b\\"  # ended by ST
    assert ANSI.match("\x1b]0;open" + "\x1b]" + "x\x07").group() == "\x1b]"  # not up to the BEL of another
    assert clean_paste("a\x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\ b\x1b]0;t\x07c") == "alink bc"
    for _ in range(200):  # and never a match whose body holds an ESC
        text = "".join(random.choice(["\x1b]", "\x1b", "\x07", "\\", "a", "[", "m", ";"]) for _ in range(40))
        for match in ANSI.finditer(text):
            if match.group().startswith("\x1b]") and len(match.group()) > 2:
                body = match.group()[2:].removesuffix("\x1b\\").removesuffix("\x07")
                assert "\x1b" not in body and "\x07" not in body


PATHOLOGICAL = r"""
import random
from generator.lookup.index import matcher_from_catalogs
from test_site import CATALOG

matcher = matcher_from_catalogs([CATALOG])
rng = random.Random(7)
pastes = [
    "\x1b]" * 100_000,  # OSC escapes left open
    "\n" * 200_000,
    "&#" + "9" * 5000,
    "&#" + "0" * 5000 + "65;",
    "".join(rng.choice("\x1b[]();:\\\"'`&#\n |-.>09aeINFOxX") for _ in range(200_000)),
    "ValueError: " + "x " * 100_000 + "bad",
    "(" + "a " * 100_000,
    "\U0001F680" * 300_000,
]
for paste in pastes:
    matcher.lookup(paste)
print("done")
"""


@pytest.mark.slow  # seconds: kept out of the quick subset
def test_the_pathological_pastes_finish_in_python():
    """A hang guard (the timings are bench/lookup.py's): each paste cleaned and matched."""
    done = run_python(PATHOLOGICAL)
    assert done.returncode == 0 and done.stdout.decode().strip() == "done", done.stderr.decode()[-2000:]


@pytest.mark.slow  # seconds: kept out of the quick subset
def test_50_mb_of_random_bytes_finish_on_the_command_line(tmp_path):
    repo = tagged_repo(tmp_path / "r", {"v1": {"vllm/a.py": "raise ValueError('boom')\n"}})
    paste = random.Random(20251201).randbytes(50 * 1024 * 1024)
    done = subprocess.run([sys.executable, "-m", "generator", "lookup", "--source", str(repo), "--rev", "v1", "--pin-only",
                           "--json"], input=paste, capture_output=True, cwd=ROOT, timeout=HANG_GUARD_S,
                          env={**os.environ, "ERRORKB_CACHE_DIR": str(tmp_path / "c")})
    assert done.returncode == 1, done.stderr.decode(errors="replace")  # nothing matches: exit 1, no traceback
    assert json.loads(done.stdout) == {"matches": [], "not_vllm": None, "releases": None}


def test_long_numeric_character_references_are_read_as_html_reads_them():
    """int() refuses more than 4,300 digits; such a reference is beyond Unicode: U+FFFD."""
    assert clean_paste("a &#" + "9" * 5000 + "; b") == "a \ufffd b"
    assert clean_paste("&#" + "0" * 5000 + "65;&#x" + "0" * 5000 + "41") == "AA"
    from html.entities import html5

    samples = ["&#65;", "&#x41", "&#0;", "&#128;", "&#xD800;", "&#1114112;", "&#99999999;", "&#999999999;", "&#x110000;",
               "&#00000065", "&amp;amp;", "&notit;", "&ampx", "&#;", "&#x;", "& x"] + [f"&{name}x" for name in sorted(html5)[::7]]
    for sample in samples:
        assert unescape_html(sample) == html.unescape(sample), sample


def test_only_the_end_of_a_big_paste_is_decoded_and_it_is_the_same():
    rng = random.Random(5)
    for data in (rng.randbytes(4 * MAX_TEXT_CHARS + 1001), b"\xf0" + b"\x80" * (4 * MAX_TEXT_CHARS + 7),
                 bytes(rng.choice(b"\x80\xbf\xe2\xf0A\xc3") for _ in range(4 * MAX_TEXT_CHARS + 3)),
                 ("é🚀" * MAX_TEXT_CHARS).encode()[1:], b"short \xff"):
        assert decode_paste(data)[-MAX_TEXT_CHARS:] == data.decode("utf-8", "replace")[-MAX_TEXT_CHARS:]


def test_squashes_longer_agrees_with_squashing():
    """The quick test the matcher makes before squashing a line: never True wrongly, and
    exact where lower case keeps lengths."""
    rng = random.Random(9)
    alphabet = ["a", "B", " ", "\n", "`", "'", '"', "\u2019", "\u00a0", "🚀", "\t", "é"]
    for expanding in ([], ["İ"]):
        for _ in range(500):
            text = "".join(rng.choice(alphabet + expanding) for _ in range(rng.randint(0, 30)))
            start = rng.randint(0, len(text))
            end = rng.randint(start, len(text))
            size = rng.randint(0, 12)
            longer = len(squash_text(text[start:end])) > size
            assert squashes_longer(text, start, end, size) == longer if not expanding else longer or not squashes_longer(text, start, end, size)


# --- 7. in the browser: the pathological paste finishes, and off the page's thread ---------------------------


@pytest.fixture(scope="module")
def small_lookup_site(tmp_path_factory):
    """A page with the lookup box, lookup.js and a small index, served over HTTP."""
    from generator.lookup.index import compact_index
    from test_site import CATALOG

    root = tmp_path_factory.mktemp("lookup-site")
    (root / "assets").mkdir()
    (root / "api").mkdir()
    (root / "assets" / "lookup.js").write_bytes((ROOT / "templates" / "assets" / "lookup.js").read_bytes())
    (root / "api" / "lookup-index.json").write_text(json.dumps(compact_index([CATALOG])))
    (root / "index.html").write_text(
        '<!doctype html><meta charset="utf-8"><textarea id="errorkb-paste"></textarea>'
        '<button id="errorkb-find" type="button">Find</button><div id="errorkb-results"></div>'
        '<script src="assets/lookup.js"></script>'
    )

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format, *args):  # noqa: A002 - the base class's name
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    server.shutdown()
    server.server_close()


from test_browser import browser  # noqa: E402,F401 - the Chromium fixture

RUN = """
const [kind, text, done] = arguments;
const order = [];
setTimeout(() => order.push("page"), 0);  // runs at once when the page's thread is free
const work = kind === "clean" ? window.errorkb._clean(text) : window.errorkb.lookup(text, 5);
work.then((result) => { order.push("answer"); done({result, order}); }, (error) => done({error: String(error && error.stack || error)}));
"""


def test_the_osc_paste_is_cleaned_in_chromium_as_in_python(browser, small_lookup_site):  # noqa: F811
    browser.set_script_timeout(HANG_GUARD_S)
    browser.get(small_lookup_site)
    ready = browser.execute_async_script(
        "const done = arguments[0]; window.errorkb.ready.then(() => done(null), (e) => done(String(e)));")
    assert ready is None, ready
    rng = random.Random(11)
    pastes = [OSC_PASTE, OSC_PASTE + "ValueError: boom", "a\x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\ b\x1b]0;t\x07c",
              "".join(rng.choice("\x1b]\x07\\a;[m ") for _ in range(20_000)),
              "&" + " &".join(f"name{i};" for i in range(3000)) + " &#" + "9" * 5000 + ";"]
    for paste in pastes:
        answer = browser.execute_async_script(RUN, "clean", paste)
        assert "error" not in answer, answer["error"]
        assert answer["result"] == clean_paste(paste)
    answer = browser.execute_async_script(RUN, "lookup", OSC_PASTE + "\nValueError: block size 16 must divide 3")
    assert "error" not in answer, answer["error"]
    assert [m["id"] for m in answer["result"]["matches"]] == ["fedcba9876543210"]


def test_the_lookup_runs_off_the_pages_thread(browser, small_lookup_site):  # noqa: F811
    """The page answers its own events while a paste is looked up: the work is in a Web Worker.
    (In the page, a lookup of the loaded matcher would run before the page's next event.)"""
    browser.set_script_timeout(HANG_GUARD_S)
    browser.get(small_lookup_site)
    ready = browser.execute_async_script(
        "const done = arguments[0]; window.errorkb.ready.then(() => done(null), (e) => done(String(e)));")
    assert ready is None, ready
    paste = "".join(random.Random(3).choice("abc \n\x1b]&#;") for _ in range(MAX_TEXT_CHARS))
    answer = browser.execute_async_script(RUN, "lookup", paste)
    assert "error" not in answer, answer["error"]
    assert answer["order"] == ["page", "answer"]
    workers = browser.execute_script(
        "return performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/assets/lookup.js')).length;")
    assert workers == 2  # the page's script, and the same file started as its worker


def test_the_command_line_prints_no_control_character_a_scanned_source_holds(tmp_path):
    """A message (and a reason it gives) is the source's text: an ESC or a C1 CSI in it would
    be a terminal's escape sequence; `errorkb lookup` shows them as U+FFFD."""
    code = ("def can_implement(c):\n    return False, 'the kernel cannot run this layer in any mode \\x1b]0;owned\\x07 \\x9b31m'\n\n"
            "def choose(k):\n    failure_reasons = [k.can_implement(1)]\n"
            "    raise ValueError(f'no kernel for this layer at all: {failure_reasons} \\x1b[2J\\x1b[31m\\r')\n")
    repo = tagged_repo(tmp_path / "r", {"v1": {"vllm/a.py": code}})
    for paste in ("no kernel for this layer at all", "the kernel cannot run this layer in any mode"):
        done = subprocess.run([sys.executable, "-m", "generator", "lookup", "--source", str(repo), "--rev", "v1", "--pin-only",
                               paste], capture_output=True, cwd=ROOT, timeout=HANG_GUARD_S,
                              env={**os.environ, "ERRORKB_CACHE_DIR": str(tmp_path / "c")})
        out = done.stdout.decode()
        assert done.returncode == 0 and "\ufffd" in out, (done.stdout, done.stderr.decode()[-2000:])
        assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", out), out
