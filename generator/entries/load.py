"""Curated entries (``errors/<slug>.yaml``): raw YAML in, ``ErrorEntry`` objects and ``Problem``s out.

Each file is composed with PyYAML (not just loaded), so that every key and value
keeps the line and column it came from: a problem found later (an unknown flag in
a command, a broken link in a paragraph) points at the exact place to fix.

The raw data is checked against ``schemas/entry.schema.json`` (JSON Schema draft
2020-12), every violation reported at once. The checks that need the catalog of
the pinned release (ids, flags, links) live in ``generator/check.py``.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator

import yaml

from generator.text import fence, shorten

SCHEMA_FILE = Path(__file__).resolve().parents[1] / "schemas" / "entry.schema.json"
SCHEMA_LINE = "# yaml-language-server: $schema=../generator/schemas/entry.schema.json"

Key = tuple  # a path of keys and indexes: ("solutions", 0, "commands", "vllm")


@dataclass(order=True)
class Problem:
    """One thing to fix, at a 1-based line and column of a file (path relative to the repository)."""

    path: str
    line: int
    col: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.message}"


@dataclass
class ErrorEntry:
    """One curated entry, as usable data; ``positions`` say where each value is in the file."""

    path: str  # relative to the repository root (as problems name it)
    slug: str  # the file name without .yaml
    ids: list[str]
    title: str
    summary: str
    explanation: str
    causes: list[str]
    solutions: list[dict]  # {"title", "why", "commands": {"vllm": ..., ...}} ("commands" optional)
    faq: list[dict]  # {"q", "a"}
    references: list[dict]  # {"url", "title"}
    tags: list[str]
    reproduce: dict | list  # one pair of cases, or a list of pairs (generator/reproduce.py reads it)
    positions: dict[Key, tuple[int, int]] = field(default_factory=dict)  # value starts, 1-based
    key_positions: dict[Key, tuple[int, int]] = field(default_factory=dict, repr=False)  # where each key is written
    text: str = field(default="", repr=False)  # the file's text
    spans: dict[Key, tuple[int, int]] = field(default_factory=dict, repr=False)  # value's [start, end) offsets in text

    def position(self, key: Key) -> tuple[int, int]:
        """Where the value at ``key`` is written, or else its nearest written ancestor."""
        key = tuple(key)
        while key not in self.positions and key:
            key = key[:-1]
        return self.positions.get(key, (1, 1))

    def key_position(self, key: Key) -> tuple[int, int]:
        """Where the key itself is written (for a list item, where the item starts)."""
        key = tuple(key)
        return self.key_positions.get(key) or self.position(key)

    def find(self, key: Key, needle: str, nth: int = 0) -> tuple[int, int] | None:
        """Where the ``nth`` occurrence of ``needle`` is written inside the value at ``key``.

        None when it is not written as such (an escape in a quoted string, a word
        wrapped across lines).
        """
        span = self.spans.get(tuple(key))
        if span is None or not needle:
            return None
        start, end = span
        at = start - 1
        for _ in range(nth + 1):
            at = self.text.find(needle, at + 1, end)
            if at < 0:
                return None
        return offset_position(self.text, at)

    def locate(self, key: Key, needle: str, nth: int = 0) -> tuple[int, int]:
        """``find``, falling back to where the value starts."""
        return self.find(key, needle, nth) or self.position(key)

    def problem(self, key: Key, message: str, at: tuple[int, int] | None = None) -> Problem:
        line, col = at or self.position(key)
        return Problem(self.path, line, col, message)


def offset_position(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of a character offset."""
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


def key_label(key: Key) -> str:
    """``("solutions", 0, "commands")`` → ``solutions[0].commands``; the entry itself is ``the entry``."""
    out = ""
    for part in key:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "the entry"


# --- YAML with positions ----------------------------------------------------------------------------


_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when there: same marks, five times faster


class _Composed:
    """A document's data, built from its node tree, with positions of every key and value."""

    def __init__(self, text: str):
        self.text = text
        self.positions: dict[Key, tuple[int, int]] = {}
        self.key_positions: dict[Key, tuple[int, int]] = {}
        self.spans: dict[Key, tuple[int, int]] = {}
        self.duplicates: list[tuple[Key, tuple[int, int]]] = []  # a key written twice in one mapping
        self.loader = _Loader(text)
        try:
            node = self.loader.get_single_node()
            self.data = None if node is None else self._build(node, (), set())
        finally:
            self.loader.dispose()

    @staticmethod
    def _mark(mark) -> tuple[int, int]:
        return mark.line + 1, mark.column + 1

    def _build(self, node: yaml.Node, key: Key, active: set[int]) -> Any:
        self.positions[key] = self._mark(node.start_mark)
        self.spans[key] = (node.start_mark.index, node.end_mark.index)
        if id(node) in active:  # an alias of a node that holds itself
            raise yaml.composer.ComposerError(None, None, "a recursive alias cannot be an entry's value", node.start_mark)
        if isinstance(node, yaml.MappingNode):
            active = active | {id(node)}
            out: dict = {}
            for key_node, value_node in node.value:
                if isinstance(key_node, yaml.ScalarNode):
                    name = key_node.value  # JSON semantics: `on:` is the key "on", not True
                else:
                    name = self.loader.construct_object(key_node, deep=True)
                    name = json.dumps(name) if not isinstance(name, (str, int, float, bool)) else name
                child = (*key, name)
                if name in out:
                    self.duplicates.append((child, self._mark(key_node.start_mark)))
                self.key_positions[child] = self._mark(key_node.start_mark)
                out[name] = self._build(value_node, child, active)
            return out
        if isinstance(node, yaml.SequenceNode):
            active = active | {id(node)}
            items = []
            for index, item in enumerate(node.value):
                child = (*key, index)
                self.key_positions[child] = self._mark(item.start_mark)
                items.append(self._build(item, child, active))
            return items
        return self.loader.construct_object(node, deep=True)


# --- the schema ---------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def entry_schema() -> dict:
    return json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def _validator():
    from jsonschema import Draft202012Validator

    schema = entry_schema()
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


_JSON_TYPES = {dict: "a mapping", list: "a list", str: "a string", bool: "true/false", int: "a number", float: "a number", type(None): "empty (null)"}
_SCHEMA_TYPES = {"object": "a mapping (key: value lines)", "array": "a list", "string": "a string", "integer": "a whole number", "number": "a number", "boolean": "true or false"}


def _what(value: Any) -> str:
    for kind, word in _JSON_TYPES.items():
        if type(value) is kind:
            return word
    return f"a {type(value).__name__} (quote it to make it a string)"


def _resolve(schema: dict, root: dict) -> dict:
    """``schema`` with its ``$ref`` followed and its ``allOf`` parts merged in."""
    if "$ref" in schema:
        target = root
        for part in schema["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        schema = {**_resolve(target, root), **{k: v for k, v in schema.items() if k != "$ref"}}
    for part in schema.get("allOf", ()):
        part = _resolve(part, root)
        schema = {**part, **schema, "properties": {**part.get("properties", {}), **schema.get("properties", {})},
                  "required": [*part.get("required", ()), *schema.get("required", ())]}
    return schema


def _subschema(key: Key) -> dict:
    """The schema of the value at ``key`` (for descriptions and allowed field names)."""
    root = entry_schema()
    schema = _resolve(root, root)
    for part in key:
        options = [schema, *(_resolve(s, root) for s in (*schema.get("oneOf", ()), *schema.get("anyOf", ())))]
        if isinstance(part, int):
            schema = next((o["items"] for o in options if "items" in o), {})
        else:
            schema = next((o["properties"][part] for o in options if part in o.get("properties", {})), {})
        schema = _resolve(schema, root)
    return schema


def _specific(error) -> Iterator:
    """The errors worth showing for ``error``: for a ``oneOf`` whose alternatives differ
    in type (a mapping or a list of them), those of the alternative the value's type fits."""
    if error.validator in ("oneOf", "anyOf") and error.context:
        branches: dict[int, list] = {}
        for sub in error.context:
            branches.setdefault(sub.schema_path[0], []).append(sub)
        fitting = [subs for subs in branches.values()
                   if not any(sub.validator == "type" and not sub.relative_path for sub in subs)]
        if len(fitting) == 1:
            for sub in fitting[0]:
                yield from _specific(sub)
            return
    yield error


def _short(value: Any, width: int = 40) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return repr(text if len(text) <= width else text[: width - 1] + "…")


def schema_problems(composed: _Composed, entry_path: str) -> list[Problem]:
    """Every violation of the entry schema, each at the key or value it is about."""
    problems = []

    def at(key: Key, on_key: bool = False) -> tuple[int, int]:
        key = tuple(key)
        if on_key and key in composed.key_positions:
            return composed.key_positions[key]
        while key not in composed.positions and key:
            key = key[:-1]
        return composed.positions.get(key, (1, 1))

    def add(where: tuple[int, int], message: str) -> None:
        problems.append(Problem(entry_path, where[0], where[1], message))

    for error in (e for top in _validator().iter_errors(composed.data) for e in _specific(top)):
        key = tuple(error.absolute_path)
        label = key_label(key)
        value = error.instance
        rule = error.validator
        limit = error.validator_value
        if rule == "required":
            missing = [name for name in limit if isinstance(value, dict) and name not in value]
            for name in missing:
                description = _subschema((*key, name)).get("description")
                hint = f" ({description})" if description else ""
                where = "the entry" if not key else f"`{label}`"
                add(at(key), f"{where} is missing the required field `{name}`: add `{name}:`{hint}")
        elif rule == "additionalProperties":
            allowed = list(_subschema(key).get("properties", {}))
            for name in value:
                if name in allowed:
                    continue
                close = difflib.get_close_matches(str(name), allowed, n=1, cutoff=0.6)
                hint = f"did you mean `{close[0]}`? " if close else ""
                add(at((*key, name), on_key=True),
                    f"unknown field `{key_label((*key, name))}`: {hint}remove it or rename it to one of {', '.join(allowed)}")
        elif rule == "type":
            wanted = limit if isinstance(limit, str) else limit[0]
            add(at(key), f"`{label}` must be {_SCHEMA_TYPES.get(wanted, wanted)}, not {_what(value)}")
        elif rule == "pattern":
            if label.startswith("ids["):
                add(at(key), f"`{label}` {_short(value)} is not an error id: an id is 16 lowercase hex digits, as `errorkb lookup` prints it")
            elif key[-2:-1] == ("tags",):
                add(at(key), f"`{label}` {_short(value)} is not a tag: use lowercase letters, digits and dashes")
            elif key[-1:] == ("url",):
                add(at(key), f"`{label}` {_short(value)} must be an https:// URL")
            else:
                add(at(key), f"`{label}` {_short(value)} does not match {limit}")
        elif rule == "minLength":
            add(at(key), f"`{label}` is too short ({len(value)} characters): write at least {limit}")
        elif rule == "maxLength":
            add(at(key), f"`{label}` is too long ({len(value)} characters): keep it to {limit}")
        elif rule == "minItems":
            add(at(key), f"`{label}` is empty: give at least {limit} item{'s' if limit != 1 else ''}")
        elif rule == "maxItems":
            add(at(key), f"`{label}` has {len(value)} items: keep it to {limit}")
        elif rule == "uniqueItems":
            seen: list = []
            for index, item in enumerate(value):
                if item in seen:
                    add(at((*key, index)), f"`{label}[{index}]` {_short(item)} is listed twice in `{label}`: remove one")
                else:
                    seen.append(item)
        elif rule == "minProperties":
            allowed = list(_subschema(key).get("properties", {}))
            add(at(key), f"`{label}` is empty: give at least one of {', '.join(allowed)}, or remove it")
        elif rule == "enum":
            add(at(key), f"`{label}` is {_short(value)}: use one of {', '.join(map(str, limit))}")
        elif rule == "oneOf" and all(len(alt.get("required", ())) == 1 and len(alt) == 1 for alt in limit):
            # {"oneOf": [{"required": ["python"]}, {"required": ["cli"]}]}: exactly one of these fields
            names = [f"`{alt['required'][0]}`" for alt in limit]
            given = [name for name in names if isinstance(value, dict) and name.strip("`") in value]
            how = "only one of them" if given else "one of them"
            add(at(key), f"`{label}` needs {' or '.join(names)}, {how}")
        else:
            add(at(key), f"`{label}`: {error.message}")
    return problems


# --- loading ------------------------------------------------------------------------------------------


def _relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.resolve().as_posix()


def _strings(value: Any) -> list[str]:
    """A list of strings, keeping indexes aligned with the file (what is not a string becomes "")."""
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list):
        return []
    return [item if isinstance(item, str) else "" for item in value]


def _mappings(value: Any) -> list[dict]:
    if not isinstance(value, list):
        return []
    return [item if isinstance(item, dict) else {} for item in value]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _entry(data: dict, path: str, slug: str, composed: _Composed) -> ErrorEntry:
    return ErrorEntry(
        path=path,
        slug=slug,
        ids=_strings(data.get("ids")),
        title=_text(data.get("title")),
        summary=_text(data.get("summary")),
        explanation=_text(data.get("explanation")),
        causes=_strings(data.get("causes")),
        solutions=_mappings(data.get("solutions")),
        faq=_mappings(data.get("faq")),
        references=_mappings(data.get("references")),
        tags=_strings(data.get("tags")),
        reproduce=data.get("reproduce") if isinstance(data.get("reproduce"), (dict, list)) else {},
        positions=composed.positions,
        key_positions=composed.key_positions,
        text=composed.text,
        spans=composed.spans,
    )


def load_entry(file: Path, root: Path) -> tuple[ErrorEntry | None, list[Problem]]:
    """One entry and its problems; the entry is None when the file is not a usable mapping."""
    path = _relative(file, root)
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        return None, [Problem(path, 1, 1, f"the file is not UTF-8 ({exc.reason} at byte {exc.start}): save it as UTF-8")]
    problems = []
    first = text.split("\n", 1)[0].rstrip("\r")
    if first != SCHEMA_LINE:
        if first.startswith("# yaml-language-server:"):
            message = f"the first line must be exactly `{SCHEMA_LINE}`"
        else:
            message = f"the first line must be `{SCHEMA_LINE}` (editors validate the entry with it); add it"
        problems.append(Problem(path, 1, 1, message))
    try:
        composed = _Composed(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        what = " ".join(part for part in (exc.context, exc.problem) if part)
        problems.append(Problem(path, line, col, f"YAML syntax error: {what}; fix the YAML (quote a value that holds `: ` or starts with a special character)"))
        return None, sorted(problems)
    except yaml.YAMLError as exc:
        problems.append(Problem(path, 1, 1, f"YAML error: {exc}"))
        return None, sorted(problems)
    for key, (line, col) in composed.duplicates:
        problems.append(Problem(path, line, col, f"`{key_label(key)}` is written twice; YAML keeps only the last one: remove or merge one"))
    if not isinstance(composed.data, dict):
        what = "empty" if composed.data is None else _what(composed.data)
        line, col = composed.positions.get((), (1, 1))
        problems.append(Problem(path, line, col, f"the entry is {what}: it must be a mapping with ids, title, summary and solutions"))
        return None, sorted(problems)
    problems.extend(schema_problems(composed, path))
    return _entry(composed.data, path, file.stem, composed), sorted(problems)


def load_entries(folder: Path, root: Path) -> tuple[list[ErrorEntry], list[Problem]]:
    """Every ``*.yaml`` in ``folder`` (sorted by name): the usable entries and all problems found."""
    entries: list[ErrorEntry] = []
    problems: list[Problem] = []
    for file in sorted(Path(folder).glob("*.yaml")):
        entry, found = load_entry(file, root)
        problems.extend(found)
        if entry is not None:
            entries.append(entry)
    return entries, sorted(problems)


def iter_texts(entry: ErrorEntry) -> Iterator[tuple[Key, str]]:
    """The Markdown texts of an entry, with the key each one is at."""
    if entry.summary:
        yield ("summary",), entry.summary
    if entry.explanation:
        yield ("explanation",), entry.explanation
    for index, cause in enumerate(entry.causes):
        if cause:
            yield ("causes", index), cause
    for index, solution in enumerate(entry.solutions):
        if isinstance(solution.get("why"), str):
            yield ("solutions", index, "why"), solution["why"]
    for index, item in enumerate(entry.faq):
        for part in ("q", "a"):
            if isinstance(item.get(part), str):
                yield ("faq", index, part), item[part]


def iter_strings(entry: ErrorEntry) -> Iterator[tuple[Key, str]]:
    """Every string an entry holds that a reader sees, with its key."""
    if entry.title:
        yield ("title",), entry.title
    yield from iter_texts(entry)
    for index, solution in enumerate(entry.solutions):
        if isinstance(solution.get("title"), str):
            yield ("solutions", index, "title"), solution["title"]
        commands = solution.get("commands")
        for engine, command in (commands.items() if isinstance(commands, dict) else ()):
            if isinstance(command, str):
                yield ("solutions", index, "commands", engine), command
    for index, reference in enumerate(entry.references):
        if isinstance(reference.get("title"), str):
            yield ("references", index, "title"), reference["title"]



# --- a new entry (``errorkb new``) ---------------------------------------------------------------------

_STOP_WORDS = {"a", "an", "the", "of", "to", "for", "in", "on", "and", "or", "is", "are", "be", "with", "by", "at", "as", "from"}
_HOLE = "\x00"
_NOT_YAML = re.compile("[^\x09\x0a\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_IDENTIFIER = re.compile(r"\b[A-Za-z_][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b")  # snake_case: at least one underscore


def _literal_text(template: str) -> str:
    """The message with its placeholders marked by ``_HOLE``."""
    from generator.scan.ids import split_template

    segments, _ = split_template(template)
    return _HOLE.join(segments)


def title_from_template(exception: str, template: str, function: str = "") -> str:
    """A short title from the start of the message: its first sentence, placeholders left out."""
    text = _literal_text(template) if template else ""
    text = re.sub(r"\s*[(\[]\s*['\"`]?" + _HOLE + r"['\"`]?\s*[)\]]", "", text)  # "(512)", "[x]": dropped
    text = re.sub(r"['\"`]?" + _HOLE + r"['\"`]?", "…", text)
    text = " ".join(text.split())
    text = re.split(r"(?<=[.;!?])\s|:\s*(?:…|$)|\n", text, maxsplit=1)[0]
    text = text.strip(" .,:;…")
    text = shorten(text, 100)
    if len(re.sub(r"\W", "", text)) < 5:
        where = f" in {function}" if function and not function.startswith("<") else ""
        text = f"{exception}{where}"
        if len(text) < 5:
            text += " raised"
    return text


def slug_from_template(exception: str, template: str, error_id: str, words: int = 6) -> str:
    """``max-num-seqs-exceeds-available-mamba``: the message's first words (at most ``words``), kebab-case."""
    text = _literal_text(template).replace(_HOLE, " ") if template else ""
    found = re.findall(r"[a-z0-9]+", text.lower())[:words]
    while found and found[-1] in _STOP_WORDS:
        found.pop()
    if not found:
        camel = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", exception)
        found = [*re.findall(r"[a-z0-9]+", camel.lower())[: words - 1], error_id[:8]]
    return "-".join(found)


def _identifiers(text: str) -> list[str]:
    return _IDENTIFIER.findall(text or "")


def involved_args(error: dict, engine_args: list) -> list:
    """The engine arguments an error names (the rule the site's pages use)."""
    from generator.site.pages import flags_involved

    return flags_involved(error.get("template") or "", error.get("sites") or [], {a.name: a for a in engine_args})


def _yaml_scalar(text: str) -> str:
    """``text`` as a YAML scalar: plain when that reads back the same, else double-quoted."""
    if re.fullmatch(r"[A-Za-z0-9_(][^\n#:]*", text) and text == text.strip():
        try:
            if yaml.safe_load(text) == text:
                return text
        except yaml.YAMLError:
            pass
    return json.dumps(text, ensure_ascii=False)


def _yaml_safe(text: str) -> str:
    """Text that a YAML block scalar holds as it is: no tabs, CRs or unprintable characters."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u2028", " ").replace("\u2029", " ").replace("\x85", " ")
    return _NOT_YAML.sub("?", text.expandtabs(4))


def _block(lines: list[str], indent: int) -> str:
    pad = " " * indent
    return "\n".join(pad + line if line.strip() else "" for line in _yaml_safe("\n".join(lines)).split("\n"))


def _fence(text: str, lang: str = "") -> list[str]:
    return fence(text, lang).split("\n")


def _default_text(arg) -> str:
    default = getattr(arg, "default", "") or "unknown"
    help_ = " ".join((getattr(arg, "help", "") or "").split())
    help_ = shorten(help_, 90)
    return f"{default}" + (f" ({help_})" if help_ else "")


def _flag_usage(arg) -> str:
    """The flag as a command passes it: a value to fill in, or the switch itself."""
    kind = (getattr(arg, "type", "") or "").replace(" ", "")
    if kind in ("bool", "bool|None"):
        if getattr(arg, "default", "") == "True" and getattr(arg, "negatable", False):
            return "--no-" + arg.flag[2:]
        return arg.flag
    return f"{arg.flag} TODO"


def new_entry(error: dict, engine_args: list, revision: str) -> tuple[str, str]:
    """(slug, text) of a skeleton entry for one catalog error; it passes the schema, its TODOs
    are what ``errorkb check`` still reports."""
    template = error.get("template") or ""
    sites = error.get("sites") or []
    site = sites[0] if sites else {}
    exception = error.get("exception", "Exception")
    title = title_from_template(exception, template, site.get("function", ""))
    slug = slug_from_template(exception, template, error["id"])
    args = involved_args(error, engine_args)

    where = ""
    if site:
        where = f" in `{site.get('function', '?')}` (`{site.get('path', '?')}`, line {site.get('line', '?')})"
    explanation = [
        "TODO: the mechanism behind the error: what vLLM checks, why, and what makes the check fail.",
        "",
        f"At {revision} vLLM raises `{exception}`{where}" + (":" if site.get("excerpt") else "."),
    ]
    if site.get("excerpt"):
        explanation += ["", *_fence(site["excerpt"], "python")]
    if template:
        explanation += ["", "The message:", "", *_fence(template, "text")]
    if site.get("comment"):
        explanation += ["", "The comment above it in the source:", "", *_fence(site["comment"], "text")]

    command = [f"# default: {arg.flag} {_default_text(arg)}" for arg in args]
    command.append(" ".join(["vllm serve MODEL", *(_flag_usage(arg) for arg in args)]))

    text = "\n".join([
        SCHEMA_LINE,
        f"ids: [{error['id']}]",
        f"title: {_yaml_scalar(title)}",
        'summary: "TODO: one or two sentences: what the error means."',
        "explanation: |",
        _block(explanation, 2),
        "causes:",
        '  - "TODO: what people do that leads to this error."',
        "solutions:",
        '  - title: "TODO: the first fix"',
        "    why: >-",
        "      TODO: why this helps."
        + (" The engine arguments involved: " + ", ".join(f"`{arg.flag}`" for arg in args) + "." if args else ""),
        "    commands:",
        "      vllm: |-",
        _block(command, 8),
        "",
    ])
    invalid = [e.message for e in _validator().iter_errors(yaml.safe_load(text))]
    if invalid:  # a bug here, not in the catalog
        raise AssertionError(f"the skeleton for {error['id']} does not pass the entry schema: {invalid}")
    return slug, text
