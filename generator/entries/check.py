"""Checks of curated entries against the pinned release, beyond the schema.

Pure: the entries (``generator.entries.load``), the catalog's errors, the set of
``vllm serve`` flags at the pin and the models there are (``available_models``) in, a list of ``Problem``s out, each pointing at the
line and column of the value to fix.

- the file name (the entry's slug, in URLs and paths of the site) is ``^[a-z0-9][a-z0-9-]*$``;
- every id is raised at the pin, and belongs to one entry only;
- every flag of a ``vllm serve`` command exists at the pin;
- a solution's ``fill`` names settings its commands set, and placeholders its errors' messages have;
- every link between pages is ``../<id>/`` with an id raised at the pin;
- no ``TODO`` placeholder (as ``errorkb new`` writes them) is left.
"""

from __future__ import annotations

import difflib
import heapq
import re
from typing import Collection
from dataclasses import dataclass

from generator.entries.load import ErrorEntry, iter_strings, iter_texts
from generator.entries.problems import Problem, key_label
from generator.lookup.fixes import fill_names, setting_pattern
from generator.lookup.match import hole_name
from generator.scan.ids import split_template
from generator.text import shorten

ID = re.compile(r"^[0-9a-f]{16}$")
SLUG = re.compile(r"[a-z0-9][a-z0-9-]*")  # the whole file name without .yaml (fullmatch)


# --- the file name ------------------------------------------------------------------------------------


def _slug_problems(entry: ErrorEntry) -> list[Problem]:
    """An entry's slug goes into the site's URLs and file paths: lowercase letters, digits, hyphens."""
    if SLUG.fullmatch(entry.slug):
        return []
    better = re.sub(r"[^a-z0-9]+", "-", entry.slug.lower()).strip("-") or "my-error"
    return [Problem(entry.path, 1, 1, f"the file name {ascii(entry.slug + '.yaml')} is not a slug: name the entry with "
                                      f"lowercase letters, digits and hyphens (^[a-z0-9][a-z0-9-]*$), e.g. {better}.yaml")]


# --- ids ----------------------------------------------------------------------------------------------


def normalize(text: str) -> str:
    """Text to compare loosely: placeholders, quotes and punctuation out, lower case, single spaces."""
    text = re.sub(r"\{[^{}]*\}", " ", text)
    text = re.sub(r"[^0-9a-z]+", " ", text.lower())
    return " ".join(text.split())


def template_start(template: str, width: int = 60) -> str:
    return shorten(template, width)


SIMILAR_POOL = 200


def most_similar(query: str, candidates: list[tuple[str, str]]) -> str | None:
    """The id whose (normalized) template is most like ``query``; ``candidates`` are (id, normalized template)."""
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(query)
    best, best_ratio = None, 0.0
    # difflib on every template takes seconds: only on those that share the most words.
    words = set(query.split())

    def shared(candidate: tuple[str, str]) -> float:
        other = set(candidate[1].split())
        return 2 * len(words & other) / (len(words) + len(other) or 1)

    for error_id, text in heapq.nlargest(SIMILAR_POOL, candidates, key=shared):
        if not text:
            continue
        matcher.set_seq1(text)
        if matcher.real_quick_ratio() <= best_ratio or matcher.quick_ratio() <= best_ratio:
            continue
        ratio = matcher.ratio()
        if ratio > best_ratio:
            best, best_ratio = error_id, ratio
    return best


def _id_problems(entries: list[ErrorEntry], templates: dict[str, str], revision: str) -> list[Problem]:
    problems = []
    candidates = None
    claimed: dict[str, list[tuple[ErrorEntry, int]]] = {}
    for entry in entries:
        hint = None  # the same for every unknown id of the entry: computed once (50,000 ids took minutes)
        for index, error_id in enumerate(entry.ids):
            if not ID.match(error_id):
                continue  # the schema reports it
            claimed.setdefault(error_id, []).append((entry, index))
            if error_id in templates:
                continue
            if hint is None:
                if candidates is None:
                    candidates = [(i, normalize(t)) for i, t in templates.items()]
                mine = set(entry.ids)
                known = [i for i in entry.ids if i in templates]
                query = " ".join(templates[i] for i in known) if known else f"{entry.title} {entry.summary}"
                guess = most_similar(normalize(query), [(i, t) for i, t in candidates if i not in mine])
                hint = f"; did you mean {guess} (`{template_start(templates[guess])}`)?" if guess else ""
            problems.append(entry.problem(("ids", index), f"id {error_id} is not raised at {revision}{hint}"))
    for error_id, owners in claimed.items():
        files = sorted({entry.path for entry, _ in owners})
        if len(files) < 2:
            continue  # twice in one entry: the schema reports it
        for entry, index in owners:
            others = ", ".join(path for path in files if path != entry.path)
            problems.append(entry.problem(("ids", index), f"id {error_id} is also claimed by {others}: an id belongs to one entry, merge them or drop it from one"))
    return problems


# --- vllm commands ------------------------------------------------------------------------------------


@dataclass
class Token:
    text: str  # as written, quotes included
    offset: int  # in the command string
    word: str = ""  # quotes removed; for a flag, its name without `=value`


_CONTINUATION = re.compile(r"\\[ \t]*\r?\n")
_TOKEN = re.compile(r"""\#[^\n]*|\n|&&|\|\||[|;&]|(?:'[^']*'?|"(?:\\.|[^"\\])*"?|\\.|[<>]&|[^\s'"|;&#]|(?<=\S)\#)+""")
SEPARATORS = {"\n", "&&", "||", "|", ";", "&"}


def shell_tokens(command: str) -> list[Token]:
    """Words and separators of a shell command line, each with its offset; comments dropped.

    A backslash at the end of a line continues the command on the next one.
    """
    joined = _CONTINUATION.sub(lambda m: " " * len(m.group()), command)  # same length: offsets stay
    tokens = []
    for match in _TOKEN.finditer(joined):
        text = match.group()
        if text.startswith("#"):
            continue
        tokens.append(Token(text, match.start(), _unquote(text)))
    return tokens


def _unquote(word: str) -> str:
    return re.sub(r"""'([^']*)'?|"((?:\\.|[^"\\])*)"?""", lambda m: m.group(1) if m.group(1) is not None else m.group(2), word)


def vllm_flags(command: str) -> list[Token]:
    """The ``--flags`` given to ``vllm serve`` in a command line (several commands allowed).

    Only the words after a ``vllm serve`` and before the next ``|``, ``&&``, ``;`` or
    new line are read: flags of other programs on the line (``docker run --gpus``,
    ``python -m``) are not vLLM's. ``--flag=value`` counts as ``--flag``.
    """
    flags = []
    state = "out"  # out → vllm (after the word vllm) → serve (reading serve's arguments) / other
    for token in shell_tokens(command):
        if token.text in SEPARATORS:
            state = "out"
            continue
        word = token.word
        if state == "out":
            if word == "vllm" or word.endswith("/vllm"):
                state = "vllm"
        elif state == "vllm":
            state = "serve" if word == "serve" else "other"
        elif state == "serve":
            if word == "--":
                state = "other"  # positional arguments from here on
            elif word.startswith("--") and len(word) > 2:
                text = token.text.split("=", 1)[0] if "=" in word else token.text
                flags.append(Token(text, token.offset, word.split("=", 1)[0]))
    return flags


ALWAYS_FLAGS = {"--help"}  # argparse adds it to every parser


def flag_known(flag: str, flags: set[str]) -> bool:
    if flag in flags or flag in ALWAYS_FLAGS:
        return True
    # vllm serve reads `--compilation-config.mode 3` as part of --compilation-config's JSON
    return "." in flag and flag.split(".", 1)[0] in flags


def _flag_problems(entry: ErrorEntry, flags: set[str], revision: str) -> list[Problem]:
    problems = []
    choices = sorted(flags)
    for index, solution in enumerate(entry.solutions):
        commands = solution.get("commands")
        command = commands.get("vllm") if isinstance(commands, dict) else None
        if not isinstance(command, str):
            continue
        key = ("solutions", index, "commands", "vllm")
        for token in vllm_flags(command):
            if flag_known(token.word, flags):
                continue
            at = entry.locate(key, token.text, command.count(token.text, 0, token.offset))
            flag = token.word
            dashed = "--" + flag[2:].replace("_", "-")
            if dashed != flag and dashed in flags:
                message = f"`vllm serve` flag {flag} is written {dashed} at {revision}: use the dashed form"
            else:
                close = difflib.get_close_matches(flag, choices, n=1, cutoff=0.6)
                hint = f"; did you mean {close[0]}?" if close else "; remove it, or check `vllm serve --help`"
                message = f"`vllm serve` has no flag {flag} at {revision}{hint}"
            problems.append(entry.problem(key, message, at))
    return problems


# --- values a fix takes from the message -----------------------------------------------------------


def _fill_problems(entry: ErrorEntry, templates: dict[str, str]) -> list[Problem]:
    """A solution's ``fill`` names settings its commands set and placeholders its messages have."""
    problems = []
    holes = sorted({hole_name(h) for i in entry.ids for h in split_template(templates.get(i, ""))[1]})
    for index, solution in enumerate(entry.solutions):
        commands = solution.get("commands")
        texts = [c for c in commands.values() if isinstance(c, str)] if isinstance(commands, dict) else []
        for setting, placeholders in fill_names(solution.get("fill")).items():
            key = ("solutions", index, "fill", setting)
            if not any(setting_pattern(setting).search(text) for text in texts):
                dashed = "--" + setting.replace("_", "-")
                problems.append(entry.problem(key, f"fill names {setting}, which no command of this solution sets with a value: "
                                                   f"write {dashed} N or {setting}=N in its commands, or take it out of fill"))
            for placeholder in placeholders:
                if placeholder not in holes:
                    have = ", ".join(holes) if holes else "none"
                    problems.append(entry.problem(key, f"fill takes {setting} from {{{placeholder}}}, which no message of this "
                                                       f"entry has at the pin (its placeholders: {have})"))
    return problems


# --- links --------------------------------------------------------------------------------------------

_LINK = re.compile(r"\]\(\s*(<[^>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
_PAGE = re.compile(r"^\.\./([0-9a-f]{16})/(?:#[\w.-]*)?$")
LINK_FORMS = "a link to another error page is `../<16-hex id>/`; other links are http(s)://, mailto: or #anchor"


_CODE = re.compile(r"(`{3,})[^\n]*\n.*?\n\1|(`+)(?:.|\n)*?\2", re.S)


def links(text: str) -> list[tuple[str, int]]:
    """Targets of the Markdown inline links (and images) in ``text``, with their offsets.

    Code (spans and fenced blocks) shows its text as it is: no links there.
    """
    prose = _CODE.sub(lambda m: " " * len(m.group()), text)
    out = []
    for match in _LINK.finditer(prose):
        target = match.group(1)
        offset = match.start(1)
        if target.startswith("<"):
            target, offset = target[1:-1], offset + 1
        out.append((target, offset))
    return out


def _link_problems(entry: ErrorEntry, known: set[str], revision: str) -> list[Problem]:
    problems = []
    for key, text in iter_texts(entry):
        for target, offset in links(text):
            if re.match(r"^(?:https?://|mailto:|#)", target, re.I):
                continue
            page = _PAGE.match(target)
            if page and page.group(1) in known:
                continue
            found = entry.find(key, f"({target}", text.count(f"({target}", 0, offset))
            at = (found[0], found[1] + 1) if found else entry.position(key)  # at the target, past "("
            if page:
                message = f"broken link {target} in `{key_label(key)}`: error {page.group(1)} is not raised at {revision}"
            else:
                message = f"broken link {target or '(empty)'} in `{key_label(key)}`: {LINK_FORMS}"
            problems.append(entry.problem(key, message, at))
    return problems


# --- placeholders -------------------------------------------------------------------------------------

_TODO = re.compile(r"\bTODO\b")


def _todo_problems(entry: ErrorEntry) -> list[Problem]:
    problems = []
    for key, text in iter_strings(entry):
        if _TODO.search(text):
            at = entry.locate(key, "TODO")
            problems.append(entry.problem(key, f"`{key_label(key)}` still holds a TODO placeholder: replace it with the real text", at))
    return problems


# --- reproduction cases -------------------------------------------------------------------------------


def _reproduce_problems(entry: ErrorEntry, flags: set[str], revision: str, models: Collection[str] | None) -> list[Problem]:
    """What the schema cannot see in ``reproduce``: an expected id the entry does not
    explain, cases of one pair on different tiers, a health check without a server,
    ``vllm serve`` flags the pin lacks, a ``models/...`` folder without its config.json."""
    raw = entry.reproduce
    if not raw or (isinstance(raw, dict) and "not_reproducible" in raw):
        return []
    pairs = raw if isinstance(raw, list) else [raw]
    problems = []
    for index, pair in enumerate(pairs):
        base = ("reproduce", index) if isinstance(raw, list) else ("reproduce",)
        tiers = {role: (pair.get(role) or {}).get("requires", "cpu") for role in ("error", "fix")}
        if tiers["error"] != tiers["fix"]:
            problems.append(entry.problem((*base, "fix", "requires"),
                                          f"the error case runs on {tiers['error']} and the fix case on {tiers['fix']}: "
                                          "a pair runs on one tier; give both the same `requires`"))
        expect = (pair.get("error") or {}).get("expect")
        if expect and expect not in entry.ids:
            problems.append(entry.problem((*base, "error", "expect"),
                                          f"the error case expects {expect}, which is not among this entry's ids; "
                                          "expect one of them, or add it to `ids`"))
        for role in ("error", "fix"):
            case = pair.get(role) or {}
            argv = case.get("cli")
            if case.get("reach") == "health" and not (argv and argv[:2] == ["vllm", "serve"]):
                problems.append(entry.problem((*base, role, "reach"),
                                              "`reach: health` needs a server: a `cli: [vllm, serve, ...]` case"))
            if argv and argv[:2] == ["vllm", "serve"]:
                for position, word in enumerate(argv[2:], start=2):
                    name = word.split("=", 1)[0]
                    if name.startswith("--") and len(name) > 2 and not flag_known(name, flags):
                        close = difflib.get_close_matches(name, sorted(flags), n=1, cutoff=0.6)
                        hint = f"; did you mean {close[0]}?" if close else "; check `vllm serve --help`"
                        problems.append(entry.problem((*base, role, "cli", position),
                                                      f"`vllm serve` has no flag {name} at {revision}{hint}"))
            # `models/...` as a case names it: a plain folder of models/ (`models/NAME` or
            # `models/NAME/config.json`), as a word of `cli` or inside one (JSON of a flag),
            # or as a quoted string of the snippet. A case runs in a sandbox that holds a copy
            # of models/ and nothing else of the repository; a path that leaves it is refused.
            named: list[tuple[tuple, str]] = []
            for position, word in enumerate(argv if isinstance(argv, list) else []):
                key = (*base, role, "cli", position)
                if isinstance(word, str):
                    named.extend((key, m) for m in re.findall(r"(?<![\w./-])models/[^\s\"',;}\]]*", word))
            if isinstance(case.get("python"), str):
                named.extend(((*base, role, "python"), m)
                             for m in re.findall(r"""(?<=["'])models/[^"'\n]*(?=["'])""", case["python"]))
            for key, word in named:
                at = entry.locate(key, word)
                if not re.fullmatch(r"models/[A-Za-z0-9][A-Za-z0-9._-]*(?:/config\.json)?", word) or ".." in word:
                    problems.append(entry.problem(key, f"{word} is not a model of models/: a case names one as "
                                                       "models/NAME or models/NAME/config.json (a plain folder name, "
                                                       "no `..`, no other file)", at))
                elif models is not None and word not in models:
                    problems.append(entry.problem(key, f"{word.removesuffix('/config.json')}/config.json does not exist: "
                                                       "add the model's configuration under models/, or use one that is there", at))
    return problems


# --- all together -------------------------------------------------------------------------------------


def check_entries(entries: list[ErrorEntry], catalog_errors: list[dict], flags: set[str], revision: str = "the pin",
                  models: Collection[str] | None = None, lookup=None) -> list[Problem]:
    """Every problem of the entries that the schema cannot see, sorted by path, line and column.

    ``models``: the ``models/...`` paths a case may name (``available_models``); None: not checked.
    ``lookup(text)``: the ids the lookup ranks first for a text, ties included (empty: none),
    to check each entry's ``example``; None: not checked.
    """
    templates = {error["id"]: error.get("template") or "" for error in catalog_errors}
    problems = _id_problems(entries, templates, revision)
    for entry in entries:
        problems.extend(_slug_problems(entry))
        problems.extend(_flag_problems(entry, flags, revision))
        problems.extend(_fill_problems(entry, templates))
        problems.extend(_link_problems(entry, set(templates), revision))
        problems.extend(_todo_problems(entry))
        problems.extend(_reproduce_problems(entry, flags, revision, models))
        if lookup is not None and entry.example:
            problems.extend(_example_problems(entry, lookup))
    return sorted(problems)


def _example_problems(entry: ErrorEntry, lookup) -> list[Problem]:
    """An example must be a message of this entry's errors: the lookup names one of its ids."""
    found = lookup(entry.example["message"])
    if set(found) & set(entry.ids):
        return []
    what = f"the lookup names {', '.join(found)} for it" if found else "the lookup matches no error to it"
    return [entry.problem(("example", "message"), f"`example.message` is not a message of this entry's errors ({what}): "
                                                  "paste the message as vLLM printed it for one of the entry's ids")]
