"""Curated entries (``errors/<slug>.yaml``): raw YAML in, ``ErrorEntry`` objects and ``Problem``s out.

Each file is composed with PyYAML (not just loaded), so that every key and value
keeps the line and column it came from: a problem found later (an unknown flag in
a command, a broken link in a paragraph) points at the exact place to fix.

The raw data is checked against ``schemas/entry.schema.json`` (JSON Schema draft
2020-12, ``generator.entries.schema``), every violation reported at once. The checks
that need the catalog of the pinned release (ids, flags, links) live in
``generator.entries.check``. Not pure: it reads the entry files.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import yaml

from generator.entries.problems import Key, Problem, key_label, offset_position
from generator.entries.schema import SCHEMA_LINE, kind_of, schema_problems

__all__ = [
    "ErrorEntry", "load_entry", "load_entries", "iter_texts", "iter_strings",
    # where problems are (generator.entries.problems), for the callers of this module
    "Key", "Problem", "key_label", "offset_position",
]


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
    reproduce: dict | list  # one pair of cases, or a list of pairs (generator.repro.cases reads it)
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
    except OSError as exc:
        return None, [Problem(path, 1, 1, f"the entry cannot be read ({exc.strerror or exc}): an entry is a plain YAML file")]
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
        what = "empty" if composed.data is None else kind_of(composed.data)
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


def available_models(root: Path) -> set[str]:
    """The ``models/NAME`` folders of the project that hold a ``config.json``, as a case names
    them: ``models/NAME`` or ``models/NAME/config.json``."""
    folder = root / "models"
    names = sorted(p.parent.name for p in folder.glob("*/config.json")) if folder.is_dir() else []
    return {form for name in names for form in (f"models/{name}", f"models/{name}/config.json")}
