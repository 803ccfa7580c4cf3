"""The site: catalog, entries and engine arguments in; a mkdocs-material site out.

The project's folder is the one that holds ``mkdocs.yml`` (beside ``errorkb.toml``): its
``templates/`` and ``models/`` are read from there, not from the installed package.
Pages are rendered from the Jinja2 templates in ``templates/`` into a temporary
docs folder, mkdocs builds them into a temporary site folder, and only a complete
build replaces the previous site (a failed build leaves it as it was). A build holds a
lock on its output folder, sweeps what killed builds left beside it, and swaps the new
site in so that a reader of the folder never finds it missing (``build_site``).
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import glob
import json
import logging
import os
import shutil
import sys
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterator

from generator.history.drift import drift
from generator.history.lineage import assemble_history
from generator.lookup.foreign import foreign_errors
from generator.lookup.index import compact_index, entries_for_index
from generator.text import foreign_path
from generator.memory.site_data import CALCULATOR_ENTRIES, CALCULATOR_EXAMPLES, bundled_models, site_data
from generator.site.pages import (API_SCHEMA_VERSION, ErrorPage, attach_reports, build_pages, error_json, index_json,
                                  link_current_successors, link_followers, link_next_pages, report_url)
from generator.site.render import environment
from generator.vllm.phases import PHASES
from generator.entries.reports import report_examples, reports_gathered
from generator.config import DEFAULT_ISSUES_URL
from generator.errors import InputError

SCHEMAS = Path(__file__).resolve().parents[1] / "schemas"
# Fixed for reproducible output: mkdocs stamps the sitemap with this date.
SOURCE_DATE_EPOCH = "1700000000"


class BuildError(InputError):
    """The site could not be built; the previous one is untouched."""


@dataclass
class SiteInput:
    catalog: dict  # the pin's catalog (catalog.to_json())
    entries: list  # generator.entries.load.ErrorEntry
    engine_args: dict  # name -> generator.site.pages.Flag
    issues_url: str = DEFAULT_ISSUES_URL
    verifications: dict | None = None  # entry slug -> record
    releases: list[dict] | None = None  # catalogs of every covered release, oldest first (the pin among them)
    workers: int = 1  # processes to link the releases' errors with
    reports: list = field(default_factory=list)  # generator.entries.reports.Report: where people met the errors
    manual_links: list = field(default_factory=list)  # generator.entries.lineage.ManualLink: lineage people know
    apart: frozenset = frozenset()  # links of the text's lineage people said join two checks (Lineage.apart_pairs)


def write_json(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")


def _slug(name: str) -> str:
    """A file name and URL for a group (a subsystem, an exception, a release): ``v1/core`` →
    ``v1-core``. A name with anything but letters, digits, ``_`` and ``-`` in it (a folder of
    vLLM's source can be called anything: HTML, quotes, spaces, undecodable bytes) keeps
    what it has of those and a hash of the whole name, so slugs stay apart and need no escaping."""
    import hashlib
    import re

    slug = name.replace("/", "-").replace(".", "-")
    if re.fullmatch(r"[A-Za-z0-9_-]+", slug):
        return slug
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return "-".join(part for part in (re.sub(r"[^A-Za-z0-9_-]+", "-", slug).strip("-")[:40], digest) if part)


HOME_CARDS = 12  # the most reported errors, shown as cards on the home page
LIST_PAGE_ROWS = 500  # a list page longer than this is split into pages (ValueError has thousands)
HELPERS = "raised through a helper"  # the group of raises whose "exception" is a function or a variable


def is_exception_type(name: str) -> bool:
    """A class name (``ValueError``, ``_RemoteUnavailable``, ``torch.OutOfMemoryError``), not a
    function or a variable that makes the exception (``_dispatch_expr_error``, ``bypass_cls``)."""
    last = name.rsplit(".", 1)[-1].lstrip("_")
    return bool(last) and last[0].isupper() and last.replace("_", "").isalnum()


def most_reported(pages: list[ErrorPage]) -> list[ErrorPage]:
    """One page per problem that people reported (an entry's first current page, or an
    uncurated error's own), the most reported first; ties: curated first, then by title."""
    seen, problems = set(), []
    for page in _ordered([p for p in pages if p.current and p.reports]):
        key = page.entry.slug if page.entry is not None else page.id
        if key not in seen:
            seen.add(key)
            problems.append(page)
    return sorted(problems, key=lambda p: (-len(p.reports), not p.curated, p.title.lower(), p.id))


def _ordered(pages: list[ErrorPage]) -> list[ErrorPage]:
    return sorted(pages, key=lambda p: (not p.curated, p.title.lower(), p.id))


def render_docs(site: SiteInput, docs: Path, project: Path, step: Step | None = None,
                only: set[str] | None = None) -> list[ErrorPage]:
    """Write every Markdown page, asset and API file of the site into ``docs``, from the
    templates and models of the ``project`` folder. ``step(label, unit)`` gives the
    ``update(done, total)`` of a long step (``generator.cli.progress``). ``only``: write
    the error pages of these ids alone (a preview's rebuild of one entry's pages)."""
    step = step or _no_step
    env = environment(project / "templates")
    catalog = site.catalog
    releases = site.releases or [catalog]
    history = None
    if len(releases) > 1:
        linking = step(f"linking {len(releases)} releases", "releases")
        linking(0, len(releases))
        history = assemble_history(releases, site.workers, site.apart)
        linking(len(releases), len(releases))
    pages = build_pages(catalog, site.entries, site.engine_args, site.verifications, history)
    reported = report_examples(site.reports)
    for page in pages:  # a page with no example of its own shows a reported message
        if page.example is None and page.id in reported:
            page.example = {"text": reported[page.id].message, "source": "as reported", "url": reported[page.id].url}
    known = {p.id for p in pages}
    for page in pages:
        page.related = [i for i in page.related if i in known]
    attach_reports(pages, site.reports)
    link_current_successors(pages)
    link_next_pages(pages)
    link_followers(pages)

    def write(rel: str, text: str) -> None:
        path = docs / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    # the paste box's results are titled like the pages: a curated error by its entry's title
    links = [(link["from"], link["to"]) for link in history["links"]] if history else []
    links += [(link.source, link.target) for link in site.manual_links]
    index = compact_index(releases, {p.id: p.entry.title for p in pages if p.entry is not None}, links,
                          entries_for_index(site.entries))
    curated_pages = _ordered([p for p in pages if p.curated and p.current])
    by_entry: dict[str, ErrorPage] = {}
    for page in curated_pages:  # one card per entry: an entry of several ids has several pages
        by_entry.setdefault(page.entry.slug, page)
    # the most reported first; with fewer reports than cards, curated errors fill the rest
    shown = most_reported(pages)[:HOME_CARDS]
    keys = {p.entry.slug if p.entry is not None else p.id for p in shown}
    shown += [p for p in sorted(by_entry.values(), key=lambda p: (p.title.lower(), p.id))
              if p.entry.slug not in keys][:HOME_CARDS - len(shown)]
    cards = [{"id": p.id, "title": p.title, "summary": p.meaning, "exception": p.exception, "reports": len(p.reports),
              "curated": p.curated} for p in shown]
    write("index.md", env.get_template("home.md.j2").render(error_count=len(index["errors"]["id"]), revisions=index["revisions"],
                                                           cards=cards, curated_count=len(by_entry),
                                                           reports_gathered=reports_gathered(site.reports)))
    shutil.copytree(project / "templates" / "assets", docs / "assets")
    write_json(docs / "api" / "lookup-index.json", index)
    write_json(docs / "api" / "memory.json", site_data(bundled_models(project / "models")))  # the memory calculator's GPUs and models

    error_template = env.get_template("error.md.j2")
    gathered = reports_gathered(site.reports)
    writing = step("writing pages", "pages")
    for done, page in enumerate(pages, 1):
        if done % 500 == 0 or done == len(pages):
            writing(done, len(pages))
        if only is not None and page.id not in only:
            continue
        report = report_url(site.issues_url, page)
        calculator = CALCULATOR_EXAMPLES[page.entry.slug] if page.entry is not None and page.entry.slug in CALCULATOR_ENTRIES else None
        write(f"errors/{page.id}.md", error_template.render(page=page, report_url=report, memory_calculator=calculator,
                                                           revision=catalog["revision"], phases=PHASES,
                                                           reports_gathered=gathered))
        write_json(docs / "api" / "errors" / f"{page.id}.json", error_json(page, catalog, report))
    write_json(docs / "api" / "errors" / "index.json", index_json(pages, catalog))
    for page in pages:  # reproduction cases as files of their own, linked from the pages
        for repro in page.reproductions:
            for case in (repro["error"], repro["fix"]):
                write(case["file"], case["text"] + "\n")
    for schema in sorted(SCHEMAS.glob("*.schema.json")):
        (docs / "schema").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(schema, docs / "schema" / schema.name)

    listing = env.get_template("list.md.j2")
    groups = env.get_template("groups.md.j2")
    curated = [p for p in pages if p.curated]
    write("curated.md", listing.render(
        title="Curated errors",
        intro=f"The {len(curated)} errors that have an explanation and remedies written for them.",
        pages=_ordered(curated),
        pager=[],
        prefix="../",  # links in these tables are relative to the page's URL (curated/)
    ))
    for folder, attribute, title, column in (
        ("subsystems", "subsystem", "Errors by subsystem", "Subsystem"),
        ("exceptions", "exception", "Errors by exception type", "Exception"),
    ):
        grouped: dict[str, list[ErrorPage]] = {}
        for page in pages:
            if not page.current:
                continue  # reached from the release pages and from lineage links
            key = getattr(page, attribute)
            if attribute == "exception" and not is_exception_type(key):
                key = HELPERS  # `raise make_error(...)`: the name is a function's or a variable's
            grouped.setdefault(key, []).append(page)
        rows = []
        for name in sorted(grouped, key=lambda n: (n == HELPERS, n)):
            members = _ordered(grouped[name])
            slug = "helpers" if name == HELPERS else _slug(name)
            rows.append({"name": name, "slug": slug, "count": len(members), "curated": sum(p.curated for p in members)})
            chunks = [members[i:i + LIST_PAGE_ROWS] for i in range(0, len(members), LIST_PAGE_ROWS)]
            names = [f"{slug}.md" if n == 0 else f"{slug}-page-{n + 1}.md" for n in range(len(chunks))]
            for number, chunk in enumerate(chunks):
                pager = [{"number": n + 1, "href": "../" + name.removesuffix(".md") + "/", "current": n == number}
                         for n, name in enumerate(names)] if len(chunks) > 1 else []
                shown = f"; rows {number * LIST_PAGE_ROWS + 1:,}–{number * LIST_PAGE_ROWS + len(chunk):,} on this page" if pager else ""
                write(f"{folder}/{names[number]}", listing.render(
                    title=f"{column}: {name}" + (f" (page {number + 1} of {len(chunks)})" if pager else ""),
                    intro=f"{len(members):,} errors, curated ones first{shown}.",
                    pages=chunk,
                    pager=pager,
                    prefix="../../",
                ))
        write(f"{folder}/index.md", groups.render(
            title=title,
            intro=f"Every error vLLM {catalog['revision']} can raise, grouped by {column.lower()}.",
            column=column,
            groups=rows,
        ))
    _release_pages(env, write, releases, {p.id: p for p in pages})
    _foreign_pages(env, write, docs, {p.id: p for p in pages}, site.reports)
    write("json-api.md", env.get_template("json-api.md.j2").render(
        schema_version=API_SCHEMA_VERSION, revision=catalog["revision"], commit=catalog["commit"],
    ))
    return pages


def _foreign_pages(env, write, docs: Path, by_id: dict[str, ErrorPage], reports: list) -> None:
    """A page and a JSON file for each error that is not vLLM's (``generator/lookup/foreign.yaml``)."""
    errors = list(foreign_errors())
    template = env.get_template("foreign.md.j2")
    gathered = reports_gathered(reports)
    for error in errors:
        related = [by_id[i] for i in error.related if i in by_id]
        urls = list(dict.fromkeys(r.url for r in reports if r.id == error.id))
        write(f"foreign/{error.id}.md", template.render(error=error, related=related, reports=urls, reports_gathered=gathered))
        write_json(docs / "api" / "foreign" / f"{error.id}.json", dict(foreign_json(error), reports=urls))
    write("foreign/index.md", env.get_template("foreign-index.md.j2").render(errors=sorted(errors, key=lambda e: e.title.lower())))
    write_json(docs / "api" / "foreign" / "index.json", {
        "schema_version": API_SCHEMA_VERSION,
        "errors": [{"id": e.id, "title": e.title, "source": e.source, "url": foreign_path(e.id)} for e in errors],
    })


def foreign_json(error) -> dict:
    return {
        "schema_version": API_SCHEMA_VERSION,
        "id": error.id,
        "kind": "foreign",
        "source": error.source,
        "title": error.title,
        "reason": error.reason,
        "seen_in": error.seen_in,
        "summary": error.summary,
        "steps": list(error.steps),
        "related": list(error.related),
        "phases": [{"phase": p, "functions": sorted(f), "advice": a} for p, f, a in error.phases],
        "examples": list(error.examples),
        "keywords": list(error.keywords),
        "pattern": error.pattern.pattern,
        "url": foreign_path(error.id),
    }


def _release_pages(env, write, releases: list[dict], by_id: dict[str, ErrorPage]) -> None:
    """A page per release: what changed in its errors since the release before it."""
    template = env.get_template("release.md.j2")
    rows = []
    for old, new in zip(releases, releases[1:]):
        report = drift(old, new)
        counts = {kind: len(report[kind]) for kind in ("added", "removed", "reworded", "retyped", "moved")}
        rows.append({"name": new["revision"], "slug": _slug(new["revision"]), **counts})
        write(f"releases/{_slug(new['revision'])}.md", template.render(
            old=old["revision"], new=new["revision"], report=report, counts=counts, pages=by_id,
        ))
    write("releases/index.md", env.get_template("releases.md.j2").render(rows=list(reversed(rows)), first=releases[0]["revision"]))


class _Warnings(logging.Handler):
    """The warnings mkdocs logs during a build, kept to say why strict mode aborted it."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = " ".join(record.getMessage().split())
        except Exception:  # a message that does not format: its template
            text = " ".join(str(record.msg).split())
        self.lines.append(f"{record.levelname}: {text[:MAX_WARNING_CHARS]}")

    def summary(self) -> str:
        if not self.lines:
            return ""
        shown = self.lines[:MAX_WARNINGS_SHOWN]
        more = len(self.lines) - len(shown)
        return ": " + " | ".join(shown) + (f" | (and {more} more)" if more else "")


MAX_WARNINGS_SHOWN = 20
MAX_WARNING_CHARS = 400


Step = Callable[..., Callable[[int, int], None]]


def _no_step(label: str, unit: str = "", **_) -> Callable[[int, int], None]:
    return lambda done, total: None


def run_mkdocs(config_file: Path, docs: Path, built: Path, workers: int, step: Step | None = None,
               out: Path | None = None, strict: bool = True) -> None:
    """mkdocs on ``docs`` into ``built``, with the configuration ``config_file``; a
    ``BuildError`` with mkdocs' warnings when it fails."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort, MkDocsException

    before = os.environ.get("SOURCE_DATE_EPOCH")
    os.environ["SOURCE_DATE_EPOCH"] = SOURCE_DATE_EPOCH
    warnings = _Warnings()
    logger = logging.getLogger("mkdocs")
    logger.addHandler(warnings)
    try:
        config = load_config(str(config_file), docs_dir=str(docs), site_dir=str(built), strict=strict)
        plugin = config.plugins.get("errorkb")
        if plugin is not None:
            plugin.config["workers"] = workers
            plugin.step = step or _no_step
        build(config)
    except (MkDocsException, Abort, SystemExit) as exc:
        untouched = f"; the previous site at {out} is untouched" if out else ""
        raise BuildError(f"mkdocs failed: {exc}{warnings.summary()}{untouched}") from None
    finally:  # the process's environment and logging are the caller's
        logger.removeHandler(warnings)
        if before is None:
            os.environ.pop("SOURCE_DATE_EPOCH", None)
        else:
            os.environ["SOURCE_DATE_EPOCH"] = before


def build_site(config_file: Path, site: SiteInput, out: Path, step: Step | None = None) -> list[ErrorPage]:
    """Build the site into ``out`` with the mkdocs configuration ``config_file``; the
    project's ``templates/`` and ``models/`` are the folders beside it.

    One build at a time per ``out`` (``output_lock``); the temporary folders of builds
    that were killed are swept first (``sweep``); the new site replaces the old one in
    one step (``_swap``). When mkdocs aborts (strict mode: a warning), its warnings are
    in the ``BuildError``'s message."""
    if not config_file.is_file():
        raise BuildError(f"{config_file} is missing: the site's mkdocs configuration lives beside errorkb.toml")
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    with output_lock(out):
        sweep(out)
        work = Path(tempfile.mkdtemp(prefix=f".{out.name}.build-", dir=out.parent))
        try:
            docs, built = work / "docs", work / "site"
            docs.mkdir()
            pages = render_docs(site, docs, config_file.resolve().parent, step)
            run_mkdocs(config_file, docs, built, site.workers, step, out=out)
            try:
                _swap(built, out)
            except OSError as exc:
                raise BuildError(f"cannot put the new site at {out}: {exc.strerror or exc}; the previous site is untouched") from None
            return pages
        finally:
            shutil.rmtree(work, ignore_errors=True)


# --- one build at a time, and no moment without a site ------------------------------------------------


@contextmanager
def output_lock(out: Path) -> Iterator[None]:
    """Hold the lock of the output folder ``out`` (``flock`` on ``.<name>.lock`` beside it):
    a second build of the same folder waits for the first, saying so on stderr. The lock
    file is removed on release; a waiter that then holds a removed file tries again, so two
    builds never hold it at once. A killed build's lock goes with its process."""
    path = out.with_name(f".{out.name}.lock")
    said = False
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o644)
        except OSError as exc:
            raise BuildError(f"cannot lock {out} for the build ({path}: {exc.strerror or exc}); "
                             f"choose an --out in a folder you can write") from None
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if not said:
                    print(f"errorkb: waiting for another build of {out} to finish", file=sys.stderr, flush=True)
                    said = True
                fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                held = os.path.samestat(os.fstat(fd), os.stat(path, follow_symlinks=False))
            except FileNotFoundError:
                held = False
        except BaseException:
            os.close(fd)
            raise
        if held:
            break
        os.close(fd)  # the holder before removed it: lock the file that is there now
    try:
        yield
    finally:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        os.close(fd)


def _remove(path: Path) -> None:
    """Remove a file, a link or a folder (a link is removed, never followed)."""
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        path.unlink(missing_ok=True)
    elif path.exists():
        shutil.rmtree(path, ignore_errors=True)


def sweep(out: Path) -> list[Path]:
    """Remove what killed builds of ``out`` left beside it: their ``.<name>.build-*`` folders
    (and the ``.<name>.old`` of an interrupted swap). Called with the lock held, when no
    other build of ``out`` is running."""
    found = [*out.parent.glob(f".{glob.escape(out.name)}.build-*"), out.with_name(f".{out.name}.old")]
    swept = [path for path in found if path.is_symlink() or path.exists()]
    for path in swept:
        _remove(path)
    return swept


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2  # <linux/fs.h>


@lru_cache(maxsize=1)
def _renameat2():
    """glibc's ``renameat2`` (Linux), or None."""
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    function.restype = ctypes.c_int
    return function


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (``renameat2(RENAME_EXCHANGE)``); False where the system
    or the file system cannot."""
    renameat2 = _renameat2()
    if renameat2 is None:
        return False
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def _swap(new: Path, out: Path) -> None:
    """Put ``new`` where ``out`` is, so that a reader of ``out`` finds the old site or the
    new one, never none: the two are exchanged in one step (Linux's ``renameat2``), and
    ``new`` then holds the old one, for the caller to remove. Where that cannot be done
    (another system, a file system without it), the old one is moved aside just before
    the new one comes in."""
    if not os.path.lexists(out):
        os.rename(new, out)
        return
    if _exchange(new, out):
        return
    old = out.with_name(f".{out.name}.old")
    _remove(old)
    os.replace(out, old)
    os.replace(new, out)
    _remove(old)
