"""Small text rules that several stages share, written once (pure).

- ``shorten``: one line, cut at a word boundary, marked `` …``;
- ``fence``: a Markdown code fence no backtick run inside the text can close;
- ``error_path`` / ``error_url``: where an error's page lives on the site;
- ``unquoted``: the characters of an expression's source that lie outside its strings.
"""

from __future__ import annotations

import re
from typing import Iterator

ELLIPSIS = " …"
CUT_TRAILING = " .,:;"  # dropped from the end of a shortened text before the ellipsis


def shorten(text: str, width: int) -> str:
    """``text`` on one line; when longer than ``width``, cut at the last space within it
    (trailing punctuation dropped) and marked with `` …``."""
    text = " ".join(str(text).split())
    if len(text) <= width:
        return text
    cut = text[:width].rsplit(" ", 1)[0] or text[:width]
    return cut.rstrip(CUT_TRAILING) + ELLIPSIS


_BRACES = re.compile(r"\{\{|\}\}|\{[^{}]*\}")


def readable_message(template: str) -> str:
    """A public template (``scan.templates.render``) as a person reads it: each
    placeholder shown as ``…``, doubled braces as one."""
    if "{" not in template and "}" not in template:
        return template
    quick = _BRACES.sub(lambda m: m.group(0)[0] if m.group(0) in ("{{", "}}") else ELLIPSIS.strip(), template)
    if "{" not in quick:  # every brace was a pair or a simple hole: the same as the walk below
        return quick
    return _readable_walk(template)


def _readable_walk(template: str) -> str:
    """``readable_message`` for holes with braces inside them, brace by brace (lookup.js's rule)."""
    out, i = [], 0
    while i < len(template):
        pair = template[i:i + 2]
        if pair in ("{{", "}}"):
            out.append(pair[0])
            i += 2
        elif template[i] == "{":
            depth, j = 0, i
            while j < len(template):
                depth += {"{": 1, "}": -1}.get(template[j], 0)
                if depth == 0:
                    break
                j += 1
            out.append(ELLIPSIS.strip())
            i = j + 1
        else:
            out.append(template[i])
            i += 1
    return "".join(out)


def fence(text: str, lang: str = "") -> str:
    """A fenced code block that no backtick run inside ``text`` can close."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{text}\n{ticks}"


def error_path(error_id: str) -> str:
    """An error page's path within the site: ``errors/<id>/``."""
    return f"errors/{error_id}/"


def foreign_path(foreign_id: str) -> str:
    """A foreign error's page (an error that is not vLLM's): ``foreign/<id>/``."""
    return f"foreign/{foreign_id}/"


def error_url(site_url: str, error_id: str) -> str:
    """An error page's address: absolute when the site's URL is known, else its path."""
    return f"{site_url.rstrip('/')}/{error_path(error_id)}" if site_url else error_path(error_id)


def unquoted(text: str, start: int = 0) -> Iterator[tuple[int, str]]:
    """``(index, character)`` of each character of ``text[start:]`` outside quoted strings.

    A ``'`` or ``"`` opens a string that the same character closes; inside one, a
    backslash escapes the next character. The quotes themselves are not yielded. The
    callers count their own brackets over what this yields.
    """
    quote = ""
    i, n = start, len(text)
    while i < n:
        c = text[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        else:
            yield i, c
        i += 1
