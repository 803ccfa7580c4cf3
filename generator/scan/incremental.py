"""A file walked piece by piece, so that an edited file costs only its edited pieces.

Between two releases most changed files differ in a few functions, but their blob ids
differ all the same; so the cache also keeps the analysis of each *piece* of a file,
keyed by its text. ``generator.scan.pieces`` cuts the file into pieces (``split``) and
knows, by their text alone, the *quiet functions*, which are neither parsed, walked
nor stored here.

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

Pure: no disk and no processes of its own; stored analyses come in through the
``lookup`` its caller gives (``generator.scan.cache``), and what it learnt goes out in
the ``FileResult``.
"""

from __future__ import annotations

import ast
import hashlib
import json
from dataclasses import dataclass, field
from typing import Callable

from generator.scan.pieces import Piece, quiet_functions, quiet_outline, split
from generator.scan.templates import Hole, SourceText
from generator.scan.records import FileScan, RaiseSite
from generator.scan.walker import MODULE, Located, Scope, State, Walker, _without, constant_statements, may_report, scan_text, source_text


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
        # module-level functions: the piece of each name's last `def` (quiet ones too)
        self.functions: dict[str, int] = {}
        current = ""
        for index, found in enumerate(outlines):
            if pieces[index].kind == "module":
                for kind, name in found["stmts"]:
                    if kind == "def":
                        self.functions[name] = index
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

    def function_key(self, name: str) -> str | None:
        """Stands for the module-level function of that name: its piece's text decides it."""
        index = self.functions.get(name)
        return self.pieces[index].key[:20] if index is not None else None

    def module_function(self, name: str) -> Located | None:
        index = self.functions.get(name)
        if index is None:
            return None
        parsed = self.parsed.get(index)
        if parsed is None:
            parsed = self.parsed[index] = parse(self.pieces[index])  # a quiet function, parsed when asked
        found = [s for s in parsed.statements if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name]
        return Located(found[-1], parsed.source) if found else None

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
        elif kind == "F":
            return self.function_key(key[0]) == value
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

    def module_function(self, name: str) -> Located | None:
        self.reads[("F", name)] = self.context.function_key(name)
        return self.context.module_function(name)


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
    quiet = quiet_functions(pieces)
    result.keys = [p.key for index, p in enumerate(pieces) if index not in quiet]
    stored = lookup(result.keys)
    parsed: dict[int, Parsed] = {}
    outlines: list[dict] = []
    for index, piece in enumerate(pieces):
        if index in quiet:
            outlines.append(quiet_outline(piece.kind, quiet[index]))
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
    has_sites = may_report(piece.text)
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
