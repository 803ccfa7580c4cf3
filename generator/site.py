"""The site: catalogs in, a mkdocs-material site out.

Pages are rendered from the Jinja2 templates in ``templates/`` into a temporary
docs folder, mkdocs builds them into a temporary site folder, and only a complete
build replaces the previous site (a failed build leaves it as it was).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import jinja2

from generator.lookup import compact_index

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"
# Fixed for reproducible output: mkdocs stamps the sitemap with this date.
SOURCE_DATE_EPOCH = "1700000000"


class BuildError(Exception):
    """The site could not be built; the previous one is untouched."""


def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,  # Markdown out; values are escaped where they are placed
    )


def write_json(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=False) + "\n", encoding="utf-8")


def render_docs(catalogs: list[dict], docs: Path) -> None:
    """Write the Markdown pages, assets and API files of the site into ``docs``."""
    env = environment()
    index = compact_index(catalogs)
    (docs / "index.md").write_text(
        env.get_template("home.md.j2").render(
            error_count=len(index["errors"]),
            revisions=index["revisions"],
        ),
        encoding="utf-8",
    )
    shutil.copytree(TEMPLATES / "assets", docs / "assets")
    write_json(docs / "api" / "lookup-index.json", index)


def build_site(config_file: Path, catalogs: list[dict], out: Path) -> None:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}.build-", dir=out.parent))
    try:
        docs, site = work / "docs", work / "site"
        docs.mkdir()
        render_docs(catalogs, docs)
        os.environ["SOURCE_DATE_EPOCH"] = SOURCE_DATE_EPOCH
        try:
            config = load_config(str(config_file), docs_dir=str(docs), site_dir=str(site), strict=True)
            build(config)
        except (MkDocsException, SystemExit) as exc:
            raise BuildError(f"mkdocs failed: {exc}") from None
        _swap(site, out)
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
