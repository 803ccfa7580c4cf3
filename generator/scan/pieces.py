"""A file's text cut into pieces, and the pieces that are quiet functions, known by their text alone.

Pure: text in, pieces out; no disk, no processes. ``generator.scan.incremental`` walks
the pieces, reusing stored analyses of them.

``split`` cuts a file before its column-0 ``def``, ``class`` and
decorator lines, and a top-level class again before its members (``    def`` ...).
Comment lines directly above a cut go with the piece below, where ``comment_above``
looks for them.

Most pieces are *quiet functions* (``quiet_function``; a file's: ``quiet_functions``):
one ``def`` with no ``raise``, ``assert`` or nested class, and a qualified name no
other piece shares. A walk finds nothing in them that another piece reads; all they
do to the file is bind a name. So they are neither parsed, walked nor stored (in the
pin, 24,635 of 42,511 pieces), and the soundness of the cut after one comes from a
lexer check of its text instead.

(Cutting large functions further, into the statements of their body, was measured:
over the 23 releases of the corpus it left 10-25 % less text to parse, and cost more
than that in the bookkeeping of the many more pieces.)
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections import Counter
from itertools import chain
from dataclasses import dataclass


class _Lines:
    """Lines that start as a pattern says: ``re`` finds "\\n" + pattern far faster than ^ + pattern."""

    def __init__(self, pattern: str):
        self.first = re.compile(pattern)
        self.later = re.compile("\n" + pattern)

    def finditer(self, text: str, begin: int, end: int):
        """(offset of the line, match) for each such line in ``text[begin:end]``; ``begin`` starts a line."""
        if begin == 0 and (match := self.first.match(text, 0, end)):
            yield 0, match
        for match in self.later.finditer(text, max(begin - 1, 0), end):
            yield match.start() + 1, match

    def search(self, text: str, begin: int, end: int) -> int | None:
        return next((at for at, _ in self.finditer(text, begin, end)), None)


# A column-0 line that starts a piece: a decorator, a def or a class, its name and what
# follows the name in a statement (so that a docstring's "async EPLB is ..." or "class of
# models" starts none: such a cut would not parse, and the file would be walked whole).
# (The lookahead of first letters first: it lets ``re`` pass over most lines twice as fast.)
_STATEMENT = r"(?=[@adc])(?:(@)|(?:(?:async[ \t]+)?def|class)(?=[ \t]+\w+[ \t]*[(:\[]))"
_TOP = _Lines(_STATEMENT)
# The same for the members of a top-level class, indented by four spaces.
_MEMBER = _Lines("    " + _STATEMENT)
# A column-0 line that may start a statement: a class's body ends before it.
_TOP_CODE = _Lines(r"[^\s#)\]}]")


class Piece:
    """A piece of a file, and its key (every piece's is wanted: computed at once).

    (A plain class: a frozen dataclass with a cached property costs several times as
    much to make and to ask, and a file has dozens of pieces.)
    """

    __slots__ = ("kind", "text", "first_line", "key")

    def __init__(self, kind: str, text: str, first_line: int):
        self.kind = kind  # "module": top-level statements | "header": a class up to its first member | "member"
        self.text = text
        self.first_line = first_line  # the file's line number of the text's first line
        self.key = hashlib.sha1(f"{kind}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()

    def __repr__(self) -> str:
        return f"Piece({self.kind!r}, {self.text[:30]!r}..., {self.first_line})"


# --- cutting ---------------------------------------------------------------------------


def split(text: str) -> list[Piece]:
    """The file's pieces, in order; [] when the file is better walked whole."""
    if "\r" in text:
        return []  # lines end otherwise than in "\n": not worth the care
    tops = _starts(text, _TOP, 0, len(text))
    bounds = [(0, 0, "")] if not tops or tops[0][0] > 0 else []
    bounds += tops
    pieces: list[Piece] = []
    lines = _LineCounter(text)
    for index, (start, line, keyword) in enumerate(bounds):
        end = bounds[index + 1][0] if index + 1 < len(bounds) else len(text)
        if keyword == "class":
            pieces.extend(_class_pieces(text, start, line, end, lines))
        else:
            pieces.append(Piece("module", text[start:end], lines.at(start)))
    return pieces


def _class_pieces(text: str, start: int, line: int, end: int, lines: "_LineCounter") -> list[Piece]:
    body = text.find("\n", line, end) + 1
    code = _TOP_CODE.search(text, body, end) if body else None
    members = _starts(text, _MEMBER, body, code if code is not None else end) if body else []
    if not members:
        return [Piece("module", text[start:end], lines.at(start))]
    pieces = [Piece("header", text[start : members[0][0]], lines.at(start))]
    for index, (member, _, _) in enumerate(members):
        stop = members[index + 1][0] if index + 1 < len(members) else end
        pieces.append(Piece("member", text[member:stop], lines.at(member)))
    return pieces


def _starts(text: str, pattern: _Lines, begin: int, end: int) -> list[tuple[int, int, str]]:
    """Where pieces start in ``text[begin:end]``: (offset, offset of its def/class line, keyword).

    A def or class right after decorators starts no piece of its own; nor does a line
    the line above continues into with a backslash. The offset takes in the comment
    lines directly above.
    """
    found: list[tuple[int, int, str]] = []
    decorated = False
    for at, match in pattern.finditer(text, begin, end):
        if text.endswith("\\\n", 0, at):
            continue
        decorator = match.group(1) is not None
        keyword = "" if decorator else match.group(0).strip()
        if decorated:
            if not decorator:
                found[-1] = (found[-1][0], at, keyword)
            decorated = decorator
            continue
        decorated = decorator
        found.append((_above_comments(text, at, begin), at, keyword))
    return found


def _above_comments(text: str, at: int, floor: int) -> int:
    while at > floor:
        newline = text.rfind("\n", floor, at - 1)
        line_start = newline + 1 if newline >= 0 else floor
        if not text[line_start : at - 1].lstrip().startswith("#"):
            break
        at = line_start
    return at


class _LineCounter:
    """Line numbers of increasing offsets, counting each newline once."""

    def __init__(self, text: str):
        self.text = text
        self.offset = 0
        self.line = 1

    def at(self, offset: int) -> int:
        self.line += self.text.count("\n", self.offset, offset)
        self.offset = offset
        return self.line


# --- quiet functions ---------------------------------------------------------------------

# Code at a piece's own level, where a statement may start: column 0 for a module piece,
# up to four spaces for a member (less would be module-level code after the class).
_LEVEL_CODE = {"module": _Lines(r"[^\s#)\]}]"), "member": _Lines(r" {0,4}[^\s#)\]}]")}
_DEF_LINE = {"module": re.compile(r"(?:async[ \t]+)?def[ \t]+(\w+)"),
             "member": re.compile(r"    (?:async[ \t]+)?def[ \t]+(\w+)")}
# Words that may make a site: raise, assert, a log call, an error response, a nested
# class, and what an exception's own message is set with (``super().__init__(message)``,
# ``self.message = ...``).
LOUD_WORDS = ("raise", "assert", "logger", "create_error_response", "create_streaming_error_response",
              "ErrorResponse", "class")
_MESSAGE_SETTERS = (".__init__(", "self.message", "self.msg", "self.detail")
# A reason a function gives for a message elsewhere (walker.on_reason): ``reasons.append(``,
# ``return False, ...``
_GIVES_A_REASON = re.compile(r"(?i)reasons?\.append\(|\breturn[ \t]+\(?False[ \t]*,")


# ``return MQEngineDeadError(...)``: a function that makes the exception another raises
_RETURNS_AN_EXCEPTION = re.compile(r"\breturn[ \t]*\(?\s*[\w.]*(?:Error|Exception)\(")


def _makes_an_exception(text: str) -> bool:
    return ("Error(" in text or "Exception(" in text) and _RETURNS_AN_EXCEPTION.search(text) is not None


def _loud(text: str) -> bool:
    """Whether the text has a word that may make a site (as a word: "raises" in a
    docstring makes none), a nested class (first on a line: "@classmethod" is none) or a
    reason given for a message elsewhere.
    (What ``\b(?:raise|assert|...)\b|\n[ \t]*class\b`` finds, several times quicker.)"""
    for word in LOUD_WORDS:
        at = text.find(word)
        while at >= 0:
            end = at + len(word)
            if end == len(text) or not _is_word(text[end]):
                if word == "class":
                    line = text.rfind("\n", 0, at)
                    if line >= 0 and not text[line + 1 : at].strip(" \t"):
                        return True
                elif at == 0 or not _is_word(text[at - 1]):
                    return True
            at = text.find(word, end)
    if any(setter in text for setter in _MESSAGE_SETTERS):
        return True
    return ("False" in text or "eason" in text) and _GIVES_A_REASON.search(text) is not None


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


# Every name a def or class gives ("undef f" counts too: then f is only walked).
_DEF_NAMES = re.compile(r"def[ \t]+(\w+)")
_CLASS_NAMES = re.compile(r"class[ \t]+(\w+)")
_CLASS_NAME = re.compile(r"^class[ \t]+(\w+)", re.M)  # a header's class
_QUOTE3 = '"' * 3  # spelt so because a raw string cannot hold three of its own quotes
_APOS3 = "'" * 3
# Comments and closed strings. A quote that opens a string left open is not taken (a
# one-line string may not start a triple quote), so that it shows in what is left.
_COMMENTS_AND_STRINGS = re.compile(
    r"#[^\n]*"
    rf"|{_QUOTE3}(?:[^\\]|\\.)*?{_QUOTE3}|{_APOS3}(?:[^\\]|\\.)*?{_APOS3}"
    r'|"(?!"")(?:[^"\\\n]|\\.)*"' r"|'(?!'')(?:[^'\\\n]|\\.)*'",
    re.S,
)


def quiet_function(piece: Piece) -> str | None:
    """The name of the function the piece is, when it can be known without parsing it.

    Most pieces are functions with no ``raise``, no ``assert`` and no class in them:
    a walk finds no site in them, and all they do to the rest of the file is bind their
    name. Such a piece is neither parsed nor walked nor stored (about half the pieces of
    a release, and nearly half its text). It must be one ``def`` statement: at its own
    level, only its decorators and its ``def`` line; and its end must leave no string,
    bracket or line continuation open, so that the cut after it is sound (what parsing
    it would have proved; a syntax error inside such a function goes unnoticed). Tabs
    are not looked into.
    """
    text = piece.text
    if piece.kind == "header" or "\t" in text:
        return None
    if _loud(text) or _makes_an_exception(text):
        return None
    lines = [at for at, _ in _LEVEL_CODE[piece.kind].finditer(text, 0, len(text))]
    if not lines:
        return None
    indent = 4 if piece.kind == "member" else 0
    *decorators, last = lines
    if any(not text.startswith("@", at + indent) or text[at:at + indent].strip() for at in decorators):
        return None
    match = _DEF_LINE[piece.kind].match(text, last)
    if match is None:
        return None
    rest = _COMMENTS_AND_STRINGS.sub("", text)
    if "'" in rest or '"' in rest or rest.rstrip("\n").endswith("\\"):
        return None
    if any(rest.count(left) != rest.count(right) for left, right in ("()", "[]", "{}")):
        return None
    return match.group(1)


# What quiet_functions asks of a piece, by piece key: from release to release most
# pieces recur. Strings only, so the cyclic garbage collector never looks at it; emptied
# when full.
_FACTS: dict[str, "_Facts"] = {}
_FACTS_MAX = 1 << 18


@dataclass(frozen=True)
class _Facts:
    quiet: str | None  # quiet_function's answer
    names: tuple[str, ...]  # the names after every "def" and "class" in its text
    owner: str | None  # a header's: its class


def _facts(piece: Piece) -> _Facts:
    found = _FACTS.get(piece.key)
    if found is None:
        if len(_FACTS) > _FACTS_MAX:
            _FACTS.clear()
        owner = _CLASS_NAME.search(piece.text) if piece.kind == "header" else None
        found = _FACTS[piece.key] = _Facts(
            quiet_function(piece),
            tuple(_DEF_NAMES.findall(piece.text)) + tuple(_CLASS_NAMES.findall(piece.text)),
            owner.group(1) if owner else None,
        )
    return found


def quiet_functions(pieces: list[Piece]) -> dict[int, str]:
    """The pieces that are quiet functions, by index.

    What a walk keeps by function name (``err = Error(...)`` in one function, ``raise
    err`` in another of the same qualified name) is the one thing a quiet function could
    show another piece. So a function is passed over only where its qualified name is
    its own: no other ``def`` or ``class`` of the file has its name (for a method: no
    other of its class has its name, and nothing else in the file the class's).
    """
    known = _FACTS.get
    facts = [known(piece.key) or _facts(piece) for piece in pieces]
    if all(f.quiet is None for f in facts):
        return {}
    named = Counter(chain.from_iterable(f.names for f in facts))
    own: dict[int, str] = {}
    header = -1  # the index of the class a member belongs to
    in_class: Counter | None = None
    for index, piece in enumerate(pieces):
        name = facts[index].quiet
        if piece.kind != "member":
            header, in_class = (index if piece.kind == "header" else -1), None
            if name is not None and named[name] == 1:
                own[index] = name
            continue
        if name is None or header < 0:
            continue
        if in_class is None:
            end = next((i for i in range(header + 1, len(pieces)) if pieces[i].kind != "member"), len(pieces))
            in_class = Counter(chain.from_iterable(f.names for f in facts[header:end]))
        owner = facts[header].owner
        if owner is not None and named[owner] == 1 and in_class[name] == 1:
            own[index] = name
    return own


@functools.lru_cache(maxsize=1 << 16)
def quiet_outline(kind: str, name: str) -> dict:
    """What ``outline`` (``generator.scan.incremental``) would find for a quiet function
    (shared: an outline is only read)."""
    return {"stmts": [["def", name]], "tail": 0, "name": None, "constants": [],
            "classes": [["", []]] if kind == "member" else []}
