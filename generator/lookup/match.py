"""Lookup: a pasted log, traceback or message → the vLLM errors it shows.

Pure functions over a catalog; the command line and the browser port
(``templates/assets/lookup.js``) follow the same rules, checked by the shared test
vectors in ``tests/data/lookup_vectors.json``.

How a paste is read:

1. ``clean_paste`` undoes what happens to text between vLLM and the search box:
   ANSI colours, HTML entities, JSON string escapes, and per line the prefixes that
   logs add (docker-compose ``vllm-1  | ``, ``(EngineCore_DP0 pid=316)``,
   ``[rank0]:``, vLLM's ``ERROR 11-18 18:07:28 [core.py:710]`` headers, timestamps).
2. ``squash`` drops whitespace and backticks, folds case and quote styles. Compared
   squashed, a message survives hard wraps that split words, lost indentation, lost
   backticks, and re-flowed paragraphs. Each squashed character remembers where it
   came from, so placeholder values are cut from the cleaned text.
3. Every template is a list of literal segments with holes between them. Candidates
   come from a 6-gram index over the segments; each candidate is verified by finding
   its segments in order (a hole takes whatever lies between), crediting a prefix of
   the template when the paste stops early (truncation).
"""

from __future__ import annotations

import heapq
import html
import re
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass, field
from itertools import chain
from typing import Iterable

from generator.scan.ids import split_template
from generator.text import error_url, shorten, unquoted

GRAM = 6
MAX_TEXT_CHARS = 200_000  # a bigger paste is read from its end, where the error is
MAX_GRAMS_PER_ENTRY = 48
STOP_GRAM_ENTRIES = 150  # a gram in more templates than this tells nothing
MAX_CANDIDATES = 40
MIN_LITERAL = 12  # templates with less literal text need their exception name beside them
MIN_MATCHED = 20  # a longer template must show at least this much of itself

# --- cleaning --------------------------------------------------------------------------

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b[@-_]|(?<![\w\]])\[(?:\d{1,3}(?:;\d{1,3})*)?m")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_JSON_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|[nrt\"'\\/])")
_LINE_PREFIXES = [
    re.compile(r"^[\w.-]+-\d+\s+\|\s?"),  # docker-compose: "vllm-1  | "
    re.compile(r"^\s*\((?:[\w.:-]+\s+)*pid=\d+(?:,\s*ip=[\w.:]+)?\)\s?"),  # (EngineCore_DP0 pid=316)
    re.compile(r"^\s*\[rank\d+\]:\s?"),  # [rank0]:
    # vLLM's headers: "ERROR 11-18 18:07:28 engine.py:366] ", "INFO 05-01 12:00:00.123 [core.py:710] "
    re.compile(
        r"^\s*(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\s+\d\d-\d\d\s+\d\d:\d\d:\d\d(?:\.\d+)?\s+"
        r"(?:\[[^\]\s]+:\d+\]|[\w./-]+:\d+\])\s?"
    ),
    re.compile(r"^\s*\[[^\]\s]+\.py:\d+\]\s?"),  # a bare "[core.py:710] "
    re.compile(r"^\s*\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\s*(?:[|-]\s*)?"),
    re.compile(r"^\s*(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):[\w.]+:"),  # logging's default format
    re.compile(r"^\s*>\s?"),  # a quoted reply on GitHub
]


# A vLLM INFO/DEBUG header anywhere in the line's prefix.
_CHATTER = re.compile(r"^[^\n]{0,80}?\b(?:INFO|DEBUG)\s+\d\d-\d\d\s+\d\d:\d\d:\d\d")
_CHATTER_KEEP = re.compile(r"Error|Exception|Traceback", re.I)


def clean_paste(text: str) -> str:
    """The paste as vLLM printed it, as far as that can be recovered."""
    if len(text) > MAX_TEXT_CHARS:
        text = text[-MAX_TEXT_CHARS:]
    text = _ANSI.sub("", text)
    text = _CONTROL.sub("", text)
    if "&" in text:
        text = html.unescape(text)
    for _ in range(3):  # a JSON body quoted inside another is escaped twice
        if "\\" not in text:
            break
        text = _JSON_ESCAPE.sub(_unescape, text)
    # "\ud83d\ude80" came out as two halves: one code point again; a lone half is no text
    text = _SURROGATES.sub(_join_surrogates, text)
    lines = []
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = raw
        for _ in range(6):  # prefixes stack: "vllm-1  | (APIServer pid=1) ERROR ... ] "
            before = line
            for pattern in _LINE_PREFIXES:
                line = pattern.sub("", line, count=1)
            if line == before:
                break
        if _CHATTER.search(raw) and not _CHATTER_KEEP.search(raw):
            continue  # an INFO or DEBUG log line: vLLM never reports a raised error there
        lines.append(line)
    return "\n".join(lines)


_SURROGATES = re.compile("[\ud800-\udbff][\udc00-\udfff]|[\ud800-\udfff]")


def _join_surrogates(match: re.Match) -> str:
    pair = match.group(0)
    if len(pair) == 2:
        return chr(0x10000 + ((ord(pair[0]) - 0xD800) << 10) + (ord(pair[1]) - 0xDC00))
    return "\ufffd"


def _unescape(match: re.Match) -> str:
    code = match.group(1)
    if code[0] == "u":
        return chr(int(code[1:], 16))
    return {"n": "\n", "r": "\n", "t": "\t"}.get(code, code)


# --- squashing ---------------------------------------------------------------------------

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": "'", "\u201d": "'", '"': "'"})
# Quotes go too: they differ between str() and repr(), and the pieces of an
# implicitly concatenated message in a traceback's source lines read as the message.
_DROP = frozenset(" \t\n\r\f\v`\u00a0'")


class Origin:
    """Maps a position in squashed text back to the cleaned text it came from."""

    def __init__(self, starts: list[int], shifts: list[int]):
        self.starts = starts  # squashed position where each run of dropped chars ends
        self.shifts = shifts  # dropped chars before that position

    def __getitem__(self, index: int) -> int:
        run = bisect_right(self.starts, index)
        return index + (self.shifts[run - 1] if run else 0)


_DROP_RUN = re.compile("[" + re.escape("".join(sorted(_DROP))) + "]+")


def squash(text: str) -> tuple[str, Origin]:
    """Text without whitespace, backticks or quotes, in lower case; and where each char came from."""
    folded = text.translate(_QUOTES).lower()
    if len(folded) != len(text):  # rare case-folding that changes length: fold per char
        folded = "".join(c.translate(_QUOTES).lower()[:1] or c for c in text)
    starts: list[int] = []
    shifts: list[int] = []
    dropped = 0
    for run in _DROP_RUN.finditer(folded):
        dropped += run.end() - run.start()
        starts.append(run.end() - dropped)
        shifts.append(dropped)
    return _DROP_RUN.sub("", folded), Origin(starts, shifts)


def squash_text(text: str) -> str:
    folded = text.translate(_QUOTES).lower()
    return _DROP_RUN.sub("", folded)


# --- templates ---------------------------------------------------------------------------


def _hole_name(source: str) -> str:
    """``x!r:>10`` → ``x``: the expression without conversion and spec."""
    depth = 0
    for i, c in unquoted(source):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0 and (c == ":" or (c == "!" and source[i + 1 : i + 2] in ("r", "s", "a") and source[i + 2 : i + 3] in ("", ":"))):
            return source[:i]
    return source


@dataclass
class Entry:
    """One template (an error's main template or a variant), ready to match.

    Its literal text is cut into chunks of a few words. Chunks are found in order;
    one that is missing costs its length, so a message reworded in one place (an
    older release, a typo fixed) still matches on the rest.
    """

    error: int  # index into Matcher.errors
    chunks: list[str]  # squashed
    segment_of: list[int]  # the literal segment each chunk belongs to
    holes: list[str]  # hole h lies between segments h and h + 1
    literal: int  # squashed literal characters in all
    exception: str  # lower-cased, for "valueerror:" adjacency
    grams: int = 0  # grams of it in the index


CHUNK_WORDS = 3
WINDOW = 24  # how far past the expected place a chunk may start (inserted words)


def chunk_segments(segments: list[str]) -> tuple[list[str], list[int]]:
    chunks: list[str] = []
    owners: list[int] = []
    for number, segment in enumerate(segments):
        words = segment.split()
        pieces = [squash_text(" ".join(words[i : i + CHUNK_WORDS])) for i in range(0, len(words), CHUNK_WORDS)]
        if not words and squash_text(segment):
            pieces = [squash_text(segment)]
        merged: list[str] = []
        for piece in pieces:
            if not piece:
                continue  # only quotes or backticks: nothing to find
            if merged and len(piece) < GRAM:
                merged[-1] += piece  # a short tail joins the chunk before it
            else:
                merged.append(piece)
        chunks.extend(merged)
        owners.extend([number] * len(merged))
    return chunks, owners


@dataclass
class LookupError_:
    """What the matcher knows of an error (a slice of the catalog)."""

    id: str
    exception: str
    template: str
    title: str
    url: str
    versions: list[str]
    sites: list[dict]  # {"path", "line", "function"}


def error_title(exception: str, template: str, has_message: bool = True, width: int = 80) -> str:
    """``<Exception>: <start of the message>``, cut at a word boundary."""
    if not has_message or not template:
        return exception
    return f"{exception}: {shorten(template, width)}"


def _grams(segment: str) -> Iterable[str]:
    return (segment[i : i + GRAM] for i in range(len(segment) - GRAM + 1))


@dataclass
class Match:
    error: LookupError_
    values: dict[str, str]
    start: int  # where in the cleaned paste the match starts
    matched: int = 0  # squashed literal characters found in order
    missing: int = 0  # literal characters the paste has something else in place of
    coverage: float = 0.0  # matched / all literal characters of the template
    exception_agrees: bool = False  # "ValueError: <message>", or the last exception's type
    in_last: bool = False  # within the last exception of the paste
    frame: bool = False  # the last traceback frame is one of the error's sites
    end: int = 0  # where the match ends in the cleaned paste
    value_spans: list[tuple[int, int]] = field(default_factory=list)
    wrapper: bool = False  # another match lies inside one of its values: it only wraps that one
    holes: int = 0  # placeholders in the template

    @property
    def score(self) -> float:
        """How much of what the paste could show of the template it does show."""
        return round(self.matched / max(1, self.matched + self.missing), 3) if self.matched else 0.5 * self.frame

    @property
    def rank_key(self) -> tuple:
        # A type that agrees is worth a few characters, not more: exception types
        # migrate between releases (ValueError → VLLMValidationError).
        return (
            not self.wrapper,
            self.score >= 0.9,
            self.matched - self.missing + 15 * (self.exception_agrees or self.frame) + 50 * self.frame,
            self.coverage,
            -self.holes,  # of two templates that fit alike, the one with fewer holes says more
            self.in_last,
        )

    def to_json(self) -> dict:
        e = self.error
        return {
            "id": e.id,
            "exception": e.exception,
            "template": e.template,
            "title": e.title,
            "url": e.url,
            "score": self.score,
            "coverage": round(self.coverage, 3),
            "versions": e.versions,
            "sites": [{"path": s["path"], "line": s["line"]} for s in e.sites],
            "values": self.values,
        }


# --- not vLLM -----------------------------------------------------------------------------

# Errors that vLLM users hit but that come from elsewhere. Checked against the last
# exception of the paste; a vLLM template that explains that exception wins.
NOT_VLLM_RULES: list[tuple[str, tuple[str, ...], re.Pattern, str, bool]] = [
    # (source, keywords, pattern, reason, weak): the pattern runs only where one of
    # the keywords occurs (lower case); a weak rule speaks only when no vLLM error matched.
    ("torch", ("out of memory", "re-initialize cuda"),
     re.compile(r"OutOfMemoryError: CUDA out of memory|CUDA out of memory\. Tried to allocate|Cannot re-initialize CUDA in forked subprocess", re.I),
     "PyTorch reported it (a CUDA allocation that failed, or CUDA used in a forked process), not a vLLM check", False),
    ("cuda", ("cuda error",),
     re.compile(r"CUDA error: (?:an illegal memory access|no kernel image is available|device-side assert|misaligned address|unspecified launch failure|out of memory|invalid device ordinal|CUDA-capable device)", re.I),
     "an error reported by the CUDA runtime (through PyTorch), not a vLLM check", False),
    ("nccl", ("nccl", "distbackenderror"),
     re.compile(r"\bNCCL error|nccl(?:UnhandledCudaError|SystemError|InternalError|InvalidUsage|RemoteError)|DistBackendError", re.I),
     "an error from NCCL, the GPU collective-communication library", False),
    ("nccl", ("nccl warn",), re.compile(r"\bNCCL WARN\b"),
     "a warning from NCCL, the GPU collective-communication library", True),
    ("python-import", ("no module named", "cannot import name", "undefined symbol"),
     re.compile(r"(?:ModuleNotFoundError|ImportError): (?:No module named|cannot import name)|undefined symbol: \w+"),
     "Python could not import a package, a name from it, or a compiled extension built against another PyTorch", False),
    ("transformers", ("transformers", "unrecognized", "config.json", "gguf model", "custom code"),
     re.compile(r"contains custom code which must be executed|Transformers does not recognize this architecture|model type `[^`]+` but Transformers|Unrecognized configuration class|does not appear to have a file named config\.json|Unrecognized model in |GGUF model with architecture \S+ is not supported yet", re.I),
     "an error from Hugging Face transformers while reading the model's configuration", False),
    ("huggingface_hub", ("repo", "client error", "model identifier", "localentrynotfound", "huggingface.co"),
     re.compile(r"GatedRepoError|RepositoryNotFoundError|(?:401|403) Client Error|is not a valid model identifier|LocalEntryNotFoundError|We couldn't connect to 'https://huggingface\.co'|Cannot access gated repo", re.I),
     "an error from the Hugging Face Hub client while fetching the model", False),
]

_EXCEPTION_LINE = re.compile(r"^(?:[\w.]+\.)?(\w*(?:Error|Exception|Exit|Interrupt|Warning)|AssertionError)(?:\((\w+)\))?(?::\s?(.*))?$")
_FRAME = re.compile(r'File "([^"]+)", line (\d+), in ([\w<>.]+)')


def last_exception(cleaned: str) -> tuple[int, str] | None:
    """(position, name) of the last ``SomeError: ...`` line of the paste."""
    found = None
    pos = 0
    for line in cleaned.split("\n"):
        stripped = line.strip()
        m = _EXCEPTION_LINE.match(stripped)
        if m:
            found = (pos, m.group(2) or m.group(1))
        pos += len(line) + 1
    return found


def not_vllm(cleaned: str, weak: bool = False) -> tuple[int, str, str] | None:
    """(end of its line, source, reason) of the last non-vLLM error the paste shows.

    ``weak``: also rules that only speak when no vLLM error matched.
    """
    best = None
    low = cleaned.lower()
    for source, keywords, pattern, reason, is_weak in NOT_VLLM_RULES:
        if (is_weak and not weak) or not any(k in low for k in keywords):
            continue
        for m in pattern.finditer(cleaned):
            line_end = cleaned.find("\n", m.start())
            line_end = len(cleaned) if line_end == -1 else line_end
            if best is None or line_end > best[0]:
                best = (line_end, source, reason)
    return best


# Packages whose own frame, innermost in a traceback, says the error is theirs.
_FOREIGN_PACKAGES = ("transformers", "torch", "huggingface_hub", "ray", "triton", "tokenizers", "safetensors", "pydantic")


def foreign_frame(frames: list[tuple[str, str]]) -> tuple[int, str, str] | None:
    """When no vLLM error matched: the package of the traceback's innermost frame."""
    if not frames:
        return None
    path = frames[-1][0].replace("\\", "/")
    for package in _FOREIGN_PACKAGES:
        if f"/{package}/" in path and "/vllm/" not in path:
            return 0, package, f"the traceback ends in {package}'s own code ({path.rsplit('/', 1)[-1]})"
    return None


# --- the matcher ---------------------------------------------------------------------------


class Matcher:
    def __init__(self, errors: list[LookupError_], templates: list[list[str]]):
        """``templates[i]``: the templates (main first, then variants) of ``errors[i]``."""
        self.errors = errors
        self.entries: list[Entry] = []
        self.index: dict[str, list[int]] = {}
        self.short: list[int] = []  # entries too short for the gram index
        self.by_location: dict[tuple[str, str], list[int]] = {}  # (path, function) → errors
        for number, (error, variants) in enumerate(zip(errors, templates)):
            for site in error.sites:
                key = (site["path"], site["function"].rsplit(".", 1)[-1])
                self.by_location.setdefault(key, []).append(number)
            for template in variants:
                if template:
                    self._add(number, error.exception, template)
        for gram, entries in list(self.index.items()):
            if len(entries) > STOP_GRAM_ENTRIES:
                del self.index[gram]

    def _add(self, error: int, exception: str, template: str) -> None:
        raw_segments, holes = split_template(template)
        chunks, owners = chunk_segments(raw_segments)
        literal = sum(len(c) for c in chunks)
        if literal == 0:
            return
        number = len(self.entries)
        entry = Entry(error, chunks, owners, [_hole_name(h) for h in holes], literal, exception.lower())
        self.entries.append(entry)
        grams = sorted({g for c in chunks for g in _grams(c)})
        if not grams:
            self.short.append(number)
            return
        if len(grams) > MAX_GRAMS_PER_ENTRY:
            step = len(grams) / MAX_GRAMS_PER_ENTRY
            grams = [grams[int(i * step)] for i in range(MAX_GRAMS_PER_ENTRY)]
        entry.grams = len(grams)
        for gram in grams:
            self.index.setdefault(gram, []).append(number)

    # --- querying -------------------------------------------------------------------

    def lookup(self, text: str, top: int = 5) -> tuple[list[Match], dict | None]:
        """The best matches for a paste, and where it comes from when that is not vLLM."""
        cleaned = clean_paste(text)
        flat, origin = squash(cleaned)
        if not flat:
            return [], None
        last = last_exception(cleaned)
        frames = [(m.group(1), m.group(3)) for m in _FRAME.finditer(cleaned)]

        index = self.index
        grams = {flat[i : i + GRAM] for i in range(len(flat) - GRAM + 1)}
        counts = Counter(chain.from_iterable(index[g] for g in grams if g in index))
        entries = self.entries
        # Keep the templates of which a fair share of grams occur, best share first.
        ranked = [(-n / entries[e].grams, -n, e) for e, n in counts.items() if n * 5 >= entries[e].grams or n >= 8]
        candidates = [e for _, _, e in heapq.nsmallest(MAX_CANDIDATES, ranked)] + self.short

        results: dict[int, Match] = {}
        for number in candidates:
            found = self._verify(number, flat, origin, cleaned, last)
            if found is None:
                continue
            previous = results.get(self.entries[number].error)
            if previous is None or found.rank_key > previous.rank_key:
                results[self.entries[number].error] = found
        self._frame_bonus(results, frames, last, cleaned)
        found = list(results.values())
        for outer in found:
            # "Worker failed with error '<the real error>'": the inner error is the answer
            outer.wrapper = any(
                inner is not outer and a <= inner.start and inner.end <= b and inner.score >= 0.9
                for a, b in outer.value_spans
                for inner in found
            )
        ranked = sorted(found, key=lambda m: m.rank_key, reverse=True)

        foreign = not_vllm(cleaned, weak=not ranked) or (None if ranked else foreign_frame(frames))
        if foreign is not None:
            _, source, reason = foreign
            # The failure came from elsewhere; what vLLM raised about it afterwards
            # ("Engine core initialization failed") is not the answer. Unless the
            # traceback's last frame is the error's own raise: then it is vLLM's.
            ranked = [m for m in ranked if m.frame]
            return ranked[:top], {"source": source, "reason": reason}
        return ranked[:top], None

    def _verify(self, number: int, flat: str, origin: Origin, cleaned: str, last) -> Match | None:
        """The best in-order match of the entry's chunks, anchored on one of its first chunks."""
        entry = self.entries[number]
        best: Match | None = None
        skipped = 0
        for first in range(min(3, len(entry.chunks))):
            anchor = entry.chunks[first]
            start = flat.find(anchor)
            tries = 0
            while start != -1 and tries < 6:
                tries += 1
                found = self._walk(entry, first, start, skipped, flat, origin, cleaned, last)
                if found is not None and (best is None or found.rank_key > best.rank_key):
                    best = found
                start = flat.find(anchor, start + 1)
            if best is not None:
                break
            skipped += len(anchor)  # the paste may begin after this chunk, or word it otherwise
        return best

    def _walk(self, entry: Entry, first: int, start: int, skipped: int, flat: str, origin: Origin, cleaned: str, last) -> Match | None:
        chunks, owners = entry.chunks, entry.segment_of
        matched = len(chunks[first])
        missing = skipped
        truncated = False
        bounds: list[tuple[int, int] | None] = [None] * len(chunks)
        bounds[first] = (start, start + len(chunks[first]))
        pos = start + len(chunks[first])
        slack = 0  # how far a chunk may be from where it is expected (after missing ones)
        for i in range(first + 1, len(chunks)):
            chunk = chunks[i]
            if owners[i] != owners[i - 1]:
                at = flat.find(chunk, pos)  # a hole lies before it: any value
            elif flat.startswith(chunk, pos):
                at = pos
            else:
                at = flat.find(chunk, pos, pos + slack + WINDOW + len(chunk))
            if at != -1:
                if owners[i] == owners[i - 1]:
                    missing += (at - pos) // 2  # words inserted into the message
                bounds[i] = (at, at + len(chunk))
                matched += len(chunk)
                pos = at + len(chunk)
                slack = 0
                continue
            rest = len(flat) - pos
            # Does the paste (or its line) stop here, inside this chunk or in the hole
            # before it, with nothing more of the message after? Then only the first
            # part was pasted, or the user's release had a shorter message.
            common = _common_prefix(flat, pos, chunk)
            # After a hole the paste may stop anywhere: the value can be any length.
            at_end = (
                owners[i] != owners[i - 1]
                or rest <= 400
                or _at_line_end(cleaned, origin[pos + common - 1] + 1 if pos + common else 0)
            )
            if at_end and not any(flat.find(c, pos) != -1 for c in chunks[i + 1 :]):
                overlap = max(common, _longest_prefix_at_end(flat[pos:], chunk) if rest <= 400 else 0)
                matched += overlap
                if overlap:
                    bounds[i] = (pos, pos + overlap) if overlap == common else (len(flat) - overlap, len(flat))
                truncated = True
                break
            missing += len(chunk)
            slack += len(chunk)
        if matched < min(entry.literal, MIN_MATCHED):
            return None
        begin = start
        prefix = flat[max(0, begin - len(entry.exception) - 1) : begin]
        exception_beside = prefix == entry.exception + ":"
        if entry.literal < MIN_LITERAL and not exception_beside:
            # a short message alone is only trusted as a whole line of the paste
            line_start = cleaned.rfind("\n", 0, origin[begin]) + 1
            line_end = cleaned.find("\n", origin[begin])
            line = cleaned[line_start : line_end if line_end != -1 else len(cleaned)]
            if squash_text(line) != "".join(chunks):
                return None
        if matched < 2 * missing or (matched < entry.literal / 2 and not truncated):
            return None
        in_last = last is not None and origin[begin] >= last[0]
        end = max(b[1] for b in bounds if b is not None)
        values, spans = self._values(entry, bounds, origin, cleaned)
        return Match(
            error=self.errors[entry.error],
            values=values,
            value_spans=spans,
            start=origin[begin],
            end=origin[end - 1] + 1,
            matched=matched,
            missing=missing,
            coverage=matched / entry.literal,
            holes=len(entry.holes),
            exception_agrees=exception_beside or (in_last and last[1].lower() == entry.exception),
            in_last=in_last,
        )

    @staticmethod
    def _values(entry: Entry, bounds, origin: Origin, cleaned: str) -> tuple[dict[str, str], list[tuple[int, int]]]:
        """Each hole's value (the text between the chunks either side of it), and its span."""
        values: dict[str, str] = {}
        spans: list[tuple[int, int]] = []
        last_of: dict[int, int] = {}
        first_of: dict[int, int] = {}
        for i, owner in enumerate(entry.segment_of):
            first_of.setdefault(owner, i)
            last_of[owner] = i
        for h, name in enumerate(entry.holes):
            if h not in last_of or h + 1 not in first_of:
                continue  # the hole opens or closes the message: its extent is unknown
            left, right = bounds[last_of[h]], bounds[first_of[h + 1]]
            if left is None or right is None or right[0] < left[1]:
                continue
            a, b = left[1], right[0]
            text = cleaned[origin[a] : origin[b - 1] + 1].strip() if b > a else ""
            if b > a:
                spans.append((origin[a], origin[b - 1] + 1))
            if len(text) > 2000:
                text = text[:2000] + " …"
            values.setdefault(name, text)
        return values, spans

    def _frame_bonus(self, results: dict[int, Match], frames, last, cleaned: str) -> None:
        """The innermost frame of the last traceback names the raising file and function."""
        if not frames or last is None:
            return
        path, function = frames[-1]
        at = path.rfind("vllm/")
        if at == -1:
            return
        key = (path[at:], function)
        for number in self.by_location.get(key, ()):
            error = self.errors[number]
            if error.exception.lower() != last[1].lower():
                continue
            if number in results:
                results[number].frame = True
            elif not any(c.isalnum() for c in re.sub(r"\{[^}]*\}", "", error.template)):
                # a raise with no message (or a wholly computed one): the frame is all there is
                results[number] = Match(error=error, values={}, start=last[0], in_last=True, frame=True)


def _at_line_end(text: str, position: int) -> bool:
    """Whether only blanks or a full stop lie between ``position`` and the end of its line."""
    end = text.find("\n", position)
    return not text[position : len(text) if end == -1 else end].strip(" \t.,;:")


def _common_prefix(flat: str, pos: int, chunk: str) -> int:
    size = 0
    for a, b in zip(flat[pos : pos + len(chunk)], chunk):
        if a != b:
            break
        size += 1
    return size


def _longest_prefix_at_end(text: str, segment: str) -> int:
    """Length of the longest prefix of ``segment`` that ``text`` ends with."""
    for size in range(min(len(text), len(segment)), 0, -1):
        if text.endswith(segment[:size]):
            return size
    return 0


# --- the compact index (what the site ships, and what the command line reads) ----------------

INDEX_SCHEMA_VERSION = 1


def compact_index(catalogs: list[dict]) -> dict:
    """Every error of the catalogs (one per release, oldest first), compactly.

    The browser builds its matcher from this with the same rules as ``Matcher``:
    the rules that are data (log prefixes, non-vLLM errors) travel inside it.
    """
    merged: dict[str, dict] = {}
    forms: dict[str, list[str]] = {}
    for catalog in catalogs:
        for error in catalog["errors"]:
            known = merged.get(error["id"])
            if known is None:
                known = merged[error["id"]] = {
                    "id": error["id"],
                    "exception": error["exception"],
                    "template": error["template"],
                    "has_message": error.get("has_message", True),
                    "versions": [],
                }
                forms[error["id"]] = []
            known["versions"].append(catalog["revision"])
            known["sites"] = [[s["path"], s["line"], s["function"]] for s in error["sites"]]
            if known["has_message"]:
                for site in error["sites"]:
                    for form in [site["template"], *site.get("variants", [])]:
                        if form and form not in forms[error["id"]]:
                            forms[error["id"]].append(form)
    ids = sorted(merged)
    return {
        "schema_version": INDEX_SCHEMA_VERSION,
        "revisions": [c["revision"] for c in catalogs],
        "errors": [[merged[i]["id"], merged[i]["exception"], merged[i]["template"], merged[i]["has_message"],
                    merged[i]["versions"], merged[i]["sites"], forms[i]] for i in ids],
        "rules": {
            "gram": GRAM,
            "chunk_words": CHUNK_WORDS,
            "not_vllm": [[source, list(keywords), pattern.pattern, "i" if pattern.flags & re.I else "", reason, weak]
                         for source, keywords, pattern, reason, weak in NOT_VLLM_RULES],
            "foreign_packages": list(_FOREIGN_PACKAGES),
            "line_prefixes": [p.pattern for p in _LINE_PREFIXES],
            "chatter": _CHATTER.pattern,
            "chatter_keep": _CHATTER_KEEP.pattern,  # flags: i
            "ansi": _ANSI.pattern,
        },
    }


def matcher_from_index(index: dict, site_url: str = "") -> Matcher:
    errors = [
        LookupError_(
            id=id_,
            exception=exception,
            template=template,
            title=error_title(exception, template, has_message),
            url=error_url(site_url, id_),
            versions=versions,
            sites=[{"path": p, "line": line, "function": f} for p, line, f in sites],
        )
        for id_, exception, template, has_message, versions, sites, _ in index["errors"]
    ]
    return Matcher(errors, [forms for *_, forms in index["errors"]])


def matcher_from_catalogs(catalogs: list[dict], site_url: str = "") -> Matcher:
    """A matcher over the errors of one or more catalogs (one per release, oldest first)."""
    return matcher_from_index(compact_index(catalogs), site_url)
