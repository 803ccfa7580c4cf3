"""vLLM's engine arguments and ``vllm serve`` flags at a revision, read statically from the source.

Pages list the engine arguments involved in an error (flag, type, default, help), and
``errorkb check`` rejects commands that pass flags the pinned vLLM does not have. Both
need the arguments of a revision without installing vLLM: this module reads the text of
``vllm/engine/arg_utils.py`` and the modules it points at (git blobs, through a
``read(path)`` callable) and works on their syntax trees only -- nothing is imported or
executed. Following imports, classes and defaults is ``generator.vllm.static``'s job;
what is specific to vLLM's argparse is here.

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

``parse_engine_args`` and ``serve_flags`` are pure (files in through ``read``);
``engine_args_at`` and ``serve_flags_at`` read the blobs of a revision's git commit
(disk and git processes), cached per revision.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass

from generator.vllm.static import (
    Attr,
    Module,
    Reader,
    Resolver,
    Source,
    call_name,
    first_paragraph,
    is_enum,
    kwarg,
    receiver,
    str_const,
    type_text,
    union_members,
    walk_calls,
)

__all__ = ["EngineArg", "parse_engine_args", "serve_flags", "engine_args_at", "serve_flags_at"]

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


def _options(module: Module) -> list[_Option]:
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
        elif isinstance(value, ast.Call) and call_name(value.func) == "add_argument_group":
            title = kwarg(value, "title")
            if title is None and value.args:
                title = value.args[0]
            text = str_const(title)
            if text:
                group_title[target] = text

    found: list[_Option] = []
    for call in walk_calls(tree, "add_argument"):
        options = [s for s in (str_const(a) for a in call.args) if s and s.startswith("-")]
        if not options:
            continue  # a positional argument
        config = None
        action = kwarg(call, "action")
        help_ = kwarg(call, "help")
        for keyword in call.keywords:
            if keyword.arg is None:  # **spread
                ref, overrides = _spread_ref(keyword.value, kwargs_of)
                if ref is not None and ref[1] is not None:
                    config = (ref[0], ref[1])
                action = overrides.get("action", action)
                help_ = overrides.get("help", help_)
        dest = str_const(kwarg(call, "dest"))
        if not dest:
            longs = [o for o in options if o.startswith("--")]
            dest = (longs[0] if longs else options[0]).lstrip("-").replace("-", "_")
        found.append(_Option(options, dest, group_title.get(receiver(call), ""), config, action, help_))
    return found


def _kwargs_ref(value: ast.expr, kwargs_of: dict[str, tuple[str, str | None]]) -> tuple[str, str | None] | None:
    """``get_kwargs(Cls)`` -> (Cls, None); ``x["attr"]``/``get_kwargs(Cls)["attr"]`` -> (Cls, attr)."""
    if isinstance(value, ast.Call) and call_name(value.func) == "get_kwargs" and value.args \
            and isinstance(value.args[0], ast.Name):
        return value.args[0].id, None
    if isinstance(value, ast.Subscript):
        base = _kwargs_ref(value.value, kwargs_of) if not isinstance(value.value, ast.Name) \
            else kwargs_of.get(value.value.id)
        attr = str_const(value.slice)
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
            elif str_const(key):
                overrides[str_const(key)] = item
        return ref, overrides
    return _kwargs_ref(value, kwargs_of), {}


def _is_boolean_optional(action: ast.expr | None) -> bool:
    return action is not None and call_name(action) == "BooleanOptionalAction"


def _negates_bools(module: Module | None) -> tuple[bool, bool]:
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
    members = set(union_members(annotation))
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


def _analyse(src: Source) -> _Parsed:
    resolver = Resolver(src)
    module = src.module_at(ARG_UTILS)
    if module is None:
        return _Parsed([], [], [], False)
    rules = _negates_bools(module)

    attrs: dict[str, Attr] = {}
    for name in ENGINE_CLASSES:
        cls = module.classes.get(name)
        if cls is not None:
            for attr in resolver.fields(module, cls):
                attrs[attr.name] = attr

    options = _options(module)
    by_dest: dict[str, _Option] = {}
    for option in options:
        by_dest.setdefault(option.dest, option)

    def config_attr(ref: tuple[str, str] | None) -> tuple[str, Attr | None]:
        if ref is None:
            return "", None
        found = src.find_class(module, ref[0])
        if not found or is_enum(found[1]):
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
        elif isinstance(value, ast.Call) and call_name(value.func) == "get_field" \
                and len(value.args) >= 2 and isinstance(value.args[0], ast.Name) \
                and str_const(value.args[1]):
            ref = (value.args[0].id, str_const(value.args[1]))
        elif isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) \
                and (found := src.find_class(module, value.value.id)) and not is_enum(found[1]):
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
                help_ = first_paragraph(target.doc)

        option = by_dest.get(name)
        if option is not None and option.config is not None:
            # The flag is registered from a config attribute: that is its group and help.
            kw_group, kw_attr = config_attr(option.config)
            group = kw_group or group
            if kw_attr is not None and kw_attr.doc:
                help_ = first_paragraph(kw_attr.doc)
        if not group and option is not None and re.fullmatch(r"[A-Z]\w*Config", option.group):
            group = option.group
        if not help_:
            help_ = first_paragraph(attr.doc)
        if not help_ and option is not None and option.help is not None:
            # argparse formats help with %: "%%" is a literal percent sign
            help_ = first_paragraph(resolver.string(module, option.help).replace("%%", "%"))
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
            type=type_text(attr.annotation),
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
    return _analyse(Source(read)).args


# --------------------------------------------------------------------------- serve flags


def _with_negations(options: list[str], negatable: bool) -> set[str]:
    flags = set(options)
    if negatable:
        flags |= {"--no-" + o[2:] for o in options if o.startswith("--")}
    return flags


def _frontend_paths(src: Source) -> list[str]:
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


def _frontend_classes(src: Source, module: Module) -> list[tuple[Module, ast.ClassDef]]:
    """The argument dataclasses a frontend module registers (``X.add_cli_args(parser)``)."""
    names: list[str] = []
    for call in walk_calls(module.tree, "add_cli_args"):
        name = receiver(call)
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
    return _serve_flags(Source(read))


def _serve_flags(src: Source, parsed: _Parsed | None = None) -> set[str]:
    if parsed is None:
        parsed = _analyse(src)
    flags: set[str] = set()
    for arg in parsed.args:
        # With add_argument calls, a field without one has no flag: the calls decide.
        if not parsed.has_cli:
            flags |= _with_negations([arg.flag], arg.negatable)
    for option, negatable in zip(parsed.options, parsed.option_negatable):
        flags |= _with_negations(option.options, negatable)

    resolver = Resolver(src)
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
        for call in walk_calls(module.tree, "add_argument"):
            if path == LEGACY_SCRIPTS and "serve" not in receiver(call):
                continue  # `vllm chat`/`vllm complete` and the top-level parser
            options = [s for s in (str_const(a) for a in call.args) if s and s.startswith("-")]
            flags |= _with_negations(options, _is_boolean_optional(kwarg(call, "action")))
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

        src = Source(read)
        parsed = _analyse(src)
        flags = _serve_flags(src, parsed)
    return tuple(parsed.args), frozenset(flags)


def engine_args_at(revision) -> list[EngineArg]:
    """The engine arguments of ``revision`` (a ``generator.scan.sources.Revision``), sorted by name."""
    return list(_at(revision)[0])


def serve_flags_at(revision) -> set[str]:
    """Every flag ``vllm serve`` accepts at ``revision`` (a ``generator.scan.sources.Revision``)."""
    return set(_at(revision)[1])
