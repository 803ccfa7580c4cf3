"""Shared fixtures: tiny source strings turned into scans, and the corpus bundle."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from generator.scan.records import FileScan, RaiseSite
from generator.scan.walker import scan_source

ROOT = Path(__file__).resolve().parents[1]


def pytest_addoption(parser):
    parser.addoption("--regen-golden", action="store_true", help="rewrite tests/golden/ from the current templates")
CORPUS_BUNDLE = ROOT.parent / "shared" / "corpus" / "vllm-releases.bundle"


def scan(code: str) -> FileScan:
    """Scan a dedented source string, as the scanner scans one file."""
    return scan_source(textwrap.dedent(code).encode("utf-8"))


def site(code: str) -> RaiseSite:
    """The one site in ``code``."""
    found = scan(code).sites
    assert len(found) == 1, f"expected one site, found {len(found)}: {found}"
    return found[0]


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
    from generator.lookup.match import matcher_from_catalogs

    return matcher_from_catalogs([corpus_scan("v0.33.0")])


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
    from generator.repro.verify import load_records

    site = SiteInput(catalog=catalog, entries=entries, engine_args=args,
                     verifications=load_records(ROOT / "errors" / "verifications"))
    pages = build_site(ROOT / "mkdocs.yml", site, out)
    return out, pages, catalog
