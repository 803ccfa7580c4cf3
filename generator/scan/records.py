"""The plain data model: what the scanner finds and what the catalog holds."""

from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator

SCHEMA_VERSION = 1


@contextmanager
def collector_paused() -> Iterator[None]:
    """Build catalogs (or their history) with the cyclic garbage collector paused.

    They are trees of small acyclic objects, hundreds of thousands of them, that nothing
    but reference counting ever needs to free; each collection their making triggers
    would go over everything alive (other catalogs too), again and again. When the
    collector comes back on, what is alive is frozen (``gc.freeze``), so that the first
    collections do not go over all of it at once either.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.freeze()
            gc.enable()


@dataclass
class RaiseSite:
    """One ``raise`` or messaged ``assert`` in one file.

    Everything here comes from the file's text alone, so one analysis of a blob
    serves every path and revision the blob appears at; ``path`` is filled in when
    the catalog is assembled.
    """

    # "raise" | "assert" | "log" | "response"; and, read at assembly only: "message" (an exception
    # class's own message), "constant" (a module's string constant, `exception` its name),
    # "returned" (an exception a function returns, `function` the function) and "reason" (a
    # reason a function gives for a message elsewhere, `exception` the function's own name)
    kind: str
    exception: str  # as written: "ValueError", "errors.Foo"; a log's level ("WARNING"); a response's error type
    template: str | None  # None when the raise has no message
    line: int  # the line of the raise/assert keyword
    end_line: int
    function: str  # "Class.method", "outer.inner", "<module>"
    guard: list[str] = field(default_factory=list)
    placeholders: list[str] = field(default_factory=list)
    variants: list[str] = field(default_factory=list)  # other templates the message may take
    comment: str = ""
    excerpt: str = ""
    excerpt_line: int = 0  # line number of the excerpt's first line
    cause: str | None = None  # the `from` expression
    path: str = ""
    status: int | None = None  # a response's HTTP status, when the source says it
    message_from: str | None = None  # where the message lives when not at the site: "path:line" of the class's
    id_template: str | None = None  # what the id hashes when not the template shown (README, "Error ids")
    # the constant of another module the message is (NAME), or the function that makes the
    # exception raised (name()), when it is one
    message_name: str | None = None
    # the reasons the message may show (`Reason: {invalid_reasons}`), given by the functions it
    # calls (read at assembly from `reasons_from`: those names, its own function's first)
    reasons: list[str] = field(default_factory=list)
    reasons_from: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        data = {
            "path": self.path,
            "line": self.line,
            "end_line": self.end_line,
            "function": self.function,
            "kind": self.kind,
            "exception": self.exception,
            "template": self.template,
            "variants": self.variants,
            "guard": self.guard,
            "placeholders": self.placeholders,
            "comment": self.comment,
            "excerpt": self.excerpt,
            "excerpt_line": self.excerpt_line,
            "cause": self.cause,
        }
        # only where they say something: the catalog of raises stays as it was
        if self.status is not None:
            data["status"] = self.status
        if self.message_from is not None:
            data["message_from"] = self.message_from
        if self.id_template is not None:
            data["id_template"] = self.id_template
        if self.message_name is not None:
            data["message_name"] = self.message_name
        if self.reasons:
            data["reasons"] = self.reasons
        if self.reasons_from:
            data["reasons_from"] = self.reasons_from
        return data

    @classmethod
    def from_json(cls, data: dict) -> "RaiseSite":
        site = cls(**data)
        # its own lists: the decoded analysis it comes from serves every path and release
        site.guard, site.placeholders, site.variants = list(site.guard), list(site.placeholders), list(site.variants)
        site.reasons, site.reasons_from = list(site.reasons), list(site.reasons_from)
        return site


@dataclass
class FileScan:
    """What one file holds: its sites, how many re-raises, or why it was skipped."""

    sites: list[RaiseSite] = field(default_factory=list)
    reraises: int = 0
    skipped: str | None = None

    def to_json(self) -> dict:
        return {
            "sites": [s.to_json() for s in self.sites],
            "reraises": self.reraises,
            "skipped": self.skipped,
        }

    @classmethod
    def from_json(cls, data: dict) -> "FileScan":
        return cls(
            sites=[RaiseSite.from_json(s) for s in data["sites"]],
            reraises=data["reraises"],
            skipped=data["skipped"],
        )


@dataclass
class ErrorRecord:
    """Sites that raise the same exception with the same template: one error."""

    id: str
    kind: str
    exception: str
    template: str | None
    sites: list[RaiseSite]

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "kind": self.kind,
            "exception": self.exception,
            "template": self.template if self.template is not None else "",
            "has_message": self.template is not None,
            "sites": [s.to_json() for s in self.sites],
        }


@dataclass
class Catalog:
    project: str
    revision: str
    commit: str
    tag: str | None  # the tag permalinks point at
    source: str
    errors: list[ErrorRecord]
    stats: dict

    def to_json(self) -> dict:
        with collector_paused():
            return {
                "schema_version": SCHEMA_VERSION,
                "project": self.project,
                "revision": self.revision,
                "commit": self.commit,
                "tag": self.tag,
                "source": self.source,
                "errors": [e.to_json() for e in self.errors],
                "stats": self.stats,
            }
