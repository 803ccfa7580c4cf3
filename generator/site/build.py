"""The site: catalog, entries and engine arguments in; a mkdocs-material site out.

The project's folder is the one that holds ``mkdocs.yml`` (beside ``errorkb.toml``): its
``templates/`` and ``models/`` are read from there, not from the installed package.
Pages are rendered from the Jinja2 templates in ``templates/`` into a temporary
docs folder, mkdocs builds them into a temporary site folder, and only a complete
build replaces the previous site (a failed build leaves it as it was).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from generator.history.drift import drift
from generator.history.lineage import assemble_history
from generator.lookup.index import compact_index
from generator.memory.site_data import CALCULATOR_ENTRIES, bundled_models, site_data
from generator.site.pages import API_SCHEMA_VERSION, ErrorPage, build_pages, error_json, index_json, report_url
from generator.site.render import environment
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


def write_json(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")


def _slug(name: str) -> str:
    return name.replace("/", "-").replace(".", "-")


def _ordered(pages: list[ErrorPage]) -> list[ErrorPage]:
    return sorted(pages, key=lambda p: (not p.curated, p.title.lower(), p.id))


def render_docs(site: SiteInput, docs: Path, project: Path) -> list[ErrorPage]:
    """Write every Markdown page, asset and API file of the site into ``docs``, from the
    templates and models of the ``project`` folder."""
    env = environment(project / "templates")
    catalog = site.catalog
    releases = site.releases or [catalog]
    history = assemble_history(releases, site.workers) if len(releases) > 1 else None
    pages = build_pages(catalog, site.entries, site.engine_args, site.verifications, history)
    known = {p.id for p in pages}
    for page in pages:
        page.related = [i for i in page.related if i in known]

    def write(rel: str, text: str) -> None:
        path = docs / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    index = compact_index(releases)
    write("index.md", env.get_template("home.md.j2").render(error_count=len(index["errors"]), revisions=index["revisions"]))
    shutil.copytree(project / "templates" / "assets", docs / "assets")
    write_json(docs / "api" / "lookup-index.json", index)
    write_json(docs / "api" / "memory.json", site_data(bundled_models(project / "models")))  # the memory calculator's GPUs and models

    error_template = env.get_template("error.md.j2")
    for page in pages:
        report = report_url(site.issues_url, page)
        calculator = page.entry is not None and page.entry.slug in CALCULATOR_ENTRIES
        write(f"errors/{page.id}.md", error_template.render(page=page, report_url=report, memory_calculator=calculator,
                                                           revision=catalog["revision"]))
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
            grouped.setdefault(getattr(page, attribute), []).append(page)
        rows = []
        for name in sorted(grouped):
            members = _ordered(grouped[name])
            rows.append({"name": name, "slug": _slug(name), "count": len(members), "curated": sum(p.curated for p in members)})
            write(f"{folder}/{_slug(name)}.md", listing.render(
                title=f"{column}: {name}",
                intro=f"{len(members)} errors; curated ones first.",
                pages=members,
                prefix="../../",
            ))
        write(f"{folder}/index.md", groups.render(
            title=title,
            intro=f"Every error vLLM {catalog['revision']} can raise, grouped by {column.lower()}.",
            column=column,
            groups=rows,
        ))
    _release_pages(env, write, releases, {p.id: p for p in pages})
    write("json-api.md", env.get_template("json-api.md.j2").render(
        schema_version=API_SCHEMA_VERSION, revision=catalog["revision"], commit=catalog["commit"],
    ))
    return pages


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


def build_site(config_file: Path, site: SiteInput, out: Path) -> list[ErrorPage]:
    """Build the site into ``out`` with the mkdocs configuration ``config_file``; the
    project's ``templates/`` and ``models/`` are the folders beside it."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort, MkDocsException

    if not config_file.is_file():
        raise BuildError(f"{config_file} is missing: the site's mkdocs configuration lives beside errorkb.toml")
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}.build-", dir=out.parent))
    try:
        docs, built = work / "docs", work / "site"
        docs.mkdir()
        pages = render_docs(site, docs, config_file.resolve().parent)
        before = os.environ.get("SOURCE_DATE_EPOCH")
        os.environ["SOURCE_DATE_EPOCH"] = SOURCE_DATE_EPOCH
        try:
            config = load_config(str(config_file), docs_dir=str(docs), site_dir=str(built), strict=True)
            plugin = config.plugins.get("errorkb")
            if plugin is not None:
                plugin.config["workers"] = site.workers
            build(config)
        except (MkDocsException, Abort, SystemExit) as exc:
            raise BuildError(f"mkdocs failed: {exc}; the previous site at {out} is untouched") from None
        finally:  # the process's environment is the caller's
            if before is None:
                os.environ.pop("SOURCE_DATE_EPOCH", None)
            else:
                os.environ["SOURCE_DATE_EPOCH"] = before
        _swap(built, out)
        return pages
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _swap(new: Path, out: Path) -> None:
    """Put ``new`` where ``out`` is, the old one kept until the new one is in place."""
    old = out.with_name(f".{out.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    if out.exists():
        os.replace(out, old)
    os.replace(new, out)
    shutil.rmtree(old, ignore_errors=True)
