"""``errorkb verify``: run every entry's cases on a tier and record what happened.

Planning (which pairs run), judging (``generator/reproduce.py``) and the records are
plain functions; the runners of ``generator/harness.py`` do the running.
"""

from __future__ import annotations

import json
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
    merge_record,
    pair_key,
    reproductions,
    tier_record,
    watch_targets,
)

# Set for every case: the CPU tier needs vLLM told there is no GPU; no case may reach
# the network (models are local config.json files with dummy weights).
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


def requests_for(repro: Reproduction, errors_by_id: dict[str, dict], root: Path, watch: bool) -> tuple[CaseRequest, CaseRequest]:
    env = tuple(sorted(TIER_ENV[repro.tier].items()))
    error = CaseRequest(f"{repro.label}:error", repro.error, str(root), (), env)
    targets = watch_targets(repro.fix, errors_by_id.get(repro.error.expect or "")) if watch else []
    fix = CaseRequest(f"{repro.label}:fix", repro.fix, str(root), tuple(targets), env)
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

    def record(self, environment: dict, date: str) -> dict:
        return tier_record(
            self.repro, environment, date,
            case_record(self.repro.error, self.error_run, self.error_verdict),
            case_record(self.repro.fix, self.fix_run, self.fix_verdict),
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


def record_path(folder: Path, slug: str) -> Path:
    return folder / f"{slug}.json"


def load_record(folder: Path, slug: str) -> dict | None:
    path = record_path(folder, slug)
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def load_records(folder: Path) -> dict[str, dict]:
    """Every entry's record, by slug (for the site)."""
    if not folder.is_dir():
        return {}
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))}


def updated_records(folder: Path, results: list[PairResult], environment: dict, date: str) -> dict[str, str]:
    """The record files to write (path -> text): each entry's file with this run's tiers replaced."""
    out: dict[str, dict] = {}
    for result in results:
        if result.skipped:
            continue  # a pair that could not run here says nothing about the entry
        slug = result.repro.entry
        previous = out.get(slug) or load_record(folder, slug)
        out[slug] = merge_record(previous, slug, result.record(environment, date))
    return {str(record_path(folder, slug)): json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
            for slug, data in sorted(out.items())}
