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
from urllib.parse import quote

import jinja2

from generator.text import fence, unquoted


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!~|-])")
_LINK_TARGET = re.compile(r"\]\(\s*((?:[^()\s]|\([^()\s]*\))*)")
# A reference definition, as Python-Markdown's ReferenceProcessor finds it anywhere in a
# block (looser here: any indentation, a label over lines), the target on its line or the next.
_REFERENCE = re.compile(r"^([ \t>]*\[[^\[\]]*\]:[ \t]*\n?[ \t>]*)(\S+)", re.M)
_SAFE_SCHEME = re.compile(r"^(?:https?:|mailto:|#|\.\./|\./|[A-Za-z0-9_-]+/|[A-Za-z0-9_.-]+$)", re.I)
# What a URL keeps as it is; everything else (spaces, quotes, brackets, parentheses, `<>`,
# backslashes, backticks, braces, controls, non-ASCII) is percent-encoded, so that no URL can
# end a Markdown link, open an attribute or add one.
_URL_SAFE = "!#$%&*+,-./:;=?@_~"
# Code in an entry's text: a backslash escape (Markdown's escapable characters, with the `|`
# of tables: an escaped backtick opens no span), a fence (its opening line at the start of a
# line, closed by the same run), or a code span as Python-Markdown finds one (a run of
# backticks, or the start of one, closed by a run of the same length, within a block).
_CODE = re.compile(
    r"""(?P<escape>\\[\\`*_{}\[\]()>#+\-.!|])
    | (?P<fence>(?<![^\n])(?P<run>(?P<ch>[`~])(?P=ch){2,})(?P<info>[^\n]*)\n
        (?P<body>(?:[^\n]*\n)*?)(?P=run)[ \t]*(?=\n|\Z))
    | (?P<span>(?P<ticks>`+)(?P<content>(?:(?!\n[ \t]*\n)[\s\S])+?)(?<!`)(?P=ticks)(?!`))""",
    re.X,
)
_FENCE_LANG = re.compile(r"^[ \t]*(?:\{[ \t]*)?\.?([\w#+-][\w#.+-]*)")  # ```python, ```{.python ...}: python
_PLACEHOLDER = re.compile("\x02(\\d+)\x03")
# A character not escaped by a backslash (an even number of backslashes before it).
_UNESCAPED = re.compile(r"(?<!\\)((?:\\\\)*)([`{])")
_TILDE_FENCE = re.compile(r"^([ \t>]*)~(?=~~)", re.M)
# Characters that mean something to HTML or to Markdown inside a line, as entities in the
# text of a code span written as HTML (the sanitizer turns them back into characters).
_CODE_ENTITIES = {c: f"&#{ord(c)};" for c in "&<>\\`*_{}[]|"}
# Markdown drops these before it reads anything: two runs of backticks they separate would
# become one after the filters chose their fences.
_MARKDOWN_DROPS = str.maketrans("", "", "\x02\x03")
ENGINE_LABELS = {"vllm": "vLLM", "python": "Python", "ollama": "Ollama", "llama.cpp": "llama.cpp", "sglang": "SGLang"}
COMMAND_LANGS = {"vllm": "bash", "python": "python", "ollama": "bash", "llama.cpp": "bash", "sglang": "bash"}


_SURROGATE = re.compile("[\ud800-\udfff]")


def _chars(text) -> str:
    """Text as Markdown will read it: without the characters it drops, one kind of line end,
    and no lone surrogate (a name that was not UTF-8) that could not be written out."""
    text = _SURROGATE.sub("\ufffd", str(text).translate(_MARKDOWN_DROPS))
    return text.replace("\r\n", "\n").replace("\r", "\n")


def md_text(text: str) -> str:
    """Inline text shown as it is: HTML escaped, Markdown syntax backslash-escaped."""
    text = " ".join(_chars(text).split())
    return _MD_SPECIAL.sub(r"\\\1", html.escape(text, quote=False))


def html_text(text: str) -> str:
    """Text inside our own HTML (a table cell, an attribute): one line, escaped quotes included."""
    return html.escape(" ".join(_chars(text).split()), quote=True)


def code(text: str) -> str:
    """An inline code span that holds ``text`` whatever backticks it has."""
    text = " ".join(_chars(text).split())
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or longest else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def fenced(text: str, lang: str = "") -> str:
    """``generator.text.fence`` over the text as Markdown will read it."""
    return fence(_chars(text), lang)


def link_url(url: str) -> str:
    """Links may go to the web, to mail, or within the site; anything else goes nowhere.

    The URL comes back percent-encoded wherever it could end a Markdown link or an HTML
    attribute: ``https://x) <img onerror=...> (y`` stays one harmless URL."""
    url = _chars(url).strip()
    if not _SAFE_SCHEME.match(url):
        return "#"
    try:
        return quote(url, safe=_URL_SAFE)
    except UnicodeEncodeError:  # a lone surrogate
        return quote(url, safe=_URL_SAFE, errors="replace")


def safe_md(text: str, fences: bool = True) -> str:
    """An entry's Markdown with raw HTML escaped and only safe link targets kept.

    Code is taken out first: a code span becomes the HTML Markdown would make of it
    (``<code>`` and its text, every character that means something to Markdown or HTML
    as an entity), a fence becomes ``generator.text.fence`` of its text with its language
    and nothing else (no attributes). What is left is prose: every link, image and reference
    definition's target goes through ``link_url``; ``<`` is escaped (no raw HTML, no
    autolinks), ``{`` too (no ``attr_list`` attributes: ``{: onclick=... }``), and every
    backtick and fence of tildes left (those that opened nothing here) is shown as it is,
    so Markdown finds no code that was not found here. ``fences=False`` where the text does
    not begin a block (after a list item's ``- ``): fences stay prose there.

    The site's sanitizer (``mkdocs_plugin``) stands behind all of this.
    """
    text = _chars(text)
    kept: list[str] = []

    def take(match: re.Match) -> str:
        if match.group("escape") is not None:
            return match.group(0)
        if match.group("fence") is not None:
            if not fences:
                return match.group(0)
            lang = _FENCE_LANG.match(match.group("info"))
            body = match.group("body")[:-1] if match.group("body") else ""
            kept.append(fence(body, lang.group(1) if lang else ""))
        else:
            content = match.group("content").strip().replace("\n", " ")
            kept.append("<code>" + "".join(_CODE_ENTITIES.get(c, c) for c in content) + "</code>")
        return f"\x02{len(kept) - 1}\x03"

    prose = _safe_prose(_CODE.sub(take, text))
    return _PLACEHOLDER.sub(lambda m: kept[int(m.group(1))], prose).strip()


def _safe_prose(text: str) -> str:
    text = _REFERENCE.sub(lambda m: m.group(1) + link_url(m.group(2)), text)
    text = _LINK_TARGET.sub(lambda m: "](" + link_url(m.group(1)), text)
    text = _UNESCAPED.sub(r"\1\\\2", text.replace("<", "&lt;"))
    return _TILDE_FENCE.sub(lambda m: m.group(1) + "&#126;", text)


COMMAND_WIDTH = 56  # a phone's code block at 390 px holds about this many characters


def shell_lines(command: str, lang: str = "sh", width: int = COMMAND_WIDTH) -> str:
    """A long one-line shell command broken before each ``--flag`` with ``\\`` continuations,
    so that the flag that fixes an error is on screen on a phone. Commands already on
    several lines, short ones, Python and breaks inside quotes are left as they are."""
    if lang not in ("sh", "bash", "shell") or "\n" in command or len(command) <= width:
        return command
    parts, start = [], 0
    for match in re.finditer(r" +(?=--?[A-Za-z])", command):
        before = command[start:match.start()]
        if not before or command[:match.start()].count("'") % 2 or command[:match.start()].count('"') % 2:
            continue  # inside quotes
        parts.append(before)
        start = match.end()
    parts.append(command[start:])
    return " \\\n    ".join(parts)


def engine_label(engine: str) -> str:
    """A tab's title (``=== "..."``: Markdown inline, as text): the engine's name, or the key as text."""
    return ENGINE_LABELS.get(engine) or md_text(engine)


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
    return " ".join(_chars(text).replace("`", "").split())


# What YAML does not take as it is in a double-quoted scalar: controls (DEL and C1 too),
# the characters PyYAML reads as line breaks, a byte order mark, lone surrogates.
_YAML_UNPRINTABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]")


def yaml_str(text: str) -> str:
    """A YAML (front matter) double-quoted string holding ``text``, whatever characters it has."""
    dumped = json.dumps(str(text), ensure_ascii=False)
    return _YAML_UNPRINTABLE.sub(lambda m: f"\\u{ord(m.group()):04x}" if not 0xD800 <= ord(m.group()) <= 0xDFFF else "\\ufffd", dumped)


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
        html_text=html_text,
        fence=fenced,
        code=code,
        link_url=link_url,
        safe_md=safe_md,
        plain=plain,
        readable_guard=readable_guard,
        yaml_str=yaml_str,
        evidence_tail=evidence_tail,
        engine_label=engine_label,
        command_lang=lambda engine: COMMAND_LANGS.get(engine, "text"),
        shell_lines=shell_lines,
    )
    return env
