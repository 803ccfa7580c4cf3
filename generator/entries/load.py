"""Curated entries (``errors/<slug>.yaml``): raw YAML in, ``ErrorEntry`` objects and ``Problem``s out.

Each file is composed from libyaml's events (not just loaded), so that every key and
value keeps the line and column it came from: a problem found later (an unknown flag
in a command, a broken link in a paragraph) points at the exact place to fix.

Entries come from strangers' pull requests, so a file is read defensively: a regular
file only (a symbolic link is not followed, a pipe or a device not read), at most
``MAX_ENTRY_BYTES``, UTF-8; YAML without anchors, aliases or merge keys (the "billion
laughs" expands to nothing) and nested at most ``MAX_DEPTH`` levels. Each violation is
a ``Problem`` at its line and column, saying what to do.

The raw data is checked against ``schemas/entry.schema.json`` (JSON Schema draft
2020-12, ``generator.entries.schema``), every violation reported at once. The checks
that need the catalog of the pinned release (ids, flags, links) live in
``generator.entries.check``. Not pure: it reads the entry files.
"""

from __future__ import annotations

import json
import os
import stat
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
    example: dict | None = None  # {"message", "source"}: a real message from a report
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

MAX_ENTRY_BYTES = 1024 * 1024  # an entry is a page of text; more is a mistake or an attack
MAX_DEPTH = 32  # an entry nests a few levels (solutions[0].commands.vllm); libyaml slows down, and its composer
#                 overflows the C stack, on deep nesting
MAX_STRUCTURE_PROBLEMS = 10  # anchors, aliases and merge keys reported per file; the rest are counted
_MERGE_TAG = "tag:yaml.org,2002:merge"
_NO_REFERENCES = "(an entry uses no anchors, aliases or merge keys)"


class _Rejected(Exception):
    """A document that is not composed at all (too deep): the problem is in ``_Composed.problems``."""


class _Composed:
    """A document's data, built from its node tree, with positions of every key and value.

    The node tree is composed here from libyaml's events, not by PyYAML's composer: an
    anchor, an alias or a merge key is a problem at its line and column (so that 565 bytes
    of aliases, the "billion laughs", expand to nothing), nesting deeper than ``MAX_DEPTH``
    stops the document at once, and no C code recurses over the tree.
    """

    def __init__(self, text: str):
        self.text = text
        self.positions: dict[Key, tuple[int, int]] = {}
        self.key_positions: dict[Key, tuple[int, int]] = {}
        self.spans: dict[Key, tuple[int, int]] = {}
        self.duplicates: list[tuple[Key, tuple[int, int]]] = []  # a key written twice in one mapping
        self.problems: list[tuple[tuple[int, int], str]] = []  # what makes the document unusable as an entry
        self.references = 0  # anchors, aliases and merge keys found
        self.unreported: tuple[int, int] | None = None  # where the first one past MAX_STRUCTURE_PROBLEMS is
        self.data: Any = None
        self.loader = _Loader(text)
        try:
            node = self._compose()
            if node is not None and not self.problems:
                self.data = self._build(node, ())
        except _Rejected:
            pass
        finally:
            self.loader.dispose()

    @staticmethod
    def _mark(mark) -> tuple[int, int]:
        return mark.line + 1, mark.column + 1

    def _reference(self, mark, message: str) -> None:
        self.references += 1
        if self.references <= MAX_STRUCTURE_PROBLEMS:
            self.problems.append((self._mark(mark), message))
        elif self.unreported is None:
            self.unreported = self._mark(mark)

    def _compose(self) -> yaml.Node | None:
        """The document's node tree, composed iteratively from the parser's events."""
        loader = self.loader
        loader.get_event()  # StreamStart
        if loader.check_event(yaml.StreamEndEvent):
            loader.get_event()
            return None
        loader.get_event()  # DocumentStart
        root: yaml.Node | None = None
        stack: list[yaml.Node] = []  # the open collections, innermost last

        def attach(node: yaml.Node) -> None:
            nonlocal root
            if stack:
                stack[-1].value.append(node)
            else:
                root = node

        while True:
            event = loader.get_event()
            if isinstance(event, yaml.DocumentEndEvent):
                break
            anchor = getattr(event, "anchor", None)
            if isinstance(event, yaml.AliasEvent):
                self._reference(event.start_mark, f"`*{event.anchor}` is a YAML alias: write the value it stands for out in full {_NO_REFERENCES}")
                attach(yaml.ScalarNode("tag:yaml.org,2002:null", "", event.start_mark, event.end_mark))
                continue
            if anchor is not None:
                self._reference(event.start_mark, f"`&{anchor}` is a YAML anchor: remove it, and write out in full every value that refers to it {_NO_REFERENCES}")
            if isinstance(event, yaml.ScalarEvent):
                tag = event.tag
                if tag is None or tag == "!":
                    tag = loader.resolve(yaml.ScalarNode, event.value, event.implicit)
                if tag == _MERGE_TAG and stack and isinstance(stack[-1], yaml.MappingNode) and len(stack[-1].value) % 2 == 0:
                    self._reference(event.start_mark, f"`<<` is a YAML merge key: write the keys it merges out in this mapping {_NO_REFERENCES}")
                attach(yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, style=event.style))
            elif isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                if len(stack) >= MAX_DEPTH:
                    self.problems.append((self._mark(event.start_mark),
                                          f"the entry nests deeper than {MAX_DEPTH} levels: an entry is a few levels of "
                                          "mappings and lists; flatten it"))
                    raise _Rejected
                kind = yaml.SequenceNode if isinstance(event, yaml.SequenceStartEvent) else yaml.MappingNode
                tag = event.tag
                if tag is None or tag == "!":
                    tag = loader.resolve(kind, None, event.implicit)
                node = kind(tag, [], event.start_mark, None, flow_style=event.flow_style)
                attach(node)
                stack.append(node)
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                node = stack.pop()
                node.end_mark = event.end_mark
                if isinstance(node, yaml.MappingNode):
                    items = node.value
                    node.value = list(zip(items[0::2], items[1::2]))
        if not loader.check_event(yaml.StreamEndEvent):
            event = loader.get_event()
            raise yaml.composer.ComposerError("expected a single document in the stream", None,
                                              "but found another document", event.start_mark)
        return root

    def _build(self, node: yaml.Node, key: Key) -> Any:
        self.positions[key] = self._mark(node.start_mark)
        self.spans[key] = (node.start_mark.index, node.end_mark.index)
        if isinstance(node, yaml.MappingNode):
            out: dict = {}
            for key_node, value_node in node.value:
                if isinstance(key_node, yaml.ScalarNode):
                    name = key_node.value  # JSON semantics: `on:` is the key "on", not True
                else:
                    name = self.loader.construct_object(key_node, deep=True)
                    name = json.dumps(name, default=str) if not isinstance(name, (str, int, float, bool)) else name
                child = (*key, name)
                if name in out:
                    self.duplicates.append((child, self._mark(key_node.start_mark)))
                self.key_positions[child] = self._mark(key_node.start_mark)
                out[name] = self._build(value_node, child)
            return out
        if isinstance(node, yaml.SequenceNode):
            items = []
            for index, item in enumerate(node.value):
                child = (*key, index)
                self.key_positions[child] = self._mark(item.start_mark)
                items.append(self._build(item, child))
            return items
        return self.loader.construct_object(node, deep=True)


# --- loading ------------------------------------------------------------------------------------------


def _printable(name: str) -> str:
    """A file name as text that can be printed: bytes that are not UTF-8 written ``\\xNN``."""
    return os.fsencode(name).decode("utf-8", "backslashreplace")


def _relative(path: Path, root: Path) -> str:
    """``path`` relative to ``root``, as problems name it; the file itself is not followed
    (a symbolic link is named where it is, not where it points)."""
    path = Path(os.path.abspath(path))
    try:
        where = (path.parent.resolve() / path.name).relative_to(root.resolve()).as_posix()
    except ValueError:
        where = path.as_posix()
    return _printable(where)


_KINDS = [(stat.S_ISDIR, "Is a directory"), (stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device")]


def _not_regular(mode: int) -> str | None:
    """Why a file of this mode is not an entry, or None when it is a regular file."""
    if stat.S_ISREG(mode):
        return None
    what = next((word for test, word in _KINDS if test(mode)), "not a regular file")
    return f"the entry cannot be read ({what}): an entry is a plain YAML file"


def _too_big(size: int) -> str:
    return (f"the entry is {size:,} bytes; an entry is at most {MAX_ENTRY_BYTES:,} bytes (1 MiB): "
            "shorten it, or split it into entries of their own")


def read_entry_text(file: Path, path: str) -> tuple[str | None, Problem | None]:
    """The text of an entry file, or the problem that keeps it from being one: not a regular
    file (a symbolic link is never followed, a named pipe or a device never opened for a
    blocking read), over ``MAX_ENTRY_BYTES``, or not UTF-8."""
    try:
        info = os.lstat(file)
    except OSError as exc:
        return None, Problem(path, 1, 1, f"the entry cannot be read ({exc.strerror or exc}): an entry is a plain YAML file")
    if stat.S_ISLNK(info.st_mode):
        return None, Problem(path, 1, 1, "the entry is a symbolic link; an entry is a regular file of its own: "
                                         "replace the link by a copy of the file it points to")
    why = _not_regular(info.st_mode)
    if why:
        return None, Problem(path, 1, 1, why)
    if info.st_size > MAX_ENTRY_BYTES:
        return None, Problem(path, 1, 1, _too_big(info.st_size))
    try:
        # O_NOFOLLOW and O_NONBLOCK: swapped for a link or a pipe since lstat, it still cannot hang
        fd = os.open(file, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        return None, Problem(path, 1, 1, f"the entry cannot be read ({exc.strerror or exc}): an entry is a plain YAML file")
    try:
        why = _not_regular(os.fstat(fd).st_mode)
        if why:
            return None, Problem(path, 1, 1, why)
        chunks, size = [], 0
        while size <= MAX_ENTRY_BYTES:
            chunk = os.read(fd, MAX_ENTRY_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        return None, Problem(path, 1, 1, f"the entry cannot be read ({exc.strerror or exc}): an entry is a plain YAML file")
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > MAX_ENTRY_BYTES:
        return None, Problem(path, 1, 1, _too_big(len(data)))
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        before = data[: exc.start].decode("utf-8")
        line, col = offset_position(before, len(before))
        return None, Problem(path, line, col, f"the file is not UTF-8 ({exc.reason} at byte {exc.start}): save it as UTF-8")


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
        example=_example(data.get("example")),
        positions=composed.positions,
        key_positions=composed.key_positions,
        text=composed.text,
        spans=composed.spans,
    )


def _example(value) -> dict | None:
    if not isinstance(value, dict) or not isinstance(value.get("message"), str) or not isinstance(value.get("source"), str):
        return None  # the schema says what is wrong
    return {"message": value["message"], "source": value["source"]}


def load_entry(file: Path, root: Path) -> tuple[ErrorEntry | None, list[Problem]]:
    """One entry and its problems; the entry is None when the file is not a usable mapping."""
    path = _relative(file, root)
    try:
        Path(file).name.encode("utf-8")
    except UnicodeEncodeError:
        return None, [Problem(path, 1, 1, "the file name is not UTF-8: rename it to lowercase letters, digits and dashes, "
                                          "ending in .yaml")]
    text, problem = read_entry_text(Path(file), path)
    if problem is not None:
        return None, [problem]
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
    except yaml.reader.ReaderError as exc:
        character = chr(exc.character) if isinstance(exc.character, int) else ""
        at = text.find(character) if character else -1
        line, col = offset_position(text, at) if at >= 0 else (1, 1)
        problems.append(Problem(path, line, col, f"the character U+{ord(character or chr(0)):04X} is not allowed in YAML: "
                                                 "remove it, or write it as an escape in a double-quoted string"))
        return None, sorted(problems)
    except yaml.YAMLError as exc:
        problems.append(Problem(path, 1, 1, f"YAML error: {exc}"))
        return None, sorted(problems)
    if composed.problems:
        problems.extend(Problem(path, line, col, message) for (line, col), message in composed.problems)
        if composed.unreported is not None:
            problems.append(Problem(path, *composed.unreported,
                                    f"{composed.references - MAX_STRUCTURE_PROBLEMS} more anchors, aliases or merge keys "
                                    "from here on: write every value out in full"))
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
        if file.name in ("reports.yaml", "lineage.yaml"):
            continue  # not entries: where people met the errors (reports.py), links people know (lineage.py)
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
