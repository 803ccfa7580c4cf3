"""Message templates: what a raised message looks like to a user (its id: ``ids.py``).

A template is a sequence of parts: literal text (the characters as the user will see
them) and holes (an interpolated expression, kept as its source text). Rendered, a
hole is written ``{source}`` and literal braces are doubled, as in a Python format
string, so ``Template`` round-trips through the public ``template`` string.

The stdlib ``ast`` finds the message expression; f-strings are read with libcst,
because before Python 3.12 ``ast`` keeps neither the positions of the expressions
inside an f-string nor the source text of their format specs. libcst only ever sees
the f-string itself, never the whole file: that is what keeps the scanner fast.
"""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
import string
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import libcst as cst


MAX_VARIANTS = 8
_WS = re.compile(r"\s+")


@dataclass(frozen=True)
class Hole:
    """An interpolated expression: ``{expr!conversion:spec}`` with ``suffix`` = ``!r:>10``."""

    expr: str
    suffix: str = ""


Part = str | Hole
Template = tuple[Part, ...]


# --- rendering -------------------------------------------------------------------


def render(template: Template) -> str:
    """The public template string: literal braces doubled, holes as ``{source}``."""
    out = []
    for part in template:
        if isinstance(part, Hole):
            out.append("{" + part.expr + part.suffix + "}")
        else:
            out.append(part.replace("{", "{{").replace("}", "}}"))
    return "".join(out)


def placeholders(template: Template) -> list[str]:
    """The source text of every hole, in order, without repeats."""
    seen: dict[str, None] = {}
    for part in template:
        if isinstance(part, Hole):
            seen.setdefault(part.expr, None)
    return list(seen)


def has_literal_text(template: Template) -> bool:
    return any(isinstance(p, str) and p.strip() for p in template)


def _merge_literals(parts: Iterable[Part]) -> Template:
    out: list[Part] = []
    for part in parts:
        if isinstance(part, str):
            if not part:
                continue
            if out and isinstance(out[-1], str):
                out[-1] = out[-1] + part
                continue
        out.append(part)
    return tuple(out)


# --- the public id contract ------------------------------------------------------


# --- building templates from code --------------------------------------------------

# Resolves a name or attribute in the message to the templates of the strings it
# may hold (several when branches assign different strings), or None.
Lookup = Callable[[ast.expr], "list[Template] | None"]


def is_string_expr(node: ast.expr, lookup: Lookup | None = None) -> bool:
    """Whether ``node`` evaluates to a string: a literal, an f-string, ``+`` with a string
    on either side, ``%`` with a string on its left, ``str.format``, a conditional either of
    whose branches is one, or a name that ``lookup`` resolves to strings."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        return is_string_expr(node.left, lookup) or (isinstance(node.op, ast.Add) and is_string_expr(node.right, lookup))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr == "format" and is_string_expr(node.func.value, lookup)
    if isinstance(node, ast.IfExp):
        return is_string_expr(node.body, lookup) or is_string_expr(node.orelse, lookup)
    if isinstance(node, (ast.Name, ast.Attribute)) and lookup is not None:
        return lookup(node) is not None
    return False


class SourceText:
    """The lines of one file, to cut out the source of a node by its ast position.

    ``ast`` positions count columns in UTF-8 bytes and lines by ``\\n``, ``\\r\\n``
    and ``\\r`` only; ``str.splitlines`` would also split on form feeds and others.
    """

    def __init__(self, text: str):
        self.lines = re.split(r"\r\n|\r|\n", text)
        self._encoded: dict[int, bytes] = {}

    def _line(self, lineno: int) -> bytes:
        raw = self._encoded.get(lineno)
        if raw is None:
            raw = self.lines[lineno - 1].encode("utf-8")
            self._encoded[lineno] = raw
        return raw

    def segment(self, node: ast.AST) -> str:
        first, last = node.lineno, node.end_lineno
        start, end = node.col_offset, node.end_col_offset
        if first == last:
            return self._line(first)[start:end].decode("utf-8", "replace")
        pieces = [self._line(first)[start:].decode("utf-8", "replace")]
        pieces.extend(self.lines[first : last - 1])
        pieces.append(self._line(last)[:end].decode("utf-8", "replace"))
        return "\n".join(pieces)

    def one_line(self, node: ast.AST) -> str:
        """The node's source text joined onto one line, comments left out."""
        if node.lineno == node.end_lineno:
            return self.segment(node)
        return join_lines(self.segment(node)) or ast.unparse(node)


def join_lines(text: str) -> str | None:
    """Source text of an expression spanning lines, as one line; None if it can't tell."""
    comments: dict[int, int] = {}  # line index -> column where its comment starts
    try:
        # Wrapped in brackets so that line breaks and indentation mean nothing.
        for tok in tokenize.generate_tokens(io.StringIO("(" + text + "\n)").readline):
            if tok.type == tokenize.COMMENT:
                row = tok.start[0] - 1
                comments[row] = tok.start[1] - (1 if row == 0 else 0)
            elif tok.type == tokenize.STRING and tok.start[0] != tok.end[0]:
                return None  # a string spanning lines: joining would change it
    except (tokenize.TokenError, SyntaxError):
        return None
    out = ""
    for index, line in enumerate(text.split("\n")):
        if index in comments:
            line = line[: comments[index]]
        line = line.strip()
        if not line:
            continue
        if out and not (out[-1] in "([{" or line[0] in ")]},"):
            out += " "
        out += line
    return out


class TemplateBuilder:
    """Turns a message expression into its template variants."""

    def __init__(self, source: SourceText, lookup: Lookup, spread: bool = True, inline_holes: bool = False):
        self.source = source
        self.lookup = lookup
        # An f-string's name inlines only a literal string, as ids were first published; a
        # template with holes of its own too where what is built is never hashed (the
        # strings a helper returns, which are other forms of a message only).
        self.inline_holes = inline_holes
        # ``message % args`` with several conversions: ``args`` must be a tuple, so it
        # spreads as ``{args[0]}``, ``{args[1]}``, ... The scanner first filled only the
        # first conversion; ``spread=False`` builds that form, which published ids hash.
        self.spread = spread
        self.spread_used = False

    def hole(self, node: ast.AST, suffix: str = "") -> Template:
        return (Hole(self.source.one_line(node), suffix),)

    def build(self, node: ast.expr) -> list[Template]:
        variants = self._build(node)
        unique: dict[Template, None] = {}
        for variant in variants:
            unique.setdefault(_merge_literals(variant), None)
        return list(unique)[:MAX_VARIANTS]

    def is_stringish(self, node: ast.expr) -> bool:
        """Whether ``node`` evaluates to a string we can say something about."""
        return is_string_expr(node, self.lookup)

    def _build(self, node: ast.expr) -> list[Template]:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str):
                return [(node.value,)]
            return [self.hole(node)]
        if isinstance(node, ast.JoinedStr):
            return [self._fstring(node)]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            if self.is_stringish(node.left) or self.is_stringish(node.right):
                return _product(self._build(node.left), self._build(node.right))
            return [self.hole(node)]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            if self.is_stringish(node.left):
                return [self._percent(t, node.right) for t in self._build(node.left)]
            return [self.hole(node)]
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "format"
            and self.is_stringish(node.func.value)
        ):
            out = []
            for receiver in self._build(node.func.value):
                formatted = self._format(receiver, node)
                out.append(formatted if formatted is not None else self.hole(node))
            return out
        if isinstance(node, ast.IfExp) and self.is_stringish(node):
            return self._build(node.body) + self._build(node.orelse)
        if isinstance(node, (ast.Name, ast.Attribute)):
            found = self.lookup(node)
            if found:
                return found
        return [self.hole(node)]

    # f-strings, read with libcst ----------------------------------------------------

    def _fstring(self, node: ast.JoinedStr) -> Template:
        expr = _parse_fstring(self.source.segment(node))
        if expr is None:  # libcst reads a grammar ast accepted; keep the whole as a hole
            return self.hole(node)
        return _merge_literals(self._cst_parts(expr))

    def _cst_parts(self, node: cst.BaseExpression) -> list[Part]:
        if isinstance(node, cst.ConcatenatedString):
            return self._cst_parts(node.left) + self._cst_parts(node.right)
        if isinstance(node, cst.SimpleString):
            value = node.evaluated_value
            return [value if isinstance(value, str) else value.decode("latin-1")]
        if isinstance(node, cst.FormattedString):
            parts: list[Part] = []
            for piece in node.parts:
                if isinstance(piece, cst.FormattedStringText):
                    parts.append(_fstring_text(piece.value, node.prefix, node.quote))
                else:
                    parts.extend(self._cst_expression(piece))
            return parts
        return [Hole(_cst_code(node))]

    def _cst_expression(self, piece: cst.FormattedStringExpression) -> list[Part]:
        expr = _cst_code(piece.expression)
        suffix = ""
        if piece.conversion:
            suffix += "!" + piece.conversion
        if piece.format_spec:
            suffix += ":" + "".join(_cst_code(p) for p in piece.format_spec)
        parts: list[Part] = []
        if piece.equal is not None:  # f"{x=}" prints "x=" then repr(x)
            parts.append(expr + "=")
            suffix = suffix or "!r"
        if not suffix or suffix == "!s":
            inlined = self._inline_constant(expr)
            if inlined is not None:
                return parts + list(inlined)
        parts.append(Hole(expr, suffix))
        return parts

    def _inline_constant(self, expr: str) -> Template | None:
        """A name inside an f-string that holds one known literal string is inlined."""
        node = _dotted_name(expr)
        if node is None:
            return None
        found = self.lookup(node)
        if found and len(found) == 1 and (self.inline_holes or not any(isinstance(p, Hole) for p in found[0])):
            return found[0]
        return None

    # %-formatting and str.format --------------------------------------------------

    def _percent(self, template: Template, right: ast.expr) -> Template:
        if isinstance(right, ast.Tuple):
            positional: list[ast.expr] = list(right.elts)
            keyed: dict[str, ast.expr] = {}
        elif isinstance(right, ast.Dict):
            positional = []
            keyed = {
                k.value: v
                for k, v in zip(right.keys, right.values)
                if isinstance(k, ast.Constant) and isinstance(k.value, str)
            }
        else:
            positional, keyed = [right], {}
            conversions = sum(
                1
                for part in template
                if not isinstance(part, Hole)
                for m in _PERCENT.finditer(part)
                if m.group("type") != "%" and m.group("key") is None
            )
            if self.spread and conversions > 1 and not isinstance(right, (ast.Constant, ast.JoinedStr)):
                name = self.source.one_line(right)
                name = name if name.isidentifier() else f"({name})"
                positional = [ast.Name(id=f"{name}[{i}]") for i in range(conversions)]
                self.spread_used = True
        args = iter(positional)
        out: list[Part] = []
        for part in template:
            if isinstance(part, Hole):
                out.append(part)
                continue
            pos = 0
            for match in _PERCENT.finditer(part):
                out.append(part[pos : match.start()])
                pos = match.end()
                kind = match.group("type")
                if kind == "%":
                    out.append("%")
                    continue
                key = match.group("key")
                if key is not None:
                    arg = keyed.get(key)
                    text = None if arg is not None else key
                else:
                    arg = next(args, None)
                    text = None if arg is not None else "..."
                suffix = _percent_suffix(match)
                if arg is None:
                    out.append(Hole(text or "...", suffix))
                elif isinstance(arg, ast.Constant) and isinstance(arg.value, str) and not suffix:
                    out.append(arg.value)
                elif isinstance(arg, ast.Name) and not hasattr(arg, "lineno"):  # a spread tuple's item
                    out.append(Hole(arg.id, suffix))
                else:
                    out.append(Hole(self.source.one_line(arg), suffix))
            out.append(part[pos:])
        return _merge_literals(out)

    def _format(self, template: Template, call: ast.Call) -> Template | None:
        # Arguments after a *starred one have no known position.
        starred = next((i for i, a in enumerate(call.args) if isinstance(a, ast.Starred)), None)
        positional = call.args[:starred] if starred is not None else call.args
        keywords = {kw.arg: kw.value for kw in call.keywords if kw.arg}
        auto = 0
        out: list[Part] = []
        for part in template:
            if isinstance(part, Hole):
                out.append(part)
                continue
            try:
                fields = list(string.Formatter().parse(part))
            except ValueError:
                return None
            for literal, field, spec, conversion in fields:
                out.append(literal)
                if field is None:
                    continue
                head = re.match(r"[^.\[]*", field).group(0)
                rest = field[len(head) :]
                if head == "":
                    index: int | str = auto
                    auto += 1
                elif head.isdigit():
                    index = int(head)
                else:
                    index = head
                if isinstance(index, int):
                    arg = positional[index] if index < len(positional) else None
                else:
                    arg = keywords.get(index)
                suffix = ("!" + conversion if conversion else "") + (":" + spec if spec else "")
                if arg is None:
                    out.append(Hole((head or "...") + rest, suffix))
                elif isinstance(arg, ast.Constant) and isinstance(arg.value, str) and not suffix and not rest:
                    out.append(arg.value)
                else:
                    out.append(Hole(self.source.one_line(arg) + rest, suffix))
        return _merge_literals(out)


_PERCENT = re.compile(
    r"%(?:\((?P<key>[^)]*)\))?(?P<flags>[#0\- +]*)(?P<width>\*|\d+)?"
    r"(?:\.(?P<prec>\*|\d+))?[hlL]?(?P<type>[diouxXeEfFgGcrsa%])"
)


def _percent_suffix(match: re.Match) -> str:
    kind = match.group("type")
    flags, width, prec = match.group("flags"), match.group("width"), match.group("prec")
    if kind in "ra":
        return "!" + kind
    if kind in "sdiu" and not (flags or width or prec):
        return ""
    spec = (flags or "") + (width or "") + ("." + prec if prec else "") + ("d" if kind in "iu" else kind)
    return ":" + spec


def _product(left: Sequence[Template], right: Sequence[Template]) -> list[Template]:
    return [l + r for l in left for r in right][:MAX_VARIANTS]


def _unparen(node: cst.BaseExpression) -> cst.BaseExpression:
    # parse_expression keeps our wrapping parentheses on the node itself
    return node.with_changes(lpar=[], rpar=[]) if getattr(node, "lpar", None) else node


_EMPTY_MODULE = cst.Module(body=[])


def _cst_code(node: cst.CSTNode) -> str:
    code = _EMPTY_MODULE.code_for_node(node)
    return _WS.sub(" ", code).strip() if "\n" in code else code.strip()


def _fstring_text(raw: str, prefix: str, quote: str) -> str:
    """The characters a literal piece of an f-string stands for."""
    plain_prefix = prefix.lower().replace("f", "")
    try:
        value = ast.literal_eval(plain_prefix + quote + raw + quote)
    except (SyntaxError, ValueError):
        value = raw
    # In an f-string "{{" and "}}" stand for one brace.
    return value.replace("{{", "{").replace("}}", "}")


@functools.lru_cache(maxsize=1 << 14)
def _parse_fstring(text: str) -> cst.BaseExpression | None:
    """An f-string's tree (libcst's trees are immutable): the same message recurs from
    release to release, and libcst's parser is the slowest step of a walk."""
    try:
        return _unparen(cst.parse_expression("(" + text + "\n)"))
    except Exception:
        return None


@functools.lru_cache(maxsize=1 << 14)
def _dotted_name(expr: str) -> ast.expr | None:
    """The expression of an f-string's hole that is a name (``x``, ``self.limit``), parsed
    once for all: the same few names fill most holes, and a lookup only reads the node."""
    if not re.fullmatch(r"[A-Za-z_][\w.]*", expr):
        return None
    try:
        return ast.parse(expr, mode="eval").body
    except SyntaxError:
        return None

