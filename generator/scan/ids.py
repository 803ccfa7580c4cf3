"""The public id contract: a template's normalized form and the error id it hashes to.

An error's id is ``sha256(project \\x1f exception \\x1f normalized template)[:16]``
(README, "Error ids"). It is published (page URLs, the JSON API, people's bookmarks),
so nothing here may change what it returns for a given template: ``tests/test_ids.py``
pins ids of real messages. Pure functions over strings.
"""

from __future__ import annotations

import functools
import hashlib
import re

from generator.text import unquoted

_WS = re.compile(r"\s+")


def placeholder_end(template: str, start: int) -> int:
    """The index of the ``}`` closing the placeholder that opens at ``start``.

    Braces nest (``{x:{width}}``); braces inside quoted strings within it do not count.
    """
    depth = 0
    for j, c in unquoted(template, start):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(template)


def split_template(template: str) -> tuple[list[str], list[str]]:
    """Literal segments and hole sources: ``a {x} b {y}`` → ``["a ", " b ", ""]``, ``["x", "y"]``.

    There is always one more segment than holes; segments hold the literal text as
    the user sees it (``{{`` read as ``{``).
    """
    segments, holes = [""], []
    i, n = 0, len(template)
    while i < n:
        ch = template[i]
        if ch in "{}" and template.startswith(ch * 2, i):
            segments[-1] += ch
            i += 2
        elif ch == "{":
            j = placeholder_end(template, i)
            holes.append(template[i + 1 : j])
            segments.append("")
            i = j + 1
        else:
            segments[-1] += ch
            i += 1
    return segments, holes


@functools.lru_cache(maxsize=1 << 16)  # a catalog, and history above all, asks again and again
def normalize_template(template: str) -> str:
    """Every ``{...}`` replaced by ``{}``, whitespace runs collapsed, ends stripped.

    ``{{`` and ``}}`` are literal braces and stay as they are. A placeholder ends at
    its matching brace; braces inside quoted strings within it do not count.
    """
    segments, _ = split_template(template)
    escaped = [s.replace("{", "{{").replace("}", "}}") for s in segments]
    return _WS.sub(" ", "{}".join(escaped)).strip()


def error_id(project: str, exception: str, normalized: str) -> str:
    """``sha256(project \\x1f last dotted part of exception \\x1f normalized)[:16]``."""
    name = exception.rsplit(".", 1)[-1]
    digest = hashlib.sha256(f"{project}\x1f{name}\x1f{normalized}".encode("utf-8"))
    return digest.hexdigest()[:16]


def module_name(path: str) -> str:
    """``vllm/config/__init__.py`` → ``vllm.config``; ``vllm/x/y.py`` → ``vllm.x.y``."""
    dotted = path[:-3] if path.endswith(".py") else path
    dotted = dotted.replace("/", ".")
    return dotted[: -len(".__init__")] if dotted.endswith(".__init__") else dotted


def identity(template: str | None, path: str, function: str) -> str:
    """What the id hashes besides the exception.

    A message with literal text is identified by its normalized template. A raise
    with no message, or one whose message is wholly computed (``raise
    ValueError(msg)`` with ``msg`` a parameter), has nothing to tell it apart but
    where it is: ``@module:function``.
    """
    if template is not None:
        normalized = normalize_template(template)
        if re.search(r"\w", normalized.replace("{}", "")):
            return normalized
    return f"@{module_name(path)}:{function}"
