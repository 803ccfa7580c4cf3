"""The site built from a hostile pull request runs no script but the theme's and ours.

The input is written as a hostile contributor would write it: entries (reference-style
``javascript:`` links and images, ``attr_list`` attributes, code spans opened by an escaped
backtick or cut by a blank line, fences with attributes, raw ``<script>``, ``<img onerror>``,
``<svg onload>``, ``data:`` URLs, a ``references[].url`` that closes its own link, an entry
file name with HTML in it), a record whose fields hold HTML, and a catalog of vLLM's source
with HTML, JavaScript, Markdown and Jinja in its messages, file paths, functions and
exception names, and control characters. Every payload would call ``alert(N)``.

- every page's HTML (and the search index) is scanned: no event-handler attribute, no
  ``javascript:``/``data:``/``vbscript:`` URL, no ``<script>`` but the theme's frame (the same
  on every page), no tag in the content outside the sanitizer's allowlist;
- the Markdown the templates write is already inert before the sanitizer
  (``generator/site/render.py`` is the first line, ``nh3`` in the mkdocs plugin the backstop);
- Chromium loads every page: no alert opens (nor confirm, prompt or print), every link and
  image is http(s)/mailto, and the paste box (given a hostile message, it shows the hostile
  catalog's matches as text) and the memory calculator (our own script) work.
"""

from __future__ import annotations

import dataclasses
import functools
import html
import json
import re
import threading
import time
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import generator.site.pages as pages_module
from generator.entries.check import check_entries
from generator.entries.load import load_entries
from generator.site import mkdocs_plugin
from generator.site.build import SiteInput, build_site, render_docs
from generator.site.pages import Flag, permalink
from generator.site.render import link_url, safe_md
from test_browser import browser  # noqa: F401 - the Chromium fixture

ROOT = Path(__file__).resolve().parents[1]


def js(n: int) -> str:
    """The payload: what a script that got through would do (no dot in it: Python-Markdown does
    not take ``<img onerror=a.b>`` for HTML, and a payload it escapes by chance proves nothing)."""
    return f"alert({n})"


# --- vLLM's source, hostile ----------------------------------------------------------------------

CONTROL = "\x00\x01\x02\x03\x08\x0b\x0c\x1b[31m\x7f\x85\u2028\u2029\ufeff"


def _site(path: str, line: int, function: str, template: str, **more) -> dict:
    return {
        "path": path, "line": line, "end_line": line + 1, "function": function, "kind": more.pop("kind", "raise"),
        "exception": more.pop("exception", "ValueError"), "template": template, "variants": more.pop("variants", []),
        "guard": more.pop("guard", []), "placeholders": more.pop("placeholders", []), "comment": more.pop("comment", ""),
        "excerpt": more.pop("excerpt", ""), "excerpt_line": line, "cause": None,
    }


def _error(error_id: str, exception: str, template: str, sites: list[dict], kind: str = "raise", has_message: bool = True) -> dict:
    return {"id": error_id, "kind": kind, "exception": exception, "template": template, "has_message": has_message,
            "sites": [dict(s, exception=exception, kind=kind) for s in sites]}


T_HTML = (f"<script>{js(101)}</script> <img src=x onerror={js(102)}> <svg onload={js(103)}> "
          f"[l](javascript:{js(104)}) ![i](javascript:{js(105)}) {{: onclick={js(106)} }} "
          "{{ config }} {% for x in y %}{% endfor %} `tick` a|b {value}")
T_FENCE = f"first line\n```\n<img src=x onerror={js(107)}>\n```\n\n<svg onload={js(108)}>\r<img src=x onerror={js(109)}>"
# Markdown drops \x02 and \x03: a fence chosen longer than "``" would be closed by "```".
T_DROPS = f"a ``\x02` b\n``\x03`\n<img src=x onerror={js(110)}>\n``\x02`" + CONTROL
T_JINJA = "{{ lipsum.__globals__ }} {% raw %}{{ x }}{% endraw %} ${x} <%= x %> " + CONTROL
PATH_HTML = f"vllm/<img src=x onerror={js(111)}>/a\"b'c.py"
PATH_LINK = f"vllm/x) [l](javascript:{js(112)}) (y/b c.py"
PATH_QUOTES = f"vllm/config/\"onmouseover=\"{js(113)}\" x=\".py"
PATH_CONTROL = "vllm/ctl" + CONTROL.replace("\x00", "") + " d/e.py"
PATH_V1 = f"vllm/v1/<script>{js(114)}</script>/d.py"
EXC_HTML = f"<img src=x onerror={js(115)}>"
FUNCTION = f"f`` `<img src=x onerror={js(116)}>` </code><script>{js(117)}</script>"

IDS = ["a1a1a1a1a1a1a1a1", "b2b2b2b2b2b2b2b2", "c3c3c3c3c3c3c3c3", "d4d4d4d4d4d4d4d4", "e5e5e5e5e5e5e5e5"]
GONE = "f6f6f6f6f6f6f6f6"


def hostile_catalog(revision: str, errors: list[dict]) -> dict:
    return {"schema_version": 1, "project": "vllm", "revision": revision, "commit": "0" * 40, "tag": revision,
            "source": "test", "errors": errors, "stats": {}}


PIN_ERRORS = [
    _error(IDS[0], "ValueError", T_HTML, [_site(
        PATH_HTML, 10, FUNCTION, T_HTML, variants=[f"<svg onload={js(118)}>", T_FENCE],
        guard=[f"x < 1 and '<img src=x onerror={js(119)}>' and self.max_num_seqs > 2"],
        placeholders=["value"], comment=f"Keep <b>it</b> <script>{js(120)}</script> ``` `",
        excerpt=f"if x:\n    raise ValueError(f\"</code></pre><script>{js(121)}</script>\")")]),
    _error(IDS[1], EXC_HTML, T_DROPS, [_site(PATH_LINK, 20, "g", T_DROPS)]),
    _error(IDS[2], "AssertionError", T_JINJA, [_site(PATH_QUOTES, 30, "h", T_JINJA, guard=["not (" + T_JINJA + ")"])], kind="assert"),
    _error(IDS[3], "RuntimeError", "", [_site(PATH_CONTROL, 40, FUNCTION, "")], has_message=False),
    _error(IDS[4], "ValueError", T_FENCE, [_site(PATH_V1, 50, "i", T_FENCE), _site(PATH_HTML, 60, "j", T_FENCE)]),
]
# where the message lives, read from the source at assembly: a constant's key is any string
PIN_ERRORS[4]["sites"][0].update(message_from=PATH_HTML + ":3",
                                 message_name=f"STRS['`</code><img src=x onerror={js(123)}>` [l](javascript:{js(124)})']")
PIN_ERRORS[4]["sites"][1].update(message_from=PATH_QUOTES + ":4", message_name=f"<script>{js(125)}</script>()")
# the reasons a message shows, read from other functions of the source: any string
PIN_ERRORS[0]["sites"][0]["reasons"] = [f"`</code><script>{js(126)}</script>` and `` ` ``", f"a\n\n<img src=x onerror={js(127)}>",
                                        f"[l](javascript:{js(128)}) <svg onload={js(129)}>"] + [f"r{n}" for n in range(40)]
# One page per attack (its entry's explanation, cause and answer are the attack): an attack alone
# at the top of a page's Markdown, where nothing around it changes how Markdown reads it.
ATTACK_IDS = [f"{n:016x}" for n in range(1, 100)]
OLD_ERRORS = PIN_ERRORS[:3] + [
    _error(GONE, "ValueError", T_FENCE + " (gone)", [_site(f"vllm/gone/<svg onload={js(122)}>.py", 5, "k", T_FENCE + " (gone)")]),
]

# --- entries, hostile ------------------------------------------------------------------------------

HEADER = "# yaml-language-server: $schema=../generator/schemas/entry.schema.json\n"


def _yaml_block(text: str, indent: int = 2) -> str:
    return "|\n" + "\n".join(" " * indent + line if line else "" for line in text.split("\n"))


# Each attack on its own (as a cause, where a fence is not one, and as an FAQ answer, where it
# is), so that none hides another; all of them together in the explanation.
ATTACKS = [
    f"Reference-style [click me][evil].\n\n[evil]: javascript:{js(201)}",
    f"Reference-style image ![pic][evil].\n\n[evil]: javascript:{js(202)} \"title\"",
    f"Reference on the next line [x][evil].\n\n[evil]:\n  <javascript:{js(203)}>",
    "Reference to data: [x][evil].\n\n[evil]: data:text/html;base64,PHNjcmlwdD5hbGVydCgyMDQpPC9zY3JpcHQ+",
    f"Reference, lower case and spaced [x][ Evil ].\n\n [evil]:   JavaScript:{js(205)}",
    f"A paragraph with attributes.\n{{: onclick=\"{js(206)}\" style=\"position:fixed;top:0;left:0;width:100%;height:100%;z-index:9999\" }}",
    f"## A heading {{#errorkb-paste onclick={js(207)} }}",
    f"*Inline* {{: onmouseover={js(208)} }} and a table:\n\n| a |\n| - |\n| b {{: onclick={js(209)} }} |",
    f"Escaped backtick: \\`<img src=x onerror={js(210)}>` after it.",
    f"Escaped backtick before a span: \\``<svg onload={js(211)}>`` after it.",
    f"A span cut by a blank line: `a\n\n<img src=x onerror={js(212)}>` b.",
    f"A span cut by a heading: `a\n# b <img src=x onerror={js(213)}>` c.",
    f"Code `` `<img src=x onerror={js(214)}>` `` shown as code, and ``a`b``.",
    f"Raw: <script>{js(215)}</script> <img src=x onerror=\"{js(216)}\"> <svg onload=\"{js(217)}\"></svg>",
    f"<a href=\"javascript:{js(218)}\">a</a> <iframe src=\"javascript:{js(219)}\"></iframe> <object data=\"javascript:{js(220)}\"></object>",
    f"<details open ontoggle=\"{js(221)}\"><summary>x</summary></details>",
    f"<math><mtext><table><mglyph><style><img src=x onerror={js(222)}></style></mglyph></table></mtext></math>",
    f"<div markdown=\"1\" onclick=\"{js(223)}\">md in html</div>",
    f"<!-- <img src=x onerror={js(224)}> --> a comment, and <!-- an open one\n\n<img src=x onerror={js(225)}>",
    f"Inline: [a](javascript:{js(226)}) [b]( javascript:{js(227)} ) [c](JaVaScRiPt:{js(228)}) [d](data:text/html,<script>{js(229)}</script>)",
    f"![e](javascript:{js(230)}) [f](&#106;avascript:{js(231)}) [g](java&#x09;script:{js(232)}) [h](<javascript:{js(233)}>)",
    f"<javascript:{js(234)}> [i](vbscript:msgbox(235)) [j](https://a.example/ \"t\\\" onclick=\\\"{js(236)}\")",
    f"```{{.python onclick=\"{js(237)}\" title=\"<img src=x onerror={js(238)}>\"}}\n<img src=x onerror={js(239)}>\n```",
    f"~~~\n<svg onload={js(240)}>\n~~~",
    f"```\nunclosed fence\n\n<img src=x onerror={js(241)}>",
    f"A fence inside a paragraph\n```\n\n<img src=x onerror={js(242)}>\n\n```",
    f"Markdown drops \x02: ``\x02`\n<img src=x onerror={js(243)}>\n``\x03`",
    f"=== \"<img src=x onerror={js(244)}> [t](javascript:{js(245)})\"\n\n    <svg onload={js(246)}>",
    f"!!! note \"<img src=x onerror={js(247)}> [t](javascript:{js(248)})\"\n\n    <svg onload={js(249)}>",
    f"??? question \"[t](javascript:{js(250)})\"\n\n    [u](javascript:{js(251)})",
    f"&lt;escaped&gt; &#60;script&#62;{js(252)}&#60;/script&#62; \\<img src=x onerror={js(253)}\\>",
]
EXPLANATION = "\n\n".join(ATTACKS) + "\n\nSafe links still work: [j](https://ok.example/a_(b)), [k](../" + IDS[1] + "/) and [ok][good].\n\n[good]: https://docs.vllm.ai/"
CAUSES = "\n".join("  - " + json.dumps(attack) for attack in ATTACKS) + "\n  - " + _yaml_block("```\n\n<img src=x onerror=" + js(306) + ">\n\n```", 4)
FAQ = "\n".join(f"  - q: {json.dumps(f'Attack {n} <img src=x onerror={js(700 + n)}> [q](javascript:{js(800 + n)})')}\n    a: {json.dumps(attack)}"
                for n, attack in enumerate(ATTACKS))
WHY = _yaml_block("Why, with attributes.\n{: onmouseover=" + js(311) + " }", 6)
ENTRY = HEADER + f"""\
ids: [{IDS[0]}, {IDS[4]}]
title: "A <script>{js(301)}</script> title [x](javascript:{js(302)}) {{: onclick={js(303)} }}"
summary: "Summary <img src=x onerror={js(304)}> `code` [x][evil]\\n\\n[evil]: javascript:{js(305)}"
explanation: {json.dumps(EXPLANATION)}
causes:
{CAUSES}
solutions:
  - title: "<img src=x onerror={js(309)}> `max_num_seqs` [t](javascript:{js(310)})"
    why: {WHY}
    commands:
      vllm: "vllm serve m --max-num-seqs 8 </code><script>{js(312)}</script>"
      python: "LLM(x='</code></pre><img src=x onerror={js(313)}>')"
      "<img src=x onerror={js(314)}>": "x"
faq:
{FAQ}
references:
  - url: "https://docs.vllm.ai/x) <img src=x onerror={js(320)}> (y"
    title: "Closing its own link"
  - url: "javascript:{js(321)}"
    title: "<script>{js(322)}</script>"
  - url: "data:text/html,<script>{js(323)}</script>"
    title: "data"
  - url: " java\\tscript:{js(324)}"
    title: tab
  - url: "https://docs.vllm.ai/en/latest/?a=1&b=\\"onmouseover=\\"{js(325)}"
    title: quotes
tags: ["<img src=x onerror={js(326)}>"]
reproduce:
  error:
    cli: [vllm, serve, "models/<img src=x onerror={js(327)}>", --max-num-seqs, "</code><script>{js(328)}</script>"]
    expect: {IDS[0]}
  fix:
    python: |
      print("</code></pre><script>{js(329)}</script>")
    reach: return
"""
# A page with the memory calculator (its slug is one of CALCULATOR_ENTRIES): our own script must still run there.
CALCULATOR_ENTRY = HEADER + f"""\
ids: [{IDS[2]}]
title: Calculator page
summary: "A summary <svg onload={js(401)}>"
explanation: "[x][y]\\n\\n[y]: javascript:{js(402)}"
solutions:
  - title: Something
    why: "Because {{: onclick={js(403)} }}"
"""
# The entry file name holds HTML (a slug is checked by `errorkb check`, but the site is safe without it).
HOSTILE_SLUG = f"x\"><img src=x onerror={js(501)}> `y` [z](javascript:{js(502)})"

RUN_CASE = {"passed": True, "summary": f"raised <img src=x onerror={js(601)}> [x](javascript:{js(602)})",
            "outcome": f"<svg onload={js(603)}>", "duration_s": f"<img src=x onerror={js(604)}>",
            "evidence": f"Traceback\n```\n</code></pre><script>{js(605)}</script>\n```\n<img src=x onerror={js(606)}>"}
HOSTILE_RUN = {
    "tier": "cpu", "pair": 0, "key": "cpu-0", "passed": True, "verification": f"<script>{js(607)}</script>",
    "simulates": None, "date": f"<img src=x onerror={js(608)}>", "duration_s": f"<svg onload={js(609)}>",
    "environment": {"vllm": f"<script>{js(610)}</script>", "vllm_commit": f"`</code><img src=x onerror={js(611)}>",
                    "python": f"[x](javascript:{js(612)})", "torch": "{: onclick=alert(613) }",
                    "gpu": {"name": f"<img src=x onerror={js(614)}>", "driver": f"<svg onload={js(615)}>"},
                    "cuda": f"<script>{js(616)}</script>", "platform": f"<img src=x onerror={js(617)}>"},
    "error": RUN_CASE, "fix": dict(RUN_CASE, summary=f"<script>{js(618)}</script>"),
}
HOSTILE_RECORD = {"entry": "hostile", "runs": {"cpu-0": HOSTILE_RUN}}
ENGINE_ARGS = {
    "max_num_seqs": Flag("max_num_seqs", "--max-num-seqs", f"<img src=x onerror={js(701)}>", f"<svg onload={js(702)}>\n\nx",
                         f"Help <script>{js(703)}</script> [h](javascript:{js(704)})"),
}


def attack_entry(n: int, attack: str) -> str:
    return HEADER + (f"ids: [\"{ATTACK_IDS[n]}\"]\ntitle: Attack {n}\nsummary: Attack {n}.\nexplanation: {json.dumps(attack)}\n"
                     f"causes: [{json.dumps(attack)}]\nsolutions:\n  - title: Attack {n}\n    why: {json.dumps(attack)}\n"
                     f"faq:\n  - q: Attack {n}?\n    a: {json.dumps(attack)}\n")


def hostile_input(tmp_path: Path) -> SiteInput:
    errors = tmp_path / "errors"
    errors.mkdir()
    (errors / "hostile.yaml").write_text(ENTRY, encoding="utf-8")
    (errors / "kv-cache-too-small-for-max-model-len.yaml").write_text(CALCULATOR_ENTRY, encoding="utf-8")
    for n, attack in enumerate(ATTACKS):
        (errors / f"attack-{n:02d}.yaml").write_text(attack_entry(n, attack), encoding="utf-8")
    entries, _ = load_entries(errors, tmp_path)  # schema problems or not: the site must be safe either way
    by_slug = {e.slug: e for e in entries}
    assert len(by_slug) == 2 + len(ATTACKS), [str(p) for p in _]
    assert all(entry.ids == [ATTACK_IDS[int(slug[7:])]] for slug, entry in by_slug.items() if slug.startswith("attack-"))
    renamed = dataclasses.replace(by_slug["hostile"], slug=HOSTILE_SLUG, path=f"errors/{HOSTILE_SLUG}.yaml",
                                  ids=[IDS[1], IDS[3]])
    pin = PIN_ERRORS + [_error(ATTACK_IDS[n], "ValueError", f"attack {n}", [_site(f"vllm/attacks/a{n}.py", n + 1, "f", f"attack {n}")])
                        for n in range(len(ATTACKS))]
    return SiteInput(
        catalog=hostile_catalog("v1.0", pin),
        releases=[hostile_catalog("v0.9", OLD_ERRORS), hostile_catalog("v1.0", pin)],
        entries=list(by_slug.values()) + [renamed],
        engine_args=ENGINE_ARGS,
        verifications={"hostile": HOSTILE_RECORD, HOSTILE_SLUG: HOSTILE_RECORD},
    )


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory) -> Path:
    """The hostile site, built once; every reproduction shows HOSTILE_RUN, as if a record had
    got past its checks (records are validated elsewhere: the page must be safe regardless)."""
    tmp = tmp_path_factory.mktemp("hostile")
    original = pages_module.reproduction_views

    def views(*args, **kwargs):
        return [dict(view, run=HOSTILE_RUN) for view in original(*args, **kwargs)]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pages_module, "reproduction_views", views)
        build_site(ROOT / "mkdocs.yml", hostile_input(tmp), tmp / "site")
    return tmp / "site"


# --- scanning HTML -------------------------------------------------------------------------------------

BAD_URL = re.compile(r"^(?:javascript|data|vbscript):")


def url_scheme_text(value: str) -> str:
    """An attribute value as a browser reads a URL's scheme: entities decoded, controls and spaces gone."""
    return re.sub(r"[\x00-\x20\x7f]", "", html.unescape(value)).lower()


class Scan(HTMLParser):
    """Tags (with where they are), script elements, and what is wrong with them."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.scripts: list[str] = []
        self.content_tags: set[str] = set()
        self._article = 0
        self._script: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if re.match(r"on", name, re.I):
                self.problems.append(f"event handler <{tag} {name}={value!r}>")
            if value and BAD_URL.match(url_scheme_text(value)):
                self.problems.append(f"bad URL <{tag} {name}={value!r}>")
            if self._article and name == "style":
                self.problems.append(f"style in the content <{tag} style={value!r}>")
        if self._article:
            self.content_tags.add(tag)
        if tag == "article":
            self._article += 1
        if tag == "script":
            if self._article:
                self.problems.append("a <script> in the content")
            self._script = [f"<script {sorted(attrs)}>"]

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag == "script":
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if tag == "article" and self._article:
            self._article -= 1
        if tag == "script" and self._script is not None:
            self.scripts.append("".join(self._script))
            self._script = None

    def handle_data(self, data):
        if self._script is not None:
            self._script.append(data)


def scan(text: str) -> Scan:
    found = Scan()
    found.feed(text)
    found.close()
    return found


def frame_scripts(scripts: list[str]) -> list[str]:
    """Scripts with the page's place taken out (``../..``, ``/``, ``.``): the theme's frame is then
    the same on every page."""
    out = []
    for text in scripts:
        text = re.sub(r'new URL\("[^"]*"', "new URL(HERE", text)
        text = re.sub(r'"base": "[^"]*"', '"base": HERE', text)
        # 404.html links from the root of site_url (/errorkb/assets/...), the others relatively
        out.append(re.sub(r"""(['"])(?:\.\./|/)*(?:errorkb/)?assets/""", r"\1assets/", text))
    return out


def html_pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


# --- the tests -----------------------------------------------------------------------------------------


def test_every_page_is_inert(hostile_site):
    """No page has an event handler, a javascript:/data: URL, a script outside the theme's
    frame or a tag outside the sanitizer's allowlist in its content."""
    pages = html_pages(hostile_site)
    assert len(pages) >= 15
    reference = frame_scripts(scan((hostile_site / "json-api" / "index.html").read_text(encoding="utf-8")).scripts)
    ours = [s for s in reference if any(f"assets/{name}.js" in s for name in ("lookup", "memory", "lists", "search-lazy"))]
    assert len(ours) == 4, reference  # our scripts are there: mkdocs.yml's extra_javascript and the lazy search
    problems = []
    for page in pages:
        found = scan(page.read_text(encoding="utf-8"))
        where = page.relative_to(hostile_site)
        problems += [f"{where}: {p}" for p in found.problems]
        if frame_scripts(found.scripts) != reference:
            problems.append(f"{where}: scripts other than the theme's frame: {found.scripts}")
        outside = found.content_tags - mkdocs_plugin.ALLOWED_TAGS - {"article"}
        if outside:
            problems.append(f"{where}: tags outside the allowlist in the content: {sorted(outside)}")
    assert not problems, "\n".join(problems[:40])


def test_the_hostile_text_is_there_as_text(hostile_site):
    """Inert is not absent: the payloads show as text where a reader expects them."""
    page = (hostile_site / "errors" / IDS[0] / "index.html").read_text(encoding="utf-8")
    article = page[page.index("<article"):page.index("</article>")]
    assert f"&lt;script&gt;{js(101)}&lt;/script&gt;" in article  # the message, in its fence
    assert f"`&lt;img src=x onerror={js(210)}&gt;` after it" in article  # after an escaped backtick: text
    assert f"<code>`&lt;img src=x onerror={js(214)}&gt;`</code>" in article  # a code span stays one
    assert "{{ config }}" in article and "a|b" in article
    assert 'href="https://docs.vllm.ai/x%29%20%3Cimg%20src=x%20onerror=alert%28320%29' in article  # one harmless URL
    assert 'href="https://ok.example/a_%28b%29"' in article and f'href="../{IDS[1]}/"' in article
    assert 'href="https://docs.vllm.ai/"' in article  # a safe reference definition keeps working
    assert '<pre class="highlight"><code class="language-python">' in article  # a fence keeps its language, no more
    # the reasons a message gives: each a code span of its own, the first 30 on the page, all in its JSON
    assert f"<code>`&lt;/code&gt;&lt;script&gt;{js(126)}&lt;/script&gt;` and `` ` ``</code>" in article
    assert f"<code>a &lt;img src=x onerror={js(127)}&gt;</code>" in article and "<code>r26</code>" in article
    assert "<code>r27</code>" not in article and "its JSON" in article
    shown = json.loads((hostile_site / "api" / "errors" / f"{IDS[0]}.json").read_text(encoding="utf-8"))
    assert shown["sites"][0]["reasons"] == PIN_ERRORS[0]["sites"][0]["reasons"]
    made = json.loads((hostile_site / "api" / "errors" / f"{IDS[4]}.json").read_text(encoding="utf-8"))
    assert sorted(s.get("message_name") for s in made["sites"]) == sorted(s["message_name"] for s in PIN_ERRORS[4]["sites"])


def test_where_a_message_lives_is_said_inertly():
    """An uncurated page says where its message lives (a constant's key is any string, and so is
    a function's name as the catalog spells it): code spans, no markup."""
    import markdown

    from generator.site.pages import generated_meaning

    for site in PIN_ERRORS[4]["sites"]:
        text = generated_meaning("ValueError", "raise", [dict(site, function=FUNCTION)], True)
        html = markdown.markdown(text)
        assert "<img" not in html and "<script" not in html and "javascript:" not in html.replace("javascript:alert(124)", "")
        assert "onerror=alert(123)" in html or "alert(125)" in html  # shown, as text


def test_the_search_index_is_inert(hostile_site):
    docs = json.loads((hostile_site / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]
    problems = []
    for doc in docs:
        for key in ("title", "text"):
            found = scan(doc.get(key) or "")
            problems += [f"{doc['location']} {key}: {p}" for p in found.problems]
            if found.scripts:
                problems.append(f"{doc['location']} {key}: script {found.scripts}")
            tags = re.findall(r"<([a-zA-Z][\w-]*)", doc.get(key) or "")
            if set(t.lower() for t in tags) - mkdocs_plugin.ALLOWED_TAGS:
                problems.append(f"{doc['location']} {key}: tags {sorted(set(tags))}")
    assert not problems, "\n".join(problems[:40])


def test_the_markdown_is_inert_before_the_sanitizer(tmp_path):
    """The first line holds alone: the Markdown the templates write, converted without the
    sanitizer, has no event handler, no bad URL and no script (nh3 is the backstop, not the fix)."""
    site = hostile_input(tmp_path)
    docs = tmp_path / "docs"
    docs.mkdir()
    original = pages_module.reproduction_views
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pages_module, "reproduction_views", lambda *a, **k: [dict(v, run=HOSTILE_RUN) for v in original(*a, **k)])
        render_docs(site, docs, ROOT)
    from mkdocs.config import load_config

    extensions, configs = mkdocs_plugin.error_page_extensions(load_config(str(ROOT / "mkdocs.yml"), docs_dir=str(docs)))
    import markdown

    converter = markdown.Markdown(extensions=extensions, extension_configs=configs)
    problems = []
    for page in sorted(docs.rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        body = text.split("\n---\n", 1)[1] if text.startswith("---\n") else text
        converter.reset()
        found = scan(converter.convert(body))
        problems += [f"{page.relative_to(docs)}: {p}" for p in found.problems]
        if found.scripts:
            problems.append(f"{page.relative_to(docs)}: scripts {found.scripts}")
    assert not problems, "\n".join(problems[:40])


def test_the_front_matter_survives_control_characters(tmp_path):
    """A message full of control characters (and the line breaks YAML knows) still gives a
    page whose front matter holds it escaped (in the search text; the title is the entry's)."""
    import yaml

    docs = tmp_path / "docs"
    docs.mkdir()
    render_docs(hostile_input(tmp_path), docs, ROOT)
    text = (docs / "errors" / f"{IDS[1]}.md").read_text(encoding="utf-8")
    front = yaml.safe_load(text.split("---\n")[1])  # JSON leaves DEL, C1 controls, U+2028 and a BOM raw: YAML does not take them
    assert "\x7f" in front["errorkb_search"] and "\ufeff" in front["errorkb_search"] and "\x1b" in front["errorkb_search"]
    assert front["title"].startswith("A &lt;script&gt;alert(301)&lt;/script&gt; title")


def test_urls_are_checked_by_scheme_and_encoded():
    assert link_url(f"javascript:{js(1)}") == link_url(" JavaScript:x") == link_url("data:text/html,x") == "#"
    assert link_url("\x01javascript:x") == link_url("vbscript:x") == link_url("&#106;avascript:x") == "#"
    assert link_url("https://docs.vllm.ai/en/latest/") == "https://docs.vllm.ai/en/latest/"
    assert link_url("mailto:a@b.c") == "mailto:a@b.c" and link_url("../0123456789abcdef/") == "../0123456789abcdef/"
    assert link_url("https://x) <img src=x onerror=alert(1)> (y") == "https://x%29%20%3Cimg%20src=x%20onerror=alert%281%29%3E%20%28y"
    assert permalink("v1.0", PATH_HTML, 3) == ("https://github.com/vllm-project/vllm/blob/v1.0/vllm/"
                                               "%3Cimg%20src%3Dx%20onerror%3Dalert%28111%29%3E/a%22b%27c.py#L3")
    assert permalink("v1.0", "vllm/caf\udce9.py", 1).endswith("/vllm/caf%E9.py#L1")  # a name that was not UTF-8: its bytes
    assert safe_md("[x][r]\n\n[r]: javascript:alert(1)") == "[x][r]\n\n[r]: #"
    assert safe_md("p\n{: onclick=x }") == "p\n\\{: onclick=x }"  # shown as text, not an attribute list


def test_check_rejects_a_slug_that_is_not_one():
    errors = [{"id": IDS[0], "template": "x"}]
    good = dataclasses.replace(load_example_entry(), slug="kv-cache-1", path="errors/kv-cache-1.yaml")
    bad = [dataclasses.replace(good, slug=slug, path=f"errors/{slug}.yaml") for slug in (HOSTILE_SLUG, "Upper", "-dash", "a_b", "a.b", "x\n")]
    assert [str(p) for p in check_entries([good], errors, set()) if "file name" in p.message] == []
    problems = [p for p in check_entries(bad, errors, set()) if "file name" in p.message]
    assert len(problems) == len(bad)
    assert all(p.line == 1 and p.col == 1 and "^[a-z0-9][a-z0-9-]*$" in p.message for p in problems)


def load_example_entry():
    entries, problems = load_entries(ROOT / "errors", ROOT)
    assert entries, problems
    return dataclasses.replace(entries[0], ids=[IDS[0]], reproduce={}, solutions=[], faq=[], references=[],
                               explanation="", causes=[], summary="s", title="t")


# --- in the browser ------------------------------------------------------------------------------------

RECORDER = """
window.__errorkb_dialogs = [];
for (const name of ["alert", "confirm", "prompt", "print"]) {
  window[name] = function (...args) { window.__errorkb_dialogs.push(name + "(" + args.join(",") + ")"); };
}
"""


@pytest.fixture(scope="module")
def hostile_url(hostile_site):
    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format, *args):  # noqa: A002 - the base class's name
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(hostile_site.parent)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/{hostile_site.name}/"
    server.shutdown()
    server.server_close()


def test_no_alert_opens_in_chromium(browser, hostile_site, hostile_url):  # noqa: F811 - the fixture
    from selenium.common.exceptions import NoAlertPresentException

    pages = [p.relative_to(hostile_site).as_posix() for p in html_pages(hostile_site)]
    script = browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORDER})
    problems = []
    try:
        for rel in pages:
            browser.get(hostile_url + rel)
            time.sleep(0.1)  # images fail to load, svg and details fire their events
            try:
                text = browser.switch_to.alert.text
                browser.switch_to.alert.dismiss()
                problems.append(f"{rel}: an alert opened: {text}")
            except NoAlertPresentException:
                pass
            state = browser.execute_script("""
                const schemes = new Set(["http:", "https:", "mailto:"]);
                return {
                  dialogs: window.__errorkb_dialogs || [],
                  links: [...document.querySelectorAll("a[href]")].map(a => a.protocol).filter(p => !schemes.has(p)),
                  images: [...document.images].map(i => i.src).filter(s => s && !/^https?:/.test(s)),
                  // the theme's frame has its forms (search, palette) and memory.js builds one; nothing else embeds
                  embedded: [...document.querySelectorAll("iframe, object, embed, frame, article form")]
                    .filter(e => !e.closest("#errorkb-memory")).map(e => e.outerHTML.slice(0, 80)),
                };
            """)
            if state["dialogs"] or state["links"] or state["images"] or state["embedded"]:
                problems.append(f"{rel}: {state}")
        # Our own script still runs: the paste box on the home page, the calculator on its page.
        browser.get(hostile_url)
        ready = browser.execute_script("const p = document.getElementById('errorkb-paste'); return p && p.dataset.errorkbReady")
        assert ready == "1", "lookup.js did not set up the paste box"
        # ... and shows the hostile catalog's matches (its messages, paths, exception names) as text
        browser.execute_script("document.getElementById('errorkb-paste').value = arguments[0];"
                               "document.getElementById('errorkb-find').click();", "ValueError: " + T_HTML)
        for _ in range(300):
            found = browser.execute_script("return document.querySelectorAll('#errorkb-results .errorkb-match').length")
            if found:
                break
            time.sleep(0.1)
        else:
            pytest.fail("the paste box found nothing for a hostile message")
        state = browser.execute_script("return [window.__errorkb_dialogs, document.querySelectorAll('#errorkb-results img, #errorkb-results svg, #errorkb-results script').length]")
        if state != [[], 0]:
            problems.append(f"the paste box's results: {state}")
        browser.get(hostile_url + f"errors/{IDS[2]}/")
        for _ in range(100):
            if browser.execute_script("const f = document.querySelector('#errorkb-memory form'); return f && f.dataset.errorkbLoaded"):
                break
            time.sleep(0.1)
        else:
            pytest.fail("memory.js did not set up the calculator on its page")
    finally:
        browser.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})
    assert len(pages) >= 15
    assert not problems, "\n".join(problems)
