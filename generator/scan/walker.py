"""Find every raise site in one Python source file.

``scan_source(data)`` is pure: bytes in, ``FileScan`` out, nothing about where the
file lives. The stdlib ``ast`` parses the file and the walk visits statements only
(never descending into expressions, where no ``raise`` can be); libcst sees just
the f-strings of messages (see ``messages``).

While it walks a function, the walker carries which strings each local name may
hold at that point (a small reaching-definitions pass: branches are followed
separately and merged, a branch that ends in ``raise`` or ``return`` contributes
nothing). That is how ``msg = ...; msg += ...; raise ValueError(msg)`` gets its
template, with one variant per branch that assigned a different string.
"""

from __future__ import annotations

import ast
import re
import textwrap
import tokenize
import io
from collections import Counter
from dataclasses import dataclass
from http import HTTPStatus
from typing import Iterator

from generator.scan.templates import (
    Hole,
    SourceText,
    Template,
    MAX_VARIANTS,
    TemplateBuilder,
    is_string_expr,
    placeholders,
    render,
)
from generator.scan.ids import split_template
from generator.scan.records import FileScan, RaiseSite

MAX_FILE_BYTES = 4 * 1024 * 1024  # larger .py files in vllm/ are generated tables
_EXCERPT_GAP = 3  # fill a gap of up to this many lines between guard and raise

# name -> the templates the name may hold; None: holds something unknown here
State = dict[str, "list[Template] | None"]
_KEYWORD_MESSAGES = ("msg", "message", "detail", "reason")
# A list of reasons a function builds (``invalid_reasons.append("sink setting not supported")``)
_REASON_LIST = re.compile(r"(?i)\w*reasons?\Z")
# A message's placeholder that shows such reasons (``{invalid_reasons}``, ``{'; '.join(reasons)}``)
_REASON_HOLE = re.compile(r"(?i)\{[^{}]*reason")


@dataclass(frozen=True)
class Guard:
    kind: str  # "if" | "else" | "while" | "except" | "case"
    node: ast.AST  # the test, handler or match_case
    statement: ast.stmt  # the statement the comment is looked for above


@dataclass(frozen=True)
class Located:
    """A node and the text its positions refer to: the file, or the piece of it it came from."""

    node: ast.AST
    source: SourceText


@dataclass(frozen=True)
class Scope:
    function: str  # qualified name, "<module>" at top level
    class_name: str | None  # the class whose body or method we are in
    guards: tuple[Guard, ...] = ()
    handler_names: frozenset[str] = frozenset()  # names bound by `except ... as e`
    params: frozenset[str] = frozenset()


def scan_source(data: bytes) -> FileScan:
    """All raise sites of one file, or the reason it was skipped."""
    text = source_text(data)
    return text if isinstance(text, FileScan) else scan_text(text)


def source_text(data: bytes) -> str | FileScan:
    """The file's text, or the scan of a file that needs no parse (empty, or skipped)."""
    if len(data) > MAX_FILE_BYTES:
        return FileScan(skipped=f"larger than {MAX_FILE_BYTES // 1024 // 1024} MiB; generated code is not scanned")
    if not may_report(data):
        return FileScan()  # nothing to find: spare the parse
    if b"\x00" in data:
        return FileScan(skipped="contains NUL bytes")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        return FileScan(skipped=f"cannot be decoded: {exc}")
    return text[1:] if text.startswith("\ufeff") else text


def scan_text(text: str) -> FileScan:
    """All raise sites of a decoded file, parsed and walked whole."""
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        return FileScan(skipped=f"does not parse with this Python: {exc.msg} (line {exc.lineno})")
    except (ValueError, RecursionError, MemoryError) as exc:
        return FileScan(skipped=f"does not parse: {type(exc).__name__}: {exc}")
    walker = Walker(SourceText(text), tree)
    try:
        walker.run()
    except RecursionError:
        return FileScan(skipped="nested too deeply to walk")
    return FileScan(sites=walker.sites, reraises=walker.reraises)


MODULE = Scope("<module>", None)
# A module constant by convention (``STR_NOT_IMPL_ENC_DEC_SWA``): other files may raise it
CONSTANT_NAME = re.compile(r"[A-Z][A-Z0-9_]*\Z")

# Words without which a text holds no site: raise, assert, a log call, an error
# response, an exception's own message (set in its ``__init__``), an exception made.
REPORT_WORDS = ("raise", "assert", "logger", "error_response", "ErrorResponse", ".__init__(", "self.m", "self.detail",
                "Error(", "Exception(",  # (an exception that a function makes, for a raise elsewhere)
                "reasons.append(", "reason.append(", "return False,")  # (a reason a function gives, for a message elsewhere)
_REPORT_BYTES = tuple(w.encode() for w in REPORT_WORDS)


def may_report(data: bytes | str) -> bool:
    words = _REPORT_BYTES if isinstance(data, bytes) else REPORT_WORDS
    return any(w in data for w in words)


# Logged at warning level and above: the level each method logs at.
LOG_LEVELS = {
    "warning": "WARNING", "warning_once": "WARNING", "warn": "WARNING", "warn_once": "WARNING",
    "error": "ERROR", "error_once": "ERROR", "exception": "ERROR",
    "critical": "CRITICAL", "fatal": "CRITICAL",
}
_LOGGER_NAMES = ("logger",)  # what vLLM calls them (and the word `pieces` looks for)
# Calls that make the error body vLLM's server returns to a client without raising.
RESPONSE_CALLS = ("create_error_response", "create_streaming_error_response", "ErrorResponse")
# `logger.warning("... %s ...", x)`: a %-conversion, and the argument it takes
_PERCENT = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?([diouxXeEfFgGcrsa%])")


def constant_statements(body: list[ast.stmt], in_class: bool = False) -> Iterator[tuple[str, ast.expr]]:
    """(name, value) of every string constant ``body`` assigns, in order (the last one counts)."""
    for stmt in body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target, value = stmt.targets[0], stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            # In a class body `name: str = "..."` is a dataclass or pydantic field:
            # a default each instance may override, not a constant.
            if in_class and not re.search(r"\b(?:Final|ClassVar)\b", ast.unparse(stmt.annotation)):
                continue
            target, value = stmt.target, stmt.value
        else:
            continue
        if isinstance(target, ast.Name) and is_string_expr(value):
            yield target.id, value


class Walker:
    """Walks statements, collecting sites.

    What one statement's walk may take from elsewhere in the file (module and class
    constants, classes already seen, exception variables) goes through the methods
    under "shared names", so that ``pieces`` can walk a file piece by piece and record
    what each piece took.
    """

    def __init__(self, source: SourceText, tree: ast.Module | None = None, strings: bool = True):
        self.source = source
        self.tree = tree
        # False: a walk only for the effects on other statements (no site can come of
        # it), so the strings names hold are not worked out.
        self.strings = strings
        self.sites: list[RaiseSite] = []
        self.reraises = 0
        self.module_constants: dict[str, Located] = {}
        self.class_constants: dict[str, dict[str, Located]] = {}
        self._resolving: set[int] = set()
        # `err = ValueError(...)` ... `raise err`: the call, by (function, name)
        self.exception_variables: dict[tuple[str, str], Located] = {}
        # the file's module-level functions by name (the last `def` of a name binds it)
        self.module_functions: dict[str, Located] = {}
        # functions defined inside a function, by (the enclosing function, name): always in the
        # piece of the function they are in, so no shared name
        self.nested_functions: dict[tuple[str, str], Located] = {}
        self._returned: dict[tuple[int, int | None], list[list[Template]]] = {}  # returned_strings, by (def, size)
        # the functions walked, by qualified name, and what each calls (``called_names``)
        self.function_nodes: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self._called: dict[str, list[str]] = {}

    # --- entry ---------------------------------------------------------------------

    def run(self) -> None:
        assert self.tree is not None
        for name, value in constant_statements(self.tree.body):
            self.module_constants[name] = Located(value, self.source)
        for stmt in self.tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.module_functions[stmt.name] = Located(stmt, self.source)
        # Top-level classes up front, so a function may name a class defined below it;
        # nested classes as the walk reaches them.
        for stmt in self.tree.body:
            if isinstance(stmt, ast.ClassDef):
                into = self.class_constants.setdefault(stmt.name, {})
                for name, value in constant_statements(stmt.body, in_class=True):
                    into[name] = Located(value, self.source)
        self.block(self.tree.body, MODULE, {})

    # --- shared names ----------------------------------------------------------------

    def module_constant(self, name: str) -> Located | None:
        return self.module_constants.get(name)

    def class_constant(self, owner: str, name: str) -> Located | None:
        return self.class_constants.get(owner, {}).get(name)

    def knows_class(self, name: str) -> bool:
        return name in self.class_constants

    def register_class(self, stmt: ast.ClassDef) -> None:
        into = self.class_constants.setdefault(stmt.name, {})
        for name, value in constant_statements(stmt.body, in_class=True):
            into[name] = Located(value, self.source)

    def exception_variable(self, function: str, name: str) -> Located | None:
        return self.exception_variables.get((function, name))

    def module_function(self, name: str) -> Located | None:
        """The file's module-level function of that name (its ``def``), if any."""
        return self.module_functions.get(name)

    def set_exception_variable(self, function: str, name: str, call: Located) -> None:
        self.exception_variables[(function, name)] = call

    # --- statements ----------------------------------------------------------------

    def block(self, body: list[ast.stmt], scope: Scope, state: State) -> State | None:
        """Walk statements in order; the state after them, None when they never finish."""
        current: State | None = state
        for stmt in body:
            if current is None:
                current = {}  # unreachable code after a raise: still scan it
            current = self.statement(stmt, scope, current)
        return current

    def statement(self, stmt: ast.stmt, scope: Scope, state: State) -> State | None:
        if isinstance(stmt, ast.Raise):
            self.on_raise(stmt, scope, state)
            return None
        if isinstance(stmt, ast.Assert):
            if stmt.msg is not None:
                self.on_assert(stmt, scope, state)
            return state
        if isinstance(stmt, ast.Expr):
            call = _reporting_call(stmt.value)
            if call is not None:
                self.on_call(call, stmt, scope, state)
            if scope.function != "<module>" and (reason := _appended_reason(stmt.value)) is not None:
                self.on_reason(reason, stmt, scope, state)
            return state
        if isinstance(stmt, ast.Return):
            call = _reporting_call(stmt.value) if stmt.value is not None else None
            if call is not None:
                self.on_call(call, stmt, scope, state)
            if stmt.value is not None and scope.function != "<module>":
                self.on_returned_exception(stmt.value, stmt, scope, state)
                if (reason := _returned_reason(stmt.value)) is not None:
                    self.on_reason(reason, stmt, scope, state)
            return None
        if isinstance(stmt, (ast.Continue, ast.Break)):
            return None
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.on_function(stmt, scope)
            return _without(state, stmt.name)
        if isinstance(stmt, ast.ClassDef):
            if not self.knows_class(stmt.name):
                self.register_class(stmt)
            name = stmt.name if scope.function == "<module>" else f"{scope.function}.{stmt.name}"
            self.block(stmt.body, Scope(name, stmt.name), {})
            return _without(state, stmt.name)
        if isinstance(stmt, ast.If):
            body = self.block(stmt.body, _guarded(scope, Guard("if", stmt.test, stmt)), dict(state))
            orelse = self.block(stmt.orelse, _guarded(scope, Guard("else", stmt.test, stmt)), dict(state))
            return _merge(body, orelse)
        if isinstance(stmt, ast.While):
            body = self.block(stmt.body, _guarded(scope, Guard("while", stmt.test, stmt)), dict(state))
            after = _merge(state, body)
            return _merge(after, self.block(stmt.orelse, scope, dict(after or {}))) if stmt.orelse else after
        if isinstance(stmt, (ast.For, ast.AsyncFor)):
            body = self.block(stmt.body, scope, _without_targets(state, stmt.target))
            after = _merge(state, body)
            return _merge(after, self.block(stmt.orelse, scope, dict(after or {}))) if stmt.orelse else after
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            return self.block(stmt.body, scope, state)
        if isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            return self.on_try(stmt, scope, state)
        if isinstance(stmt, ast.Match):
            outcomes: list[State | None] = [state]
            for case in stmt.cases:
                outcomes.append(self.block(case.body, _guarded(scope, Guard("case", case, stmt)), dict(state)))
            return _merge(*outcomes)
        if isinstance(stmt, ast.Assign):
            return self.on_assign(stmt.targets, stmt.value, scope, state, stmt)
        if isinstance(stmt, ast.AnnAssign):
            return self.on_assign([stmt.target], stmt.value, scope, state, stmt) if stmt.value else state
        if isinstance(stmt, ast.AugAssign):
            return self.on_augassign(stmt, scope, state)
        return state

    def on_function(self, stmt: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope) -> None:
        name = stmt.name if scope.function == "<module>" else f"{scope.function}.{stmt.name}"
        if scope.function != "<module>" and scope.function.rsplit(".", 1)[-1] != scope.class_name:
            self.nested_functions[(scope.function, stmt.name)] = Located(stmt, self.source)  # not a method
        self.function_nodes[name] = stmt
        args = stmt.args
        params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
        params |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
        self.block(stmt.body, Scope(name, scope.class_name, params=frozenset(params)), {})

    def on_try(self, stmt: ast.stmt, scope: Scope, state: State) -> State | None:
        body = self.block(stmt.body, scope, dict(state))
        outcomes: list[State | None] = []
        for handler in stmt.handlers:
            names = scope.handler_names | ({handler.name} if handler.name else set())
            inner = Scope(scope.function, scope.class_name, scope.guards + (Guard("except", handler, handler),),
                          frozenset(names), scope.params)
            # The handler may run after any part of the body: start from the merge.
            outcomes.append(self.block(handler.body, inner, dict(_merge(state, body) or {})))
        if stmt.orelse:
            body = self.block(stmt.orelse, scope, dict(body)) if body is not None else None
        outcomes.insert(0, body)
        after = _merge(*outcomes)
        if stmt.finalbody:
            final = self.block(stmt.finalbody, scope, dict(after if after is not None else state))
            return final if after is not None else None
        return after

    def on_assign(self, targets: list[ast.expr], value: ast.expr, scope: Scope, state: State,
                  stmt: ast.stmt | None = None) -> State:
        call = _reporting_call(value)
        if call is not None and stmt is not None:
            self.on_call(call, stmt, scope, state)
        if (stmt is not None and scope.class_name and scope.function.endswith(".__init__")
                and is_exception_class(scope.class_name)):
            for target in targets:  # `self.message = f"..."` in an exception's __init__
                if isinstance(target, ast.Attribute) and _dotted(target) in ("self.message", "self.msg", "self.detail"):
                    self.add_site("message", scope.class_name, value, stmt, scope, state)
        if stmt is not None and self.strings and scope.function == "<module>" and len(targets) == 1 and isinstance(targets[0], ast.Name):
            self.on_module_constant(targets[0].id, value, stmt, state)
        state = dict(state)
        names = [t.id for t in targets if isinstance(t, ast.Name)]
        builder = self.builder(scope, state)
        if names and isinstance(value, ast.Call) and _exception_name(value.func):
            for name in names:
                state[name] = None
                self.set_exception_variable(scope.function, name, Located(value, self.source))
            return state
        templates = builder.build(value) if self.strings and builder.is_stringish(value) else None
        for name in names:
            state[name] = templates
        for target in targets:
            if not isinstance(target, ast.Name):
                for inner in ast.walk(target):
                    if isinstance(inner, ast.Name):
                        state[inner.id] = None
        if (self.strings and len(targets) == 1 and isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                and value.func.id not in state and value.func.id not in scope.params):
            # `ok, msg = _check_supported(...)`, `msg = _reason(...)`: the strings a function of
            # this file returns there, after the name itself (the message's template stays the
            # name: its id does not change; the strings are its other forms)
            target = targets[0]
            if isinstance(target, ast.Name):
                slots: list[str | None] = [target.id]
            elif isinstance(target, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in target.elts):
                slots = [e.id if isinstance(e, ast.Name) else None for e in target.elts]
            else:
                slots = []
            if any(slots):
                returned = self.returned_strings(value.func.id, len(slots) if isinstance(target, (ast.Tuple, ast.List)) else None,
                                                 scope)
                for name, forms in zip(slots, returned or ()):
                    if name is not None and forms:
                        state[name] = [(Hole(name),), *forms][:MAX_VARIANTS]
        return state

    def on_module_constant(self, name: str, value: ast.expr, stmt: ast.stmt, state: State) -> None:
        """``STR_NOT_IMPL_ENC_DEC_LORA = ("LoRA is ...")`` or a dict of such strings by string
        keys: kept as sites of kind "constant" (named ``NAME`` or ``NAME['KEY']``), so that
        a raise in another file whose whole message names it gets its text at assembly."""
        if not CONSTANT_NAME.match(name):
            return
        if isinstance(value, ast.Dict):
            for key, item in zip(value.keys, value.values):
                if isinstance(key, ast.Constant) and isinstance(key.value, str) and self.builder(MODULE, state).is_stringish(item):
                    self.add_site("constant", f"{name}[{key.value!r}]", item, stmt, MODULE, state)
        elif self.builder(MODULE, state).is_stringish(value):
            self.add_site("constant", name, value, stmt, MODULE, state)

    def on_returned_exception(self, value: ast.expr, stmt: ast.Return, scope: Scope, state: State) -> None:
        """``return MQEngineDeadError("Engine loop is not running ...")`` (or either side of a
        conditional): kept as a site of kind "returned", so that a raise of a call to this
        function (``raise ENGINE_DEAD_ERROR(e)``, here or in another file) gets its type and
        text at assembly."""
        for made in (value.body, value.orelse) if isinstance(value, ast.IfExp) else (value,):
            if isinstance(made, ast.Call):
                name = _exception_name(made.func)
                if name is not None and is_exception_class(name.rsplit(".", 1)[-1]):
                    self.add_site("returned", name, _message_argument(made), stmt, scope, state)

    def function_named(self, name: str, scope: Scope) -> Located | None:
        """The function a bare ``name(...)`` in ``scope`` calls, when this file defines it: one
        defined in an enclosing function (innermost first), else a module-level one."""
        function = scope.function
        while function != "<module>":
            found = self.nested_functions.get((function, name))
            if found is not None:
                return found
            function = function.rpartition(".")[0] or "<module>"
        return self.module_function(name)

    def returned_strings(self, function: str, size: int | None, scope: Scope = MODULE) -> list[list[Template]] | None:
        """The strings a function of the file returns: whole (``size`` None), or at each place
        of the tuples of ``size`` it returns. Its own names are unknown (holes), but for a
        name its body assigns once, at its top level, from a string (``base = f"..."``)."""
        found = self.function_named(function, scope)
        if found is None:
            return None
        key = (id(found.node), size)
        if key in self._returned:  # a helper called in many places is read once per size
            return self._returned[key]
        node = found.node
        args = node.args
        stores = Counter(n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
        bound = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg) if a is not None}
        inner = Scope(node.name, None, params=frozenset(bound | set(stores)))
        local: State = {}
        builder = TemplateBuilder(found.source, lambda n: self.lookup(n, inner, local), spread=False, inline_holes=True)
        for stmt in node.body:
            if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                    and stores[stmt.targets[0].id] == 1 and builder.is_stringish(stmt.value)):
                local[stmt.targets[0].id] = builder.build(stmt.value)
        forms: list[list[Template]] = [[] for _ in range(size or 1)]
        for returned in returned_values(node):
            if size is None:
                items = [returned]
            elif isinstance(returned, (ast.Tuple, ast.List)) and len(returned.elts) == size:
                items = returned.elts
            else:
                continue
            for place, item in zip(forms, items):
                if builder.is_stringish(item):
                    place.extend(t for t in builder.build(item) if t not in place)
        self._returned[key] = forms
        return forms

    def on_augassign(self, stmt: ast.AugAssign, scope: Scope, state: State) -> State:
        if not isinstance(stmt.target, ast.Name):
            return state
        state = dict(state)
        name = stmt.target.id
        builder = self.builder(scope, state)
        if self.strings and isinstance(stmt.op, ast.Add) and builder.is_stringish(stmt.value):
            before = state.get(name) or [(Hole(name),)]
            added = builder.build(stmt.value)
            state[name] = [b + a for b in before for a in added][:8]
        else:
            state[name] = None
        return state

    # --- raise and assert ----------------------------------------------------------

    def on_raise(self, stmt: ast.Raise, scope: Scope, state: State) -> None:
        exc = stmt.exc
        if exc is None:
            self.reraises += 1
            return
        source = self.source  # where `exc` is written: elsewhere when it is `raise err`
        if isinstance(exc, ast.Name) and exc.id not in scope.handler_names:
            found = self.exception_variable(scope.function, exc.id)
            if found is not None:
                exc, source = found.node, found.source
        if isinstance(exc, ast.Call):
            exception = _exception_name(exc.func) or source.one_line(exc.func)
            message = _message_argument(exc)
        else:
            exception = _exception_name(exc)
            if exception is None or (isinstance(exc, ast.Name) and exc.id in scope.handler_names):
                self.reraises += 1  # `raise e`, `raise self._error`: an exception object
                return
            message = None
        cause = self.source.one_line(stmt.cause) if stmt.cause is not None else None
        self.add_site("raise", exception, message, stmt, scope, state, cause=cause, message_source=source)

    def on_call(self, call: ast.Call, stmt: ast.stmt, scope: Scope, state: State) -> None:
        """A log call, an error response, or an exception's ``super().__init__(message)``."""
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name in LOG_LEVELS and isinstance(func, ast.Attribute):
            owner = _dotted(func.value)
            if owner is not None and owner.rsplit(".", 1)[-1] in _LOGGER_NAMES and call.args:
                self.add_site("log", LOG_LEVELS[name], call.args[0], stmt, scope, state, arguments=call.args[1:])
            return
        if name in RESPONSE_CALLS:
            message, error_type, status = _response_parts(call, name)
            if message is not None:
                self.add_site("response", error_type, message, stmt, scope, state, status=status)
            return
        if (name == "__init__" and scope.class_name and scope.function.endswith(".__init__")
                and is_exception_class(scope.class_name) and isinstance(func, ast.Attribute)):
            args = call.args
            if isinstance(func.value, ast.Name) and args:  # Exception.__init__(self, message)
                args = args[1:]
            if args and not isinstance(args[0], ast.Starred):
                self.add_site("message", scope.class_name, args[0], stmt, scope, state)

    def on_reason(self, reason: ast.expr, stmt: ast.stmt, scope: Scope, state: State) -> None:
        """``invalid_reasons.append("sink setting not supported")``, ``return False, f"..."``: a
        reason the function gives, kept as a site of kind "reason" (``exception``: the function's
        own name), so that a message elsewhere that shows the reasons of a call to a function
        of that name gets them at assembly."""
        if self.strings and self.builder(scope, state).is_stringish(reason):
            self.add_site("reason", scope.function.rsplit(".", 1)[-1], reason, stmt, scope, state)

    def called_names(self, function: str) -> list[str]:
        """The names of what ``function`` calls (``f(...)``, ``obj.f(...)``), sorted, with the
        function's own name first: where the reasons its message shows may come from."""
        if function not in self._called:
            node = self.function_nodes.get(function)
            names = {function.rsplit(".", 1)[-1]}
            if node is not None:
                for inner in ast.walk(node):
                    if isinstance(inner, ast.Call):
                        func = inner.func
                        if isinstance(func, ast.Attribute):
                            names.add(func.attr)
                        elif isinstance(func, ast.Name):
                            names.add(func.id)
            own = function.rsplit(".", 1)[-1]
            self._called[function] = [own, *sorted(names - {own})]
        return self._called[function]

    def on_assert(self, stmt: ast.Assert, scope: Scope, state: State) -> None:
        inner = _guarded(scope, Guard("else", stmt.test, stmt))
        self.add_site("assert", "AssertionError", stmt.msg, stmt, inner, state, own_guard=False)

    def add_site(
        self,
        kind: str,
        exception: str,
        message: ast.expr | None,
        stmt: ast.stmt,
        scope: Scope,
        state: State,
        cause: str | None = None,
        own_guard: bool = True,
        message_source: SourceText | None = None,
        arguments: list[ast.expr] | None = None,
        status: int | None = None,
    ) -> None:
        template: str | None = None
        id_template: str | None = None
        variants: list[str] = []
        holes: list[str] = []
        if message is not None:
            builder = self.builder(scope, state, message_source)
            templates = builder.build(message)
            template = render(templates[0])
            variants = [render(t) for t in templates[1:]]
            holes = placeholders(templates[0])
            # Ids are published: a message whose tuple or starred argument now spreads over
            # its conversions keeps the id of the form the scanner first read (``spread=False``).
            first_read = template
            if builder.spread_used:
                first_read = render(self.builder(scope, state, message_source, spread=False).build(message)[0])
            if arguments is not None:  # a log call's %-style arguments fill its conversions
                sources = [self.source.one_line(a) for a in arguments]
                first_read = _percent_filled(first_read, sources, spread=False)[0]
                template, filled = _percent_filled(template, sources)
                variants = [_percent_filled(v, sources)[0] for v in variants]
                holes = holes + filled
            if first_read != template:
                id_template = first_read
            variants += [v for v in self.call_forms(message, scope, state, message_source) if v != template and v not in variants]
        if kind in ("log", "response", "message", "constant", "reason") and not has_words(template):
            return  # `logger.error(e)`, `create_error_response(str(e))`: nothing of its own to say
        # A message that shows reasons (`Reason: {invalid_reasons}`): the functions they may come from
        reasons_from = (self.called_names(scope.function)
                        if kind in ("raise", "assert", "log", "response") and scope.function != "<module>"
                        and any(_REASON_HOLE.search(t) for t in (template or "", *variants)) else [])
        guard_stmt = scope.guards[-1].statement if scope.guards and own_guard else None
        if not own_guard and len(scope.guards) > 1:
            guard_stmt = scope.guards[-2].statement
        excerpt, excerpt_line = self.excerpt(stmt, guard_stmt)
        self.sites.append(
            RaiseSite(
                kind=kind,
                exception=exception,
                template=template,
                line=stmt.lineno,
                end_line=stmt.end_lineno or stmt.lineno,
                function=scope.function,
                guard=[self.guard_text(g) for g in scope.guards],
                placeholders=holes,
                variants=variants,
                comment=self.comment_above(stmt.lineno) or (self.comment_above(guard_stmt.lineno) if guard_stmt else ""),
                excerpt=excerpt,
                excerpt_line=excerpt_line,
                cause=cause,
                status=status,
                id_template=id_template,
                reasons_from=reasons_from,
            )
        )

    def call_forms(self, message: ast.expr, scope: Scope, state: State, source: SourceText | None) -> list[str]:
        """What a message that is a call says, as other forms of its template (which, and so
        the id, stays the call): the strings a function of this file returns
        (``raise ValueError(_make_log_unsupported(backend, reason))``), or an exception's own
        message given to an assert (``assert ok, RuntimeError("...")`` reports "...")."""
        if not self.strings or not isinstance(message, ast.Call):
            return []
        func = message.func
        name = _exception_name(func)
        if name and is_exception_class(name.rsplit(".", 1)[-1]):
            argument = _message_argument(message)
            if argument is None:
                return []
            templates = self.builder(scope, state, source).build(argument)
        elif isinstance(func, ast.Name) and func.id not in state and func.id not in scope.params:
            templates = (self.returned_strings(func.id, None, scope) or [[]])[0]
        else:
            return []
        return [text for text in map(render, templates) if has_words(text)]

    # --- names -----------------------------------------------------------------------

    def builder(self, scope: Scope, state: State, source: SourceText | None = None, spread: bool = True) -> TemplateBuilder:
        return TemplateBuilder(source or self.source, lambda node: self.lookup(node, scope, state), spread)

    def lookup(self, node: ast.expr, scope: Scope, state: State) -> list[Template] | None:
        if isinstance(node, ast.Name):
            if node.id in state:
                return state[node.id]
            if node.id in scope.params:
                return None
            return self.constant(self.module_constant(node.id))
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            owner = node.value.id
            if owner in ("self", "cls") and scope.class_name:
                owner = scope.class_name
            if owner in state or owner in scope.params:
                return None
            return self.constant(self.class_constant(owner, node.attr))
        return None

    def constant(self, value: Located | None) -> list[Template] | None:
        if value is None or id(value.node) in self._resolving:
            return None
        self._resolving.add(id(value.node))
        try:
            return self.builder(MODULE, {}, value.source).build(value.node)
        finally:
            self._resolving.discard(id(value.node))

    # --- guards, comments, excerpts -----------------------------------------------------

    def guard_text(self, guard: Guard) -> str:
        if guard.kind == "if" or guard.kind == "while":
            return self.source.one_line(guard.node)
        if guard.kind == "else":
            return _negate(guard.node, self.source.one_line(guard.node))
        if guard.kind == "except":
            handler: ast.ExceptHandler = guard.node
            text = "except" if handler.type is None else "except " + self.source.one_line(handler.type)
            return text + (f" as {handler.name}" if handler.name else "")
        case: ast.match_case = guard.node
        text = "case " + self.source.one_line(case.pattern)
        return text + (" if " + self.source.one_line(case.guard) if case.guard is not None else "")

    def comment_above(self, lineno: int) -> str:
        lines = self.source.lines
        found: list[str] = []
        index = lineno - 2
        while index >= 0:
            stripped = lines[index].strip()
            if not stripped.startswith("#"):
                break
            found.append(stripped.lstrip("#").strip())
            index -= 1
        return "\n".join(reversed(found)).strip()

    def excerpt(self, stmt: ast.stmt, guard_stmt: ast.stmt | None) -> tuple[str, int]:
        """The guarding statement's header and the raise, as source lines."""
        lines = self.source.lines
        spans: list[tuple[int, int]] = []
        if guard_stmt is not None and guard_stmt.lineno < stmt.lineno:
            header_end = _header_end(guard_stmt)
            spans.append((guard_stmt.lineno, min(header_end, stmt.lineno - 1)))
        spans.append((stmt.lineno, stmt.end_lineno or stmt.lineno))
        if len(spans) == 2 and spans[1][0] - spans[0][1] - 1 <= _EXCERPT_GAP:
            spans = [(spans[0][0], spans[1][1])]
        chunks = [lines[a - 1 : b] for a, b in spans]
        flat = [line for chunk in chunks for line in chunk]
        dedented = textwrap.dedent("\n".join(flat)).split("\n")
        if len(chunks) == 2:
            first = len(chunks[0])
            marker = " " * (len(dedented[first]) - len(dedented[first].lstrip())) + "..."
            dedented.insert(first, marker)
        return "\n".join(dedented), spans[0][0]


# --- helpers -------------------------------------------------------------------------


def _guarded(scope: Scope, guard: Guard) -> Scope:
    # (not dataclasses.replace, which looks the fields up again on every call: a walk makes many)
    return Scope(scope.function, scope.class_name, scope.guards + (guard,), scope.handler_names, scope.params)


def returned_values(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.expr]:
    """The values a function's own ``return`` statements give (not those of functions or
    classes defined inside it), in the order of the source."""
    found: list[ast.expr] = []
    todo: list[ast.AST] = list(function.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Return) and node.value is not None:
            found.append(node.value)
        todo.extend(ast.iter_child_nodes(node))
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


def _merge(*outcomes: State | None) -> State | None:
    """Join the states of branches that finish; names differ → all their variants."""
    live = [s for s in outcomes if s is not None]
    if not live:
        return None
    if len(live) == 1:
        return live[0]
    merged: State = {}
    for name in {n for s in live for n in s}:
        variants: list[Template] = []
        unknown = False
        for s in live:
            value = s.get(name)
            if value is None:
                unknown = True
            else:
                variants.extend(v for v in value if v not in variants)
        if variants and unknown:
            variants.append((Hole(name),))
        merged[name] = variants[:8] if variants else None
    return merged


def _without(state: State, name: str) -> State:
    if name not in state:
        return state
    state = dict(state)
    state[name] = None
    return state


def _without_targets(state: State, target: ast.expr) -> State:
    state = dict(state)
    for node in ast.walk(target):
        if isinstance(node, ast.Name):
            state[node.id] = None
    return state


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _exception_name(node: ast.expr) -> str | None:
    """``ValueError`` or ``errors.Foo`` when ``node`` names a class (CapWords), else None."""
    dotted = _dotted(node)
    if dotted is None:
        return None
    last = dotted.rsplit(".", 1)[-1]
    return dotted if last[:1].isupper() else None


def _appended_reason(value: ast.expr) -> ast.expr | None:
    """What ``invalid_reasons.append(...)`` appends to a list of reasons, else None."""
    if (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "append"
            and isinstance(value.func.value, ast.Name) and _REASON_LIST.match(value.func.value.id)
            and len(value.args) == 1 and not value.keywords):
        return value.args[0]
    return None


def _returned_reason(value: ast.expr) -> ast.expr | None:
    """The reason of ``return False, "..."`` (a check that says why it fails), else None."""
    if (isinstance(value, ast.Tuple) and len(value.elts) == 2 and isinstance(value.elts[0], ast.Constant)
            and value.elts[0].value is False):
        return value.elts[1]
    return None


def _reporting_call(value: ast.expr) -> ast.Call | None:
    """The call of ``f(...)``, ``await f(...)``, ``yield f(...)`` or ``x or f(...)``: where a log
    call or a response may be (``return error_response or self.create_error_response(...)``)."""
    if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
        value = value.values[-1]
    if isinstance(value, (ast.Await, ast.Yield)) and value.value is not None:
        value = value.value
    return value if isinstance(value, ast.Call) else None


def is_exception_class(name: str) -> bool:
    return name.endswith(("Error", "Exception", "Exit", "Failure"))


def has_words(template: str | None) -> bool:
    """Whether the template has literal text of its own (not only holes and punctuation)."""
    if template is None:
        return False
    segments, _ = split_template(template)
    return any(re.search(r"[A-Za-z]{2}", s) for s in segments)


def _percent_filled(template: str, arguments: list[str], spread: bool = True) -> tuple[str, list[str]]:
    """``"a %s b %d"`` with arguments ``x, y`` → ``"a {x} b {y}"``; a conversion left without
    an argument stays as text (``%%`` becomes ``%``).

    A starred argument (``logger.warning(message, *args)``) spreads over the conversions
    left: ``{args[0]}``, ``{args[1]}``, ... With ``spread=False`` it fills one conversion
    as ``{*args}`` and leaves the rest as text, as the scanner first read it: that form is
    what such a message's published id hashes (``RaiseSite.id_template``)."""
    if not arguments and "%" not in template:
        return template, []
    filled: list[str] = []
    queue = list(arguments)
    spreading = [0]  # how many conversions the starred argument at the queue's head has filled

    def one(match: re.Match) -> str:
        if match.group(1) == "%":
            return "%"
        if not queue:
            return match.group(0)
        source = queue[0]
        if spread and source.startswith("*") and not source.startswith("**"):
            name = source[1:] if source[1:].isidentifier() else f"({source[1:]})"
            source = f"{name}[{spreading[0]}]"
            spreading[0] += 1
        else:
            queue.pop(0)
        filled.append(source)
        return "{" + source + "}"

    if not arguments:
        return template.replace("%%", "%") if "%%" in template else template, []
    return _PERCENT.sub(one, template), filled


def _http_status(node: ast.expr | None) -> int | None:
    """``HTTPStatus.NOT_FOUND``, ``404``, ``HTTPStatus.NOT_FOUND.value`` → 404; None when computed."""
    if node is None:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    dotted = _dotted(node)
    if dotted:
        parts = dotted.split(".")
        if parts[-1] == "value":
            parts = parts[:-1]
        if len(parts) >= 2 and parts[-2] == "HTTPStatus" and parts[-1] in HTTPStatus.__members__:
            return HTTPStatus[parts[-1]].value
    return None


def _keyword(call: ast.Call, *names: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg in names), None)


def _response_parts(call: ast.Call, name: str) -> tuple[ast.expr | None, str, int | None]:
    """(message, error type, HTTP status) of an error response call.

    ``create_error_response(message, err_type="BadRequestError", status_code=HTTPStatus.BAD_REQUEST)``
    (its defaults), ``ErrorResponse(message=..., type=..., code=...)`` and
    ``ErrorResponse(error=ErrorInfo(message=..., type=..., code=...))``.
    """
    if name == "ErrorResponse":
        inner = _keyword(call, "error")
        if isinstance(inner, ast.Call):
            call = inner
        message = _keyword(call, "message") or (call.args[0] if call.args else None)
        kind = _keyword(call, "type")
        status = _http_status(_keyword(call, "code"))
        default = "ErrorResponse"
    else:
        message = call.args[0] if call.args else _keyword(call, "message")
        kind = _keyword(call, "err_type") or (call.args[1] if len(call.args) > 1 else None)
        code = _keyword(call, "status_code") or (call.args[2] if len(call.args) > 2 else None)
        status = _http_status(code) if code is not None else HTTPStatus.BAD_REQUEST.value
        default = "BadRequestError" if kind is None else "ErrorResponse"
    error_type = kind.value if isinstance(kind, ast.Constant) and isinstance(kind.value, str) else default
    return message, error_type, status


def _message_argument(call: ast.Call) -> ast.expr | None:
    args = call.args
    if args and isinstance(args[0], ast.Constant) and isinstance(args[0].value, int):
        # HTTPException(400, "...") / (status_code, detail): the status is no message
        args = args[1:]
        if not args:
            for keyword in call.keywords:
                if keyword.arg == "detail":
                    return keyword.value
    if args:
        return args[0]
    for keyword in call.keywords:
        if keyword.arg in _KEYWORD_MESSAGES:
            return keyword.value
    return None


def _negate(node: ast.expr, text: str) -> str:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        operand = text[3:].strip() if text.startswith("not") else None
        if operand:
            return operand[1:-1] if operand.startswith("(") and operand.endswith(")") and _balanced(operand[1:-1]) else operand
    if isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
        return "not " + text
    return f"not ({text})"


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if depth < 0:
            return False
    return depth == 0


def _header_end(stmt: ast.stmt) -> int:
    """The last line of a compound statement's header (``if (...):`` may span lines)."""
    if isinstance(stmt, (ast.If, ast.While)):
        return stmt.test.end_lineno or stmt.lineno
    if isinstance(stmt, ast.ExceptHandler):
        return stmt.type.end_lineno if stmt.type is not None else stmt.lineno
    if isinstance(stmt, ast.Match):
        return stmt.subject.end_lineno or stmt.lineno
    if isinstance(stmt, ast.Assert):
        return stmt.lineno
    return stmt.lineno
