"""Errors across releases: version ranges and lineage, from catalogs (``drift.py`` says what
changed between two of them). Nothing here reads or writes files; ``link_releases`` links
the pairs of releases in forked processes.

The lineage rule (between two releases, OLD → NEW; an error "removed" is raised at
OLD and not at NEW, one "added" the other way round):

- **retyped**: a removed and an added error have the same normalized template and
  different exception types (``ValueError`` → ``VLLMValidationError``);
- **reworded**: a removed and an added error are raised from the same function of the
  same module, and their normalized templates are at least ``REWORD_RATIO`` alike
  (difflib's ratio on the literal text); the exception type may have changed too
  (``ValueError`` → ``VLLMValidationError`` along with the words);
- **moved and reworded**: as reworded, but from another function or module, which
  needs templates at least ``MOVED_RATIO`` alike (``SHORT_MOVED_RATIO`` when one has fewer
  than ``SHORT_LITERAL`` characters of its own; ``SHORT_KEPT_RATIO`` to become one that NEW
  already raised, below), or the old message's literal text
  whole at the start of the new one (a message that grew); raised from the same function,
  the old message's words whole at the start of the new one's are enough ("... was found."
  → "... was found for layer_name=...": grown past its stop);
- an error may become one that the newer release already raised (the V0 engine's check
  gone, the V1 engine's alike one kept): retyped or moved and reworded, as above; but not
  one the same function already raised beside it at the older release, unless the kept one
  says no word the removed one did not, or both open with the same first sentence (two
  wordings of one check: the context length error for chat and for completion requests).
  Two checks side by side ("Prefix caching is not supported with flashinfer yet." and
  "Chunked prefill is not supported ...") stay two: when one goes, the other did not
  become it. Nor did one message become another that NEW already raised and that differs
  from it only by one name (``_named_otherwise``: "Pin memory is not supported on XPU." and
  "... on TPU."; one method's, backend's or model's check and its sibling's).

Only errors of one family link: exceptions (raise, assert) with exceptions, log lines
with log lines, responses with responses.

Each error links to at most one other: candidates are taken best score first. An
error raised at both releases keeps its id; if its sites changed, drift reports it
as moved.
"""

from __future__ import annotations

import bisect
import difflib
import functools
import math
import multiprocessing
import re
from dataclasses import dataclass

import numpy

from generator.history.ranges import version_ranges  # noqa: F401 (where callers have found it)
from generator.scan.ids import normalize_template
from generator.scan.records import collector_paused

REWORD_RATIO = 0.6
MOVED_RATIO = 0.8
# A few characters are alike by chance ("unknown part type" and "unknown parameter type"):
# a short message needs more alike to have moved.
SHORT_LITERAL = 25
SHORT_MOVED_RATIO = 0.9
# ... and more still to have become an error the newer release already raised, elsewhere: a few
# words alike by chance ("Unsupported data type: {type(audio_input)}" of an audio model and
# pynccl's "Unsupported dtype: {dtype}"), not one message in other capitals ("No free LoRA slots.")
SHORT_KEPT_RATIO = 0.95
HISTORY_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Link:
    source: str  # the id that stopped being raised
    target: str  # the id raised instead
    kind: str  # "retyped" | "reworded" | "moved-reworded"
    score: float
    old: str  # the release where ``source`` was last raised
    new: str  # the release where ``target`` is first raised

    def to_json(self) -> dict:
        return {"from": self.source, "to": self.target, "kind": self.kind, "score": self.score,
                "last_release": self.old, "first_release": self.new}


# Most errors of a release are the next one's too: what a template gives is worked out once.
_normalized = functools.lru_cache(maxsize=1 << 16)(normalize_template)


@functools.lru_cache(maxsize=1 << 16)
def _literal(template: str) -> str:
    return re.sub(r"\s+", " ", _normalized(template).replace("{}", " ")).strip().lower()


FIRST_WORD = re.compile(r"\s*([^\s{]+)")
NUMBER = re.compile(r"\d+(?:\.\d+)?")
PLACEHOLDER = re.compile(r"\{[^}]*\}")


def _other_subject(template: str, other: str) -> bool:
    """Two messages about different things, however alike the rest: their first words differ
    (neither begins with a placeholder) and so do the numbers in their text. "Head size must
    be a multiple of 128." and "Block size must be a multiple of 16." are two checks, as are
    "Qwen2-VL currently does not support prefix caching" and "Jamba currently ..."; "the
    factor field must be a float > 1.0" reworded to "> 1" keeps its number."""
    first, second = FIRST_WORD.match(template), FIRST_WORD.match(other)
    if not first or not second or first.group(1).lower() == second.group(1).lower():
        return False
    numbers = lambda text: sorted(float(n) for n in NUMBER.findall(PLACEHOLDER.sub(" ", text)))  # noqa: E731
    return numbers(template) != numbers(other)


def _has_words(error: dict) -> bool:
    return error.get("has_message", True) and _words_of_its_own(error["template"])


@functools.lru_cache(maxsize=1 << 16)
def _words_of_its_own(template: str) -> bool:
    return bool(re.search(r"\w", _normalized(template).replace("{}", "")))


def _side_by_side(error: dict, other: dict) -> bool:
    """Both raised (or logged) by one function at the same release."""
    return bool(_places(error) & _places(other))


LITERAL_WORD = re.compile(r"[a-z0-9_]+")


def _says_no_more(text: str, other: str) -> bool:
    """Every word of OTHER's literal text is one of TEXT's: OTHER is TEXT with words dropped or
    turned into a value ("... set to 'align' for {arch} ..." → "... set to '{mode}' for {arch} ..."),
    or the same words in other capitals."""
    return set(LITERAL_WORD.findall(other)) <= set(LITERAL_WORD.findall(text))


FIRST_SENTENCE_LEAST = 20  # characters of a first sentence that two messages share


def _same_first_sentence(text: str, other: str) -> bool:
    """Both open with one sentence and go on otherwise: one check's two wordings ("This model's
    maximum context length is {} tokens. However, you requested {} tokens ({} in the messages,
    ...)" beside "... However, your request has {} input tokens. ..."), not two checks."""
    first, _, rest = text.partition(". ")
    other_first, _, other_rest = other.partition(". ")
    return len(first) >= FIRST_SENTENCE_LEAST and first == other_first and bool(rest) and bool(other_rest)


def _family(error: dict) -> str:
    """What may become what: an exception another exception, a log line another log line."""
    kind = error.get("kind", "raise")
    return "exception" if kind in ("raise", "assert") else kind


NAME_TOKEN = re.compile(r"[A-Za-z0-9_]+(?:[-.][A-Za-z0-9_]+)*")
NAME_WORDS = 2  # words on each side of the one place two messages differ, for it to be a name
VERSION = re.compile(r"[\d.]+")


def _named_otherwise(template: str, other: str) -> bool:
    """Two messages alike but for one name, each its own thing's: "Pin memory is not supported
    on XPU." and "... on TPU.", "EPLB not supported for `BitsAndBytesMoEMethod` yet." and the
    ModelOpt method's, "Keye-VL does not support ..." and PaddleOCR-VL's. One of those going
    (XPU's check dropped) did not become the other, which was raised beside it all along."""
    words = NAME_TOKEN.findall(PLACEHOLDER.sub(" ", template))
    other_words = NAME_TOKEN.findall(PLACEHOLDER.sub(" ", other))
    changes = [op for op in difflib.SequenceMatcher(None, words, other_words, autojunk=False).get_opcodes() if op[0] != "equal"]
    if len(changes) != 1 or changes[0][0] != "replace":
        return False
    _, i1, i2, j1, j2 = changes[0]
    part, other_part = words[i1:i2], other_words[j1:j2]
    # a name has a capital or a digit, and is no bare number (a version the message asks for
    # went up: "Please install bitsandbytes>=0.45.3" → "... >=0.46.1" is one message)
    named = lambda ws: 0 < len(ws) <= NAME_WORDS and any(not w.islower() and not VERSION.fullmatch(w) for w in ws)  # noqa: E731
    # ... and two spellings of one name are one ("Blockscale", "Block scale")
    return named(part) and named(other_part) and "".join(part).lower() != "".join(other_part).lower()


def _places(error: dict) -> set[tuple[str, str]]:
    return {(s["path"], s["function"]) for s in error["sites"]}


def link_errors(old: dict, new: dict) -> list[Link]:
    """Lineage links between two catalogs (OLD → NEW), by the rule in the module docstring."""
    old_ids = {e["id"]: e for e in old["errors"]}
    new_ids = {e["id"]: e for e in new["errors"]}
    # Only messages with words of their own can be told to be the same message.
    removed = [e for i, e in old_ids.items() if i not in new_ids and _has_words(e)]
    added = [e for i, e in new_ids.items() if i not in old_ids and _has_words(e)]
    # An error may also become one that NEW already raised before: the V0 engine's check
    # removed while the V1 engine's, worded alike, lives on.
    kept = [e for i, e in new_ids.items() if i in old_ids and _has_words(e)]
    targets = added + kept
    by_place: dict[tuple[str, str], list[dict]] = {}
    by_normalized: dict[str, list[dict]] = {}
    for error in added:
        for place in _places(error):
            by_place.setdefault(place, []).append(error)
    for error in targets:
        by_normalized.setdefault(_normalized(error["template"]), []).append(error)
    literal = {e["id"]: _literal(e["template"]) for e in (*removed, *targets)}
    by_family = {
        family: _Candidates([e["id"] for e in errors], literal)
        for family, errors in _group(targets, _family).items()
    }
    family_of = {e["id"]: _family(e) for e in targets}
    template_of = {e["id"]: e["template"] for e in targets}
    places_of = {e["id"]: _places(e) for e in targets}
    prefixes = _Prefixes(targets, literal)
    candidates: list[tuple[float, str, str, str]] = []
    for error in removed:
        text = literal[error["id"]]
        for other in by_normalized.get(_normalized(error["template"]), []):
            if other["exception"] != error["exception"] and _family(other) == _family(error):
                candidates.append((1.0, "retyped", error["id"], other["id"]))
        paths = {path for path, _ in _places(error)}
        for other_id in prefixes.extending(text) + [o for o in prefixes.extending_words(text) if places_of[o] & _places(error)]:
            if family_of[other_id] == _family(error):
                # of several messages that begin alike, the one raised where it was, then the shortest
                here = any(path in paths for path, _ in places_of[other_id])
                score = PREFIX_SCORE + 0.05 * here + 0.04 * len(text) / len(literal[other_id])
                candidates.append((round(score, 3), "reworded", error["id"], other_id))
        near = {o["id"]: o for place in _places(error) for o in by_place.get(place, [])}
        common = _Subsequences(text)
        for other in near.values():
            if _family(other) != _family(error) or not _may_reach(text, literal[other["id"]], REWORD_RATIO) \
                    or not common.may_reach(literal[other["id"]], REWORD_RATIO):
                continue
            ratio = difflib.SequenceMatcher(None, text, literal[other["id"]], autojunk=False).ratio()
            if ratio >= REWORD_RATIO:
                candidates.append((round(ratio, 3), "reworded", error["id"], other["id"]))
        group = by_family.get(_family(error))
        if group is None:
            continue
        matcher = None
        for other_id in group.plausible(text):
            if other_id in near:
                continue
            other_text = literal[other_id]
            least = SHORT_MOVED_RATIO if min(len(text), len(other_text)) < SHORT_LITERAL else MOVED_RATIO
            if not _may_reach(text, other_text, least) or not common.may_reach(other_text, least):
                continue
            if matcher is None:
                matcher = difflib.SequenceMatcher(None, autojunk=False)
                matcher.set_seq2(text)
            matcher.set_seq1(other_text)
            ratio = matcher.ratio()
            if ratio >= least and not _other_subject(error["template"], template_of[other_id]) \
                    and not (other_id in old_ids and min(len(text), len(other_text)) < SHORT_LITERAL and ratio < SHORT_KEPT_RATIO):
                candidates.append((round(ratio, 3), "moved-reworded", error["id"], other_id))
    links: list[Link] = []
    taken_from: set[str] = set()
    taken_to: set[str] = set()
    kind_rank = {"retyped": 0, "reworded": 1, "moved-reworded": 2}
    # A successor new in NEW before one NEW already raised, at a like score.
    candidates = [(score - KEPT_PENALTY if target in old_ids and kind != "retyped" else score, kind, source, target)
                  for score, kind, source, target in candidates
                  if not (target in old_ids and kind != "retyped" and _named_otherwise(old_ids[source]["template"], old_ids[target]["template"]))
                  and not (target in old_ids and _side_by_side(old_ids[source], old_ids[target])
                          and not _says_no_more(literal[source], literal[target])
                          and not _same_first_sentence(literal[source], literal[target]))]
    for score, kind, source, target in sorted(candidates, key=lambda c: (-c[0], kind_rank[c[1]], c[2], c[3])):
        if source in taken_from or target in taken_to:
            continue
        taken_from.add(source)
        if target not in old_ids:  # an error new in NEW takes one; one that lived on takes any
            taken_to.add(target)
        links.append(Link(source, target, kind, score, old["revision"], new["revision"]))
    return sorted(links, key=lambda link: (link.source, link.target))


KEPT_PENALTY = 0.05
PREFIX_SCORE = 0.9  # a message that grew (words added at its end) ranks with a close rewording
PREFIX_LEAST = 16  # literal characters a message needs for its growth to be told apart


class _Prefixes:
    """The errors whose literal text begins with a given text: messages that grew."""

    def __init__(self, errors: list[dict], literal: dict[str, str]):
        self.sorted = sorted((literal[e["id"]], e["id"]) for e in errors)
        self.texts = [text for text, _ in self.sorted]
        self.literal = literal
        # each text's words, with a space after the last: a prefix of them ends at a word's end
        self.by_words = sorted((_words(text) + " ", id_) for text, id_ in self.sorted)
        self.words = [words for words, _ in self.by_words]

    def extending(self, text: str) -> list[str]:
        if len(text) < PREFIX_LEAST:
            return []
        at = bisect.bisect_left(self.texts, text)
        found = []
        while at < len(self.texts) and self.texts[at].startswith(text):
            if self.texts[at] != text:
                found.append(self.sorted[at][1])
            at += 1
        return found[:8]

    def extending_words(self, text: str) -> list[str]:
        """The errors whose words begin with all of TEXT's words, where the text alone does
        not begin theirs: the message grew past a stop or a colon ("No compressed-tensors
        compatible scheme was found." → "... was found for layer_name={layer_name!r}, ...")."""
        words = _words(text)
        if len(words) < PREFIX_LEAST:
            return []
        at = bisect.bisect_left(self.words, words)
        found = []
        while at < len(self.words) and self.words[at].startswith(words):
            other, id_ = self.by_words[at]
            if other.startswith(words + " ") and not self.literal[id_].startswith(text):
                found.append(id_)
            at += 1
        return found[:8]


@functools.lru_cache(maxsize=1 << 16)
def _words(literal: str) -> str:
    return " ".join(LITERAL_WORD.findall(literal))


def _group(items, key) -> dict:
    groups: dict = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return groups


def _may_reach(a: str, b: str, least: float) -> bool:
    """Whether difflib's ratio of two texts may be ``least`` or more, by quick bounds: its
    real_quick_ratio (from lengths) and a coarse quick_ratio (from the counts of characters,
    rare ones lumped). ``_Subsequences`` bounds it closer, at more cost."""
    length = len(a) + len(b)
    return _ratio(min(len(a), len(b)), length) >= least and _ratio(_coarse_common(a, b), length) >= least


def _ratio(matches: int, length: int) -> float:
    return 2.0 * matches / length if length else 1.0  # difflib's _calculate_ratio


# The commonest characters of messages (lowercased): each its own count in the vectors
# below, every other character lumped into one more.
_COMMON = " etaoinsrlcdupmfhgbyv_.,:()'kwx"


@functools.lru_cache(maxsize=1 << 16)
def _coarse(text: str) -> tuple[int, ...]:
    counts = tuple(text.count(c) for c in _COMMON)
    return counts + (len(text) - sum(counts),)


class _Subsequences:
    """The longest common subsequence of one text with others, as a bound of difflib's ratio.

    difflib's matching blocks are, in order, a common subsequence of the two texts, so the
    ratio is at most ``2 * LCS / (len(a) + len(b))``. The length is counted bit-parallel
    (Allison and Dix; Hyyro): a few integer operations per character of the other text,
    some ten times quicker than the ratio itself, and most pairs of messages fall under it.
    """

    def __init__(self, text: str):
        self.size = len(text)
        self.full = (1 << len(text)) - 1
        masks: dict[str, int] = {}
        for at, char in enumerate(text):
            masks[char] = masks.get(char, 0) | (1 << at)
        self.masks = masks

    def length(self, other: str) -> int:
        masks, full = self.masks, self.full
        row = full  # a 1 bit: that position of the text is not yet in the subsequence
        for mask in map(masks.get, other):
            if mask is not None:  # a character the text lacks leaves the row as it is
                matched = row & mask
                row = ((row + matched) | (row - matched)) & full
        return self.size - row.bit_count()

    def may_reach(self, other: str, least: float) -> bool:
        return _ratio(self.length(other), self.size + len(other)) >= least


def _coarse_common(a: str, b: str) -> int:
    """At least as many as the characters two texts have in common, counted with repeats
    (quick_ratio's matches): the coarse counts lump rare characters together."""
    return sum(map(min, _coarse(a), _coarse(b)))


class _Candidates:
    """The errors an error may have moved to, by the length and characters of their literal text.

    Most pairs of one release's removed and the next one's added errors cannot be alike
    enough: ``plausible`` rules them out by bounds of quick_ratio's matches, for all of a
    group at once. Lumping characters together into the coarse counts only adds to the
    matches, so the bound rules out no pair that could match.
    """

    def __init__(self, ids: list[str], literal: dict[str, str]):
        self.ids = sorted(ids, key=lambda i: len(literal[i]))
        self.sizes = numpy.array([len(literal[i]) for i in self.ids], dtype=numpy.int64)
        coarse = [_coarse(literal[i]) for i in self.ids]
        self.coarse = numpy.array(coarse, dtype=numpy.int64).reshape(len(self.ids), len(_COMMON) + 1)

    def plausible(self, text: str) -> list[str]:
        """Those whose length gives real_quick_ratio >= MOVED_RATIO (and a few more: it is
        checked) and whose coarse counts leave enough matches for MOVED_RATIO."""
        size = len(text)
        low = math.floor(size * MOVED_RATIO / (2 - MOVED_RATIO)) - 1
        high = math.ceil(size * (2 - MOVED_RATIO) / MOVED_RATIO) + 1
        begin = int(numpy.searchsorted(self.sizes, low, side="left"))
        end = int(numpy.searchsorted(self.sizes, high, side="right"))
        if begin >= end:
            return []
        bound = numpy.minimum(self.coarse[begin:end], numpy.array(_coarse(text))).sum(axis=1)
        # for each pair, a number of matches under which the ratio is surely under MOVED_RATIO
        least = numpy.maximum(numpy.floor(MOVED_RATIO * (size + self.sizes[begin:end]) / 2) - 1, 0)
        return [self.ids[begin + i] for i in numpy.flatnonzero(bound >= least).tolist()]


def assemble_history(catalogs: list[dict], workers: int = 1, apart: frozenset = frozenset()) -> dict:
    """Catalogs of releases, oldest first → every error ever raised, with ranges and lineage.

    ``workers`` > 1 links pairs of releases in that many processes (``link_releases``);
    ``apart``: links people said join two checks (``errors/lineage.yaml``), left out.
    """
    with collector_paused():
        return _assemble_history(catalogs, link_releases(catalogs, workers, apart))


def link_releases(catalogs: list[dict], workers: int = 1, apart: frozenset = frozenset()) -> list[Link]:
    """``link_errors`` of each release and the next, in order, but for the links in ``apart``
    (sets of two ids); in ``workers`` forked processes when more than one (they inherit the
    catalogs, and send back only links)."""
    pairs = len(catalogs) - 1
    if workers <= 1 or pairs < 2 or "fork" not in multiprocessing.get_all_start_methods():
        found = [link_errors(old, new) for old, new in zip(catalogs, catalogs[1:])]
    else:
        global _LINKING
        _LINKING = catalogs
        try:
            with multiprocessing.get_context("fork").Pool(min(workers, pairs)) as pool:
                found = pool.map(_link_pair, range(pairs), chunksize=1)
        finally:
            _LINKING = None
    return [link for links in found for link in links if frozenset((link.source, link.target)) not in apart]


_LINKING: list[dict] | None = None  # the catalogs link_releases' processes inherit


def _link_pair(index: int) -> list[Link]:
    assert _LINKING is not None
    return link_errors(_LINKING[index], _LINKING[index + 1])


def _assemble_history(catalogs: list[dict], links: list[Link]) -> dict:
    releases = [c["revision"] for c in catalogs]
    errors: dict[str, dict] = {}
    for catalog in catalogs:
        for error in catalog["errors"]:
            entry = errors.get(error["id"])
            if entry is None:
                entry = errors[error["id"]] = {
                    "id": error["id"],
                    "kind": error["kind"],
                    "exception": error["exception"],
                    "has_message": error.get("has_message", True),
                    "versions": [],
                    "templates": {},
                    "sites": {},
                }
            entry["versions"].append(catalog["revision"])
            entry["template"] = error["template"]  # the newest wording
            entry["sites"][catalog["revision"]] = [{"path": s["path"], "line": s["line"], "function": s["function"]} for s in error["sites"]]
    for error in errors.values():
        error["ranges"] = version_ranges(error["versions"], releases)
        error["first"] = error["versions"][0]
        error["last"] = error["versions"][-1]
        error["replaced_by"] = []
        error["replaces"] = []
        del error["templates"]
    for link in links:
        errors[link.source]["replaced_by"].append({"id": link.target, "kind": link.kind, "release": link.new})
        errors[link.target]["replaces"].append({"id": link.source, "kind": link.kind, "release": link.old})
    return {
        "schema_version": HISTORY_SCHEMA_VERSION,
        "project": catalogs[0].get("project", "vllm") if catalogs else "vllm",
        "releases": [{"revision": c["revision"], "commit": c["commit"], "tag": c.get("tag")} for c in catalogs],
        "errors": [errors[i] for i in sorted(errors)],
        "links": [link.to_json() for link in links],
        "stats": {
            "releases": len(catalogs),
            "errors": len(errors),
            "links": len(links),
            "by_kind": {k: sum(link.kind == k for link in links) for k in ("retyped", "reworded", "moved-reworded")},
        },
    }


def errors_of_releases(catalogs: list[dict], pin: int) -> list[dict]:
    """Every error the releases raise, once each: the pin's first, then those only older
    (or other) releases raise, newest release first (an entry may explain an old wording)."""
    known = list(catalogs[pin]["errors"])
    seen = {e["id"] for e in known}
    for index in reversed(range(len(catalogs))):
        if index == pin:
            continue
        for error in catalogs[index]["errors"]:
            if error["id"] not in seen:
                seen.add(error["id"])
                known.append(error)
    return known
