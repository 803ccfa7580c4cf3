"""Matching: a cleaned paste → the templates it shows (pure: no disk, no processes).

Lookup as a whole turns a pasted log, traceback or message into the vLLM errors it
shows. ``clean.py`` reads the paste (steps 1 and 2 below: cleaning, squashing),
``foreign.py`` reads its traceback and tells errors that are not vLLM's, this module
matches templates (step 3), and ``index.py`` packs the catalogs into the compact index
that the command line and the site read. The browser port
(``templates/assets/lookup.js``) follows the same rules, checked by the shared test
vectors in ``tests/data/lookup_vectors.json``; every number and pattern it needs comes
from the index.

How a paste is read:

1. ``clean_paste`` undoes what happens to text between vLLM and the search box (see
   ``clean.py``).
2. ``squash`` drops whitespace, backticks and quotes and folds case, remembering where
   each character came from (see ``clean.py``).
3. Every template is a list of literal segments with holes between them. Candidates
   come from a 6-gram index over the segments; each candidate is verified by finding
   its segments in order (a hole takes whatever lies between), crediting a prefix of
   the template when the paste stops early (truncation).
"""

from __future__ import annotations

import array
import bisect
import functools
import heapq
import marshal
import re
import zlib
from collections import Counter
from dataclasses import dataclass, field
from itertools import chain
from typing import Callable, Iterable

from generator.lookup.clean import (ANSI, CODE_FENCE, DROPPED, WEB_SPACE, Origin, clean_paste, squash, squash_text, squashes_longer,
                                    untypeset, without_closing_words, without_outer_prefixes)
from generator.lookup.foreign import (BUILTIN_EXCEPTIONS, EXCEPTION_LINE, FRAME, ISSUE_TAGS, LOGGED_ABOVE_TRACEBACK, WRAPPER, ForeignError, foreign_call, foreign_errors,
                                      foreign_exception_type, foreign_frame, foreign_rows, frame_outside_vllm, from_rows, last_exception, not_vllm, phase_of,
                                      wording_words,
                                      raise_vllm_never_wrote, raising_frame, traceback_frames, unmatched_exception, unmatched_line, UNMATCHED_ID,
                                      UNMATCHED_LINE_ID, LINE_WORDS, unmatched_unnamed, MESSAGE_WORD, VLLM_LOG_LINE_REASON, VLLM_LOG_LINE_SOURCE, innermost_frame,
                                      PROCESS_LINE_REASON, PROCESS_LINE_SOURCE, ANOTHERS_LINE_REASON, ANOTHERS_LINE_SOURCE, UNMATCHED_LINE_REASON)
from generator.lookup.fixes import fix_with_values
from generator.scan.ids import split_template
from generator.text import ELLIPSIS, foreign_path, readable_message, shorten, unquoted

GRAM = 6
MAX_GRAMS_PER_ENTRY = 48
OPENING_GRAMS = 8  # a long template's first grams, always indexed
STOP_GRAM_ENTRIES = 150  # a gram in more templates than this tells nothing
MAX_CANDIDATES = 80
CANDIDATE_SHARE = 5  # a template is a candidate when the paste has 1/CANDIDATE_SHARE of its grams,
CANDIDATE_GRAMS = 5  # or this many of them
TITLE_STOPS = 300  # squashed characters of a paste's first line at whose word ends a full stop is tried
ANCHORS = 3  # a match is anchored on one of the template's first chunks
ANCHOR_TRIES = 6  # places of an anchor in the paste tried
CHUNK_WORDS = 3
WINDOW = 24  # how far past the expected place a chunk may start (inserted words)
PART_LEAST = 4  # squashed characters of a chunk's start or end that count when the rest of it differs
TAIL = 400  # squashed characters before the paste's end within which a template may be cut short
MIN_LITERAL = 12  # templates with less literal text need their exception name beside them
MIN_MATCHED = 20  # a longer template must show at least this much of itself
# A reason a message may show, pasted without the message ("sink setting not supported"), stands
# for a message whose words the paste lacks: only one with more literal text than the least a
# message must show, and shown whole, does ("dtype {dtype} not supported" is said of many things).
REASON_LEAST = MIN_MATCHED + 2
OPENING_LEAST = 13  # squashed characters of a message's opening words, shown whole with its type, that a quote cut after them needs
LATER_LEAST = 40  # squashed characters of a later sentence quoted alone (_later_sentence)
REWORDED_SHARE = 0.3  # of a message's first chunk that may differ after its type (_opening_reworded)
HEAD_CUT_LEAST = 40  # squashed characters of a message shown from where a line begins inside it (_head_cut_off)
QUOTED_LEAST = 33  # squashed characters of words quoted from inside a message (_quoted_part): the quotes mark them
ELLIPSIS_LEAST = 10  # ... or this much, with its type beside it, where the paste says it was cut (below)
# the paste's last word, at its very end (_cut_inside_word)
PASTE_ENDS_IN_A_WORD = re.compile(r"([A-Za-z0-9]+)[ \t\r\n]*\Z")
ASCII_WORD = re.compile(r"[A-Za-z0-9]+")
# the user's own mark of a cut at the paste's end, on the message's line ("Fused module 'x' ...")
USER_CUT = re.compile(r"[^\n]*(?:\.\.\.|\u2026)\s*\Z")  # (blank lines after it too)
# An issue title's tag where a message opens ("[Usage]: No available memory for the cache blocks. on H20"):
# where a title quotes vLLM's first sentence, the tag stands where its exception type would
# (more tags may follow the first: "[Bug][V1]: ", "[Bug] [gpt-oss-120b]: ")
# A character of a Python name, which a name beside a message must not continue ("RuntimeError"
# is not the level "Error"); ASCII only: a name may follow words of another script at once.
_NAME_CHAR = re.compile(r"[A-Za-z0-9_]")
ISSUE_TAG = re.compile(r"[ \t]*" + ISSUE_TAGS + r":?[ \t]*\Z")
# the exception types pydantic reports as "Value error, <message>" (ValueError and vLLM's subclass)
PYDANTIC_VALUE_ERRORS = ("valueerror", "vllmvalidationerror")
# an exception type named in vLLM's package, right before the message ("vllm.exceptions.VLLMValidationError: ")
VLLM_QUALIFIED = re.compile(r"(?<![\w.])vllm(?:\.\w+)+:[ \t]*\Z")
SURE = 0.9  # a score from which a match counts as the message itself (not a near miss)
NEARLY_WHOLE = 40  # squashed characters a near match shows, with OUTWEIGHS times what it lacks, to count as a failure
UNNAMED_LEAST = 30  # ... and a title's first sentence without type or tag, whose line holds no sentence of its own after it
OUTWEIGHS = 3  # ... and times a match inside its words shows, to be the reading of those words
AGREE_BONUS = 15  # squashed characters a type that agrees is worth (or the raising frame)
FRAME_BONUS = 50  # ... and on top of that, the raising frame
MAX_VALUE_CHARS = 2000  # a placeholder's value is cut after this many characters
TITLE_WIDTH = 80
HOLE = re.compile(r"\{[^}]*\}")  # a placeholder, for telling whether a template has literal text
# A template that is only a message Python itself writes, around its placeholders.
ENDS_IN_A_VALUE = re.compile(r"\{[^}]*\}\W*$")  # "NCCL error: {error_str}": its value runs on to the line's end
PYTHONS_OWN = re.compile(r"""^(?:module )?(?:\{[^}]*\}|['"\s.])*(?:object )?has no attribute(?:\{[^}]*\}|['"\s.])*$|^No module named(?:\{[^}]*\}|['"\s.])*$|^object of type (?:\{[^}]*\}|['"\s.])* has no len\(\)$""")
# ... and a line of the paste in Python's own words, where a vLLM template only begins like it
# ("module 'trl.scripts.vllm_serve' has no attribute 'X'" is not vLLM's "Module '{path}' has no
# attribute '{name}' (speculative_config.model=...)" cut short): Python writes "module" in lower case
# (Python 3.10 and later add a suggestion: "... has no attribute 'TPUMemorySpace'. Did you mean: 'MemorySpace'?") and a person may close
# the line with brackets or a stop of their own ("(AttributeError: module 'x' has no attribute 'y' ).");
# and Python's "f() argument after ** must be a mapping, not tuple" is no "`{key}` must be a mapping"
PYTHON_WROTE = re.compile(r"""(?:module |type object )?'[^'\n]*' (?:object )?has no attribute '[^'\n]*'(?:\.(?:[ \t]*Did you mean: '[^'\n]*'\?)?)?[ \t).,;]*$"""
                          r"""|No module named '[^'\n]*'[ \t]*$"""
                          r"""|(?<=argument after \*\* )must be a mapping, not \w+[ \t]*$""", re.M)
# A vLLM message's text before its first value, at least this long, found again on the
# foreign error's line makes that line a copy of the message (quotes_it).
QUOTE_HEAD = 12

# "vLLM API server version 0.8.5", "vllm==0.10.1", "Initializing a V1 LLM engine (v0.9.1)"
VERSION_STRING = re.compile(r"vLLM API server version (\d+\.\d+\.\d+)|LLM engine \(v(\d+\.\d+\.\d+)"
                            r"|\bvllm(?:==|\s+version\s+|\s+v|\s+|-)(\d+\.\d+\.\d+)", re.I)


# --- templates ---------------------------------------------------------------------------


def hole_name(source: str) -> str:
    """``x!r:>10`` → ``x``: the expression without conversion and spec."""
    depth = 0
    for i, c in unquoted(source):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0 and (c == ":" or (c == "!" and source[i + 1 : i + 2] in ("r", "s", "a") and source[i + 2 : i + 3] in ("", ":"))):
            return source[:i]
    return source


@dataclass
class Entry:
    """One template (an error's main template or a variant), ready to match.

    Its literal text is cut into chunks of a few words. Chunks are found in order;
    one that is missing costs its length, so a message reworded in one place (an
    older release, a typo fixed) still matches on the rest.
    """

    error: int  # index into Matcher.errors
    chunks: list[str]  # squashed
    segment_of: list[int]  # the literal segment each chunk belongs to
    holes: list[str]  # hole h lies between segments h and h + 1
    literal: int  # squashed literal characters in all
    exception: str  # lower-cased, for "valueerror:" adjacency
    grams: int = 0  # grams of it in the index
    form: str = ""  # the template, when it is another form of the error's message (not its main template)
    reason: bool = False  # the form is a reason the message may show, not the message (tried last)


def chunk_segments(segments: list[str]) -> tuple[list[str], list[int]]:
    words, owners = chunk_words(segments)
    return ["".join(w) for w in words], owners


def chunk_words(segments: list[str]) -> tuple[list[list[str]], list[int]]:
    """Each chunk's squashed words (what ``chunk_segments`` joins), and the segment it is of."""
    chunks: list[list[str]] = []
    owners: list[int] = []
    for number, segment in enumerate(segments):
        words = [squash_text(w) for w in segment.split()]
        pieces = [[w for w in words[i : i + CHUNK_WORDS] if w] for i in range(0, len(words), CHUNK_WORDS)]
        if not words and squash_text(segment):
            pieces = [[squash_text(segment)]]
        merged: list[list[str]] = []
        for piece in pieces:
            if not piece:
                continue  # only quotes or backticks: nothing to find
            if merged and len("".join(piece)) < GRAM:
                merged[-1] += piece  # a short tail joins the chunk before it
            else:
                merged.append(piece)
        chunks.extend(merged)
        owners.extend([number] * len(merged))
    return chunks, owners


@dataclass
class LookupError_:
    """What the matcher knows of an error (a slice of the catalog)."""

    id: str
    exception: str
    template: str
    title: str
    url: str
    versions: list[str]
    sites: list[dict]  # {"path", "line", "function"}
    newest: int = 0  # the place of the newest release that raises it among the index's: ties go to the newer
    kind: str = "raise"  # "raise" | "assert" | "log" | "response"
    entry: dict | None = None  # the curated entry's {slug, title, summary, fix}


def error_title(exception: str, template: str, has_message: bool = True, width: int = TITLE_WIDTH,
                function: str = "", curated: str = "") -> str:
    """A page's or a result's title: the curated entry's title when there is one; else
    ``<Exception>: <start of the message>`` with placeholders as ``…``, cut at a word
    boundary; for an error raised without a message, ``<Exception> in <function>``."""
    if curated:
        return " ".join(curated.split())
    if not has_message or not template or not readable_message(template).strip(" …"):
        return f"{exception} in {function}" if function and function != "<module>" else exception
    return f"{exception}: {shorten(readable_message(template), width)}"


def _grams(segment: str) -> Iterable[str]:
    return (segment[i : i + GRAM] for i in range(len(segment) - GRAM + 1))


@dataclass
class Match:
    error: LookupError_
    values: dict[str, str]
    start: int  # where in the cleaned paste the match starts
    matched: int = 0  # squashed literal characters found in order
    missing: int = 0  # literal characters the paste has something else in place of
    coverage: float = 0.0  # matched / all literal characters of the template
    exception_agrees: bool = False  # "ValueError: <message>", or the last exception's type
    in_last: bool = False  # within the last exception of the paste
    tagged: bool = False  # opens after an issue title's tag, which stands where its type would
    worded_alike: bool = False  # the paste spaces the template's words as it does (_worded_alike)
    lineage_newest: int = -1  # the newest release of the problem it belongs to (set before ranking)
    frame: bool = False  # the last traceback frame is one of the error's sites
    end: int = 0  # where the match ends in the cleaned paste
    value_spans: list[tuple[int, int]] = field(default_factory=list)
    wrapper: bool = False  # another match lies inside one of its values: it only wraps that one
    holes: int = 0  # placeholders in the template
    open_value: bool = False  # the paste stops inside a value that vLLM's later words would close
    value_to_line_end: bool = False  # the match ends with a value, which runs on to its line's end (open or not)
    current: LookupError_ | None = None  # the problem's current error (the pin's, or what it became)
    also: list[LookupError_] = field(default_factory=list)  # the problem's other ids, in other releases
    form: str = ""  # the other form of the error's message that matched (its main template: "")
    worded_as: list[LookupError_] = field(default_factory=list)  # the problem's other errors the paste matches as well
    type_only: bool = False  # the paste is only the exception's type (_type_alone)
    reason: bool = False  # what matched is a reason the message may show (``form``), not the message
    carried: bool = False  # its words are a foreign error's that vLLM's message carries (``vllm_wording``), shown without its type

    @property
    def score(self) -> float:
        """How much of what the paste could show of the template it does show."""
        return round(self.matched / max(1, self.matched + self.missing), 3) if self.matched else 0.5 * self.frame

    @property
    def verdict(self) -> str:
        """``exact``: the paste shows the message (all of it, or all up to where it stops);
        ``partial``: parts of it are missing or other: it may have been reworded."""
        return "exact" if self.score >= SURE else "partial"

    @property
    def rank_key(self) -> tuple:
        # A type that agrees is worth a few characters, not more: exception types
        # migrate between releases (ValueError → VLLMValidationError).
        return (
            not self.wrapper,
            self.score >= SURE,
            self.matched - self.missing + AGREE_BONUS * (self.exception_agrees or self.frame) + FRAME_BONUS * self.frame,
            self.coverage >= SURE,  # a cut paste does not tell a longer message from a shorter one
            -self.holes,  # of two templates that fit alike, the one with fewer holes says more
            self.worded_alike,
            self.in_last,
            # a tag stands for an exception's type, and a logged message has none: of a raise and a
            # log line worded alike, a title's tag names the raise ("[Bug]: X has no vLLM implementation")
            not (self.tagged and self.error.kind == "log"),
            # the same message in several releases: the problem the pin still raises first, then
            # the newest release's (a message a later release dropped loses to one it kept)
            max(self.lineage_newest, self.error.newest),
            self.error.newest,
        )

    def to_json(self) -> dict:
        e = self.error
        current = self.current or e
        return {
            "id": e.id,
            "exception": e.exception,
            "kind": e.kind,
            "template": e.template,
            "title": current.title,
            "url": e.url,
            "score": self.score,
            "verdict": self.verdict,
            "coverage": round(self.coverage, 3),
            "versions": e.versions,
            "sites": [{"path": s["path"], "line": s["line"]} for s in e.sites],
            "values": self.values,
            # the message as the paste shows it: the form that matched, values filled in
            "message": fill(self.form if self.form and not self.reason else e.template, self.values)
            if self.form or e.template else "",
            "current": {"id": current.id, "url": current.url, "versions": current.versions,
                        "sites": [{"path": s["path"], "line": s["line"]} for s in current.sites]},
            "also": [{"id": a.id, "versions": a.versions} for a in self.also],
            "entry": current.entry and {**current.entry, "fix": fix_with_values(current.entry.get("fix"), self.values)},
            # only where it says something: found by the exception's type alone
            **({"type_only": True} if self.type_only else {}),
            # only where it says something: the paste shows one of the reasons the message gives
            **({"reason": fill(self.form, self.values)} if self.reason else {}),
        }


# --- the matcher ---------------------------------------------------------------------------


def fill(template: str, values: dict[str, str]) -> str:
    """The message with the paste's values in its holes (``…`` where the paste shows none)."""
    segments, holes = split_template(template)
    out = [segments[0]]
    for hole, segment in zip(holes, segments[1:]):
        value = values.get(hole_name(hole))
        out.append(value if value else ELLIPSIS)
        out.append(segment)
    return "".join(out)


class _Lazy:
    """A sequence whose items are made from plain rows when first asked for: a stored
    matcher has ten thousand errors, and a lookup looks at a few dozen."""

    def __init__(self, rows, make):
        self.rows = rows
        self.make = make
        self.made: dict[int, object] = {}

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, number: int):
        found = self.made.get(number)
        if found is None:
            found = self.made[number] = self.make(self.rows[number])
        return found

    def __iter__(self):
        return (self[i] for i in range(len(self.rows)))


def _error_row(e: LookupError_) -> tuple:
    return (e.id, e.exception, e.template, e.title, e.url, tuple(e.versions),
            tuple((s["path"], s["line"], s["function"]) for s in e.sites), e.newest, e.kind, e.entry)


def _error_of(row: tuple) -> LookupError_:
    id_, exception, template, title, url, versions, sites, newest, kind, entry = row
    return LookupError_(id_, exception, template, title, url, list(versions),
                        [{"path": p, "line": n, "function": f} for p, n, f in sites], newest, kind, entry)


def _entry_row(e: Entry) -> tuple:
    return (e.error, tuple(e.chunks), tuple(e.segment_of), tuple(e.holes), e.literal, e.exception, e.grams, e.form,
            e.reason)


def _entry_of(row: tuple) -> Entry:
    error, chunks, segment_of, holes, literal, exception, grams, form, reason = row
    return Entry(error, list(chunks), list(segment_of), list(holes), literal, exception, grams, form, reason)


SNAPSHOT_VERSION = 10

SHOWN_LINE_CHARS = 200  # of the line a `message-not-in-vllm` answer judged: its prefix names the program


# (after an issue title's tag, if any, as EXCEPTION_LINE reads it: "[Bug]: AssertionError: ")
EXCEPTION_PREFIX = re.compile(r"^\s*(?:" + ISSUE_TAGS + r":?[ \t]*)?(?:[\w.]+\.)?(?:\w+Error|\w*Exception)(?:\(\w+\))?:\s*$")  # also in the browser


def _after_exception_type(cleaned: str, start: int) -> bool:
    """Whether ``start`` opens the message of a ``SomeError: message`` line."""
    return EXCEPTION_PREFIX.match(cleaned[cleaned.rfind("\n", 0, start) + 1 : start]) is not None


def _one_identifier(cleaned: str, start: int, end: int, template: str) -> bool:
    """Whether a template of several words matched one word of the paste: "Internal server
    error" in ``"type":"InternalServerError"`` is a name, not the message."""
    return end > start and " " in template.strip() and not any(c.isspace() for c in cleaned[start:end])


def _inside_path(cleaned: str, start: int, template: str) -> bool:
    """Whether a message that opens with its words starts right after a path's separator:
    "Engine {eng_id} failed: {msg}" in ``/vllm/v1/engine/async_llm.py ... failed: NCCL error``
    is a folder's name, not the message."""
    return start > 0 and cleaned[start - 1] in "/\\" and not template.startswith("{")


def _inside_type_name(cleaned: str, start: int, end: int) -> bool:
    """Whether [start, end) lies within the ``SomeError`` of a ``SomeError: message`` line
    (a match found from the traceback alone has no span: end is 0)."""
    if end <= start:
        return False
    line_start = cleaned.rfind("\n", 0, start) + 1
    line_end = cleaned.find("\n", start)
    line = cleaned[line_start : len(cleaned) if line_end == -1 else line_end]
    colon = line.find(":")
    if colon == -1 or end > line_start + colon + 1:  # the type's colon may come with it ("JSON decode error:")
        return False
    found = EXCEPTION_LINE.match(line.strip())
    if found is not None and found.group(4) is not None:
        # the repr form, "RuntimeError('Error in model execution (...): ...')": the type ends
        # where its bracket opens, and a colon inside the quotes is the message's
        return start < line_start + line.find("(")
    return found is not None


def _named_otherwise(cleaned: str, m: Match) -> bool:
    """The paste names an exception type right before ``m``'s words that none of its problem's
    errors, in any release, has."""
    named = TYPE_RIGHT_BEFORE.search(cleaned[cleaned.rfind("\n", 0, m.start) + 1 : m.start])
    if named is None:
        return False
    types = {e.exception.rsplit(".", 1)[-1].lower() for e in (m.error, m.current or m.error, *m.also)}
    return named.group(1).lower() not in types


def _raised_outside_vllm(cleaned: str, frames: list[tuple[str, str]], last: tuple[int, str] | None) -> tuple[int, int, int] | None:
    """(start, end, line end) of the last exception's message opening when the frame right
    above it, the traceback's innermost, is another package's code (``foreign_frame``'s packages),
    or any other package's own raise or assert that writes the message there ("assert n % d == 0,
    "{} is not divisible by {}".format(" in sglang's copy of vLLM's helper); a package that
    raises vLLM's exception again ("raise e") did not write it."""
    if last is None:
        return _cut_at_anothers_raise(cleaned, frames)
    raising = raising_frame(cleaned, last) if frames else None
    if raising is None or foreign_frame(frames, any_package=False) is None and not (
            foreign_frame(frames) is not None and WRITES_ITS_MESSAGE.match(raising[1])):
        return None
    line_end = cleaned.find("\n", last[0])
    line = cleaned[last[0] : len(cleaned) if line_end == -1 else line_end]
    colon = line.find(": ")
    if colon == -1:
        return None
    return last[0] + colon + 2, last[0] + colon + 2 + 2, len(cleaned) if line_end == -1 else line_end


def _cut_at_anothers_raise(cleaned: str, frames: list[tuple[str, str]]) -> tuple[int, int, int] | None:
    """A traceback cut after its innermost frame's code line, with no exception line, where that
    frame is another package's and its line raises or asserts with a message written there
    (vllm-ascend's ``raise NotImplementedError("EPLB is not supported.")`` in
    ``vllm_ascend/eplb/utils.py``): (where the line starts, where its message starts, the line's
    end). The words are that package's, though vLLM has a message that reads alike."""
    if not frames or foreign_frame(frames) is None:
        return None
    frame = None
    for frame in FRAME.finditer(cleaned):
        pass
    if frame is None:
        return None
    lines = cleaned[frame.end() :].strip("\n").split("\n")
    if len(lines) > 2 or len(lines) == 2 and lines[1].strip(" ^~"):  # the code line, and a caret line at most
        return None
    written = WRITES_ITS_MESSAGE.match(lines[0])
    if written is None:
        return None
    start = cleaned.index(lines[0], frame.end())
    return start, start + written.end(), start + len(lines[0])


# An exception's type right before a message, on its line ("NotImplementedError: ", "foo.BarError: ")
TYPE_RIGHT_BEFORE = re.compile(r"(?:^|[^A-Za-z0-9_.])(?:[A-Za-z0-9_]+\.)*([A-Za-z0-9_]*(?:Error|Exception))[ \t]*:[ \t]*$")
# A code line that raises or asserts with a message written there, a string literal
WRITES_ITS_MESSAGE = re.compile(r"""\s*(?:assert\b.*,|raise\s+[\w.]+\()\s*[rRfFbBuU]{0,2}["']""")


class _Postings:
    """The gram index of a stored matcher: gram → the entries that have it, read from one
    array of ``[count, entry, entry, ...]`` runs. The grams themselves are an open-addressing
    hash table over plain arrays (slot → gram number; gram number → its UTF-8 bytes and its
    run): reading 118,000 grams back as a dict took 30 ms of every lookup, the table takes
    none, and a paste asks for a few thousand grams at a microsecond each. The hash is CRC-32,
    the same in every process (``hash(str)`` is salted per process)."""

    def __init__(self, table: bytes, keys: bytes, key_ends: bytes, runs: bytes, data: bytes):
        self.table = memoryview(table).cast("i")
        self.mask = len(self.table) - 1
        self.keys = keys
        self.key_ends = memoryview(key_ends).cast("i")
        self.runs = memoryview(runs).cast("i")
        # a damaged file must not send a lookup into an endless probe or past the arrays
        if len(self.table) & self.mask or len(self.runs) != len(self.key_ends) or len(self.runs) * 2 > len(self.table):
            raise ValueError("its arrays do not fit together")
        self.view = memoryview(data).cast("i")

    @staticmethod
    def pack(index: dict[str, list[int]]) -> tuple[bytes, bytes, bytes, bytes, bytes]:
        """The arrays of ``__init__`` for ``index`` (grams in sorted order: the same bytes for the same index)."""
        grams = sorted(index)
        size = 1 << max(4, (2 * len(grams)).bit_length())  # at most half full: short probe runs
        table = array.array("i", [-1]) * size
        keys = bytearray()
        key_ends = array.array("i")
        runs = array.array("i")
        postings = array.array("i")
        for number, gram in enumerate(grams):
            key = gram.encode("utf-8")
            keys += key
            key_ends.append(len(keys))
            runs.append(len(postings))
            postings.append(len(index[gram]))
            postings.extend(index[gram])
            slot = zlib.crc32(key) & (size - 1)
            while table[slot] != -1:
                slot = (slot + 1) & (size - 1)
            table[slot] = number
        return table.tobytes(), bytes(keys), key_ends.tobytes(), runs.tobytes(), postings.tobytes()

    def _number(self, gram: str) -> int:
        key = gram.encode("utf-8")
        table, ends, keys, mask = self.table, self.key_ends, self.keys, self.mask
        count = len(ends)
        slot = zlib.crc32(key) & mask
        for _ in range(mask + 1):  # the table is at most half full: an empty slot comes soon
            number = table[slot]
            if number < 0 or number >= count:
                return -1
            if keys[ends[number - 1] if number else 0 : ends[number]] == key:
                return number
            slot = (slot + 1) & mask
        return -1

    def get(self, gram: str):
        """The entries that have ``gram`` (a view), or None."""
        number = self._number(gram)
        if number < 0:
            return None
        at = self.runs[number]
        return self.view[at + 1 : at + 1 + self.view[at]]

    def __contains__(self, gram: str) -> bool:
        return self._number(gram) >= 0

    def __getitem__(self, gram: str):
        found = self.get(gram)
        if found is None:
            raise KeyError(gram)
        return found

    def items(self):
        ends = self.key_ends
        for number in range(len(ends)):
            gram = self.keys[ends[number - 1] if number else 0 : ends[number]].decode("utf-8")
            at = self.runs[number]
            yield gram, list(self.view[at + 1 : at + 1 + self.view[at]])


class _LazyMapping(dict):
    """A mapping stored as one ``marshal`` blob, decoded the first time it is read (only
    pastes with traceback frames read these)."""

    def __init__(self, blob: bytes):
        super().__init__()
        self._blob = blob

    def _load(self):
        if self._blob is not None:
            blob, self._blob = self._blob, None
            self.update(marshal.loads(blob))

    def get(self, key, default=None):
        self._load()
        return super().get(key, default)

    def __getitem__(self, key):
        self._load()
        return super().__getitem__(key)

    def __setitem__(self, key, value):
        self._load()
        super().__setitem__(key, value)

    def __contains__(self, key):
        self._load()
        return super().__contains__(key)

    def __len__(self):
        self._load()
        return super().__len__()

    def __bool__(self):
        return self._blob is not None or super().__len__() > 0

    def __iter__(self):
        self._load()
        return super().__iter__()

    def items(self):
        self._load()
        return super().items()


class Matcher:
    def __init__(self, errors: list[LookupError_], templates: list[list[str]], groups: dict[str, str] | None = None,
                 revisions: list[str] | None = None, site_url: str = "", foreign: Iterable[ForeignError] | None = None,
                 paths: dict[str, int] | None = None, raise_lines: dict | None = None,
                 log_lines: dict[str, list[str]] | None = None, functions_before: dict[str, frozenset[str]] | None = None,
                 reasons: list[list[str]] | None = None):
        """``templates[i]``: the templates (main first, then variants) of ``errors[i]``.
        ``reasons[i]``: the reasons its message may show (``Reason: {invalid_reasons}``), matched
        only when no message is: a paste may quote one alone ("sink setting not supported").
        ``functions_before``: by path, the functions where an older release raises or logs and the
        errors' sites (their newest release's) do not.
        ``groups``: error id → its problem's current error id (``index.problem_groups``).
        ``foreign``: the errors that are not vLLM's to tell (the package's ``foreign.yaml``)."""
        self.entries: list[Entry] = []
        self.index: dict[str, list[int]] = {}
        self.short: list[int] = []  # entries too short for the gram index
        self.by_location: dict[tuple[str, str], list[int]] = {}  # (path, function) → errors
        for number, (error, variants) in enumerate(zip(errors, templates)):
            for site in error.sites:
                key = (site["path"], site["function"].rsplit(".", 1)[-1])
                self.by_location.setdefault(key, []).append(number)
            for template in variants:
                if template:
                    self._add(number, error.exception, template, template if template != error.template else "")
        self.reasons_at = len(self.entries)  # the entries from here on are reasons
        for number, (error, given) in enumerate(zip(errors, reasons or [])):
            for reason in given:
                self._add(number, error.exception, reason, reason, reason=True)
        number_of = {error.id: number for number, error in enumerate(errors)}
        self.logged_at: dict[str, list[int]] = {}  # "file.py:line" → the error logs written there
        for id_, places in (log_lines or {}).items():
            if id_ in number_of:
                for place in places:
                    self.logged_at.setdefault(place, []).append(number_of[id_])
        # (a gram too common to keep is one of too many messages: the reasons they may show do
        # not count, so that they change nothing of how the messages are found)
        for gram, entries in list(self.index.items()):
            if len(entries) > STOP_GRAM_ENTRIES and bisect.bisect_left(entries, self.reasons_at) > STOP_GRAM_ENTRIES:
                del self.index[gram]
        # A template all of whose grams were too common to keep ("Tool '{tool_name}' is not
        # supported": "supported" is in hundreds) is found by none: it is tried on every paste.
        indexed = set(chain.from_iterable(self.index.values()))
        self.short += [number for number, entry in enumerate(self.entries) if entry.grams and number not in indexed]
        self.entry_grams = [e.grams for e in self.entries]
        self._set_up(errors, [e.id for e in errors], groups or {}, revisions or [], site_url,
                     list(foreign_errors() if foreign is None else foreign), paths, raise_lines, functions_before)
        # foreign id → the errors whose template is the words it names as vLLM's (``vllm_wording``)
        self.worded = {f.id: tuple(n for n, e in enumerate(errors) if e.template == f.vllm_wording)
                       for f in self.foreign if f.vllm_wording}

    def _set_up(self, errors, ids: list[str], groups: dict[str, str], revisions: list[str], site_url: str,
                foreign: list[ForeignError], paths: dict[str, int] | None = None, raise_lines: dict | None = None,
                functions_before: dict | None = None) -> None:
        self.errors = errors
        self.functions_before = functions_before or {}
        self.paths = paths or {}  # vllm/... path → bitmask of the releases that have it
        # error id → (path, line) of a site → bitmask of the releases that raise it there
        self.raise_lines = raise_lines or {}
        self.revisions = revisions
        self.site_url = site_url
        self.number = {id_: n for n, id_ in enumerate(ids)}
        self.groups = groups
        self.members: dict[str, list[int]] = {}
        for id_, current in groups.items():
            if id_ in self.number:
                self.members.setdefault(current, []).append(self.number[id_])
        self.foreign = foreign
        self.foreign_by_id = {f.id: f for f in foreign}

    # --- a stored matcher ---------------------------------------------------------------

    def snapshot(self) -> bytes:
        """The matcher as plain data (``marshal``: no code runs when it is read back). Each
        error and entry is a blob of its own, decoded when a lookup first needs it; the
        gram index is one array of postings (reading 100,000 lists back took 40 ms)."""
        index = self.index if isinstance(self.index, dict) else dict(self.index.items())
        raise_lines = {i: at if isinstance(at, bytes) else marshal.dumps(dict(at)) for i, at in self.raise_lines.items()}
        return marshal.dumps((
            SNAPSHOT_VERSION, tuple(self.revisions), self.site_url, [e.id for e in self.errors],
            [marshal.dumps(_error_row(e)) for e in self.errors], [marshal.dumps(_entry_row(e)) for e in self.entries],
            tuple(self.entry_grams), _Postings.pack(index), tuple(self.short),
            # read only when a paste has traceback frames
            marshal.dumps({k: tuple(v) for k, v in self.by_location.items()}),
            dict(self.groups), foreign_rows(self.foreign), dict(self.paths),
            # one blob per error, decoded when a paste's traceback asks (78,000 sites: 0.1 s to read whole)
            marshal.dumps(raise_lines),
            {k: tuple(v) for k, v in self.logged_at.items()},
            {k: frozenset(v) for k, v in self.functions_before.items()},
            self.reasons_at, self.worded,
        ))

    @classmethod
    def from_snapshot(cls, data: bytes) -> "Matcher":
        """A matcher from ``snapshot()``'s bytes; ValueError when they are not one."""
        try:
            (version, revisions, site_url, ids, errors, entries, grams, postings, short, by_location, groups,
             foreign, paths, raise_lines, logged_at, functions_before, reasons_at, worded) = marshal.loads(data)
        except (EOFError, ValueError, TypeError) as exc:
            raise ValueError(f"not a stored matcher: {exc}") from None
        if version != SNAPSHOT_VERSION:
            raise ValueError(f"a stored matcher of version {version}, not {SNAPSHOT_VERSION}")
        matcher = cls.__new__(cls)
        matcher.entries = _Lazy(entries, lambda blob: _entry_of(marshal.loads(blob)))
        matcher.entry_grams = grams
        matcher.reasons_at = reasons_at
        matcher.worded = worded
        try:
            matcher.index = _Postings(*postings)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"not a stored matcher: its gram table is damaged ({exc})") from None
        matcher.short = list(short)
        matcher.by_location = _LazyMapping(by_location)
        matcher.logged_at = {k: list(v) for k, v in logged_at.items()}
        matcher._set_up(_Lazy(errors, lambda blob: _error_of(marshal.loads(blob))), ids, groups, list(revisions),
                        site_url, from_rows(foreign), paths, _LazyMapping(raise_lines), functions_before)
        return matcher

    def _add(self, error: int, exception: str, template: str, form: str = "", reason: bool = False) -> None:
        raw_segments, holes = split_template(template)
        chunks, owners = chunk_segments(raw_segments)
        literal = sum(len(c) for c in chunks)
        if literal == 0 or reason and literal < REASON_LEAST:
            return
        number = len(self.entries)
        entry = Entry(error, chunks, owners, [hole_name(h) for h in holes], literal, exception.lower(), form=form,
                      reason=reason)
        self.entries.append(entry)
        grams = list(dict.fromkeys(g for c in chunks for g in _grams(c)))  # in the message's order
        if not grams:
            self.short.append(number)
            return
        if len(grams) > MAX_GRAMS_PER_ENTRY:
            # The opening's grams, then grams spread evenly over the rest: a paste cut short
            # keeps a long message's opening, and any stretch of the message holds its share.
            rest = grams[OPENING_GRAMS:]
            step = len(rest) / (MAX_GRAMS_PER_ENTRY - OPENING_GRAMS)
            grams = grams[:OPENING_GRAMS] + [rest[int(i * step)] for i in range(MAX_GRAMS_PER_ENTRY - OPENING_GRAMS)]
        entry.grams = len(grams)
        for gram in grams:
            self.index.setdefault(gram, []).append(number)

    # --- querying -------------------------------------------------------------------

    def _candidates(self, counts: Counter, reasons: bool) -> list[int]:
        """The entries worth verifying: of the messages' (or of the reasons', which come after
        them: ``reasons_at``), those of which a fair share of grams occur, best share first."""
        grams_of, at = self.entry_grams, self.reasons_at
        ranked = [(-n / grams_of[e], -n, e) for e, n in counts.items() if (e >= at) == reasons
                  and (n * CANDIDATE_SHARE >= grams_of[e] or n >= CANDIDATE_GRAMS)]
        return [e for _, _, e in heapq.nsmallest(MAX_CANDIDATES, ranked)] + [e for e in self.short if (e >= at) == reasons]

    def _found(self, candidates: list[int], flat: str, origin, cleaned: str, last) -> dict[int, Match]:
        """Error number → its best match among the candidate entries."""
        results: dict[int, Match] = {}
        for number in candidates:
            found = self._verify(number, flat, origin, cleaned, last)
            if found is None:
                continue
            entry = self.entries[number]
            found.reason = entry.reason
            previous = results.get(entry.error)
            if previous is None or found.rank_key > previous.rank_key:
                results[entry.error] = found
        return results

    def lookup(self, text: str, top: int = 5) -> tuple[list[Match], dict | None]:
        """The best matches for a paste, and where it comes from when that is not vLLM."""
        given = text
        text = without_closing_words(text)  # what reads the paste's end reads it before the person's question
        cleaned = clean_paste(text)
        self._cleaned = (text, cleaned)
        self._given = given  # releases_of asks for the same paste next: clean it once
        self._typed: bool | None = None  # _as_typed(), read only when a title's rule needs it
        self._quoted: list[tuple[int, int, str]] | None = None  # _quoted_part(): read once, when a message needs it
        flat, origin = squash(cleaned)
        if not flat:
            return [], None
        last = last_exception(cleaned)
        frames = traceback_frames(cleaned)

        index = self.index
        grams = {flat[i : i + GRAM] for i in range(len(flat) - GRAM + 1)}
        if len(flat) >= GRAM and flat[-1] != ".":
            # a title or a bare line often leaves out the message's closing full stop, a share
            # of a short template's few grams ("The model `x` does not exist")
            grams.add(flat[1 - GRAM :] + ".")
        # ... and a title that goes on in its own words, the full stop of the first sentence it
        # quotes, at a word's end on its first line ("FlashInfer is not available when ...")
        first_line = cleaned.find("\n")
        for end in origin.starts:
            if end < GRAM - 1:
                continue
            if end > TITLE_STOPS or first_line != -1 and origin[end - 1] >= first_line:
                break
            if flat[end - 1] != ".":
                grams.add(flat[end + 1 - GRAM : end] + ".")
        counts = Counter(chain.from_iterable(filter(None, map(index.get, grams))))
        results = self._found(self._candidates(counts, reasons=False), flat, origin, cleaned, last)
        if not results:
            # no message matched: the paste may quote a reason one gives, alone, whole
            results = {number: found for number, found in self._found(self._candidates(counts, reasons=True), flat,
                                                                         origin, cleaned, last).items()
                       if found.score >= SURE}
        self._carried(results, cleaned, last)
        self._frame_bonus(results, frames, last, cleaned)
        if not results:
            self._type_alone(results, cleaned)
        # A vLLM message worded as Python's own ("'X' object has no attribute 'y'", "No module
        # named 'z'") is vLLM's only when the traceback shows its raise: Python writes it everywhere.
        # A logged message is no exception's message: "RuntimeError: Failed to load the tokenizer"
        # is not the log line "Failed to load {filename}" (a message both logged and raised has
        # its raise among the results too).
        # A line that another program logged ("E0904 21:29:13.6 31963 client.cpp:1112] Failed to
        # submit transfer operation": glog's header names a C++ file; SGLang's "[2025-10-28
        # 09:42:18 TP0] "; Python's warning of another package's file) is none of vLLM's messages.
        found = [m for m in results.values() if not (m.error.kind == "log" and _after_exception_type(cleaned, m.start))
                 and (m.frame or not PYTHONS_OWN.match(m.error.template))
                 and (m.frame or not PYTHON_WROTE.match(cleaned, m.start))
                 and (m.frame or not _on_anothers_log_line(cleaned, m.start, _raised_type(m.error)))
                 and (m.frame or m.error.kind != "log" or not _in_a_response_body(cleaned, m.start))
                 and (m.frame or not _goes_on_after_a_stock_phrase(cleaned, m))]
        # A message that starts inside the words of another message the paste shows whole is a
        # reading of those words: "Possibly too large swap space. 4.00 GiB out of ..." is the
        # warning, not the raise "Too large swap space. {x} GiB out of ..." (inside one of its
        # values it is another message: see wrapper below).
        # The raising frame does not keep a message that a longer one grew from, where the paste
        # goes on in the longer one's words: "Worker failed with error 'at 1:0:" is the later
        # release's wrapper, though the frame's function raised "Worker failed" in v0.8.0.
        found = [m for m in found if not any(_grown_past(m, other) if m.frame else _inside_words(m, other, cleaned) for other in found)]
        for outer in found:
            # "Worker failed with error '<the real error>'": the inner error is the answer (it
            # may end on the outer's full stop: "... method {method}." around "... soft cap.")
            # ... or, when the outer says it wraps another error, run on past the value's end as
            # read: "... find the original error: RuntimeError('Aborted due to ... space. Please ...')."
            # A report whose value is the original error wraps that error where it is repeated
            # whole elsewhere too (V0's engine logged it again on the next line).
            wraps = WRAPPER.search(outer.error.template) is not None
            points = POINTS_TO_ITS_VALUE.search(outer.error.template) is not None
            # ... or the paste stops in the value it opens, which holds the inner error on its line
            # ("Exception in worker X while processing method init_device: NCCL error: ...")
            # (or ends with a value, which a sentence's stop in it closed: "... with error 'Some layers are not assigned to any group.'")
            open_to = cleaned.find("\n", outer.end) if outer.open_value or outer.value_to_line_end else -1
            spans = outer.value_spans + ([(outer.end, len(cleaned) if open_to == -1 else open_to)]
                                         if outer.open_value or outer.value_to_line_end else [])
            outer.wrapper = any(
                inner is not outer and (a <= inner.start < b and (inner.end <= b or wraps or not cleaned[b : inner.end].strip(" \t.,;:!"))
                                        or points and _quoted_whole(cleaned, inner, a, b))
                and inner.score >= SURE and inner.coverage >= SURE
                # (a short message only as the whole of a wrapper's value: "Worker failed with error 'Model is required'")
                and (inner.matched >= MIN_MATCHED or wraps and _whole_value(cleaned, inner, a, b))
                for a, b in spans
                for inner in found
            )
        for m in found:
            m.lineage_newest = self._problem_of(m.error)[1].newest
        ranked = _failure_under_its_log(
            _failure_before_its_report(_last_of_warnings(_failure_before_warnings(sorted(found, key=lambda m: m.rank_key, reverse=True)), cleaned)), cleaned)
        ranked = self._one_per_problem(ranked)
        for m in ranked:
            # the problem's other wordings the paste shows as exactly are as good a witness of its
            # release, though the one read first left them out ("Triton kernel JIT compilation
            # during inference: f." is v0.22's literal text and v0.26's "%s %s during inference: %s%s.")
            if m.verdict == "exact":
                key = self._problem_of(m.error)[0]
                m.worded_as = [r.error for r in results.values() if r is not m and r.verdict == "exact"
                               and r.score == m.score and self._problem_of(r.error)[0] == key]
        raised_by = _raised_outside_vllm(cleaned, frames, last)
        if raised_by is not None:
            # The last exception was raised in another package's code (its frame is the
            # traceback's innermost): a vLLM template with the same words (vLLM once copied
            # transformers' rope_scaling check) is not what raised it, nor a near match later on
            # its line (SGLang's "Model X does not support BitsAndBytes quantization yet." is
            # not vLLM's "MoE Model X does not support ...").
            start, end, line_end = raised_by
            # (a message that opens with a value starts where its value does: "16 is not divisible by 6")
            ranked = [m for m in ranked if m.frame or not (
                start <= m.start <= end or (start <= m.start <= line_end and m.missing)
                or HOLE.match(m.error.template) and start <= _value_start(cleaned, len(cleaned[:m.start].rstrip(" \t"))) <= end)]

        # Warnings vLLM logged above the paste's last exception did not stop it: when they
        # are all that matched, the exception is told as if nothing had.
        warned_only = last is not None and bool(ranked) and all(
            not m.frame and m.error.kind == "log" and m.error.exception.upper() == "WARNING" and m.end <= last[0] for m in ranked)
        # Near matches raised with a type no release of theirs raises them with ("NotImplementedError:
        # Current platform does not support w4a4 nvfp4 quantization." beside vLLM's ValueError
        # "... does not support NVFP4 quantization. Please use ..."): another program's copy of the
        # words (SGLang's), told as if nothing had matched.
        retyped = bool(ranked) and all(m.verdict != "exact" and not m.frame and _named_otherwise(cleaned, m) for m in ranked)
        # A reason a message gives, matched alone ("sink setting not supported"), is weaker than
        # any rule that tells another program's error: told as if nothing had matched, listed after.
        reasons_only = bool(ranked) and all(m.reason for m in ranked)
        quiet = not ranked or warned_only or retyped or reasons_only
        # vLLM's report of a failure logged above its traceback ("EngineCore encountered a fatal
        # error.", logger.exception's line) says nothing of the cause: the error the traceback
        # ends on is told by every foreign rule, the weak ones too (an assert without a message).
        reported_above = last is not None and bool(ranked) and all(
            not m.frame and m.error.kind == "log" and WRAPPER.search(m.error.template) and m.end <= last[0] for m in ranked)
        foreign = not_vllm(cleaned, quiet or reported_above, self.foreign) or (
            foreign_frame(frames) or foreign_exception_type(cleaned, last) or foreign_call(cleaned, last)
            or unmatched_exception(cleaned, last, self.own_types) or raise_vllm_never_wrote(cleaned, last, self._may_raise_in)
            if quiet else None)
        if foreign is None and ranked and all(REPORTS_ABOVE.search(m.error.template) and not m.frame for m in ranked):
            # vLLM only reported a failure ("Engine core initialization failed. See root cause
            # above."): an exception the paste shows above the report, told as not vLLM's as if
            # nothing had matched, is the failure ("PermissionError: [Errno 13] Permission denied")
            above = cleaned[: cleaned.rfind("\n", 0, min(m.start for m in ranked)) + 1]
            last_above = last_exception(above)
            # ... above its copies: each worker of a tensor-parallel run printed the report, or
            # the paste shows it twice; a copy is the report again, not the failure
            reports = {cleaned[m.start : m.end].split("\n", 1)[0].strip() for m in ranked}
            while last_above is not None and any(r in above[last_above[0] :].split("\n", 1)[0] for r in reports):
                above = above[: last_above[0]]
                last_above = last_exception(above)
            if last_above is not None:
                foreign = not_vllm(above, True, self.foreign) or (
                    foreign_frame(traceback_frames(above)) or foreign_exception_type(above, last_above)
                    or foreign_call(above, last_above) or unmatched_exception(above, last_above, self.own_types)
                    or raise_vllm_never_wrote(above, last_above, self._may_raise_in))
        if foreign is None:
            ranked = ranked or self._logged_there(text)
            foreign = None if ranked else (unmatched_line(cleaned, last) or unmatched_vllm_log_line(text, cleaned)
                                            or unmatched_process_line(text, cleaned) or unmatched_anothers_line(text, cleaned)
                                            or unmatched_unnamed(text[-LOG_HEADER_TAIL:], cleaned)  # (its end: a log may be megabytes)
                                            or frame_outside_vllm(frames, last, self.own_types))
        if foreign is None:
            return ranked[:top], None
        line_end, source, reason, foreign_id, at = foreign
        info = self.foreign_info(source, reason, foreign_id, frames)
        if foreign_id == UNMATCHED_LINE_ID:
            info["line"] = cleaned[at:line_end].strip()[:SHOWN_LINE_CHARS]  # which line was judged
        # What vLLM said after the failure only to report it ("Engine core initialization
        # failed. See root cause above", a log line) is not the answer: the foreign error is.
        # A vLLM message of its own on a later line is, with the foreign error as its cause;
        # so is one that quotes the foreign error in its values ("Failed to create unquantized
        # linear weights: CUDA out of memory ..."), and the error whose raise is the
        # traceback's last frame.
        def quotes_it(m: Match) -> bool:  # the foreign error is in the vLLM message's values
            if m.score < SURE:
                return False  # a near match on the foreign error's line is its words, not vLLM's message
            # The foreign error is inside one of its values, or on the line where the vLLM
            # message ends (a message that a terminal wrapped spans lines). One that starts
            # where the foreign pattern does is that line itself only when raised with its own
            # type and to the line's end: "RuntimeError: NCCL error: unhandled system error" is
            # vLLM's, "RuntimeError: Unexpected error from cudaGetDeviceCount()" is not vLLM's
            # "unexpected error".
            if (m.start < at or m.start == at and (m.exception_agrees or m.carried)
                    and (m.end >= line_end or ENDS_IN_A_VALUE.search(m.error.template))) and (
                    any(a <= at < b for a, b in m.value_spans) or "\n" not in cleaned[min(m.end, at) : at]
                    or m.open_value and _continues(cleaned, m.end, at)):
                return True
            # ... or in another copy of the vLLM message: a log line that repeats it
            # ("ERROR engine.py] Error in model execution (...): <the foreign error>")
            head = cleaned[m.start : min([a for a, _ in m.value_spans] + [m.end])].strip()
            if len(head) >= QUOTE_HEAD and head in cleaned[cleaned.rfind("\n", 0, at) + 1 : at]:
                return True
            # ... or it quotes another copy of the foreign error ("Error in calling custom op
            # X: '_OpNamespace' ... has no attribute 'X'", and the same AttributeError raised below)
            quoted = cleaned[at:line_end].strip().strip("'\"`")  # a value's span leaves out its quotes
            return len(quoted) >= QUOTE_HEAD and any(quoted in cleaned[a:b] for a, b in m.value_spans)

        # A wrapper that quotes it ("Worker failed with error 'CUDA error: no kernel image ...'")
        # is a vLLM message present in the paste: it comes first, the foreign error its cause.
        # A foreign error that vLLM only warned about ("Failed to import from vllm._C:
        # ImportError(...)") did not stop it: an error logged after it is a failure of its own.
        warned = any(m.error.kind == "log" and m.error.exception.upper() == "WARNING" and quotes_it(m) for m in ranked)
        kept = [m for m in ranked if m.frame or quotes_it(m) or self._raised_from_it(m, cleaned, at, line_end) or _wrapped_by_it(m, cleaned, at) or (
                not WRAPPER.search(m.error.template) and m.start > line_end
                and (m.error.kind != "log" or warned and m.error.exception.upper() in ("ERROR", "CRITICAL")))]
        # A log line that quotes it is listed, but the foreign error stays the answer: a log
        # line reports a failure, it is not what stopped vLLM.
        # Nor does vLLM's report that the root cause lies elsewhere ("Engine process failed to
        # start. See stack trace for the root cause."), though its raise is the traceback's last frame.
        # Near matches of another type are listed, as near; the foreign error is the answer.
        # Nor does a report whose value is the original error ("Engine loop is not running. Inspect
        # the stacktrace to find the original error: OutOfMemoryError('HIP out of memory ...')").
        info["role"] = "cause" if not retyped and any(not m.reason and (m.error.kind != "log" or warned and m.start > line_end)
                                      and not (REPORTS_ABOVE.search(m.error.template) and line_end <= m.start)
                                      and not (POINTS_TO_ITS_VALUE.search(m.error.template) and quotes_it(m)) for m in kept) else "answer"
        if info["role"] == "cause" and _wrapped_by_it(kept[0], cleaned, at):
            info["role"] = "wrapper"  # the other program's error only carries vLLM's: no cause of it
        return kept[:top], info

    def _carried(self, results: dict[int, Match], cleaned: str, last) -> None:
        """vLLM's message in the words a foreign error's rule names as its (``vllm_wording``),
        without its type: "NCCL error: unhandled system error" is pynccl's message (PyTorch
        writes "NCCL error in: <file>:<line>, ..."), too short to be told by its words alone.
        Each place the rule's pattern matches and the words follow, with a value after them
        on their line, is the message, exact; the foreign error is its cause (``quotes_it``)."""
        low = None
        for error in self.foreign:
            numbers = self.worded.get(error.id)
            if not numbers or any(n in results for n in numbers):
                continue
            low = cleaned.lower() if low is None else low
            if not any(k in low for k in error.keywords):
                continue
            words = wording_words(error.vllm_wording)
            places: list[tuple[int, int, int]] = []  # (where the words start, where its value does, its line's end)
            line_end = -1
            for found in error.pattern.finditer(cleaned):
                at = found.start()
                if at > line_end:  # (a line's bounds read once: a long line may hold many matches)
                    line_end = cleaned.find("\n", at)
                    line_end = len(cleaned) if line_end == -1 else line_end
                    # (nor in the raise a traceback shows: 'raise RuntimeError(f"NCCL error: {error_str}")')
                    in_a_raise = WRITES_ITS_MESSAGE.match(cleaned, cleaned.rfind("\n", 0, at) + 1) is not None
                shown = words.match(cleaned, at)
                if shown is not None and shown.end() < line_end and not in_a_raise:
                    places.append((at, shown.end(), line_end))
            # the last place whose value is more than what closes around it: one result per error
            for at, value_start, line_end in reversed(places):
                # (a value is cut after MAX_VALUE_CHARS, as any value is)
                value = cleaned[value_start : min(line_end, value_start + MAX_VALUE_CHARS)]
                value = _closers_off(value) if value_start + MAX_VALUE_CHARS >= line_end else value
                if not value.strip():
                    continue
                number = max(numbers, key=lambda n: self.errors[n].newest)  # the newest release's, of several
                template = self.errors[number].template
                literal = len(squash_text(template[: template.index("{")]))
                in_last = last is not None and at >= last[0]
                results[number] = Match(
                    error=self.errors[number], values={hole_name(template[template.index("{") + 1 : -1]): value},
                    value_spans=[(value_start, value_start + len(value))], start=at, end=value_start + len(value),
                    matched=literal + len(squash_text(value)), coverage=1.0, holes=1, in_last=in_last,
                    exception_agrees=in_last and last[1].lower() == self.errors[number].exception.lower(), carried=True)
                break

    def _raised_from_it(self, m: Match, cleaned: str, at: int, line_end: int) -> bool:
        """Whether vLLM's raise ``m``, shown whole above the foreign error, was raised from it:
        the foreign error's innermost frame is in a function of vLLM's that raises ``m``'s
        problem, and Python says right after it that it caused another exception. A JSON
        log's "message" above its "exc_info" ("Please install bitsandbytes>=0.45.0 ...", then
        "ModuleNotFoundError: No module named 'bitsandbytes'", then "The above exception was the
        direct cause of the following exception:"), or logger.exception's message above its
        traceback, shows them in that order."""
        if m.error.kind == "log" or m.score < SURE or m.end > at or not CHAINED.match(cleaned, line_end):
            return False
        frame = innermost_frame(cleaned, at)
        path = _vllm_relative(frame.group(1)) if frame is not None and frame.start() >= m.end else None
        if path is None:
            return False
        problem = self.groups.get(m.error.id, m.error.id)
        return any(self.groups.get(self.errors[n].id, self.errors[n].id) == problem for n in self.by_location.get((path, frame.group(3)), ()))

    def _logged_there(self, text: str) -> list[Match]:
        """When nothing else told the paste: the error log its lines' header names ("ERROR 06-10
        03:43:37 [core.py:500]" on every line of the traceback ``logger.exception`` printed, cut
        above its message), when one problem is logged at that file and line in some release."""
        # (a terminal's colours around the level, "ERROR\x1b[0m 06-10 ...", are no part of it)
        # A native library's backtrace under the header, with no Python traceback ("backtrace:\n
        # --- libtt_metal.so(+0xc1e74a)", PyTorch's "frame #0: c10::Error::Error"), is no traceback
        # that logger.exception printed: the line may log another error where the paste came from.
        tail = text[-LOG_HEADER_TAIL:]
        if NATIVE_BACKTRACE.search(tail) and not TRACEBACK_SHOWN.search(tail):
            return []
        for found in reversed(list(LOG_HEADER.finditer(WEB_SPACE.sub(" ", ANSI.sub("", tail))))):
            numbers = self.logged_at.get(f"{found.group(1)}:{found.group(2)}", [])
            problems = {self.groups.get(self.errors[n].id, self.errors[n].id) for n in numbers}
            if len(problems) == 1:
                newest = max(numbers, key=lambda n: self.errors[n].newest)
                return self._one_per_problem([Match(error=self.errors[newest], values={}, start=0, frame=True)])
        return []

    @functools.cached_property
    def own_types(self) -> frozenset[str]:
        """The names of the exception types vLLM defines (those its errors raise that are not Python's)."""
        return frozenset(e.exception for e in self.errors if e.kind in ("raise", "assert", "response")) - set(BUILTIN_EXCEPTIONS)

    def foreign_info(self, source: str, reason: str, foreign_id: str, frames) -> dict:
        """What a result says of an error that is not vLLM's: its id, page and, for one that
        happened during vLLM's start-up, in which phase (read from the traceback's frames)."""
        info = {"source": source, "reason": reason, "id": foreign_id or None}
        error = self.foreign_by_id.get(foreign_id)
        if error is not None:
            info.update(title=error.title, summary=error.summary, steps=list(error.steps),
                        url=f"{self.site_url.rstrip('/')}/{foreign_path(error.id)}" if self.site_url else foreign_path(error.id))
            if foreign_id == UNMATCHED_ID or foreign_id == UNMATCHED_LINE_ID and reason != UNMATCHED_LINE_REASON:
                # told from this paste (which package, which type; which header, or that nothing
                # names vLLM): its page is general
                info["why"] = reason
            phase = phase_of(error, frames)
            if phase is not None:
                info["phase"], info["advice"] = phase
        return info

    def _problem_of(self, error: LookupError_) -> tuple[str, LookupError_]:
        """The key of the problem ``error`` belongs to (its lineage, its curated entry), and
        that problem's current error."""
        key = self.groups.get(error.id, error.id)
        return key, self.errors[self.number[key]] if key in self.number else error

    def _one_per_problem(self, ranked: list[Match]) -> list[Match]:
        """One result per problem: the best match of each, showing the problem's current error."""
        seen: set[str] = set()
        out: list[Match] = []
        for m in ranked:
            key, current = self._problem_of(m.error)
            if key in seen:
                continue
            seen.add(key)
            m.current = current
            if self.revisions and m.error.newest == len(self.revisions) - 1:
                m.current = m.error  # the pin raises what matched (one entry may hold several pin errors)
            m.also = [self.errors[n] for n in self.members.get(key, []) if self.errors[n].id != m.current.id]
            out.append(m)
        return out

    def releases_of(self, text: str, matches: list[Match]) -> dict | None:
        """Which of the index's releases the paste is consistent with, and why: a version
        string ("vLLM API server version 0.8.5"), the files of its traceback (a path only
        some releases have), and the wording of the message it shows. Evidence that would
        leave no release (a fork, a patched file) is passed over. None without evidence."""
        if not self.revisions:
            return None
        last = getattr(self, "_cleaned", None)
        cleaned = last[1] if last is not None and self._given is text else clean_paste(without_closing_words(text))
        everything = (1 << len(self.revisions)) - 1
        evidence: list[tuple[str, int]] = []
        version = None
        found = VERSION_STRING.search(cleaned)
        if found:
            version = next(g for g in found.groups() if g)
            mask = _release_of_version(version, self.revisions)
            if mask:
                evidence.append((f"the version string {version}", mask))
        paths = 0
        mask = everything
        for path, _ in traceback_frames(cleaned):  # IPython's frames too: their files are evidence
            relative = _vllm_relative(path)
            if relative is not None and relative in self.paths:
                mask &= self.paths[relative]
                paths += 1
        frames = []  # (vllm/... path, line) of the traceback's frames in vLLM, innermost last
        for found in FRAME.finditer(cleaned):
            relative = _vllm_relative(found.group(1))
            if relative is not None and relative in self.paths:
                frames.append((relative, int(found.group(2))))
        if paths:
            evidence.append((f"the files of its traceback ({paths} frame{'s' if paths > 1 else ''})", mask))
        top = next((m for m in matches if m.verdict == "exact"), None)
        raised = self._raise_line(top or (matches[0] if matches else None), frames)
        if raised is not None:
            evidence.append(raised)
        if top is not None:
            order = {r: n for n, r in enumerate(self.revisions)}
            versions = {v for e in (top.error, *top.worded_as) for v in e.versions}
            evidence.append(("the wording of its message", sum(1 << order[v] for v in versions if v in order)))
        if not evidence:
            return None
        combined, used = everything, []
        for reason, mask in evidence:
            if combined & mask:
                combined &= mask
                used.append(reason)
        releases = [r for n, r in enumerate(self.revisions) if combined >> n & 1]
        return {"releases": releases, "of": len(self.revisions), "last": self.revisions[-1], "version": version, "evidence": used}

    def _lines_of(self, id_: str) -> dict:
        """(path, line) → releases bitmask of an error's sites (a stored matcher's blob decoded once)."""
        at = self.raise_lines.get(id_, {})
        if isinstance(at, bytes):
            at = self.raise_lines[id_] = marshal.loads(at)
        return at

    def _raise_line(self, match: Match | None, frames: list[tuple[str, int]]) -> tuple[str, int] | None:
        """(reason, releases) from the traceback frame that is a raise site of the match's
        problem: the releases that raise one of its errors at that very line."""
        if match is None or not self.raise_lines:
            return None
        ids = [match.error.id, *((match.current.id,) if match.current else ()), *(a.id for a in match.also)]
        sites = [self._lines_of(id_) for id_ in ids]
        for path, line in reversed(frames):  # the innermost frame first: it is the raise
            mask = 0
            for at in sites:
                mask |= at.get((path, line), 0)
            if mask:
                return f"the line of its raise ({path}:{line})", mask
        return None

    def _verify(self, number: int, flat: str, origin: Origin, cleaned: str, last) -> Match | None:
        """The best in-order match of the entry's chunks, anchored on one of its first chunks."""
        entry = self.entries[number]
        best: Match | None = None
        skipped = 0
        for first in range(min(ANCHORS, len(entry.chunks))):
            anchor = entry.chunks[first]
            start = flat.find(anchor)
            tries = 0
            while start != -1 and tries < ANCHOR_TRIES:
                tries += 1
                found = self._walk(entry, first, start, skipped, flat, origin, cleaned, last)
                if found is not None and (_inside_type_name(cleaned, found.start, found.end)
                                          or _one_identifier(cleaned, found.start, found.end, found.error.template)
                                          or _inside_path(cleaned, found.start, found.error.template)):
                    found = None  # "not implemented" in "NotImplementedError: No operator found": a type name is no message
                if found is not None and (best is None or found.rank_key > best.rank_key):
                    best = found
                start = flat.find(anchor, start + 1)
            if best is not None:
                break
            skipped += len(anchor)  # the paste may begin after this chunk, or word it otherwise
        if best is None and entry.segment_of[0] == 0:
            best = (self._cut_in_opening(entry, flat, origin, cleaned, last)
                    or self._first_sentence_without_stop(entry, flat, origin, cleaned, last))
        if best is None and entry.literal >= LATER_LEAST + MIN_MATCHED:
            best = self._later_sentence(entry, flat, origin, cleaned, last)
        if best is None and entry.literal >= QUOTED_LEAST:
            best = self._quoted_part(entry, cleaned, last)
        if best is None and entry.literal >= HEAD_CUT_LEAST + MIN_MATCHED:
            best = self._head_cut_off(entry, flat, origin, cleaned, last)
        if best is None and len(entry.chunks) > 1 and not entry.segment_of[1]:
            best = self._opening_reworded(entry, flat, origin, cleaned, last)
        return best

    def _opening_reworded(self, entry: Entry, flat: str, origin: Origin, cleaned: str, last) -> Match | None:
        """The message's type, then its first words with a word left out, added or changed
        ("ValueError: trace_decode_token_ids not supported with prompt_logprobs." for "... is not
        supported ..."), then the rest of it: the words between the type and the second chunk
        differ from the first chunk by a few characters (REWORDED_SHARE of it at most); the
        walk from the second chunk counts those as missing, so the match is partial."""
        head = entry.exception + ":"
        chunk = entry.chunks[0]
        at = flat.find(head)
        while at != -1:
            begin = at + len(head)
            if not (at > 0 and (_ascii_alnum(flat[at - 1]) or flat[at - 1] == "_")):  # the whole name
                start = flat.find(entry.chunks[1], begin, begin + len(chunk) + WINDOW + len(entry.chunks[1]))
                if start > begin:
                    changed = _edit_distance(flat[begin:start], chunk, int(len(chunk) * REWORDED_SHARE))
                    if changed <= len(chunk) * REWORDED_SHARE:
                        found = self._walk(entry, 1, start, changed, flat, origin, cleaned, last, lead_before=False)
                        if found is not None and found.matched >= MIN_MATCHED:
                            found.matched += len(chunk) - changed
                            # words of its own, not vLLM's: partial, however few (as a near match)
                            found.missing = max(found.missing, _partial_missing(found.matched))
                            found.coverage = found.matched / entry.literal
                            found.start = origin[begin]
                            found.exception_agrees = True
                            return found
            at = flat.find(head, at + 1)
        return None

    def _head_cut_off(self, entry: Entry, flat: str, origin: Origin, cleaned: str, last) -> Match | None:
        """The paste's line begins inside the message, its opening cut off by a narrow log viewer,
        a screenshot or a quote that starts mid-way ("...exceeds available Mamba cache blocks (95)",
        "uantized MoE backend ..."): the walk from the first of its chunks found whole where a line
        begins (after blanks, quote marks, an exception's type or an ellipsis, and the end of the
        words before the chunk, cut anywhere), showing HEAD_CUT_LEAST squashed characters or more,
        is a partial match; the opening it leaves out counts as missing."""
        chunks, owners = entry.chunks, entry.segment_of
        before = len(chunks[0])  # squashed literal characters before the chunk
        own = ""  # its segment's words before it
        for first in range(1, len(chunks)):
            chunk = chunks[first]
            own = own + chunks[first - 1] if owners[first - 1] == owners[first] else ""
            at = flat.find(chunk)
            tries = 0
            while at != -1 and tries < ANCHOR_TRIES:
                tries += 1
                shown = _cut_head_shown(cleaned, origin[at], own)
                if shown is not None:
                    # (the words shown before the chunk count as found once: not again as a changed chunk's)
                    found = self._walk(entry, first, at, 0, flat, origin, cleaned, last, lead_before=False, credit=shown)
                    if found is not None and found.matched >= HEAD_CUT_LEAST:
                        found.missing += before - shown
                        return found
                at = flat.find(chunk, at + 1)
            before += len(chunk)
        return None

    def _quoted_part(self, entry: Entry, cleaned: str, last) -> Match | None:
        """The paste quotes words from inside the message, in double quotes or backticks, whole
        between them ('Change "following fields were present in the request but ignored" log
        from warn to debug'): a long run of one of its literal segments (QUOTED_LEAST squashed
        characters or more) is a partial match; the rest of the message counts as missing."""
        if self._quoted is None:
            self._quoted = [(found.start(1), found.end(1), squash_text(found.group(1))) for found in QUOTED_PART.finditer(cleaned)]
            self._quoted = [part for part in self._quoted if len(part[2]) >= QUOTED_LEAST]
        best: Match | None = None
        for start, end, part in self._quoted:
            for segment in range(len(entry.holes) + 1):
                if part in "".join(c for c, owner in zip(entry.chunks, entry.segment_of) if owner == segment):
                    if best is None or len(part) > best.matched:
                        in_last = last is not None and start >= last[0]
                        best = Match(error=self.errors[entry.error], values={}, start=start, end=end, matched=len(part),
                                     # partial: the words it leaves out, and never fewer than a near match lacks
                                     missing=max(entry.literal - len(part), _partial_missing(len(part))),
                                     coverage=len(part) / entry.literal,
                                     exception_agrees=in_last and last[1].lower() == entry.exception, in_last=in_last,
                                     form=entry.form)
                    break
        return best

    def _later_sentence(self, entry: Entry, flat: str, origin: Origin, cleaned: str, last) -> Match | None:
        """The paste quotes a later sentence of the message, on a line of its own (or after the
        exception's type), and leaves out the words that open it: people quote the sentence that
        tells them what to do ("You can use float16 instead by explicitly setting the `dtype`
        flag ...", "Smaller values produce incorrect output. Use ..."). Only a long run of the
        message's literal words counts, found whole from the sentence's start to the next
        value or the message's end (or to where the paste's line stops); the opening it leaves
        out counts as missing: a partial match."""
        best: Match | None = None
        before = 0  # squashed literal characters of the message before the segment
        for segment in range(len(entry.holes) + 1):
            text = "".join(c for c, owner in zip(entry.chunks, entry.segment_of) if owner == segment)
            for j in range(1, len(text) - LATER_LEAST + 1):
                if not (text[j - 1] == "." and text[j].isalpha()
                        and (j >= 2 and _ends_a_sentence(text[j - 2]) or j == 1 and segment > 0)):
                    continue
                run = text[j:]
                at = flat.find(run[:LATER_LEAST])
                while at != -1:
                    common = _common_prefix(flat, at, run)
                    line_start = cleaned.rfind("\n", 0, origin[at]) + 1
                    lead = cleaned[line_start : origin[at]]
                    if ((common == len(run) or _at_line_end(cleaned, origin[at + common - 1] + 1))
                            and (not squash_text(lead).strip(">*-") or EXCEPTION_PREFIX.match(lead))
                            and (best is None or common > best.matched)):
                        in_last = last is not None and origin[at] >= last[0]
                        best = Match(error=self.errors[entry.error], values={}, start=origin[at], end=origin[at + common - 1] + 1,
                                     matched=common, missing=before + j, coverage=common / entry.literal,
                                     exception_agrees=in_last and last[1].lower() == entry.exception, in_last=in_last,
                                     form=entry.form)
                    at = flat.find(run[:LATER_LEAST], at + 1)
            before += len(text)
        return best

    def _first_sentence_without_stop(self, entry: Entry, flat: str, origin: Origin, cleaned: str, last) -> Match | None:
        """The paste quotes the message's first sentence after its type (or an issue title's tag)
        and leaves out the sentence's full stop ("AsyncEngineDeadError: Task finished
        unexpectedly", an issue title), where that sentence is the message's whole first chunk:
        without its stop, the chunk is no anchor. As an issue title that quotes a first sentence
        (``_walk``): its own words may follow, vLLM's later words may not."""
        chunk = entry.chunks[0]
        # (a message of one chunk ends at its stop, after a number too: "... requires n=1.")
        whole = len(entry.chunks) == 1 and chunk[-1:] == "."
        if not (whole or _sentence_ends(chunk, len(chunk) - 1)) or len(chunk) - 1 < MIN_MATCHED:
            return None
        head = entry.exception + ":" + chunk[:-1]
        at = flat.find(head)
        typed = not (at == -1 or at > 0 and (_ascii_alnum(flat[at - 1]) or flat[at - 1] == "_"))  # not the end of another type's name
        if typed:
            begin, end = at + len(entry.exception) + 1, at + len(head)
        else:
            # ... or after an issue title's tag, which stands for the type ("[Bug]: Task finished unexpectedly")
            begin = flat.find(chunk[:-1])
            if begin == -1:
                return None
            line_start = cleaned.rfind("\n", 0, origin[begin]) + 1
            end = begin + len(chunk) - 1
            # ... or, for a whole message as long as an unnamed sentence needs, a line of its own
            # ("store_full_fp8 requires store_full_kv" quoted on a line, without its stop)
            alone = (whole and len(chunk) - 1 >= UNNAMED_LEAST and not cleaned[line_start : origin[begin]].strip()
                     and _at_line_end(cleaned, origin[end - 1] + 1))
            if not (alone or ISSUE_TAG.match(cleaned, line_start, origin[begin])):
                return None
        after = origin[end - 1] + 1
        if (after < len(cleaned) and _ascii_alnum(cleaned[after])  # "unexpectedlyfoo": the paste's word goes on
                or _later_words_follow(flat, origin, cleaned, end, entry.chunks[1:], False)):
            return None
        return Match(error=self.errors[entry.error], values={}, start=origin[begin], end=after,
                     matched=end - begin, coverage=(end - begin) / entry.literal, exception_agrees=typed,
                     in_last=last is not None and origin[begin] >= last[0], form=entry.form)

    def _cut_in_opening(self, entry: Entry, flat: str, origin: Origin, cleaned: str, last) -> Match | None:
        """The paste stops inside the message's first words, right after its type and inside a
        word ("RuntimeError: Engine proce"): a cut too short for an anchor, told by its type."""
        head = entry.exception + ":"
        at = flat.rfind(head)
        if at == -1 or at > 0 and (_ascii_alnum(flat[at - 1]) or flat[at - 1] == "_"):
            return None  # no type, or the end of another type's name ("asyncenginedeaderror:")
        begin = at + len(head)
        shown = flat[begin:]
        if not (ELLIPSIS_LEAST <= len(shown) < len(entry.chunks[0]) and entry.chunks[0].startswith(shown)
                and _cut_inside_word(cleaned, self.errors[entry.error].template)):
            return None
        return Match(error=self.errors[entry.error], values={}, start=origin[begin], end=origin[len(flat) - 1] + 1,
                     matched=len(shown), coverage=len(shown) / entry.literal, exception_agrees=True,
                     in_last=last is not None and origin[begin] >= last[0], form=entry.form)

    def _walk(self, entry: Entry, first: int, start: int, skipped: int, flat: str, origin: Origin, cleaned: str, last,
              lead_before: bool = True, credit: int = 0) -> Match | None:
        chunks, owners = entry.chunks, entry.segment_of
        if first == 0 and not owners[0] and _ascii_alnum(chunks[0][0]) and _in_a_name(cleaned, origin[start]):
            return None  # its first word inside another's name: "self.packed_modules_mapping" holds no "Module '...'"
        matched = len(chunks[first]) + credit  # (credit: the words before it shown, _head_cut_off)
        missing = skipped
        truncated = open_value = value_to_line_end = False
        bounds: list[tuple[int, int] | None] = [None] * len(chunks)
        bounds[first] = (start, start + len(chunks[first]))
        pos = start + len(chunks[first])
        reworded = False  # a chunk found with a small word inserted into it, or one left out: never exact
        # A word left out only in a message long enough to be told by the rest ("Mooncake not
        # available" is another program's words, not "Mooncake is not available" reworded).
        words_left_out = entry.literal >= LEFT_OUT_LEAST
        # The chunk before the anchor with a word changed ("libcudart.so is not loaded" for
        # "libcudart is not loaded"): its start and its end around the change, right before the
        # anchor, count as found, as a chunk's do inside the walk; the chunk is still missing.
        if first and owners[first - 1] == owners[first] and lead_before:
            lead = _chunk_ends_at(flat, start, chunks[first - 1]) or _chunk_with_small_word_before(flat, start, chunks[first - 1])
            left_out = (_word_left_out(flat, start, self._words_of(entry)[first - 1], before=True)
                        if lead is None and words_left_out else None)
            if lead is not None:
                bounds[first - 1] = (lead[0], start)
                matched += lead[1]
                if lead[1] == len(chunks[first - 1]) and _small_word_inserted(flat, lead[0], start, chunks[first - 1]):
                    # ... every character of it, a small word among them ("NixlConnectorScheduler
                    # expects the NixlHandshakePayload ..."): found, as a chunk after the anchor
                    # would be, yet not vLLM's words: partial (below)
                    missing -= len(chunks[first - 1]) - (start - lead[0] - len(chunks[first - 1])) // 2
                    reworded = True
                start = lead[0]
            elif left_out is not None:
                # ... or with one of its words left out, right before the anchor ("Indexer or
                # required for sparse MLA"): the rest of it is the paste's words; partial (below)
                shown = len(chunks[first - 1]) - left_out
                bounds[first - 1] = (start - shown, start)
                matched += shown
                missing -= shown
                start -= shown
                reworded = True
        elif first == 1 and owners[0] != owners[1]:
            # ... or the message's opening words before its first value, their last words left
            # out ("NVFP4 weight_scale for 'x' was never loaded" for "NVFP4 weight_scale for layer
            # {name} was never loaded"): their start, ending a word of the paste on the value's
            # line, counts as found; what they lack stays missing, so the match is partial
            lead = _opening_before_a_value(flat, start, chunks[0], origin, cleaned, self.errors[entry.error].template)
            if lead is not None:
                bounds[0] = (lead[0], lead[0] + lead[1])
                matched += lead[1]
                missing -= lead[1]
                start = lead[0]
        slack = 0  # how far a chunk may be from where it is expected (after missing ones)
        value_before = False  # a hole's value lies before pos: the chunk after it was not found
        run_missing = 0  # what the chunks not found since the last one found count as missing
        run_start = 0  # ... and where the paste's text after that one begins
        name_start = start - len(entry.exception) - 1
        exception_beside = (flat[max(0, name_start) : start] == entry.exception + ":"
                            # the whole name: a log entry's level ("error") is not the end of
                            # another name ("RuntimeError: Error in ...")
                            and (name_start <= 0 or not _NAME_CHAR.match(cleaned, max(0, origin[name_start] - 1)))
                            # pydantic's words for a ValueError it caught, in a validation error
                            or entry.exception in PYDANTIC_VALUE_ERRORS and flat[max(0, start - 11) : start] == "valueerror,")
        # the message is named as one: its type beside it, or an issue title's tag where it opens
        # (where a message that opens with a value opens: "[Bug]: Foo has no vLLM implementation")
        opening = _opening(cleaned, origin[start]) if first == 0 and owners[0] else origin[start]
        tagged = first == 0 and bool(ISSUE_TAG.match(cleaned, cleaned.rfind("\n", 0, opening) + 1, opening))
        named = exception_beside or tagged
        # ... or, without them, a title's sentence that opens where a message may and goes on in the
        # paste's words without a stop of its own ("max_num_seqs (256) exceeds available Mamba cache
        # blocks (128) when serving Qwen3-Next"): only one as long as a nearly whole message names it
        # (a stop and a new sentence after it may be a paraphrase: partial at best). Where it opens
        # is read only then (_opens_unnamed): most walks never get that far.
        for i in range(first + 1, len(chunks)):
            chunk = chunks[i]
            hole = owners[i] != owners[i - 1] or value_before  # a value of any length may lie before it
            # An issue title, or a sentence that goes on ("... timed out on DGX Spark"), drops the
            # message's last full stop: the stop is no word of vLLM's, and is not missing; so does
            # a quote that stops at an earlier sentence's end, where its line ends ("... CUDA
            # graph capture cannot proceed" after an ellipsis).
            stop = 0
            for words in (chunk, chunk[:-1]) if len(chunk) > 1 and chunk[-1] == "." else (chunk,):
                if hole:
                    at = flat.find(words, pos)  # a hole lies before it: any value
                    if at != -1 and pos and FRAME_TAIL.search(cleaned, origin[pos - 1] + 1, origin[at]):
                        at = -1  # ... but a traceback's frame is no part of a message ("in <module>" is no "Module '...'"),
                        # nor is the rest of one whose path the message's start matched ("torch/nn/modules/module.py")
                    elif at != -1 and pos and matched < MIN_MATCHED and cleaned.count("\n", origin[pos - 1] + 1, origin[at]) > 1:
                        at = -1  # a few words, then a value over lines (not one wrapped): later words there are another text's
                        # ("Engine protocol predict request returned 400:\n{...}\nAutomatic parser generation failed:")
                elif flat.startswith(words, pos):
                    at = pos
                else:
                    at = flat.find(words, pos, pos + slack + WINDOW + len(words))
                if at != -1 and words is not chunk and _word_goes_on(cleaned, origin[at + len(words) - 1] + 1, words):
                    at = -1  # "timed outside" is no "timed out." without its stop
                if at != -1 and words is not chunk and i < len(chunks) - 1 and not _at_line_end(cleaned, origin[at + len(words) - 1] + 1):
                    at = -1  # a sentence before the message's last, without its stop, only where the line ends
                if at != -1:
                    stop = len(chunk) - len(words)
                    break
            if at != -1:
                if run_missing and _elided_between(cleaned, origin[run_start - 1] + 1 if run_start else 0, origin[at]):
                    missing -= run_missing  # the user's "..." stands for the words left out: "does not support... set --ubatch-size to 0."
                elif not hole:
                    missing += (at - pos) // 2  # words inserted into the message
                run_missing = 0
                bounds[i] = (at, at + len(chunk) - stop)
                matched += len(chunk)
                pos = at + len(chunk) - stop
                slack, value_before = 0, False
                continue
            left_out = None if hole or not words_left_out else _word_left_out(flat, pos, self._words_of(entry)[i],
                                                         chunks[i + 1] if i + 1 < len(chunks) and owners[i + 1] == owners[i] else None)
            if left_out is not None:
                # One word of the chunk left out, the rest of it where expected ("sampling distribution
                # replay Model Runner V2" without "requires"): the message, near enough to outrank
                # others alike, yet not vLLM's words: partial (below)
                shown = len(chunk) - left_out
                if run_missing and _elided_between(cleaned, origin[run_start - 1] + 1 if run_start else 0, origin[pos]):
                    missing -= run_missing
                matched += shown
                missing += left_out
                bounds[i] = (pos, pos + shown)
                pos += shown
                slack, value_before, run_missing = 0, False, 0
                reworded = True
                continue
            # A word of the chunk changed, left out or added ("exceeds the available Mamba"): its
            # start where expected (after a hole: its longest start found later) and its end a
            # little after that are found, so the template may still match; but the chunk is
            # not the paste's words, and counts as missing: the score says "partial".
            anchor = pos if not hole else _longest_start(flat, pos, chunk)
            got, until, ended = 0, pos, False
            if anchor != -1 and not (anchor > pos and FRAME_TAIL.search(cleaned, origin[pos - 1] + 1 if pos else 0, origin[anchor])):
                got, until, ended = _chunk_in_part(flat, anchor, chunk, anchor + (slack if anchor == pos else 0) + WINDOW + len(chunk))
            if ended:
                matched += got
                after = run_start if run_missing else pos  # the paste's text after the last chunk found whole
                if _elided_between(cleaned, origin[after - 1] + 1 if after else 0, origin[until - 1]):
                    missing -= run_missing  # "is not... with prompt_logprobs.": the "..." stands for the chunk's middle (and chunks before it)
                elif got == len(chunk) and not hole and _small_word_inserted(flat, anchor, until, chunk):
                    # every character of the chunk, a small word among them ("must be divisible by the
                    # num_key_value_heads"): the message near enough to outrank others alike, yet not
                    # vLLM's words, so partial (below); not a name or a qualifier inserted ("does not
                    # support w4a4 nvfp4 quantization" is another program's message)
                    missing += (until - anchor - len(chunk)) // 2
                    reworded = True
                else:
                    missing += len(chunk)
                bounds[i] = (anchor, until)
                pos = until
                slack, value_before, run_missing = 0, False, 0
                continue
            rest = len(flat) - pos
            # Does the paste (or its line) stop here, inside this chunk or in the hole
            # before it, with nothing more of the message after? Then only the first
            # part was pasted, or the user's release had a shorter message.
            common = _common_prefix(flat, pos, chunk)
            if hole and common and pos + common < len(flat) and not _at_line_end(cleaned, origin[pos + common - 1] + 1):
                common = 0  # a value that only begins like the words after it, and goes on: "... of size
                # torch.Size([3096576, 1])" is no "... of size {x}to a parameter" cut after its "to"
            # After a hole the paste may stop anywhere: the value can be any length.
            at_end = (
                hole
                or rest <= TAIL
                or _at_line_end(cleaned, origin[pos + common - 1] + 1 if pos + common else 0)
            )
            if (not hole and _sentence_ends(chunk, common) and matched + common >= MIN_MATCHED
                    and (named or matched + common >= UNNAMED_LEAST
                         and (chunk[common - 1] != "." or _new_sentence_follows(cleaned, origin[pos + common - 1] + 1))
                         and _opens_unnamed(cleaned, origin[start], first, owners[0])
                         and matched + common >= _unnamed_least(self._as_typed, cleaned, origin[start], owners[0], origin[pos + common - 1] + 1))
                    and not _word_goes_on(cleaned, origin[pos + common - 1] + 1, chunk[:common])
                    and not _later_words_follow(flat, origin, cleaned, pos, chunks[i + 1 :], hole)):
                # An issue title quotes the message, with its type, up to the end of a sentence and
                # goes on in its own words ("ValueError: No available memory for the cache blocks on
                # main"): the rest of the message was cut there, not reworded. Its stop counts for
                # nothing: a message that ends there ("Engine process failed to start") shows as much.
                matched += common - (chunk[common - 1] == ".")
                bounds[i] = (pos, pos + common)
                truncated = True
                # ... but without them, a sentence of vLLM's that stops and another's after it may
                # be a paraphrase that shares its first sentence: near (partial) at best
                reworded = reworded or not named and chunk[common - 1] == "."
                break
            shut = (_closers_then_stop(chunk) or _words_then_stop(chunk)) if hole else 0
            at = flat.find(chunk[:shut], pos) if shut else -1
            if at != -1 and matched + shut >= MIN_MATCHED and (
                    named or matched + shut >= UNNAMED_LEAST and _opens_unnamed(cleaned, origin[start], first, owners[0])
                    and matched + shut >= _unnamed_least(self._as_typed, cleaned, origin[start], owners[0], origin[at + shut - 1] + 1)):
                # ... or a sentence that ends with a value in brackets ("... Mamba cache blocks (128)
                # when serving Qwen3-Next"), or with words after a value ("... context length is
                # 131072 tokens on my GPUs"): the value ends there, on the same line
                if ("\n" not in cleaned[origin[pos - 1] + 1 : origin[at]]
                        and (named or flat[at + shut : at + shut + 1] != "." and not _at_line_end(cleaned, origin[at + shut - 1] + 1))
                        and not _word_goes_on(cleaned, origin[at + shut - 1] + 1, chunk[:shut])
                        and not _later_words_follow(flat, origin, cleaned, pos, chunks[i + 1 :], hole)):
                    matched += shut
                    bounds[i] = (at, at + shut + (flat[at + shut : at + shut + 1] == "."))
                    truncated = True
                    break
            if hole and chunk[:1] == "." and matched >= MIN_MATCHED and named and not value_before:
                # ... or with a quoted value ("Unknown attention backend: 'ASCEND' on 910B"): the
                # value closes on its line, where the sentence's stop would be, and words follow
                value_end = _quoted_value_end(cleaned, origin[pos - 1] + 1)
                shown = squash_text(cleaned[origin[pos - 1] + 1 : value_end]) if value_end is not None else None
                if shown is not None and flat.startswith(shown, pos):
                    bounds[i] = (pos + len(shown), pos + len(shown))
                    truncated = True
                    break
            if at_end and not _later_words_follow(flat, origin, cleaned, pos, chunks[i + 1 :], hole):
                at_paste_end = _longest_prefix_at_end(flat[pos:], chunk) if rest <= TAIL else 0
                if at_paste_end and not chunk[:at_paste_end].strip("."):
                    at_paste_end = 0  # a full stop the paste ends with ends its own sentence: no start of vLLM's words
                overlap = max(common, at_paste_end)
                matched += overlap
                if overlap:
                    bounds[i] = (pos, pos + overlap) if overlap == common else (len(flat) - overlap, len(flat))
                if overlap > common and not hole and bounds[i - 1] is not None:
                    # the chunk's start found at the paste's end, right after other words than
                    # the chunk before it: words inserted into the message ("suffix is not
                    # currently supported" is not "suffix is not supported with ..." cut short)
                    missing += (len(flat) - overlap - pos) // 2
                truncated = True
                # Cut short only where the paste (or its line) stops: after a hole (the value
                # runs on), at a line's end, or at the paste's end. Anything else on the line
                # is other words than vLLM's: what the paste leaves out counts as missing.
                # A quoted value that closes with other words after it on its line was no cut:
                # the paste goes on in other words ("set the environment variable `RAY_X` to zero").
                closed = hole and _closed_value_goes_on(cleaned, origin[pos - 1] + 1 if pos else 0)
                after_hole = (hole and not closed and not _diverges(flat, origin, cleaned, pos, chunk)
                              and not (_value_ends_a_sentence(cleaned, origin[pos - 1] + 1 if pos else 0)
                                       and not any(c in chunk for chunk in chunks[i:] for c in ".!?"))
                              # (a line that begins inside the message opens where its words shown begin: _head_cut_off's credit)
                              and not (_mid_sentence(cleaned, origin[start - credit] if credit else
                                                     _opening(cleaned, origin[start]) if first == 0 and owners[0] else origin[start])
                                       and not (first == 0 and _capital_opens(cleaned, origin[start], self.errors[entry.error].template))))
                open_value = after_hole and overlap == 0
                # ... and, open or ending a sentence where vLLM's would go on ("Worker failed with error
                # 'Some layers are not assigned to any group.'"), the value that the match ends with
                value_to_line_end = hole and not closed and overlap == 0
                cut = not closed and (
                    after_hole
                    or pos + overlap >= len(flat) or at_paste_end == overlap > 0
                    or _message_ends(cleaned, origin[pos + overlap - 1] + 1 if pos + overlap else 0, value_next=hole))
                if not cut:
                    missing += sum(len(c) for c in chunks[i:]) - overlap
                break
            if got:  # its start only, and the paste goes on: the chunk's last words differ
                run_start = run_start if run_missing else pos
                matched, missing, pos, slack = matched + got, missing + len(chunk), until, len(chunk) - got
                run_missing += len(chunk)
                bounds[i] = (anchor, until)
                value_before = False
                continue
            run_start = run_start if run_missing else pos
            missing += len(chunk)
            run_missing += len(chunk)
            slack += len(chunk)
            # the value before a chunk that was not found has no known end: the next chunk may
            # be any way on, and what lies between is the value, not words added to the message
            value_before = hole
        begin = start
        if matched < min(entry.literal, MIN_MATCHED) and not (exception_beside and matched >= ELLIPSIS_LEAST and (
                # "ValueError: Fused module 'language_model...gate_up_proj' ...": the user cut the
                # message inside its first value, after the words that open it, and says so
                open_value and USER_CUT.match(cleaned, origin[begin])
                # ... or the paste stops in the message, whose type is named in vLLM's package
                # ("vllm.exceptions.VLLMValidationError: top_p must be in (0,"), or stops inside one
                # of its words ("ValueError: The decoder prompt (lengt"): a cut, not a message of its own
                or truncated and max(b[1] for b in bounds if b is not None) >= len(flat)
                and (VLLM_QUALIFIED.search(cleaned, cleaned.rfind("\n", 0, origin[begin]) + 1, origin[begin])
                     or _cut_inside_word(cleaned, self.errors[entry.error].template))
                # ... or the paste ends after the words that open the message, whole, with its type
                # before them, at the message's first value or a full stop ("ValueError: Too large
                # swap space.", "ValueError: Unsupported task: 'score'"): a quote cut there
                or truncated and first == 0 and not owners[0] and entry.holes
                and sum(len(c) for c, o in zip(chunks, owners) if o == 0) >= OPENING_LEAST
                and all(b is not None and b[1] - b[0] == len(c) for b, c, o in zip(bounds, chunks, owners) if o == 0)
                and (open_value and _one_value_to_line_end(cleaned, origin[max(b[1] for b in bounds if b is not None) - 1] + 1)
                     or max(b[1] for b in bounds if b is not None) >= len(flat)))):
            return None
        if entry.literal < MIN_LITERAL and not exception_beside:
            # a short message alone is only trusted as a whole line of the paste
            line_start = cleaned.rfind("\n", 0, origin[begin]) + 1
            line_end = cleaned.find("\n", origin[begin])
            line_end = line_end if line_end != -1 else len(cleaned)
            if entry.holes and owners[0] == 0 and owners[-1] == len(entry.holes):
                # with values inside it ("Casting torch.bfloat16 to torch.float16."): all of it, the
                # line from its first word to its last (a message that opens or closes with a value
                # could be any line holding its few words)
                line = squash_text(cleaned[line_start:line_end])
                starts = (_in_order(line, chunks, owners) if first == 0 and line.startswith(chunks[0]) and line.endswith(chunks[-1])
                          and not squash_text(cleaned[line_start : origin[begin]]) else None)
                if starts is None:
                    return None
                bounds = [(begin + a, begin + a + len(c)) for a, c in zip(starts, chunks)]  # where the values are
            elif squashes_longer(cleaned, line_start, line_end, entry.literal):
                return None  # more on the line than the message (told without squashing a long line whole)
            elif squash_text(cleaned[line_start:line_end]) != "".join(chunks):
                return None
        if (matched < 2 * missing or (matched < entry.literal / 2 and not truncated)) and not (
                # ... but a message named as one (its type beside it, an issue's tag) whose opening
                # words are shown whole, then the paste's own: "AssertionError: Seed must be set
                # when using external launcher backend with vLLM (ms_swift not propagating seed)"
                named and first == 0 and _opening_run(bounds, chunks) >= LATER_LEAST
                # ... or whose first and last words are shown whole around other words, as much
                # shown as left out: a quote that leaves out or rewords the middle ("ImportError:
                # Please install bitsandbytes>=0.45.3 to use bitsandbytes quantizer." without "via
                # `pip install ...`") is a near match (partial), not another program's message
                or named and first == 0 and not truncated and matched >= missing and len(chunks) > 2
                and _opening_run(bounds, chunks) > 0 and bounds[-1] is not None and bounds[-1][1] - bounds[-1][0] == len(chunks[-1])):
            return None
        in_last = last is not None and origin[begin] >= last[0]
        end = max(b[1] for b in bounds if b is not None)
        if not entry.holes and not missing and entry.literal < MIN_MATCHED and not _same_case(
                cleaned[origin[begin] : origin[end - 1] + 1], self.errors[entry.error].template):
            # a few words with other capitals are someone else's: "API error: Internal Server
            # Error" is an HTTP status phrase, not vLLM's "Internal server error"
            return None
        if (entry.literal < MIN_MATCHED and first == 0 and not exception_beside and not HOLE.match(self.errors[entry.error].template)
                and _mid_sentence(cleaned, origin[begin])):
            return None  # a few words that open vLLM's message, read mid-sentence: "hip runtime failed to load." is not "Failed to load {filename}"
        if (entry.literal < MIN_MATCHED and first == 0 and entry.segment_of[0] > 0 and _ascii_alnum(entry.chunks[0][0])
                and _labelled_value(cleaned, origin[begin])):
            return None  # a few words after a value that another's words name: "rollout world_size: 1 is not divisible by infer_tp: 2" is no "{numerator} is not divisible by {denominator}"
        if (entry.literal < MIN_MATCHED and first == 0 and entry.segment_of[0] > 0 and (_ascii_alnum(entry.chunks[0][0]) or entry.chunks[0][0] == ":")
                and _typed_words_before(cleaned, origin[begin], entry.exception)):
            # ... or that another exception's words open: "ValueError: Tensor height 576 is not divisible by block_height 128" is
            # no AssertionError "{numerator} is not divisible by {denominator}", "litellm.BadRequestError: Invalid value for
            # 'function.description': expected a string, got null" no ValueError "{name}: expected {x}, got {y}"
            return None
        if first == 0 and not owners[0] and _labelled_in_exception(cleaned, origin[begin]):
            return None  # its words after an exception's type and another's name: "ValueError: QuantizeConfig: Unknown quantization method: `fp8`." is GPTQModel's
        if (first == 0 and not exception_beside and _capital_lowered(cleaned, origin[begin], self.errors[entry.error].template)
                and _mid_sentence(cleaned, origin[begin])):
            return None  # its capital word written small after another's words: "Previous response with id 'x' not found." is not "Response with id '{id}' not found."
        if (entry.literal < MIN_MATCHED and first == 0 and not exception_beside
                and _capital_lowered(cleaned, origin[begin], self.errors[entry.error].template)):
            return None  # a few words of vLLM's, its capital written small: "llama.cpp failed: failed to load model" is not "Failed to load {filename}"
        if (entry.literal < MIN_MATCHED and not truncated and owners[-1] == len(entry.holes)
                and _word_goes_on(cleaned, origin[end - 1] + 1, self.errors[entry.error].template)):
            return None  # a few words whose last the paste makes longer: "unexpected error" is not in "unexpected errors"
        if _word_glued_to_value(entry, bounds, origin, cleaned, entry.form or self.errors[entry.error].template):
            return None  # a word of vLLM's before a value that runs on in the paste: "Error Internal (...)" is no "Error in {name}: {e}"
        if first == 0 and owners[0] > 0 and chunks[0][:1] == ":" and _after_exception_type(cleaned, origin[begin] + 1):
            return None  # its opening value would be the paste's exception type: "AssertionError: Expected ..., got 5" is no "{label}: expected {typ}, got {val}"
        values, spans = self._values(entry, bounds, origin, cleaned, entry.form or self.errors[entry.error].template)
        if open_value:
            # the paste stops inside the value after the last words it shows ("Unsupported task:
            # 'score'"): that value, as far as it goes, fills its placeholder
            last_found = max(i for i, b in enumerate(bounds) if b is not None)
            owner = owners[last_found]
            if (owner < len(entry.holes) and (last_found + 1 == len(chunks) or owners[last_found + 1] != owner)
                    and bounds[last_found][1] - bounds[last_found][0] == len(chunks[last_found])):
                after = origin[bounds[last_found][1] - 1] + 1
                line_end = cleaned.find("\n", after)
                shown = cleaned[after : len(cleaned) if line_end == -1 else line_end].strip()
                if _closed_value(shown):  # a value cut by the paste's end ("blocks (12") is no value to fill a fix with
                    quote = split_template(entry.form or self.errors[entry.error].template)[0][owner].rstrip()[-1:]
                    if quote and shown[0] == quote:
                        shown = shown[1:-1]  # in the template's own quotes ("error '{result}'"): the value is inside them
                    values.setdefault(entry.holes[owner], shown[:MAX_VALUE_CHARS] + ELLIPSIS if len(shown) > MAX_VALUE_CHARS else shown)
        return Match(
            error=self.errors[entry.error],
            values=values,
            value_spans=spans,
            start=origin[begin],
            end=origin[end - 1] + 1,
            matched=matched,
            missing=max(missing, _partial_missing(matched)) if reworded else missing,
            coverage=matched / entry.literal,
            holes=_holes_shown(entry, bounds, truncated, open_value),
            open_value=open_value,
            value_to_line_end=value_to_line_end,
            exception_agrees=exception_beside or (in_last and last[1].lower() == entry.exception),
            in_last=in_last,
            tagged=tagged and not exception_beside,
            worded_alike=_worded_alike(cleaned[origin[begin] : origin[end - 1] + 1], self.errors[entry.error].template),
            form=entry.form,
        )

    def _as_typed(self) -> bool:
        """Whether the cleaning left the paste's words as they were given (it took no log prefix
        off; what a page made of its characters, such as curly quotes or Markdown's "**", counts
        as given): computed once per paste, and only when asked."""
        if self._typed is None:
            text, cleaned = self._cleaned
            self._typed = untypeset(text).split() == cleaned.split()
        return self._typed

    @staticmethod
    def _values(entry: Entry, bounds, origin: Origin, cleaned: str, template: str) -> tuple[dict[str, str], list[tuple[int, int]]]:
        """Each hole's value (the text between the chunks either side of it), and its span; and
        for the page only, with no span, the values a message opens or closes with."""
        values: dict[str, str] = {}
        spans: list[tuple[int, int]] = []
        last_of: dict[int, int] = {}
        first_of: dict[int, int] = {}
        for i, owner in enumerate(entry.segment_of):
            first_of.setdefault(owner, i)
            last_of[owner] = i
        count = len(entry.holes)
        # where the message starts, for the quote that closes it: at its first words found, or for
        # one that opens with a value, after the quote that opens it in a client's error body
        message_start = origin[_first_found(bounds)]
        if count and 0 not in last_of and 1 in first_of and bounds[first_of[1]] is not None:
            message_start = _quote_opening(cleaned, origin[bounds[first_of[1]][0]]) or message_start
        for h, name in enumerate(entry.holes):
            if h not in last_of or h + 1 not in first_of:
                continue  # the hole opens or closes the message: below
            left, right = bounds[last_of[h]], bounds[first_of[h + 1]]
            if left is None or right is None or right[0] < left[1]:
                continue
            a, b = left[1], right[0]
            text = cleaned[origin[a] : origin[b - 1] + 1].strip() if b > a else ""
            if b > a:
                spans.append((origin[a], origin[b - 1] + 1))
            if h == count - 1 and first_of[h + 1] == len(entry.chunks) - 1 and not any(c.isalnum() for c in entry.chunks[-1]):
                # the last value, before the message's closing stop or bracket: that is the line's
                # last one, when the value holds the same mark with no space ("got torch.float32.")
                after = origin[a - 1] + 1  # (past the words before it, as a value that closes the message)
                shown = cleaned[after : origin[b - 1] + 1].strip() if b > a else ""
                whole = _closing_value(cleaned, after, template, message_start)
                if shown and whole.startswith(shown) and not any(c.isspace() for c in whole[len(shown):]):
                    text = whole
            if len(text) > MAX_VALUE_CHARS:
                text = text[:MAX_VALUE_CHARS] + ELLIPSIS
            values.setdefault(name, text)
        if count and 0 not in last_of and 1 in first_of and bounds[first_of[1]] is not None:
            text = _opening_value(cleaned, origin[bounds[first_of[1]][0]], template)
            if text:
                values.setdefault(entry.holes[0], text[:MAX_VALUE_CHARS] + ELLIPSIS if len(text) > MAX_VALUE_CHARS else text)
        closing = bounds[last_of[count - 1]] if count and count not in first_of and count - 1 in last_of else None
        if closing is not None and closing[1] - closing[0] == len(entry.chunks[last_of[count - 1]]):  # (its words whole)
            text = _closing_value(cleaned, origin[closing[1] - 1] + 1, template, message_start)
            if text:
                values.setdefault(entry.holes[-1], text[:MAX_VALUE_CHARS] + ELLIPSIS if len(text) > MAX_VALUE_CHARS else text)
        return values, spans

    def _words_of(self, entry: Entry) -> list[list[str]]:
        """Each chunk's words (read from the template again: only a walk that misses a chunk asks)."""
        return _template_words(entry.form or self.errors[entry.error].template)

    def _may_raise_in(self, path: str, function: str) -> bool:
        """Whether some release raises or logs in ``function`` of ``path`` (``vllm/...``), or no
        release has the file (a file of a vLLM newer than those covered, or a fork's own: its
        functions say nothing)."""
        return (path not in self.paths or (path, function) in self.by_location
                or function in self.functions_before.get(path, ()))

    def _type_alone(self, results: dict[int, Match], cleaned: str) -> None:
        """A paste that is only the name of an exception type vLLM defines, bare or dotted, maybe
        after an issue title's tags ("vllm.engine.async_llm_engine.AsyncEngineDeadError"): the
        errors raised with that type, as partial matches (the newest release's first)."""
        found = TYPE_ALONE.match(cleaned.strip())
        if found is None or found.group(1) not in self._own_type_names:
            return
        for number, error in enumerate(self.errors):
            if error.kind in ("raise", "assert", "message") and error.exception.rsplit(".", 1)[-1] == found.group(1):
                results[number] = Match(error=error, values={}, start=found.start(1), end=found.end(1), in_last=True, frame=True,
                                        exception_agrees=True, type_only=True)

    @functools.cached_property
    def _own_type_names(self) -> frozenset[str]:
        return frozenset(name.rsplit(".", 1)[-1] for name in self.own_types)

    def _frame_bonus(self, results: dict[int, Match], frames, last, cleaned: str) -> None:
        """The innermost frame of the last traceback names the raising file and function."""
        at_the_end = False
        if frames and last is None:
            last = raise_at_the_end(cleaned)  # a paste cut after the raise's own line
            at_the_end = last is not None
        if not frames or last is None:
            return
        path, function = frames[-1]
        at = path.rfind("vllm/")
        if at == -1:
            return
        key = (path[at:], function)
        raising = [n for n in self.by_location.get(key, ()) if self.errors[n].exception.lower() == last[1].lower()]
        # a paste that stops at the raise, before its message: the frame names it when that
        # function raises one problem of that type
        one_problem = len({self.groups.get(self.errors[n].id, self.errors[n].id) for n in raising}) == 1
        for number in raising:
            error = self.errors[number]
            if number in results:
                results[number].frame = True
            elif not any(c.isalnum() for c in HOLE.sub("", error.template)):
                # a raise with no message (or a wholly computed one): the frame is all there is
                results[number] = Match(error=error, values={}, start=last[0], in_last=True, frame=True)
            else:
                # the paste stops inside the message ("RuntimeError: Engine process faile"):
                # the frame and the start of the message agree
                shown = "" if at_the_end else _cut_message(cleaned, last[0])  # a raise's code line is no message
                parts = split_template(error.template)[0]
                literals = [c for c in map(squash_text, parts) if c]
                start = squash_text(parts[0])
                if literals and _holds_in_order(shown, literals):
                    # the whole message behind words that another program put before it
                    # ("RuntimeError: [address=10.0.0.1:4, pid=432] NCCL error: ..."): a
                    # short message alone is trusted only as a whole line, but here the frame
                    # names its raise and every literal word of it follows
                    matched = sum(map(len, literals))
                    results[number] = Match(error=error, values={}, start=last[0], in_last=True, frame=True,
                                            exception_agrees=True, matched=matched, coverage=1.0)
                elif len(shown) >= CUT_MESSAGE_LEAST and start.startswith(shown):
                    results[number] = Match(error=error, values={}, start=last[0], in_last=True, frame=True,
                                            matched=len(shown), coverage=len(shown) / max(1, len(squash_text(HOLE.sub("", error.template)))))
                elif (common := _common_prefix(shown, 0, start)) >= REWORDED_LEAST:
                    # the message as another release worded it: it opens with this one's first
                    # words, then says others ("Failed to load the tokenizer. If you are using a
                    # LLaMA-based model, use ..."), and the frame names this raise: a partial match
                    results[number] = Match(error=error, values={}, start=last[0], in_last=True, frame=True,
                                            matched=common, missing=len(shown) - common,
                                            coverage=common / max(1, len(squash_text(HOLE.sub("", error.template)))))
                elif one_problem and not any(map(_ascii_alnum, shown)) and (at_the_end or not _type_alone(cleaned, last[0])):
                    # ... or at an exception line whose message shows no word yet ("RuntimeError: (",
                    # a message raised as a tuple and cut after its opening parenthesis); but not a
                    # type alone on its line ("AssertionError"): Python prints that for a raise or an
                    # assert with no message, and this one has words
                    results[number] = Match(error=error, values={}, start=last[0], in_last=True, frame=True)


# vLLM's words for a failure it reports, whose root cause lies above in the paste (also V0's
# "Worker X pid N died, exit code: -15": the worker printed its failure before it died; and
# "EngineCore failed to start." as a paste's last words: the engine logs it with the traceback
# below it, so what stands above it is a worker's failure that stopped the start)
REPORTS_ABOVE = re.compile(r"EngineCore failed to start\.$|See root cause above|See stack trace for the root cause|See stack trace above for root cause|See stack trace \(above\) for the root cause|died, exit code")
# A report whose value is the original error: that error is the answer, the report a wrapper
POINTS_TO_ITS_VALUE = re.compile(r"find the original error")  # also in the browser


# vLLM's log header of an error log: the file and line of the logging call
LOG_HEADER = re.compile(r"\b(?:ERROR|CRITICAL)\s+\d\d-\d\d\s+\d\d:\d\d:\d\d(?:\.\d+)?\s+\[?([\w.-]+\.py):(\d+)\]")
LOG_HEADER_TAIL = 200_000  # characters read from the paste's end (a log may be megabytes)
TRACEBACK_SHOWN = re.compile(r'Traceback \(most recent call last\)|File "[^"\n]+", line \d+')
NATIVE_BACKTRACE = re.compile(r"\.so(?:\.[\d.]+)?\(\+0x[0-9a-fA-F]+\)|\bframe #\d+: ")
# vLLM's log header at warning level or above, and the message after it (foreign.VLLM_LOG_LINE_REASON)
VLLM_LOG_LINE = re.compile(r"\b(?:WARNING|ERROR|CRITICAL)[ \t]+\d\d-\d\d[ \t]+\d\d:\d\d:\d\d(?:\.\d+)?[ \t]+\[?[\w.-]+\.py:\d+\][ \t]*([^\n]*)")
VLLM_LOG_LINE_HEAD = 40  # of the message's characters, found again in the cleaned paste: where the line is
# The paste's last line: a process's name, then a sentence with no log header (foreign.PROCESS_LINE_REASON)
PROCESS_LINE = re.compile(r"\((?:[\w.:-]+(?:=[\w.:-]+)?\s+)+pid=\d+(?:,\s*ip=[\w.:]+)?\)[ \t]+(?!(?:DEBUG|INFO|WARNING|ERROR|CRITICAL|Traceback)\b)"
                          r"([A-Z][a-z]*(?:[ \t]+[^\s(=:][^\n]*)?)[ \t]*$")

# Python's words, right after an exception, that it caused the next one (raise ... from, or an
# exception raised while handling it)
CHAINED = re.compile(r"\s*(?:The above exception was the direct cause of the following exception|During handling of the above exception, another exception occurred):")

# Words quoted on one line in double quotes (straight or curly) or backticks (_quoted_part)
QUOTED_PART = re.compile('["\u201c`]([^"\u201c\u201d`\n]+)["\u201d`]')

# A traceback frame's end ('File "x.py", line 3, in f' less the path): found also when a
# match starts inside the frame's path
FRAME_TAIL = re.compile(r'", line \d+, in [\w<>.]+')
CUT_MESSAGE_LEAST = 3  # squashed characters of a cut message that the raising frame must agree with
STOP_WORD_LEAST = 3  # letters before a full stop that end a sentence after a value ("tokens.")
REWORDED_LEAST = 20  # ... and of a message another release worded otherwise, its opening words

# A paste that stops at the innermost frame's own line, a raise ("raise NotImplementedError"),
# before Python printed the exception (or inside the type's name on the next line): the
# type is on that line. Read from the paste's end.
RAISE_AT_THE_END = re.compile(r'File "[^"\n]+", line \d+, in [\w<>.]+\n[ \t]*(?:raise ([A-Za-z_][\w.]*)|assert\b([^\n]*))[^\n]*(?:\n[ \t]*[\^~]+[ \t]*)?'
                              r'(?:\n([A-Za-z_][\w.]*))?\s*$')
RAISE_TAIL_CHARS = 600


def raise_at_the_end(cleaned: str) -> tuple[int, str] | None:
    """(where, type) of the raise line a paste ends with, under its traceback's last frame."""
    offset = max(0, len(cleaned) - RAISE_TAIL_CHARS)
    found = RAISE_AT_THE_END.search(cleaned, offset)
    if found is None:
        return None
    if found.group(1) is None:
        # an assert's line: only one with a message (a comma outside its brackets and quotes,
        # "assert n > 0, (" ): the catalog holds no assert without one, so another's message
        # in the same function would be taken for it ("assert isinstance(spec, AttentionSpec)")
        if not _assert_has_message(found.group(2)):
            return None
        type_, where = "AssertionError", found.start(2) - len("assert")
    else:
        type_, where = found.group(1).rsplit(".", 1)[-1], found.start(1) - len("raise ")
    # ... or a line after it that is the start of that type's name, cut ("vllm.v1.engine.exceptions.Engin")
    if found.group(3) is not None and not type_.startswith(found.group(3).rsplit(".", 1)[-1]):
        return None
    return where, type_


def _assert_has_message(condition: str) -> bool:
    """Whether an assert's code after ``assert`` has a comma outside brackets and quotes: a message follows."""
    depth, quote = 0, ""
    for i, char in enumerate(condition):
        if quote:
            if char == quote and condition[i - 1] != "\\":
                quote = ""
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            return True
    return False


# A paste that is only an exception type's name, bare or dotted from vllm, maybe quoted or after
# an issue title's tags ("[Bug]: vllm.engine.async_llm_engine.AsyncEngineDeadError")
TYPE_ALONE = re.compile(r"^(?:" + ISSUE_TAGS + r":?[ \t]*)?[`'\"]?(?:vllm(?:\.\w+)*\.)?([A-Z]\w*(?:Error|Exception))[`'\"]?[ \t.:]*$")

# Python logging's default header of another package's logger ("ERROR:lightrag:", "ERROR:root:"):
# the words that open its line are that program's own, but what it quotes after them may be
# vLLM's ("ERROR:app.asr:Failed to load Qwen3-ASR model: <vLLM's message>", a client's "OpenAI API
# call failed: Error code: 400 - {...}"), unlike a native library's line
PY_LOGGER_HEADER = r"(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):(?![Vv][Ll][Ll][Mm]\b)[A-Za-z_][\w.]*:"
PY_LOGGER_LINE = re.compile(r"[ \t]*" + PY_LOGGER_HEADER)

# The header of a line that another program logged: a native (C++) library, glog's "E0904
# 21:29:13.607991 31963 client.cpp:1112] ", c10's "[E1204 11:18:17.728425480 ProcessGroupNCCL.cpp:616] ",
# and Go's klog, the same header ("E1031 06:10:27.243634 1 zmq_client.go:214] "); or SGLang, whose
# header names its ranks ("[2025-10-28 09:42:18 TP0] ", "[... DP0 TP0 EP0] "): its messages read
# like vLLM's, whose code it borrowed (as LMCache's do, whose code vLLM borrowed)
# (its leading blanks taken whole, as an atomic group would, in a form JavaScript reads too: given
# back one at a time, each retried the alternatives that scan the line, quadratic on a line of blanks)
ANOTHERS_LOG_LINE = re.compile(r"(?=([ \t]*))\1(?:\[?[IWEF]\d{4} \d\d:\d\d:\d\d(?:\.\d+)?(?:[ \t]+\d+)?[ \t]+[\w./-]+\.(?:cc|cpp|cxx|c|h|hpp|cu|ts|go):\d+\]"
                               r"|\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d+)?(?: (?:TP|DP|PP|EP|CP)\d+)+\]"
                               # a Python logger's header that names its program before the level and a
                               # colon: LMCache's "[2025-06-16 14:29:56,882] LMCache ERROR: " (vLLM's
                               # header has no colon after its level, and a file after it); cleaning
                               # takes the time in brackets off, as it does before any line
                               r"|(?:\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d+)?\][ \t]+)?(?![Vv][Ll][Ll][Mm]\b)[A-Za-z][\w.-]*[ \t]+(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):[ \t]"
                               # Rust's tracing: "2025-05-30T00:35:01.153Z ERROR span: crate::module: "
                               # (Dynamo's frontend, goose; cleaning drops the time): a module path no
                               # Python logger writes
                               r"|(?:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z[ \t]+)?(?:ERROR|WARN|INFO|DEBUG|TRACE)[ \t]+(?:\w+(?:\{[^}\n]*\})?:[ \t]*)*?\w+(?:::\w+)+:[ \t]"
                               # Python logging's default format, "ERROR:lightrag:Failed to process ...":
                               # another package's logger (vLLM's own lines carry vLLM's header, or
                               # name a vllm logger in this format); see PY_LOGGER_HEADER
                               r"|" + PY_LOGGER_HEADER +
                               # Python's own warning of a file that is not vLLM's: warnings.warn prints
                               # "path:line: Category: message" (vLLM logs its warnings; its catalog
                               # holds no warnings.warn)
                               r"|(?![^\n]*vllm[/\\])[^\n]*?:\d+:[ \t]+(?:[\w.]+\.)?[A-Z]\w*Warning:[ \t]"
                               # Ray's logger: "2025-01-15 18:01:02,216\tWARNING services.py:2022 -- " (level
                               # before the file, " -- " after it); Gloo's "[Gloo] Rank 0 is connected to ..."
                               r"|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+[ \t]+(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)[ \t]+[\w.-]+\.py:\d+ -- "
                               r"|\[Gloo\][ \t])")


# A key of an HTTP error body ('{"detail": "...', "{'message': '...") or a client's "Error code:
# 500 - " before the body, then another message's words that wrap what follows ("Chat completion
# failed: 500: "), on the line before a match
RESPONSE_BODY = re.compile(r"""(?:["'](?:detail|message|error|msg)["'][ \t]*:[ \t]*["'{\[]|Error code: [1-5]\d\d - )[^\n]*?[A-Za-z]{2}: """)


def _in_a_response_body(cleaned: str, start: int) -> bool:
    """Whether a match starts inside an HTTP error body a client printed, after another
    message's words that wrap it: a server returned or raised that, not a line vLLM logs
    ('{"detail": "Internal server error: An unexpected error occurred."}' is no log "An
    unexpected error occurred"). A log line that opens the body's text may be vLLM's, relayed
    by a platform."""
    return RESPONSE_BODY.search(cleaned, cleaned.rfind("\n", 0, start) + 1, start) is not None


@functools.lru_cache(maxsize=1)  # three last-resort rules ask for the same paste's
def _as_given(text: str) -> str:
    """The paste's end as given, for reading log headers: without a terminal's colours, and a web
    page's no-break spaces as spaces, no Markdown code fence's line, and each line without what a
    container's log collector or a reply put before it (cleaning takes the headers off, so they
    are read here)."""
    given = WEB_SPACE.sub(" ", ANSI.sub("", text[-LOG_HEADER_TAIL:]))
    return "\n".join(without_outer_prefixes(line) for line in given.split("\n") if not CODE_FENCE.match(line))


def unmatched_vllm_log_line(text: str, cleaned: str) -> tuple[int, str, str, str, int] | None:
    """When nothing else told the paste: its last line with vLLM's log header at warning level or
    above (read from ``text``, the paste as given), whose words no release logs, placed in
    ``cleaned``; not under a traceback whose last frame is vLLM's (its line may be built at run time)."""
    found = None
    for found in VLLM_LOG_LINE.finditer(_as_given(text)):
        pass
    if found is None:
        return None
    message = found.group(1).strip()
    if len(MESSAGE_WORD.findall(message)) < LINE_WORDS:
        return None
    return _line_placed(message, cleaned, VLLM_LOG_LINE_SOURCE, VLLM_LOG_LINE_REASON)


def _line_placed(message: str, cleaned: str, source: str, reason: str) -> tuple[int, str, str, str, int] | None:
    """A line read from the paste as given, told as another program's, at its place in
    ``cleaned``; not under a traceback whose last frame is vLLM's (its line may be built at run time)."""
    frame = innermost_frame(cleaned, len(cleaned))
    if frame is not None and "vllm/" in frame.group(1).replace("\\", "/"):
        return None
    at = cleaned.rfind(message[:VLLM_LOG_LINE_HEAD])
    if at == -1:
        return None
    end = cleaned.find("\n", at)
    return len(cleaned) if end == -1 else end, source, reason, UNMATCHED_LINE_ID, at


def unmatched_process_line(text: str, cleaned: str) -> tuple[int, str, str, str, int] | None:
    """When nothing else told the paste: its last line (read from ``text``, the paste as given) is
    a sentence a library printed in one of vLLM's processes (``PROCESS_LINE``), placed in
    ``cleaned``; not under a traceback whose last frame is vLLM's."""
    lines = _as_given(text).rstrip().rsplit("\n", 1)
    found = PROCESS_LINE.search(lines[-1])
    if found is None:
        return None
    message = found.group(1).strip()
    if len(MESSAGE_WORD.findall(message)) < LINE_WORDS or EXCEPTION_LINE.match(message) or message.endswith(":"):
        return None  # a header of what follows ("Process EngineCore_DP0:") says nothing itself
    return _line_placed(message, cleaned, PROCESS_LINE_SOURCE, PROCESS_LINE_REASON)


def unmatched_anothers_line(text: str, cleaned: str) -> tuple[int, str, str, str, int] | None:
    """When nothing else told the paste: its last line (read from ``text``, the paste as given)
    opens with another program's log header (``ANOTHERS_LOG_LINE``: glog's, SGLang's, LMCache's,
    Rust's tracing, Ray's, Gloo's, a Python warning of another package's file): that program
    wrote it, whatever its words; placed in ``cleaned``; not under vLLM's frame."""
    line = _as_given(text).rstrip().rsplit("\n", 1)[-1]
    header = ANOTHERS_LOG_LINE.match(line)
    if header is None:
        return None
    message = line[header.end():].strip()
    if len(MESSAGE_WORD.findall(message)) < LINE_WORDS:
        return None
    return _line_placed(message, cleaned, ANOTHERS_LINE_SOURCE, ANOTHERS_LINE_REASON)


def _on_anothers_log_line(cleaned: str, start: int, exception: str | None = None) -> bool:
    """Whether ``start`` lies after the header of a line another program logged, but for the
    message of a Python exception ``exception`` that the program reports ("E0919 ...
    backend_model.cc:692] "ERROR: Failed to create instance: ValueError: Bfloat16 is only
    supported ...": Triton's vLLM backend shows the raise it caught)."""
    line_start = cleaned.rfind("\n", 0, start) + 1
    header = ANOTHERS_LOG_LINE.match(cleaned, line_start)
    if header is None or header.end() > start:
        return False
    if PY_LOGGER_LINE.match(cleaned, line_start) and cleaned[header.end():start].strip(" \t"):
        return False  # a Python logger's line quotes it after words of its own
    return exception is None or not cleaned[header.end():start].rstrip(" \t").endswith(exception + ":")


STOCK_PHRASE_WORDS = 4  # a message of no more words and no value is a stock phrase ("An unexpected error occurred")
SAYS_WHAT_AFTER = re.compile(r"[ \t]*:[ \t]+[A-Za-z]")  # also in the browser


def _goes_on_after_a_stock_phrase(cleaned: str, m) -> bool:
    """Whether ``m`` is one of vLLM's stock phrases that the paste's line goes on from with a
    colon and words of its own: "An unexpected error occurred: Failed to perform extraction: API
    error: 404" is another program's wording, not vLLM's log, which says that much and no more."""
    template = m.error.template
    if not template or HOLE.search(template) or len(ASCII_WORD.findall(template)) > STOCK_PHRASE_WORDS:
        return False
    return SAYS_WHAT_AFTER.match(cleaned, m.end) is not None


def _wrapped_by_it(m, cleaned: str, at: int) -> bool:
    """Whether vLLM's exception ``m``, shown whole with its type, is what the foreign error's
    line goes on to: another program re-raised it under a type of its own, the vLLM error's
    type and message after it ("torch._dynamo.exc.InternalTorchDynamoError: RuntimeError:
    Assigning / modifying buffers of nn.Module ..."): Dynamo wraps what the code it traced
    raised, so vLLM's message is the failure and the other program's error only carries it
    (its role "wrapper", not "cause"). A foreign match that takes only the vLLM error's own
    type (and a quote mark) with it ("ValueError: `rope_scaling` must be ...", transformers'
    check that vLLM once copied) wraps nothing: it is the same error, told as the other program's."""
    between = cleaned[at : m.start]
    return (m.score >= SURE and m.exception_agrees and m.error.kind != "log" and at < m.start
            and "\n" not in between and bool(TYPE_RIGHT_BEFORE.sub("", between.rstrip("`'\" \t")).strip()))


# what may stand around a wrapper's value and the message it holds: blanks, quotes, a full stop
VALUE_TRIM = " \t'\"`."


def _whole_value(cleaned: str, inner, a: int, b: int) -> bool:
    """Whether the text ``inner`` matched is all of the value ``cleaned[a:b]``, but for the blanks,
    quotes and full stops around them."""
    return cleaned[inner.start : inner.end].strip(VALUE_TRIM) == cleaned[a:b].strip(VALUE_TRIM)


def _quoted_whole(cleaned: str, inner, a: int, b: int) -> bool:
    """Whether the text ``inner`` matched, stripped, is inside ``cleaned[a:b]``."""
    quoted = cleaned[inner.start : inner.end].strip()
    return len(quoted) >= QUOTE_HEAD and quoted in cleaned[a:b]


def _holes_shown(entry: Entry, bounds: list[tuple[int, int] | None], truncated: bool, open_value: bool) -> int:
    """The template's holes up to where the paste stops showing it: all of them, or for a paste cut
    short those before its last words found, and the value it stops in. Holes after the cut tell
    two templates apart by nothing the paste shows ("Marlin does not support weight_bits = uint4b8"
    fits a message with one hole after it as well as one with five)."""
    if not truncated:
        return len(entry.holes)
    owner = entry.segment_of[max(i for i, b in enumerate(bounds) if b is not None)]
    return owner + (open_value and owner < len(entry.holes))


def _opening_run(bounds: list[tuple[int, int] | None], chunks: list[str]) -> int:
    """Squashed characters of the message's first chunks, each found whole, up to the first that is not."""
    run = 0
    for found, chunk in zip(bounds, chunks):
        if found is None or found[1] - found[0] != len(chunk):
            break
        run += len(chunk)
    return run


def _raised_type(error) -> str | None:
    """The exception an error raises, as Python names it in a report (its last dotted part);
    None for what vLLM logs or returns."""
    return error.exception.rsplit(".", 1)[-1] if error.kind in ("raise", "assert") else None


def _vllm_relative(path: str) -> str | None:
    """A frame's path from its ``vllm/`` on, or None when it is not in a vllm package."""
    path = path.replace("\\", "/")
    at = path.rfind("/vllm/")
    return path[at + 1 :] if at != -1 else path if path.startswith("vllm/") else None


def _holds_in_order(text: str, chunks: list[str]) -> bool:
    """Whether ``text`` holds each chunk, one after the other (other text around and between them)."""
    pos = 0
    for chunk in chunks:
        at = text.find(chunk, pos)
        if at == -1:
            return False
        pos = at + len(chunk)
    return True


def _type_alone(cleaned: str, position: int) -> bool:
    """Whether the exception line at ``position`` is its type alone, no colon after it."""
    end = cleaned.find("\n", position)
    return ":" not in cleaned[position : len(cleaned) if end == -1 else end]


def _cut_message(cleaned: str, position: int) -> str:
    """The squashed message of the ``SomeError: message`` line at ``position`` (after the type)."""
    end = cleaned.find("\n", position)
    line = cleaned[position : len(cleaned) if end == -1 else end]
    _, colon, message = line.partition(": ")
    return squash_text(message) if colon else ""


def _release_of_version(version: str, revisions: list[str]) -> int:
    """The bitmask of the release a version belongs to: itself when it is one of them, else
    the newest of them that is older (its code is what that one's became)."""
    def key(text: str) -> tuple[int, ...]:
        return tuple(int(p) for p in re.findall(r"\d+", text)[:3])

    wanted = key(version)
    best = None
    for number, revision in enumerate(revisions):
        if key(revision) <= wanted:
            best = number
    return 1 << best if best is not None else 0


def _closed_value(shown: str) -> bool:
    """Whether a value is whole as shown: quoted, or in brackets, that close ("'score'", "['a', 'b']")."""
    return len(shown) >= 2 and (shown[0] in "'\"`" and shown[-1] == shown[0] or shown[0] == "[" and shown[-1] == "]")


def _one_value_to_line_end(text: str, position: int) -> bool:
    """Whether what follows ``position`` on its line is one value, no words after it ("'score'",
    "MistralCommonPixtralProcessor"; not "['Qwen2'] failed to be inspected")."""
    end = text.find("\n", position)
    rest = text[position : len(text) if end == -1 else end].strip()
    return bool(rest) and not any(c.isspace() for c in rest)


# (an issue title's tags stand where the type would: "[Bug]: KV cache is needed, which is larger than ...")
HEAD_CUT_LEAD = re.compile(r"^[ \t>*\-\"'`]*(?:" + ISSUE_TAGS + r":?[ \t]*)?(?:(?:[\w.]+\.)?(?:\w+Error|\w*Exception|\w*Warning):[ \t]*)?(?:\.\.\.|\u2026)?[ \t]*")


def _cut_head_shown(cleaned: str, position: int, own: str) -> int | None:
    """Where a message's chunk starts at ``position``: how many squashed characters of the words
    before it (``own``, its segment's) the paste shows, cut anywhere, when all that lies before
    them on the line is blanks, quote marks, an exception's type or an ellipsis; None otherwise."""
    line_start = cleaned.rfind("\n", 0, position) + 1
    lead = cleaned[line_start:position]
    rest = squash_text(lead[HEAD_CUT_LEAD.match(lead).end():])
    if own.endswith(rest):
        return len(rest)
    return None


ELLIPSIS_MARK = re.compile(r"\.\.\.|\u2026")  # also in the browser


def _elided_between(cleaned: str, start: int, end: int) -> bool:
    """Whether the paste says, between ``start`` and ``end`` on one line, that it left words out
    there: an ellipsis ("Engram does not support... set --ubatch-size to 0."). The chunks of
    the message that it stands for are not missing, as words after a cut are not."""
    between = cleaned[start:end]
    return "\n" not in between and ELLIPSIS_MARK.search(between) is not None


def _at_line_end(text: str, position: int) -> bool:
    """Whether only blanks or a full stop lie between ``position`` and the end of its line."""
    end = text.find("\n", position)
    return not text[position : len(text) if end == -1 else end].strip(" \t.,;:")


# what ends a message quoted in JSON, a repr or a pydantic wrapper (quotes made typographic too)
CLOSERS = "'\"`)]}[\\\u2018\u2019\u201c\u201d\u300d\u300f"  # (and the corner brackets that close a CJK quote)
OPENING_QUOTES = "'\"`\u2018\u2019\u201c\u201d"  # ... a quote among them, unless a word follows it


DIVERGE = 2  # squashed characters of vLLM's next words that show the paste went on, and then said other words
VALUE_CLOSERS = ")]"  # ... or one, where it closes the value: "(8192) is smaller than" is not "(8192) exceeds"


def _diverges(flat: str, origin: Origin, cleaned: str, pos: int, chunk: str) -> bool:
    """After a hole: whether the paste goes on with the start of vLLM's next words and then
    other words on the same line (``... blocks (128). My server then ...``), rather than
    stopping inside the value (then the value may be any length)."""
    size = 1 if chunk[:1] and chunk[0] in VALUE_CLOSERS else DIVERGE
    if pos >= len(flat) or len(chunk) < size:
        return False
    line_end = cleaned.find("\n", origin[pos])
    line_end = len(cleaned) if line_end == -1 else line_end
    at = flat.find(chunk[:size], pos)
    while at != -1 and origin[at] < line_end:
        common = _common_prefix(flat, at, chunk)
        if (at + common < len(flat) and origin[at + common] < line_end
                and (not _message_ends(cleaned, origin[at + common - 1] + 1) or _own_stop(flat, at + common, chunk, common))
                and not (at == pos and _ascii_alnum(cleaned[origin[at + common - 1]])
                         and _ascii_alnum(cleaned[origin[at + common - 1] + 1]))
                and not (at > pos and _ascii_alnum(chunk[0]) and _ascii_alnum(cleaned[origin[at] - 1]))):
            # (but a word right where the value starts, sharing only its first letters, is the
            # value: "to" of "size torch.Size(...)" is no "size {x}to a parameter"; nor do vLLM's
            # next words start inside a word of the value: "on" of "MistralCommonPixtralProcessor"
            # is no "... {name} on data=")
            return True
        at = flat.find(chunk[:size], at + 1)
    return False


def _own_stop(flat: str, at: int, chunk: str, common: int) -> bool:
    """Whether the paste ends a sentence at ``at`` with one full stop where vLLM's words, whole
    up to there, go on otherwise: "... is only 8192 tokens." is not "... is only {n} tokens,
    resulting in ..." cut short (a user who cuts a message writes no stop of their own)."""
    return (flat[at] == "." and flat[at + 1 : at + 2] != "." and common < len(chunk) and chunk[common] != "."
            and chunk[common - 1].isalnum() and not chunk[common].isalnum())


def _later_words_follow(flat: str, origin: Origin, cleaned: str, pos: int, later: list[str], after_hole: bool) -> bool:
    """Whether vLLM's later words show up after ``pos``: then the paste went on with the message
    in other words, rather than stopping in it. After a hole, only on the value's own line: a
    value that runs on over several lines ("Worker failed with error 'CUDA error: ...") holds
    other text, in which a few of vLLM's later words may recur ("the stacktrace below").
    A chunk of punctuation alone is no words: the "." that ends vLLM's message is not the
    "..." a user cut it with."""
    later = [c for c in later if any(ch.isalnum() for ch in c)]
    if not after_hole or pos >= len(flat):
        return any(flat.find(c, pos) != -1 or _stop_left_out(flat, origin, cleaned, pos, c) != -1 for c in later)
    line_end = cleaned.find("\n", origin[pos])
    line_end = len(cleaned) if line_end == -1 else line_end
    return any((at := flat.find(c, pos)) != -1 and origin[at] < line_end
               or (at := _stop_left_out(flat, origin, cleaned, pos, c)) != -1 and origin[at] < line_end for c in later)


def _stop_left_out(flat: str, origin: Origin, cleaned: str, pos: int, chunk: str) -> int:
    """Where a chunk that ends a sentence is found after ``pos`` without its full stop, at the
    end of a line ("... CUDA graph capture cannot proceed" quoted without the "."), or -1."""
    if len(chunk) < 2 or chunk[-1] != ".":
        return -1
    at = flat.find(chunk[:-1], pos)
    return at if at != -1 and _at_line_end(cleaned, origin[at + len(chunk) - 2] + 1) else -1


OPEN_VALUE_LINES = 4  # lines a value left open (a quoted error of several lines) may run on


def _continues(cleaned: str, end: int, at: int) -> bool:
    """Whether ``at`` lies in the few lines after ``end`` that carry on the same message
    ("Worker failed with error 'CUDA error: ...", then CUDA's own further lines): no new
    traceback or exception starts in between."""
    between = cleaned[end:at]
    return between.count("\n") <= OPEN_VALUE_LINES and "Traceback (most recent call last)" not in between


def _is_warning(match: Match) -> bool:
    return match.error.kind == "log" and match.error.exception.upper() == "WARNING"


def _last_of_warnings(ranked: list[Match], cleaned: str) -> list[Match]:
    """Of the sure warnings a paste shows, the last comes first, not the one with the most words:
    a log of start-up warnings is cut where its writer's problem is, and the warnings before it
    are the server's usual chatter (round 55's Spyre log ends at "VLLM_CPU_KVCACHE_SPACE not
    set", after two longer warnings). Runs after _failure_before_warnings, so a failure the
    paste shows after a warning still comes first. A later warning counts only on a line of its
    own: one inside the first's line is its words ("... Reasons: NUMA binding requires spawn
    method" is not the warning "NUMA binding requires spawn method but got ...")."""
    if not ranked or not _is_warning(ranked[0]) or ranked[0].score < SURE:
        return ranked
    first = ranked[0]
    later = [m for m in ranked if m.start > first.end and "\n" in cleaned[first.end : m.start] and m.score >= SURE
             and not m.wrapper and _is_warning(m)]
    if not later:
        return ranked
    last = max(later, key=lambda m: m.end)  # of two that end alike, the better ranked
    return [last] + [m for m in ranked if m is not last]


def _failure_before_warnings(ranked: list[Match]) -> list[Match]:
    """A logged warning does not come before a failure the paste shows after it (an error
    logged or raised, sure, after the warning's end): the warnings a server logs on the way
    are not what stopped it, however many of their words matched."""
    if not ranked or not _is_warning(ranked[0]):
        return ranked
    first = ranked[0]
    later = [m for m in ranked if m.start > first.end and m.score >= SURE and not m.wrapper
             and (m.error.kind != "log" or m.error.exception.upper() in ("ERROR", "CRITICAL"))]
    if not later:
        return ranked
    failure = later[0]
    return [failure] + [m for m in ranked if m is not failure]


def _nearly_whole(match: Match) -> bool:
    """A near match that shows much of its message and lacks little ("DeepGEMM backend ... Please
    install or <a word reworded> the `deep_gemm` ..."): a failure of its own, though not sure."""
    return match.matched >= max(NEARLY_WHOLE, OUTWEIGHS * match.missing)


def _failure_before_its_report(ranked: list[Match]) -> list[Match]:
    """A report of a failure, logged ("Got fatal signal from worker processes ... See stack trace
    above for root cause") or raised ("Engine core initialization failed. See root cause
    above."), does not come before the failure it reports: an error raised
    earlier in the paste, found sure (or nearly whole) and with its exception type beside it, or a raise with
    no message whose frame and type are the traceback's last ("raise NotImplementedError")."""
    if not ranked or not WRAPPER.search(ranked[0].error.template):
        return ranked
    first = ranked[0]
    earlier = [m for m in ranked if m.end <= first.start and m.start < first.start and not m.wrapper and m.error.kind != "log"
               and ((m.score >= SURE or _nearly_whole(m)) and m.exception_agrees or m.frame and not m.matched)]
    if not earlier:
        return ranked
    return [earlier[0]] + [m for m in ranked if m is not earlier[0]]


def _failure_under_its_log(ranked: list[Match], cleaned: str) -> list[Match]:
    """An error logged with its traceback (``logger.exception("Error in chat completion stream
    generator.")`` prints the traceback under its line) reports the exception that traceback
    ends with: that exception, found sure as vLLM's with its type beside it, comes first. So
    does one where the user left lines out between the two ("Worker proc VllmWorker-0 died
    unexpectedly", "...", frames, "RuntimeError: Worker failed with error '...'")."""
    if not ranked or ranked[0].error.kind != "log" or ranked[0].error.exception.upper() not in ("ERROR", "CRITICAL"):
        return ranked
    line_end = cleaned.find("\n", ranked[0].end)
    if line_end == -1 or not LOGGED_ABOVE_TRACEBACK.match(cleaned, line_end):
        return ranked
    failure = next((m for m in ranked if m.start > line_end and m.in_last and m.error.kind != "log" and not m.wrapper
                    and m.score >= SURE and m.exception_agrees), None)
    if failure is None:
        return ranked
    return [failure] + [m for m in ranked if m is not failure]


PUNCTUATION = re.compile(r"[^\w\s]")  # _worded_alike reads words only: a paste may drop a full stop


@functools.lru_cache(maxsize=4096)
def _literal_words(template: str) -> tuple[str, ...]:
    """The template's literal parts as _worded_alike compares them: words only, one space apart."""
    return tuple(" ".join(PUNCTUATION.sub("", part).split()).lower() for part in split_template(template)[0])


def _worded_alike(text: str, template: str) -> bool:
    """Whether ``text`` holds the template's literal words spaced as it does, in order:
    squashing reads "Mooncake Transfer Engine" and "Mooncake TransferEngine" alike, and of two
    such templates (two connectors' raises) the paste's spacing tells which one it is."""
    spaced = " ".join(PUNCTUATION.sub("", text).split()).lower()
    pos = 0
    for part in _literal_words(template):
        found = spaced.find(part, pos)
        if found < 0:
            return False
        pos = found + len(part)
    return True


def _word_goes_on(cleaned: str, position: int, template: str) -> bool:
    """Whether the paste's word goes on at ``position``, where the template's last word ends
    (ASCII letters and digits, as the browser reads them)."""
    last = template.rstrip()[-1:]
    return bool(last) and position < len(cleaned) and _ascii_alnum(last) and _ascii_alnum(cleaned[position])


def _cut_inside_word(cleaned: str, template: str) -> bool:
    """Whether the paste stops inside one of the template's words ("... (lengt" of "(length"):
    the start of a word that no word of the template is whole (ASCII, as the browser reads)."""
    tail = PASTE_ENDS_IN_A_WORD.search(cleaned)
    if tail is None:
        return False
    part = tail.group(1)
    words = set(ASCII_WORD.findall(HOLE.sub(" ", template)))
    return part not in words and any(w.startswith(part) for w in words)


def _in_a_name(text: str, position: int) -> bool:
    """Whether ``position`` lies inside a name: after an ASCII letter, digit or underscore."""
    return position > 0 and (_ascii_alnum(text[position - 1]) or text[position - 1] == "_")


def _ascii_alnum(char: str) -> bool:
    return char.isascii() and char.isalnum()


def _same_case(shown: str, template: str) -> bool:
    """Whether the ASCII letters the paste shows are the template's, capitals and all."""
    letters = ASCII_LETTERS.findall(shown)
    return letters == ASCII_LETTERS.findall(template)[: len(letters)]


ASCII_LETTERS = re.compile(r"[A-Za-z]")


def _inside_words(match: Match, other: Match, cleaned: str) -> bool:
    """Whether ``match`` starts inside ``other``'s own words (not in one of its values), ``other``
    being a whole message of the paste that starts before it, or a near one (a word reworded)
    that shows OUTWEIGHS times as much: "{mode} is disabled because {reason}." inside "Custom
    allreduce is disabled because ... P2P test <reworded>. To silence this warning ...". Where
    ``other`` opens with a value and has no word of its own before ``match``, or fewer words
    than it, the paste's words are ``match``'s: "[Bug]: Expected kv_cache to have 4 dims, got 5"
    is no "{label}: expected {typ}, got {val}" whose label is "[Bug]"."""
    return (other is not match and other.start <= match.start < other.end
            and (other.start < match.start and other.score >= SURE and other.coverage >= SURE
                 and not _only_a_value_before(other, match, cleaned)
                 or _nearly_whole(other) and other.matched >= OUTWEIGHS * match.matched
                 or other.start == match.start and _nearly_whole(other) and other.matched > match.matched
                 and _grew_from(other.error.template, match.error.template))
            and not any(a <= match.start < b for a, b in other.value_spans))


def _only_a_value_before(other: Match, match: Match, cleaned: str) -> bool:
    """Whether ``other`` opens with a value (a match starts after it) and shows only punctuation
    of its own before ``match``, or fewer of its own words than ``match`` does."""
    return bool(HOLE.match(other.form or other.error.template)) and (
        other.matched < match.matched or not any(map(_ascii_alnum, cleaned[other.start : match.start])))


def _grown_past(match: Match, other: Match) -> bool:
    """Whether ``other`` is the whole of a longer message that ``match``'s template grew into,
    read from the same start and past ``match``'s end, sure: the paste shows the longer one."""
    return (other is not match and other.start == match.start and other.end > match.end
            and other.score >= SURE and other.matched > match.matched
            and _grew_from(other.error.template, match.error.template))


@functools.lru_cache(maxsize=4096)
def _grew_from(longer: str, shorter: str) -> bool:
    """Whether a template opens with the whole of a shorter one, as a message that a later
    release made longer: "Engine process failed to start. See stack trace for the root cause."
    and "Engine process failed to start"; "Worker failed with error '{result}', ..." and
    "Worker failed". A paste that goes on in the longer one's words, though one is reworded,
    shows the longer one."""
    head, whole = squash_text(shorter).rstrip("."), squash_text(longer)
    return len(head) < len(whole) and whole.startswith(head)


def _closers_then_stop(chunk: str) -> int:
    """How many closing brackets or quotes open a chunk right before its full stop (")." of
    ").eachdecode"): the sentence ends with the value they close. 0 when it does not."""
    shut = len(chunk) - len(chunk.lstrip(")]'\"`"))
    return shut if shut and chunk[shut : shut + 1] == "." else 0


def _words_then_stop(chunk: str) -> int:
    """How many letters open a chunk right before its full stop ("tokens" of "tokens.however,"),
    with the brackets they close ("gib)" of "gib).decrease"): the sentence ends with those
    words. 0 when it does not."""
    stop = chunk.find(".")
    words = chunk[:stop].rstrip(")]'\"`") if stop > 0 else ""
    return stop if len(words) >= STOP_WORD_LEAST and words.isalpha() else 0


def _sentence_ends(chunk: str, common: int) -> bool:
    """Whether a sentence of the message ends after the first ``common`` characters of a chunk
    (squashed), its full stop left out or shown: "blocks." of "blocks.Tryincreasing", "(i.e.,
    Gemma-2)." of "Gemma-2).Otherwise" (a word or a closing bracket before the stop: not "1.5"),
    "8.0." of "8.0.your" (a number, where a word follows the stop)."""
    return 0 < common < len(chunk) and (chunk[common] == "." and (_ends_a_sentence(chunk[common - 1])
                                                                  or chunk[common - 1].isdigit() and chunk[common + 1 : common + 2].isalpha())
                                        or common > 1 and chunk[common - 1] == "." and _ends_a_sentence(chunk[common - 2]))


def _ends_a_sentence(char: str) -> bool:
    return char.isalpha() or char in ")]"


# what may stand between a word and the value after it, which squashing drops: blanks and quotes
# ("Model architecture '{model_arch}' ...")
_SPACE_OR_QUOTES = " \t" + OPENING_QUOTES


@functools.lru_cache(maxsize=4096)
def _spaced_before_hole(template: str) -> tuple[bool, ...]:
    """For each literal segment: whether it ends with a word, then a space or a quote (or both),
    before its hole."""
    segments, holes = split_template(template)
    return tuple(i < len(holes) and seg != "" and seg[-1] in _SPACE_OR_QUOTES
                 and _ascii_alnum(seg.rstrip(_SPACE_OR_QUOTES)[-1:] or " ")
                 for i, seg in enumerate(segments))


def _word_glued_to_value(entry: Entry, bounds, origin: Origin, cleaned: str, template: str) -> bool:
    """Whether a word that ends vLLM's words before a value, a space apart in its message ("Error
    in {name}"), runs on in the paste ("Error Internal (cutlass_...)"): the paste's word is
    another, longer one. Only for words found where the walk expects them (a chunk after a
    value is found at its first place, which a later one may correct: "to" in "torch")."""
    spaced = _spaced_before_hole(template)
    chunks, owners = entry.chunks, entry.segment_of
    for i, b in enumerate(bounds):
        if (b is None or b[1] - b[0] != len(chunks[i]) or not spaced[owners[i]]
                or i + 1 < len(chunks) and owners[i + 1] == owners[i] or i > 0 and owners[i - 1] != owners[i]):
            continue
        after = origin[b[1] - 1] + 1
        if after < len(cleaned) and _ascii_alnum(cleaned[after]) and _ascii_alnum(cleaned[after - 1]):
            return True
    return False


# a sentence of the paste's own after a title's ("... cache blocks. Then I tried ...", "...? It fails")
NEW_SENTENCE = re.compile(r"[.!?][ \t]+[A-Z]")
NEW_SENTENCE_AFTER = re.compile(r"[ \t]+[A-Z]")  # ... right after a stop (_new_sentence_follows); also in the browser


def _unnamed_least(as_typed: Callable[[], bool], cleaned: str, opening: int, opening_owner: int, end: int) -> int:
    """How much of a message a match with neither type nor tag must show, when the paste's
    words go on after it at ``end``: less where it opens its line, or follows a title's lead-in
    and its colon ("vLLM: ", "Error: "), and the rest of the line holds no sentence of its own
    (an issue title: "No available memory for the cache blocks when serving Qwen3-32B"). Not
    after others' words ("Sadly, ", a quote), nor in a log (the cleaning took a prefix off:
    "[rank0]: "): vLLM logs its messages whole. ``as_typed``: whether the cleaning left the
    paste's words as given (``Matcher._as_typed``), asked last."""
    opening = _opening(cleaned, opening) if opening_owner else opening
    lead = cleaned[cleaned.rfind("\n", 0, opening) + 1 : opening].strip(" \t")
    if lead and not lead.endswith((":", "\uff1a")):
        return NEARLY_WHOLE
    line_end = cleaned.find("\n", end)
    if NEW_SENTENCE.search(cleaned, end, len(cleaned) if line_end == -1 else line_end):
        return NEARLY_WHOLE
    return UNNAMED_LEAST if as_typed() else NEARLY_WHOLE


def _new_sentence_follows(cleaned: str, at: int) -> bool:
    """Whether a sentence of the paste's own starts after a blank at ``at``, on the same line
    ("... are not supported for now. Any idea how to fix this?"), not a quote's end."""
    return NEW_SENTENCE_AFTER.match(cleaned, at) is not None


def _opens_unnamed(cleaned: str, start: int, first: int, opening_owner: int) -> bool:
    """Whether a match with neither type nor tag opens where a message may (``_walk``): at its
    first chunk, not after another's word (its opening value's start, when it opens with one)."""
    return first == 0 and not _mid_sentence(cleaned, _opening(cleaned, start) if opening_owner else start)


def _mid_sentence(text: str, position: int) -> bool:
    """Whether ``position`` follows a word on its line ("... run with the environment variable
    X set"): vLLM's messages open a line, or follow a prefix, a colon, a comma ("Value
    error, "), a quote or a sentence. A value that runs on to the line's end is only a cut
    message where the message opened."""
    line_start = text.rfind("\n", 0, position) + 1
    before = text[line_start:position].rstrip(" \t")
    return bool(before) and before[-1].isascii() and before[-1].isalnum()


# The last word that may stand before the value a message opens with: an exception type or a
# log level and its colon (a quote's or a bracket's opening before them: 'I get "ValueError: ...', or
# words of a script written without spaces: "运行时报错：ValueError: ..."),
# the key of an error body's message ('"message": ', "'detail': "), or the end of a prefix
# ("[rank0]:", "(Worker pid=1)", "vllm-1  |")
VALUE_OPENS_AFTER = re.compile(r"^(?:[^\x00-\x7f]*[\"'`(\[{,]*(?:[A-Za-z_][\w.]*(?:Error|Exception|Warning)|ERROR|WARNING|CRITICAL|[Ee]rror|[Ww]arning):"
                               r"|[\[{,]?[\"'](?:message|detail|msg|error)[\"']:|.*[\])>|-]:?)\Z")


IDENTIFIER = re.compile(r"[A-Za-z_][\w.]*")  # also in the browser


def _labelled_value(text: str, position: int) -> bool:
    """Whether the value that ends before ``position`` (a message that opens with a value)
    follows a name and its colon other than a type's, a log level's or a prefix's: they label
    a value of another program's message ("rollout world_size: 1 is not divisible by ..."). A
    word without a colon may be the value's own ("Sliding window is disabled because ...")."""
    line_start = text.rfind("\n", 0, position) + 1
    end = position
    while end > line_start and text[end - 1] in " \t":
        end -= 1
    before = text[line_start : _value_start(text, end)].split()
    if len(before) >= 2 and before[-1] == "=" and IDENTIFIER.fullmatch(before[-2]):
        return True  # ... or a name and its equals sign: "size_k = 256, is not divisible by b_scales.size(1) = 15"
    return bool(before) and before[-1].endswith(":") and not VALUE_OPENS_AFTER.search(before[-1])


# A line of an exception of another type, whose message opens with words before a value
# (after an issue title's tag, if any): the exception's type, and its words
TYPED_WORDS = re.compile(r"^\s*(?:" + ISSUE_TAGS + r":?[ \t]*)?(?:[\w.]+\.)?(\w+Error|\w*Exception)(?:\(\w+\))?:[ \t]+(\S.*)$")  # also in the browser


# An exception's line up to a name and its colon (not one of a type, a warning or an error)
LABELLED_IN_EXCEPTION = re.compile(r"^\s*(?:" + ISSUE_TAGS + r":?[ \t]*)?(?:[\w.]+\.)?(?:\w+Error|\w*Exception)(?:\(\w+\))?:[ \t]+"
                                   r"(?![\w.]*(?:Error|Exception|Warning|ERROR|WARNING|[Ee]rror|[Ww]arning):)[A-Za-z_][\w.]*:[ \t]*$")  # also in the browser


def _labelled_in_exception(text: str, position: int) -> bool:
    """Whether a message that opens with its words at ``position`` follows an exception's type
    and a name with its colon: the name labels another program's message with its class
    ("ValueError: QuantizeConfig: Unknown quantization method: ..."); vLLM's messages follow
    their type."""
    return LABELLED_IN_EXCEPTION.match(text[text.rfind("\n", 0, position) + 1 : position]) is not None


def _typed_words_before(text: str, position: int, exception: str) -> bool:
    """Whether the value that ends before ``position`` (a message that opens with a value)
    follows the words of an exception of another type than ``exception`` (lower case), the
    last of them without a colon: "ValueError: Tensor height 576 is not divisible by ..." is
    no message of vLLM's that opens with the value "576"."""
    line_start = text.rfind("\n", 0, position) + 1
    end = position
    while end > line_start and text[end - 1] in " \t":
        end -= 1
    found = TYPED_WORDS.match(text[line_start : _value_start(text, end)].rstrip(" \t"))
    return found is not None and found.group(1).lower() != exception and not found.group(2).endswith(":")


def _opening(text: str, position: int) -> int:
    """Where a message that opens with a value opens, its first words at ``position``: the
    value's start, past the space between ("16 is not divisible by 6": at "16")."""
    end = position
    while end > 0 and text[end - 1] in " \t":
        end -= 1
    return _value_start(text, end)


def _value_start(text: str, position: int) -> int:
    """Where the value before ``position`` starts, for a message that opens with a value
    ("max_tokens=131072 cannot be ...": its first words are "=" after the value): the run of
    non-space characters that ends there."""
    while position > 0 and not text[position - 1].isspace():
        position -= 1
    return position


def _first_found(bounds) -> int:
    """The flat position of the first chunk the paste shows."""
    return next(b[0] for b in bounds if b is not None)


# The quote that opens a quoted message, in the run of characters before its first words (a
# message that opens with a value): at the run's start or after a key's colon, a bracket, a
# comma or an equals sign, with no quote after it ("'message': '32001 is not ...",
# '{"object":"error","message":"32001 is not ...'); a value's own quotes close ("'x' is not ...")
QUOTE_OPENS_MESSAGE = re.compile(r"""(?:^|[:(\[{,=])["'`](?=[^"'`]*\Z)""")  # also in the browser


def _quote_opening(text: str, position: int) -> int | None:
    """Where a message that opens with a value, its first words at ``position``, starts after the
    quote that opens it (``QUOTE_OPENS_MESSAGE``); None where no quote opens it."""
    end = position
    while end > 0 and text[end - 1] in " \t":
        end -= 1
    start = _value_start(text, end)
    quoted = QUOTE_OPENS_MESSAGE.search(text[start:end])
    return start + quoted.end() if quoted is not None else None


def _opening_value(text: str, position: int, template: str) -> str:
    """The value a message opens with, its first words at ``position`` (for the page): the run
    of non-space characters before them, without the template's own marks around the value
    ("`ray` does not support ...": "ray"). None after a label or a type ("ValueError: is ...")."""
    segments, _ = split_template(template)
    end = position
    while end > 0 and text[end - 1] in " \t":
        end -= 1
    value = text[_value_start(text, end) : end]
    quoted = QUOTE_OPENS_MESSAGE.search(value)
    if quoted is not None:
        value = value[quoted.end() :]  # the quote of a client's error body: "'message': '32001 is not ..."
    close = _dropped_head(segments[1]).strip()
    if close and value.endswith(close):
        value = value[: len(value) - len(close)]
    opening = segments[0].strip()
    if opening and value.startswith(opening):
        value = value[len(opening) :]
    return "" if value.endswith(":") or value.endswith("\uff1a") else value


def _closing_value(text: str, position: int, template: str, start: int) -> str:
    """The value a message closes with, its last words ending at ``position`` (for the page): the
    rest of the line, without the template's own marks around the value. A message the paste
    quotes (a JSON body's ``"message": "..."``, ``AssertionError('...')``, from ``start``) ends at
    its closing quote; another before what other programs add to its line (VALUE_TAIL)."""
    segments, _ = split_template(template)
    end = text.find("\n", position)
    end = len(text) if end == -1 else end
    closing = _quote_end(text, start, position)
    tail = VALUE_TAIL.search(text, position, end) if closing == -1 else None
    value = text[position : closing if closing != -1 else tail.start() if tail else end].strip()
    opening = _dropped_tail(segments[-2]).strip()
    if opening and value.startswith(opening):
        value = value[len(opening) :]
    close = segments[-1].strip()
    if close and value.endswith(close):
        value = value[: len(value) - len(close)]
    value = value.strip()
    return "" if not value.strip("`") else value  # a Markdown fence closing the paste is no value


# Words, then one that ends a sentence: at the line's end, or before a quote or another sentence
VALUE_SENTENCE_END = re.compile(r"\S[ \t]+[^\s]*[A-Za-z0-9)\]][.!?](?=[ \t]*$|['\"]|[ \t]+[A-Z])")  # also in the browser


def _value_ends_a_sentence(text: str, position: int) -> bool:
    """Whether the value from ``position``, where vLLM's next words are not found, holds words
    that end a sentence on its line. Where vLLM's message ends no sentence after it, the paste's
    own sentence went on and ended ("This model supports at most 4096 completion tokens, whereas
    you provided 8192." is no "... at most {limit} choices per question"): a paste cut inside
    the value would have stopped in it."""
    end = text.find("\n", position)
    return VALUE_SENTENCE_END.search(text, position, len(text) if end == -1 else end) is not None


def _quote_end(text: str, start: int, position: int) -> int:
    """Where the quote that opens a message at ``start`` (a JSON body's ``"message": "..."``,
    ``AssertionError('...')``) closes, from ``position`` on its line: before a comma or a
    bracket. -1 where the message has no quote before it, or the line none that closes it."""
    quote = text[start - 1 : start] if start else ""
    if quote not in ("'", '"'):
        return -1
    end = text.find("\n", position)
    found = (QUOTE_CLOSES_DOUBLE if quote == '"' else QUOTE_CLOSES_SINGLE).search(text, position, len(text) if end == -1 else end)
    return found.start() if found else -1


QUOTE_CLOSES_DOUBLE = re.compile(r'"[ \t]*[,)}\]]')  # also in the browser
QUOTE_CLOSES_SINGLE = re.compile(r"'[ \t]*[,)}\]]")


# What others add to a message's line: pydantic's report of the error goes on ("... [type=value_error,
# input_value=..."), and Ray counts the lines it folded (" [repeated 7x across cluster]")
VALUE_TAIL = re.compile(r"[ \t]+\[type=[a-z_]+,|[ \t]+\[repeated \d+x across cluster\]")


def _dropped_head(segment: str) -> str:
    """The characters that open ``segment`` and that squashing drops (spaces, quotes)."""
    size = 0
    while size < len(segment) and segment[size] in DROPPED:
        size += 1
    return segment[:size]


def _dropped_tail(segment: str) -> str:
    """The characters that close ``segment`` and that squashing drops."""
    size = len(segment)
    while size > 0 and segment[size - 1] in DROPPED:
        size -= 1
    return segment[size:]


def _capital_opens(text: str, position: int, template: str) -> bool:
    """Whether the paste shows the capital letter the template opens with at ``position``: after
    another's words, the message opens a sentence of its own whose stop the paste left out
    ("[ERROR]Generate embedding error This model's maximum context length is ...")."""
    opening = template[:1]
    return opening.isascii() and opening.isupper() and text[position : position + 1] == opening


def _capital_lowered(text: str, position: int, template: str) -> bool:
    """Whether the template opens with a capitalised word ("Response with id") that the paste
    writes small at ``position`` ("Previous response with id")."""
    return (template[:1].isascii() and template[:1].isupper() and template[1:2].isascii() and template[1:2].islower()
            and text[position : position + 1] == template[:1].lower())


def _message_ends(text: str, position: int, value_next: bool = True) -> bool:
    """Whether the message ends at ``position``: at its line's end, or where a quote or a
    bracket closes it (``'message': '...', 'type'``, ``Value error, ... [type=...``)."""
    end = text.find("\n", position)
    rest = text[position : len(text) if end == -1 else end].lstrip(" \t.,;:…")
    # Where vLLM's words go on (no value next), a quote before a word opens another value: "set
    # the environment variable `RAY_...` to zero" is not "The environment variable '...' is not set."
    return not rest or rest[0] in CLOSERS and (value_next or not (
        rest[0] in OPENING_QUOTES and rest[1:2].isascii() and (rest[1:2].isalnum() or rest[1:2] == "_")))


# the quote that closes a value each opening quote opens (also in the browser)
CLOSING_QUOTE = {"'": "'", '"': '"', "`": "`", "\u2018": "\u2019", "\u2019": "\u2019", "\u201c": "\u201d", "\u201d": "\u201d"}


def _quoted_value_end(text: str, position: int) -> int | None:
    """Where a quoted value that opens at ``position`` closes (after its closing quote), when
    it closes on its line and other words follow it there (``_closed_value_goes_on``)."""
    if not _closed_value_goes_on(text, position):
        return None
    end = text.find("\n", position)
    line = text[position : len(text) if end == -1 else end]
    start = len(line) - len(line.lstrip(" \t"))
    return position + start + _quote_closes(line[start:]) + 1


def _closed_value_goes_on(text: str, position: int) -> bool:
    """Whether a quoted value opens at ``position``, closes on its line, and other words follow
    it there: the message did not stop inside that value."""
    end = text.find("\n", position)
    rest = text[position : len(text) if end == -1 else end].lstrip(" \t")
    if not rest or rest[0] not in CLOSING_QUOTE:
        return False
    close = _quote_closes(rest)
    after = rest[close + 1 :].lstrip(" \t") if close != -1 else ""
    return after[:1].isascii() and after[:1].isalnum()


def _quote_closes(quoted: str) -> int:
    """Where the quote that opens ``quoted`` closes, or -1. A quote doubled closes doubled: a
    quoted text inside vLLM's quotes ("''float8_e8m0fnu''", a KeyError's words in "Worker failed
    with error '{result}'") is one value, not an empty one and words; so does a quoted word in it."""
    quote = quoted[0]
    closer = CLOSING_QUOTE[quote]
    if quoted[1:2] == quote and (close := quoted.find(closer * 2, 2)) != -1:
        return close + 1
    close = quoted.find(closer, 1)
    while (close != -1 and closer == quote and quoted[close - 1].isspace()
           and quoted[close + 1 : close + 2].isascii() and quoted[close + 1 : close + 2].isalnum()):
        # ... and a quote between a blank and a word opens a quoted word inside the value, whose
        # own quote closes it ("'missing a required argument: 'k_emb''", an exception's words in
        # "Worker failed with error '{result}'"): the value's quote is the one after that
        inner = quoted.find(closer, close + 1)
        close = quoted.find(closer, inner + 1) if inner != -1 else -1
    return close


def _in_order(line: str, chunks: list[str], owners: list[int]) -> list[int] | None:
    """Where each chunk starts when the squashed line is the chunks in order, with a value
    (some text) in each hole and the last chunk at its very end; else None."""
    starts = [0]
    pos = len(chunks[0])
    for i in range(1, len(chunks)):
        if owners[i] == owners[i - 1]:
            if not line.startswith(chunks[i], pos):
                return None
            at = pos
        else:
            at = line.rfind(chunks[i]) if i == len(chunks) - 1 else line.find(chunks[i], pos + 1)
            if at < pos + 1:
                return None
        starts.append(at)
        pos = at + len(chunks[i])
    return starts if pos == len(line) else None


def _longest_start(flat: str, pos: int, chunk: str) -> int:
    """Where the longest start of ``chunk`` (of 2 × PART_LEAST characters or more) first
    occurs within TAIL characters from ``pos`` (a hole's value before it), or -1."""
    for size in range(len(chunk) - 1, 2 * PART_LEAST - 1, -1):
        at = flat.find(chunk[:size], pos, pos + TAIL + size)
        if at != -1:
            return at
    return -1


def _chunk_in_part(flat: str, pos: int, chunk: str, limit: int) -> tuple[int, int, bool]:
    """(characters of ``chunk`` found, where they end, whether its end was found): its longest
    start at ``pos`` and its longest end after that, before ``limit``, each of PART_LEAST
    characters or more; (0, pos, False) when neither is."""
    start = _common_prefix(flat, pos, chunk)
    start = start if start >= PART_LEAST else 0
    for cut in range(max(start, 1), len(chunk) - PART_LEAST + 1):
        at = flat.find(chunk[cut:], pos + start, limit)
        if at != -1:
            return start + len(chunk) - cut, at + len(chunk) - cut, True
    return start, pos + start, False


LEFT_OUT_LEAST = 36  # squashed literal characters of a message in which a word may be left out (_word_left_out)
SMALL_WORD = 3  # letters of a word inserted into a chunk that leave it the message ("the", "a", "an")


def _chunk_with_small_word_before(flat: str, end: int, chunk: str) -> tuple[int, int] | None:
    """(where it starts, all of ``chunk``): the chunk, a small word inserted into it, ending
    right at ``end`` ("requires now all" for "requires all", whose end is too short for
    ``_chunk_ends_at`` to find); None when it is not there."""
    for size in range(1, SMALL_WORD + 1):
        begin = end - len(chunk) - size
        if begin < 0:
            break
        shown = _common_prefix(flat, begin, chunk)  # the chunk's start, up to the word inserted
        # (inside it: letters before its start are another word's end, "error this model's" for "This model's")
        if 0 < shown < len(chunk) and _small_word_inserted(flat, begin, end, chunk) and flat.startswith(chunk[shown:], begin + shown + size):
            return begin, len(chunk)
    return None


def _small_word_inserted(flat: str, anchor: int, until: int, chunk: str) -> bool:
    """Whether the paste's text from ``anchor`` to ``until`` is ``chunk`` with a few letters inserted."""
    size = until - anchor - len(chunk)
    at = anchor + _common_prefix(flat, anchor, chunk)
    return 0 < size <= SMALL_WORD and flat[at : at + size].isalpha()


@functools.lru_cache(maxsize=4096)
def _template_words(template: str) -> list[list[str]]:
    """``chunk_words`` of a template's literal segments (a walk asks again and again)."""
    return chunk_words(split_template(template)[0])[0]


CLOSES = {")": "(", "]": "[", "}": "{", ">": "<"}


def _closers_off(value: str) -> str:
    """A value read to its line's end without what closes around it there: "internal error')>"
    in "Exception('... NCCL error: internal error')>" is "internal error"; a bracket the value
    opened ("... (run with NCCL_DEBUG=INFO for details)") is its own (also in the browser)."""
    while value and value[-1] in " \t,;'\")]}>":
        last = value[-1]
        if last in CLOSES and value.count(CLOSES[last]) >= value.count(last) or last in "'\"" and value.count(last) % 2 == 0:
            break
        value = value[:-1]
    return value


def _word_left_out(flat: str, at: int, words: list[str], then: str | None = None, before: bool = False) -> int | None:
    """The length of the one word of a chunk (``words``) the paste leaves out, the chunk's other
    words standing in order at ``at`` (ending there when ``before``); None when there is none.
    Its last word left out counts only with the next chunk (``then``) right after the rest: a
    chunk cut short at a line's end is another case (the paste stops there); and its first word
    before the anchor not at all."""
    if len(words) < 2:
        return None
    for number, word in enumerate(words):
        if number == 0 and before:
            continue  # what stands before the rest may be any word: one changed, not left out ("camem allocator is")
        if number == len(words) - 1 and then is None and not before:
            break
        rest = "".join(words[:number] + words[number + 1 :])
        if len(rest) < PART_LEAST:
            continue
        if before:
            if at >= len(rest) and flat.startswith(rest, at - len(rest)):
                return len(word)
        elif flat.startswith(rest, at) and (number < len(words) - 1 or flat.startswith(then, at + len(rest))):
            return len(word)
    return None


def _chunk_ends_at(flat: str, end: int, chunk: str) -> tuple[int, int] | None:
    """(where it starts, characters of ``chunk`` found): its longest end right before ``end``
    and its longest start at most WINDOW before that, each of PART_LEAST characters or more,
    with other text between them (a word changed); None when either is not there."""
    for cut in range(1, len(chunk) - PART_LEAST + 1):
        tail = end - len(chunk) + cut
        if tail < 0 or not flat.startswith(chunk[cut:], tail):
            continue
        for size in range(cut, PART_LEAST - 1, -1):
            at = flat.rfind(chunk[:size], max(0, tail - WINDOW - size), tail)
            if at != -1 and at + size < tail:
                return at, size + len(chunk) - cut
        return None
    return None


def _opening_before_a_value(flat: str, anchor: int, chunk: str, origin: Origin, cleaned: str, template: str) -> tuple[int, int] | None:
    """(where it starts, characters found): the longest start of ``chunk`` (2 × PART_LEAST
    characters or more, but not all of it) before ``anchor``, ending a word of the paste, with
    a value after it on the same line up to ``anchor``; None when there is none. Not where the
    whole chunk stands (a walk from it judged those words), nor the template's capital word
    written small after other words ("Previous response with 'x' not found")."""
    for size in range(len(chunk) - 1, 2 * PART_LEAST - 1, -1):
        at = flat.rfind(chunk[:size], max(0, anchor - TAIL - size), anchor)
        if at == -1 or at + size >= anchor or flat.startswith(chunk, at):
            continue
        if _capital_lowered(cleaned, origin[at], template) and _mid_sentence(cleaned, origin[at]):
            return None
        after = origin[at + size - 1] + 1
        if cleaned[after : after + 1] not in (" ", "\t") or "\n" in cleaned[after : origin[anchor]]:
            continue
        return at, size
    return None


def _partial_missing(matched: int) -> int:
    """The fewest missing characters that make a match of ``matched`` characters partial, its
    score (rounded as shown) below SURE."""
    missing = int(matched * (1 - SURE) / SURE)
    while round(matched / (matched + missing), 3) >= SURE:
        missing += 1
    return missing


def _edit_distance(a: str, b: str, limit: int) -> int:
    """Characters to insert, delete or change to make ``a`` into ``b`` (Levenshtein), or
    ``limit + 1`` as soon as it is sure to be more than ``limit`` (a row's least only grows)."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        diagonal, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            diagonal, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, diagonal + (x != y))
        if min(row) > limit:
            return limit + 1
    return row[-1]


def _common_prefix(flat: str, pos: int, chunk: str) -> int:
    size = 0
    for a, b in zip(flat[pos : pos + len(chunk)], chunk):
        if a != b:
            break
        size += 1
    return size


def _longest_prefix_at_end(text: str, segment: str) -> int:
    """Length of the longest prefix of ``segment`` that ``text`` ends with."""
    for size in range(min(len(text), len(segment)), 0, -1):
        if text.endswith(segment[:size]):
            return size
    return 0
