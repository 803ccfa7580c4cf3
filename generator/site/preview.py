"""``errorkb serve``'s two parts: a local web server for a built site, and the rebuild of
the pages of the entries that changed while it runs.

A full build renders and converts every error page (thousands); a contributor editing
one entry wants that entry's pages back in seconds. ``rebuild_error_pages`` renders the
site's Markdown for the given ids alone (``render_docs(only=...)``), runs mkdocs on them
and the pages the navigation names, and puts each rebuilt page (HTML and JSON) in place
in the served folder, one ``os.replace`` per file, and the paste box's lookup index (the
entries and the links people wrote are in it). The search index and the list pages keep
what the last full build wrote until the next ``errorkb build``.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import tempfile
import threading
from pathlib import Path

from generator.site.build import SiteInput, output_lock, render_docs, run_mkdocs

# The pages the navigation of mkdocs.yml names: kept in a partial build so that the
# rebuilt pages' navigation is the full site's.
NAV_PAGES = ("index.md", "curated.md", "subsystems/index.md", "exceptions/index.md", "releases/index.md", "json-api.md")


def rebuild_error_pages(config_file: Path, site: SiteInput, out: Path, ids: set[str]) -> list[str]:
    """Rebuild the pages of ``ids`` in the built site ``out``; the ids whose page was written."""
    project = config_file.resolve().parent
    with output_lock(out):
        work = Path(tempfile.mkdtemp(prefix=f".{out.name}.preview-", dir=out.parent))
        try:
            docs, built = work / "docs", work / "site"
            docs.mkdir()
            pages = render_docs(site, docs, project, only=ids)
            keep = {docs / name for name in NAV_PAGES} | {docs / "errors" / f"{i}.md" for i in ids}
            for path in sorted(docs.rglob("*.md"), reverse=True):
                if path not in keep:
                    path.unlink()
            run_mkdocs(config_file, docs, built, 1, strict=False)
            written = []
            for page in pages:
                if page.id not in ids:
                    continue
                for rel in (f"errors/{page.id}/index.html", f"api/errors/{page.id}.json"):
                    source = (built if rel.endswith(".html") else docs) / rel
                    if source.is_file():
                        target = out / rel
                        target.parent.mkdir(parents=True, exist_ok=True)
                        staged = target.with_name(f".{target.name}.new")
                        shutil.copyfile(source, staged)
                        os.replace(staged, target)
                written.append(page.id)
            # the paste box's index carries the entries' titles, summaries and problems
            index = docs / "api" / "lookup-index.json"
            if index.is_file():
                staged = out / "api" / ".lookup-index.json.new"
                staged.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(index, staged)
                os.replace(staged, out / "api" / "lookup-index.json")
            return sorted(written)
        finally:
            shutil.rmtree(work, ignore_errors=True)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        pass  # a request per line would bury what serve says about rebuilds


def start_server(folder: Path, host: str, port: int) -> http.server.ThreadingHTTPServer:
    """A server of ``folder`` on ``host:port`` (0: any free port), answering in a thread of
    its own. The folder is looked up on every request, so a build that swaps it in is
    served at once."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="errorkb-serve", daemon=True).start()
    return server


def watched_files(errors: Path) -> dict[str, tuple[int, int]]:
    """(mtime, size) of every entry and record, by path: what a change is looked for in."""
    found = {}
    for pattern in ("*.yaml", "verifications/*.json"):
        for path in errors.glob(pattern):
            try:
                stat = path.lstat()
            except OSError:
                continue
            found[str(path)] = (stat.st_mtime_ns, stat.st_size)
    return found
