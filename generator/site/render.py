"""Markdown rendering: Jinja2 filters that keep vLLM's text and entries' text inert.

A template can hold anything a Python string can: ``<script>``, ``{{ }}``,
backticks, ``|``, ``[x](javascript:...)``. Every filter here turns such text into
Markdown that shows it as text and runs nothing.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import jinja2

from generator.text import fence, unquoted


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!~-])")
_CODE = re.compile(r"(`{3,})[^\n]*\n.*?\n\1|(`+)(?:.|\n)*?\2", re.S)
_LINK_TARGET = re.compile(r"\]\(\s*((?:[^()\s]|\([^()\s]*\))*)")
_SAFE_SCHEME = re.compile(r"^(?:https?:|mailto:|#|\.\./|\./|[A-Za-z0-9_-]+/|[A-Za-z0-9_.-]+$)")
ENGINE_LABELS = {"vllm": "vLLM", "python": "Python", "ollama": "Ollama", "llama.cpp": "llama.cpp"}
COMMAND_LANGS = {"vllm": "bash", "python": "python", "ollama": "bash", "llama.cpp": "bash"}


def md_text(text: str) -> str:
    """Inline text shown as it is: HTML escaped, Markdown syntax backslash-escaped."""
    text = " ".join(str(text).split())
    return _MD_SPECIAL.sub(r"\\\1", html.escape(text, quote=False))


def code(text: str) -> str:
    """An inline code span that holds ``text`` whatever backticks it has."""
    text = " ".join(str(text).split())
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or longest else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def link_url(url: str) -> str:
    """Links may go to the web, to mail, or within the site; anything else goes nowhere."""
    url = str(url).strip()
    return url if _SAFE_SCHEME.match(url) else "#"


def safe_md(text: str) -> str:
    """An entry's Markdown with raw HTML escaped and only safe link targets kept."""
    out = []
    pos = 0
    for match in _CODE.finditer(text):
        out.append(_safe_prose(text[pos : match.start()]))
        out.append(match.group(0))  # code shows its text as it is already
        pos = match.end()
    out.append(_safe_prose(text[pos:]))
    return "".join(out).strip()


def _safe_prose(text: str) -> str:
    text = text.replace("<", "&lt;")
    return _LINK_TARGET.sub(lambda m: "](" + link_url(m.group(1)), text)


def readable_guard(condition: str, width: int = 72) -> str:
    """A long condition broken before its top-level ``and``/``or``, one clause a line."""
    if len(condition) <= width:
        return condition
    clauses, depth, start, resume = [], 0, 0, 0
    for i, ch in unquoted(condition):
        if i < resume:
            continue  # inside the operator just split at
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0:
            for op in (" and ", " or "):
                if condition.startswith(op, i):
                    clauses.append(condition[start:i])
                    start, resume = i + 1, i + len(op)
                    break
    clauses.append(condition[start:])
    return "\n    ".join(c.strip() for c in clauses)


def plain(text: str) -> str:
    """Text for attributes and metadata: one line, no Markdown backticks."""
    return " ".join(str(text).replace("`", "").split())


def yaml_str(text: str) -> str:
    return json.dumps(str(text), ensure_ascii=False)


def evidence_tail(text: str, lines: int = 10) -> str:
    """The last lines of a traceback: where it was raised and the message, which is
    what a reader checks; the record keeps the longer excerpt. The harness's own frame
    (the line that runs the case) says nothing about vLLM and is left out."""
    all_lines = str(text).splitlines()
    drop: set[int] = set()
    for i, line in enumerate(all_lines):
        if "harness_child.py" in line or "repro/child.py" in line:  # the child, before and after it moved
            drop.update((i, i + 1))
    kept = [line for i, line in enumerate(all_lines) if i not in drop][-lines:]
    return "\n".join(line if len(line) <= 400 else line[:399] + "…" for line in kept)


def environment(templates: Path) -> jinja2.Environment:
    """Jinja2 over the project's ``templates/`` folder, with the filters above."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(templates),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,  # Markdown out: each value goes through the filter for its place
    )
    env.filters.update(
        md_text=md_text,
        fence=fence,
        code=code,
        link_url=link_url,
        safe_md=safe_md,
        plain=plain,
        readable_guard=readable_guard,
        yaml_str=yaml_str,
        evidence_tail=evidence_tail,
        engine_label=lambda engine: ENGINE_LABELS.get(engine, engine),
        command_lang=lambda engine: COMMAND_LANGS.get(engine, "text"),
    )
    return env
