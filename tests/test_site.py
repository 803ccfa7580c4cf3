"""The site: pages rendered against golden Markdown, built by the real mkdocs, atomic,
deterministic, inert with hostile text, and a full build of v0.33.0 from the corpus."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from generator.entries.load import load_entries
from generator.site.pages import Flag
from generator.site.build import BuildError, SiteInput, build_site, render_docs
from gitrepo import tagged_repo

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).resolve().parent / "golden"
SCHEMAS = ROOT / "generator" / "schemas"
HOSTILE = "bad <script>window.pwned=1</script> {{ x }} {% raw %} `tick` a|b [x](javascript:alert(1)) {value}"

CATALOG = {
    "revision": "v1.0",
    "commit": "0" * 40,
    "tag": "v1.0",
    "errors": [
        {
            "id": "0123456789abcdef",
            "kind": "raise",
            "exception": "ValueError",
            "template": HOSTILE,
            "has_message": True,
            "sites": [
                {
                    "path": "vllm/config/model.py", "line": 30, "end_line": 31, "function": "ModelConfig.verify",
                    "kind": "raise", "exception": "ValueError", "template": HOSTILE, "variants": [],
                    "guard": ["self.max_num_seqs > limit | 2 and not self.enforce_eager"],
                    "placeholders": ["value"], "comment": "Keep `x` <b>small</b>.",
                    "excerpt": "if self.max_num_seqs > limit:\n    raise ValueError(f\"...\")", "excerpt_line": 29, "cause": None,
                }
            ],
        },
        {
            "id": "fedcba9876543210",
            "kind": "assert",
            "exception": "AssertionError",
            "template": "block size {block_size} must divide {n}",
            "has_message": True,
            "sites": [
                {
                    "path": "vllm/v1/core/kv.py", "line": 7, "end_line": 7, "function": "f", "kind": "assert",
                    "exception": "AssertionError", "template": "block size {block_size} must divide {n}", "variants": [],
                    "guard": ["not (n % block_size == 0)"], "placeholders": ["block_size", "n"], "comment": "",
                    "excerpt": "assert n % block_size == 0, f\"block size {block_size} must divide {n}\"", "excerpt_line": 7, "cause": None,
                }
            ],
        },
    ],
}
ENTRY = """\
# yaml-language-server: $schema=../generator/schemas/entry.schema.json
ids: [0123456789abcdef]
title: A hostile <script>alert(1)</script> title
summary: The summary has <img src=x onerror="window.pwned=2"> and `code | pipe` in it.
explanation: |
  See [the other error](../fedcba9876543210/) and [evil](javascript:alert(1)).

  <script>window.pwned=3</script>
causes:
  - Too many {{ sequences }} and {% percent %}.
solutions:
  - title: Lower `max_num_seqs`
    why: Fewer sequences need fewer blocks.
    commands:
      vllm: vllm serve Qwen/Qwen2.5-7B-Instruct --max-num-seqs 64
      python: LLM(model="Qwen/Qwen2.5-7B-Instruct", max_num_seqs=64)
faq:
  - q: Does `--enforce-eager` help?
    a: "It avoids CUDA graphs: ``a`b``."
references:
  - url: https://docs.vllm.ai/en/latest/
    title: vLLM documentation
tags: [memory]
reproduce:
  - error:
      cli: [vllm, serve, models/x, --max-num-seqs, "<script>window.pwned=4</script>"]
      expect: 0123456789abcdef
    fix:
      python: |
        print("</code><script>window.pwned=5</script>")
      reach: return
  - error:
      cli: [vllm, serve, models/x, --max-num-seqs, "1024"]
      requires: cuda
      min_gpu_memory_gib: 24
      expect: 0123456789abcdef
    fix:
      cli: [vllm, serve, models/x, --max-num-seqs, "64", --port, "8123"]
      requires: cuda
      reach: health
"""
_CASE = {"passed": True, "summary": "raised <b>it</b>", "outcome": "raised", "duration_s": 0.5,
         "evidence": "ValueError: <script>window.pwned=6</script>"}


def _record() -> dict:
    """A record of ENTRY's CPU pair as `errorkb verify` writes it (its cases' hashes, the sandbox it
    ran in), with hostile text where a record holds text: the page shows it, inert."""
    from generator.repro.cases import case_sha256

    pair = yaml.safe_load(ENTRY)["reproduce"][0]
    return {"entry": "hostile", "runs": {"cpu-0": {
        "tier": "cpu", "pair": 0, "key": "cpu-0", "passed": True, "verification": "vLLM's own code run to completion",
        "simulates": None, "date": "2026-11-30", "duration_s": 1.0,
        "environment": {"vllm": "1.0", "vllm_commit": "gabc", "python": "3.11.7", "torch": "2.14.0", "platform": "Linux"},
        "isolation": "bwrap (new namespaces, no network)",
        "error": dict(_CASE, case_sha256=case_sha256(pair["error"]), expect="0123456789abcdef", matched="0123456789abcdef"),
        "fix": dict(_CASE, summary="reached return", outcome="returned", case_sha256=case_sha256(pair["fix"]), reach="return"),
    }}}


RECORD = _record()
ENGINE_ARGS = {
    "max_num_seqs": Flag("max_num_seqs", "--max-num-seqs", "int | None", "None", "Maximum number of sequences per iteration."),
    "enforce_eager": Flag("enforce_eager", "--enforce-eager", "bool", "False", "Always use eager mode."),
}


@pytest.fixture
def site_input(tmp_path) -> SiteInput:
    errors = tmp_path / "errors"
    errors.mkdir()
    (errors / "hostile.yaml").write_text(ENTRY)
    entries, problems = load_entries(errors, tmp_path)
    assert not problems, [str(p) for p in problems]
    return SiteInput(catalog=CATALOG, entries=entries, engine_args=ENGINE_ARGS, verifications={"hostile": RECORD})


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# --- rendering ---------------------------------------------------------------------------


@pytest.mark.parametrize("page", ["errors/0123456789abcdef.md", "errors/fedcba9876543210.md", "curated.md", "subsystems/config.md"])
def test_golden_markdown(site_input, tmp_path, request, page):
    """Regenerate with `python -m pytest tests/test_site.py --regen-golden`, never by hand."""
    docs = tmp_path / "docs"
    docs.mkdir()
    render_docs(site_input, docs, ROOT)
    golden = GOLDEN / page.replace("/", "__")
    rendered = (docs / page).read_text()
    if request.config.getoption("--regen-golden"):
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(rendered)
    assert golden.is_file(), f"{golden} is missing: run python -m pytest tests/test_site.py --regen-golden"
    assert rendered == golden.read_text(), f"{page} differs from {golden}; if the change is meant, run with --regen-golden"


def test_flags_involved_come_from_the_guard_and_the_message(site_input, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    render_docs(site_input, docs, ROOT)
    data = json.loads((docs / "api/errors/0123456789abcdef.json").read_text())
    assert [f["flag"] for f in data["flags"]] == ["--max-num-seqs", "--enforce-eager"]
    assert data["sites"][0]["permalink"] == "https://github.com/vllm-project/vllm/blob/v1.0/vllm/config/model.py#L30"
    assert data["curated"] and data["entry"]["slug"] == "hostile"
    assert "0123456789abcdef" in data["report_url"]


# --- building ------------------------------------------------------------------------------


def test_two_builds_are_byte_identical(site_input, tmp_path):
    build_site(ROOT / "mkdocs.yml", site_input, tmp_path / "one")
    build_site(ROOT / "mkdocs.yml", site_input, tmp_path / "two")
    one, two = tree(tmp_path / "one"), tree(tmp_path / "two")
    assert one == two
    for name in ("index.html", "api/lookup-index.json", "api/errors/index.json", "schema/entry.schema.json",
                 "errors/0123456789abcdef/index.html", "assets/lookup.js"):
        assert name in one, name


def test_a_failed_build_leaves_the_previous_site(site_input, tmp_path):
    build_site(ROOT / "mkdocs.yml", site_input, tmp_path / "site")
    before = tree(tmp_path / "site")
    broken = tmp_path / "mkdocs.yml"  # a project beside it: the templates and models are the real ones
    broken.write_text((ROOT / "mkdocs.yml").read_text().replace("name: material", "name: no-such-theme"))
    for folder in ("templates", "models"):
        (tmp_path / folder).symlink_to(ROOT / folder)
    with pytest.raises(BuildError):
        build_site(broken, site_input, tmp_path / "site")
    assert tree(tmp_path / "site") == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_an_entry_with_several_ids_links_its_pages_in_a_paragraph(tmp_path):
    errors = tmp_path / "errors"
    errors.mkdir()
    (errors / "both.yaml").write_text(ENTRY.replace("ids: [0123456789abcdef]", "ids: [0123456789abcdef, fedcba9876543210]"))
    entries, problems = load_entries(errors, tmp_path)
    assert not problems
    build_site(ROOT / "mkdocs.yml", SiteInput(catalog=CATALOG, entries=entries, engine_args=ENGINE_ARGS), tmp_path / "site")
    html = (tmp_path / "site" / "errors" / "fedcba9876543210" / "index.html").read_text()
    assert 'href="../0123456789abcdef/"' in html
    assert "Same problem, other messages" in html and not re.search(r"<h\d[^>]*>Same problem", html)


def test_hostile_text_is_inert_in_the_built_html(site_input, tmp_path):
    build_site(ROOT / "mkdocs.yml", site_input, tmp_path / "site")
    html = (tmp_path / "site" / "errors" / "0123456789abcdef" / "index.html").read_text()
    article = html[html.index('<article'): html.index("</article>")]
    assert "<script" not in article and "<img" not in article and "<b>" not in article
    assert 'href="javascript:' not in html
    assert "&lt;script&gt;window.pwned=1&lt;/script&gt;" in article
    assert "{{ x }}" in article and "{% raw %}" in article and "{{ sequences }}" in article
    assert "a|b" in article
    for n in (4, 5, 6):  # the reproduction's commands, snippet and evidence
        assert f"window.pwned={n}" in article


def test_the_page_shows_each_reproduction_with_its_badge(site_input, tmp_path):
    build_site(ROOT / "mkdocs.yml", site_input, tmp_path / "site")
    html = (tmp_path / "site" / "errors" / "0123456789abcdef" / "index.html").read_text()
    badges = re.findall(r'<span class="errorkb-badge errorkb-repro-(\w+)">([^<]*)</span>', html)
    assert badges[:2] == [("passed", "Error and fix reproduced on CPU · vLLM 1.0 · 2026-11-30"),
                          ("pending", "Not yet run on a GPU")]
    assert "Needs an NVIDIA GPU, at least 24 GiB of GPU memory." in html
    assert "Isolation: bwrap (new namespaces, no network)." in html
    # the message as vLLM printed it, from the run's evidence, above the template (inert: a code block)
    article = html[html.index("<article"):]
    example = article.index("As vLLM printed it, raised by vLLM 1.0 on CPU")
    assert example < article.index("As vLLM's source builds it") < article.index('id="what-it-means"')
    assert "ValueError: &lt;script&gt;window.pwned=6&lt;/script&gt;" in article[example:]
    data = json.loads((tmp_path / "site" / "api" / "errors" / "0123456789abcdef.json").read_text())
    assert data["verified"] == RECORD
    assert [r["badge"]["state"] for r in data["reproductions"]] == ["passed", "pending"]
    index = json.loads((tmp_path / "site" / "api" / "errors" / "index.json").read_text())
    assert {e["id"]: e["verified"] for e in index["errors"]} == {"0123456789abcdef": True, "fedcba9876543210": False}


def test_the_api_carries_only_the_runs_a_page_may_show(site_input, tmp_path):
    """A run recorded for a case that has since changed (a stale hash) is in neither the page nor
    the API's ``verified``; the CUDA pair, never run, shows as pending."""
    stale = json.loads(json.dumps(RECORD))
    stale["runs"]["cuda-1"] = dict(stale["runs"]["cpu-0"], tier="cuda", pair=1, key="cuda-1")
    site_input.verifications = {"hostile": stale}
    build_site(ROOT / "mkdocs.yml", site_input, tmp_path / "site")
    data = json.loads((tmp_path / "site" / "api" / "errors" / "0123456789abcdef.json").read_text())
    assert data["verified"] == RECORD
    assert [r["badge"]["state"] for r in data["reproductions"]] == ["passed", "pending"]


# --- the real thing: v0.33.0 from the corpus, with the repository's entries ------------------


def test_every_error_has_a_page_and_json(corpus_site):
    out, pages, catalog = corpus_site
    assert len(pages) == len(catalog["errors"]) == catalog["stats"]["errors"]
    index = json.loads((out / "api/errors/index.json").read_text())
    jsonschema.validate(index, json.loads((SCHEMAS / "error-index.schema.json").read_text()))
    assert len(index["errors"]) == len(pages)
    assert sum(e["curated"] for e in index["errors"]) >= 30
    validator = jsonschema.Draft202012Validator(json.loads((SCHEMAS / "error.schema.json").read_text()))
    for page in pages:
        assert (out / "errors" / page.id / "index.html").is_file(), page.id
        validator.validate(json.loads((out / "api" / "errors" / f"{page.id}.json").read_text()))


def test_mamba_page_and_json(corpus_site):
    out, _, _ = corpus_site
    error_id = "c8f7b9d6b5fb8793"
    data = json.loads((out / "api/errors" / f"{error_id}.json").read_text())
    flags = [f["flag"] for f in data["flags"]]
    assert "--max-num-seqs" in flags and "--gpu-memory-utilization" in flags
    assert data["curated"] and data["sites"][0]["permalink"].endswith("/v0.33.0/vllm/config/compilation.py#L1525")
    html = (out / "errors" / error_id / "index.html").read_text()
    assert "exceeds available Mamba cache blocks" in html and "--max-num-seqs" in html


def test_logs_responses_and_foreign_errors_have_pages(corpus_site):
    """A logged line, a response body and an error that is not vLLM's: each a page and its JSON."""
    from generator.lookup.foreign import foreign_errors

    out, pages, _ = corpus_site
    kinds = {p.kind for p in pages}
    assert {"raise", "assert", "log", "response"} <= kinds
    log = json.loads((out / "api/errors/1da2d6897c1333c9.json").read_text())  # "Error in message stream converter."
    assert log["entry"] is None, "this checks the generated page of a log line: pick one that has no entry yet"
    assert log["kind"] == "log" and log["exception"] == "ERROR" and "logs this at ERROR level" in log["meaning"]
    assert "Where vLLM logs it" in (out / "errors/1da2d6897c1333c9/index.html").read_text()
    assert log["phase"] == "request handling" and log["issue_search"].startswith("https://github.com/vllm-project/vllm/issues?q=")
    response = json.loads((out / "api/errors/366dfc63cbfe0185.json").read_text())
    assert response["kind"] == "response" and response["sites"][0]["status"] == 400
    dead = json.loads((out / "api/errors/5ab2118c9cd2a825.json").read_text())
    assert dead["template"].startswith("EngineCore encountered an issue") and dead["sites"][0]["message_from"]
    listed = json.loads((out / "api/foreign/index.json").read_text())
    assert [e["id"] for e in listed["errors"]] == [f.id for f in foreign_errors()]
    for error in foreign_errors():
        html = (out / "foreign" / error.id / "index.html").read_text()
        assert "What to do" in html and "<script>alert" not in html
        data = json.loads((out / "api" / "foreign" / f"{error.id}.json").read_text())
        assert data["id"] == error.id and data["steps"] and data["examples"] == list(error.examples)
        assert "What it looks like" in html
    oom = (out / "foreign/torch-cuda-out-of-memory/index.html").read_text()
    assert "memory profiling" in oom and "_dummy_sampler_run" in oom and "It shows up in vLLM's logs" in oom
    # an error met in a client's output does not say it is in vLLM's logs
    openai = (out / "foreign/openai-api-error/index.html").read_text()
    assert "It shows up in a client's output" in openai and "vLLM's logs" not in openai
    assert json.loads((out / "api/foreign/openai-api-error.json").read_text())["seen_in"] == "a client's output"
    # told by no pattern (the lookup's last rule): its page says how it is told instead
    unmatched = (out / "foreign/exception-not-in-vllm/index.html").read_text()
    assert "No pattern tells it" in unmatched and "is checked against this pattern" not in unmatched


def test_error_pages_are_small_and_every_link_resolves(corpus_site):
    out, pages, _ = corpus_site
    sizes = [(out / "errors" / p.id / "index.html").stat().st_size for p in pages]
    # the theme's frame (header, light/dark toggle, navigation, meta) is about 20 KB of it
    assert max(sizes) <= 46 * 1024, max(sizes)
    broken = []
    href = re.compile(r'(?:href|src)="([^"#?]+)')
    for html_file in out.rglob("*.html"):
        for target in href.findall(html_file.read_text()):
            if re.match(r"[a-z]+:", target) or target.startswith("//"):
                continue
            # 404.html links from the root of site_url (mkdocs.yml): /errorkb/... is the site's own root
            resolved = (html_file.parent / target).resolve() if not target.startswith("/") else out / target.removeprefix("/errorkb/").lstrip("/")
            if not (resolved.is_file() or (resolved / "index.html").is_file()):
                broken.append(f"{html_file.relative_to(out)} -> {target}")
    assert not broken, broken[:20]


def test_search_index_covers_error_pages(corpus_site):
    out, pages, _ = corpus_site
    docs = json.loads((out / "search/search_index.json").read_text())["docs"]
    locations = {d["location"] for d in docs}
    assert all(f"errors/{p.id}/" in locations for p in pages)
    mamba = next(d for d in docs if d["location"] == "errors/c8f7b9d6b5fb8793/")
    assert "Mamba cache blocks" in mamba["text"]


def test_build_command(tmp_path):
    repo = tagged_repo(tmp_path / "r", {"v1": {"vllm/a.py": "raise ValueError('boom')\n", "vllm/engine/arg_utils.py": "class EngineArgs:\n    pass\n"}})
    out = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "generator", "build", "--source", str(repo), "--rev", "v1", "--out", str(out), "--cache-dir", str(tmp_path / "c"), "--pin-only"],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    index = json.loads((out / "api" / "errors" / "index.json").read_text())
    assert [e["template"] for e in index["errors"]] == ["boom"]


def test_titles_a_person_can_read():
    """A curated page is titled by its entry; an automatic one by its message with the
    placeholders as `…`; an error raised without a message by where it is raised."""
    from generator.lookup.match import error_title

    template = "max_num_seqs ({self.max_num_seqs}) exceeds available Mamba cache blocks ({num_blocks}) in {{config}}"
    assert error_title("ValueError", template) == "ValueError: max_num_seqs (…) exceeds available Mamba cache blocks (…) in {config}"
    assert error_title("ValueError", template, curated="  Too many\nsequences ") == "Too many sequences"
    assert error_title("NotImplementedError", "", False, function="EngineCoreClient.profile") == \
        "NotImplementedError in EngineCoreClient.profile"
    assert error_title("ValueError", "{msg}", function="check") == "ValueError in check"
    assert error_title("ValueError", "", False, function="<module>") == "ValueError"


def test_a_reported_example_is_shown_with_its_source(tmp_path):
    errors = tmp_path / "errors"
    errors.mkdir()
    (errors / "reported.yaml").write_text(ENTRY.split("reproduce:")[0] + (
        "example:\n  message: \"ValueError: bad <img src=x onerror=alert(1)> 42\"\n"
        "  source: https://github.com/vllm-project/vllm/issues/1\n"))
    entries, problems = load_entries(errors, tmp_path)
    assert not problems, [str(p) for p in problems]
    build_site(ROOT / "mkdocs.yml", SiteInput(catalog=CATALOG, entries=entries, engine_args=ENGINE_ARGS), tmp_path / "site")
    html = (tmp_path / "site" / "errors" / "0123456789abcdef" / "index.html").read_text()
    article = html[html.index("<article"):]
    assert 'As vLLM printed it, <a href="https://github.com/vllm-project/vllm/issues/1">as reported</a>' in article
    assert "ValueError: bad &lt;img src=x onerror=alert(1)&gt; 42" in article and "<img" not in article


def test_a_report_gives_an_uncurated_page_its_example(site_input, tmp_path):
    from generator.entries.reports import Report

    site_input.reports = [Report("fedcba9876543210", "https://github.com/vllm-project/vllm/issues/2", "KeyError: 'layers.7'")]
    build_site(ROOT / "mkdocs.yml", site_input, tmp_path / "site")
    html = (tmp_path / "site" / "errors" / "fedcba9876543210" / "index.html").read_text()
    article = html[html.index("<article"):]
    assert 'As vLLM printed it, <a href="https://github.com/vllm-project/vllm/issues/2">as reported</a>' in article
    assert "KeyError: &#39;layers.7&#39;" in article or "KeyError: 'layers.7'" in article


def test_readable_messages_the_quick_way_and_the_walk_agree():
    """The one-pass regex and the brace-by-brace walk (lookup.js's rule) read every template alike."""
    from generator.text import _readable_walk, readable_message

    for template in ["plain", "a {x} b", "{{literal}} {x}", "{a {b} c}", "{unclosed", "x } y", "{{{x}}}", "{}{}",
                     "a{b{c}d}e", "{{x}", "{x}}", "{d[{'k': 1}]} and {y!r}"]:
        assert readable_message(template) == _readable_walk(template), template
    assert readable_message("{a {b} c} and {x}") == "… and …"


def test_reports_next_steps_and_phase_reach_the_pages_and_the_api(site_input, tmp_path):
    """A page counts the reports of its problem and links them; an uncurated page says when it is
    raised, which curated pages to read next (same flags first) and where to search for it."""
    from generator.entries.reports import Report

    uncurated = copy.deepcopy(CATALOG["errors"][0])
    uncurated.update(id="1111111111111111", template="max_num_seqs ({n}) is too large for the scheduler budget")
    uncurated["sites"][0].update(template=uncurated["template"], function="SchedulerConfig.verify", comment="",
                                 path="vllm/config/scheduler.py")
    site_input.catalog = dict(CATALOG, errors=[*CATALOG["errors"], uncurated])
    site_input.reports = [Report("1111111111111111", "https://github.com/vllm-project/vllm/issues/7"),
                          Report("1111111111111111", "https://github.com/vllm-project/vllm/issues/8"),
                          Report("1111111111111111", "https://github.com/vllm-project/vllm/issues/7"),
                          Report("0123456789abcdef", "https://github.com/vllm-project/vllm/issues/9", gathered="2026-12-01")]
    build_site(ROOT / "mkdocs.yml", site_input, tmp_path / "site")
    html = (tmp_path / "site" / "errors" / "1111111111111111" / "index.html").read_text()
    article = html[html.index("<article"):]
    assert "Reported in 2 issues" in article and 'href="https://github.com/vllm-project/vllm/issues/8"' in article
    assert "during engine configuration" in article
    assert 'href="../0123456789abcdef/"' in article and "also about --enforce-eager, --max-num-seqs" in article
    assert ('href="https://github.com/vllm-project/vllm/issues?q=%22is%20too%20large%20for%20the%20scheduler%20budget%22"'
            in article)
    data = json.loads((tmp_path / "site" / "api" / "errors" / "1111111111111111.json").read_text())
    assert data["reports"] == ["https://github.com/vllm-project/vllm/issues/7", "https://github.com/vllm-project/vllm/issues/8"]
    assert data["phase"] == "engine configuration" and data["next_pages"][0]["id"] == "0123456789abcdef"
    curated = (tmp_path / "site" / "errors" / "0123456789abcdef" / "index.html").read_text()
    assert "Reported in 1 issue<" in curated and "(gathered 2026-12-01)" in curated
    assert "What to do next" not in curated  # a curated page has its own solutions
    home = (tmp_path / "site" / "index.html").read_text()  # the most reported first, curated or not
    assert home.index('href="errors/1111111111111111/"') < home.index('href="errors/0123456789abcdef/"')


def test_the_literal_text_of_a_message_is_its_longest_run_of_words():
    from generator.site.pages import issue_search_url, literal_text

    assert literal_text("max_num_seqs ({n}) exceeds available Mamba cache blocks ({m}).") == "exceeds available Mamba cache blocks"
    assert literal_text("{a} {b}") == "" and issue_search_url("{msg}") == ""
    assert len(literal_text("word " * 60)) <= 100
    assert '"' not in issue_search_url('say "hello world, this is long"').split("q=")[1].replace("%22", "", 2)


def test_a_foreign_errors_reports_are_on_its_page_and_in_its_json(site_input, tmp_path):
    from generator.entries.reports import Report

    site_input.reports = [Report("torch-cuda-out-of-memory", "https://github.com/vllm-project/vllm/issues/11")]
    build_site(ROOT / "mkdocs.yml", site_input, tmp_path / "site")
    html = (tmp_path / "site" / "foreign" / "torch-cuda-out-of-memory" / "index.html").read_text()
    assert "Reported in 1 issue<" in html and 'href="https://github.com/vllm-project/vllm/issues/11"' in html
    data = json.loads((tmp_path / "site" / "api" / "foreign" / "torch-cuda-out-of-memory.json").read_text())
    assert data["reports"] == ["https://github.com/vllm-project/vllm/issues/11"]


def test_a_logged_error_links_the_error_raised_right_after_it_in_the_same_branch():
    from generator.site.pages import build_pages, link_followers

    def error(id_, kind, exception, template, line, guard):
        site = dict(CATALOG["errors"][0]["sites"][0], kind=kind, exception=exception, template=template, line=line,
                    end_line=line, guard=guard, path="vllm/plugins.py", function="load_plugin", comment="")
        return {"id": id_, "kind": kind, "exception": exception, "template": template, "has_message": True, "sites": [site]}

    catalog = dict(CATALOG, errors=[
        error("1000000000000001", "log", "ERROR", "Failed to load plugin {name}: {e}", 10, ["not ok"]),
        error("1000000000000002", "raise", "RuntimeError", "Failed to load plugin {name}", 11, ["not ok"]),
        error("1000000000000003", "log", "WARNING", "Plugin {name} is slow", 20, ["slow"]),
        error("1000000000000004", "raise", "ValueError", "Plugin {name} is unknown", 22, ["unknown"]),  # another branch
    ])
    pages = {p.id: p for p in build_pages(catalog, [], {})}
    link_followers(list(pages.values()))
    assert [f["id"] for f in pages["1000000000000001"].followed_by] == ["1000000000000002"]
    assert pages["1000000000000001"].followed_by[0]["where"] == "vllm/plugins.py:11"
    assert pages["1000000000000003"].followed_by == [] and pages["1000000000000002"].followed_by == []


def test_an_entry_no_machine_can_reproduce_says_why_on_its_page(tmp_path):
    errors = tmp_path / "errors"
    errors.mkdir()
    why = "It needs a Ray cluster, which errorkb's vLLM environment does not install."
    (errors / "ray.yaml").write_text(ENTRY.split("reproduce:")[0] + f"reproduce:\n  not_reproducible: \"{why} <b>x</b>\"\n")
    entries, problems = load_entries(errors, tmp_path)
    assert not problems, [str(p) for p in problems]
    docs = tmp_path / "docs"
    docs.mkdir()
    render_docs(SiteInput(catalog=CATALOG, entries=entries, engine_args=ENGINE_ARGS), docs, ROOT)
    page = (docs / "errors" / "0123456789abcdef.md").read_text()
    line = next(line for line in page.splitlines() if line.startswith("Not reproduced:"))
    assert "It needs a Ray cluster" in line and "<b>x</b>" not in line and "&lt;b>x" in line
    (errors / "ray.yaml").write_text(ENTRY.split("reproduce:")[0] + "reproduce:\n  not_reproducible: too short\n")
    _, problems = load_entries(errors, tmp_path)
    assert problems and "reproduce" in str(problems[0])


def test_a_hostile_report_url_stays_inert(site_input, tmp_path):
    from generator.entries.reports import Report

    hostile = 'https://x.example/a"><script>window.pwned=7</script><a href="'
    site_input.reports = [Report("fedcba9876543210", hostile), Report("torch-cuda-out-of-memory", hostile)]
    build_site(ROOT / "mkdocs.yml", site_input, tmp_path / "site")
    for page in ("errors/fedcba9876543210/index.html", "foreign/torch-cuda-out-of-memory/index.html"):
        html = (tmp_path / "site" / page).read_text()
        assert "Reported in 1 issue<" in html and "window.pwned=7</script>" not in html and "<script>window.pwned" not in html


def test_a_foreign_errors_example_is_shown_as_text_whatever_it_holds():
    """An example (foreign.yaml comes by pull request too) stays inside its code block: a fence
    or markup in it opens nothing."""
    import dataclasses

    from generator.lookup.foreign import foreign_errors
    from generator.site.render import environment

    error = dataclasses.replace(foreign_errors()[0], examples=("```\n<script>alert(1)</script>\n```html\n<img src=x onerror=alert(2)>",))
    text = environment(ROOT / "templates").get_template("foreign.md.j2").render(error=error, related=[], reports=[], reports_gathered="")
    import markdown

    html = markdown.markdown(text, extensions=["fenced_code"])
    assert "<script>" not in html and "<img" not in html and "&lt;script&gt;alert(1)" in html
