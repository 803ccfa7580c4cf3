"""The project configuration (``errorkb.toml``): raw TOML in, a validated ``Config`` out."""

from __future__ import annotations

import functools
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from generator.errors import InputError

CONFIG_NAME = "errorkb.toml"
# Where "Report a problem with this page" opens an issue when [site] issues_url is not set.
DEFAULT_ISSUES_URL = "https://github.com/errorkb/errorkb/issues/new"


class ConfigError(InputError):
    """A problem with errorkb.toml, worded for the person who has to fix it."""


@dataclass(frozen=True)
class Config:
    root: Path  # the folder that holds errorkb.toml
    project: str
    source: str
    rev: str
    cache_dir: Path
    site_url: str = ""  # where the site is published; lookup links are relative without it
    issues_url: str = DEFAULT_ISSUES_URL  # "Report a problem with this page"
    releases: tuple[str, ...] = ()  # the releases history covers, oldest first
    from_file: bool = True  # read from an errorkb.toml (False: the defaults, run outside a project)

    @property
    def entries_dir(self) -> Path:
        """Where `errorkb lookup` reads the curated entries and errors/lineage.yaml: the
        project's errors/, or outside a project the copy a regular install ships."""
        if not self.from_file:
            shipped = installed_entries()
            if shipped is not None:
                return shipped
        return self.root / "errors"


def find_config(start: Path | None = None) -> Path | None:
    """The errorkb.toml in ``start`` or the nearest folder above it."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / CONFIG_NAME
        if candidate.is_file():
            return candidate
    return None


@functools.cache
def installed_entries() -> Path | None:
    """The curated entries that `pip install` put beside errorkb (pyproject.toml's data-files:
    ``<prefix>/share/errorkb/errors``, wherever the prefix is: a virtual environment, the
    user's base, ``--prefix``), found through the installed files' record; or None. Read
    once, and only outside a project (importlib.metadata costs a lookup some milliseconds)."""
    import sysconfig

    # where a virtual environment's or the interpreter's install put them (read first: no record to parse)
    folder = Path(sysconfig.get_path("data")) / "share" / "errorkb" / "errors"
    generator_dir = Path(__file__).resolve().parent
    if folder.is_dir() and generator_dir.is_relative_to(Path(sysconfig.get_path("purelib")).resolve()):
        return folder.resolve()
    import importlib.metadata
    import json
    import urllib.parse
    import urllib.request

    try:
        dist = importlib.metadata.distribution("errorkb")
    except importlib.metadata.PackageNotFoundError:
        return None
    for file in dist.files or ():
        if file.parts[-4:-1] == ("share", "errorkb", "errors") and file.name.endswith(".yaml"):
            folder = Path(dist.locate_file(file)).parent
            if folder.is_dir():
                return folder.resolve()
    # An editable install (`pip install -e .`) copies no data files: its checkout's errors/ are the entries.
    try:
        origin = json.loads(dist.read_text("direct_url.json") or "{}")
    except ValueError:
        return None
    if origin.get("dir_info", {}).get("editable") and str(origin.get("url", "")).startswith("file://"):
        folder = Path(urllib.request.url2pathname(urllib.parse.urlparse(origin["url"]).path)) / "errors"
        if folder.is_dir():
            return folder.resolve()
    return None


def user_cache_home() -> Path:
    """errorkb's folder in the user's cache (``$XDG_CACHE_HOME/errorkb``, else ``~/.cache/errorkb``)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "errorkb"


def load_config(path: Path | None = None) -> Config:
    """Read errorkb.toml (or the defaults when there is none).

    ``ERRORKB_CACHE_DIR`` overrides the cache folder, so that tests and CI can
    point every command at one shared cache. Without an errorkb.toml (errorkb installed and run
    in any folder) the cache is the user's, ``user_cache_home() / "shared"``: not a
    ``.cache`` left in whatever folder the command ran in, and one for every such folder.
    """
    path = path or find_config()
    raw: dict = {}
    root = Path.cwd().resolve()
    if path is not None:
        root = path.parent
        try:
            raw = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: {exc}; fix the TOML syntax") from None
    pin = raw.get("pin", {})
    cache = raw.get("cache", {})
    site = raw.get("site", {})
    history = raw.get("history", {})
    releases = history.get("releases", [])
    if not isinstance(releases, list) or not all(isinstance(r, str) for r in releases):
        raise ConfigError(f"{path}: [history] releases must be a list of release tags, e.g. [\"v0.32.0\", \"v0.33.0\"]")
    for key, value in (*pin.items(), *cache.items(), *site.items()):
        if not isinstance(value, str):
            raise ConfigError(f"{path}: `{key}` must be a string, got {value!r}")
    default_cache = root / cache.get("dir", ".cache/errorkb") if path is not None else user_cache_home() / "shared"
    cache_dir = Path(os.environ.get("ERRORKB_CACHE_DIR") or default_cache)
    return Config(
        root=root,
        project=pin.get("project", "vllm"),
        source=pin.get("source", "pypi:vllm"),
        rev=pin.get("rev", "v0.33.0"),
        cache_dir=cache_dir,
        site_url=site.get("url", ""),
        issues_url=site.get("issues_url", DEFAULT_ISSUES_URL),
        releases=tuple(releases),
        from_file=path is not None,
    )
