"""``errors/reports.yaml``: where people met vLLM's errors, one public report per item.

Each report names an error id, the report's URL and, optionally, the message as vLLM
printed it there. The site orders the home page's curated errors by their reports and
shows a report's message on its error's page when the page has no example of its own;
``errorkb check`` checks every item (``report_problems``): the file is read with the
entries' own loader (no anchors or aliases, a size cap, a regular file), ids are 16 hex
digits, URLs are https://, and the lookup must name the report's id for its message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from generator.entries.load import _Composed, _relative, read_entry_text
from generator.entries.problems import Problem

REPORTS_FILE = "reports.yaml"
_ID = re.compile(r"^[0-9a-f]{16}$")
_FOREIGN_ID = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)+$")  # generator/lookup/foreign.yaml's ids
_URL = re.compile(r"^https://[^\s]+$")
MAX_MESSAGE = 2000


@dataclass(frozen=True)
class Report:
    id: str
    url: str
    message: str = ""
    gathered: str = ""  # the day the report was found (YYYY-MM-DD): the item's, else the file's
    line: int = 0  # where the item starts in the file
    col: int = 0


def read_list_file(file: Path, root: Path, key: str, shape: str):
    """The items of ``file``'s ``key:`` list, with the composed document (for the items'
    positions), or the problems of the file's shape. None and no problems when there is
    no such file. The file is read as entries are (no anchors or aliases, a size cap, a
    regular file); ``shape`` says what the file must hold."""
    if not file.exists() and not file.is_symlink():
        return None, []
    path = _relative(file, root)
    text, problem = read_entry_text(file, path)
    if problem is not None:
        return None, [problem]
    try:
        composed = _Composed(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        return None, [Problem(path, mark.line + 1 if mark else 1, mark.column + 1 if mark else 1,
                              f"YAML error: {getattr(exc, 'problem', None) or exc}; fix the YAML")]
    if composed.problems:
        return None, [Problem(path, line, col, message) for (line, col), message in composed.problems]
    if not isinstance(composed.data, dict) or not isinstance(composed.data.get(key), list):
        return None, [Problem(path, 1, 1, f"the file must be a mapping with a `{key}:` list of {shape}")]
    return composed, []


def load_reports(folder: Path, root: Path) -> tuple[list[Report], list[Problem]]:
    """The reports of ``folder/reports.yaml`` (none when there is no such file) and the
    problems of the file's shape; a report with a problem is left out."""
    file = Path(folder) / REPORTS_FILE
    composed, problems = read_list_file(file, root, "reports", "{id, url, message, gathered}")
    if composed is None:
        return [], problems
    path = _relative(file, root)
    data = composed.data
    reports, problems = [], []
    unknown_top = sorted(set(map(str, data)) - {"reports", "gathered"})
    if unknown_top:
        problems.append(Problem(path, *composed.positions.get((unknown_top[0],), (1, 1)),
                                f"unknown key `{unknown_top[0]}`: the file has `gathered:` and `reports:`"))
    default_day, day_problem = _day(data.get("gathered", ""))
    if day_problem:
        problems.append(Problem(path, *composed.positions.get(("gathered",), (1, 1)), f"`gathered` {day_problem}"))
    for index, item in enumerate(data["reports"]):
        line, col = composed.positions.get(("reports", index), (1, 1))
        where = lambda key: composed.positions.get(("reports", index, key), (line, col))  # noqa: E731
        if not isinstance(item, dict):
            problems.append(Problem(path, line, col, "a report is a mapping with id, url and optionally message"))
            continue
        unknown = sorted(set(map(str, item)) - {"id", "url", "message", "gathered"})
        found = []
        if unknown:
            found.append(Problem(path, *where(unknown[0]), f"unknown key `{unknown[0]}`: a report has id, url, message and gathered"))
        if not isinstance(item.get("id"), str) or not (_ID.match(item["id"]) or _FOREIGN_ID.match(item["id"])):
            found.append(Problem(path, *where("id"), "`id` must be an error id: 16 hex digits, in quotes (or a "
                                                     "foreign error's id, such as torch-cuda-out-of-memory)"))
        if not isinstance(item.get("url"), str) or not _URL.match(item["url"]):
            found.append(Problem(path, *where("url"), "`url` must be the report's https:// address"))
        message = item.get("message", "")
        if not isinstance(message, str) or len(message) > MAX_MESSAGE:
            found.append(Problem(path, *where("message"), f"`message` must be text of at most {MAX_MESSAGE} characters"))
        day, day_problem = _day(item.get("gathered", default_day))
        if day_problem:
            found.append(Problem(path, *where("gathered"), f"`gathered` {day_problem}"))
        if found:
            problems.extend(found)
            continue
        reports.append(Report(item["id"], item["url"], " ".join(message.split()), day, line, col))
    return reports, sorted(problems)


def _day(value) -> tuple[str, str]:
    """(YYYY-MM-DD, problem): a day as YAML reads it (a date, or the same text quoted)."""
    text = value.isoformat() if hasattr(value, "isoformat") else value
    if text == "" or (isinstance(text, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", text)):
        return text, ""
    return "", "must be the day the reports were gathered, as YYYY-MM-DD"


def reports_gathered(reports: list[Report]) -> str:
    """The latest day a report was gathered ("" when none says)."""
    return max((r.gathered for r in reports), default="")


def report_problems(reports: list[Report], path: str, known: set[str], lookup=None) -> list[Problem]:
    """What the file's shape cannot show: ids not raised by any release covered, and messages
    for which the lookup (``lookup(text)``: the ids tied first) does not name the report's id."""
    problems = []
    for report in reports:
        if report.id not in known:
            problems.append(Problem(path, report.line, report.col, f"report of {report.id}: the id is not raised by the releases covered"))
        elif lookup is not None and report.message and report.id not in lookup(report.message):
            problems.append(Problem(path, report.line, report.col, f"report of {report.id}: the lookup does not name this id for its "
                                                          "message; paste the message as vLLM printed it"))
    return problems


def report_counts(reports: list[Report]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for report in reports:
        counts[report.id] = counts.get(report.id, 0) + 1
    return counts


def report_examples(reports: list[Report]) -> dict[str, Report]:
    """Per id, the shortest reported message (the plainest example)."""
    best: dict[str, Report] = {}
    for report in reports:
        if report.message and (report.id not in best or len(report.message) < len(best[report.id].message)):
            best[report.id] = report
    return best
