"""A file walked piece by piece, so that an edited file costs only its edited pieces.

Between two releases most changed files differ in a few functions, but their blob ids
differ all the same; so the cache also keeps the analysis of each *piece* of a file,
keyed by its text. ``split`` cuts a file before its column-0 ``def``, ``class`` and
decorator lines, and a top-level class again before its members (``    def`` ...).
Comment lines directly above a cut go with the piece below, where ``comment_above``
looks for them.

Each piece is parsed on its own: a module piece as it is, a class's header with
``    pass`` standing for its members, a member inside ``class _:``. That also proves
the cut sound. The tokenizer reads a piece from the state it has at the start of a
file, and it has that state at a cut exactly when the text before the cut leaves no
string, bracket or line continuation open; a piece that leaves one open does not
parse (nor does a header whose ``pass`` is not a direct member of its class). So
when every piece parses, the file's statements are the pieces' statements, in order;
when one does not, the file is walked whole (``scanner.scan_text``), and so is a file
with carriage returns, or one the walk of a piece finds nested too deeply.

A piece's walk is not a function of its text alone. It may read module and class
constants, classes and exception variables that other pieces define, and the names
the module- or class-level statements before it assigned. ``PieceWalker`` takes
these from the file's ``Context`` and records each read with a fingerprint of what it
got; a stored analysis of the piece (a *variant*) is reused only where every read it
made gets the same answer, and the walk being deterministic it then finds the same.
What a piece defines for the others (its *outline*: statements, constants) depends on
its text alone. Lines are stored relative to the piece and shifted by its offset.

Most pieces are *quiet functions* (``quiet_function``): one ``def`` with no ``raise``,
``assert`` or nested class, and a qualified name no other piece shares. A walk finds
nothing in them that another piece reads; all they do to the file is bind a name. So
they are neither parsed, walked nor stored (in the pin, 24,635 of 42,511 pieces), and
the soundness of the cut after one comes from a lexer check of its text instead.

(Cutting large functions further, into the statements of their body, was measured:
over the 23 releases of the corpus it left 10-25 % less text to parse, and cost more
than that in the bookkeeping of the many more pieces.)
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import re
from collections import Counter
from itertools import chain
from dataclasses import dataclass, field
from typing import Callable

from generator.scan.templates import Hole, SourceText
from generator.scan.records import FileScan, RaiseSite
from generator.scan.walker import MODULE, Located, Scope, State, Walker, _without, constant_statements, scan_text, source_text


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
_STATEMENT = r"(?:(@)|(?:(?:async[ \t]+)?def|class)(?=[ \t]+\w+[ \t]*[(:\[]))"
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


@dataclass(frozen=True)
class Stored:
    """What the cache holds for a piece: its outline (None: it does not parse) and variants."""

    outline: dict | None
    variants: list[dict] = field(default_factory=list)


@dataclass
class FileResult:
    scan: FileScan
    outlines: dict[str, dict | None] = field(default_factory=dict)  # new ones, by piece key
    variants: list[tuple[str, dict]] = field(default_factory=list)  # new ones: (piece key, variant)
    keys: list[str] = field(default_factory=list)  # of its pieces, those the cache may hold (not quiet)
    # pieces reused, walked (analysed now), parsed, quiet (neither); files walked whole
    stats: dict[str, int] = field(
        default_factory=lambda: {"reused": 0, "walked": 0, "parsed": 0, "quiet": 0, "whole": 0}
    )


Lookup = Callable[[list[str]], dict[str, Stored]]


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
def _loud(text: str) -> bool:
    """Whether the text has a word that may make a site (as a word: "raises" in a
    docstring makes none) or a nested class (first on a line: "@classmethod" is none).
    (What ``\b(?:raise|assert)\b|\n[ \t]*class\b`` finds, several times quicker.)"""
    for word in ("raise", "assert", "class"):
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
    return False


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
    if _loud(text):
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


# What _quiet_functions asks of a piece, by piece key: from release to release most
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


def _quiet_functions(pieces: list[Piece]) -> dict[int, str]:
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
def _quiet_outline(kind: str, name: str) -> dict:
    """What ``outline`` would find for a quiet function (shared: an outline is only read)."""
    return {"stmts": [["def", name]], "tail": 0, "name": None, "constants": [],
            "classes": [["", []]] if kind == "member" else []}



# --- parsing and outlines --------------------------------------------------------------

# How each kind of piece is parsed on its own: (text before, text after, lines before).
_WRAPPERS = {
    "module": ("", "", 0),
    "header": ("", "    pass\n", 0),  # "pass" stands for the members
    "member": ("class _:\n", "", 1),
}


@dataclass
class Parsed:
    kind: str  # the piece's
    tree: ast.Module
    source: SourceText
    offset: int  # add to a line of ``source`` for the file's line
    statements: list[ast.stmt]  # at the piece's level: the module's, or the class body's
    tail: list[ast.stmt]  # a member's: module-level statements after the class
    name: str | None = None  # a header's: the class's name
    _nodes: dict | None = None

    def node(self, locator: list) -> ast.AST:
        if self._nodes is None:
            self._nodes = {}
            for node in ast.walk(self.tree):  # outer nodes first: the first of a span wins
                if isinstance(node, ast.expr):
                    self._nodes.setdefault(_locator(node), node)
        return self._nodes[tuple(locator)]


def parse(piece: Piece) -> Parsed | None:
    """The piece's statements, or None when it does not parse on its own."""
    before, after, lines_before = _WRAPPERS[piece.kind]
    text = before + piece.text + after
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    source = SourceText(text)
    offset = piece.first_line - 1 - lines_before
    if piece.kind == "module":
        return Parsed("module", tree, source, offset, tree.body, [])
    if piece.kind == "member":
        return Parsed("member", tree, source, offset, tree.body[0].body, tree.body[1:])
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.ClassDef):
        return None
    cls = tree.body[0]
    last = cls.body[-1]
    if not isinstance(last, ast.Pass) or last.lineno != piece.text.count("\n") + 1:
        return None  # the members would not be the class's
    return Parsed("header", tree, source, offset, cls.body[:-1], [], cls.name)


def outline(parsed: Parsed) -> dict:
    """What a piece shows the rest of its file; a function of its text alone.

    ``stmts``: kind and name of each statement at the piece's level; ``tail``: how many
    module-level statements follow a member's class; ``name``: a header's class;
    ``constants``: module constants as [name, fingerprint, locator], in order;
    ``classes``: constants of top-level classes, as [class, constants] ("": the class
    a header or member belongs to).
    """
    module_level = {"module": parsed.statements, "member": parsed.tail}.get(parsed.kind, [])
    if parsed.kind == "module":
        classes = [
            [s.name, _refs(parsed.source, constant_statements(s.body, in_class=True))]
            for s in parsed.statements
            if isinstance(s, ast.ClassDef)
        ]
    else:
        classes = [["", _refs(parsed.source, constant_statements(parsed.statements, in_class=True))]]
    return {
        "stmts": [[_kind(s), getattr(s, "name", "")] for s in parsed.statements],
        "tail": len(parsed.tail),
        "name": parsed.name,
        "constants": _refs(parsed.source, constant_statements(module_level)),
        "classes": classes,
    }


def _kind(stmt: ast.stmt) -> str:
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return "def"
    return "class" if isinstance(stmt, ast.ClassDef) else "other"


def _refs(source: SourceText, named) -> list:
    return [[name, fingerprint(source, value), _locator(value)] for name, value in named]


def fingerprint(source: SourceText, node: ast.AST) -> str:
    """Stands for a node wherever it is: its source text decides its tree."""
    return hashlib.sha1(source.segment(node).encode("utf-8", "surrogatepass")).hexdigest()[:20]


def _locator(node: ast.AST) -> tuple:
    return (type(node).__name__, node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)


# --- the file's shared names -----------------------------------------------------------


@dataclass(frozen=True)
class Ref:
    """A node another piece defines: its fingerprint, and where to find it."""

    fp: str
    piece: int
    locator: tuple


class Context:
    """What the pieces of one file share, as ``Walker.run`` and the walk so far leave it."""

    def __init__(self, pieces: list[Piece], outlines: list[dict], parsed: dict[int, Parsed]):
        self.pieces = pieces
        self.parsed = parsed
        self.module: dict[str, Ref] = {}
        self.classes: dict[str, dict[str, Ref]] = {}  # top-level classes: known from the start
        self.nested: dict[str, dict[str, Ref]] = {}  # other classes, as the walk registers them
        self.exceptions: dict[tuple[str, str], Ref] = {}
        self._located: dict[tuple[int, tuple], Located] = {}
        current = ""
        for index, found in enumerate(outlines):
            for name, fp, locator in found["constants"]:
                self.module[name] = Ref(fp, index, tuple(locator))
            current = found["name"] or current
            for name, constants in found["classes"]:
                into = self.classes.setdefault(name or current, {})
                for attr, fp, locator in constants:
                    into[attr] = Ref(fp, index, tuple(locator))

    def class_ref(self, owner: str, name: str) -> Ref | None:
        table = self.classes.get(owner)
        return (table if table is not None else self.nested.get(owner, {})).get(name)

    def knows(self, name: str) -> bool:
        return name in self.classes or name in self.nested

    def locate(self, ref: Ref | None) -> Located | None:
        if ref is None:
            return None
        key = (ref.piece, ref.locator)
        found = self._located.get(key)
        if found is None:
            parsed = self.parsed.get(ref.piece)
            if parsed is None:
                parsed = self.parsed[ref.piece] = parse(self.pieces[ref.piece])
            found = self._located[key] = Located(parsed.node(list(ref.locator)), parsed.source)
        return found

    def holds(self, read: list, states: "_States") -> bool:
        """Whether ``read`` gets the answer it records here."""
        kind, *key, value = read
        if kind == "M":
            ref = self.module.get(key[0])
        elif kind == "C":
            ref = self.class_ref(key[0], key[1])
        elif kind == "E":
            ref = self.exceptions.get((key[0], key[1]))
        elif kind == "CM":
            return self.knows(key[0]) == value
        elif kind == "K":
            return states.class_name == value
        elif kind == "S":
            return states.fingerprint("module") == value
        else:  # "CS"
            return states.fingerprint("class") == value
        return (ref.fp if ref is not None else None) == value

    def apply(self, index: int, variant: dict) -> None:
        """What the piece's walk left for the pieces after it."""
        for function, name, fp, locator in variant["raised"]:
            self.exceptions[(function, name)] = Ref(fp, index, tuple(locator))
        for name, constants in variant["classes"]:
            self.nested[name] = {attr: Ref(fp, index, tuple(locator)) for attr, fp, locator in constants}


class PieceWalker(Walker):
    """Walks one piece, taking shared names from the file's ``Context`` and recording each read.

    A read answered by what the piece itself defined earlier in its walk is no read of
    the context, and is not recorded.
    """

    def __init__(self, context: Context, parsed: Parsed, strings: bool):
        super().__init__(parsed.source, None, strings)
        self.context = context
        self.reads: dict[tuple, object] = {}
        self.own_classes: dict[str, dict[str, Located]] = {}
        self.own_exceptions: dict[tuple[str, str], Located] = {}
        self.registered: list = []  # [name, constants] of the classes it registered
        self.raised: list = []  # [function, name, fingerprint, locator] of exception variables

    def module_constant(self, name: str) -> Located | None:
        ref = self.context.module.get(name)
        self.reads[("M", name)] = ref.fp if ref else None
        return self.context.locate(ref)

    def class_constant(self, owner: str, name: str) -> Located | None:
        own = self.own_classes.get(owner)
        if own is not None:
            return own.get(name)
        ref = self.context.class_ref(owner, name)
        self.reads[("C", owner, name)] = ref.fp if ref else None
        return self.context.locate(ref)

    def knows_class(self, name: str) -> bool:
        if name in self.own_classes:
            return True
        known = self.context.knows(name)
        self.reads[("CM", name)] = known
        return known

    def register_class(self, stmt: ast.ClassDef) -> None:
        constants = dict(constant_statements(stmt.body, in_class=True))
        self.own_classes[stmt.name] = {name: Located(value, self.source) for name, value in constants.items()}
        self.registered.append([stmt.name, _refs(self.source, constants.items())])

    def exception_variable(self, function: str, name: str) -> Located | None:
        own = self.own_exceptions.get((function, name))
        if own is not None:
            return own
        ref = self.context.exceptions.get((function, name))
        self.reads[("E", function, name)] = ref.fp if ref else None
        return self.context.locate(ref)

    def set_exception_variable(self, function: str, name: str, call: Located) -> None:
        self.own_exceptions[(function, name)] = call
        self.raised.append([function, name, fingerprint(call.source, call.node), _locator(call.node)])


# --- a file, piece by piece -----------------------------------------------------------


@dataclass
class _States:
    """The module- and class-level names as the statements before a piece leave them."""

    module: State | None
    klass: State | None = None
    class_name: str = ""
    _fingerprints: dict = field(default_factory=dict)

    def fingerprint(self, level: str) -> str:
        if level not in self._fingerprints:
            state = self.module if level == "module" else self.klass
            self._fingerprints[level] = hashlib.sha1(json.dumps(state_json(state)).encode()).hexdigest()[:20]
        return self._fingerprints[level]


def scan_file(data: bytes, lookup: Lookup) -> FileResult:
    """The file's scan, from stored analyses of its pieces where they hold; what it learnt."""
    text = source_text(data)
    if isinstance(text, FileScan):
        return FileResult(text)
    pieces = split(text)
    result = FileResult(FileScan())
    if len(pieces) < 2:
        return _whole(result, text)
    quiet = _quiet_functions(pieces)
    result.keys = [p.key for index, p in enumerate(pieces) if index not in quiet]
    stored = lookup(result.keys)
    parsed: dict[int, Parsed] = {}
    outlines: list[dict] = []
    for index, piece in enumerate(pieces):
        if index in quiet:
            outlines.append(_quiet_outline(piece.kind, quiet[index]))
            continue
        found = stored.get(piece.key)
        if found is None:
            result.stats["parsed"] += 1
            parsed_piece = parse(piece)
            found = stored[piece.key] = Stored(outline(parsed_piece) if parsed_piece is not None else None)
            result.outlines[piece.key] = found.outline
            if parsed_piece is not None:
                parsed[index] = parsed_piece
        if found.outline is None:
            return _whole(result, text)
        outlines.append(found.outline)
    for index, piece in enumerate(pieces):
        following = pieces[index + 1].kind if index + 1 < len(pieces) else ""
        if piece.kind == "member" and following == "member" and outlines[index]["tail"]:
            return _whole(result, text)  # module-level code between members: they are no members
    context = Context(pieces, outlines, parsed)
    states = _States({})
    sites: list[RaiseSite] = []
    reraises = 0
    for index, piece in enumerate(pieces):
        found_outline = outlines[index]
        if index in quiet:
            result.stats["quiet"] += 1
            _advance_quiet(states, piece.kind, quiet[index])
            continue
        variant = next(
            (v for v in stored[piece.key].variants if all(context.holds(r, states) for r in v["reads"])), None
        )
        if variant is not None:
            result.stats["reused"] += 1
            live = None
        else:
            if index not in parsed:
                result.stats["parsed"] += 1
                parsed[index] = parse(piece)
            try:
                variant, live = _analyse(context, parsed[index], piece, found_outline, states)
            except RecursionError:
                return _whole(result, text)
            result.stats["walked"] += 1
            result.variants.append((piece.key, variant))
        offset = piece.first_line - 1 - _WRAPPERS[piece.kind][2]
        for site in variant["sites"]:
            shifted = dict(site, line=site["line"] + offset, end_line=site["end_line"] + offset,
                           excerpt_line=site["excerpt_line"] + offset)
            sites.append(RaiseSite.from_json(shifted))
        reraises += variant["reraises"]
        context.apply(index, variant)
        _advance(states, piece, found_outline, variant, live)
    result.scan = FileScan(sites=sites, reraises=reraises)
    return result


def _whole(result: FileResult, text: str) -> FileResult:
    result.scan = scan_text(text)
    result.stats["whole"] += 1
    return result


def _names(found_outline: dict) -> list[str] | None:
    """The names a piece's def and class statements unbind, or None when it has other statements."""
    if any(kind == "other" for kind, _ in found_outline["stmts"]):
        return None
    return [name for _, name in found_outline["stmts"]]


def _analyse(context: Context, parsed: Parsed, piece: Piece, found_outline: dict, states: _States):
    """Walk the piece: its variant, and the states it leaves (as live objects)."""
    has_sites = "raise" in piece.text or "assert" in piece.text
    # Without sites, the strings names hold matter only where the names outlive the piece.
    strings = has_sites or _names(found_outline) is None or bool(parsed.tail)
    walker = PieceWalker(context, parsed, strings)
    reads: list[list] = []  # the reads of names before the piece's statements, first
    live: dict = {}
    if piece.kind == "module":
        if _names(found_outline) is None:
            reads.append(["S", states.fingerprint("module")])
        live["state"] = _continue(walker, parsed.statements, MODULE, states.module)
    elif piece.kind == "header":
        # A top-level class is known from the start (Walker.run): no registration.
        live["class_state"] = walker.block(parsed.statements, Scope(parsed.name, parsed.name), {})
    else:
        reads.append(["K", states.class_name])
        if _names(found_outline) is None:
            reads.append(["CS", states.fingerprint("class")])
        if parsed.tail:
            reads.append(["S", states.fingerprint("module")])
        scope = Scope(states.class_name, states.class_name)
        live["class_state"] = _continue(walker, parsed.statements, scope, states.klass)
        if parsed.tail:
            live["state"] = _continue(walker, parsed.tail, MODULE, states.module)
    variant = {
        "reads": reads + [[*key, value] for key, value in walker.reads.items()],
        "sites": [site.to_json() for site in walker.sites],
        "reraises": walker.reraises,
        "raised": walker.raised,
        "classes": walker.registered,
    }
    # The states a piece leaves are stored where they depend on more than its def and class names.
    if piece.kind == "module" and _names(found_outline) is None:
        variant["state"] = state_json(live["state"])
    if piece.kind == "header" or (piece.kind == "member" and _names(found_outline) is None):
        variant["class_state"] = state_json(live["class_state"])
    if piece.kind == "member" and parsed.tail:
        variant["state"] = state_json(live["state"])
    return variant, live


def _continue(walker: Walker, statements: list[ast.stmt], scope: Scope, state: State | None) -> State | None:
    """``Walker.block`` from the middle: statements after others that left ``state``."""
    for stmt in statements:
        if state is None:
            state = {}
        state = walker.statement(stmt, scope, state)
    return state


def _skip(state: State | None, names: list[str]) -> State | None:
    """``_continue`` over def and class statements: each unbinds its name."""
    for name in names:
        if state is None:
            state = {}
        state = _without(state, name)
    return state


def _advance_quiet(states: _States, kind: str, name: str) -> None:
    """``_advance`` over a quiet function: its def unbinds its name (most pieces: kept short)."""
    if kind == "module":
        state = states.module
        after = states.module = _without({} if state is None else state, name)
    else:
        state = states.klass
        after = states.klass = _without({} if state is None else state, name)
    if after is not state:
        states._fingerprints.clear()


def _advance(states: _States, piece: Piece, found_outline: dict, variant: dict, live: dict | None) -> None:
    """The states after the piece, from its walk, its variant, or its def and class names."""
    names = _names(found_outline)

    def stored(name: str) -> State | None:
        return live[name] if live is not None else state_from_json(variant[name])

    states._fingerprints.clear()
    if piece.kind == "module":
        states.module = stored("state") if names is None else _skip(states.module, names)
    elif piece.kind == "header":
        states.class_name = found_outline["name"]
        states.klass = stored("class_state")
        states.module = _skip(states.module, [states.class_name])  # the class statement, done
    else:
        states.klass = stored("class_state") if names is None else _skip(states.klass, names)
        if found_outline["tail"]:
            states.module = stored("state")


# --- states as JSON --------------------------------------------------------------------


def state_json(state: State | None) -> list | None:
    """A state as JSON, names sorted: a hole is [expr, suffix], literal text a string."""
    if state is None:
        return None
    return [
        [name, None if value is None else [[p if isinstance(p, str) else [p.expr, p.suffix] for p in t] for t in value]]
        for name, value in sorted(state.items())
    ]


def state_from_json(data: list | None) -> State | None:
    if data is None:
        return None
    return {
        name: None if value is None else [tuple(p if isinstance(p, str) else Hole(*p) for p in t) for t in value]
        for name, value in data
    }
