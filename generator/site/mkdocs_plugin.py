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
"""

from __future__ import annotations

import json
import multiprocessing
import os
from functools import partial
from pathlib import Path

import markdown
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


def _convert(source: str) -> tuple[str, list]:
    """Worker: one error page's Markdown (front matter removed) as HTML and its toc."""
    global _converter
    if _converter is None:
        extensions, configs = _extensions
        _converter = markdown.Markdown(extensions=extensions, extension_configs=configs)
    _converter.reset()
    html = _converter.convert(source)
    return html, getattr(_converter, "toc_tokens", [])


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
        self.entries: list[dict] = []
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
        if workers > 1 and len(sources) > 200:
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                results = pool.map(_convert, [text for _, text in sources], chunksize=64)
        else:
            results = [_convert(text) for _, text in sources]
        self.converted = {uri: result for (uri, _), result in zip(sources, results)}
        return files

    def on_pre_page(self, page, config, files):
        if page.file.src_uri in self.converted:
            page.render = partial(self._render, page)
        return page

    def _render(self, page, config, files) -> None:
        html, toc_tokens = self.converted.pop(page.file.src_uri)
        page.content = html
        page.toc = get_toc(toc_tokens)
        text = page.meta.get("errorkb_search")
        if text:
            self.entries.append({"location": page.url, "title": page.title, "text": text})

    def on_post_build(self, config):
        path = Path(config["site_dir"]) / "search" / "search_index.json"
        if not path.is_file() or not self.entries:
            return
        index = json.loads(path.read_text(encoding="utf-8"))
        index["docs"].extend(sorted(self.entries, key=lambda e: e["location"]))
        path.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
