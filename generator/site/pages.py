"""What each page of the site says: pure functions from catalog, entries and engine
arguments to page models and the JSON API. Rendering them is ``site``'s job.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable
from urllib.parse import quote

from generator.lookup.match import error_title
from generator.text import error_path
from generator.repro.cases import reproduction_views, reproductions, trusted_record
from generator.vllm.flags import flags_involved
from generator.vllm.phases import phase_of_site
from generator.site.render import code

API_SCHEMA_VERSION = 1
PERMALINK = "https://github.com/vllm-project/vllm/blob/{tag}/{path}#L{line}"
ISSUE_SEARCH = "https://github.com/vllm-project/vllm/issues?q={query}"
NEXT_PAGES = 5
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")


@dataclass
class Flag:
    name: str
    flag: str
    type: str
    default: str
    help: str = ""

    def to_json(self) -> dict:
        return {"name": self.name, "flag": self.flag, "type": self.type, "default": self.default, "help": self.help}


@dataclass
class ErrorPage:
    id: str
    exception: str
    kind: str
    template: str
    has_message: bool
    title: str
    sites: list[dict]  # catalog sites, plus "permalink"
    subsystem: str
    meaning: str  # the curated summary, or a sentence generated from the code
    flags: list[Flag]
    versions: list[str]
    entry: object | None = None  # generator.entries.load.ErrorEntry when curated
    verification: dict | None = None  # the entry's record (errors/verifications/<slug>.json)
    reproductions: list[dict] = field(default_factory=list)  # generator.repro.cases.reproduction_views
    related: list[str] = field(default_factory=list)  # other ids of the same entry
    ranges: list[str] = field(default_factory=list)  # "v0.26.0 – v0.33.0"
    replaces: list[dict] = field(default_factory=list)  # lineage: {"id", "kind", "release"}
    replaced_by: list[dict] = field(default_factory=list)
    current: bool = True  # raised at the pin; otherwise its page tells where it was last raised
    last_release: str = ""
    example: dict | None = None  # {"text", "source"}: the message as vLLM printed it (``example_message``)
    phase: str = ""  # generator.vllm.phases: when in a run it is raised ("" when its place does not tell)
    issue_search: str = ""  # a GitHub search of vLLM's issues for the message's literal text
    reports: list[str] = field(default_factory=list)  # URLs of public reports (errors/reports.yaml), ``attach_reports``
    next_pages: list[dict] = field(default_factory=list)  # {"id", "title", "why"}: curated pages to read next
    followed_by: list[dict] = field(default_factory=list)  # log pages: {"id", "title", "where"}, ``link_followers``
    now_raised_as: list[str] = field(default_factory=list)  # the pin's errors this one became, ``link_current_successors``

    @property
    def curated(self) -> bool:
        return self.entry is not None

    @property
    def url(self) -> str:
        return error_path(self.id)

    @property
    def replaces_once(self) -> list[dict]:
        return lineage_once(self.replaces, "after")

    @property
    def replaced_by_once(self) -> list[dict]:
        return lineage_once(self.replaced_by, "in")


def lineage_once(links: list[dict], word: str) -> list[dict]:
    """Lineage links once per id, in order, each with what happened when: {"id", "changes":
    "retyped in v0.11.0 and v0.32.0"}. An error that went, came back and went again links to
    the same id twice."""
    changes: dict[str, dict[str, list[str]]] = {}
    for link in links:
        changes.setdefault(link["id"], {}).setdefault(link["kind"], []).append(link["release"])
    return [{"id": id_, "changes": ", ".join(f"{kind} {word} {' and '.join(releases)}" for kind, releases in kinds.items())}
            for id_, kinds in changes.items()]


def subsystem_of(path: str) -> str:
    """``vllm/config/model.py`` → ``config``; ``vllm/v1/core/x.py`` → ``v1/core``; ``vllm/utils.py`` → ``utils``."""
    parts = path.split("/")[1:]
    if len(parts) == 1:
        return parts[0][:-3] if parts[0].endswith(".py") else parts[0]
    if parts[0] == "v1" and len(parts) > 2:
        return f"v1/{parts[1]}"
    return parts[0]


def generated_meaning(exception: str, kind: str, sites: list[dict], has_message: bool) -> str:
    """An honest sentence from the code: who raises it, and that a condition is checked."""
    first = sites[0]
    where = f"{code(first['function'])} ({code(first['path'])})"
    more = f", and from {len(sites) - 1} other place{'s' if len(sites) > 2 else ''}" if len(sites) > 1 else ""
    guarded = " when the condition below holds" if first.get("guard") else ""
    if kind == "log":
        return (
            f"vLLM logs this at {exception} level in {where}{more}{guarded}. It is a log line, not an "
            "exception: on its own it does not stop vLLM. When it comes with a traceback, the error at the "
            "traceback's end is the one to look up."
        )
    if kind == "response":
        statuses = sorted({s["status"] for s in sites if s.get("status")})
        status = f"HTTP {', '.join(str(s) for s in statuses)} " if statuses else ""
        return (
            f"vLLM's OpenAI-compatible server returns this to the client as an {status}error body "
            f"(type {code(exception)}) from {where}{more}{guarded}, without raising: the client sees it "
            "and the server log may say nothing."
        )
    own = ""
    if first.get("message_name", "").endswith("()"):
        own = (f" The exception raised is made by {code(first['message_name'])} "
               f"({code(first['message_from'])}), which the raise calls: its type and message are set there.")
    elif first.get("message_name"):
        own = (f" Its message is {code(first['message_name'])}, a constant of another module "
               f"({code(first['message_from'])}), not written at the raise.")
    elif first.get("message_from"):
        own = f" Its message is set by the exception class itself ({code(first['message_from'])}), not at the raise."
    if kind == "assert":
        return (
            f"An internal check (`assert`) in {where}{more} failed: vLLM expected the condition "
            "shown below to hold. Such checks guard assumptions of the code; the message says which."
        )
    if not has_message:
        return f"vLLM raises {code(exception)} without a message in {where}{more}."
    return f"vLLM raises {code(exception)} in {where}{more}{guarded}.{own} No curated explanation has been written yet."


def url_path(text: str) -> str:
    """A path (or tag) of vLLM's source as it goes in a URL: every character but letters,
    digits, ``/`` and ``-._~`` percent-encoded (HTML, quotes, spaces, parentheses, brackets,
    controls); a name that was not UTF-8 (undecodable bytes kept as surrogates) as its bytes."""
    try:
        return quote(str(text), safe="/", errors="surrogateescape")
    except UnicodeEncodeError:  # a surrogate that stands for no byte
        return quote(str(text), safe="/", errors="replace")


def permalink(tag: str, path: str, line: int) -> str:
    return PERMALINK.format(tag=url_path(tag), path=url_path(path), line=int(line))


def build_pages(
    catalog: dict,
    entries: Iterable,
    engine_args: dict[str, Flag],
    verifications: dict[str, dict] | None = None,
    history: dict | None = None,
) -> list[ErrorPage]:
    """One page per error of the catalog, curated ones with their entry.

    With a ``history`` (``generator.history.lineage.assemble_history``), pages also carry
    their releases and lineage, and every error raised in an earlier release but no
    longer at the pin gets a page too: its ids stay reachable.
    """
    tag = catalog.get("tag") or catalog["revision"]
    by_id = {}
    for entry in entries:
        for error_id in entry.ids:
            by_id.setdefault(error_id, entry)
    past = {e["id"]: e for e in history["errors"]} if history else {}
    release_tags = {r["revision"]: r.get("tag") or r["revision"] for r in history["releases"]} if history else {}
    pages = []
    for error in catalog["errors"]:
        sites = [dict(s, permalink=permalink(tag, s["path"], s["line"])) for s in error["sites"]]
        known = past.get(error["id"], {"versions": [catalog["revision"]], "ranges": [catalog["revision"]]})
        pages.append(_page(error, sites, by_id.get(error["id"]), engine_args, verifications, known, pin_version=tag.removeprefix("v")))
    at_pin = {e["id"] for e in catalog["errors"]}
    for error_id, error in past.items():
        if error_id in at_pin:
            continue
        last = error["last"]
        sites = [
            dict(s, guard=[], placeholders=[], variants=[], comment="", excerpt="", excerpt_line=s["line"], end_line=s["line"],
                 permalink=permalink(release_tags.get(last, last), s["path"], s["line"]))
            for s in error["sites"][last]
        ]
        gone = f"vLLM raised {code(error['exception'])} here in {', '.join(error['ranges'])}; {catalog['revision']} no longer does."
        pages.append(_page(error, sites, by_id.get(error_id), engine_args, verifications, error, gone, last,
                           pin_version=tag.removeprefix("v")))
    return pages


def _page(
    error: dict,
    sites: list[dict],
    entry,
    engine_args: dict[str, Flag],
    verifications: dict[str, dict] | None,
    known: dict,
    gone: str = "",
    last_release: str = "",
    pin_version: str = "",
) -> ErrorPage:
    """The page of one error; ``gone`` says how it was raised before when the pin no longer does."""
    has_message = error.get("has_message", True)
    entry_repros = reproductions(entry.slug, entry.path, entry.reproduce) if entry else []
    meaning = generated_meaning(error["exception"], error["kind"], sites, has_message) if not gone else gone
    return ErrorPage(
        id=error["id"],
        exception=error["exception"],
        kind=error["kind"],
        template=error["template"],
        has_message=has_message,
        title=error_title(error["exception"], error["template"], has_message, function=sites[0]["function"],
                          curated=entry.title if entry else ""),
        sites=sites,
        subsystem=subsystem_of(sites[0]["path"]),
        meaning=entry.summary if entry else meaning,
        flags=flags_involved(error["template"], sites, engine_args),
        versions=known["versions"],
        entry=entry,
        # Only the runs that validate against the schema and the entry's current cases
        # reach a page or the API: a hand-edited or stale record shows nothing.
        verification=trusted_record(entry_repros, (verifications or {}).get(entry.slug)) if entry else None,
        reproductions=reproduction_views(entry_repros, (verifications or {}).get(entry.slug), pin_version) if entry else [],
        related=[i for i in entry.ids if i != error["id"]] if entry else [],
        ranges=known["ranges"],
        replaces=known.get("replaces", []),
        replaced_by=known.get("replaced_by", []),
        current=not gone,
        last_release=last_release,
        phase=phase_of_site(sites[0]["path"], sites[0]["function"]),
        issue_search=issue_search_url(error["template"]) if has_message else "",
        example=example_message(error["id"], error["exception"], entry_repros,
                                (verifications or {}).get(entry.slug) if entry else None)
        or (reported_example(entry) if entry else None),
    )


def literal_text(template: str, most: int = 100) -> str:
    """The longest run of the message's own words between its placeholders, cut at a word
    boundary to at most ``most`` characters: what a report of it quotes whatever the values."""
    runs = sorted((" ".join(part.split()) for part in _PLACEHOLDER.split(template)), key=len, reverse=True)
    text = runs[0].strip(" .,:;'\"()[]`") if runs else ""
    if len(text) > most:
        text = text[:most].rsplit(" ", 1)[0]
    return text if len(text) >= 12 else ""


def issue_search_url(template: str) -> str:
    """A search of vLLM's GitHub issues for the message's literal text ("" when it has too little)."""
    text = literal_text(template).replace('"', " ")
    return ISSUE_SEARCH.format(query=quote(f'"{" ".join(text.split())}"')) if text else ""


def attach_reports(pages: list[ErrorPage], reports: list) -> None:
    """Give each page the URLs of the reports of its problem: its own id, the other ids of its
    entry and the ids it had in other releases (lineage), each URL once, in file order."""
    by_id: dict[str, list[str]] = {}
    for report in reports:
        by_id.setdefault(report.id, []).append(report.url)
    for page in pages:
        ids = [page.id, *page.related, *(link["id"] for link in page.replaces + page.replaced_by)]
        if page.entry is not None:
            ids += page.entry.ids
        page.reports = list(dict.fromkeys(url for i in dict.fromkeys(ids) for url in by_id.get(i, ())))


def link_current_successors(pages: list[ErrorPage]) -> None:
    """For each error the pin no longer raises, the pin's errors its lineage leads to when the
    errors it became are gone too (reworded in v0.14.0, then retyped in v0.16.0): where the
    message lives now, beyond the next step the page already names."""
    by_id = {page.id: page for page in pages}
    for page in pages:
        if page.current or not page.replaced_by:
            continue
        named = {link["id"] for link in page.replaced_by}
        found: list[str] = []
        seen = {page.id}
        todo = [link["id"] for link in page.replaced_by]
        while todo:
            id_ = todo.pop(0)
            if id_ in seen or id_ not in by_id:
                continue
            seen.add(id_)
            successor = by_id[id_]
            if successor.current:
                found.append(id_)
            else:
                todo += [link["id"] for link in successor.replaced_by]
        page.now_raised_as = [id_ for id_ in dict.fromkeys(found) if id_ not in named]


def link_next_pages(pages: list[ErrorPage]) -> None:
    """For each page without an entry, the curated pages to read next: those about the same
    engine arguments first, then those raised in the same file, then in the same subsystem."""
    curated: dict[str, ErrorPage] = {}
    for page in sorted((p for p in pages if p.curated and p.current), key=lambda p: (p.entry.slug, p.id)):
        curated.setdefault(page.entry.slug, page)  # one page per entry
    their_flags = {slug: {f.name for f in other.flags} for slug, other in curated.items()}  # once, not per page
    for page in pages:
        if page.curated:
            continue
        flags = {f.name for f in page.flags}
        file = page.sites[0]["path"]
        scored = []
        for slug, other in curated.items():
            shared = sorted(flags & their_flags[slug])
            if shared:
                why, rank = f"also about {', '.join('--' + n.replace('_', '-') for n in shared[:3])}", 0
            elif other.sites[0]["path"] == file:
                why, rank = f"also raised in {file}", 1
            elif other.subsystem == page.subsystem:
                why, rank = f"also in vLLM's {page.subsystem}", 2
            else:
                continue
            scored.append((rank, -len(shared), other.title.lower(), other.id, why, other.title))
        page.next_pages = [{"id": i, "title": t, "why": w} for _, _, _, i, w, t in sorted(scored)[:NEXT_PAGES]]


FOLLOW_LINES = 25  # how far below a log call a raise still reads as what the log announces


def link_followers(pages: list[ErrorPage]) -> None:
    """For each logged error, the error raised right after it: the nearest raise below the log
    call in the same function and under the same conditions, within ``FOLLOW_LINES`` lines
    (``logger.error("... not supported")`` then ``raise ValueError(...)``), at each of its sites.
    A bare re-raise is not an error of the catalog, so it links nothing."""
    raises: dict[tuple[str, str], list[tuple[int, ErrorPage]]] = {}
    for page in pages:
        if page.current and page.kind in ("raise", "assert"):
            for site in page.sites:
                raises.setdefault((site["path"], site["function"]), []).append((site["line"], tuple(site.get("guard") or ()), page))
    for page in pages:
        if page.kind != "log" or not page.current:
            continue
        found: dict[str, dict] = {}
        for site in page.sites:
            # under the same conditions: in the same branch, not in the next ``if``
            guard = tuple(site.get("guard") or ())
            below = [(line, other) for line, other_guard, other in raises.get((site["path"], site["function"]), ())
                     if site["line"] < line <= site["line"] + FOLLOW_LINES and other_guard == guard]
            if below:
                line, other = min(below, key=lambda item: (item[0], item[1].id))
                found.setdefault(other.id, {"id": other.id, "title": other.title, "exception": other.exception,
                                            "where": f"{site['path']}:{line}"})
        page.followed_by = list(found.values())


def reported_example(entry) -> dict | None:
    """The entry's ``example`` (a message from a report, checked by ``errorkb check`` to be one
    of the entry's errors), on each of its pages that has no example from a reproduction."""
    if not entry.example:
        return None
    return {"text": entry.example["message"], "source": "as reported", "url": entry.example["source"]}


def example_message(error_id: str, exception: str, repros: list, record: dict | None) -> dict | None:
    """One real message with its values, as vLLM printed it: the last line naming the error's
    exception in the evidence of a trusted run whose error case raised this very error."""
    from generator.repro.cases import trusted_runs

    for key, run in sorted(trusted_runs(repros, record).items()):
        case = run.get("error") or {}
        if not case.get("passed") or case.get("matched") != error_id:
            continue
        short = exception.rsplit(".", 1)[-1]
        lines = [line.strip() for line in str(case.get("evidence") or "").splitlines()]
        found = [line for line in lines if line.split(":", 1)[0].rsplit(".", 1)[-1] == short and ": " in line]
        if found:
            where = f"on a GPU ({run['tier']})" if run.get("tier") == "cuda" else "on CPU"
            return {"text": found[-1], "source": f"raised by vLLM {(run.get('environment') or {}).get('vllm', '?')} "
                                                 f"{where} when errorkb verify ran this page's reproduction, {run.get('date')}"}
    return None


def report_url(issues_url: str, page: ErrorPage) -> str:
    title = f"Page {page.id}: "
    body = f"Error id: {page.id}\nPage: {page.title}\n\nWhat is wrong or missing:\n"
    return f"{issues_url}?title={quote(title)}&body={quote(body)}&labels=page"


# --- the JSON API -------------------------------------------------------------------------


def entry_json(entry) -> dict | None:
    if entry is None:
        return None
    return {
        "slug": entry.slug,
        "ids": entry.ids,
        "title": entry.title,
        "summary": entry.summary,
        "explanation": entry.explanation,
        "causes": entry.causes,
        "solutions": entry.solutions,
        "faq": entry.faq,
        "references": entry.references,
        "tags": entry.tags,
        "reproduce": entry.reproduce or None,
    }


def error_json(page: ErrorPage, catalog: dict, report: str) -> dict:
    return {
        "schema_version": API_SCHEMA_VERSION,
        "id": page.id,
        "exception": page.exception,
        "kind": page.kind,
        "title": page.title,
        "template": page.template,
        "has_message": page.has_message,
        "meaning": page.meaning,
        "url": page.url,
        "curated": page.curated,
        "verified": page.verification,
        "reproductions": page.reproductions,
        "subsystem": page.subsystem,
        "revision": catalog["revision"],
        "commit": catalog["commit"],
        "versions": page.versions,
        "ranges": page.ranges,
        "current": page.current,
        "replaces": page.replaces,
        "replaced_by": page.replaced_by,
        "now_raised_as": page.now_raised_as,
        "flags": [f.to_json() for f in page.flags],
        "sites": [
            {
                "path": s["path"],
                "line": s["line"],
                "end_line": s["end_line"],
                "function": s["function"],
                "permalink": s["permalink"],
                "guard": s["guard"],
                "placeholders": s["placeholders"],
                "variants": s["variants"],
                "comment": s["comment"],
                "excerpt": s["excerpt"],
                "excerpt_line": s["excerpt_line"],
                **{key: s[key] for key in ("status", "message_from", "message_name", "reasons") if key in s},
            }
            for s in page.sites
        ],
        "entry": entry_json(page.entry),
        "related": page.related,
        "phase": page.phase,
        "reports": page.reports,
        "next_pages": page.next_pages,
        "followed_by": page.followed_by,
        "issue_search": page.issue_search,
        "report_url": report,
    }


def index_json(pages: list[ErrorPage], catalog: dict) -> dict:
    return {
        "schema_version": API_SCHEMA_VERSION,
        "revision": catalog["revision"],
        "commit": catalog["commit"],
        "errors": [
            {
                "id": p.id,
                "exception": p.exception,
                "template": p.template,
                "title": p.title,
                "url": p.url,
                "curated": p.curated,
                "verified": any(r["badge"]["state"] == "passed" for r in p.reproductions),
                "current": p.current,
                "ranges": p.ranges,
            }
            for p in pages
        ],
    }
