"""The entry schema (``schemas/entry.schema.json``, JSON Schema draft 2020-12) and its
violations, worded for the people who write entries.

Every violation of an entry is reported at once, each as a ``Problem`` at the key or
value it is about, saying what to do (a missing field with its description, an
unknown field with the closest known one, a wrong type in plain words). Not pure:
the schema is read from its file (once, cached); nothing else touches the disk.
"""

from __future__ import annotations

import difflib
import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator

from generator.entries.problems import Key, Problem, key_label

__all__ = ["SCHEMA_FILE", "SCHEMA_LINE", "MAX_SCHEMA_PROBLEMS", "entry_schema", "validator", "kind_of", "schema_problems"]

SCHEMA_FILE = Path(__file__).resolve().parents[1] / "schemas" / "entry.schema.json"
SCHEMA_LINE = "# yaml-language-server: $schema=../generator/schemas/entry.schema.json"
# Problems listed per entry: a file of a hundred thousand unknown keys is said to be wrong
# in a hundred lines, in time, not in a hundred thousand.
MAX_SCHEMA_PROBLEMS = 100


@lru_cache(maxsize=1)
def entry_schema() -> dict:
    """The entry schema, read from ``SCHEMA_FILE`` once."""
    return json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def validator():
    """A validator of the entry schema (the schema itself checked first), whose
    ``uniqueItems`` takes linear time (``jsonschema``'s compares every pair of a list whose
    items do not sort together: 50,000 ids, some read as numbers, took minutes)."""
    from jsonschema import Draft202012Validator, ValidationError, validators

    def unique_items(checker, unique, instance, schema):
        if unique and checker.is_type(instance, "array") and len(set(map(json_form, instance))) < len(instance):
            yield ValidationError(f"{_short(instance)} has non-unique elements")

    schema = entry_schema()
    Draft202012Validator.check_schema(schema)
    return validators.extend(Draft202012Validator, {"uniqueItems": unique_items})(schema)


def json_form(value: Any):
    """A hashable form of a JSON value, equal for values JSON Schema calls equal (``1`` and
    ``1.0``; not ``1`` and ``true``; mappings whatever their order)."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return (type(value).__name__, value)
    if isinstance(value, (int, float)):
        return ("number", int(value) if isinstance(value, float) and value.is_integer() else value)
    if isinstance(value, list):
        return ("list", tuple(json_form(item) for item in value))
    if isinstance(value, dict):
        return ("dict", frozenset((key, json_form(item)) for key, item in value.items()))
    return ("other", repr(value))


_JSON_TYPES = {dict: "a mapping", list: "a list", str: "a string", bool: "true/false", int: "a number", float: "a number", type(None): "empty (null)"}
_SCHEMA_TYPES = {"object": "a mapping (key: value lines)", "array": "a list", "string": "a string", "integer": "a whole number", "number": "a number", "boolean": "true or false"}


def kind_of(value: Any) -> str:
    """What a YAML value is, in the words of a message: ``a mapping``, ``true/false``, ..."""
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
        # the alternatives a value may take: oneOf/anyOf, and those of an if/then/else
        branches = [schema, *(_resolve(schema[k], root) for k in ("then", "else") if k in schema)]
        options = [*branches, *(_resolve(s, root) for b in branches for s in (*b.get("oneOf", ()), *b.get("anyOf", ())))]
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


class _Enough(Exception):
    """``MAX_SCHEMA_PROBLEMS`` were found: the rest are not looked for."""


def schema_problems(composed, entry_path: str) -> list[Problem]:
    """Every violation of the entry schema, each at the key or value it is about (the
    first ``MAX_SCHEMA_PROBLEMS`` of them, and a last problem saying there are more).

    ``composed`` is a document composed with positions (``generator.entries.load``):
    its ``data``, and the ``positions`` and ``key_positions`` of its keys and values.
    """
    problems: list[Problem] = []
    try:
        _find_schema_problems(composed, entry_path, problems)
    except _Enough:
        last = problems[-1]
        problems.append(Problem(entry_path, last.line, last.col,
                                f"more problems than these {MAX_SCHEMA_PROBLEMS}: fix these, and run the check again"))
    return problems


def _find_schema_problems(composed, entry_path: str, problems: list[Problem]) -> None:

    def at(key: Key, on_key: bool = False) -> tuple[int, int]:
        key = tuple(key)
        if on_key and key in composed.key_positions:
            return composed.key_positions[key]
        while key not in composed.positions and key:
            key = key[:-1]
        return composed.positions.get(key, (1, 1))

    def add(where: tuple[int, int], message: str) -> None:
        if len(problems) >= MAX_SCHEMA_PROBLEMS:
            raise _Enough
        problems.append(Problem(entry_path, where[0], where[1], message))

    for error in (e for top in validator().iter_errors(composed.data) for e in _specific(top)):
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
            add(at(key), f"`{label}` must be {_SCHEMA_TYPES.get(wanted, wanted)}, not {kind_of(value)}")
        elif rule == "pattern":
            if label.startswith("ids["):
                add(at(key), f"`{label}` {_short(value)} is not an error id: an id is 16 lowercase hex digits, as `errorkb lookup` prints it")
            elif key[-2:-1] == ("tags",):
                add(at(key), f"`{label}` {_short(value)} is not a tag: use lowercase letters, digits and dashes")
            elif key[-1:] == ("url",):
                add(at(key), f"`{label}` {_short(value)} must be an https:// URL")
            elif key == ("title",):
                add(at(key), f"`{label}` {_short(value)} holds a backtick: a title is plain words "
                             "(a page's heading shows Markdown as it is written); remove the backticks")
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
            seen: set = set()
            for index, item in enumerate(value):
                form = json_form(item)
                if form in seen:
                    add(at((*key, index)), f"`{label}[{index}]` {_short(item)} is listed twice in `{label}`: remove one")
                else:
                    seen.add(form)
        elif rule == "minProperties":
            allowed = list(_subschema(key).get("properties", {}))
            add(at(key), f"`{label}` is empty: give at least one of {', '.join(allowed)}, or remove it")
        elif rule == "enum":
            add(at(key), f"`{label}` is {_short(value)}: use one of {', '.join(map(str, limit))}")
        elif rule in ("oneOf", "anyOf") and error.context and all(sub.validator == "type" and not sub.relative_path
                                                                   for sub in error.context):
            # a value that none of the alternatives' types fits (fill's "a placeholder, or a list of them")
            wanted = dict.fromkeys(_SCHEMA_TYPES.get(sub.validator_value, sub.validator_value) for sub in error.context)
            add(at(key), f"`{label}` must be {' or '.join(wanted)}, not {kind_of(value)}")
        elif rule == "oneOf" and all(len(alt.get("required", ())) == 1 and len(alt) == 1 for alt in limit):
            # {"oneOf": [{"required": ["python"]}, {"required": ["cli"]}]}: exactly one of these fields
            names = [f"`{alt['required'][0]}`" for alt in limit]
            given = [name for name in names if isinstance(value, dict) and name.strip("`") in value]
            how = "only one of them" if given else "one of them"
            add(at(key), f"`{label}` needs {' or '.join(names)}, {how}")
        else:
            add(at(key), f"`{label}`: {error.message}")
