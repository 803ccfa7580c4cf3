"""History across releases: ranges, lineage and drift, on repositories built here and on the corpus."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from generator.scan.cache import BlobCache
from generator.scan.catalog import catalog_json, scan_revision
from generator.history.drift import drift
from generator.history.lineage import assemble_history, link_errors, link_releases, version_ranges
from generator.scan.sources import resolve
from gitrepo import tagged_repo
from test_corpus import MAMBA, RELEASES

ROOT = Path(__file__).resolve().parents[1]

V1 = {
    "vllm/a.py": (
        "def f(x):\n    raise ValueError(f'the limit is {x}, which is too high for this engine')\n\n"
        "def g():\n    raise KeyError('this key is gone for good now')\n\n"
        "def h():\n    raise ValueError('the same text in another type')\n\n"
        "def k():\n    raise RuntimeError('this error stays but moves to another file')\n"
    ),
}
V2 = {
    "vllm/a.py": (
        "def f(x):\n    raise ValueError(f'the limit ({x}) is too high for this engine')\n\n"
        "def h():\n    raise TypeError('the same text in another type')\n"
    ),
    "vllm/b.py": "def k2():\n    raise RuntimeError('this error stays but moves to another file')\n",
}


def catalogs(tmp_path) -> list[dict]:
    repo = tagged_repo(tmp_path / "r", {"v1": V1, "v2": V2})
    out = []
    with BlobCache(tmp_path / "c" / "analysis.sqlite") as cache:
        for rev in ("v1", "v2"):
            out.append(json.loads(catalog_json(scan_revision("vllm", resolve(str(repo), rev, tmp_path / "c"), cache))))
    return out


def by_template(catalog: dict, start: str) -> dict:
    return next(e for e in catalog["errors"] if e["template"].startswith(start))


def test_reworded_retyped_moved_and_removed(tmp_path):
    v1, v2 = catalogs(tmp_path)
    links = {(link.source, link.target): link.kind for link in link_errors(v1, v2)}
    assert links == {
        (by_template(v1, "the limit")["id"], by_template(v2, "the limit")["id"]): "reworded",
        (by_template(v1, "the same")["id"], by_template(v2, "the same")["id"]): "retyped",
    }
    report = drift(v1, v2)
    assert [e["template"] for e in report["removed"]] == ["this key is gone for good now"]
    assert report["added"] == []
    assert [m["to"] for m in report["moved"]] == [["vllm/b.py:k2"]]
    assert len(report["reworded"]) == 1 and len(report["retyped"]) == 1


def test_history_has_ranges_and_lineage_both_ways(tmp_path):
    v1, v2 = catalogs(tmp_path)
    history = assemble_history([v1, v2])
    errors = {e["id"]: e for e in history["errors"]}
    old, new = by_template(v1, "the limit")["id"], by_template(v2, "the limit")["id"]
    assert errors[old]["ranges"] == ["v1"] and errors[new]["ranges"] == ["v2"]
    assert errors[old]["replaced_by"] == [{"id": new, "kind": "reworded", "release": "v2"}]
    assert errors[new]["replaces"] == [{"id": old, "kind": "reworded", "release": "v1"}]
    stays = by_template(v2, "this error stays")["id"]
    assert errors[stays]["ranges"] == ["v1 – v2"] and set(errors[stays]["sites"]) == {"v1", "v2"}
    assert history["stats"]["by_kind"] == {"retyped": 1, "reworded": 1, "moved-reworded": 0}


def test_version_ranges():
    releases = ["v1", "v2", "v3", "v4", "v5"]
    assert version_ranges(["v1", "v2", "v4"], releases) == ["v1 – v2", "v4"]
    assert version_ranges(["v2", "v3", "v4", "v5"], releases) == ["v2 – v5"]
    assert version_ranges([], releases) == []


def test_scan_with_several_revs_writes_the_history(tmp_path):
    repo = tagged_repo(tmp_path / "r", {"v1": V1, "v2": V2})
    result = subprocess.run(
        [sys.executable, "-m", "generator", "scan", "--source", str(repo), "--rev", "v1", "--rev", "v2", "--out", "-",
         "--cache-dir", str(tmp_path / "c")],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    history = json.loads(result.stdout)
    assert [r["revision"] for r in history["releases"]] == ["v1", "v2"] and history["stats"]["links"] == 2


# --- the corpus: every release of errorkb.toml's [history] -------------------------------------


@pytest.mark.slow
def test_mamba_error_is_raised_from_v0_20_0_on(corpus_scan):
    history = assemble_history([corpus_scan(rev) for rev in RELEASES])
    (mamba,) = [e for e in history["errors"] if e["template"] == MAMBA]
    assert mamba["first"] == "v0.20.0" and mamba["ranges"] == ["v0.20.0 – v0.33.0"]
    assert history["stats"]["errors"] > 12000 and history["stats"]["links"] > 500


@pytest.mark.slow
def test_drift_between_the_last_two_releases(corpus_bundle, session_cache, corpus_scan, tmp_path):
    corpus_scan("v0.32.0"), corpus_scan("v0.33.0")  # warm the session cache
    # How often people hit each error: the real pastes of tests/data/pastes, as lists of reports.
    reports: dict[str, list[str]] = {}
    for paste in sorted((ROOT / "tests" / "data" / "pastes").glob("*.json")):
        expected = json.loads(paste.read_text(encoding="utf-8")).get("expected")
        if expected:
            reports.setdefault(expected, []).append(paste.stem)
    weights = tmp_path / "weights.json"
    weights.write_text(json.dumps(reports))
    result = subprocess.run(
        [sys.executable, "-m", "generator", "drift", "v0.32.0", "v0.33.0", "--json", "--source", str(corpus_bundle),
         "--cache-dir", str(session_cache), "--weights", str(weights)],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    for kind in ("added", "removed", "reworded", "retyped", "moved"):
        assert report[kind], kind
    assert all(item["kind"] == "retyped" for item in report["retyped"])
    assert report["coverage"]["curated"] >= 30 and 0 < report["coverage"]["weighted_share"] <= 1
    assert report["stale_entries"] == []


def test_site_keeps_pages_of_past_errors_with_lineage_and_release_pages(tmp_path):
    from generator.site.build import SiteInput, build_site

    v1, v2 = catalogs(tmp_path)
    out = tmp_path / "site"
    pages = build_site(ROOT / "mkdocs.yml", SiteInput(catalog=v2, entries=[], engine_args={}, releases=[v1, v2]), out)
    old_limit, new_limit = by_template(v1, "the limit")["id"], by_template(v2, "the limit")["id"]
    gone = by_template(v1, "this key is gone")["id"]
    assert {p.id for p in pages} == {e["id"] for e in v1["errors"]} | {e["id"] for e in v2["errors"]}
    old_page = (out / "errors" / old_limit / "index.html").read_text()
    assert "No longer raised" in old_page and f'href="../{new_limit}/"' in old_page
    data = json.loads((out / "api" / "errors" / f"{gone}.json").read_text())
    assert data["current"] is False and data["ranges"] == ["v1"]
    release = (out / "releases" / "v2" / "index.html").read_text()
    assert gone in release and new_limit in release
    index = json.loads((out / "api" / "lookup-index.json").read_text())
    assert index["revisions"] == ["v1", "v2"]


def test_a_past_errors_page_leads_to_the_error_the_pin_raises_now(tmp_path):
    """v1's message, reworded in v2 and retyped in v3 (the pin): its page names the next step
    and where the message lives now; an error that came back and went again is named once."""
    from generator.site.build import SiteInput, build_site
    from generator.site.pages import lineage_once

    v3 = {"vllm/a.py": "def f(x):\n    raise TypeError(f'the limit ({x}) is too high for this engine')\n"}
    repo = tagged_repo(tmp_path / "r", {"v1": V1, "v2": V2, "v3": v3})
    with BlobCache(tmp_path / "c" / "analysis.sqlite") as cache:
        v1, v2, v3 = [json.loads(catalog_json(scan_revision("vllm", resolve(str(repo), rev, tmp_path / "c"), cache)))
                      for rev in ("v1", "v2", "v3")]
    out = tmp_path / "site"
    build_site(ROOT / "mkdocs.yml", SiteInput(catalog=v3, entries=[], engine_args={}, releases=[v1, v2, v3]), out)
    first, second, now = (by_template(c, "the limit")["id"] for c in (v1, v2, v3))
    data = json.loads((out / "api" / "errors" / f"{first}.json").read_text())
    assert data["replaced_by"] == [{"id": second, "kind": "reworded", "release": "v2"}] and data["now_raised_as"] == [now]
    page = (out / "errors" / first / "index.html").read_text()
    assert f'It became <a href="../{second}/"><code>{second}</code></a> (reworded in v2).' in page
    assert f'The pinned release raises it as <a href="../{now}/"><code>{now}</code></a>.' in page
    # the next step is the pin's own: nothing more to name
    assert json.loads((out / "api" / "errors" / f"{second}.json").read_text())["now_raised_as"] == []
    links = [{"id": now, "kind": "retyped", "release": "v2"}, {"id": first, "kind": "reworded", "release": "v5"},
             {"id": now, "kind": "retyped", "release": "v4"}]
    assert lineage_once(links, "in") == [{"id": now, "changes": "retyped in v2 and v4"}, {"id": first, "changes": "reworded in v5"}]


@pytest.mark.slow
def test_v0_kv_cache_paste_leads_to_the_curated_page(corpus_scan):
    from generator.entries.load import load_entries
    from generator.lookup.index import compact_index, matcher_from_index
    from generator.site.pages import build_pages

    releases = [corpus_scan(rev) for rev in RELEASES]
    matcher = matcher_from_index(compact_index(releases))
    paste = (
        "ERROR 05-01 12:00:00 worker.py:400] ValueError: The model's max seq len (32768) is larger than the maximum "
        "number of tokens that can be stored in KV cache (16016). Try increasing `gpu_memory_utilization` or "
        "decreasing `max_model_len` when initializing the engine."
    )
    (match, *_), _ = matcher.lookup(paste)
    assert match.error.id == "4e2f73f849f6bc18" and match.error.versions[-1] == "v0.10.0"
    entries, problems = load_entries(ROOT / "errors", ROOT)
    assert not problems
    pages = {p.id: p for p in build_pages(releases[-1], entries, {}, None, assemble_history(releases))}
    v0, v1 = pages["4e2f73f849f6bc18"], pages["bdaa78831d773037"]
    assert not v0.current and v0.entry is not None and v0.entry is v1.entry
    assert v0.entry.slug == "kv-cache-too-small-for-max-model-len"


def test_candidates_rule_out_only_pairs_that_cannot_be_alike_enough():
    """``_Candidates.plausible`` against the plain rule: every text whose difflib ratio
    reaches MOVED_RATIO is among the plausible ones, and so is every text the pairwise
    bounds (length, character counts) let through."""
    import difflib
    import random

    from generator.history.lineage import MOVED_RATIO, _Candidates, _may_reach

    rng = random.Random(7)
    words = "the model max seq len is larger than kv cache blocks tokens ( ) : , gpu memory".split()
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 14))) for _ in range(300)]
    texts += [t.replace("the", "a", 1) for t in texts[:100]]  # near copies
    literal = {f"id{i}": t for i, t in enumerate(texts)}
    candidates = _Candidates(list(literal), literal)
    alike = bounded = 0
    for text in texts[:60]:
        plausible = set(candidates.plausible(text))
        for other_id, other in literal.items():
            if _may_reach(text, other, MOVED_RATIO):
                bounded += 1
                assert other_id in plausible
            if difflib.SequenceMatcher(None, text, other, autojunk=False).ratio() >= MOVED_RATIO:
                alike += 1
                assert other_id in plausible
    assert alike > 60 and bounded > alike  # the texts themselves, and near copies


def test_subsequence_bound_is_the_longest_common_subsequence_and_bounds_the_ratio():
    """``_Subsequences``: its length is the longest common subsequence (a plain dynamic
    programme says so), and ``may_reach`` never turns away a pair whose difflib ratio
    reaches the least asked for."""
    import difflib
    import random

    from generator.history.lineage import _Subsequences

    def plain_lcs(a: str, b: str) -> int:
        row = [0] * (len(b) + 1)
        for x in a:
            before = 0
            for j, y in enumerate(b, 1):
                before, row[j] = row[j], before + 1 if x == y else max(row[j], row[j - 1])
        return row[-1]

    rng = random.Random(11)
    words = "the model max seq len is larger than kv cache blocks tokens ( ) : , gpu memory".split()
    texts = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 12))) for _ in range(120)]
    texts += [t.replace("e", "a", 2) for t in texts[:40]] + ["", "x" * 200]
    reached = turned_away = 0
    for text in texts[:50]:
        bound = _Subsequences(text)
        for other in texts:
            assert bound.length(other) == plain_lcs(text, other)
            ratio = difflib.SequenceMatcher(None, text, other, autojunk=False).ratio()
            for least in (0.6, 0.8, 0.9):
                if ratio >= least:
                    reached += 1
                    assert bound.may_reach(other, least), (text, other, least)
                elif not bound.may_reach(other, least):
                    turned_away += 1
    assert reached > 100 and turned_away > 1000  # it bounds, and it rules most pairs out


def test_releases_linked_in_several_processes_give_the_same_history(tmp_path):
    v3 = {"vllm/a.py": V2["vllm/a.py"].replace("too high", "far too high"), "vllm/b.py": V2["vllm/b.py"]}
    repo = tagged_repo(tmp_path / "r", {"v1": V1, "v2": V2, "v3": v3})
    with BlobCache(tmp_path / "c" / "analysis.sqlite") as cache:
        releases = [json.loads(catalog_json(scan_revision("vllm", resolve(str(repo), rev, tmp_path / "c"), cache)))
                    for rev in ("v1", "v2", "v3")]
    alone = assemble_history(releases)
    assert alone["stats"]["links"] == 3  # v1 → v2: reworded and retyped; v2 → v3: the limit reworded again
    assert assemble_history(releases, workers=2) == alone
    assert link_releases(releases, 2) == link_releases(releases) == link_errors(*releases[:2]) + link_errors(*releases[1:])


def test_a_link_kept_apart_is_left_out_either_way_round(tmp_path):
    v3 = {"vllm/a.py": V2["vllm/a.py"].replace("too high", "far too high"), "vllm/b.py": V2["vllm/b.py"]}
    repo = tagged_repo(tmp_path / "r", {"v1": V1, "v2": V2, "v3": v3})
    with BlobCache(tmp_path / "c" / "analysis.sqlite") as cache:
        releases = [json.loads(catalog_json(scan_revision("vllm", resolve(str(repo), rev, tmp_path / "c"), cache)))
                    for rev in ("v1", "v2", "v3")]
    every = link_releases(releases)
    first = every[0]
    apart = frozenset({frozenset((first.target, first.source))})
    assert link_releases(releases, 1, apart) == link_releases(releases, 2, apart) == every[1:]
    assert assemble_history(releases, apart=apart)["stats"]["links"] == len(every) - 1


def _catalog(revision: str, errors: list[tuple[str, str, str]]) -> dict:
    """A catalog of (id, template, path) raised as ValueError from a function of its own."""
    return {"revision": revision, "errors": [
        {"id": id_, "exception": "ValueError", "template": template, "kind": "raise",
         "sites": [{"path": path, "function": f"f{n}", "line": 1, "template": template}]}
        for n, (id_, template, path) in enumerate(errors)]}


def test_a_short_message_needs_more_alike_to_have_moved():
    old = _catalog("v1", [("1" * 16, "Unknown part type: {part_type}", "vllm/chat.py"),
                          ("2" * 16, "The prompt must not be longer than the model's context window", "vllm/a.py")])
    new = _catalog("v2", [("3" * 16, "Unknown parameter type: {parameter_type}", "vllm/fp8.py"),
                          ("4" * 16, "The prompt must not be longer than the model context window here", "vllm/b.py")])
    links = {(link.source, link.target): link.kind for link in link_errors(old, new)}
    assert links == {("2" * 16, "4" * 16): "moved-reworded"}  # 0.83 alike: short, no; long, yes


def test_a_short_message_became_one_already_raised_elsewhere_only_if_nearly_the_same():
    """An audio model's "Unsupported data type: {type(audio_input)}" (gone at v0.8.5) did not
    become pynccl's "Unsupported dtype: {dtype}", raised since v0.4 (0.9 alike); "No free LoRA
    slots." became "No free lora slots" of the file that took over the LoRA models."""
    pynccl = ("2" * 16, "Unsupported dtype: {dtype}", "vllm/pynccl_wrapper.py")
    slots = ("4" * 16, "No free lora slots", "vllm/lora/model_manager.py")
    old = _catalog("v0.8.0", [("1" * 16, "Unsupported data type: {type(audio_input)}", "vllm/phi4mm.py"), pynccl,
                              ("3" * 16, "No free LoRA slots.", "vllm/lora/models.py"), slots])
    new = _catalog("v0.8.5", [pynccl, slots])
    assert [(link.source, link.target) for link in link_errors(old, new)] == [("3" * 16, "4" * 16)]
    # a new error as alike is where the short message went
    new = _catalog("v0.8.5", [pynccl, ("5" * 16, "Unsupported dtype: {dtype}", "vllm/audio.py")])
    assert [(link.source, link.target) for link in link_errors(old, new)] == [("1" * 16, "5" * 16)]


def test_a_message_did_not_become_its_siblings_with_another_name():
    """XPU's "Pin memory is not supported on XPU." dropped (v0.10) did not become TPU's, raised
    beside it all along; a message whose only change is a version it asks for, or a name
    spelled apart, still became the one raised elsewhere."""
    tpu = ("2" * 16, "Pin memory is not supported on TPU.", "vllm/platforms/tpu.py")
    old = _catalog("v0.9.0", [("1" * 16, "Pin memory is not supported on XPU.", "vllm/platforms/xpu.py"), tpu])
    assert link_errors(old, _catalog("v0.10.0", [tpu])) == []
    for was, now in (("bitsandbytes version is wrong. Please install bitsandbytes>=0.45.3.",
                      "bitsandbytes version is wrong. Please install bitsandbytes>=0.46.1."),
                     ("Weight Blockscale must be represented as FP8-E4M3", "Weight Block scale must be represented as FP8-E4M3")):
        kept = ("4" * 16, now, "vllm/b.py")
        old = _catalog("v1", [("3" * 16, was, "vllm/a.py"), kept])
        assert [(link.source, link.target) for link in link_errors(old, _catalog("v2", [kept]))] == [("3" * 16, "4" * 16)], was


def test_a_message_about_another_thing_with_other_numbers_has_not_moved():
    """"Head size must be a multiple of 128." (TPU) is not "Block size must be a multiple of 16."
    (ROCm) however alike the words; a reworded number of the same field still moves."""
    old = _catalog("v1", [("1" * 16, "Head size must be a multiple of 128.", "vllm/tpu.py"),
                          ("2" * 16, "`rope_scaling`'s factor field must be a float > 1.0, got {factor}", "vllm/a.py")])
    new = _catalog("v2", [("3" * 16, "Block size must be a multiple of 16.", "vllm/rocm.py"),
                          ("4" * 16, "`rope_scaling`'s factor field must be a float > 1, got {factor}", "vllm/b.py")])
    links = {(link.source, link.target): link.kind for link in link_errors(old, new)}
    assert links == {("2" * 16, "4" * 16): "moved-reworded"}


def test_a_message_that_grew_past_its_punctuation_stays_where_it_was_raised():
    """v0.14 reworded pynccl's "Unsupported dtype: {dtype}" to "Unsupported dtype {dtype}: should
    be one of ..." in the same function; the same words elsewhere (an assert of batch_invariant.py
    that v0.12 already had) are not where it went. Its words, not its characters, begin the new
    message: a message that grew, where it was raised."""
    def catalog(revision, errors):
        return {"revision": revision, "errors": [
            {"id": id_, "exception": exception, "template": template, "kind": "raise",
             "sites": [{"path": path, "function": function, "line": 1, "template": template}]}
            for id_, exception, template, path, function in errors]}
    kept = ("2" * 16, "AssertionError", "unsupported dtype: {dtype}", "vllm/model_executor/layers/batch_invariant.py", "mean")
    pynccl = ("vllm/distributed/device_communicators/pynccl_wrapper.py", "ncclDataTypeEnum.from_torch")
    old = catalog("v0.12.0", [("1" * 16, "ValueError", "Unsupported dtype: {dtype}", *pynccl), kept])
    grown = ("3" * 16, "ValueError", "Unsupported dtype {dtype}: should be one of int8, uint8, float16.", *pynccl)
    assert [(link.source, link.target, link.kind) for link in link_errors(old, catalog("v0.14.0", [grown, kept]))] == \
        [("1" * 16, "3" * 16, "reworded")]
    # raised from another module, the same growth is not enough: the kept message stays the link
    elsewhere = (*grown[:3], "vllm/other.py", "f")
    assert [(link.source, link.target) for link in link_errors(old, catalog("v0.14.0", [elsewhere, kept]))] == \
        [("1" * 16, "2" * 16)]


def _side_by_side_catalog(revision: str, errors: list[tuple[str, str]]) -> dict:
    """A catalog of (id, template) logged as warnings by one function."""
    return {"revision": revision, "errors": [
        {"id": id_, "exception": "", "template": template, "kind": "log",
         "sites": [{"path": "vllm/model_executor/models/config.py", "function": "verify_and_update_config",
                    "line": n + 1, "template": template}]}
        for n, (id_, template) in enumerate(errors)]}


def test_a_message_does_not_become_another_its_function_already_wrote():
    """At v0.26 one function logged both "Mamba cache mode is set to '{mode}' for {arch} by default
    when prefix caching is enabled" and "... set to 'none' when prefix caching is disabled"; v0.28
    logs the first at info level, out of the catalog: it did not become the second. A message
    whose word became a value ('align' → '{mode}') still becomes the one beside it."""
    enabled = "Mamba cache mode is set to '{cache_config.mamba_cache_mode}' for {model_config.architecture} by default when prefix caching is enabled"
    disabled = "Mamba cache mode is set to 'none' when prefix caching is disabled"
    old = _side_by_side_catalog("v0.26.0", [("1" * 16, enabled), ("2" * 16, disabled)])
    new = _side_by_side_catalog("v0.28.0", [("2" * 16, disabled)])
    assert link_errors(old, new) == []
    align = "Mamba cache mode is set to 'align' for {model_config.architecture} by default when prefix caching is enabled"
    old = _side_by_side_catalog("v0.18.0", [("3" * 16, align), ("1" * 16, enabled)])
    new = _side_by_side_catalog("v0.20.0", [("1" * 16, enabled)])
    assert [(link.source, link.target) for link in link_errors(old, new)] == [("3" * 16, "1" * 16)]
    # ... nor do two checks of one function that open otherwise; two wordings of one check, with
    # the same first sentence, are one problem (the context length error for chat and completion)
    old = _side_by_side_catalog("v1", [("4" * 16, "Prefix caching is not supported with flashinfer yet."),
                                       ("5" * 16, "Chunked prefill is not supported with flashinfer yet.")])
    assert link_errors(old, _side_by_side_catalog("v2", [("5" * 16, "Chunked prefill is not supported with flashinfer yet.")])) == []
    chat = ("This model's maximum context length is {max_model_len} tokens. However, you requested {n} tokens "
            "({a} in the messages, {b} in the completion). Please reduce the length of the messages or completion.")  # v0.10.0
    plain = ("This model's maximum context length is {max_model_len} tokens. However, you requested {n} tokens "
             "in the input for {operation}. Please reduce the length of the input.")
    old = _side_by_side_catalog("v1", [("6" * 16, chat), ("7" * 16, plain)])
    assert [(link.source, link.target) for link in link_errors(old, _side_by_side_catalog("v2", [("7" * 16, plain)]))] == [("6" * 16, "7" * 16)]
