"""A curated fix command with the paste's own numbers in it. Pure.

An entry's solution may say which of its settings the message gives the value of
(``fill: {max_num_seqs: [kv_cache_config.num_blocks]}``): a lookup that read
``max_num_seqs (256) exceeds available Mamba cache blocks (128)`` then shows
``--max-num-seqs 128`` instead of the entry's example value. ``lookup.js`` does the same
(``fixWithValues``), and the browser tests compare the two.
"""

from __future__ import annotations

import re

# Only a number goes into a command a person copies: a paste is anyone's text, and a value
# such as "1; rm -rf ~" or a quote must never reach a shell line shown as the fix.
NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?")  # ASCII digits, as in lookup.js
# ... or a sentence of words that ends in one ("Based on the available memory, the estimated
# maximum model length is 76496."): nothing else rides along with the number
SENTENCE_NUMBER = re.compile(r"[A-Za-z][A-Za-z ,]* ([0-9]+(?:\.[0-9]+)?)\.?")
# A setting's value in a `vllm serve` line (--max-num-seqs 256, --max_num_seqs=256) or in
# Python (max_num_seqs=256): the value runs to a space, comma, bracket or quote.
VALUE = r"""[^\s,()'"]+"""


def fill_names(fill) -> dict[str, list[str]]:
    """An entry's ``fill`` as setting → placeholders, a single placeholder written as a list
    (what is of another shape is left out: the schema reports it)."""
    if not isinstance(fill, dict):
        return {}
    return {setting: [names] if isinstance(names, str) else [n for n in names if isinstance(n, str)] if isinstance(names, list) else []
            for setting, names in fill.items() if isinstance(setting, str)}


def paste_number(placeholders: list[str], values: dict[str, str]) -> str | None:
    """The number the paste gives for the first of ``placeholders`` that it fills: the value
    itself, or the number a sentence of words ends with ("... model length is 76496.")."""
    for name in placeholders:
        value = (values.get(name) or "").strip()
        if NUMBER.fullmatch(value):
            return value
        sentence = SENTENCE_NUMBER.fullmatch(value)
        if sentence:
            return sentence.group(1)
    return None


def setting_pattern(setting: str) -> re.Pattern:
    """Where a command sets ``setting``: its flag (dashes or underscores) or its keyword."""
    flag = re.escape(setting).replace("_", "[-_]")
    return re.compile(rf"(--{flag}[ =]|(?<![A-Za-z0-9_]){re.escape(setting)}=)({VALUE})")


def set_values(command: str, settings: dict[str, str]) -> str:
    """``command`` with each setting's value replaced where the command sets it."""
    for setting, value in settings.items():
        command = setting_pattern(setting).sub(lambda m, v=value: m.group(1) + v, command)
    return command


def fix_with_values(fix: dict | None, values: dict[str, str]) -> dict | None:
    """The fix a result shows: ``{title, command}``, and where the paste gave a setting's
    value, the command with it, ``from_paste`` (setting → value) and the entry's own
    command as ``example``."""
    if not fix:
        return fix
    shown = {"title": fix.get("title", ""), "command": fix.get("command", "")}
    found = {}
    for setting, placeholders in fill_names(fix.get("fill")).items():
        number = paste_number(placeholders, values)
        if number is not None and setting_pattern(setting).search(shown["command"]):
            found[setting] = number
    command = set_values(shown["command"], found)
    if command != shown["command"]:
        shown.update(command=command, example=shown["command"], from_paste=found)
    return shown
