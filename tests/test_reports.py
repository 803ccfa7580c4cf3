"""errors/reports.yaml: loaded safely, every bad item a `path:line:col` problem, ids and messages
checked against the catalog and the lookup, and what the site makes of the reports."""

from __future__ import annotations

from pathlib import Path

from generator.entries.load import load_entries
from generator.entries.reports import Report, load_reports, report_counts, report_examples, report_problems
from generator.lookup.index import compact_index, matcher_from_index

MAMBA = "c8f7b9d6b5fb8793"
CATALOG = {"revision": "v1", "errors": [
    {"id": MAMBA, "exception": "ValueError", "has_message": True,
     "template": "max_num_seqs ({max_num_reqs}) exceeds available Mamba cache blocks ({num_blocks}).",
     "sites": [{"path": "vllm/a.py", "line": 1, "function": "f",
                "template": "max_num_seqs ({max_num_reqs}) exceeds available Mamba cache blocks ({num_blocks})."}]},
    {"id": "a000000000000001", "exception": "ValueError", "has_message": True, "template": "something else entirely",
     "sites": [{"path": "vllm/b.py", "line": 1, "function": "g", "template": "something else entirely"}]},
]}


def lookup(text: str) -> list[str]:
    matches, _ = matcher_from_index(compact_index([CATALOG])).lookup(text, top=3)
    return [m.error.id for m in matches if m.score == matches[0].score]


def test_good_reports_load_and_count(tmp_path: Path):
    (tmp_path / "reports.yaml").write_text(
        "reports:\n"
        f"  - id: \"{MAMBA}\"\n    url: https://github.com/vllm-project/vllm/issues/49064\n"
        "    message: \"ValueError: max_num_seqs (256) exceeds available Mamba cache blocks (161).\"\n"
        f"  - id: \"{MAMBA}\"\n    url: https://github.com/vllm-project/vllm/pull/38632\n")
    reports, problems = load_reports(tmp_path, tmp_path)
    assert problems == [] and len(reports) == 2
    assert report_counts(reports) == {MAMBA: 2}
    assert report_examples(reports)[MAMBA].message.endswith("cache blocks (161).")
    assert report_problems(reports, "reports.yaml", {MAMBA}, lookup) == []
    entries, problems = load_entries(tmp_path, tmp_path)  # not read as an entry
    assert entries == [] and problems == []


def test_bad_reports_are_problems_at_their_place(tmp_path: Path):
    (tmp_path / "reports.yaml").write_text(
        "reports:\n"
        "  - id: c8f7\n    url: https://x.example/1\n"
        f"  - id: \"{MAMBA}\"\n    url: javascript:alert(1)\n"
        f"  - id: \"{MAMBA}\"\n    url: https://x.example/2\n    extra: 1\n"
        "  - id: \"a000000000000001\"\n    url: https://x.example/3\n"
        "    message: \"ValueError: max_num_seqs (256) exceeds available Mamba cache blocks (161).\"\n"
        "  - id: \"b000000000000001\"\n    url: https://x.example/4\n")
    reports, problems = load_reports(tmp_path, tmp_path)
    assert [str(p) for p in problems] == [
        "reports.yaml:2:9: `id` must be an error id: 16 hex digits, in quotes (or a foreign error's id, such as "
        "torch-cuda-out-of-memory)",
        "reports.yaml:5:10: `url` must be the report's https:// address",
        "reports.yaml:8:12: unknown key `extra`: a report has id, url, message and gathered",
    ]
    found = [str(p) for p in report_problems(reports, "reports.yaml", {MAMBA, "a000000000000001"}, lookup)]
    assert found == [
        "reports.yaml:9:5: report of a000000000000001: the lookup does not name this id for its message; "
        "paste the message as vLLM printed it",
        "reports.yaml:12:5: report of b000000000000001: the id is not raised by the releases covered",
    ]


def test_an_alias_is_refused(tmp_path: Path):
    (tmp_path / "reports.yaml").write_text("reports: &a\n  - *a\n")
    reports, problems = load_reports(tmp_path, tmp_path)
    assert reports == [] and problems and problems[0].path == "reports.yaml"


def test_no_file_is_no_reports(tmp_path: Path):
    assert load_reports(tmp_path, tmp_path) == ([], [])
    assert isinstance(Report("a" * 16, "https://x"), Report)


def test_the_day_reports_were_gathered_is_the_files_or_the_items(tmp_path: Path):
    from generator.entries.reports import reports_gathered

    (tmp_path / "reports.yaml").write_text(
        "gathered: 2026-11-30\nreports:\n"
        f"  - id: \"{MAMBA}\"\n    url: https://github.com/vllm-project/vllm/issues/1\n"
        f"  - id: \"{MAMBA}\"\n    url: https://github.com/vllm-project/vllm/issues/2\n    gathered: \"2026-12-01\"\n")
    reports, problems = load_reports(tmp_path, tmp_path)
    assert problems == [] and [r.gathered for r in reports] == ["2026-11-30", "2026-12-01"]
    assert reports_gathered(reports) == "2026-12-01"
    (tmp_path / "reports.yaml").write_text("gathered: last week\nwhen: now\nreports: []\n")
    _, problems = load_reports(tmp_path, tmp_path)
    assert [str(p) for p in problems] == [
        "reports.yaml:1:11: `gathered` must be the day the reports were gathered, as YYYY-MM-DD",
        "reports.yaml:2:7: unknown key `when`: the file has `gathered:` and `reports:`"]
