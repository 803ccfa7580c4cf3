"""The engine arguments an error names: its message, placeholders and guard, read for flags.

Both an error's page (``generator.site.pages``) and the skeleton of a new entry
(``generator.entries.skeleton``) list the engine arguments involved in an error by this
one rule. Pure: text and a mapping of arguments in, the arguments named out.
"""

from __future__ import annotations

import re
from typing import TypeVar

__all__ = ["flags_involved"]

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FLAG = re.compile(r"--([a-z0-9][a-z0-9-]*)")
_BACKTICKED = re.compile(r"`([A-Za-z_][A-Za-z0-9_.]*)`")

Arg = TypeVar("Arg")  # an engine argument: site.pages.Flag, vllm.engine_args.EngineArg


def flags_involved(template: str, sites: list[dict], engine_args: dict[str, Arg]) -> list[Arg]:
    """Engine arguments named in the message text, the placeholders, or the guard.

    Only what reads as the argument's name counts: a snake_case identifier (in code,
    the last part of a dotted name too), a backticked word or a ``--flag``. A plain
    word such as "model" or a local variable ``seed`` would otherwise name a flag on
    every page.
    """
    names: dict[str, None] = {}
    prose = re.sub(r"\{[^{}]*\}", " ", template)
    for word in _IDENT.findall(prose):
        if "_" in word.strip("_"):
            names.setdefault(word, None)
    for word in _BACKTICKED.findall(prose):
        names.setdefault(word.rsplit(".", 1)[-1], None)
    for flag in _FLAG.findall(prose):
        names.setdefault(flag.replace("-", "_"), None)
    for site in sites:
        for source in [*site.get("placeholders", []), *site.get("guard", [])]:
            for ident in _IDENT.findall(source):
                if "_" in ident.strip("_"):
                    names.setdefault(ident, None)
    return [engine_args[n] for n in names if n in engine_args]
