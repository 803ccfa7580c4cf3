"""A mkdocs plugin that makes thousands of error pages affordable.

mkdocs builds a fresh Markdown converter for every page and the search plugin
parses every page's HTML back into text; at eight thousand error pages those two
cost more than everything else. Error pages are generated, so both can be done
cheaply without changing what a reader gets:

- one Markdown converter, with the extensions of ``mkdocs.yml`` (the one list), serves
  them all; their links are written relative to the page's URL by the generator (and
  ``tests/test_site.py`` checks every link of the built site);
- they are converted up front, in a process pool (``workers`` processes: ``errorkb
  build --workers``, one per CPU by default);
- their search entries (title, message, meaning) come from their front matter,
  the search plugin is told to skip them, and the entries are added to its index.

Every page's content (what Markdown made of our templates, entries, records and vLLM's
source; not the theme's frame around it) passes an allowlist sanitizer (``nh3``) before it
is written: error pages in the same process pool, right after their conversion, the other
pages (home, lists, releases, JSON API) in ``on_page_content``. Only the tags and attributes
that our templates and the Markdown extensions of ``mkdocs.yml`` produce are kept (``ALLOWED_*``
below): no event handler, no ``style``, and URLs (``href``, ``src``) only of the schemes
http, https and mailto, or relative (within the site). So no text that got past the filters
of ``render.py`` runs anything. Titles of the table of contents and of the page (front
matter) are the theme's to show, as HTML: their text is escaped again here. The theme's own
scripts (and ``extra_javascript``) are outside the content.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import re
from functools import partial
from pathlib import Path

import markdown
import nh3
from mkdocs.config import config_options
from mkdocs.plugins import BasePlugin
from mkdocs.structure.toc import get_toc
from mkdocs.utils.meta import get_data

ERROR_PAGES = "errors/"
# The one difference from mkdocs.yml on error pages: highlighting thousands of excerpts
# is most of a build's time, so they are shown as plain code.
ERROR_PAGE_OVERRIDES = {"pymdownx.highlight": {"use_pygments": False}}

_converter: markdown.Markdown | None = None
_extensions: tuple[list, dict] = ([], {})

# --- the sanitizer ------------------------------------------------------------------------------
# What a page's content may hold: the tags and attributes that Python-Markdown and the
# extensions of mkdocs.yml make (tables, code, admonitions, details, tabbed content, toc
# permalinks, pymdownx.highlight), and what templates/*.j2 write as HTML: the badges and
# flag tables (span, p, table, code), the "Paste your error" box on the home page (label,
# textarea, button, a div for the results: templates/home.md.j2, wired up by
# assets/lookup.js through the ids errorkb-paste, errorkb-find, errorkb-results), and the
# memory calculator's placeholder (div#errorkb-memory, filled in by assets/memory.js).
ALLOWED_TAGS = {
    "a", "b", "blockquote", "br", "button", "caption", "code", "dd", "del", "details", "div", "dl", "dt",
    "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "input", "ins", "kbd", "label", "li", "ol",
    "p", "pre", "s", "span", "strong", "sub", "summary", "sup", "table", "tbody", "td", "textarea", "tfoot",
    "th", "thead", "tr", "ul",
}
ALLOWED_ATTRIBUTES = {
    "*": {"class", "id", "title"},  # headings' and tabs' ids (toc, permalinks), classes for the theme's CSS
    "a": {"href"},  # toc permalinks (a.headerlink) too
    "img": {"src", "alt"},
    "input": {"checked", "name"},  # pymdownx.tabbed: <input type="radio" name="__tabbed_1" id="__tabbed_1_1" checked>
    "label": {"for"},  # pymdownx.tabbed's tab titles; the paste box's label
    "div": {"aria-live", "data-tabs", "data-model", "data-gpu", "data-max-num-seqs"},  # the lookup's results; pymdownx.tabbed's set; the calculator's example
    "textarea": {"rows", "placeholder", "spellcheck"},  # the paste box
    "details": {"open"},  # pymdownx.details (???+)
    "ol": {"start"},
    "th": {"align"},  # no style anywhere: a table's alignment (Markdown writes it as a style) is lost
    "td": {"align"},
}
ALLOWED_VALUES = {"input": {"type": {"radio"}}, "button": {"type": {"button"}}}
URL_SCHEMES = {"http", "https", "mailto"}  # and relative URLs: within the site


def _cleaner(**options):
    """nh3's sanitizer with these options: built once where nh3 has ``Cleaner``, else ``nh3.clean``."""
    if hasattr(nh3, "Cleaner"):
        return nh3.Cleaner(**options).clean
    return partial(nh3.clean, **options)


sanitize = _cleaner(  # a page's content HTML, keeping only what ALLOWED_* allow
    tags=ALLOWED_TAGS,
    clean_content_tags={"script", "style"},
    attributes=ALLOWED_ATTRIBUTES,
    tag_attribute_values=ALLOWED_VALUES,
    url_schemes=URL_SCHEMES,
    link_rel=None,
    strip_comments=True,
)
sanitize_text = _cleaner(tags=set(), attributes={}, clean_content_tags={"script", "style"})  # a title: its text, escaped
_RAW = re.compile(r'[<>"]')


def _sanitize_toc(tokens: list) -> list:
    for token in tokens:
        for key in ("name", "html", "data-toc-label"):
            if isinstance(token.get(key), str) and "<" in token[key]:  # without one, no tag: text as it is
                token[key] = sanitize_text(token[key])
        _sanitize_toc(token.get("children", []))
    return tokens


def _escaped(value):
    """A front matter value the theme writes into the page as it is (``<title>``, ``<meta content>``):
    our templates escape it; whatever is still raw is escaped here."""
    return _RAW.sub(lambda m: {"<": "&lt;", ">": "&gt;", '"': "&quot;"}[m.group()], value) if isinstance(value, str) else value


def _convert(source: str) -> tuple[str, list]:
    """Worker: one error page's Markdown (front matter removed) as sanitized HTML and its toc."""
    global _converter
    if _converter is None:
        extensions, configs = _extensions
        _converter = markdown.Markdown(extensions=extensions, extension_configs=configs)
    _converter.reset()
    html = _converter.convert(source)
    return sanitize(html), _sanitize_toc(getattr(_converter, "toc_tokens", []))


def error_page_extensions(config) -> tuple[list, dict]:
    """mkdocs.yml's Markdown extensions and their settings, with the error-page overrides."""
    configs = {name: dict(settings) for name, settings in config["mdx_configs"].items()}
    for name, settings in ERROR_PAGE_OVERRIDES.items():
        configs[name] = {**configs.get(name, {}), **settings}
    return list(config["markdown_extensions"]), configs


class ErrorkbPlugin(BasePlugin):
    config_scheme = (("workers", config_options.Type(int, default=0)),)  # 0: one per CPU

    def on_config(self, config):
        global _converter, _extensions
        self.converted: dict[str, tuple[str, list]] = {}
        self.sanitized: set[str] = set()  # pages whose content and toc _convert sanitized
        self.entries: list[dict] = []
        self.written = 0
        self.writing = None
        if not hasattr(self, "step"):
            self.step = lambda label, unit="", **_: (lambda done, total: None)  # set by build_site
        _extensions = error_page_extensions(config)
        _converter = None  # built again with this configuration's extensions
        return config

    def on_files(self, files, config):
        sources = []
        for file in files:
            if file.src_uri.startswith(ERROR_PAGES) and file.src_uri.endswith(".md"):
                markdown_text, _ = get_data(file.content_string)
                sources.append((file.src_uri, markdown_text))
        workers = self.config["workers"] or os.cpu_count() or 1
        converting = self.step("converting error pages", "pages")
        results = []
        if workers > 1 and len(sources) > 200:
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                for result in pool.imap(_convert, [text for _, text in sources], chunksize=64):
                    results.append(result)
                    if len(results) % 256 == 0 or len(results) == len(sources):
                        converting(len(results), len(sources))
        else:
            results = [_convert(text) for _, text in sources]
            converting(len(results), len(results))
        self.converted = {uri: result for (uri, _), result in zip(sources, results)}
        self.pages_total = len(files.documentation_pages())
        self.writing = self.step("writing HTML", "pages")
        return files

    def on_post_page(self, output, page, config):
        self.written += 1
        if self.writing and (self.written % 256 == 0 or self.written == self.pages_total):
            self.writing(self.written, self.pages_total)
        return output

    def on_pre_page(self, page, config, files):
        if page.file.src_uri in self.converted:
            page.render = partial(self._render, page)
        return page

    def on_page_content(self, html, page, config, files):
        """Every page's content is sanitized (error pages were, in ``_convert``), and so are the
        titles the theme shows from the page: its toc's, and the front matter's title and description."""
        for key in ("title", "description"):
            if key in page.meta:
                page.meta[key] = _escaped(page.meta[key])
        if page.file.src_uri in self.sanitized:
            return html
        stack = list(page.toc)
        while stack:
            item = stack.pop()
            if "<" in item.title:
                item.title = sanitize_text(item.title)
            stack.extend(item.children)
        return sanitize(html)

    def _render(self, page, config, files) -> None:
        html, toc_tokens = self.converted.pop(page.file.src_uri)
        self.sanitized.add(page.file.src_uri)
        page.content = html
        page.toc = get_toc(toc_tokens)
        text = page.meta.get("errorkb_search")
        if text:
            entry = {"location": page.url, "title": page.title, "text": text}
            boost = page.meta.get("errorkb_boost")
            if isinstance(boost, (int, float)) and not isinstance(boost, bool):
                entry["boost"] = boost  # curated pages first (the theme's lunr takes a document boost)
            self.entries.append(entry)

    def on_post_build(self, config):
        path = Path(config["site_dir"]) / "search" / "search_index.json"
        if not path.is_file() or not self.entries:
            return
        index = json.loads(path.read_text(encoding="utf-8"))
        index["docs"].extend(sorted(self.entries, key=lambda e: e["location"]))
        path.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
