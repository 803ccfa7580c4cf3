"""Loading curated entries: data, exact positions, and every schema problem at once."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import yaml

from generator.entries.load import load_entries, load_entry
from generator.entries.problems import Problem
from generator.entries.schema import SCHEMA_LINE
from generator.entries.skeleton import involved_args, slug_from_template, title_from_template

ENTRY = SCHEMA_LINE + "\n" + textwrap.dedent(
    """\
    ids: [a000000000000001, a000000000000002]
    title: Fewer blocks than sequences
    summary: >-
      A summary that is long
      enough for the schema.
    explanation: |
      First paragraph.

      See [the other error](../a000000000000003/) for more.
    causes:
      - The default max_num_seqs.
      - "A quoted cause."
    solutions:
      - title: Lower max_num_seqs
        why: Fewer sequences need fewer blocks.
        commands:
          vllm: vllm serve M --max-num-seqs 128
          python: LLM(model="M", max_num_seqs=128)
      - title: More memory
        why: >-
          More memory,
          more blocks; see [docs](https://docs.vllm.ai/).
        commands: {vllm: "vllm serve M --gpu-memory-utilization 0.95"}
    faq:
      - q: Does it cost throughput?
        a: |-
          No.
          Not below what the hardware allows.
    tags: [memory, mamba]
    """
)


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_an_entry_loads_as_data(tmp_path):
    write(tmp_path / "errors", "fewer-blocks.yaml", ENTRY)
    (entry,), problems = load_entries(tmp_path / "errors", tmp_path)
    assert problems == []
    assert (entry.path, entry.slug) == ("errors/fewer-blocks.yaml", "fewer-blocks")
    assert entry.ids == ["a000000000000001", "a000000000000002"]
    assert entry.summary == "A summary that is long enough for the schema."
    assert entry.causes == ["The default max_num_seqs.", "A quoted cause."]
    assert entry.solutions[1]["commands"] == {"vllm": "vllm serve M --gpu-memory-utilization 0.95"}
    assert entry.faq[0]["a"] == "No.\nNot below what the hardware allows."
    assert (entry.references, entry.reproduce, entry.tags) == ([], {}, ["memory", "mamba"])


def test_positions_are_exact_for_nested_keys(tmp_path):
    (entry,), _ = load_entries(write(tmp_path, "x.yaml", ENTRY).parent, tmp_path)
    p = entry.positions
    assert p[()] == (2, 1)
    assert p[("ids",)] == (2, 6) and p[("ids", 1)] == (2, 25)
    assert p[("title",)] == (3, 8)
    assert p[("summary",)] == (4, 10)  # a block scalar starts at its indicator
    assert p[("causes", 1)] == (13, 5)
    assert p[("solutions", 0)] == (15, 5)
    assert p[("solutions", 0, "commands", "vllm")] == (18, 13)
    assert p[("solutions", 0, "commands", "python")] == (19, 15)
    assert p[("solutions", 1, "why")] == (21, 10)
    assert p[("solutions", 1, "commands")] == (24, 15)
    assert p[("solutions", 1, "commands", "vllm")] == (24, 22)
    assert p[("faq", 0, "a")] == (27, 8)
    assert p[("tags", 1)] == (30, 16)
    assert entry.key_positions[("solutions", 1, "commands")] == (24, 5)
    assert entry.position(("solutions", 0, "commands", "ollama")) == (18, 7)  # nearest written ancestor
    # Text inside a value: at its own line, whatever the scalar style.
    assert entry.locate(("explanation",), "(../a000000000000003/)") == (10, 24)
    assert entry.locate(("solutions", 1, "why"), "[docs]") == (23, 24)
    assert entry.locate(("faq", 0, "a"), "Not below") == (29, 7)
    assert entry.locate(("solutions", 0, "commands", "vllm"), "--max-num-seqs") == (18, 26)
    assert entry.locate(("title",), "not there") == (3, 8)


def test_all_schema_problems_are_reported_at_once(tmp_path):
    write(tmp_path, "bad.yaml", SCHEMA_LINE + "\n" + textwrap.dedent(
        """\
        ids: [A1, a000000000000001, a000000000000001]
        title: Hi
        solutions:
          - title: Fix it
            why: 12
            commands: {}
            extra: true
          - why: ok
        faq:
          - {q: Question?, a: Answer here., x: 1}
        references:
          - url: http://example.com
            title: Example
        tags: [Memory]
        """
    ))
    entries, problems = load_entries(tmp_path, tmp_path)
    assert len(entries) == 1  # still usable: the checks that need the catalog run on it too
    assert [(p.line, p.col) for p in problems] == [
        (2, 1), (2, 7), (2, 29), (3, 8), (6, 10), (7, 15), (8, 5), (9, 5), (9, 10), (11, 37), (13, 10), (15, 8),
    ], "\n".join(map(str, problems))
    messages = [p.message for p in problems]
    assert messages[0].startswith("the entry is missing the required field `summary`: add `summary:`")
    assert messages[1].startswith("`ids[0]` 'A1' is not an error id: an id is 16 lowercase hex digits")
    assert messages[2] == "`ids[2]` 'a000000000000001' is listed twice in `ids`: remove one"
    assert messages[4] == "`solutions[0].why` must be a string, not a number"
    assert any("`title` is too short (2 characters): write at least 5" == m for m in messages)
    assert any(m.startswith("unknown field `solutions[0].extra`") for m in messages)
    assert any(m.startswith("`solutions[0].commands` is empty: give at least one of vllm, python, ollama, llama.cpp") for m in messages)
    assert any(m.startswith("`solutions[1]` is missing the required field `title`") for m in messages)
    assert any(m.startswith("unknown field `faq[0].x`") for m in messages)
    assert any(m.startswith("`references[0].url` 'http://example.com' must be an https:// URL") for m in messages)
    assert any(m.startswith("`tags[0]` 'Memory' is not a tag") for m in messages)
    assert all(str(p).startswith(f"bad.yaml:{p.line}:{p.col}: ") for p in problems)


def test_problem_prints_as_path_line_col_message():
    assert str(Problem("errors/x.yaml", 12, 5, "message")) == "errors/x.yaml:12:5: message"


def test_yaml_syntax_error_is_one_problem_at_its_mark(tmp_path):
    write(tmp_path, "x.yaml", SCHEMA_LINE + "\nids: [a000000000000001\ntitle: x\n")
    entries, problems = load_entries(tmp_path, tmp_path)
    assert entries == []
    assert [(p.line, p.col) for p in problems] == [(3, 6)]
    assert problems[0].message.startswith("YAML syntax error: ")


@pytest.mark.parametrize("text, message", [
    ("", "the entry is empty"),
    (SCHEMA_LINE + "\n- a\n- b\n", "the entry is a list"),
])
def test_a_document_that_is_not_a_mapping_is_not_an_entry(tmp_path, text, message):
    entry, problems = load_entry(write(tmp_path, "x.yaml", text), tmp_path)
    assert entry is None and any(p.message.startswith(message) for p in problems)


def test_the_schema_line_must_come_first_exactly(tmp_path):
    write(tmp_path, "a.yaml", ENTRY.replace(SCHEMA_LINE, "# yaml-language-server: $schema=entry.schema.json"))
    write(tmp_path, "b.yaml", ENTRY.replace(SCHEMA_LINE + "\n", ""))
    entries, problems = load_entries(tmp_path, tmp_path)
    assert len(entries) == 2
    assert [(p.path, p.line, p.col) for p in problems] == [("a.yaml", 1, 1), ("b.yaml", 1, 1)]
    assert all(SCHEMA_LINE in p.message for p in problems)


def test_a_file_that_is_not_utf8_is_a_problem(tmp_path):
    (tmp_path / "x.yaml").write_bytes(SCHEMA_LINE.encode() + b"\ntitle: caf\xe9\n")
    entries, problems = load_entries(tmp_path, tmp_path)
    assert entries == [] and problems[0].message.startswith("the file is not UTF-8")


def test_values_of_the_wrong_shape_keep_indexes_aligned(tmp_path):
    write(tmp_path, "x.yaml", ENTRY.replace("  - \"A quoted cause.\"", "  - 3").replace("tags: [memory, mamba]", "tags: 5"))
    (entry,), problems = load_entries(tmp_path, tmp_path)
    assert entry.causes == ["The default max_num_seqs.", ""] and entry.tags == []
    assert [(p.line, p.col) for p in problems] == [(13, 5), (30, 7)]


# --- a new entry's name and title ------------------------------------------------------------------


MAMBA = ("max_num_seqs ({max_num_reqs}) exceeds available Mamba cache blocks ({kv_cache_config.num_blocks}). "
         "Each decode sequence requires one Mamba cache block, so CUDA graph capture cannot proceed. "
         "Please lower max_num_seqs to at most {kv_cache_config.num_blocks} or increase gpu_memory_utilization.")


@pytest.mark.parametrize("template, title, slug", [
    (MAMBA, "max_num_seqs exceeds available Mamba cache blocks", "max-num-seqs-exceeds-available-mamba"),
    ("Invalid repository ID or local directory specified: '{model}'.", "Invalid repository ID or local directory specified",
     "invalid-repository-id-or-local-directory"),
    ("Model architectures {archs} are not supported for now. Supported: {x}", "Model architectures … are not supported for now",
     "model-architectures-are-not-supported"),
    ("{x}", "ValueError in ModelConfig.verify", "value-error-a0000000"),
    ("", "ValueError in ModelConfig.verify", "value-error-a0000000"),
])
def test_title_and_slug_come_from_the_message_start(template, title, slug):
    assert title_from_template("ValueError", template, "ModelConfig.verify") == title
    assert slug_from_template("ValueError", template, "a000000000000001") == slug


def test_involved_args_are_engine_args_named_by_the_error():
    from generator.vllm.engine_args import EngineArg

    def arg(name):
        return EngineArg(name, "--" + name.replace("_", "-"), "int", "1", "", "", "", False)

    args = [arg(n) for n in ("max_num_seqs", "gpu_memory_utilization", "model", "max_model_len", "dtype", "seed")]
    error = {"template": MAMBA + " Set `dtype` or --max-model-len; the model is fine.",
             "sites": [{"placeholders": ["max_num_reqs"], "guard": ["seed is None and self.model_config.max_model_len > 2"]}]}
    assert [a.name for a in involved_args(error, args)] == ["max_num_seqs", "gpu_memory_utilization", "dtype", "max_model_len"]


def test_a_skeleton_of_an_id_of_digits_keeps_it_a_string():
    """Five errors at v0.33.0 have ids of digits alone; unquoted, YAML would read a number."""
    from generator.entries.skeleton import new_entry

    error = {"id": "1108393816497648", "exception": "ValueError", "template": "bad value {x}", "has_message": True,
             "sites": [{"path": "vllm/a.py", "line": 3, "function": "f", "guard": ["x < 0"], "placeholders": ["x"],
                        "comment": None, "excerpt": "if x < 0:\n    raise ValueError(...)", "excerpt_line": 2}]}
    _, text = new_entry(error, [], "v0.33.0")
    assert yaml.safe_load(text)["ids"] == ["1108393816497648"]


def test_an_entry_that_cannot_be_read_is_a_problem_not_a_crash(tmp_path):
    (tmp_path / "folder.yaml").mkdir()
    entries, problems = load_entries(tmp_path, tmp_path)
    assert entries == [] and [str(p) for p in problems] == [
        "folder.yaml:1:1: the entry cannot be read (Is a directory): an entry is a plain YAML file"]
