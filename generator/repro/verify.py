"""``errorkb verify``: run every entry's cases on a tier and record what happened.

Planning (which pairs run) and judging (``cases.py``) are plain functions; the runners
of ``harness.py`` do the running (``run_pairs``); ``records.py`` keeps what was seen.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from generator.entries.load import ErrorEntry
from generator.repro.harness import CaseRequest
from generator.repro.cases import (
    CaseRun,
    CaseVerdict,
    Reproduction,
    case_record,
    judge_error,
    judge_fix,
    pair_key,
    reproductions,
    tier_record,
    watch_targets,
)

# Set for every case: the CPU tier needs vLLM told there is no GPU; no case needs the
# network (models are local config.json files with dummy weights), and the sandbox has
# none (generator/repro/sandbox.py).
TIER_ENV = {
    "cpu": {"VLLM_TARGET_DEVICE": "cpu", "HF_HUB_OFFLINE": "1", "VLLM_NO_USAGE_STATS": "1", "DO_NOT_TRACK": "1"},
    "cuda": {"HF_HUB_OFFLINE": "1", "VLLM_NO_USAGE_STATS": "1", "DO_NOT_TRACK": "1"},
}


def entry_reproductions(entry: ErrorEntry) -> list[Reproduction]:
    return reproductions(entry.slug, entry.path, entry.reproduce)


def plan(entries: list[ErrorEntry], tier: str, selected: list[str]) -> list[Reproduction]:
    """The pairs to run on ``tier``; ``selected`` (entry slugs or error ids) narrows them."""
    wanted = set(selected)
    out = []
    for entry in sorted(entries, key=lambda e: e.slug):
        if wanted and entry.slug not in wanted and not wanted & set(entry.ids):
            continue
        out.extend(r for r in entry_reproductions(entry) if r.tier == tier)
    return out


def unknown_selections(entries: list[ErrorEntry], selected: list[str]) -> list[str]:
    known = {e.slug for e in entries} | {i for e in entries for i in e.ids}
    return [s for s in selected if s not in known]


def requests_for(repro: Reproduction, errors_by_id: dict[str, dict], root: Path | None, watch: bool) -> tuple[CaseRequest, CaseRequest]:
    """The pair's two requests. ``root`` is not used: a case runs in a fresh folder of its
    sandbox (with a copy of ``models/``), never in the repository."""
    env = tuple(sorted(TIER_ENV[repro.tier].items()))
    error = CaseRequest(f"{repro.label}:error", repro.error, (), env)
    targets = watch_targets(repro.fix, errors_by_id.get(repro.error.expect or "")) if watch else []
    fix = CaseRequest(f"{repro.label}:fix", repro.fix, tuple(targets), env)
    return error, fix


@dataclass
class PairResult:
    repro: Reproduction
    error_run: CaseRun
    fix_run: CaseRun
    error_verdict: CaseVerdict
    fix_verdict: CaseVerdict

    @property
    def passed(self) -> bool:
        return self.error_verdict.passed and self.fix_verdict.passed

    @property
    def skipped(self) -> str | None:
        """Why the pair could not run on this machine (a CUDA case sized for another GPU), or None."""
        for run in (self.error_run, self.fix_run):
            if run.outcome == "not-run":
                return run.reason
        return None

    @property
    def isolation(self) -> str:
        """The sandbox the pair's cases ran in (both, normally, in the same one)."""
        error, fix = self.error_run.isolation, self.fix_run.isolation
        if error == fix or not fix:
            return error
        return fix if not error else f"error case: {error}; fix case: {fix}"

    def record(self, environment: dict, date: str) -> dict:
        return tier_record(
            self.repro, environment, date,
            case_record(self.repro.error, self.error_run, self.error_verdict),
            case_record(self.repro.fix, self.fix_run, self.fix_verdict),
            self.isolation,
        )


def judge_pair(repro: Reproduction, error_run: CaseRun, fix_run: CaseRun, match: Callable[[str], str | None],
               watched: bool) -> PairResult:
    return PairResult(repro, error_run, fix_run, judge_error(repro.error, error_run, match),
                      judge_fix(repro.fix, fix_run, watched))


def problems(results: list[PairResult], entries: dict[str, ErrorEntry]) -> list[str]:
    """``errors/x.yaml:LINE:COL: error case: what happened`` for each case that did not behave as documented."""
    lines = []
    for result in results:
        if result.skipped:
            continue
        entry = entries[result.repro.entry]
        key = pair_key(result.repro.index, result.repro.several)
        for role, verdict in (("error", result.error_verdict), ("fix", result.fix_verdict)):
            if not verdict.passed:
                line, col = entry.position((*key, role))
                lines.append(f"{entry.path}:{line}:{col}: {result.repro.tier} {role} case: {verdict.summary}")
    return lines


def run_pairs(runner, repros: list[Reproduction], pairs: list[tuple[CaseRequest, CaseRequest]],
              match: Callable[[str], str | None], watched: bool,
              on_result: Callable[[PairResult], None] | None = None) -> list[PairResult]:
    """Run each pair's error and fix case on ``runner`` and judge them, in order.

    A runner that schedules many cases at once (``run_all``, Ray) is given them all in
    one go and its runs are taken back two by two, in the order they were given.
    """
    if hasattr(runner, "run_all"):
        runs = iter(runner.run_all([request for pair in pairs for request in pair]))
        ran = zip(runs, runs)
    else:
        ran = ((runner.run(error), runner.run(fix)) for error, fix in pairs)
    results = []
    for repro, (error_run, fix_run) in zip(repros, ran):
        results.append(judge_pair(repro, error_run, fix_run, match, watched))
        if on_result is not None:
            on_result(results[-1])
    return results
