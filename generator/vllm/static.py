"""A static reader of Python source: modules, imports, classes, constants and defaults.

The modules of one revision are read as text through a ``read(path)`` callable (git
blobs, a dict in tests) and parsed into syntax trees; nothing is imported or executed.
On those trees this module follows what plain Python source says:

* imports, relative ones and re-exports included (``from vllm.config import X`` through
  ``vllm/config/__init__.py`` to the defining module, ``from .x import *``), looking into
  ``if``/``try`` blocks (TYPE_CHECKING, fallbacks);
* classes, their attributes with the docstring written under each, and their dataclass
  fields, base classes' first;
* values as literal Python source: literals and number arithmetic (``16 * 1024``), module
  constants, class attributes (``SchedulerConfig.max_num_seqs``), ``Field(default=...)``,
  ``field(default_factory=list)``, ``Enum.MEMBER.value``. What is not a literal stays
  unknown (None): nothing is guessed.

It knows nothing of vLLM or argparse (``generator.vllm.engine_args`` does). Pure: no
disk and no processes of its own -- only what ``read`` does.
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

__all__ = [
    "Reader", "Module", "Source", "Attr", "Resolver",
    "is_enum", "unparse", "type_text", "first_paragraph", "call_name", "kwarg", "str_const",
    "union_members", "walk_calls", "receiver",
]

Reader = Callable[[str], "str | None"]

_MAX_DEPTH = 12
_FACTORIES = {"list": "[]", "dict": "{}", "set": "set()", "tuple": "()"}


# --------------------------------------------------------------------------- modules


@dataclass
class Module:
    """One parsed module: its tree and the classes, imports and constants it defines at top level."""

    name: str  # dotted module name
    path: str
    source: str
    tree: ast.Module
    package: str  # package for relative imports
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    imports: dict[str, tuple[str, str]] = field(default_factory=dict)  # local -> (module, name)
    star_imports: list[str] = field(default_factory=list)
    constants: dict[str, ast.expr] = field(default_factory=dict)


def _top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Module-level statements, looking into ``if``/``try`` blocks (TYPE_CHECKING, fallbacks)."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.If):
            yield from _top_level(stmt.body)
            yield from _top_level(stmt.orelse)
        elif isinstance(stmt, ast.Try):
            yield from _top_level(stmt.body)
            for handler in stmt.handlers:
                yield from _top_level(handler.body)
            yield from _top_level(stmt.orelse)


def _absolute(package: str, module: str | None, level: int) -> str:
    if not level:
        return module or ""
    parts = package.split(".") if package else []
    if level > 1:
        parts = parts[: len(parts) - (level - 1)]
    if module:
        parts.append(module)
    return ".".join(parts)


class Source:
    """The Python modules of one revision, parsed on demand through ``read``."""

    def __init__(self, read: Reader):
        self._read = read
        self._modules: dict[str, Module | None] = {}
        self._texts: dict[str, str | None] = {}

    def text(self, path: str) -> str | None:
        if path not in self._texts:
            self._texts[path] = self._read(path)  # a reader's own errors propagate
        return self._texts[path]

    def module_at(self, path: str) -> Module | None:
        name = path.removesuffix(".py").replace("/", ".")
        is_package = name.endswith(".__init__")
        name = name.removesuffix(".__init__")
        key = f"@{path}"
        if key in self._modules:
            return self._modules[key]
        text = self.text(path)
        module = None
        if text is not None:
            try:
                tree = ast.parse(text)
            except (SyntaxError, ValueError):
                tree = None
            if tree is not None:
                package = name if is_package else name.rpartition(".")[0]
                module = Module(name=name, path=path, source=text, tree=tree, package=package)
                self._index(module)
        self._modules[key] = module
        return module

    def module(self, name: str) -> Module | None:
        if name not in self._modules:
            base = name.replace(".", "/")
            found = None
            for path in (f"{base}.py", f"{base}/__init__.py"):
                found = self.module_at(path)
                if found is not None:
                    break
            self._modules[name] = found
        return self._modules[name]

    @staticmethod
    def _index(module: Module) -> None:
        for stmt in _top_level(module.tree.body):
            if isinstance(stmt, ast.ClassDef):
                module.classes.setdefault(stmt.name, stmt)
            elif isinstance(stmt, ast.ImportFrom):
                source = _absolute(module.package, stmt.module, stmt.level)
                for alias in stmt.names:
                    if alias.name == "*":
                        module.star_imports.append(source)
                    else:
                        module.imports[alias.asname or alias.name] = (source, alias.name)
            elif isinstance(stmt, ast.Assign) and stmt.value is not None:
                for target in stmt.targets:
                    if isinstance(target, ast.Name):
                        module.constants[target.id] = stmt.value
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None \
                    and isinstance(stmt.target, ast.Name):
                module.constants[stmt.target.id] = stmt.value

    # -- names

    def find_class(self, module: Module, name: str, depth: int = 0) -> tuple[Module, ast.ClassDef] | None:
        """The class ``name`` as seen from ``module`` (defined there or imported)."""
        if depth > _MAX_DEPTH:
            return None
        if name in module.classes:
            return module, module.classes[name]
        if name in module.imports:
            source, original = module.imports[name]
            target = self.module(source)
            if target is not None and target is not module:
                return self.find_class(target, original, depth + 1)
            return None
        for source in module.star_imports:
            target = self.module(source)
            if target is not None and target is not module:
                found = self.find_class(target, name, depth + 1)
                if found:
                    return found
        return None

    def find_constant(self, module: Module, name: str, depth: int = 0) -> tuple[Module, ast.expr] | None:
        """The value assigned to the module-level name ``name`` (defined or imported)."""
        if depth > _MAX_DEPTH:
            return None
        if name in module.constants:
            return module, module.constants[name]
        if name in module.imports:
            source, original = module.imports[name]
            target = self.module(source)
            if target is not None and target is not module:
                return self.find_constant(target, original, depth + 1)
        return None


# --------------------------------------------------------------------------- classes


@dataclass
class Attr:
    """One attribute of a class body (a dataclass field when it is annotated)."""

    name: str
    annotation: ast.expr | None
    value: ast.expr | None
    doc: str
    module: Module
    cls: ast.ClassDef


def _docstring_after(body: list[ast.stmt], index: int) -> str:
    if index + 1 < len(body):
        nxt = body[index + 1]
        if isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant) \
                and isinstance(nxt.value.value, str):
            return nxt.value.value
    return ""


def _is_classvar(annotation: ast.expr) -> bool:
    text = unparse(annotation)
    return bool(re.match(r"^(typing\.)?ClassVar\b", text.strip("'\"")))


def _own_attrs(module: Module, cls: ast.ClassDef) -> list[Attr]:
    attrs: list[Attr] = []
    for i, stmt in enumerate(cls.body):
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            attrs.append(Attr(stmt.target.id, stmt.annotation, stmt.value,
                               _docstring_after(cls.body, i), module, cls))
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], ast.Name):
            attrs.append(Attr(stmt.targets[0].id, None, stmt.value,
                               _docstring_after(cls.body, i), module, cls))
    return attrs


def is_enum(cls: ast.ClassDef) -> bool:
    for base in cls.bases:
        name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
        if name.endswith(("Enum", "Flag")):
            return True
    return False


# --------------------------------------------------------------------------- helpers


def unparse(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # pragma: no cover - ast.unparse handles every parsed node
        return ""


def type_text(annotation: ast.expr | None) -> str:
    if annotation is None:
        return ""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return " ".join(annotation.value.split())  # a string annotation: its text
    return unparse(annotation)


def first_paragraph(text: str) -> str:
    text = inspect.cleandoc(text or "")
    for paragraph in re.split(r"\n\s*\n", text):
        collapsed = " ".join(paragraph.split())
        if collapsed:
            return collapsed
    return ""


def call_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def kwarg(call: ast.Call, name: str) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    return None


def str_const(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def union_members(annotation: ast.expr | None) -> list[str]:
    """The names in a union annotation: ``bool | None`` -> ["bool", "None"]."""
    if annotation is None:
        return []
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return []
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return union_members(annotation.left) + union_members(annotation.right)
    if isinstance(annotation, ast.Subscript):
        head = call_name(annotation.value)
        inner = annotation.slice
        items = list(inner.elts) if isinstance(inner, ast.Tuple) else [inner]
        if head == "Optional":
            return [m for item in items for m in union_members(item)] + ["None"]
        if head == "Union":
            return [m for item in items for m in union_members(item)]
        if head == "Annotated" and items:
            return union_members(items[0])
        return [unparse(annotation)]
    if isinstance(annotation, ast.Constant) and annotation.value is None:
        return ["None"]
    if isinstance(annotation, (ast.Name, ast.Attribute)):
        return [call_name(annotation)]
    return [unparse(annotation)]


def walk_calls(tree: ast.AST, method: str) -> Iterator[ast.Call]:
    """Every call of a method named ``method`` in ``tree``: ``x.method(...)``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == method:
            yield node


def receiver(call: ast.Call) -> str:
    """The name a method is called on (``parser`` in ``parser.add_argument(...)``), else ""."""
    value = call.func.value if isinstance(call.func, ast.Attribute) else None
    return value.id if isinstance(value, ast.Name) else ""


# --------------------------------------------------------------------------- values

_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.LShift)


def _is_literal(expr: ast.expr) -> bool:
    """A literal (``ast.literal_eval`` takes it) or arithmetic on number literals (``16 * 1024``)."""
    try:
        ast.literal_eval(expr)
        return True
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass
    return _is_number_arithmetic(expr)


def _is_number_arithmetic(expr: ast.expr) -> bool:
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, (int, float)) and not isinstance(expr.value, bool)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        return _is_number_arithmetic(expr.operand)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, _ARITHMETIC):
        return _is_number_arithmetic(expr.left) and _is_number_arithmetic(expr.right)
    return False


class Resolver:
    """Values, attributes and dataclass fields of the classes of a ``Source``'s modules."""

    def __init__(self, src: Source):
        self.src = src

    def value(self, module: Module, expr: ast.expr | None, cls: ast.ClassDef | None = None,
              depth: int = 0) -> str | None:
        """``expr`` as literal Python source, following names and config attributes; else None."""
        if expr is None or depth > _MAX_DEPTH:
            return None
        if isinstance(expr, ast.Call):
            name = call_name(expr.func)
            if name in ("Field", "field"):
                return self.field_call(module, expr, cls, depth)
            if name in _FACTORIES and isinstance(expr.func, ast.Name) \
                    and not expr.args and not expr.keywords:
                return _FACTORIES[name]
            return None
        if _is_literal(expr):
            return unparse(expr)
        if isinstance(expr, ast.Name):
            if cls is not None:  # a name of the class body (defined before use)
                for attr in _own_attrs(module, cls):
                    if attr.name == expr.id and attr.value is not None:
                        return self.value(module, attr.value, cls, depth + 1)
            found = self.src.find_constant(module, expr.id)
            if found:
                return self.value(found[0], found[1], None, depth + 1)
            return None
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
            found_cls = self.src.find_class(module, expr.value.id)
            if found_cls and not is_enum(found_cls[1]):
                return self.class_default(found_cls[0], found_cls[1], expr.attr, depth + 1)
        if isinstance(expr, ast.Attribute) and expr.attr == "value" \
                and isinstance(expr.value, ast.Attribute) and isinstance(expr.value.value, ast.Name):
            # Enum.MEMBER.value: the value the member is defined with
            found_cls = self.src.find_class(module, expr.value.value.id)
            if found_cls and is_enum(found_cls[1]):
                for attr in _own_attrs(found_cls[0], found_cls[1]):
                    if attr.name == expr.value.attr and attr.value is not None \
                            and _is_literal(attr.value):
                        return unparse(attr.value)
            return None
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
            operand = self.value(module, expr.operand, cls, depth + 1)
            if operand in ("True", "False"):
                return "False" if operand == "True" else "True"
        return None

    def string(self, module: Module, expr: ast.expr | None) -> str:
        """The text of a string-valued expression (a literal or a constant), else ""."""
        source = self.value(module, expr)
        if source is None:
            return ""
        try:
            text = ast.literal_eval(source)
        except (ValueError, SyntaxError):
            return ""
        return text if isinstance(text, str) else ""

    def field_call(self, module: Module, call: ast.Call, cls: ast.ClassDef | None, depth: int) -> str | None:
        """``Field(default=...)``/``field(default_factory=...)``: the default's source, or None."""
        default = kwarg(call, "default")
        if default is None and call_name(call.func) == "Field" and call.args:
            default = call.args[0]  # pydantic's Field(default, ...)
        if default is not None:
            if isinstance(default, ast.Constant) and default.value is Ellipsis:
                return None  # required
            return self.value(module, default, cls, depth + 1)
        factory = kwarg(call, "default_factory")
        if factory is not None:
            return self.factory(module, factory, cls, depth)
        return None

    def factory(self, module: Module, factory: ast.expr, cls: ast.ClassDef | None, depth: int) -> str | None:
        if isinstance(factory, ast.Name) and factory.id in _FACTORIES:
            return _FACTORIES[factory.id]
        if isinstance(factory, ast.Lambda) and not factory.args.args:
            return self.value(module, factory.body, cls, depth + 1)
        return None

    def class_attr(self, module: Module, cls: ast.ClassDef, name: str, depth: int = 0) -> Attr | None:
        """The attribute ``name`` of ``cls`` or of its base classes."""
        if depth > _MAX_DEPTH:
            return None
        for attr in _own_attrs(module, cls):
            if attr.name == name:
                return attr
        for base in cls.bases:
            if isinstance(base, ast.Name):
                found = self.src.find_class(module, base.id)
                if found and found[1] is not cls:
                    attr = self.class_attr(found[0], found[1], name, depth + 1)
                    if attr:
                        return attr
        return None

    def class_default(self, module: Module, cls: ast.ClassDef, name: str, depth: int = 0) -> str | None:
        attr = self.class_attr(module, cls, name)
        if attr is None or attr.value is None:
            return None
        return self.value(attr.module, attr.value, attr.cls, depth + 1)

    def fields(self, module: Module, cls: ast.ClassDef, depth: int = 0) -> list[Attr]:
        """The dataclass fields of ``cls``, base classes' first (as ``dataclasses.fields``)."""
        if depth > _MAX_DEPTH:
            return []
        ordered: dict[str, Attr] = {}
        for base in cls.bases:
            if isinstance(base, ast.Name):
                found = self.src.find_class(module, base.id)
                if found and found[1] is not cls:
                    for attr in self.fields(found[0], found[1], depth + 1):
                        ordered[attr.name] = attr
        for attr in _own_attrs(module, cls):
            if attr.annotation is not None and not _is_classvar(attr.annotation):
                ordered[attr.name] = attr
        return list(ordered.values())
