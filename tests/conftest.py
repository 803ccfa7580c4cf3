"""Shared fixtures (tiny source strings turned into scans, the corpus bundle, the pinned
vLLM), and the markers of the suite's slow parts.

Markers (registered in pyproject.toml, checked by --strict-markers):

- ``browser``: drives Chromium through selenium;
- ``vllm``: runs the pinned vLLM's own interpreter;
- ``slow``: everything else that takes long: scans of the corpus bundle, whole-site
  builds, history over many releases, a local Ray cluster.

``python -m pytest`` (CI) runs everything; ``python -m pytest -m "not slow and not vllm
and not browser"`` is the quick subset. Test files owned by the people who wrote these
rules mark their tests themselves (``pytestmark`` or per test); ``pytest_collection_modifyitems``
below marks every test by the fixtures it uses, plus a checked list of node ids where
fixtures do not tell.

Nothing here skips: a test that needs something absent fails saying what to install,
and a skip from anywhere (``pytest.skip``, ``importorskip``) is turned into a failure.
"""

from __future__ import annotations

import ast
import json
import os
import textwrap
from pathlib import Path

import pytest

from generator.scan.records import FileScan, RaiseSite
from generator.scan.walker import scan_source

ROOT = Path(__file__).resolve().parents[1]
CORPUS_BUNDLE = ROOT.parent / "shared" / "corpus" / "vllm-releases.bundle"


def pytest_addoption(parser):
    parser.addoption("--regen-golden", action="store_true", help="rewrite tests/golden/ from the current templates")


# --------------------------------------------------------------------------------- markers

# A test that uses one of these fixtures (directly or through another fixture: pytest's
# closure of fixture names) gets the marker.
FIXTURE_MARKS = {
    "browser": "browser",  # the Chromium driver (test_browser.py; test_memory_browser.py imports it)
    "vllm_python": "vllm",  # the pinned vLLM's interpreter, checked (below)
    "vllm_results": "vllm",  # test_memory.py: the pinned vLLM's figures for every agreement case
    # The 23-release corpus: corpus_scan, pin_matcher, corpus_site (a whole site) and every
    # fixture of a test file built on them (revisions, served_site, ...) use it.
    "corpus_bundle": "slow",
    # errorkb built by pip (and installed in a new virtual environment by the tests that use it)
    "checkout_copy": "slow",
}

# Tests of the files marked here (not their own) that are slow though no fixture says so.
# Only the bare test name (no [parameters]): it marks every parametrisation. A name that is
# no longer defined in its file stops the run, so this list cannot rot silently.
SLOW_BY_NODE_ID = [
    # `errorkb build` as a process: mkdocs builds a whole site (pin-only, a one-file repository)
    "tests/test_site.py::test_build_command",
]
NODE_ID_MARKS = {node_id: "slow" for node_id in SLOW_BY_NODE_ID}


def _defined(root: Path, node_id: str) -> bool:
    """Whether ``path::name`` (or ``path::Class::name``) is defined in that file, whatever was collected."""
    path, *names = node_id.split("::")
    if "[" in node_id or not names:
        raise pytest.UsageError(f"conftest.py: list {node_id!r} as path::test_name, without [parameters]")
    try:
        tree = ast.parse((root / path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return False
    body = tree.body
    for name in names:
        found = [n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == name]
        if not found:
            return False
        body = getattr(found[0], "body", [])
    return True


@pytest.hookimpl(tryfirst=True)  # before -m deselects by these marks
def pytest_collection_modifyitems(config, items):
    root = config.rootpath
    gone = [node_id for node_id in NODE_ID_MARKS if not _defined(root, node_id)]
    if gone:
        raise pytest.UsageError(
            f"tests/conftest.py marks tests that no longer exist: {', '.join(gone)}; "
            "update NODE_ID_MARKS (renamed? mark it again; removed? drop it)"
        )
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        marks = {mark for fixture, mark in FIXTURE_MARKS.items() if fixture in fixtures}
        base = item.nodeid.split("[", 1)[0]
        if base in NODE_ID_MARKS:
            marks.add(NODE_ID_MARKS[base])
        for mark in sorted(marks):
            if item.get_closest_marker(mark) is None:
                item.add_marker(mark)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A skip is a failure: the suite runs everything it has, or says what is missing."""
    report = yield
    if report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = (f"{item.nodeid} skipped ({reason}); tests here never skip: "
                           "fail instead, saying what to install")
    return report


# --------------------------------------------------------------------------------- scans


def scan(code: str) -> FileScan:
    """Scan a dedented source string, as the scanner scans one file."""
    return scan_source(textwrap.dedent(code).encode("utf-8"))


def site(code: str) -> RaiseSite:
    """The one site in ``code`` (module constants and the reasons functions give aside: they are
    read at assembly only)."""
    found = [s for s in scan(code).sites if s.kind not in ("constant", "reason")]
    assert len(found) == 1, f"expected one site, found {len(found)}: {found}"
    return found[0]


# --------------------------------------------------------------------------------- the corpus


@pytest.fixture(scope="session")
def corpus_bundle() -> Path:
    if not CORPUS_BUNDLE.is_file():
        pytest.fail(
            f"the corpus bundle is missing: put vllm-releases.bundle at {CORPUS_BUNDLE} "
            "(it ships in the shared/ folder beside the repository)",
            pytrace=False,
        )
    return CORPUS_BUNDLE


@pytest.fixture(scope="session")
def session_cache(tmp_path_factory) -> Path:
    """One cache for the whole test session: the corpus is cloned and analysed once."""
    return tmp_path_factory.mktemp("errorkb-cache")


@pytest.fixture(scope="session")
def corpus_scan(corpus_bundle, session_cache):
    """Scan a release of the corpus (once per session); its catalog as JSON data."""
    from generator.scan.cache import BlobCache
    from generator.scan.catalog import catalog_json, scan_revision
    from generator.scan.sources import resolve

    done: dict[str, dict] = {}

    def scan(rev: str) -> dict:
        if rev not in done:
            with BlobCache(session_cache / "analysis.sqlite") as cache:
                catalog = scan_revision("vllm", resolve(str(corpus_bundle), rev, session_cache), cache)
            done[rev] = json.loads(catalog_json(catalog))
        return done[rev]

    return scan


@pytest.fixture(scope="session")
def pin_matcher(corpus_scan):
    """The lookup matcher over v0.33.0 of the corpus."""
    from generator.lookup.index import matcher_from_catalogs

    return matcher_from_catalogs([corpus_scan("v0.33.0")])


@pytest.fixture(scope="session")
def history_matcher(corpus_bundle, session_cache):
    """The lookup matcher over every [history] release of the corpus, with their lineage and
    the repository's curated entries: what `errorkb lookup` answers with."""
    import tomllib

    from generator.entries.load import load_entries
    from generator.history.lineage import link_releases
    from generator.lookup.index import compact_index, entries_for_index, matcher_from_index
    from generator.scan.cache import BlobCache
    from generator.scan.catalog import catalog_json, scan_revisions
    from generator.scan.sources import resolve

    releases = tomllib.loads((ROOT / "errorkb.toml").read_text(encoding="utf-8"))["history"]["releases"]
    revisions = [resolve(str(corpus_bundle), rev, session_cache) for rev in releases]
    with BlobCache(session_cache / "analysis.sqlite") as cache:
        catalogs = [json.loads(catalog_json(c)) for c in scan_revisions("vllm", revisions, cache, os.cpu_count() or 1)]
    from generator.entries.lineage import load_lineage

    entries, _ = load_entries(ROOT / "errors", ROOT)
    lineage, problems = load_lineage(ROOT / "errors", ROOT)
    assert not problems, [str(p) for p in problems]
    links = link_releases(catalogs, os.cpu_count() or 1, lineage.apart_pairs()) + [(link.source, link.target) for link in lineage.links]
    index = compact_index(catalogs, links=links, entries=entries_for_index(entries))
    return matcher_from_index(index)


@pytest.fixture(scope="session")
def corpus_site(corpus_scan, corpus_bundle, session_cache, tmp_path_factory):
    """The full site of v0.33.0 from the corpus, with the repository's entries: (out, pages, catalog)."""
    from generator.vllm.engine_args import engine_args_at
    from generator.entries.load import load_entries
    from generator.site.pages import Flag
    from generator.site.build import SiteInput, build_site
    from generator.scan.sources import resolve

    catalog = corpus_scan("v0.33.0")
    entries, problems = load_entries(ROOT / "errors", ROOT)
    assert not problems, [str(p) for p in problems]
    revision = resolve(str(corpus_bundle), "v0.33.0", session_cache)
    args = {a.name: Flag(a.name, a.flag, a.type, a.default, a.help) for a in engine_args_at(revision)}
    out = tmp_path_factory.mktemp("corpus-site") / "site"
    from generator.repro.records import load_records

    site = SiteInput(catalog=catalog, entries=entries, engine_args=args,
                     verifications=load_records(ROOT / "errors" / "verifications"))
    pages = build_site(ROOT / "mkdocs.yml", site, out)
    return out, pages, catalog


# --------------------------------------------------------------------------------- errorkb installed


@pytest.fixture(scope="session")
def checkout_copy(tmp_path_factory) -> Path:
    """A copy of this checkout's tracked and new files: what a fresh clone holds (a build in
    it, or an editable install of it, leaves nothing in the checkout itself)."""
    import shutil
    import subprocess

    copy = tmp_path_factory.mktemp("checkout") / "errorkb"
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, copy / name)
    return copy


@pytest.fixture(scope="session")
def errorkb_wheel(checkout_copy, tmp_path_factory) -> Path:
    """errorkb's wheel, built by pip from the checkout's copy (once per session)."""
    import subprocess
    import sys

    wheels = tmp_path_factory.mktemp("wheels")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(wheels),
                            str(checkout_copy)], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = wheels.glob("errorkb-*.whl")
    return wheel


# --------------------------------------------------------------------------------- the pinned vLLM


@pytest.fixture(scope="session")
def vllm_python() -> Path:
    """The interpreter of the pinned vLLM (generator/vllm/env.py says where); fails saying how to install it."""
    from generator.config import load_config
    from generator.vllm.env import VllmMissing, require_vllm_python

    try:
        return require_vllm_python(load_config(ROOT / "errorkb.toml"))
    except VllmMissing as exc:
        pytest.fail(f"the reproduction tests need the pinned vLLM: {exc}", pytrace=False)
