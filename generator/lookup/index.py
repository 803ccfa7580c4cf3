"""The compact lookup index: every error of a set of releases, and the rules to match them (pure: no disk, no processes).

``compact_index`` writes it (the site ships it as ``api/lookup-index.json``, the command
line keeps it in its cache); ``matcher_from_index`` builds the Python matcher from it.
The browser port (``templates/assets/lookup.js``) builds its matcher from the same file
and takes from its ``rules`` every number, text and pattern that the Python modules
define, so that none is copied into JavaScript by hand. Patterns travel as Python
source with their flags written inline (``(?i)``); lookup.js rewrites them for
JavaScript's engine (``pyRegex``).
"""

from __future__ import annotations

import re

from generator.lookup import clean, foreign, match
from generator.lookup.fixes import fill_names
from generator.lookup.match import LookupError_, Matcher, error_title
from generator.scan.ids import normalize_template
from generator.text import CUT_TRAILING, ELLIPSIS, error_path, error_url, foreign_path

# 2: the rules carry every number and pattern that lookup.js needs (1 carried only a few).
# 3: groups (one result per problem), kinds, curated summaries, foreign errors with ids.
# 4: forms no longer repeat the main template; the releases each file is in.
# 7: entries by slug (an entry of several ids once), kinds as row numbers, curated titles only
#    where no entry gives them: the browser's index stays under 1 MB gzipped.
# 10: the errors as one list per field (ERROR_COLUMNS), not one row per error: 8 % smaller gzipped.
# 11: the reasons a message may show, by row ("reasons").
INDEX_SCHEMA_VERSION = 11


def _source(pattern: re.Pattern) -> str:
    """A pattern's source with its flags inline, as one string that both engines read alike."""
    unsupported = pattern.flags & ~(re.I | re.M | re.S | re.U)
    if unsupported:
        raise ValueError(f"flags {unsupported} of {pattern.pattern!r} do not travel in the lookup index")
    inline = "".join(letter for flag, letter in ((re.I, "i"), (re.M, "m"), (re.S, "s")) if pattern.flags & flag)
    if inline and re.match(r"\(\?[aiLmsux]+\)", pattern.pattern):
        raise ValueError(f"{pattern.pattern!r}: give its flags to re.compile, not inline")
    return f"(?{inline}){pattern.pattern}" if inline else pattern.pattern


def rules() -> dict:
    """What the browser's matcher needs besides the errors: the numbers, texts and patterns of the rules."""
    return {
        # clean.py
        "max_text_chars": clean.MAX_TEXT_CHARS,
        "double_spaced_least": clean.DOUBLE_SPACED_LEAST,
        "closing_lines": clean.CLOSING_LINES,
        "closing_tail": clean.CLOSING_TAIL,
        "json_log_message_keys": list(clean.JSON_LOG_MESSAGE_KEYS),
        "json_log_record_keys": list(clean.JSON_LOG_RECORD_KEYS),
        "json_log_detail_keys": list(clean.JSON_LOG_DETAIL_KEYS),
        "json_log_brackets": clean.JSON_LOG_BRACKETS,
        "unescape_rounds": clean.UNESCAPE_ROUNDS,
        "prefix_rounds": clean.PREFIX_ROUNDS,
        "quotes": clean.QUOTES,
        # match.py
        "gram": match.GRAM,
        "chunk_words": match.CHUNK_WORDS,
        "window": match.WINDOW,
        "max_grams_per_entry": match.MAX_GRAMS_PER_ENTRY,
        "opening_grams": match.OPENING_GRAMS,
        "stop_gram_entries": match.STOP_GRAM_ENTRIES,
        "max_candidates": match.MAX_CANDIDATES,
        "candidate_share": match.CANDIDATE_SHARE,
        "candidate_grams": match.CANDIDATE_GRAMS,
        "anchors": match.ANCHORS,
        "anchor_tries": match.ANCHOR_TRIES,
        "tail": match.TAIL,
        "min_literal": match.MIN_LITERAL,
        "min_matched": match.MIN_MATCHED,
        "reason_least": match.REASON_LEAST,
        "later_least": match.LATER_LEAST,
        "head_cut_least": match.HEAD_CUT_LEAST,
        "reworded_share": match.REWORDED_SHARE,
        "quoted_least": match.QUOTED_LEAST,
        "stock_phrase_words": match.STOCK_PHRASE_WORDS,
        "opening_least": match.OPENING_LEAST,
        "pydantic_value_errors": list(match.PYDANTIC_VALUE_ERRORS),
        "ellipsis_least": match.ELLIPSIS_LEAST,
        "sure": match.SURE,
        "nearly_whole": match.NEARLY_WHOLE,
        "title_stops": match.TITLE_STOPS,
        "unnamed_least": match.UNNAMED_LEAST,
        "outweighs": match.OUTWEIGHS,
        "open_value_lines": match.OPEN_VALUE_LINES,
        "agree_bonus": match.AGREE_BONUS,
        "frame_bonus": match.FRAME_BONUS,
        "version_string": _source(match.VERSION_STRING),
        "max_value_chars": match.MAX_VALUE_CHARS,
        "log_header_tail": match.LOG_HEADER_TAIL,
        "title_width": match.TITLE_WIDTH,
        "closers": match.CLOSERS,
        "opening_quotes": match.OPENING_QUOTES,
        "closing_quote": match.CLOSING_QUOTE,
        "diverge": match.DIVERGE,
        "value_closers": match.VALUE_CLOSERS,
        "cut_message_least": match.CUT_MESSAGE_LEAST,
        "reworded_least": match.REWORDED_LEAST,
        "stop_word_least": match.STOP_WORD_LEAST,
        "part_least": match.PART_LEAST,
        "small_word": match.SMALL_WORD,
        "left_out_least": match.LEFT_OUT_LEAST,
        "quote_head": match.QUOTE_HEAD,
        # generator/text.py
        "ellipsis": ELLIPSIS,
        "cut_trailing": CUT_TRAILING,
        "error_path": error_path("{id}"),
        # foreign.py
        "foreign_packages": list(foreign.FOREIGN_PACKAGES),
        "foreign_frame_reason": foreign.FOREIGN_FRAME_REASON,
        "outside_frame_reason": foreign.OUTSIDE_FRAME_REASON, "outside_frame_source": foreign.OUTSIDE_FRAME_SOURCE,
        "not_a_package": list(foreign.NOT_A_PACKAGE),
        "exception_type_reason": foreign.EXCEPTION_TYPE_REASON,
        "foreign_call_reason": foreign.FOREIGN_CALL_REASON,
        "raise_tail_chars": match.RAISE_TAIL_CHARS,
        "unmatched": {"id": foreign.UNMATCHED_ID, "reason": foreign.UNMATCHED_REASON, "source": foreign.UNMATCHED_SOURCE,
                      "builtin_exceptions": list(foreign.BUILTIN_EXCEPTIONS),
                      "python_on_vllms_line_reason": foreign.PYTHON_ON_VLLMS_LINE_REASON,
                      "fork_raise_reason": foreign.FORK_RAISE_REASON, "fork_raise_source": foreign.FORK_RAISE_SOURCE},
        "unmatched_line": {"id": foreign.UNMATCHED_LINE_ID, "reason": foreign.UNMATCHED_LINE_REASON,
                           "source": foreign.UNMATCHED_LINE_SOURCE, "line_words": foreign.LINE_WORDS,
                           "shown_chars": match.SHOWN_LINE_CHARS, "vllm_log_line_reason": foreign.VLLM_LOG_LINE_REASON,
                           "vllm_log_line_source": foreign.VLLM_LOG_LINE_SOURCE, "vllm_log_line_head": match.VLLM_LOG_LINE_HEAD,
                           "process_line_reason": foreign.PROCESS_LINE_REASON, "process_line_source": foreign.PROCESS_LINE_SOURCE,
                           "anothers_line_reason": foreign.ANOTHERS_LINE_REASON, "anothers_line_source": foreign.ANOTHERS_LINE_SOURCE,
                           "unnamed_reason": foreign.UNNAMED_REASON, "unnamed_source": foreign.UNNAMED_SOURCE,
                           "unnamed_line_chars": foreign.UNNAMED_LINE_CHARS},
        # (and vLLM's message that reads as it, with its words as a pattern: match.py _carried)
        "not_vllm": [[f.source, list(f.keywords), _source(f.pattern), f.reason, f.weak, f.id]
                     + ([f.vllm_wording, _source(foreign.wording_words(f.vllm_wording))] if f.vllm_wording else [])
                     for f in foreign.foreign_errors()],
        "foreign": {f.id: {"title": f.title, "summary": f.summary, "steps": list(f.steps), "url": foreign_path(f.id),
                           "phases": [[phase, sorted(functions), advice] for phase, functions, advice in f.phases]}
                    for f in foreign.foreign_errors()},
        "wrapper": _source(foreign.WRAPPER),
        # patterns, in Python syntax
        "line_prefixes": [_source(p) for p in clean.LINE_PREFIXES],
        "outer_prefixes": [_source(p) for p in clean.OUTER_PREFIXES],
        "shared_prefix_share": clean.SHARED_PREFIX_SHARE,
        "hard_wrap_width": clean.HARD_WRAP_WIDTH,
        "hard_wrap_lines": clean.HARD_WRAP_LINES,
        "patterns": {
            "ansi": _source(clean.ANSI),
            "control": _source(clean.CONTROL),
            "json_escape": _source(clean.JSON_ESCAPE),
            "chatter": _source(clean.CHATTER),
            "code_fence": _source(clean.CODE_FENCE),
            "quoted_exception_line": _source(clean.QUOTED_EXCEPTION_LINE),
            "record_start": _source(clean.RECORD_START),
            "flat_frame": _source(clean.FLAT_FRAME),
            "typographic_frame": _source(clean.TYPOGRAPHIC_FRAME),
            "cut_frame": _source(clean.CUT_FRAME),
            "wrapped_frame_path": _source(clean.WRAPPED_FRAME_PATH),
            "wrapped_frame_function": _source(clean.WRAPPED_FRAME_FUNCTION),
            "cut_type_name": _source(clean.CUT_TYPE_NAME),
            "shown_cr": _source(clean.SHOWN_CR),
            "docker_json_log": _source(clean.DOCKER_JSON_LOG),
            "json_log_line": _source(clean.JSON_LOG_LINE),
            "new_line": _source(clean.NEW_LINE),
            "whole_frame": _source(clean.WHOLE_FRAME),
            "code_line": _source(clean.CODE_LINE),
            "flat_exception": _source(clean.FLAT_EXCEPTION),
            "flat_access_record": _source(clean.FLAT_ACCESS_RECORD),
            "raise_code": _source(clean.RAISE_CODE),
            "punctuation": _source(match.PUNCTUATION),
            "value_tail": _source(match.VALUE_TAIL),
            "quote_closes_double": _source(match.QUOTE_CLOSES_DOUBLE),
            "quote_closes_single": _source(match.QUOTE_CLOSES_SINGLE),
            "value_sentence_end": _source(match.VALUE_SENTENCE_END),
            "quote_opens_message": _source(match.QUOTE_OPENS_MESSAGE),
            "typed_words": _source(match.TYPED_WORDS),
            "labelled_in_exception": _source(match.LABELLED_IN_EXCEPTION),
            "shared_prefix": _source(clean.SHARED_PREFIX),
            "collector_prefix": _source(clean.COLLECTOR_PREFIX),
            "ellipsis_mark": _source(match.ELLIPSIS_MARK),
            "chatter_keep": _source(clean.CHATTER_KEEP),
            "web_space": _source(clean.WEB_SPACE),
            "closing_words": _source(clean.CLOSING_WORDS),
            "closing_form": _source(clean.CLOSING_FORM),
            "closing_noise": _source(clean.CLOSING_NOISE),
            "word_left": _source(clean.WORD_LEFT),
            "error_left": _source(clean.ERROR_LEFT),
            "invisible": _source(clean.INVISIBLE),
            "typographic_flag": _source(clean.TYPOGRAPHIC_FLAG),
            "markdown_strong": _source(clean.MARKDOWN_STRONG),
            "curly_single": _source(clean.CURLY_SINGLE),
            "curly_double": _source(clean.CURLY_DOUBLE),
            "full_width_type_colon": _source(clean.FULL_WIDTH_TYPE_COLON),
            "access_log": _source(clean.ACCESS_LOG),
            "log_header": _source(match.LOG_HEADER),
            "refused_request": _source(clean.REFUSED_REQUEST),
            "access_record": _source(clean.ACCESS_RECORD),
            "drop_run": _source(clean.DROP_RUN),
            "exception_line": _source(foreign.EXCEPTION_LINE),
            "exception_prefix": _source(match.EXCEPTION_PREFIX),
            "pythons_own": _source(match.PYTHONS_OWN),
            "ends_in_a_value": _source(match.ENDS_IN_A_VALUE),
            "frame": _source(foreign.FRAME),
            "frame_tail": _source(match.FRAME_TAIL),
            "chained": _source(match.CHAINED),
            "quoted_part": _source(match.QUOTED_PART),
            "head_cut_lead": _source(match.HEAD_CUT_LEAD),
            "notebook_frame": _source(foreign.NOTEBOOK_FRAME),
            "site_package": _source(foreign.SITE_PACKAGE),
            "qualified_exception": _source(foreign.QUALIFIED_EXCEPTION),
            "foreign_call": _source(foreign.FOREIGN_CALL),
            "message_word": _source(foreign.MESSAGE_WORD),
            "error_line": _source(foreign.ERROR_LINE),
            "logged_above_traceback": _source(foreign.LOGGED_ABOVE_TRACEBACK),
            "user_cut": _source(match.USER_CUT),
            "vllm_qualified": _source(match.VLLM_QUALIFIED),
            "issue_tag": _source(match.ISSUE_TAG),
            "new_sentence": _source(match.NEW_SENTENCE),
            "new_sentence_after": _source(match.NEW_SENTENCE_AFTER),
            "writes_its_message": _source(match.WRITES_ITS_MESSAGE),
            "type_right_before": _source(match.TYPE_RIGHT_BEFORE),
            "value_opens_after": _source(match.VALUE_OPENS_AFTER),
            "reports_above": _source(match.REPORTS_ABOVE),
            "points_to_its_value": _source(match.POINTS_TO_ITS_VALUE),
            "response_body": _source(match.RESPONSE_BODY),
            "paste_ends_in_a_word": _source(match.PASTE_ENDS_IN_A_WORD),
            "ascii_word": _source(match.ASCII_WORD),
            "raises_or_calls_a_kernel": _source(foreign.RAISES_OR_CALLS_A_KERNEL),
            "code_word": _source(foreign.CODE_WORD),
            "raise_of_a_type": _source(foreign.RAISE_OF_A_TYPE),
            "vllm_log_line": _source(match.VLLM_LOG_LINE),
            "process_line": _source(match.PROCESS_LINE),
            "traceback_shown": _source(match.TRACEBACK_SHOWN),
            "native_backtrace": _source(match.NATIVE_BACKTRACE),
            "raise_at_the_end": _source(match.RAISE_AT_THE_END),
            "hole": _source(match.HOLE),
            "python_wrote": _source(match.PYTHON_WROTE),
            "anothers_log_line": _source(match.ANOTHERS_LOG_LINE),
            "names_vllm": _source(foreign.NAMES_VLLM),
            "code_name": _source(foreign.CODE_NAME),
            "py_logger_line": _source(match.PY_LOGGER_LINE),
            "type_alone": _source(match.TYPE_ALONE),
            "says_what_after": _source(match.SAYS_WHAT_AFTER),
        },
    }


LOGGED_FAILURES = ("ERROR", "CRITICAL")  # the levels of the logs whose header alone names them


def compact_index(catalogs: list[dict], curated: dict[str, str] | None = None, links: list | None = None,
                  entries: dict[str, dict] | None = None, raise_lines: bool = False) -> dict:
    """Every error of the catalogs (one per release, oldest first), compactly.

    The browser builds its matcher from this with the same rules as ``Matcher``:
    the rules' numbers, texts and patterns travel inside it (``rules()``). ``curated``:
    the curated entries' titles by error id, the title a result shows (the site's index
    has them; the command line's stored index does not). ``links``: the lineage of
    ``generator.history.lineage`` (an error that became another in a later release).
    ``entries``: by error id, the curated entry's {slug, title, summary, fix}.
    ``raise_lines``: also, per error, the lines of its sites in each release
    (``{id: [[path, line, releases bitmask], ...]}``), which tell a traceback's release by the
    line of its raise; the command line's index has them, the browser's does not (a fifth more).
    """
    merged: dict[str, dict] = {}
    forms: dict[str, list[str]] = {}
    kinds: dict[str, str] = {}
    reasons: dict[str, list[str]] = {}  # error id → the reasons its message may show
    paths: dict[str, int] = {}  # a file's path → bitmask of the releases whose sites are in it
    lines: dict[str, dict[tuple[str, int], int]] = {}  # error id → (path, line) → releases bitmask
    logged: dict[str, set[str]] = {}  # an error log's id → "file.py:line" of its sites in any release
    functions: dict[str, set[str]] = {}  # a file's path → the functions of its sites in any release
    for number, catalog in enumerate(catalogs):
        for error in catalog["errors"]:
            if error.get("kind") == "log" and error["exception"] in LOGGED_FAILURES:
                logged.setdefault(error["id"], set()).update(
                    f"{site['path'].rsplit('/', 1)[-1]}:{site['line']}" for site in error["sites"])
            for site in error["sites"]:
                paths[site["path"]] = paths.get(site["path"], 0) | 1 << number
                functions.setdefault(site["path"], set()).add(site["function"].rsplit(".", 1)[-1])
                if raise_lines:
                    at = lines.setdefault(error["id"], {})
                    at[site["path"], site["line"]] = at.get((site["path"], site["line"]), 0) | 1 << number
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
            if error.get("kind", "raise") not in ("raise", "assert"):
                kinds[error["id"]] = error["kind"]
            if known["has_message"]:
                for site in error["sites"]:
                    for form in [site["template"], *site.get("variants", [])]:
                        if form and form not in forms[error["id"]]:
                            forms[error["id"]].append(form)
                    for reason in site.get("reasons", []):
                        if reason not in reasons.setdefault(error["id"], []):
                            reasons[error["id"]].append(reason)
    # Errors of one file side by side, alike messages together: gzip finds the repeats
    # within its window (by id, the browser's index was 1.3 MB gzipped; so, 0.9 MB).
    ids = sorted(merged, key=lambda i: (merged[i]["sites"][0][0] if merged[i]["sites"] else "", merged[i]["template"], i))
    revisions = [c["revision"] for c in catalogs]
    place = {revision: number for number, revision in enumerate(revisions)}
    path_number = {path: number for number, path in enumerate(sorted(paths))}
    for known in merged.values():  # the errors' sites (their newest release's) name the rest
        for path, _, function in known["sites"]:
            functions[path].discard(function.rsplit(".", 1)[-1])
    entries = entries or {}
    return {
        "schema_version": INDEX_SCHEMA_VERSION,
        "revisions": revisions,
        # forms: the templates besides the main one (the main one is not repeated: a third of the size);
        # versions: a bitmask over `revisions`; a site's path: its number in `paths` (sorted), so
        # the browser's index stays under 1 MB gzipped (error_rows() reads them back). One column
        # per field, not one row per error: gzip then meets ids beside ids and templates beside
        # templates (994 KB → 912 KB gzipped). `table_rows()` gives the rows back.
        "errors": {
            "id": [merged[i]["id"] for i in ids],
            "exception": [merged[i]["exception"] for i in ids],
            "template": [merged[i]["template"] for i in ids],
            "has_message": [merged[i]["has_message"] for i in ids],
            "versions": [sum(1 << place[v] for v in merged[i]["versions"]) for i in ids],
            "sites": [[[path_number[p], line, function] for p, line, function in merged[i]["sites"]] for i in ids],
            "forms": [[f for f in forms[i] if f != merged[i]["template"]] for i in ids],
        },
        "groups": pack_groups(problem_groups(merged, revisions, links or [], entries)),
        "kinds": pack_kinds(ids, kinds),
        # the reasons a message may show (`Reason: {invalid_reasons}`), by the number of its row
        "reasons": {str(n): reasons[i] for n, i in enumerate(ids) if reasons.get(i)},
        "paths": {p: paths[p] for p in sorted(paths)},
        # the functions where an older release raises or logs and its newest sites do not, by the
        # path's number in `paths` (8 KB gzipped): a traceback's raise in a vLLM file's function
        # that no release has is a fork's (foreign.raise_vllm_never_wrote)
        "functions_before": {path_number[p]: " ".join(sorted(functions[p])) for p in sorted(functions) if functions[p]},
        **({"raise_lines": {i: [[p, n, m] for (p, n), m in sorted(lines[i].items())] for i in sorted(lines)}}
           if raise_lines else {}),
        # where each error log is written: a paste whose log header ("ERROR ... [core.py:500]")
        # is all it shows of one (a traceback the logger printed, cut above its message)
        "log_lines": {i: sorted(logged[i]) for i in sorted(logged)},
        "rules": rules(),
        **({"curated": pack_curated(curated, entries, merged)} if curated else {}),
        **({"entries": pack_entries(entries, merged)} if entries else {}),
    }


def pack_kinds(ids: list[str], kinds: dict[str, str]) -> dict[str, list[int]]:
    """Kind → the numbers of its rows in ``errors`` (raise and assert, most of them, are left
    out): a row number costs a fifth of an id."""
    number = {i: n for n, i in enumerate(ids)}
    packed: dict[str, list[int]] = {}
    for i in sorted(kinds, key=number.__getitem__):
        packed.setdefault(kinds[i], []).append(number[i])
    return {kind: packed[kind] for kind in sorted(packed)}


# the columns of the index's "errors", in the order of a row (cache.index_problem checks them)
ERROR_COLUMNS = ("id", "exception", "template", "has_message", "versions", "sites", "forms")


def table_rows(index: dict) -> list[tuple]:
    """The index's "errors" columns as rows (id, exception, template, has_message,
    versions, sites, forms), versions still a bitmask and paths still numbers."""
    columns = index["errors"]
    return list(zip(*(columns[name] for name in ERROR_COLUMNS)))


def kinds_of(index: dict) -> dict[str, str]:
    """Error id → kind, for the rows ``pack_kinds`` lists (any other is a raise)."""
    ids = index["errors"]["id"]
    return {ids[n]: kind for kind, rows in index.get("kinds", {}).items() for n in rows}


def pack_entries(entries: dict[str, dict], known) -> dict[str, dict]:
    """Slug → the entry's {title, summary, fix, ids}: an entry of several ids is written once."""
    packed: dict[str, dict] = {}
    for i in sorted(entries):
        if i in known:
            entry = entries[i]
            packed.setdefault(entry["slug"], {k: v for k, v in entry.items() if k != "slug"} | {"ids": []})["ids"].append(i)
    return {slug: packed[slug] for slug in sorted(packed)}


def entries_of(index: dict) -> dict[str, dict]:
    """Error id → its curated entry {slug, title, summary, fix}, read back from ``pack_entries``."""
    return {i: {"slug": slug, **{k: v for k, v in entry.items() if k != "ids"}}
            for slug, entry in index.get("entries", {}).items() for i in entry["ids"]}


def pack_curated(curated: dict[str, str], entries: dict[str, dict] | None, known) -> dict[str, str]:
    """The curated titles an entry of ``entries`` does not already give."""
    entries = entries or {}
    return {i: curated[i] for i in sorted(curated) if i in known and (i not in entries or entries[i]["title"] != curated[i])}


def titles_of(index: dict) -> dict[str, str]:
    """Error id → the title its results show: its entry's, else a curated one."""
    return {**{i: e["title"] for i, e in entries_of(index).items()}, **index.get("curated", {})}


def pack_groups(groups: dict[str, str]) -> dict[str, str]:
    """``problem_groups`` less each current error's entry for itself (``groups_of`` puts them
    back): 1,400 of the browser's 3,500 pairs, 17 KB of its index gzipped."""
    return {i: current for i, current in groups.items() if i != current}


def groups_of(index: dict) -> dict[str, str]:
    """The index's problem groups, each current error its own group's member again."""
    groups = dict(index.get("groups", {}))
    groups.update({current: current for current in set(groups.values())})
    return groups


def problem_groups(errors: dict[str, dict], revisions: list[str], links: list, entries: dict[str, dict]) -> dict[str, str]:
    """Error id → the id of its problem's current error, for the ids of a problem with more than one.

    One problem: errors linked by lineage (reworded, retyped, moved), errors of the same
    message (``raise EngineDeadError()`` in three functions, a message both logged and
    raised), and the ids of one curated entry. Its current error is the one the newest release raises (the pin's
    when the pin is newest), then a curated one, then the one of most releases.
    """
    parent = {i: i for i in errors}

    def find(i: str) -> str:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def union(a: str, b: str) -> None:
        if a in parent and b in parent:
            parent[find(a)] = find(b)

    for link in links:  # lineage Links, or (id, id) pairs already known to be one problem
        source, target = (link.source, link.target) if hasattr(link, "source") else link
        union(source, target)
    same: dict[str, str] = {}
    for i, error in errors.items():
        if error["has_message"] and any(c.isalpha() for c in HOLE_TEXT.sub("", error["template"])):
            # the same words, whatever the type (NotFoundError and VLLMNotFoundError alike)
            first = same.setdefault(normalize_template(error["template"]), i)
            union(i, first)
    by_entry: dict[str, str] = {}
    for i, entry in entries.items():
        union(i, by_entry.setdefault(entry["slug"], i))
    members: dict[str, list[str]] = {}
    for i in errors:
        members.setdefault(find(i), []).append(i)
    place = {r: n for n, r in enumerate(revisions)}
    groups: dict[str, str] = {}
    for ids in members.values():
        if len(ids) < 2:
            continue
        current = max(ids, key=lambda i: (max(place.get(v, -1) for v in errors[i]["versions"]), i in entries,
                                          len(errors[i]["versions"]), [-ord(c) for c in i]))
        for i in sorted(ids):
            groups[i] = current
    return groups


HOLE_TEXT = match.HOLE


def entries_for_index(entries) -> dict[str, dict]:
    """By error id, what a result shows of its curated entry: slug, title, summary and the
    first solution with its first command (vLLM's own when it has one), and which of the
    command's settings the message gives (``fill``)."""
    found: dict[str, dict] = {}
    for entry in entries:
        fix = None
        if entry.solutions:
            first = entry.solutions[0]
            commands = first.get("commands") or {}
            command = commands.get("vllm") or next(iter(commands.values()), "") if isinstance(commands, dict) else ""
            fix = {"title": " ".join(str(first.get("title", "")).split()), "command": str(command or "").strip()}
            fill = fill_names(first.get("fill"))
            if fill:
                fix["fill"] = fill
        for id_ in entry.ids:
            found[id_] = {"slug": entry.slug, "title": " ".join(entry.title.split()),
                          "summary": " ".join(entry.summary.split()), "fix": fix}
    return found


def error_rows(index: dict) -> list[tuple]:
    """The index's error rows as (id, exception, template, has_message, versions, sites, forms),
    with the versions and the sites' paths spelled out."""
    revisions = index.get("revisions", [])
    paths = list(index.get("paths", {}))
    return [(id_, exception, template, has_message, [r for n, r in enumerate(revisions) if mask >> n & 1],
             [(paths[p], line, function) for p, line, function in sites], forms)
            for id_, exception, template, has_message, mask, sites, forms in table_rows(index)]


def regroup(index: dict, entries: dict[str, dict], links: list[tuple[str, str]] = ()) -> dict:
    """The index with the curated entries' ids and the links people wrote (``errors/lineage.yaml``)
    joined into problems, and the entries' titles and summaries carried (the command line
    adds the project's entries and links to its stored index)."""
    errors = {row[0]: {"exception": row[1], "template": row[2], "has_message": row[3], "versions": row[4]}
              for row in error_rows(index)}
    pairs = list(groups_of(index).items()) + [(a, b) for a, b in links if a in errors and b in errors]
    titles = titles_of(index)
    titles.update({i: e["title"] for i, e in entries.items() if i in errors})
    return {**index, "groups": pack_groups(problem_groups(errors, index["revisions"], pairs, entries)),
            "curated": pack_curated(titles, entries, errors),
            "entries": pack_entries(entries, errors)}


def matcher_from_index(index: dict, site_url: str = "") -> Matcher:
    """The matcher over the index's errors; their URLs absolute under ``site_url`` when given."""
    order = {revision: place for place, revision in enumerate(index.get("revisions", []))}
    kinds = kinds_of(index)
    entries = entries_of(index)
    titles = titles_of(index)
    rows = error_rows(index)
    errors = [
        LookupError_(
            id=id_,
            exception=exception,
            template=template,
            title=error_title(exception, template, has_message, function=sites[0][2] if sites else "",
                              curated=titles.get(id_, "")),
            url=error_url(site_url, id_),
            versions=versions,
            sites=[{"path": p, "line": line, "function": f} for p, line, f in sites],
            newest=max((order.get(v, -1) for v in versions), default=-1),
            kind=kinds.get(id_, "raise"),
            entry=entries.get(id_),
        )
        for id_, exception, template, has_message, versions, sites, _ in rows
    ]
    templates = [([template] if has_message else []) + forms for _, _, template, has_message, _, _, forms in rows]
    given = index.get("reasons", {})
    return Matcher(errors, templates, reasons=[given.get(str(n), []) for n in range(len(rows))], groups=groups_of(index),
                   revisions=index.get("revisions", []), site_url=site_url, paths=index.get("paths", {}),
                   raise_lines={i: {(p, n): m for p, n, m in rows} for i, rows in index.get("raise_lines", {}).items()},
                   log_lines=index.get("log_lines", {}), functions_before=functions_before(index))


def functions_before(index: dict) -> dict[str, frozenset[str]]:
    """The index's ``functions_before`` with the paths spelled out."""
    paths = list(index.get("paths", {}))
    return {paths[int(p)]: frozenset(names.split()) for p, names in index.get("functions_before", {}).items()}


def matcher_from_catalogs(catalogs: list[dict], site_url: str = "") -> Matcher:
    """A matcher over the errors of one or more catalogs (one per release, oldest first)."""
    return matcher_from_index(compact_index(catalogs), site_url)
