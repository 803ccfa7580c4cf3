"""Reproduction cases, their verdicts and the records they leave: the pure middle of the harness.

An entry's ``reproduce`` section holds one or more pairs of cases: an *error case*
that must raise the entry's error, and a *fix case* that must get past the point where
that error is raised. Running them is ``generator/harness.py``'s job; this module turns
the raw YAML into ``Reproduction`` objects, judges what a run produced, and assembles
the record (``errors/verifications/<slug>.json``) and the badge a page shows.

When a case passes:

- **error case**: it raised an exception, and the lookup matcher, given the full
  traceback as a person would paste it, ranks the case's ``expect`` id first.
- **fix case**: it reached its ``reach`` point -- ``engine-config``: vLLM's
  ``EngineArgs.create_engine_config`` returned, i.e. every configuration check ran
  and passed (the run stops there); ``health``: the server answered ``GET /health``
  with 200; ``return``: the snippet ran to its end; ``exit-0``: the command exited
  with 0 -- *and*, where the harness could trace it, the function that raises the
  error was entered and returned normally without executing the raise statement.
  A fix case that never reaches the raising function does not show that it fixed it.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from generator.repro.validate import record_errors

REACH_POINTS = ("engine-config", "health", "return", "exit-0")
OUTCOMES = ("returned", "reached", "raised", "exited", "timeout", "crashed", "not-run")
DEFAULT_TIMEOUT_S = 120.0
# The longest a case may run; the entry schema's `timeout_s` maximum says the same
# (tests/test_sandbox.py checks that they agree), and the runners clamp to it.
MAX_TIMEOUT_S = 900.0
# The variables a case may set in `env:` (the schema's `env` propertyNames say the same):
# settings of vLLM and the libraries under it, never the loader's (LD_*), Python's or PATH.
CASE_ENV_NAME = re.compile(r"^(?:VLLM|NCCL|CUDA|TORCH|PYTORCH|OMP|MKL|HF|TRANSFORMERS|TOKENIZERS|TRITON)_[A-Z0-9_]+$")
TIERS = ("cpu", "cuda")


def case_sha256(raw: Any) -> str:
    """The hash of a case as the entry writes it: sha256 of its canonical JSON (keys sorted,
    no spaces, UTF-8). A record carries it, so a record of another version of the case is stale."""
    text = json.dumps(raw, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ReproCase:
    """One run of vLLM, as an entry describes it."""

    role: str  # "error" or "fix"
    kind: str  # "python" or "cli"
    code: str = ""  # python
    argv: tuple[str, ...] = ()  # cli
    env: tuple[tuple[str, str], ...] = ()
    requires: str = "cpu"
    min_gpu_memory_gib: float | None = None
    max_compute_capability: float | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S
    expect: str | None = None  # error cases
    reach: str | None = None  # fix cases
    past: str | None = None  # fix cases: "PATH:QUALNAME", "none", or None for the error's own sites
    sha256: str = ""  # case_sha256 of the case as written

    def stop_at(self) -> str | None:
        """The point where the run is stopped on purpose (fix cases only)."""
        if self.role == "fix" and self.reach in ("engine-config", "health"):
            return self.reach
        return None


@dataclass(frozen=True)
class Reproduction:
    """An error case and its fix case, for one tier."""

    entry: str  # slug
    path: str  # errors/<slug>.yaml
    index: int  # which pair of the entry (0 when there is one)
    error: ReproCase
    fix: ReproCase
    simulates: str | None = None  # the GPU whose values a CPU case feeds to the raising function
    several: bool = False  # the entry has a list of pairs

    @property
    def tier(self) -> str:
        return self.error.requires

    @property
    def label(self) -> str:
        return f"{self.entry}[{self.index}]" if self.several else self.entry

    @property
    def record_key(self) -> str:
        """Where this pair's latest run is kept in the entry's record."""
        return f"{self.tier}-{self.index}" if self.several else self.tier

    def verification_kind(self) -> str:
        """What a pass of this pair shows, in words, for the page."""
        if self.simulates:
            return f"the raising vLLM function called with the values {with_article(self.simulates)} would produce"
        if self.fix.reach == "engine-config":
            return "vLLM's engine configuration built from a real model configuration"
        if self.fix.reach == "health":
            return "a vLLM server started and answering its health check"
        if self.fix.kind == "cli":
            return "vLLM's command line run to completion"
        return "vLLM's own code run to completion"


def _case(role: str, raw: dict) -> ReproCase:
    return ReproCase(
        role=role,
        kind="python" if "python" in raw else "cli",
        code=raw.get("python", ""),
        argv=tuple(str(a) for a in raw.get("cli", ())),
        env=tuple(sorted((str(k), str(v)) for k, v in (raw.get("env") or {}).items())),
        requires=raw.get("requires", "cpu"),
        min_gpu_memory_gib=raw.get("min_gpu_memory_gib"),
        max_compute_capability=raw.get("max_compute_capability"),
        timeout_s=float(raw.get("timeout_s", DEFAULT_TIMEOUT_S)),
        expect=raw.get("expect"),
        reach=raw.get("reach"),
        past=raw.get("past"),
        sha256=case_sha256(raw),
    )


def reproductions(slug: str, path: str, raw: Any) -> list[Reproduction]:
    """The pairs of an entry's (schema-valid) ``reproduce`` section (none when it says why the
    error cannot be reproduced: ``not_reproducible``)."""
    if not raw or (isinstance(raw, dict) and "not_reproducible" in raw):
        return []
    pairs = raw if isinstance(raw, list) else [raw]
    several = isinstance(raw, list)
    return [
        Reproduction(slug, path, i, _case("error", p["error"]), _case("fix", p["fix"]), p.get("simulates"), several)
        for i, p in enumerate(pairs)
    ]


def pair_key(index: int, several: bool) -> tuple:
    """Where a pair is in the entry, as an ``ErrorEntry`` position key."""
    return ("reproduce", index) if several else ("reproduce",)


# ---------------------------------------------------------------- what to watch

def watch_targets(case: ReproCase, error: dict | None) -> list[dict]:
    """The functions the harness traces during a fix case.

    By default the functions that raise the expected error at the pin, with the
    lines of their raise statements; ``past: PATH:QUALNAME`` names another function
    (one that must return normally, e.g. the caller that decides whether to raise),
    ``past: none`` traces nothing.
    """
    if case.role != "fix" or case.past == "none":
        return []
    if case.past:
        path, _, function = case.past.partition(":")
        return [{"path": path, "function": function, "raise_lines": []}]
    if not error:
        return []
    by_function: dict[tuple[str, str], list[int]] = {}
    for site in error.get("sites", ()):
        by_function.setdefault((site["path"], site.get("function") or ""), []).append(site["line"])
    # An assert's line runs whether or not it fails: it counts only when it raises there.
    key = "assert_lines" if error.get("kind") == "assert" else "raise_lines"
    return [
        {"path": path, "function": function, "raise_lines": [], key: sorted(lines)}
        for (path, function), lines in sorted(by_function.items())
    ]


# ---------------------------------------------------------------- verdicts

@dataclass
class CaseRun:
    """What one run of a case produced (from the harness), before judging."""

    outcome: str  # returned | reached | raised | exited | timeout | crashed | not-run
    duration_s: float = 0.0
    reached: str | None = None
    exit_code: int | None = None
    exception: dict | None = None  # {"type", "module", "message", "traceback"}
    watch: list[dict] = field(default_factory=list)
    log_tail: str = ""
    signal: int | None = None
    leaked_processes: bool = False
    reason: str = ""  # not-run: why; crashed: how
    gpu_memory: dict | None = None  # CUDA tier: {"before_mib", "after_mib"}
    leaked: list[str] = field(default_factory=list)  # the names of the processes it left behind (killed)
    isolation: str = ""  # the sandbox it ran in, in words (generator/repro/sandbox.py)


@dataclass
class CaseVerdict:
    passed: bool
    summary: str  # one line: what happened, for people and for CI
    matched: str | None = None


def _exception_line(exception: dict) -> str:
    message = exception.get("message", "").strip().splitlines()
    return f"{exception.get('type')}: {message[0] if message else ''}"[:300]


def _how_it_ended(run: CaseRun) -> str:
    if run.outcome == "timeout":
        return f"timed out after {run.duration_s:.0f} s (its process group was killed)"
    if run.outcome == "crashed":
        return f"crashed ({run.reason})"
    if run.outcome == "not-run":
        return f"was not run: {run.reason}"
    if run.outcome == "raised":
        return f"raised {_exception_line(run.exception or {})}"
    if run.outcome == "exited":
        tail = f" after {_exception_line(run.exception)}" if run.exception else ""
        return f"exited with status {run.exit_code}{tail}"
    if run.outcome == "reached":
        return f"reached {run.reached}"
    return "ran to its end without an exception"


def judge_error(case: ReproCase, run: CaseRun, match) -> CaseVerdict:
    """``match(text) -> id or None``: the lookup matcher's top answer.

    The full traceback is matched first, as a person would paste it. vLLM often
    raises one error from another (``raise ValueError(...) from e``); when the
    traceback's top answer is the outer error, each exception it was raised from is
    matched on its own, so an entry about the inner error is reproduced too.
    """
    if run.outcome == "not-run":
        return CaseVerdict(False, _how_it_ended(run))
    exception = run.exception
    logged = _logged_line(run.log_tail, case.expect, match)
    if exception is None:
        if logged:  # an error vLLM logs (kind log) is reproduced by the line it logs
            return CaseVerdict(True, f"logged {case.expect}: {logged}", case.expect)
        return CaseVerdict(False, f"expected {case.expect}, but the case {_how_it_ended(run)}")
    matched = match(exception.get("traceback") or _exception_line(exception))
    if matched == case.expect:
        return CaseVerdict(True, f"raised {case.expect}: {_exception_line(exception)}", matched)
    for cause in exception.get("causes") or ():
        if match(f"{cause.get('type')}: {cause.get('message', '')}") == case.expect:
            return CaseVerdict(True, f"raised {case.expect}: {_exception_line(cause)} "
                                     f"(the cause of {_exception_line(exception)})", case.expect)
    # A server reports its engine's error in its log and raises a wrapper ("Engine core
    # initialization failed"); the log and the traceback together are what a person
    # pastes, and the matcher demotes the wrapper.
    if run.log_tail and match(run.log_tail + "\n" + (exception.get("traceback") or "")) == case.expect:
        return CaseVerdict(True, f"raised {_exception_line(exception)}, after {case.expect} in the log", case.expect)
    if logged:
        return CaseVerdict(True, f"logged {case.expect}: {logged}, then raised {_exception_line(exception)}", case.expect)
    return CaseVerdict(False, f"expected {case.expect}, but the case raised {_exception_line(exception)} "
                              f"(matched to {matched or 'no known error'})", matched)


_LOG_LEVEL = re.compile(r"\b(?:WARNING|ERROR|CRITICAL)\b")


def _logged_line(log_tail: str, expect: str | None, match) -> str:
    """The line of the case's output, logged at warning level or above, that the matcher
    names ``expect`` for ("" when none): how a warning or an error vLLM logs without raising
    is reproduced."""
    for line in (log_tail or "").splitlines():
        if _LOG_LEVEL.search(line) and match(line) == expect:
            return line.strip()[:300]
    return ""


WATCHED_NAMED = 6  # an error raised from 44 files would list them all past a record's 2,000 characters


def _watched_names(watch: list[dict]) -> str:
    """The watched functions, the raising one first, then a few, then how many more."""
    ordered = sorted(watch, key=lambda w: (not w["raise_executed"], not w["entered"]))
    names = [f"{w['path']}:{w['function'] or '<module>'}" for w in ordered[:WATCHED_NAMED]]
    more = len(watch) - len(names)
    return ", ".join(names) + (f" and {more} more" if more > 0 else "")


def _watch_summary(watch: list[dict]) -> tuple[bool, str]:
    """(passed, what the watched functions did), naming only those that did it: of three
    raising functions, the one the case entered returned, not all three."""
    entered = [w for w in watch if w["entered"]]
    returned = sum(w["returned"] for w in watch)
    raised = [w for w in watch if w["raise_executed"]]
    if raised:
        return False, f"a raise statement of {_watched_names(raised)} was executed"
    if not entered:
        return False, f"never entered {_watched_names(watch)}, so it did not show that it got past the error"
    if not returned:
        return False, f"entered {_watched_names(entered)} but never returned from it normally"
    return True, f"{_watched_names([w for w in entered if w['returned']])} returned normally {returned} time(s), no raise statement executed"


def judge_fix(case: ReproCase, run: CaseRun, watched: bool) -> CaseVerdict:
    """``watched``: the harness traced the raising functions (the CPU tier does)."""
    if run.outcome == "not-run":
        return CaseVerdict(False, _how_it_ended(run))
    reach = case.reach
    got_there = (
        (reach in ("engine-config", "health") and run.outcome == "reached" and run.reached == reach)
        or (reach == "return" and run.outcome == "returned")
        or (reach == "exit-0" and ((run.outcome == "exited" and run.exit_code == 0) or run.outcome == "returned"))
    )
    if not got_there:
        return CaseVerdict(False, f"expected to reach {reach}, but the case {_how_it_ended(run)}")
    if not watched or not run.watch:
        return CaseVerdict(True, f"reached {reach}")
    ok, detail = _watch_summary(run.watch)
    return CaseVerdict(ok, f"reached {reach}; {detail}")


# ---------------------------------------------------------------- records

EVIDENCE_CHARS = 1500


def evidence(run: CaseRun) -> str:
    """An excerpt that shows what happened: the end of the traceback, else of the log."""
    text = (run.exception or {}).get("traceback") or run.log_tail or ""
    text = text.strip()
    if len(text) > EVIDENCE_CHARS:
        text = "…" + text[-EVIDENCE_CHARS:]
    return text


def case_record(case: ReproCase, run: CaseRun, verdict: CaseVerdict) -> dict:
    record: dict = {
        "passed": verdict.passed,
        "summary": verdict.summary,
        "outcome": run.outcome,
        "duration_s": round(run.duration_s, 2),
        "case_sha256": case.sha256,
    }
    if case.kind == "cli":
        record["cli"] = list(case.argv)
    if case.expect:
        record["expect"] = case.expect
        record["matched"] = verdict.matched
    if case.reach:
        record["reach"] = case.reach
    if run.exception:
        record["exception"] = {"type": run.exception.get("type"), "message": run.exception.get("message", "")[:2000]}
    if run.watch:
        record["watch"] = run.watch
    if run.leaked_processes:
        record["leaked_processes"] = True
        if run.leaked:
            record["leaked"] = list(run.leaked)
    if run.gpu_memory:
        record["gpu_memory"] = run.gpu_memory
    record["evidence"] = evidence(run)
    return record


# Words that already say how many: "a GPU worker ...", "any CUDA GPU", "one NVIDIA GPU visible".
_DETERMINERS = frozenset({"a", "an", "the", "any", "one", "two", "four", "eight", "some"})


def with_article(thing: str) -> str:
    """``thing`` after "a" or "an", unless it opens with a word that says how many itself.
    "an" before a vowel, and before a capitalised name spoken from a vowel sound ("an NVIDIA L4")."""
    first = thing.split(maxsplit=1)[0] if thing.strip() else ""
    if first.lower() in _DETERMINERS:
        return thing
    vowel = (first[:1] in "AEIOUaeiou" or (first[:1] in "FHLMNRSX" and first[1:2].isupper())
             or re.match(r"8|1[18](?!\d)", first) is not None)  # "an 8x NVIDIA H100", "an 11 GB card"
    return ("an " if vowel else "a ") + thing


def tier_record(repro: Reproduction, environment: dict, date: str,
                error: dict, fix: dict, isolation: str = "") -> dict:
    """The record of one pair's run on one tier; ``isolation``: the sandbox its cases ran in."""
    return {
        "tier": repro.tier,
        "pair": repro.index,
        "key": repro.record_key,
        "passed": bool(error["passed"] and fix["passed"]),
        "verification": repro.verification_kind(),
        "simulates": repro.simulates,
        "date": date,
        "duration_s": round(error["duration_s"] + fix["duration_s"], 2),
        "environment": environment,
        "isolation": isolation,
        "error": error,
        "fix": fix,
    }


def merge_record(previous: dict | None, slug: str, tier: dict) -> dict:
    """The entry's record file with one tier's run replaced (the other tiers kept)."""
    runs = dict((previous or {}).get("runs", {}))
    runs[tier["key"]] = tier
    return {"entry": slug, "runs": dict(sorted(runs.items()))}


# ---------------------------------------------------------------- badges

@dataclass(frozen=True)
class Badge:
    text: str
    state: str  # passed | failed | stale | pending


def _gpu_name(environment: dict) -> str:
    gpu = environment.get("gpu") or {}
    name = gpu.get("name") or "a GPU"
    return f"{name} {gpu['memory_gib']:.0f}GB" if gpu.get("memory_gib") and "GB" not in name else name


def run_mismatch(repro: Reproduction, run: dict) -> str | None:
    """Why a (schema-valid) run of a record is not a run of ``repro`` as the entry now
    writes it, or None: another tier or pair, a case changed since (its hash), a verdict
    that disagrees with its cases."""
    if run.get("tier") != repro.tier or run.get("pair") != repro.index or run.get("key") != repro.record_key:
        return f"it is not a run of this entry's {repro.record_key} pair"
    for role, case in (("error", repro.error), ("fix", repro.fix)):
        if (run.get(role) or {}).get("case_sha256") != case.sha256:
            return f"the {role} case changed since it was recorded (case sha256 {case.sha256[:12]}…)"
    if run.get("simulates") != repro.simulates:
        return "the pair's `simulates` changed since it was recorded"
    if run.get("passed") != bool(run["error"].get("passed") and run["fix"].get("passed")):
        return "its `passed` disagrees with its cases'"
    if run["error"].get("expect") != repro.error.expect or run["fix"].get("reach") != repro.fix.reach:
        return "its `expect` or `reach` is not the case's"
    return None


def trusted_runs(repros: list[Reproduction], record: dict | None) -> dict[str, dict]:
    """The runs of an entry's record that a page may show, by record key: none when the
    record does not validate against ``record.schema.json``, and only the runs of the
    entry's pairs as they are now written (``run_mismatch``). A hand-edited, malformed or
    stale record shows no badge."""
    if not isinstance(record, dict) or record_errors(record):
        return {}
    runs = record["runs"]
    return {repro.record_key: runs[repro.record_key] for repro in repros
            if repro.record_key in runs and run_mismatch(repro, runs[repro.record_key]) is None}


def trusted_record(repros: list[Reproduction], record: dict | None) -> dict | None:
    """``record`` with only its trusted runs (``trusted_runs``); None when none is left."""
    runs = trusted_runs(repros, record)
    return {"entry": record["entry"], "runs": runs} if runs else None


SANDBOXED = "bwrap"  # how an isolation sentence of a sandboxed run starts (generator/repro/sandbox.py)


def badges(repros: list[Reproduction], record: dict | None, pin_version: str) -> list[Badge]:
    """One badge per pair of the entry, from its latest trusted run on that pair's tier; pairs
    whose badges would read alike share one, which counts them."""
    runs = trusted_runs(repros, record)
    out = []
    for repro in repros:
        run = runs.get(repro.record_key)
        if run is None:
            text = "Not yet run on a GPU" if repro.tier == "cuda" else "Not yet reproduced on CPU"
            out.append(Badge(text, "pending"))
            continue
        version = (run.get("environment") or {}).get("vllm") or "?"
        where = f"on {_gpu_name(run['environment'])}" if repro.tier == "cuda" else "on CPU"
        if repro.simulates and repro.tier == "cpu":
            where = f"on CPU, simulating {repro.simulates}"
        # A run outside the sandbox says so on its badge.
        unsandboxed = "" if run.get("isolation", "").startswith(SANDBOXED) else " · not sandboxed (rlimits only)"
        if not run.get("passed"):
            out.append(Badge(f"Failed to reproduce {where} · vLLM {version} · {run['date']}{unsandboxed}", "failed"))
        elif version != pin_version:
            out.append(Badge(f"Stale: reproduced {where} with vLLM {version}, not the pinned {pin_version} · {run['date']}{unsandboxed}", "stale"))
        elif repro.tier == "cuda":
            out.append(Badge(f"Verified {where} · vLLM {version} · {run['date']}{unsandboxed}", "passed"))
        else:
            out.append(Badge(f"Error and fix reproduced {where} · vLLM {version} · {run['date']}{unsandboxed}", "passed"))
    return _counted(out)


def _counted(badges: list[Badge]) -> list[Badge]:
    """Badges that read alike (two CPU pairs run on the same day) as one, saying how many pairs;
    two identical badges side by side read as a mistake."""
    counts = Counter(badges)
    return [Badge(f"{badge.text} · {counts[badge]} pairs", badge.state) if counts[badge] > 1 else badge
            for badge in dict.fromkeys(badges)]


# ---------------------------------------------------------------- what a page shows

INLINE_LINES = 20  # longer cases are linked from the page as files of their own, to keep pages small

REACH_WORDS = {
    "engine-config": "vLLM built the engine configuration (every configuration check passed)",
    "health": "the server answered its health check",
    "return": "the code ran to its end",
    "exit-0": "the command exited with status 0",
}


def _case_view(case: ReproCase) -> dict:
    if case.kind == "cli":
        env = " ".join(f"{k}={v}" for k, v in case.env)
        text = " ".join(_shell_word(a) for a in case.argv)
        return {"lang": "sh", "text": f"{env} {text}".strip()}
    env = "".join(f"import os; os.environ[{k!r}] = {v!r}\n" for k, v in case.env)
    return {"lang": "python", "text": env + case.code.rstrip("\n")}


def _fix_diff(error: dict, fix: dict) -> str | None:
    """The fix snippet as its changes to the error snippet, when it is mostly the same
    code (the usual case: one argument changed), so a page shows what the fix is."""
    if error["lang"] != "python" or fix["lang"] != "python":
        return None
    before, after = error["text"].splitlines(), fix["text"].splitlines()
    if len(after) < 6 or difflib.SequenceMatcher(None, before, after).ratio() < 0.7:
        return None
    lines = list(difflib.unified_diff(before, after, "error case", "fix case", n=1, lineterm=""))
    return "\n".join(lines)


def _shell_word(word: str) -> str:
    """A word as a person would type it in a POSIX shell."""
    if word and all(c.isalnum() or c in "-_./=:,+@%" for c in word):
        return word
    return "'" + word.replace("'", "'\"'\"'") + "'"


def reproduction_views(repros: list[Reproduction], record: dict | None, pin_version: str) -> list[dict]:
    """Per pair of an entry: its badge, what kind of verification it is, the two cases as
    a person would run them, and the latest trusted run (``trusted_runs``): its outcome,
    environment and isolation (the sandbox it ran in). A record that does not validate
    gives no run and no badge."""
    runs = trusted_runs(repros, record)
    views = []
    for repro, badge in zip(repros, badges(repros, record, pin_version)):
        run = runs.get(repro.record_key)
        error, fix = _case_view(repro.error), _case_view(repro.fix)
        for role, view in (("error", error), ("fix", fix)):
            view["file"] = f"reproduce/{repro.entry}/{repro.record_key}-{role}.{'py' if view['lang'] == 'python' else 'sh'}"
            view["lines"] = view["text"].count("\n") + 1
        views.append({
            "tier": repro.tier,
            "kind": repro.verification_kind(),
            "simulates": repro.simulates,
            "badge": {"text": badge.text, "state": badge.state},
            "error": error | {"expect": repro.error.expect},
            "fix": fix | {"reach": REACH_WORDS[repro.fix.reach or "return"], "diff": _fix_diff(error, fix)},
            "requirements": _requirements(repro),
            "run": run,
            "isolation": run.get("isolation") if run else None,
        })
    return views


def _requirements(repro: Reproduction) -> str:
    if repro.tier == "cpu":
        return "CPU only: VLLM_TARGET_DEVICE=cpu, no GPU, no weights (load_format dummy)"
    parts = ["an NVIDIA GPU"]
    case = repro.error
    if case.min_gpu_memory_gib:
        parts.append(f"at least {case.min_gpu_memory_gib:g} GiB of GPU memory")
    if case.max_compute_capability:
        parts.append(f"compute capability {case.max_compute_capability:g} or lower")
    return ", ".join(parts)
