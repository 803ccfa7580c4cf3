"""vLLM's engine arguments at a revision, read statically from the source.

Pages list the engine arguments involved in an error (flag, type, default, help), and
``errorkb check`` rejects commands that pass flags the pinned vLLM does not have. Both
need the arguments of a revision without installing vLLM: this module reads the text of
``vllm/engine/arg_utils.py`` and the modules it points at (git blobs, through a
``read(path)`` callable) and works on their syntax trees only -- nothing is imported or
executed.

* ``EngineArgs`` (and ``AsyncEngineArgs``) dataclass fields are the engine arguments.
  A field's default is resolved where it points: ``SchedulerConfig.max_num_seqs`` and
  ``get_field(ModelConfig, "x")`` are looked up in the config class, found by following
  the imports of ``arg_utils.py`` (``from vllm.config import X`` through the re-exports
  of ``vllm/config/__init__.py`` to the defining module); ``Field(default=...)``,
  ``field(default=...)``, ``default_factory=list`` and module constants are understood.
  What is not a literal stays unknown (``default == ""``): nothing is guessed.
* ``add_cli_args`` (``*.add_argument("--x", **cache_kwargs["attr"])``) says which config
  class and attribute a flag is registered from (its group and help text), its other
  option strings (``-tp``, ``--device-memory-utilization``) and whether argparse also
  takes ``--no-x`` (``BooleanOptionalAction``, explicit or from ``get_kwargs`` for
  bool fields; ``store_true`` flags are not negatable).
* The server's own flags come from the frontend module that ``vllm serve`` builds its
  parser with (``FrontendArgs``-like dataclasses in newer releases, ``add_argument``
  calls in older ones).
"""

from __future__ import annotations

import ast
import functools
import inspect
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

__all__ = ["EngineArg", "parse_engine_args", "serve_flags", "engine_args_at", "serve_flags_at"]

Reader = Callable[[str], "str | None"]

ARG_UTILS = "vllm/engine/arg_utils.py"
ENGINE_CLASSES = ("EngineArgs", "AsyncEngineArgs")
# Where `vllm serve` (or, before it existed, the OpenAI server) registers its own flags.
SERVE_CLI = "vllm/entrypoints/cli/serve.py"
LEGACY_SCRIPTS = "vllm/scripts.py"
FRONTEND_CANDIDATES = (
    "vllm/entrypoints/openai/cli_args.py",
    "vllm/entrypoints/launchers/cli_args.py",
    "vllm/entrypoints/common/cli_args.py",
)

_MAX_DEPTH = 12
_FACTORIES = {"list": "[]", "dict": "{}", "set": "set()", "tuple": "()"}


@dataclass(frozen=True)
class EngineArg:
    name: str  # field name, e.g. "max_num_seqs"
    flag: str  # "--max-num-seqs" (as add_cli_args registers it, when it does)
    type: str  # annotation source text, e.g. "int | None"
    default: str  # resolved default as Python source ("None", "0.92", "'auto'"); "" when unknown
    default_from: str  # where it was resolved from ("SchedulerConfig.max_num_seqs"); "" when literal
    help: str  # the config attribute's docstring (first paragraph, whitespace collapsed)
    group: str  # the config class it belongs to ("SchedulerConfig"), or ""
    negatable: bool  # argparse also accepts --no-<name>


# --------------------------------------------------------------------------- modules


@dataclass
class _Module:
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


class _Source:
    """The Python modules of one revision, parsed on demand through ``read``."""

    def __init__(self, read: Reader):
        self._read = read
        self._modules: dict[str, _Module | None] = {}
        self._texts: dict[str, str | None] = {}

    def text(self, path: str) -> str | None:
        if path not in self._texts:
            self._texts[path] = self._read(path)  # a reader's own errors propagate
        return self._texts[path]

    def module_at(self, path: str) -> _Module | None:
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
                module = _Module(name=name, path=path, source=text, tree=tree, package=package)
                self._index(module)
        self._modules[key] = module
        return module

    def module(self, name: str) -> _Module | None:
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
    def _index(module: _Module) -> None:
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

    def find_class(self, module: _Module, name: str, depth: int = 0) -> tuple[_Module, ast.ClassDef] | None:
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

    def find_constant(self, module: _Module, name: str, depth: int = 0) -> tuple[_Module, ast.expr] | None:
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
class _Attr:
    """One attribute of a class body (a dataclass field when it is annotated)."""

    name: str
    annotation: ast.expr | None
    value: ast.expr | None
    doc: str
    module: _Module
    cls: ast.ClassDef


def _docstring_after(body: list[ast.stmt], index: int) -> str:
    if index + 1 < len(body):
        nxt = body[index + 1]
        if isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant) \
                and isinstance(nxt.value.value, str):
            return nxt.value.value
    return ""


def _is_classvar(annotation: ast.expr) -> bool:
    text = _unparse(annotation)
    return bool(re.match(r"^(typing\.)?ClassVar\b", text.strip("'\"")))


def _own_attrs(module: _Module, cls: ast.ClassDef) -> list[_Attr]:
    attrs: list[_Attr] = []
    for i, stmt in enumerate(cls.body):
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            attrs.append(_Attr(stmt.target.id, stmt.annotation, stmt.value,
                               _docstring_after(cls.body, i), module, cls))
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], ast.Name):
            attrs.append(_Attr(stmt.targets[0].id, None, stmt.value,
                               _docstring_after(cls.body, i), module, cls))
    return attrs


def _is_enum(cls: ast.ClassDef) -> bool:
    for base in cls.bases:
        name = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
        if name.endswith(("Enum", "Flag")):
            return True
    return False


# --------------------------------------------------------------------------- helpers


def _unparse(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # pragma: no cover - ast.unparse handles every parsed node
        return ""


def _type_text(annotation: ast.expr | None) -> str:
    if annotation is None:
        return ""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return " ".join(annotation.value.split())  # a string annotation: its text
    return _unparse(annotation)


def _first_paragraph(text: str) -> str:
    text = inspect.cleandoc(text or "")
    for paragraph in re.split(r"\n\s*\n", text):
        collapsed = " ".join(paragraph.split())
        if collapsed:
            return collapsed
    return ""


def _call_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _kw(call: ast.Call, name: str) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    return None


def _str_const(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _union_members(annotation: ast.expr | None) -> list[str]:
    """The names in a union annotation: ``bool | None`` -> ["bool", "None"]."""
    if annotation is None:
        return []
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return []
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return _union_members(annotation.left) + _union_members(annotation.right)
    if isinstance(annotation, ast.Subscript):
        head = _call_name(annotation.value)
        inner = annotation.slice
        items = list(inner.elts) if isinstance(inner, ast.Tuple) else [inner]
        if head == "Optional":
            return [m for item in items for m in _union_members(item)] + ["None"]
        if head == "Union":
            return [m for item in items for m in _union_members(item)]
        if head == "Annotated" and items:
            return _union_members(items[0])
        return [_unparse(annotation)]
    if isinstance(annotation, ast.Constant) and annotation.value is None:
        return ["None"]
    if isinstance(annotation, (ast.Name, ast.Attribute)):
        return [_call_name(annotation)]
    return [_unparse(annotation)]


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


class _Resolver:
    def __init__(self, src: _Source):
        self.src = src

    def value(self, module: _Module, expr: ast.expr | None, cls: ast.ClassDef | None = None,
              depth: int = 0) -> str | None:
        """``expr`` as literal Python source, following names and config attributes; else None."""
        if expr is None or depth > _MAX_DEPTH:
            return None
        if isinstance(expr, ast.Call):
            name = _call_name(expr.func)
            if name in ("Field", "field"):
                return self.field_call(module, expr, cls, depth)
            if name in _FACTORIES and isinstance(expr.func, ast.Name) \
                    and not expr.args and not expr.keywords:
                return _FACTORIES[name]
            return None
        if _is_literal(expr):
            return _unparse(expr)
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
            if found_cls and not _is_enum(found_cls[1]):
                return self.class_default(found_cls[0], found_cls[1], expr.attr, depth + 1)
        if isinstance(expr, ast.Attribute) and expr.attr == "value" \
                and isinstance(expr.value, ast.Attribute) and isinstance(expr.value.value, ast.Name):
            # Enum.MEMBER.value: the value the member is defined with
            found_cls = self.src.find_class(module, expr.value.value.id)
            if found_cls and _is_enum(found_cls[1]):
                for attr in _own_attrs(found_cls[0], found_cls[1]):
                    if attr.name == expr.value.attr and attr.value is not None \
                            and _is_literal(attr.value):
                        return _unparse(attr.value)
            return None
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
            operand = self.value(module, expr.operand, cls, depth + 1)
            if operand in ("True", "False"):
                return "False" if operand == "True" else "True"
        return None

    def string(self, module: _Module, expr: ast.expr | None) -> str:
        """The text of a string-valued expression (a literal or a constant), else ""."""
        source = self.value(module, expr)
        if source is None:
            return ""
        try:
            text = ast.literal_eval(source)
        except (ValueError, SyntaxError):
            return ""
        return text if isinstance(text, str) else ""

    def field_call(self, module: _Module, call: ast.Call, cls: ast.ClassDef | None, depth: int) -> str | None:
        """``Field(default=...)``/``field(default_factory=...)``: the default's source, or None."""
        default = _kw(call, "default")
        if default is None and _call_name(call.func) == "Field" and call.args:
            default = call.args[0]  # pydantic's Field(default, ...)
        if default is not None:
            if isinstance(default, ast.Constant) and default.value is Ellipsis:
                return None  # required
            return self.value(module, default, cls, depth + 1)
        factory = _kw(call, "default_factory")
        if factory is not None:
            return self.factory(module, factory, cls, depth)
        return None

    def factory(self, module: _Module, factory: ast.expr, cls: ast.ClassDef | None, depth: int) -> str | None:
        if isinstance(factory, ast.Name) and factory.id in _FACTORIES:
            return _FACTORIES[factory.id]
        if isinstance(factory, ast.Lambda) and not factory.args.args:
            return self.value(module, factory.body, cls, depth + 1)
        return None

    def class_attr(self, module: _Module, cls: ast.ClassDef, name: str, depth: int = 0) -> _Attr | None:
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

    def class_default(self, module: _Module, cls: ast.ClassDef, name: str, depth: int = 0) -> str | None:
        attr = self.class_attr(module, cls, name)
        if attr is None or attr.value is None:
            return None
        return self.value(attr.module, attr.value, attr.cls, depth + 1)

    def fields(self, module: _Module, cls: ast.ClassDef, depth: int = 0) -> list[_Attr]:
        """The dataclass fields of ``cls``, base classes' first (as ``dataclasses.fields``)."""
        if depth > _MAX_DEPTH:
            return []
        ordered: dict[str, _Attr] = {}
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


# --------------------------------------------------------------------------- add_argument


@dataclass
class _Option:
    """One ``add_argument`` call."""

    options: list[str]  # option strings, as written ("--tensor-parallel-size", "-tp")
    dest: str  # the attribute it sets
    group: str  # the title of its argument group, when it has one
    config: tuple[str, str] | None  # (config class, attribute) of ``**X_kwargs["attr"]``
    action: ast.expr | None  # explicit action=
    help: ast.expr | None  # explicit help=


def _walk_calls(tree: ast.AST, method: str) -> Iterator[ast.Call]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == method:
            yield node


def _receiver(call: ast.Call) -> str:
    value = call.func.value if isinstance(call.func, ast.Attribute) else None
    return value.id if isinstance(value, ast.Name) else ""


def _options(module: _Module) -> list[_Option]:
    """Every ``x.add_argument(...)`` call of ``module`` with its option strings."""
    tree = module.tree
    kwargs_of: dict[str, tuple[str, str | None]] = {}  # variable -> (config class, attribute)
    group_title: dict[str, str] = {}
    assigns = [node for node in ast.walk(tree)
               if isinstance(node, ast.Assign) and len(node.targets) == 1
               and isinstance(node.targets[0], ast.Name)]
    assigns.sort(key=lambda node: (node.lineno, node.col_offset))  # source order
    for node in assigns:
        target, value = node.targets[0].id, node.value
        ref = _kwargs_ref(value, kwargs_of)
        if ref is not None:
            kwargs_of[target] = ref
        elif isinstance(value, ast.Call) and _call_name(value.func) == "add_argument_group":
            title = _kw(value, "title")
            if title is None and value.args:
                title = value.args[0]
            text = _str_const(title)
            if text:
                group_title[target] = text

    found: list[_Option] = []
    for call in _walk_calls(tree, "add_argument"):
        options = [s for s in (_str_const(a) for a in call.args) if s and s.startswith("-")]
        if not options:
            continue  # a positional argument
        config = None
        action = _kw(call, "action")
        help_ = _kw(call, "help")
        for keyword in call.keywords:
            if keyword.arg is None:  # **spread
                ref, overrides = _spread_ref(keyword.value, kwargs_of)
                if ref is not None and ref[1] is not None:
                    config = (ref[0], ref[1])
                action = overrides.get("action", action)
                help_ = overrides.get("help", help_)
        dest = _str_const(_kw(call, "dest"))
        if not dest:
            longs = [o for o in options if o.startswith("--")]
            dest = (longs[0] if longs else options[0]).lstrip("-").replace("-", "_")
        found.append(_Option(options, dest, group_title.get(_receiver(call), ""), config, action, help_))
    return found


def _kwargs_ref(value: ast.expr, kwargs_of: dict[str, tuple[str, str | None]]) -> tuple[str, str | None] | None:
    """``get_kwargs(Cls)`` -> (Cls, None); ``x["attr"]``/``get_kwargs(Cls)["attr"]`` -> (Cls, attr)."""
    if isinstance(value, ast.Call) and _call_name(value.func) == "get_kwargs" and value.args \
            and isinstance(value.args[0], ast.Name):
        return value.args[0].id, None
    if isinstance(value, ast.Subscript):
        base = _kwargs_ref(value.value, kwargs_of) if not isinstance(value.value, ast.Name) \
            else kwargs_of.get(value.value.id)
        attr = _str_const(value.slice)
        if base is not None and base[1] is None and attr:
            return base[0], attr
        return None
    if isinstance(value, ast.Name) and value.id in kwargs_of:
        return kwargs_of[value.id]
    return None


def _spread_ref(value: ast.expr, kwargs_of) -> tuple[tuple[str, str | None] | None, dict[str, ast.expr]]:
    """What a ``**value`` spreads: the config reference and the keys it overrides."""
    if isinstance(value, ast.Dict):
        ref = None
        overrides: dict[str, ast.expr] = {}
        for key, item in zip(value.keys, value.values):
            if key is None:
                inner, inner_overrides = _spread_ref(item, kwargs_of)
                ref = ref or inner
                overrides.update(inner_overrides)
            elif _str_const(key):
                overrides[_str_const(key)] = item
        return ref, overrides
    return _kwargs_ref(value, kwargs_of), {}


def _is_boolean_optional(action: ast.expr | None) -> bool:
    return action is not None and _call_name(action) == "BooleanOptionalAction"


def _negates_bools(module: _Module | None) -> tuple[bool, bool]:
    """How ``get_kwargs`` registers bool fields: (BooleanOptionalAction?, bool|str|None special-cased?).

    Without a ``get_kwargs`` (a tree without one), dataclass bools count as negatable.
    """
    if module is None:
        return True, False
    sources = [ast.get_source_segment(module.source, node) or ""
               for node in ast.walk(module.tree)
               if isinstance(node, ast.FunctionDef) and node.name in ("get_kwargs", "_compute_kwargs")]
    if not sources:
        return True, False
    text = "\n".join(sources)
    return "BooleanOptionalAction" in text, "bool, str, type(None)" in text


def _bool_negatable(annotation: ast.expr | None, rules: tuple[bool, bool]) -> bool:
    members = set(_union_members(annotation))
    if "bool" not in members:
        return False
    negates, optional_flag = rules
    if optional_flag and members == {"bool", "str", "None"}:
        return False  # a bare flag or a value (nargs="?")
    return negates


# --------------------------------------------------------------------------- engine args


@dataclass
class _Parsed:
    args: list[EngineArg]
    options: list[_Option]
    option_negatable: list[bool]
    has_cli: bool  # arg_utils.py registers flags with add_argument


def _analyse(src: _Source) -> _Parsed:
    resolver = _Resolver(src)
    module = src.module_at(ARG_UTILS)
    if module is None:
        return _Parsed([], [], [], False)
    rules = _negates_bools(module)

    attrs: dict[str, _Attr] = {}
    for name in ENGINE_CLASSES:
        cls = module.classes.get(name)
        if cls is not None:
            for attr in resolver.fields(module, cls):
                attrs[attr.name] = attr

    options = _options(module)
    by_dest: dict[str, _Option] = {}
    for option in options:
        by_dest.setdefault(option.dest, option)

    def config_attr(ref: tuple[str, str] | None) -> tuple[str, _Attr | None]:
        if ref is None:
            return "", None
        found = src.find_class(module, ref[0])
        if not found or _is_enum(found[1]):
            return "", None
        return found[1].name, resolver.class_attr(found[0], found[1], ref[1])

    def option_negatable(option: _Option, fallback: ast.expr | None) -> bool:
        if option.action is not None:
            return _is_boolean_optional(option.action)
        if option.config is not None:
            _, attr = config_attr(option.config)
            return _bool_negatable(attr.annotation if attr else fallback, rules)
        return False

    args: list[EngineArg] = []
    for name, attr in attrs.items():
        if name.startswith("_"):
            continue  # private fields are not arguments
        default, default_from, group, help_ = "", "", "", ""
        value = attr.value
        ref: tuple[str, str] | None = None  # the config attribute the default points at
        if value is None:
            pass  # required: no default
        elif isinstance(value, ast.Call) and _call_name(value.func) == "get_field" \
                and len(value.args) >= 2 and isinstance(value.args[0], ast.Name) \
                and _str_const(value.args[1]):
            ref = (value.args[0].id, _str_const(value.args[1]))
        elif isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) \
                and (found := src.find_class(module, value.value.id)) and not _is_enum(found[1]):
            ref = (value.value.id, value.attr)
        elif isinstance(value, ast.Name):
            resolved = resolver.value(module, value, attr.cls)
            if resolved is not None:
                default, default_from = resolved, value.id
        else:
            default = resolver.value(module, value, attr.cls) or ""

        if ref is not None:
            default_from = f"{ref[0]}.{ref[1]}"
            group, target = config_attr(ref)
            if target is not None and target.value is not None:
                default = resolver.value(target.module, target.value, target.cls) or ""
            if target is not None:
                help_ = _first_paragraph(target.doc)

        option = by_dest.get(name)
        if option is not None and option.config is not None:
            # The flag is registered from a config attribute: that is its group and help.
            kw_group, kw_attr = config_attr(option.config)
            group = kw_group or group
            if kw_attr is not None and kw_attr.doc:
                help_ = _first_paragraph(kw_attr.doc)
        if not group and option is not None and re.fullmatch(r"[A-Z]\w*Config", option.group):
            group = option.group
        if not help_:
            help_ = _first_paragraph(attr.doc)
        if not help_ and option is not None and option.help is not None:
            # argparse formats help with %: "%%" is a literal percent sign
            help_ = _first_paragraph(resolver.string(module, option.help).replace("%%", "%"))
        if option is not None:
            negatable = option_negatable(option, attr.annotation)
        else:
            negatable = _bool_negatable(attr.annotation, (True, rules[1]))
        flag = "--" + name.replace("_", "-")
        if option is not None:  # the flag as registered (v0.5.0 wrote --preemption_mode)
            flag = next((o for o in option.options if o.startswith("--")), flag)
        args.append(EngineArg(
            name=name,
            flag=flag,
            type=_type_text(attr.annotation),
            default=default,
            default_from=default_from,
            help=help_,
            group=group,
            negatable=negatable,
        ))
    args.sort(key=lambda a: a.name)
    negatable = [option_negatable(o, attrs[o.dest].annotation if o.dest in attrs else None)
                 for o in options]
    return _Parsed(args, options, negatable, bool(options))


def parse_engine_args(read: Reader) -> list[EngineArg]:
    """The engine arguments of a revision; ``read(path)`` gives a file's text (or None).

    Pure: the same files give the same list, sorted by name. Empty when
    ``vllm/engine/arg_utils.py`` is missing or does not parse.
    """
    return _analyse(_Source(read)).args


# --------------------------------------------------------------------------- serve flags


def _with_negations(options: list[str], negatable: bool) -> set[str]:
    flags = set(options)
    if negatable:
        flags |= {"--no-" + o[2:] for o in options if o.startswith("--")}
    return flags


def _frontend_paths(src: _Source) -> list[str]:
    paths: list[str] = []
    for path in (SERVE_CLI, LEGACY_SCRIPTS):
        module = src.module_at(path)
        if module is None:
            continue
        for local in ("make_arg_parser", "FrontendArgs"):
            if local in module.imports:
                source = module.imports[local][0].replace(".", "/")
                for candidate in (f"{source}.py", f"{source}/__init__.py"):
                    if src.text(candidate) is not None and candidate not in paths:
                        paths.append(candidate)
    for candidate in FRONTEND_CANDIDATES:
        if candidate not in paths and src.text(candidate) is not None:
            paths.append(candidate)
    return paths


def _frontend_classes(src: _Source, module: _Module) -> list[tuple[_Module, ast.ClassDef]]:
    """The argument dataclasses a frontend module registers (``X.add_cli_args(parser)``)."""
    names: list[str] = []
    for call in _walk_calls(module.tree, "add_cli_args"):
        name = _receiver(call)
        if name and name not in ENGINE_CLASSES and name not in names:
            names.append(name)
    if not names:
        names = [n for n in module.classes if n.endswith("FrontendArgs")]
    found = []
    for name in names:
        cls = src.find_class(module, name)
        if cls is not None:
            found.append(cls)
    return found


def serve_flags(read: Reader) -> set[str]:
    """Every flag ``vllm serve`` accepts at the revision.

    The engine arguments' flags and every option string registered in ``arg_utils.py``
    (aliases and short forms included), ``--no-`` forms of negatable ones, plus the
    server's own flags (frontend dataclass fields and ``add_argument`` calls of the
    frontend module, and ``serve_parser.add_argument`` calls of the ``serve`` command).
    """
    return _serve_flags(_Source(read))


def _serve_flags(src: _Source, parsed: _Parsed | None = None) -> set[str]:
    if parsed is None:
        parsed = _analyse(src)
    flags: set[str] = set()
    for arg in parsed.args:
        # With add_argument calls, a field without one has no flag: the calls decide.
        if not parsed.has_cli:
            flags |= _with_negations([arg.flag], arg.negatable)
    for option, negatable in zip(parsed.options, parsed.option_negatable):
        flags |= _with_negations(option.options, negatable)

    resolver = _Resolver(src)
    rules = _negates_bools(src.module_at(ARG_UTILS))
    for path in _frontend_paths(src):
        module = src.module_at(path)
        if module is None:
            continue
        for option in _options(module):
            flags |= _with_negations(option.options, _is_boolean_optional(option.action))
        for cls_module, cls in _frontend_classes(src, module):
            for attr in resolver.fields(cls_module, cls):
                if attr.name.startswith("_"):
                    continue
                flag = "--" + attr.name.replace("_", "-")
                flags |= _with_negations([flag], _bool_negatable(attr.annotation, rules))
    for path in (SERVE_CLI, LEGACY_SCRIPTS):
        module = src.module_at(path)
        if module is None:
            continue
        for call in _walk_calls(module.tree, "add_argument"):
            if path == LEGACY_SCRIPTS and "serve" not in _receiver(call):
                continue  # `vllm chat`/`vllm complete` and the top-level parser
            options = [s for s in (_str_const(a) for a in call.args) if s and s.startswith("-")]
            flags |= _with_negations(options, _is_boolean_optional(_kw(call, "action")))
    return flags


# --------------------------------------------------------------------------- revisions


def _blobs(revision) -> dict[str, str]:
    """path -> blob id of the files under ``vllm/`` in the revision's commit."""
    from generator.scan.sources import python_files

    return dict(python_files(revision, "vllm/"))


@functools.lru_cache(maxsize=16)
def _at(revision) -> tuple[tuple[EngineArg, ...], frozenset[str]]:
    from generator.scan.sources import BlobReader

    blobs = _blobs(revision)
    with BlobReader(revision.repo_path) as reader:
        def read(path: str) -> str | None:
            sha = blobs.get(path)
            return None if sha is None else reader.read(sha).decode("utf-8", "replace")

        src = _Source(read)
        parsed = _analyse(src)
        flags = _serve_flags(src, parsed)
    return tuple(parsed.args), frozenset(flags)


def engine_args_at(revision) -> list[EngineArg]:
    """The engine arguments of ``revision`` (a ``generator.scan.sources.Revision``), sorted by name."""
    return list(_at(revision)[0])


def serve_flags_at(revision) -> set[str]:
    """Every flag ``vllm serve`` accepts at ``revision`` (a ``generator.scan.sources.Revision``)."""
    return set(_at(revision)[1])
