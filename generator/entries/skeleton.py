"""The skeleton of a new entry for one catalog error, as ``errorkb new`` writes it.

Its title and slug come from the start of the message, its explanation quotes the
code that raises the error, and its command names the engine arguments the error
does (``generator.vllm.flags``); every ``TODO`` in it is what ``errorkb check`` still
reports. The text is YAML written by hand, then checked against the entry schema.
No processes; the only file it reads is the entry schema (through
``generator.entries.schema``, once), so it is pure in all but that.
"""

from __future__ import annotations

import json
import re

import yaml

from generator.entries.schema import SCHEMA_LINE, validator
from generator.text import fence, shorten
from generator.vllm.flags import flags_involved

__all__ = ["title_from_template", "slug_from_template", "involved_args", "new_entry"]

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
        f"ids: ['{error['id']}']",  # quoted: an id of digits alone would be read as a number
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
    invalid = [e.message for e in validator().iter_errors(yaml.safe_load(text))]
    if invalid:  # a bug here, not in the catalog
        raise AssertionError(f"the skeleton for {error['id']} does not pass the entry schema: {invalid}")
    return slug, text
