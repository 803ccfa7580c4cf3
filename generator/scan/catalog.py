"""A revision's catalog: every file's sites, grouped into errors with stable ids.

``assemble`` is pure (files in, ``Catalog`` out). ``scan_revisions`` is the edge: it
lists the revisions' blobs, takes what the blob cache has, analyses the rest in a
process pool (each file's new versions in order, piece by piece, reusing the pieces
the version before had or the cache has: ``generator.scan.incremental``), and stores what it
learnt. ``scan_revision`` is the same for one revision.
"""

from __future__ import annotations

import ast
import gc
import json
import multiprocessing
import operator
import os
from typing import Callable, Iterable

from generator.scan.cache import BlobCache, PieceStore, Rows, decode_analysis
from generator.scan.ids import error_id, identity, split_template
from generator.scan.records import Catalog, ErrorRecord, FileScan, RaiseSite, collector_paused
from generator.scan.incremental import scan_file
from generator.scan.sources import BlobReader, Revision, python_files
from generator.scan.walker import CONSTANT_NAME, is_exception_class, has_words

Progress = Callable[[int, int], None]  # (done, total)
_STORE_EVERY = 4000  # blobs analysed (a commit waits on the disk: not too often)
_BY_PLACE = operator.attrgetter("path", "line")


def assemble(
    project: str,
    revision: str,
    commit: str,
    tag: str | None,
    source: str,
    files: Iterable[tuple[str, FileScan]],
    ids: dict[tuple, str] | None = None,
) -> Catalog:
    """The catalog of a revision's files. ``ids``: error ids by what they hash, kept
    across the catalogs of several releases (most of their sites recur)."""
    ids = {} if ids is None else ids
    groups: dict[str, list[RaiseSite]] = {}
    stats = {"files": 0, "sites": 0, "errors": 0, "raises": 0, "asserts": 0, "logs": 0, "responses": 0,
             "reraises": 0, "skipped": []}
    scans = []
    for path, scan in files:
        stats["files"] += 1
        if not _is_utf8(path):  # git allows any bytes; pages, links and JSON need text
            shown = path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            stats["skipped"].append({"path": shown, "reason": "the file name is not UTF-8; its errors are left out"})
            continue
        stats["reraises"] += scan.reraises
        if scan.skipped:
            stats["skipped"].append({"path": path, "reason": scan.skipped})
        scans.append((path, scan))
    messages = class_messages(scans)
    constants = module_constants(scans)
    makers = exception_makers(scans)
    reasons = given_reasons(scans)
    for path, scan in scans:
        for site in scan.sites:
            if site.kind in _READ_ONLY:
                continue
            site.path = path
            hashed = _HASHED_AS.get(site.kind, site.exception)
            # `logger.warning(message, *args)`: shown with each conversion filled, hashed as first read
            template = site.id_template if site.id_template is not None else site.template
            what = (project, hashed, template, path, site.function)
            key = ids.get(what)
            if key is None:
                key = ids[what] = error_id(project, hashed, identity(template, path, site.function))
            # `raise ENGINE_DEAD_ERROR(e)`, `raise self._format_exception(e)`: a function makes the
            # exception raised; its type and text are shown and matched, the id unchanged
            made = made_by(site, path, makers) if site.kind == "raise" else None
            if made is not None:
                _take_what_is_made(site, made, messages)
            # The message of `raise EngineDeadError()` lives in the class: shown and matched,
            # but the id stays what the site itself hashes to (ids are published).
            inherited = messages.get(site.exception.rsplit(".", 1)[-1]) if site.kind == "raise" else None
            if inherited is not None and not has_words(site.template):
                site.template, site.message_from = inherited
                site.placeholders = placeholder_names(site.template)
            # `raise NotImplementedError(STR_NOT_IMPL_ENC_DEC_ERR_STRS['STR_NOT_IMPL_ENC_DEC_LORA'])`:
            # the text lives in another module's constant; shown and matched, the id unchanged
            named = constant_named(site.template)
            if named is not None and named in constants and not has_words(site.template):
                site.template, site.message_from = constants[named]
                site.message_name = named
                site.placeholders = placeholder_names(site.template)
            # `Reason: {invalid_reasons}`: the reasons the functions it calls give, shown and matched
            if site.reasons_from:
                site.reasons = reasons_shown(site, path, reasons)
                site.reasons_from = []
            groups.setdefault(key, []).append(site)
            stats["sites"] += 1
            stats[_STAT[site.kind]] += 1
    errors = []
    for key in sorted(groups):
        sites = sorted(groups[key], key=_BY_PLACE)
        first = sites[0]
        errors.append(
            ErrorRecord(
                id=key,
                kind=first.kind,
                exception=first.exception.rsplit(".", 1)[-1],
                template=first.template,
                sites=sites,
            )
        )
    stats["errors"] = len(errors)
    stats["skipped"].sort(key=lambda s: s["path"])
    return Catalog(project=project, revision=revision, commit=commit, tag=tag, source=source, errors=errors, stats=stats)


# What a log call's and a response's id hashes in place of an exception: no class is
# spelt so, so their ids cannot meet a raise's, and every raise keeps its id.
_HASHED_AS = {"log": "<log>", "response": "<response>"}
# sites that say where a message lives, not where it is reported
_READ_ONLY = ("message", "constant", "returned", "reason")
MAX_REASONS = 256  # reasons shown for one site (an attention backend's selector about 30; a linear kernel's chooser 231 at v0.33.0)
_STAT = {"raise": "raises", "assert": "asserts", "log": "logs", "response": "responses"}


def class_messages(scans: list[tuple[str, FileScan]]) -> dict[str, tuple[str, str]]:
    """Exception class name → (its own message template, "path:line"), for the classes
    whose ``__init__`` sets one; a name two files give different messages is left out."""
    return _unique_texts(scans, "message")


def module_constants(scans: list[tuple[str, FileScan]]) -> dict[str, tuple[str, str]]:
    """A module constant's name (``NAME`` or ``NAME['KEY']``) → (its text, "path:line"); a
    name two files give different texts is left out: which one a raise imports is unknown."""
    return _unique_texts(scans, "constant")


def _unique_texts(scans: list[tuple[str, FileScan]], kind: str) -> dict[str, tuple[str, str]]:
    """The read-only sites of ``kind`` by name (``exception``) → (template, "path:line"), for
    the names that every file gives the same template."""
    found: dict[str, tuple[str, str] | None] = {}
    for path, scan in scans:
        for site in scan.sites:
            if site.kind != kind or site.template is None:
                continue
            name = site.exception
            if name in found and (found[name] is None or found[name][0] != site.template):
                found[name] = None
            elif name not in found:
                found[name] = (site.template, f"{path}:{site.line}")
    return {name: value for name, value in found.items() if value is not None}


def exception_makers(scans: list[tuple[str, FileScan]]) -> dict[tuple[str, str], list[RaiseSite]]:
    """(path, function) → the exceptions the function returns (sites of kind "returned")."""
    found: dict[tuple[str, str], list[RaiseSite]] = {}
    for path, scan in scans:
        for site in scan.sites:
            if site.kind == "returned":
                found.setdefault((path, site.function), []).append(site)
    return found


def given_reasons(scans: list[tuple[str, FileScan]]) -> dict[str, dict[tuple[str, str], list[str]]]:
    """A function's own name → (path, qualified function) → the reasons it gives (sites of kind
    "reason"), in the order of the files and lines."""
    found: dict[str, dict[tuple[str, str], list[str]]] = {}
    for path, scan in scans:
        for site in scan.sites:
            if site.kind == "reason" and site.template:
                texts = found.setdefault(site.exception, {}).setdefault((path, site.function), [])
                if site.template not in texts:
                    texts.append(site.template)
    return found


def reasons_shown(site: RaiseSite, path: str, reasons: dict[str, dict[tuple[str, str], list[str]]]) -> list[str]:
    """The reasons a message that shows them may give: those of its own function (``reasons =
    []`` ... ``reasons.append(...)`` ... ``raise ValueError("; ".join(reasons))``) and those of
    every function of the names it calls (``backend.validate_configuration(...)``: each
    backend's override), at most MAX_REASONS. Where its own function words a reason it is given
    (``f"{kernel.__name__} cannot implement due to: {failure_reason}"``), the message shows it
    so worded: each given reason goes into that hole, and none is shown bare."""
    own, *called = site.reasons_from
    given: list[str] = []
    for name in called:
        for (_, _), texts in sorted(reasons.get(name, {}).items()):
            given.extend(t for t in texts if t not in given)
    shown: list[str] = []
    worded = False
    for text in reasons.get(own, {}).get((path, site.function), []):
        hole = next((h for h in split_template(text)[1] if "reason" in h.lower() and "{" + h + "}" in text), None)
        if hole is None or not given:
            shown.append(text)
            continue
        worded = True
        shown.extend(text.replace("{" + hole + "}", reason, 1) for reason in given)
    if not worded:
        shown.extend(given)
    # (as a value is shown: without the spaces a join puts around it)
    return list(dict.fromkeys(t.strip() for t in shown))[:MAX_REASONS]


def made_by(site: RaiseSite, path: str, makers: dict[tuple[str, str], list[RaiseSite]]) -> tuple[str, list[RaiseSite]] | None:
    """(where, the returned sites) of the function whose call ``site`` raises, when it is one
    that returns exceptions: a method of the raise's class (``self.f(...)``, else the one method
    of that name in its file), a function of its file, or else the one module-level function of
    that name in another file."""
    written = site.exception
    name = written.rsplit(".", 1)[-1]
    if is_exception_class(name):
        return None
    if written.startswith(("self.", "cls.")) and written.count(".") == 1:
        owner = site.function.rsplit(".", 1)[0] if "." in site.function else None
        found = makers.get((path, f"{owner}.{name}")) if owner else None
        if not found:  # a base class's method in the same file: the one method of that name
            methods = [sites for (p, function), sites in makers.items() if p == path and function.endswith(f".{name}")]
            found = methods[0] if len(methods) == 1 else None
        return (path, found) if found else None
    if "." not in written:
        found = makers.get((path, name))
        if found:
            return path, found
    elsewhere = [(p, sites) for (p, function), sites in makers.items() if function == name and p != path]
    return elsewhere[0] if len(elsewhere) == 1 else None


def _take_what_is_made(site: RaiseSite, made: tuple[str, list[RaiseSite]], messages: dict[str, tuple[str, str]]) -> None:
    """The raise of a call to a function that makes its exception shows that exception's type
    (when the function makes one type) and text (when the raise's own has no words)."""
    where, returned = made
    types = {r.exception for r in returned}
    forms: list[str] = []
    for r in returned:
        text = r.template if has_words(r.template) else messages.get(r.exception.rsplit(".", 1)[-1], (None,))[0]
        if text and text not in forms:
            forms.append(text)
    if len(types) == 1:
        site.exception = returned[0].exception
    if forms and not has_words(site.template):
        site.template, site.variants = forms[0], [*forms[1:], *site.variants]
        site.placeholders = placeholder_names(site.template)
        site.message_from = f"{where}:{returned[0].line}"
        site.message_name = f"{returned[0].function}()"


def constant_named(template: str | None) -> str | None:
    """``NAME`` or ``NAME['KEY']`` when the whole template is one placeholder naming a
    constant so (``{STR_X}``, ``{utils.STR_X}``, ``{STRS['KEY']}``), else None."""
    if not template or not (template.startswith("{") and template.endswith("}")) or template.count("{") != 1:
        return None
    try:
        node = ast.parse(template[1:-1].strip(), mode="eval").body
    except SyntaxError:
        return None
    key = None
    if isinstance(node, ast.Subscript):
        if not (isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)):
            return None
        key, node = node.slice.value, node.value
    if isinstance(node, ast.Attribute):
        name = node.attr
    elif isinstance(node, ast.Name):
        name = node.id
    else:
        return None
    if not CONSTANT_NAME.match(name):
        return None
    return name if key is None else f"{name}[{key!r}]"


def placeholder_names(template: str) -> list[str]:
    return split_template(template)[1]


def _is_utf8(path: str) -> bool:
    """Whether a path read from git (``surrogateescape``) was valid UTF-8."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def catalog_json(catalog: Catalog) -> str:
    return json.dumps(catalog.to_json(), indent=1, ensure_ascii=False) + "\n"


class _Analyser:
    """Analyses blobs of one repository, piece by piece, in this process."""

    def __init__(self, repo_path, pieces: PieceStore, collect: bool = False):
        self.reader = BlobReader(repo_path)
        self.pieces = pieces
        self.collect = collect  # a worker process: it runs with the collector paused

    def analyse_chain(self, chain: list[str]) -> tuple[Rows, list[dict[str, int]]]:
        """The analyses of one file's new versions, oldest first (each reuses the pieces of
        the one before, kept in memory), as rows for the cache, and piece statistics.

        The rows hold every version's analysis, but only the pieces of the newest version:
        a later scan asks for the pieces of the versions after it, which are most like it,
        and storing those of every release's version would cost more than they save."""
        self.pieces.reset()
        rows = Rows()
        stats = []
        outlines: dict[str, dict | None] = {}
        variants: list[tuple[str, dict]] = []
        keys: list[str] = []
        for blob, data in zip(chain, self.reader.read_many(chain)):
            result = scan_file(data, self.pieces.lookup)
            self.pieces.learn(result)
            rows.add_analysis(blob, result.scan.to_json())
            outlines.update(result.outlines)
            variants.extend(result.variants)
            keys = result.keys
            stats.append(result.stats)
        newest = set(keys)
        rows.add_pieces(
            {key: outline for key, outline in outlines.items() if key in newest},
            [(key, variant) for key, variant in variants if key in newest],
        )
        if self.collect:
            gc.collect(1)  # the few cycles a walk leaves, while they are young
        return rows, stats

    def close(self) -> None:
        self.reader.close()


_worker: _Analyser | None = None


def _start_worker(repo_path, cache_path, fingerprint: str) -> None:
    global _worker
    _worker = _Analyser(repo_path, PieceStore.reader(cache_path, fingerprint), collect=True)
    # The cyclic garbage collector stays paused: the syntax trees a scan makes and drops
    # hold no cycles, yet would call for collection after collection, each going over all
    # the worker holds. What it inherited is frozen; the few cycles a chain leaves are
    # collected after it (_Analyser.analyse_chain).
    gc.freeze()
    gc.disable()


def _analyse_in_worker(chain: list[str]):
    assert _worker is not None
    return _worker.analyse_chain(chain)


class _Workers:
    """A pool of worker processes for one repository, kept while the cache is open."""

    def __init__(self, repo_path, cache: BlobCache, workers: int):
        self.key = (str(repo_path), workers)
        # fork: the workers inherit the imported scanner and start at once; each reads
        # its blobs and the stored pieces itself (only this process writes the cache)
        self.pool = multiprocessing.get_context("fork").Pool(
            workers, initializer=_start_worker, initargs=(repo_path, cache.path, cache.fingerprint)
        )

    def close(self) -> None:
        self.pool.close()
        self.pool.join()


def new_versions(listings: list[list[tuple[str, str]]], known: Callable[[str], bool]) -> list[list[str]]:
    """The blobs not ``known`` yet of revisions' (path, blob) listings, as chains: each
    path's versions in the order of the listings, each blob once (in the first chain that
    has it). Longest chains first, so that the last to finish is a short one."""
    chains: dict[str, list[str]] = {}
    taken: set[str] = set()
    for files in listings:
        for path, blob in files:
            if blob not in taken and not known(blob):
                taken.add(blob)
                chains.setdefault(path, []).append(blob)
    return sorted(chains.values(), key=len, reverse=True)


def analyse_chains(
    repo_path,
    chains: list[list[str]],
    cache: BlobCache,
    workers: int,
    progress: Progress | None = None,
) -> dict[str, dict]:
    """Analyses of the blobs of ``chains`` as JSON data, computed now (from cached pieces
    where they hold) and cached. A chain is one task: its versions go through one process
    in order, so that each reuses what the one before it found."""
    total = sum(map(len, chains))
    found: dict[str, dict] = {}
    if not total:
        return found
    if workers <= 1:
        analyser = _Analyser(repo_path, cache.pieces())
        results: Iterable = map(analyser.analyse_chain, chains)
    else:
        pool = cache.resources.get("workers")
        if not isinstance(pool, _Workers) or pool.key != (str(repo_path), workers):
            if pool is not None:
                pool.close()
            pool = cache.resources["workers"] = _Workers(repo_path, cache, workers)
        analyser = None
        results = pool.pool.imap_unordered(_analyse_in_worker, chains)
    rows = Rows()
    try:
        for learnt, stats in results:
            # the rows' encoding is the quickest way back from a worker too
            found.update((blob, decode_analysis(data)) for blob, data in learnt.blobs)
            rows.extend(learnt)
            for file_stats in stats:
                cache.stats.add_file(file_stats)
            if len(rows.blobs) >= _STORE_EVERY:
                cache.store(rows)  # while the workers go on (they only read), and kept if the scan stops
                rows = Rows()
            if progress:
                progress(len(found), total)
    finally:
        if analyser is not None:
            analyser.close()
    cache.store(rows)
    return found


def scan_revisions(
    project: str,
    revisions: list[Revision],
    cache: BlobCache,
    workers: int | None = None,
    progress: Progress | None = None,
) -> list[Catalog]:
    """The catalogs of ``revisions``, in one pass: every blob none of them shares with
    what the cache holds is analysed once, after the versions of its file before it."""
    with collector_paused():
        listings = [python_files(revision) for revision in revisions]
        loaded = cache.loaded  # decoded once per cache: releases share most blobs
        wanted = list(dict.fromkeys(blob for files in listings for _, blob in files if blob not in loaded))
        cached = dict(cache.get_many(wanted))
        cache.stats.blobs_cached += len(cached)
        loaded.update(cached)
        by_repo: dict[str, list[int]] = {}
        for index, revision in enumerate(revisions):
            by_repo.setdefault(str(revision.repo_path), []).append(index)
        for indices in by_repo.values():
            chains = new_versions([listings[i] for i in indices], lambda blob: blob in loaded)
            repo_path = revisions[indices[0]].repo_path
            loaded.update(analyse_chains(repo_path, chains, cache, workers or os.cpu_count() or 1, progress))
        ids: dict[tuple, str] = {}
        return [_assemble_revision(project, r, files, loaded, ids) for r, files in zip(revisions, listings)]


def scan_revision(
    project: str,
    revision: Revision,
    cache: BlobCache,
    workers: int | None = None,
    progress: Progress | None = None,
) -> Catalog:
    return scan_revisions(project, [revision], cache, workers, progress)[0]


def _assemble_revision(
    project: str, revision: Revision, files: list[tuple[str, str]], loaded: dict[str, dict], ids: dict[tuple, str]
) -> Catalog:
    # A blob may stand at two paths (or in two releases): each gets its own sites.

    def load(blob: str) -> FileScan:
        return FileScan.from_json(loaded[blob])

    return assemble(
        project,
        revision.rev,
        revision.commit,
        revision.tag,
        revision.spec,
        ((path, load(blob)) for path, blob in files),
        ids,
    )
