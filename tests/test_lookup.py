"""Lookup: cleaning pastes, matching templates, and accuracy on real reports."""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from generator.lookup.cache import STORED_KEPT, mark_used, prune_stored
from generator.lookup.clean import clean_paste, squash
from generator.lookup.foreign import last_exception
from test_corpus import RELEASES  # errorkb.toml's [history] releases
from generator.lookup.match import STOP_GRAM_ENTRIES, LookupError_, Matcher, error_title, fill
from generator.scan.ids import split_template
from generator.lookup.index import compact_index, groups_of, matcher_from_index, pack_groups, problem_groups

DATA = Path(__file__).resolve().parent / "data"
VECTORS = json.loads((DATA / "lookup_vectors.json").read_text(encoding="utf-8"))
PASTES = sorted((DATA / "pastes").glob("*.json"))
ROOT = Path(__file__).resolve().parents[1]


def tiny_matcher(*templates: tuple[str, ...]) -> Matcher:
    """A matcher over a few (exception or log level, template[, kind]) errors, ids e0, e1, ..."""
    errors = [
        LookupError_(id=f"e{i}", exception=exc, template=t, title=error_title(exc, t), url="", versions=["v1"], sites=[],
                     kind=kind[0] if kind else "raise")
        for i, (exc, t, *kind) in enumerate(templates)
    ]
    return Matcher(errors, [[error.template] for error in errors])


def top(matcher: Matcher, text: str) -> str | None:
    matches, _ = matcher.lookup(text)
    return matches[0].error.id if matches else None


# --- cleaning ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "ERROR 11-18 18:07:28 engine.py:366] ValueError: boom",
        "ERROR 11-18 18:07:28 [core.py:710] ValueError: boom",
        "(APIServer pid=1) ERROR 09-01 10:00:00.123 [entrypoints/openai/serving.py:1267] ValueError: boom",
        "(EngineCore_DP0 pid=316) ValueError: boom",
        "[rank0]: ValueError: boom",
        "vllm-1  | (VllmWorker TP0 pid=12) ERROR 11-18 18:07:28 [core.py:710] ValueError: boom",
        "2025-01-02 03:04:05,678 - ValueError: boom",
        "\x1b[1;31mValueError: boom\x1b[0m",
        "2025-06-05T16:30:08.123456789Z stderr F ValueError: boom",  # a container runtime's log file (CRI)
        "2024-12-19 21:40:35 ERROR 56542 [async_llm_engine.py:64] ValueError: boom",  # another format: a pid, not a date
        "Dec  1 10:00:00 gpu-host vllm[1234]: ValueError: boom",  # syslog, journalctl: a service systemd runs
        "Dec 01 10:00:00 gpu-host python3.12[88]: (EngineCore_DP0 pid=316) ValueError: boom",
        # V1's worker names its rank, and the logging file's name opens with "m" (no colour's "[m")
        "(VllmWorker rank=0 pid=1574) ERROR 07-25 03:42:09 [multiproc_executor.py:546] ValueError: boom",
        # a time in brackets: a CI log's (Buildkite), a wrapper's logger
        "[2025-10-20T13:11:22Z] ValueError: boom",
        "[2025-01-07 12:00:01,123] (EngineCore_DP0 pid=316) ERROR 01-07 12:00:01 [core.py:710] ValueError: boom",
        # launchers and collectors: kubectl logs --prefix, a swarm service, pm2, SkyPilot, torchrun --tee, Open MPI
        "[pod/vllm-7d9f8b6c5-x2x4z/vllm] ValueError: boom",
        "vllm_vllm.1.abcdef123456@node1    | ValueError: boom",
        "0|vllm     | ValueError: boom",
        "(task, pid=12345) ValueError: boom",
        "(worker1, rank=1, pid=2504, ip=10.0.0.2) (EngineCore_DP0 pid=316) ValueError: boom",
        "[default0]:ValueError: boom",
        "[1,0]<stderr>:ValueError: boom",
        # vLLM's own logger in Python logging's common format
        "2025-06-01 10:00:00,123 - vllm.engine.llm_engine - ERROR - ValueError: boom",
    ],
)
def test_log_prefixes_are_removed(line):
    assert clean_paste(line) == "ValueError: boom"


def test_another_loggers_name_in_pythons_common_format_stays():
    """Only vLLM's logger loses the header: another's names the program that wrote the line."""
    assert clean_paste("2025-06-01 10:00:00,123 - __main__ - ERROR - boom") == "__main__ - ERROR - boom"


def test_a_colour_that_lost_its_escape_is_removed_but_not_a_bracketed_name():
    """"[0m" and "[1;31m" are colours whose ESC was lost; "[m" too, where no word goes on from it:
    "[multiproc_executor.py:546]" and "[mla.py:1]" are files' names, kept whole."""
    assert clean_paste("[1;31mValueError: boom [m").strip() == "ValueError: boom"
    assert clean_paste("worker at [multiproc_executor.py:546] and [mla.py:1] died") == "worker at [multiproc_executor.py:546] and [mla.py:1] died"


def test_a_markdown_frame_and_padding_are_no_part_of_the_paste():
    """A code fence's lines, a code block's or a reply's indent shared by every line, and the
    spaces a terminal pads lines with: the traceback's own indentation stays."""
    paste = "```python\n    Traceback (most recent call last):   \n      File \"x.py\", line 1, in f\n        raise X\n    ValueError: boom  \n```"
    assert clean_paste(paste) == 'Traceback (most recent call last):\n  File "x.py", line 1, in f\n    raise X\nValueError: boom'


@pytest.mark.parametrize("paste", ['"ValueError: image_embeds has rank 3 but expected 2"',
                                   "  'ValueError: image_embeds has rank 3 but expected 2',",
                                   "`ValueError: image_embeds has rank 3 but expected 2`"])
def test_a_line_that_is_one_quoted_exception_line_is_that_line(paste):
    cleaned = clean_paste(paste)
    assert cleaned.strip() == "ValueError: image_embeds has rank 3 but expected 2"
    m = tiny_matcher(("ValueError", "{field_name} has rank {len(actual_shape)} but expected {len(expected_shape)}"))
    assert top(m, paste) == "e0"  # a message that opens with a value needs its type at the line's start


def test_only_a_whole_quoted_exception_line_loses_its_quotes():
    for kept in ['said "ValueError: boom"', '"ValueError: \'a\' and "b""', '"not an exception: boom"', "'ValueError: boom\""]:
        assert clean_paste(kept) == kept
    assert clean_paste("~~~\nValueError: boom\n~~~") == "ValueError: boom"
    assert clean_paste("  a\n\tb") == "  a\n\tb"  # nothing shared: nothing taken


def test_what_a_container_or_a_reply_puts_before_each_line_hides_no_rule():
    """docker-compose's, kubectl's, torchrun's and a reply's prefixes: a flattened raise and its
    exception are still cut apart, a frame whose start was cut off gets its 'File "' back, lines
    of the same width behind a reply's "> " are not read as one wrapped line, and a flag that
    opens a line after a timestamp keeps its "--"."""
    flat = 'raise ValueError(f"x {n}.") ValueError: max_new_tokens must be greater than 0'
    for prefix in ("vllm-1  | ", "[rank0]: ", "> ", "2025-06-05T16:30:08.123456789Z "):
        assert clean_paste(prefix + flat).split("\n") == ['raise ValueError(f"x {n}.")', "ValueError: max_new_tokens must be greater than 0"], prefix
    cut = 'lib/python3.12/site-packages/transformers/configuration_llama.py", line 182, in _validation\n    raise ValueError(\nValueError: boom'
    assert clean_paste("vllm-1  | " + cut.replace("\n", "\nvllm-1  | ")).startswith('File "lib/python3.12/')
    same_width = "\n".join("> (Worker_TP6 pid=903) ERROR 06-12 08:47:02 [multiproc_executor.py:962] " + text
                           for text in ("    assert self.ratio is not None", "           ^^^^^^^^^^^^^^^^^^^^^^", "AssertionError"))
    assert clean_paste(same_width).split("\n") == ["    assert self.ratio is not None", "           ^^^^^^^^^^^^^^^^^^^^^^", "AssertionError"]
    assert clean_paste("2025-06-05T16:30:08Z --mem-fraction-static=0.5") == "--mem-fraction-static=0.5"
    assert clean_paste("2025-06-05 16:30:08 - boom") == "boom"


def test_a_types_name_cut_by_a_terminals_wrap_goes_on_the_line_before():
    """Lines a terminal cut at its width are joined; a line that opens with the rest of a type's
    name ("A" + "ssertionError") goes on the line before, though a type's name opens its own line
    elsewhere; a module's type ("torch.OutOfMemoryError") and one after a whole word do not."""
    head = "(Worker pid=3) ERROR 06-06 16:17:09 [multiproc_executor.py:671] "
    wrapped = [(head + "x" * 60)[:70], (head + "y" * 60)[:69] + "A", "ssertionError"]
    assert clean_paste("\n".join(wrapped)).split("\n")[-1] == "y" * 5 + "AssertionError"
    assert clean_paste("\n".join(wrapped[:2] + ["torch.OutOfMemoryError: boom"])).split("\n")[-1] == "torch.OutOfMemoryError: boom"
    whole = [(head + "x" * 60)[:70], (head + "y" * 60)[:69] + " ", "ValueError: boom"]
    assert clean_paste("\n".join(whole)).split("\n")[-1] == "ValueError: boom"


def test_a_frame_cut_inside_its_path_or_its_functions_name_is_one_line_again():
    """A terminal cut a frame at its width, with no other line that wide to tell the width by:
    inside its path (no path holds a quote or a line break), or inside its function's name, whose
    rest stands alone on the next line in lower case. An exception's type alone after a frame
    without its code line, or a keyword such as "return", is no part of the name."""
    path = ('  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/quantiz\n'
            'ation/base_config.py", line 55, in tie_weights\n    raise NotImplementedError')
    assert clean_paste(path).split("\n")[0].strip() == (
        'File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/quantization/base_config.py", line 55, in tie_weights')
    name = '  File "vllm/distributed/device_communicators/all2all.py", line 355, in dispat\nch_router_logits\n    raise NotImplementedError'
    assert clean_paste(name).split("\n")[0].strip() == 'File "vllm/distributed/device_communicators/all2all.py", line 355, in dispatch_router_logits'
    for after in ("NotImplementedError", "return", "x"):
        # a type, a keyword; or a line shorter than a terminal's narrowest (HARD_WRAP_WIDTH)
        frame = '  File "/x/vllm/engine/llm_engine.py", line 5, in f' if after != "x" else '  File "a.py", line 5, in f'
        assert clean_paste(frame + "\n" + after).split("\n")[-1].strip() == after


def test_the_last_resort_rules_read_a_log_header_behind_a_containers_prefix():
    """The rules that read another program's log header from the paste as given (cleaning takes
    headers off) see it behind docker-compose's, kubectl's, torchrun's and a reply's prefixes."""
    m = tiny_matcher(("ValueError", "Something unrelated entirely happened here."))
    line = "[Gloo] Rank 0 is connected to 0 peer ranks. Expected number of connected peer ranks is : 0"
    told = m.lookup(line)[1]
    assert told is not None
    for prefix in ("vllm-1  | ", "2025-06-05T16:30:08.123456789Z ", "[rank0]: ", "> "):
        assert m.lookup(prefix + line)[1] == told, prefix


def test_typographic_quotes_are_straight_again():
    """A blog or a forum curls quotes: the body's "message" and a value's quotes read as printed."""
    assert clean_paste("\u201cauto\u201d tool choice requires \u2018x\u2019") == "\"auto\" tool choice requires 'x'"


def test_a_carriage_return_shown_as_caret_m_is_a_line_end():
    """less, vim and cat -v show a CR as "^M": the line ends there; "^M" inside a line stays."""
    assert clean_paste("raise X(^M\nValueError: boom^M") == "raise X(\nValueError: boom"
    assert clean_paste("keys ^M and ^C") == "keys ^M and ^C"


def test_a_prefix_on_most_lines_is_removed_and_a_repeated_message_kept():
    assert clean_paste("0] Traceback:\n0] File x\n\n0] ValueError: boom\n1] other") == "Traceback:\nFile x\n\nValueError: boom\n1] other"
    assert clean_paste("0] a\n0] b\nc\nd\ne") == "0] a\n0] b\nc\nd\ne"  # on 2 of 5 lines: not a prefix
    assert clean_paste("ValueError: a\nValueError: b\nValueError: c") == "ValueError: a\nValueError: b\nValueError: c"


def test_a_tools_prefix_on_every_line_is_read_off_before_vllms_own():
    """docker compose with a container's own name ("vllm-server  | "), podman's "[vllm] | ",
    kubectl logs --prefix and srun --label put their prefix in front of vLLM's process name and
    log header on every line: cleaning reads it off first, so the header behind it is read as
    one. A level's column of another logger ("ERROR    | ", loguru's) is no container's name."""
    log = ("(EngineCore_DP0 pid=1) ERROR 12-01 10:00:00 [core.py:88] EngineCore failed to start.\n"
           "(EngineCore_DP0 pid=1) ERROR 12-01 10:00:00 [core.py:88] Traceback (most recent call last):\n"
           "(EngineCore_DP0 pid=1) ERROR 12-01 10:00:00 [core.py:88] ValueError: boom")
    assert clean_paste(log) == "EngineCore failed to start.\nTraceback (most recent call last):\nValueError: boom"
    for prefix in ("vllm-server  | ", "qwen3-30b-a3b  | ", "[vllm] | ", "[pod/vllm-0/vllm] ", "0: "):
        assert clean_paste("\n".join(prefix + line for line in log.split("\n"))) == clean_paste(log), prefix
    # one line of a container whose name has no number
    assert clean_paste("vllm-qwen  | WARNING 12-01 10:00:00 [config.py:1] Casting x.") == "Casting x."
    assert clean_paste("ERROR    | boom") == "ERROR    | boom"
    assert clean_paste("[vllm] a\n[vllm] b\nc\nd\ne") == "[vllm] a\n[vllm] b\nc\nd\ne"  # on 2 of 5 lines: not a prefix


def test_log_records_run_together_on_one_line_are_cut_apart():
    flat = ('File "/x/vllm/a.py", line 2, in f ERROR 11-04 18:02:56 [executor.py:597] raise RuntimeError(x) '
            "(Worker pid=3) INFO 11-04 18:02:56 [a.py:1] chatter ERROR 11-04 18:02:56 [executor.py:597] RuntimeError: NCCL error: boom")
    assert clean_paste(flat) == 'File "/x/vllm/a.py", line 2, in f\nraise RuntimeError(x)\nRuntimeError: NCCL error: boom'
    one = "ERROR 11-04 18:02:56 [a.py:1] a message that quotes ERROR 11-04 18:02:56 without a place"
    assert clean_paste(one) == "a message that quotes ERROR 11-04 18:02:56 without a place"


def test_a_traceback_run_together_on_one_line_is_cut_back_into_lines():
    """A page or a title that dropped a traceback's line breaks: cut before each frame, after it
    (its code line), before the exception after the last frame, and before an access log record
    run into it."""
    flat = ('[rank1]: Traceback (most recent call last): [rank1]:   File "/x/vllm/a.py", line 3, in f [rank1]:     g() '
            '[rank1]:   File "/x/vllm/b.py", line 9, in check [rank1]:     raise RuntimeError(f"NCCL error: {e}") '
            '[rank1]: RuntimeError: NCCL error: boom INFO:     10.0.0.1:5 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error')
    lines = clean_paste(flat).split("\n")
    assert [line.strip()[:28] for line in lines if line] == [
        "Traceback (most recent call ", 'File "/x/vllm/a.py", line 3,', "g() [rank1]:", 'File "/x/vllm/b.py", line 9,',
        'raise RuntimeError(f"NCCL er', "RuntimeError: NCCL error: bo", '"POST /v1/chat/completions H']
    assert lines[-2:] == ["RuntimeError: NCCL error: boom", '"POST /v1/chat/completions HTTP/1.1" 500']
    # one frame and the exception after it
    assert clean_paste('File "/x/a.py", line 3, in f     raise ImportError("x") ImportError: no bitsandbytes').split("\n") == [
        'File "/x/a.py", line 3, in f', '     raise ImportError("x")', "ImportError: no bitsandbytes"]
    # one frame and its code line: a raise with no message, named by its frame
    assert clean_paste('File "/x/vllm/q.py", line 55, in tie_weights     raise NotImplementedError').split("\n") == [
        'File "/x/vllm/q.py", line 55, in tie_weights', "     raise NotImplementedError"]
    # lines of a traceback as printed stay as they are, and so does a message that names a frame
    printed = 'Traceback (most recent call last):\n  File "/x/a.py", line 3, in f\n    g()\nValueError: boom'
    assert clean_paste(printed) == printed
    assert clean_paste('ValueError: see File "/x/a.py", line 3, in f') == 'ValueError: see File "/x/a.py", line 3, in f'


def test_an_access_log_record_run_into_other_text_is_cut_out_of_it():
    """A log whose line breaks were dropped: the access record is its own line, and the error
    before it and the records after it are kept (the whole line was read as the record)."""
    flat = ('ValueError: boom (APIServer pid=1) INFO:     10.0.0.1:5 - "POST /v1/rerank HTTP/1.1" 500 Internal Server Error '
            'INFO 09-11 06:30:05 [__init__.py:241] Automatically detected platform cuda.')
    assert clean_paste(flat) == 'ValueError: boom\n"POST /v1/rerank HTTP/1.1" 500'
    newest_first = ('INFO:     1.2.3.4:36818 - "POST /v1/chat/completions HTTP/1.1" 200 OK 2026-05-08 17:45:53.145 '
                    "ValueError: boom")
    assert clean_paste(newest_first) == "ValueError: boom"
    linked = ('INFO:     [127.0.0.1:34172](http://127.0.0.1:34172/) - "POST /v1/embeddings HTTP/1.1" 500 Internal Server Error '
              "ERROR 11-20 19:56:18 engine.py:135] RuntimeError(x)")
    assert clean_paste(linked) == '"POST /v1/embeddings HTTP/1.1" 500\nRuntimeError(x)'
    # a client address written against its request ('-"POST', no space) is a record too
    squeezed = 'ImportError: please install vllm[video] INFO: 172.16.50.151:0 -"POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error'
    assert clean_paste(squeezed) == 'ImportError: please install vllm[video]\n"POST /v1/chat/completions HTTP/1.1" 500'
    # a record alone on its line, behind prefixes, is the record as before
    alone = 'vllm-1  | (APIServer pid=1) INFO:     10.0.0.1:5 - "POST /v1/chat/completions HTTP/1.1" 400 Bad Request'
    assert clean_paste(alone) == '"POST /v1/chat/completions HTTP/1.1" 400'


def test_process_tags_and_a_raise_line_run_together_are_cut_back_into_lines():
    """A page that dropped a log's line breaks: each process tag starts a line again, and a
    raise's code line is cut from the exception after it."""
    flat = ("(APIServer pid=4) ValueError: Invalid repository ID. (APIServer pid=4) Please verify "
            "(APIServer pid=4) (EngineCore pid=5) ERROR 11-04 18:02:56 [a.py:1] x (pid=3) y")
    assert clean_paste(flat) == "ValueError: Invalid repository ID.\nPlease verify\nx (pid=3) y"
    assert clean_paste("(APIServer pid=4) (EngineCore pid=5) ValueError: one") == "ValueError: one"
    code = 'raise RuntimeError(f"NCCL error: {error_str}") RuntimeError: NCCL error: unhandled system error'
    assert clean_paste(code) == 'raise RuntimeError(f"NCCL error: {error_str}")\nRuntimeError: NCCL error: unhandled system error'
    assert clean_paste("raise ValueError(x) because of y") == "raise ValueError(x) because of y"


def test_a_frame_with_typographic_quotes_is_read_as_a_frame():
    """A blog or a word processor turns a frame's double quotes into curly ones."""
    assert clean_paste("File \u201c/x/vllm/a.py\u201d, line 3, in f\n  g()") == 'File "/x/vllm/a.py", line 3, in f\n  g()'
    assert clean_paste("File \u201c/x/vllm/a.py\u201c, line 3, in f") == 'File "/x/vllm/a.py", line 3, in f'
    # curly quotes elsewhere are made straight too (test_typographic_quotes_are_straight_again)
    assert clean_paste("said \u201chi\u201d File \u201ca\u201d here") == 'said "hi" File "a" here'


def test_a_paste_that_opens_inside_a_frames_path_reads_it_as_a_frame():
    """Copied from the middle of a line, a traceback's first frame lost its 'File "': put back,
    the frame says which package raised (here a copy of vLLM's message, raised by transformers)."""
    cut = ('lib/python3.12/site-packages/transformers/models/llama/configuration_llama.py", line 182, in _rope_scaling_validation\n'
           "    raise ValueError(\nValueError: `rope_scaling` must be a dictionary with two fields, `type` and `factor`, got {'factor': 8.0}")
    assert clean_paste(cut).startswith('File "lib/python3.12/site-packages/transformers/models/llama/configuration_llama.py", line 182, in ')
    m = tiny_matcher(("ValueError", "`rope_scaling` must be a dictionary with two fields, `type` and `factor`, got {self.rope_scaling}"))
    matches, foreign = m.lookup(cut)
    assert matches == [] and foreign["id"] == "exception-not-in-vllm" and "transformers" in foreign["reason"]
    # a frame whole, or words before a path, stay as they are
    assert clean_paste('  File "/x/a.py", line 3, in f') == 'File "/x/a.py", line 3, in f'  # (its indent, shared by every line, goes)
    assert clean_paste('see a.py", line 3, in f') == 'see a.py", line 3, in f'


def test_a_web_pages_no_break_spaces_are_spaces():
    """A code block copied from a web page keeps its "&nbsp;" as no-break spaces: the frame
    that stops at its raise, indented with them, is read as the frame it is."""
    assert clean_paste("\u00a0 File \"/x/vllm/a.py\",\u00a0line 3,\u202fin f\nValueError") == '  File "/x/vllm/a.py", line 3, in f\nValueError'
    from generator.lookup.match import LookupError_, Matcher

    errors = [LookupError_("e0", "NotImplementedError", "", "NotImplementedError", "", ["v1"],
                           [{"path": "vllm/a.py", "line": 3, "function": "f"}])]
    paste = '  File "/x/vllm/a.py", line 3, in f\n    raise NotImplementedError\n'
    assert top(Matcher(errors, [[]]), paste.replace(" ", "\u00a0")) == "e0"


def test_what_a_page_made_of_the_printed_characters_is_undone():
    """Web pages, chat clients and Markdown change characters that vLLM printed: a zero-width
    space after each "_", a flag's "--" made one dash, "**" around a message. Each is undone."""
    assert clean_paste("max_\u200bnum_\u200bseqs\u00ad \ufeffx") == "max_num_seqs x"
    assert clean_paste('"auto" tool choice requires \u2014enable-auto-tool-choice and \u2013tool-call-parser') == (
        '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser')
    # vLLM's own dashes stand between words, a capital after one is no flag
    assert clean_paste("failed \u2014 transfers work; supported\u2014lookarounds; \u2014Note") == (
        "failed \u2014 transfers work; supported\u2014lookarounds; \u2014Note")
    assert clean_paste("**ValueError: Model architectures ['X'] are not supported for now.**") == (
        "ValueError: Model architectures ['X'] are not supported for now.")
    assert clean_paste("see **this** and (**that**)") == "see this and (that)"
    # Python's "**kwargs" and a power are no emphasis
    for code in ("f(a, **kwargs) or **b", "2**63 and 2**64 - 1", "use **kwargs in CompileKey", "** not **", "**"):
        assert clean_paste(code) == code
    m = tiny_matcher(("ValueError", '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'),
                     ("ValueError", "Model architectures {architectures} are not supported for now."))
    assert top(m, "Error code: 400 - \u201cauto\u201d tool choice requires \u2014enable-auto-tool-choice and \u2014tool-call-parser to be set") == "e0"
    assert top(m, "**Model architectures ['GlmForCausalLM'] are not supported for now.**") == "e1"
    assert top(m, "Model architectures ['Glm\u200bFor\u200bCausalLM'] are not supported for now.") == "e1"


def test_an_exception_groups_bars_are_taken_off_its_lines():
    """Python prints the tracebacks an exception group holds behind "| " (anyio's task groups
    under vLLM's server); a CI viewer puts one before each line too. A Markdown table's row stays."""
    paste = ("  + Exception Group Traceback (most recent call last):\n"
             "  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)\n"
             "  +-+---------------- 1 ----------------\n"
             "    | Traceback (most recent call last):\n"
             '    |   File "/x/vllm/entrypoints/openai/serving_chat.py", line 9, in create_chat_completion\n'
             '    |     raise ValueError("...")\n'
             '    | ValueError: "auto" tool choice requires --enable-auto-tool-choice and\n'
             "    | --tool-call-parser to be set\n"
             "    +------------------------------------")
    cleaned = clean_paste(paste)
    assert '\nValueError: "auto" tool choice requires --enable-auto-tool-choice and\n--tool-call-parser to be set\n' in cleaned
    assert '\n  File "/x/vllm/entrypoints/openai/serving_chat.py", line 9, in create_chat_completion\n' in cleaned
    m = tiny_matcher(("ValueError", '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'))
    matches, _ = m.lookup(paste)
    assert matches[0].error.id == "e0" and matches[0].verdict == "exact"
    assert clean_paste("  | [2025-03-10T15:07:20Z] ERROR 03-10 08:07:20 [core.py:302] ValueError: x") == "ValueError: x"
    assert clean_paste("| GPU | Model |\n|---|---|\n| H100 | Qwen3 |") == "| GPU | Model |\n|---|---|\n| H100 | Qwen3 |"


def test_a_double_spaced_paste_is_read_as_printed():
    """A blog or a forum that shows each log line as a paragraph puts a blank line after each:
    the frame then stands apart from its raise. Read as printed, the raise is the frame's."""
    printed = ['  File "/x/vllm/model_executor/layers/quantization/base_config.py", line 55, in tie_weights',
               "    raise NotImplementedError", "NotImplementedError", "", "The above exception was the direct cause:", "RuntimeError: x"]
    double = "\n\n".join(printed)
    assert clean_paste(double) == clean_paste("\n".join(printed))
    assert "\n\n" in clean_paste(double)  # the blank line the log had stays one
    # two lines of text side by side anywhere, too few gaps, or an even run: as given
    for given in ("a\n\nb\nc\n\nd\n\ne", "a\n\nb\n\nc", "a\n\nb\n\n\nc\n\nd\n\ne"):
        assert clean_paste(given) == given


def test_a_json_loggers_line_is_its_message():
    """A JSON logger writes each record as one object (vLLM's documented python-json-logger
    setup, a cloud's "textPayload", Go's zap): the line is its message, then its traceback or
    error. An HTTP error body has no key of a log record, and stays a body."""
    record = json.dumps({"asctime": "2025-06-01 10:00:00", "levelname": "ERROR", "name": "vllm.entrypoints",
                         "message": "Error in chat completion stream generator.",
                         "exc_info": 'Traceback (most recent call last):\n  File "/x/vllm/a.py", line 3, in f\nValueError: boom\n'})
    assert clean_paste(record) == ('Error in chat completion stream generator.\nTraceback (most recent call last):\n'
                                   '  File "/x/vllm/a.py", line 3, in f\nValueError: boom')
    assert clean_paste('{"severity": "ERROR", "textPayload": "ValueError: x\\n"}\n{"level":"error","msg":"a","error":"b"}') == "ValueError: x\na\nb"
    body = '{"object": "error", "message": "The model `x` does not exist.", "type": "NotFoundError", "code": 404}'
    assert clean_paste(body) == body
    # not JSON, NaN, a message that is no string, deeper than both parsers nest alike: as they are
    for line in ('{"time": 1, "msg": "x"', '{"time": NaN, "msg": "x"}', '{"time": 1, "msg": 5}', '{"time": 1, "msg": "x", "d": ' + "[" * 300 + "]" * 300 + "}"):
        assert clean_paste(line) == line
    m = tiny_matcher(("ValueError", "max_num_seqs ({n}) exceeds available Mamba cache blocks ({m})."))
    log = json.dumps({"time": "2025-06-01T10:00:00Z", "level": "ERROR", "message": "ValueError: max_num_seqs (256) exceeds available Mamba cache blocks (128)."})
    assert top(m, log) == "e0"


def test_the_persons_closing_question_is_no_part_of_the_paste():
    """A question or thanks on the last lines is the person's, not the log's: what reads the
    paste's end (a message the user cut, a bare raise) reads it before them."""
    from generator.lookup.clean import without_closing_words

    assert without_closing_words("ValueError: x\n\nHow can I fix this? Any help is appreciated.\nThanks!") == "ValueError: x\n"
    # a line with code or a number is kept: it may be vLLM's, or say which version ran
    for kept in ("a\nDid you forget to call `init_mm_limits_per_prompt`?", "a\nI am on vLLM 0.8.5, how to fix?",
                 "How can I fix this?", "a\nPlease install the package."):
        assert without_closing_words(kept) == kept
    # ... and what an issue's form puts after the log; a comment in code is no heading
    form = ("ValueError: x\n```\n\n### Before submitting a new issue...\n\n- [x] Make sure you already searched for "
            "relevant issues, and asked the chatbot living at the bottom right corner of the [documentation page]"
            "(https://docs.vllm.ai/en/latest/), which can answer lots of frequently asked questions.")
    assert without_closing_words(form) == "ValueError: x"
    assert without_closing_words("x = 1\n# ValueError: Token id 151791 is out of vocabulary") == "x = 1\n# ValueError: Token id 151791 is out of vocabulary"
    assert without_closing_words("ValueError: x\n^C\n(vllm) user@gpu01:~/work$ ^C\nroot@8f2c3b1a:/workspace# ") == "ValueError: x"
    assert without_closing_words("ValueError: x\nuser@gpu01:~$ vllm serve y") == "ValueError: x\nuser@gpu01:~$ vllm serve y"
    assert without_closing_words("y" * 10_000 + "\nValueError: x\nThanks!") == "y" * 10_000 + "\nValueError: x"
    # ... and the shutdown's noise after an error; alone, or after no error, it is what the paste is about
    noise = ("\n[rank0]:[W1020 12:00:00.1 ProcessGroupNCCL.cpp:1496] Warning: WARNING: destroy_process_group() was not called "
             "before program exit, which can leak resources.\n/usr/lib/python3.12/multiprocessing/resource_tracker.py:279: "
             "UserWarning: resource_tracker: There appear to be 1 leaked semaphore objects to clean up at shutdown\n"
             "  warnings.warn('resource_tracker: There appear to be %d '\nINFO:     Shutting down")
    assert without_closing_words("ValueError: x" + noise) == "ValueError: x"
    assert without_closing_words("ValueError: x\nvllm-1 exited with code 1\nstream closed EOF for default/vllm-0 (vllm)") == "ValueError: x"
    assert without_closing_words("INFO started\nvllm-1 exited with code 137") == "INFO started\nvllm-1 exited with code 137"
    assert without_closing_words("INFO 01-01 00:00:00 [a.py:1] started" + noise) == "INFO 01-01 00:00:00 [a.py:1] started" + noise
    assert without_closing_words("```\n" + noise.strip() + "\n```") == "```\n" + noise.strip() + "\n```"
    m = tiny_matcher(("ValueError", "Fused module '{layer_name}' requires consistent quant config for {sub_names}"))
    cut = "Qwen3.6-27B int4 inference: ValueError: Fused module 'language_model.model.layers.0.mlp.gate_up_proj' ..."
    assert top(m, cut + "\n\nHow can I fix this? Any help is appreciated.") == "e0"
    assert top(m, "```\n" + cut + "\n```\n\n### Before submitting a new issue...\n\n- [x] Make sure you already searched.") == "e0"
    assert top(m, cut + "\n") == "e0"  # the user's "..." with a line break after it


def test_a_full_width_colon_after_a_type_is_a_colon():
    """A Chinese or Japanese keyboard types "：" after an exception's type in an issue's title."""
    assert clean_paste("报错ValueError：No available memory") == "报错ValueError: No available memory"
    assert clean_paste("torch.OutOfMemoryError：　CUDA out of memory") == "torch.OutOfMemoryError: CUDA out of memory"
    assert clean_paste("模型：Qwen3") == "模型：Qwen3"  # after other words it stays
    m = tiny_matcher(("ValueError", "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` "
                                    "when initializing the engine."))
    matches, _ = m.lookup("ValueError：No available memory for the cache blocks on H20")
    assert [x.error.id for x in matches] == ["e0"] and matches[0].verdict == "exact"


def test_lines_a_terminal_cut_at_its_width_are_joined_again():
    """tmux's copy mode keeps the cuts a terminal made at its width: the message is whole again."""
    whole = ["WARNING 08-15 21:06:16 config.py:1514] Casting torch.bfloat16 to torch.float16.",
             "WARNING 08-15 21:06:17 _custom_ops.py:14] Failed to import from vllm._C with ImportError('x')"]
    cut = "\n".join(line[i:i + 60] for line in whole for i in range(0, len(line), 60))
    assert clean_paste(cut) == "Casting torch.bfloat16 to torch.float16.\nFailed to import from vllm._C with ImportError('x')"
    # a record, an exception line or a whole frame's code line starts a line of its own
    frame = '  File "/x/vllm/a.py", line 3, in ffffff'
    kept = "\n".join([frame, "    g()", "ValueError: one two three four five six s", "ValueError: next"])
    assert clean_paste(kept) == kept
    # workers' records of one length are no cut lines
    workers = "\n".join(f"(Worker pid={n}) WARNING 06-21 23:52:54 [a.py:2] min_p won't work." for n in range(3))
    assert clean_paste(workers) == "\n".join(["min_p won't work."] * 3)
    # one line at the longest length is no evidence of a cut
    assert clean_paste("a" * 45 + "\nb") == "a" * 45 + "\nb"


def test_a_docker_json_file_log_line_is_its_log_value():
    """/var/lib/docker/containers/*/*-json.log keeps each line as JSON: the line is its "log"."""
    lines = ['WARNING 08-15 21:06:16 config.py:1514] Casting torch.bfloat16 to "torch.float16".', '  File "/x.py", line 3, in f']
    logged = "\n".join('{"log":' + json.dumps(line + "\n") + ',"stream":"stderr","time":"2025-03-06T11:03:52.1Z"}' for line in lines)
    assert clean_paste(logged) == 'Casting torch.bfloat16 to "torch.float16".\n  File "/x.py", line 3, in f'
    # another JSON body is left to the JSON escapes
    assert clean_paste('{"log":"a\\n","other":"x"}') == '{"log":"a\n","other":"x"}'


def test_html_entities_and_json_escapes():
    assert clean_paste("model&#x27;s &lt;max&gt;") == "model's <max>"
    assert clean_paste('{\\"message\\": \\"a\\\\nb\\"}') == '{"message": "a\nb"}'


def test_squash_drops_whitespace_backticks_and_quotes_and_maps_back():
    flat, origin = squash("Use `max_model_len`\n  'now'")
    assert flat == "usemax_model_lennow"
    assert origin[3] == 5  # the "m" after the backtick


def test_split_template():
    assert split_template("a {x!r} {{b}} {d['}']:>3}") == (["a ", " {b} ", ""], ["x!r", "d['}']:>3"])


# --- matching ---------------------------------------------------------------------------


def test_the_longer_template_that_fits_wins_over_its_prefix():
    m = tiny_matcher(("ValueError", "Invalid value for option"), ("ValueError", "Invalid value for option {name}: expected an integer"))
    assert top(m, "ValueError: Invalid value for option seed: expected an integer") == "e1"


def test_values_are_captured_from_the_paste():
    m = tiny_matcher(("ValueError", "max_num_seqs ({n}) exceeds available Mamba cache blocks ({b})."))
    (match,), _ = m.lookup("max_num_seqs (1,\n 2, 3) exceeds available Mamba cache blocks (7).")
    assert match.values == {"n": "1,\n 2, 3", "b": "7"}


def test_a_reworded_word_still_matches_on_the_rest():
    m = tiny_matcher(("ValueError", "To serve at least one request with the model's max seq len ({n}), the KV cache is too small for it"))
    assert top(m, "To serve at least one request with the models's max seq len (5), the KV cache is too small for it") == "e0"


def test_a_word_changed_in_the_first_words_still_matches_on_the_rest():
    """The anchor is a later chunk; the first chunk's start and end lie right before it, around
    a word another release wrote otherwise ("libcudart.so" for "libcudart"): partial."""
    m = tiny_matcher(("AssertionError", "libcudart is not loaded in the current process"))
    (match,), _ = m.lookup("AssertionError: libcudart.so is not loaded in the current process")
    assert match.error.id == "e0" and match.verdict == "partial" and match.exception_agrees
    assert top(m, "AssertionError: the tokenizer is not loaded in the current process") is None  # its first words are other


def test_opening_words_with_their_last_word_left_out_before_a_value_still_match():
    """"NVFP4 weight_scale for 'x' was never loaded" for "... for layer {name} was never loaded":
    the anchor is the words after the value; the opening's start, a whole word of the paste on
    the value's line, counts as found: partial, with the value. Not when a line lies between."""
    m = tiny_matcher(("RuntimeError", "NVFP4 weight_scale for layer {name!r} was never loaded (still NaN). The checkpoint likely stores this layer as BF16."))
    (match,), _ = m.lookup("RuntimeError: NVFP4 weight_scale for 'parallel_lm_head' was never loaded (still NaN)")
    assert match.error.id == "e0" and match.verdict == "partial" and match.exception_agrees
    assert match.values == {"name": "parallel_lm_head"}
    assert top(m, "RuntimeError: NVFP4 weight_scale for\n'parallel_lm_head' was never loaded (still NaN)") is None
    assert top(m, "RuntimeError: NVFP4 weight_scales 'parallel_lm_head' was never loaded (still NaN)") is None  # no word of the paste ends there


def test_a_later_sentence_quoted_on_a_line_of_its_own_is_a_partial_match():
    """People quote the sentence that tells them what to do and leave out the message's opening:
    found from a sentence's start to the next value, on its own line, as partial; a sentence
    of vLLM's words inside another's sentence, or too short to tell, is not."""
    m = tiny_matcher(("ValueError", "DSpark requires num_speculative_tokens >= dspark_block_size ({b}); got {n}. "
                                    "Smaller values produce incorrect output. Use num_speculative_tokens=dspark_block_size or larger (e.g. {b})."))
    (match,), _ = m.lookup('"Smaller values produce incorrect output. Use num_speculative_tokens=dspark_block_size or larger (e.g. 7)."')
    assert match.error.id == "e0" and match.verdict == "partial" and 0 < match.score < 0.9
    (match,), _ = m.lookup("ValueError: Smaller values produce incorrect output. Use num_speculative_tokens=dspark_block_size")
    assert match.error.id == "e0" and match.exception_agrees
    assert top(m, "we saw that smaller values produce incorrect output. Use num_speculative_tokens=dspark_block_size or larger") is None
    assert top(m, "Smaller values produce incorrect output.") is None


def test_a_line_that_begins_inside_a_message_is_a_partial_match():
    """A narrow log viewer, a screenshot or a quote cuts a message's opening off: a line that
    begins inside it (after a type, an ellipsis, or mid-word) and shows a long run of its words
    from there is the message, partial; the same words after other words of a line are not."""
    m = tiny_matcher(("ValueError", "Video frames must be 3-channel RGB, got {n} channels (alpha). Convert the frames to RGB before "
                                    "preprocessing: the alpha is not recoverable from a bare frame array, so it cannot be composited."))
    for paste in ("...frames to RGB before preprocessing: the alpha is not recoverable from a bare frame array, so it cannot be composited.",
                  "ValueError: \u2026rames to RGB before preprocessing: the alpha is not recoverable from a bare frame array",
                  "> onvert the frames to RGB before preprocessing: the alpha is not recoverable from a bare"):
        (match,), _ = m.lookup(paste)
        assert match.error.id == "e0" and match.verdict == "partial" and 0 < match.score < 0.9, paste
    # the words shown before the first whole chunk count once, not again as a changed chunk's
    flag = tiny_matcher(("ValueError", "Error: --data-parallel-multi-port-external-lb requires --data-parallel-size-local >= 2"))
    (match,), _ = flag.lookup("ValueError: ...lti-port-external-lb requires --data-parallel-size-local >= 2")
    assert match.verdict == "partial" and match.matched <= flag.entries[0].literal, (match.matched, flag.entries[0].literal)
    assert top(m, "I think we should convert frames to RGB before preprocessing: the alpha is not recoverable from a bare frame array") is None
    assert top(m, "...frames to RGB before preprocessing: the alpha") is None  # too little of it to tell
    # an issue title's tag stands where the type would; the line, begun inside the message, opens
    # where its words do, so a value that ends it there is a cut, not a sentence of the paste's own
    kv = tiny_matcher(("ValueError", "To serve at least one request with the model's max seq len ({max_model_len}), ({needed} GiB KV cache "
                                     "is needed, which is larger than the available KV cache memory ({available} GiB).{estimated_msg} "
                                     "Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."))
    for paste in ("[Bug]: KV cache is needed, which is larger than the available KV cache memory",
                  "KV cache is needed, which is larger than the available KV cache memory (9.34 GiB). Based on the available memory, "
                  "the estimated maximum model length is 76496."):
        (match,), _ = kv.lookup(paste)
        assert match.error.id == "e0" and match.verdict == "partial", paste
    assert top(kv, "I think the KV cache is needed, which is larger than the available KV cache memory") is None


def test_a_message_with_a_word_of_its_opening_changed_after_its_type_is_a_partial_match():
    """"exceeds the available Mamba cache blocks" for "exceeds available ...", in the message's
    first words: after its type, the words before its second chunk differ from its first by a
    few characters; the rest is vLLM's. Partial, never exact, and an exact match outranks it."""
    m = tiny_matcher(("ValueError", "trace_decode_token_ids is not supported with prompt_logprobs."),
                     ("RuntimeError", "Qwen2.5-VL does not support {backend} backend now."),
                     ("RuntimeError", "Qwen2-VL does not support {backend} backend now."))
    for paste in ("ValueError: trace_decode_token_ids not supported with prompt_logprobs.",
                  "ValueError: trace_decode_token_ids is really not supported with prompt_logprobs."):
        (match,), _ = m.lookup(paste)
        assert match.error.id == "e0" and match.verdict == "partial" and match.exception_agrees, paste
        assert match.coverage < 1 and match.start == len("ValueError: "), paste
    assert top(m, "ValueError: the token ids are not supported with prompt_logprobs.") is None  # more than a word
    assert top(m, "trace_decode_token_ids not supported with prompt_logprobs.") is None  # no type: nothing says it is a message
    matches, _ = m.lookup("RuntimeError: Qwen2-VL does not support _Backend.FLASHINFER backend now")
    assert (matches[0].error.id, matches[0].verdict) == ("e2", "exact") and all(x.verdict == "partial" for x in matches[1:])


def test_a_small_word_inserted_into_a_message_is_a_partial_match_above_a_message_alike():
    """"must be divisible by the num_key_value_heads": every word of the message, "the" added
    inside one of its chunks. It is the near one, partial, ahead of "... divisible by world_size"
    that shares only its opening; a name or a qualifier inserted is another message."""
    m = tiny_matcher(("ValueError", "num_attention_heads must be divisible by num_key_value_heads"),
                     ("ValueError", "num_attention_heads must be divisible by world_size"),
                     ("NotImplementedError", "Current platform does not support NVFP4 quantization. Please use Blackwell GPUs."))
    matches, _ = m.lookup("ValueError: num_attention_heads must be divisible by the num_key_value_heads")
    assert [(x.error.id, x.verdict) for x in matches[:1]] == [("e0", "partial")] and matches[0].score > matches[1].score
    matches, _ = m.lookup("ValueError: num_attention_heads must be divisible by num_key_value_heads")
    assert (matches[0].error.id, matches[0].verdict) == ("e0", "exact")
    matches, _ = m.lookup("NotImplementedError: Current platform does not support w4a4 nvfp4 quantization.")
    assert all(x.verdict == "partial" and x.score < 0.8 for x in matches), [(x.error.id, x.score) for x in matches]


def test_a_small_word_inserted_into_the_chunk_a_match_is_not_anchored_on_is_a_partial_match():
    """The message's first chunk with "the" or "now" inserted is found by none of its words
    whole: the walk anchors on the next chunk, and the first one, every character of it there
    with a small word among them (its end too short to be found alone, "requires now all"),
    counts as found. Partial, as a small word inserted after the anchor is; a longer word is not."""
    m = tiny_matcher(("ValueError", "NixlConnectorScheduler expects NixlHandshakePayload for handshake metadata."),
                     ("RuntimeError", "release_kv_cache_memory() requires all executor memory to be resident"))
    for paste, want in (("ValueError: NixlConnectorScheduler expects the NixlHandshakePayload for handshake metadata.", "e0"),
                        ("RuntimeError: release_kv_cache_memory() requires now all executor memory to be resident", "e1")):
        (match,), _ = m.lookup(paste)
        assert (match.error.id, match.verdict) == (want, "partial"), paste
        assert match.start == paste.index(":") + 2, paste
    assert top(m, "RuntimeError: release_kv_cache_memory() requires really all executor memory to be resident") is None


def test_a_word_left_out_of_a_message_is_a_partial_match():
    """A title's paraphrase leaves a word out ("sampling distribution replay Model Runner V2",
    without "requires"): the rest of the message, word for word, is a near match, partial. So is
    one left out of the words before the chunk the match is anchored on. A short message is not
    told by what is left ("Mooncake not available" is another program's), nor is the first word
    of those before the anchor (another word may stand there: "camem allocator")."""
    m = tiny_matcher(("ValueError", "sampling distribution replay requires Model Runner V2"),
                     ("ValueError", "Unsupported request.structured_outputs for MistralParser. Only `json` and `json_object` are supported."),
                     ("AssertionError", "Mooncake is not available"))
    for paste, want in (("ValueError: sampling distribution replay Model Runner V2", "e0"),
                        ("ValueError: Unsupported for MistralParser. Only `json` and `json_object` are supported.", "e1")):
        (match, *_), _ = m.lookup(paste)
        assert (match.error.id, match.verdict) == (want, "partial") and match.exception_agrees, paste
    (match, *_), _ = m.lookup("ValueError: sampling distribution replay requires Model Runner V2")
    assert (match.error.id, match.verdict) == ("e0", "exact")
    assert top(m, "AssertionError: Mooncake not available") is None
    from generator.lookup.match import _word_left_out
    words = ["cumem", "allocator", "is"]
    assert _word_left_out("cumemis", 7, words, before=True) == len("allocator")
    assert _word_left_out("camemallocatoris", 16, words, before=True) is None
    assert _word_left_out("cumemallocatornot", 0, words) is None  # its last word, with no next chunk to show where it ends
    assert _word_left_out("cumemallocatornot", 0, words, then="not") == len("is")


def test_the_least_missing_that_makes_a_match_partial_rounds_below_sure():
    """A near match is shown partial however its length rounds: 45 characters and 5 missing
    score 0.9 when rounded, which reads as exact."""
    from generator.lookup.match import SURE, _partial_missing
    for matched in range(1, 2000):
        missing = _partial_missing(matched)
        assert round(matched / (matched + missing), 3) < SURE <= round(matched / (matched + missing - 1), 3), matched
    assert _partial_missing(45) == 6


def test_a_paste_that_names_vllm_nowhere_is_another_programs():
    """No message of vLLM's matched, and nothing in the paste names vLLM (no "vllm", no frame, no
    log header of vLLM's kind): its last line is another program's; not an exception's line (a
    type vLLM raises, its message worded otherwise), nor a paste that names vLLM."""
    m = tiny_matcher(("ValueError", "Something vLLM would say about its configuration"))
    line = "Please set `use_tensor_cores=True` in BatchDecodeWithPagedKVCacheWrapper for group size 3"
    matches, foreign = m.lookup(line + "\n\n")
    assert matches == [] and foreign["id"] == "message-not-in-vllm" and foreign["line"] == line
    assert foreign["reason"].startswith("nothing in the paste names vLLM")
    for named in ("[Bug]: vLLM nightly: " + line, "INFO 11-02 10:00:00 [core.py:88] x\n" + line, "[core.py:88] " + line,
                  "Errored 5 benchmarks",
                  "hello, my server is slow today and the weather is bad",  # no name from code: no program's line
                  # ... nor a blob: a line too long, one with characters decoding replaced, one mostly not letters
                  line + " x" * 300, "\ufffd" + line, "ab_c 1234567890 1234567890 1234567890 de fg"):
        assert m.lookup(named)[1] is None, named
    # an exception's line is judged by the rules for exceptions, not by this one
    assert not m.lookup("ValueError: Token id 151665 is out of vocabulary")[1]["reason"].startswith("nothing in the paste")
    # a frame tells where it came from (frame_outside_vllm), not this rule
    framed = m.lookup('  File "/opt/app/run.py", line 3, in main\n' + line)[1]
    assert framed["source"] == "code outside vLLM" and "opt/app/run.py" in framed["why"], framed


def test_words_quoted_from_inside_a_message_are_a_partial_match():
    """A title quotes a long run of the message's words from inside it, whole between double
    quotes or backticks: partial, the words it leaves out missing; not a short run, nor words
    that go on past the message's in the quote, nor the same words unquoted in a sentence."""
    m = tiny_matcher(("WARNING", "The following fields were present in the request but ignored: {fields}", "log"))
    title = 'Change "following fields were present in the request but ignored" log from warn to debug'
    (match,), _ = m.lookup(title)
    assert match.error.id == "e0" and match.verdict == "partial"
    assert top(m, title.replace('"', "\u201c", 1).replace('"', "\u201d", 1)) == "e0"
    assert top(m, 'Change "fields were present in the request" log') is None  # too few words to tell
    assert top(m, 'Change "following fields were present in the request but ignored by me" log') is None
    assert top(m, "Change following fields were present in the request but ignored log from warn to debug") is None


def test_a_quote_of_a_messages_opening_words_with_its_type_is_the_message_cut_there():
    """"ValueError: Too large swap space." and "ValueError: Unsupported task: 'score'": the words that
    open the message, whole, with its type before them, and the paste stops at a full stop or
    after one value; not when words follow the value, nor without the type."""
    m = tiny_matcher(("ValueError", "Too large swap space. {used} GiB out of the {total} GiB total CPU memory is allocated for the swap space."),
                     ("ValueError", "Unsupported task: {task} Supported tasks: {supported}"),
                     ("ValueError", "Model architectures {archs} are not supported for now. Supported architectures: {names}"))
    assert top(m, "ValueError: Too large swap space.") == "e0"
    assert top(m, "ValueError: Unsupported task: 'score'") == "e1"
    (match,), _ = m.lookup("ValueError: Unsupported task: 'score'")
    assert match.values == {"task": "'score'"}  # the value the paste stops after, whole in its quotes, fills its place
    assert m.lookup("ValueError: Unsupported task: 'sco")[0][0].values == {}  # cut inside it: no value to fill a fix with
    assert top(m, "ValueError: Model architectures ['Qwen2'] failed to be inspected. please check") is None
    assert top(m, "Too large swap space.") is None  # no type: a few words anyone may write
    assert top(m, "KeyError: Unsupported task: 'score'") is None  # another type


def test_a_quoted_text_inside_the_messages_quotes_is_one_value():
    """vLLM's "Worker failed with error '{result}'" around a KeyError's words reads
    "''float8_e8m0fnu''": one value in doubled quotes, the paste cut after it, not an empty
    value and other words; it fills its place less the template's own quotes."""
    m = tiny_matcher(("RuntimeError", "Worker failed with error '{result}', please check the stack trace above for the root cause"),
                     ("RuntimeError", "Worker failed"))
    (first, *_), _ = m.lookup("[Bug][L40]: RuntimeError: Worker failed with error ''float8_e8m0fnu''")
    assert first.error.id == "e0" and first.values == {"result": "'float8_e8m0fnu'"}
    assert top(m, "RuntimeError: Worker failed with error 'x' in my own words") == "e1"  # a value closed, then other words


def test_short_templates_need_their_exception_or_a_line_of_their_own():
    m = tiny_matcher(("AssertionError", "NYI"))
    assert top(m, "AssertionError: NYI") == "e0"
    assert top(m, "the NYI label in a sentence that goes on") is None


def test_a_log_level_is_named_beside_a_message_only_as_a_whole_word():
    # a short message logged at warning level: "Warning:" before it names it; the end of another
    # name ("UserWarning:", Python's warnings category, which vLLM's logger never prints) does not
    m = tiny_matcher(("WARNING", "Casting {config_dtype} to {torch_dtype}.", "log"))
    assert top(m, "Warning: Casting torch.float32 to torch.bfloat16.") == "e0"
    assert top(m, "UserWarning: Casting torch.float32 to torch.bfloat16. Use a cast of your own") is None
    # ... and a name that follows words of another script at once is still whole
    m = tiny_matcher(("AssertionError", "NYI"))
    assert top(m, "启动失败AssertionError: NYI") == "e0"


def test_a_quoted_word_inside_a_quoted_value_does_not_close_it():
    # the person stopped quoting inside the value, which holds a TypeError's quoted argument name:
    # its quotes are the value's own, so the message was cut in its value, not followed by words
    m = tiny_matcher(("RuntimeError", "Worker failed"),
                     ("RuntimeError", "Worker failed with error '{result}', please check the stack trace above for the root cause"))
    assert top(m, "RuntimeError: Worker failed with error 'missing a required argument: 'k_emb'") == "e1"
    assert top(m, "报错\" RuntimeError: Worker failed with error 'missing a required argument: 'k_emb' \".") == "e1"
    # a quoted value that closes, then the person's own words, is still no cut
    m = tiny_matcher(("ValueError", "Unknown attention backend: '{name}'. Valid backends are: {names}"))
    assert top(m, "ValueError: Unknown attention backend: 'ASCEND' on my 910B server") is not None


def test_wrapper_loses_to_the_error_inside_it():
    m = tiny_matcher(
        ("RuntimeError", "Worker failed with error '{result}', please check the stack trace above for the root cause"),
        ("ValueError", "Total number of attention heads ({h}) must be divisible by tensor parallel size ({t})."),
    )
    text = "RuntimeError: Worker failed with error 'Total number of attention heads (28) must be divisible by tensor parallel size (8).', please check the stack trace above for the root cause"
    matches, _ = m.lookup(text)
    assert [x.error.id for x in matches] == ["e1", "e0"]


def test_a_wrapper_cut_right_after_its_value_loses_to_the_error_inside_it():
    """The paste stops after the wrapper's value, which ends a sentence where the wrapper's own
    words would go on (", please check ..."): the value still runs on to the line's end, and the
    whole message inside it is the answer, not the wrapper."""
    m = tiny_matcher(
        ("RuntimeError", "Worker failed with error '{result}', please check the stack trace above for the root cause"),
        ("ValueError", "Some layers are not assigned to any group."),
    )
    text = "RuntimeError: Worker failed with error 'Some layers are not assigned to any group.'"
    assert [x.error.id for x in m.lookup(text)[0]] == ["e1", "e0"]
    # a value of the paste's own words: the wrapper is all there is
    assert top(m, "RuntimeError: Worker failed with error 'CUDA driver mismatch.'") == "e0"


def test_a_short_message_that_is_all_of_a_wrappers_value_is_what_it_wraps():
    """A message too short to outrank others alone ("Model is required") is the error a wrapper
    reports when it is all of the wrapper's value; a few words inside a longer value are not."""
    m = tiny_matcher(("RuntimeError", "Worker failed with error '{result}', please check the stack trace above for the root cause"),
                     ("ValueError", "Model is required"))
    wrapped = "RuntimeError: Worker failed with error '{}', please check the stack trace above for the root cause"
    assert [x.error.id for x in m.lookup(wrapped.format("Model is required"))[0]] == ["e1", "e0"]
    assert top(m, wrapped.format("Model is required for the scorer of run 7, which failed")) == "e0"


def test_a_few_words_inside_a_wrappers_value_do_not_make_it_a_wrapper():
    """"Worker failed with error 'Invalid thread config: ...'" quotes a kernel's check, not
    vLLM's "Invalid {component} config: {e}": a few words that fit inside the value are no
    error the wrapper only reports."""
    m = tiny_matcher(("RuntimeError", "Worker failed with error '{result}', please check the stack trace above for the root cause"),
                     ("ValueError", "Invalid {kind} config: {e}"))
    text = ("RuntimeError: Worker failed with error 'Invalid thread config: thread_m_blocks = 1, thread_k = -1 for MKN = "
            "[2048, 5472, 4096]', please check the stack trace above for the root cause")
    assert top(m, text) == "e0"
    assert top(m, "ValueError: Invalid parser config: missing field") == "e1"


def test_a_value_that_another_programs_words_name_is_no_opening_value_of_vllms():
    """"{numerator} is not divisible by {denominator}" opens with a value: after the type, a
    prefix or nothing it is vLLM's; after a name and its colon it is another message (verl's
    "rollout world_size: 1 is not divisible by infer_tp: 2")."""
    m = tiny_matcher(("AssertionError", "{numerator} is not divisible by {denominator}"))
    assert top(m, "AssertionError: rollout world_size: 1 is not divisible by infer_tp: 2") is None
    assert top(m, "AssertionError: 32001 is not divisible by 8") == "e0"
    assert top(m, "[rank0]: AssertionError: 32768 is not divisible by 3") == "e0"
    assert top(m, "(Worker pid=1027546) AssertionError: 32001 is not divisible by 8 [repeated 7x across cluster]") == "e0"
    assert top(m, "32001 is not divisible by 8") == "e0"
    # the key of an error body's message names the whole message, as a client prints it
    for body in ("openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': '32001 is not divisible by 8', "
                 "'type': 'BadRequestError', 'param': None, 'code': 400}",
                 "Error code: 400 - {'error': {'message': '32001 is not divisible by 8', 'type': 'BadRequestError'}}",
                 '{"object": "error", "message": "32001 is not divisible by 8"}', '{"detail": "32001 is not divisible by 8"}'):
        assert top(m, body) == "e0", body
        # ... its values without the body's quotes and keys (the page fills them in)
        assert m.lookup(body)[0][0].values == {"numerator": "32001", "denominator": "8"}, body
    assert top(m, '{"message": "rollout world_size: 1 is not divisible by infer_tp: 2"}') is None
    # ... and so does an exception's type quoted in a sentence
    assert top(m, 'I get "AssertionError: 32001 is not divisible by 8" when starting') == "e0"
    assert top(m, "运行时报错：AssertionError: 32001 is not divisible by 8，请问怎么解决") == "e0"  # words of a script without spaces
    # ... and after a name and its equals sign: the Marlin kernel's TORCH_CHECK
    assert top(m, "RuntimeError: moe_wna16_marlin_gemm,\n/workspace/csrc/moe/ops.cu:768,\n"
                  "size_k = 256, is not divisible by b_scales.size(1) = 15") is None


def test_a_line_vllm_logs_is_not_what_a_client_got_in_an_error_body():
    """A client's error body holds what vLLM returned or raised, never a line it logged:
    '{"detail": "Internal server error: An unexpected error occurred."}' is no log line."""
    m = tiny_matcher(("ERROR", "An unexpected error occurred", "log"))
    for paste in ('{"detail":"Internal server error: An unexpected error occurred."}',
                  "openai.InternalServerError: Error code: 500 - {'message': 'Chat failed: An unexpected error occurred'}"):
        assert top(m, paste) is None, paste
    assert top(m, "ERROR 01-01 00:00:00 [parser.py:1] An unexpected error occurred") == "e0"
    # ... but a log line that opens the body's text may be vLLM's, relayed by a platform
    assert top(m, '{"detail": "An unexpected error occurred"}') == "e0"


def test_vllms_report_with_its_raise_is_no_answer_over_the_root_cause_it_points_to():
    """"Engine process failed to start. See stack trace for the root cause." raised under its own
    frame, with another program's error above it: that error is the answer, the report is listed."""
    errors = [LookupError_("e0", "RuntimeError", "Engine process failed to start. See stack trace for the root cause.",
                           "RuntimeError: Engine process failed to start", "", ["v1"],
                           [{"path": "vllm/entrypoints/openai/api_server.py", "line": 230,
                             "function": "build_async_engine_client_from_engine_args"}])]
    m = Matcher(errors, [[error.template] for error in errors])
    report = ('  File "/x/site-packages/vllm/entrypoints/openai/api_server.py", line 230, in '
              "build_async_engine_client_from_engine_args\n    raise RuntimeError(\n"
              "RuntimeError: Engine process failed to start. See stack trace for the root cause.")
    paste = ("RuntimeError: The NVIDIA driver on your system is too old (found version 11080). Please update your GPU "
             "driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx\n"
             + report)
    matches, foreign = m.lookup(paste)
    assert [x.error.id for x in matches] == ["e0"] and foreign["id"] == "nvidia-driver-too-old" and foreign["role"] == "answer"
    assert top(m, report) == "e0" and m.lookup(report)[1] is None


def test_an_exception_group_is_an_exception_line():
    """Python 3.11's ExceptionGroup ends in neither "Error" nor "Exception": an issue title that
    is one is another program's exception, not a line of text."""
    m = tiny_matcher(("ValueError", "No available memory for the cache blocks."))
    matches, foreign = m.lookup("[Bug]: exceptiongroup.ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)")
    assert matches == [] and foreign["id"] == "exception-not-in-vllm"


def test_a_copy_of_vllms_message_raised_in_another_packages_code_is_not_vllms():
    """SGLang copied vLLM's ensure_divisibility: under its frame, "16 is not divisible by 6" (a
    message that opens with a value) is sglang's; so is a message a package writes in its own
    raise, though the package is no known one. A package that raises vLLM's exception again did
    not write it."""
    m = tiny_matcher(("AssertionError", "{numerator} is not divisible by {denominator}"),
                     ("ValueError", "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` "
                                    "when initializing the engine."))
    sglang = ('  File "/usr/lib/python3.11/site-packages/sglang/srt/distributed/utils.py", line 23, in ensure_divisibility\n'
              '    assert numerator % denominator == 0, "{} is not divisible by {}".format(\n'
              "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^\nAssertionError: 16 is not divisible by 6")
    matches, foreign = m.lookup(sglang)
    assert matches == [] and foreign["id"] == "exception-not-in-vllm"
    assert top(m, "AssertionError: 16 is not divisible by 6") == "e0"
    message = ("ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
               "initializing the engine.")
    own = ('  File "/x/site-packages/someplugin/worker.py", line 9, in init\n'
           '    raise ValueError("No available memory for the cache blocks. Try increasing `gpu_memory_utilization` "\n' + message)
    assert m.lookup(own)[0] == []
    again = '  File "/x/site-packages/someplugin/worker.py", line 9, in init\n    raise e\n' + message
    assert top(m, again) == "e1"


def test_pydantics_value_error_stands_for_the_type():
    """pydantic reports a ValueError it caught as "Value error, <message>": beside the message,
    it names it as "ValueError:" does (a title that quotes a short first sentence, then its own words)."""
    m = tiny_matcher(("ValueError", "Found unknown quantization='{q}' in config. Supported: fp8."),
                     ("ValueError", "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` "
                                    "when initializing the engine."))
    paste = ("1 validation error for ModelConfig\n  Value error, No available memory for the cache blocks on my H20 "
             "[type=value_error, input_value=ArgsKwargs((), {}), input_type=ArgsKwargs]")
    matches, _ = m.lookup(paste)
    assert [x.error.id for x in matches][:1] == ["e1"] and matches[0].verdict == "exact" and matches[0].exception_agrees
    assert all(x.verdict != "exact" for x in m.lookup("Sadly, No available memory for the cache blocks on my H20")[0])


def test_an_exception_above_vllms_report_of_a_failure_above_is_the_answer():
    """"Engine core initialization failed. See root cause above." only reports: an exception
    above it that is not vLLM's is the failure, told as if nothing had matched."""
    m = tiny_matcher(("RuntimeError", "Engine core initialization failed. See root cause above. Failed core proc(s): {finished}"),
                     ("ValueError", "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
                                    "initializing the engine."))
    report = "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {'EngineCore_DP0': 1}"
    paste = "PermissionError: [Errno 13] Permission denied: '/app/.cache/vllm'\n" + report
    matches, foreign = m.lookup(paste)
    assert matches == [] and foreign["id"] == "permission-denied" and foreign["role"] == "answer"
    paste = "ValueError: Check 0 == ret failed, left operand=0, speculative_attention failed\n" + report
    matches, foreign = m.lookup(paste)
    assert matches == [] and foreign["id"] == "exception-not-in-vllm" and foreign["role"] == "answer"
    assert top(m, report) == "e0" and m.lookup(report)[1] is None  # the report alone
    vllms = ("ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
             "initializing the engine.\n")
    assert top(m, vllms + report) == "e1" and m.lookup(vllms + report)[1] is None  # vLLM's own failure above


def test_an_exception_above_vllms_report_that_a_worker_died_is_the_answer():
    """V0's "Worker X pid N died, exit code: C" only reports that a worker process died: the
    exception the worker printed above it, when not vLLM's, is the failure."""
    m = tiny_matcher(("ERROR", "Worker {process.name} pid {process.pid} died, exit code: {process.exitcode}", "log"),
                     ("ValueError", "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
                                    "initializing the engine."))
    report = "ERROR 01-24 11:29:28 multiproc_worker_utils.py:123] Worker VllmWorkerProcess pid 6961 died, exit code: -15"
    raised = ('ERROR 01-24 11:29:27 engine.py:366]   File "/usr/local/lib/python3.10/dist-packages/vllm/model_executor/'
              'models/internlm2.py", line 430, in load_weights\n'
              "ERROR 01-24 11:29:27 engine.py:366]     param = params_dict[name]\n"
              "ERROR 01-24 11:29:27 engine.py:366] KeyError: 'model.layers.0.attention.wqkv.qweight'\n")
    matches, foreign = m.lookup(raised + report)
    assert matches == [] and foreign["id"] == "checkpoint-tensor-not-in-model" and foreign["role"] == "answer"
    assert top(m, report) == "e0" and m.lookup(report)[1] is None  # the report alone
    vllms = ("ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
             "initializing the engine.\n")
    assert top(m, vllms + report) == "e1"  # vLLM's own failure above


def test_the_raising_frame_does_not_keep_a_message_a_longer_one_grew_from():
    """v0.8.0 raised "Worker failed" in collective_rpc; later releases raise "Worker failed with
    error '...'" there. A paste under that frame that goes on in the longer one's words shows
    the longer one, though the frame names the shorter's function."""
    site = [{"path": "vllm/v1/executor/multiproc_executor.py", "line": 124, "function": "MultiprocExecutor.collective_rpc"}]
    errors = [LookupError_("e0", "RuntimeError", "Worker failed", "RuntimeError: Worker failed", "", ["v1"], site),
              LookupError_("e1", "RuntimeError", "Worker failed with error '{result}', please check the stack trace above for "
                           "the root cause", "RuntimeError: Worker failed with error", "", ["v2"],
                           [{"path": "vllm/v1/executor/multiproc_executor.py", "line": 525, "function": "get_response"}])]
    m = Matcher(errors, [[error.template] for error in errors])
    frame = ('  File "/x/site-packages/vllm/v1/executor/multiproc_executor.py", line 185, in collective_rpc\n'
             "    raise RuntimeError(\n")
    assert top(m, frame + "RuntimeError: Worker failed with error 'at 1:0:") == "e1"
    assert top(m, frame + "RuntimeError: Worker failed") == "e0"


def test_a_wrapper_that_ends_on_the_inner_messages_full_stop_loses_to_it():
    """"Exception in worker X while processing method {method}." around "Torch SPDA does not
    support logits soft cap.": both end on the same full stop; words of the outer's after its
    value are no part of an inner ("Block {h} not found" inside "Parameter {name} not found ...")."""
    m = tiny_matcher(("ERROR", "Exception in worker {process_name} while processing method {method}.", "log"),
                     ("ValueError", "Torch SPDA does not support logits soft cap."))
    text = "Exception in worker VllmWorkerProcess while processing method load_model: Torch SPDA does not support logits soft cap., Traceback"
    assert [x.error.id for x in m.lookup(text)[0]] == ["e1", "e0"]
    m = tiny_matcher(("WARNING", "Parameter {name} not found in params_dict, skip loading", "log"), ("KeyError", "Block {block_hash!r} not found"))
    assert top(m, "Parameter visual.blocks.6.attn.proj.weight not found in params_dict, skip loading") == "e0"


def test_a_message_behind_another_programs_words_is_its_raise_when_the_frame_names_it():
    """A short message alone is trusted only as a whole line; under the frame of its raise,
    with the type agreeing, its words after a decoration ("[address=..., pid=432] ") are it."""
    errors = [LookupError_("e0", "RuntimeError", "NCCL error: {error_str}", "RuntimeError: NCCL error", "", ["v1"],
                           [{"path": "vllm/distributed/device_communicators/pynccl_wrapper.py", "line": 257,
                             "function": "NCCLLibrary.NCCL_CHECK"}])]
    m = Matcher(errors, [[error.template] for error in errors])
    line = "RuntimeError: [address=10.11.238.116:41643, pid=432] NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)"
    frame = ('  File "/usr/local/lib/python3.12/dist-packages/vllm/distributed/device_communicators/pynccl_wrapper.py", '
             'line 257, in NCCL_CHECK\n    raise RuntimeError(f"NCCL error: {error_str}")\n')
    (match,), _ = m.lookup(frame + line)
    assert match.error.id == "e0" and match.verdict == "exact" and match.frame
    plain = Matcher(errors, [[error.template] for error in errors], foreign=[])  # no foreign rule names these words vLLM's
    assert top(plain, line) is None  # without the frame, two words inside a line are not the message
    assert top(plain, frame + line.replace("RuntimeError", "ValueError")) is None  # another type
    assert top(m, frame + "RuntimeError: [address=1] NCCL failed") is None  # not vLLM's words
    # (with the package's rules, NCCL's own words after them make them pynccl's: test_vllms_words_that_a_foreign_rule_names)
    (match,), _ = m.lookup(line)
    assert match.error.id == "e0" and match.carried


def test_frame_identifies_a_raise_without_message():
    errors = [LookupError_("e0", "NotImplementedError", "", "NotImplementedError", "", ["v1"], [{"path": "vllm/a/b.py", "line": 3, "function": "C.run"}])]
    m = Matcher(errors, [[]])
    tb = 'Traceback (most recent call last):\n  File "/usr/lib/python3/site-packages/vllm/a/b.py", line 3, in run\n    raise NotImplementedError\nNotImplementedError'
    assert top(m, tb) == "e0"



def test_a_paste_cut_at_an_asserts_line_is_that_assert_when_it_has_a_message():
    """A traceback cut on the assert's own line, before Python printed AssertionError: the frame
    names the function's assert with a message; an assert with none is not in the catalog, so a
    line without a message's comma is no assert of the function's."""
    template = "num_decodes: {num_decodes}, num_spec_decodes: {num_spec_decodes}"
    errors = [LookupError_("e0", "AssertionError", template, "AssertionError: num_decodes", "", ["v1"],
                           [{"path": "vllm/v1/attention/backends/gdn_attn.py", "line": 310, "function": "GDNAttentionMetadataBuilder.build"}])]
    m = Matcher(errors, [[template]])
    frame = '  File "/x/site-packages/vllm/v1/attention/backends/gdn_attn.py", line 310, in build\n'
    (match,), _ = m.lookup(frame + "    assert not (num_decodes > 0 and num_spec_decodes > 0), (")
    assert match.error.id == "e0" and match.frame
    assert top(m, frame + "    assert isinstance(kv_cache_spec, AttentionSpec)") is None  # no message: not the catalog's
    assert top(m, frame + '    assert x == "a, b"') is None  # the comma is inside a string


def test_a_raise_shown_above_the_error_it_was_raised_from_is_the_answer():
    """A JSON log's "message" above its "exc_info", or logger.exception's message above its
    traceback: vLLM's ImportError first, then the ModuleNotFoundError raised in the same
    function, then Python's words that it caused the next exception. vLLM's error is the
    answer, the foreign one its cause; not when the foreign error was raised elsewhere."""
    template = "Please install bitsandbytes>=0.45.0 via `pip install bitsandbytes>=0.45.0` to use bitsandbytes quantizer."
    errors = [LookupError_("e0", "ImportError", template, "ImportError: Please install bitsandbytes", "", ["v1"],
                           [{"path": "vllm/model_executor/layers/quantization/bitsandbytes.py", "line": 162,
                             "function": "BitsAndBytesLinearMethod.__init__"}])]
    m = Matcher(errors, [[template]])
    frame = '  File "/x/site-packages/vllm/model_executor/layers/quantization/bitsandbytes.py", line 157, in __init__\n'
    paste = ('{"message": "' + template + '", "exc_info": "Traceback (most recent call last):\\n' + frame.replace("\n", "\\n").replace('"', '\\"')
             + "    import bitsandbytes\\nModuleNotFoundError: No module named 'bitsandbytes'\\n\\nThe above exception was the direct cause of "
             + 'the following exception:\\n\\nTraceback (most recent call last):\\n  File \\"/x/vllm/engine/llm_engine.py\\", line 82, in __init__"}')
    matches, foreign = m.lookup(paste)
    assert [x.error.id for x in matches] == ["e0"] and foreign["id"] == "python-missing-module" and foreign["role"] == "cause"
    elsewhere = paste.replace("quantization/bitsandbytes.py", "quantization/other.py")
    matches, foreign = m.lookup(elsewhere)
    assert matches == [] and foreign["id"] == "python-missing-module" and foreign["role"] == "answer"



def test_a_python_exception_that_another_programs_log_line_reports_is_vllms_raise():
    """Triton's vLLM backend logs the raise it caught after glog's header ("E0919 ...
    backend_model.cc:692] "ERROR: Failed to create instance: ValueError: ..."): the message after
    the exception's type is vLLM's when vLLM raises it with that type; not after another type,
    nor as a line of that program's own words."""
    m = tiny_matcher(("ValueError", "Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your {gpu_name} GPU {compute_str}."))
    line = ('E0919 14:14:30.488397 108294 backend_model.cc:692] "ERROR: Failed to create instance: {}Bfloat16 is only supported on GPUs '
            'with compute capability of at least 8.0. Your Tesla V100-SXM2-32GB GPU has compute capability 7.0.')
    assert top(m, line.format("ValueError: ")) == "e0"
    assert top(m, line.format("RuntimeError: ")) is None
    assert top(m, line.format("")) is None




def test_a_paste_that_is_only_one_of_vllms_exception_types_names_its_errors():
    """An issue's title that is only "vllm.engine.async_llm_engine.AsyncEngineDeadError" (or
    "[Bug]: EngineDeadError"): the errors raised with that type, partial; not a type of Python's
    own, nor a type no release raises, nor the type with words after it."""
    m = tiny_matcher(("AsyncEngineDeadError", "Background loop has errored already."),
                     ("ValueError", "Background loop is stopped."))
    (match,), _ = m.lookup("vllm.engine.async_llm_engine.AsyncEngineDeadError")
    assert match.error.id == "e0" and match.verdict == "partial" and match.to_json()["type_only"] is True
    assert "type_only" not in m.lookup("AsyncEngineDeadError: Background loop has errored already.")[0][0].to_json()
    assert top(m, "[Bug]: AsyncEngineDeadError") == "e0"
    assert top(m, "ValueError") is None
    assert top(m, "[Bug]: SomeOtherError") is None
    assert top(m, "AsyncEngineDeadError when serving two models") is None

def test_the_words_that_open_another_python_loggers_line_are_its_own():
    """Python logging's default header of another package ("ERROR:lightrag:Failed to process
    document ...") opens a line of that program's words, not vLLM's "Failed to process {operation}:
    {e}"; a vLLM message it quotes after words of its own is vLLM's, and a vllm logger's line in
    that format is vLLM's line."""
    m = tiny_matcher(("RuntimeError", "Failed to process {operation}: {e}"),
                     ("ValueError", "The decoder prompt (length {n}) is longer than the maximum model length of {m}."))
    assert top(m, "ERROR:lightrag:Failed to process document doc-1: index 0 is out of bounds for axis 0 with size 0") is None
    assert top(m, "ERROR:app.services:Request failed: The decoder prompt (length 9000) is longer than the maximum model length of 8192.") == "e1"
    assert top(m, "ERROR:vllm.engine:Failed to process document doc-1: boom") == "e0"

def test_a_weak_foreign_error_below_vllms_report_logged_above_its_traceback_is_the_answer():
    """"EngineCore encountered a fatal error." (logger.exception's line, its traceback below) says
    nothing of the cause: the bare assert the traceback ends on is the answer, as if nothing had
    matched; the report stays the answer when the traceback ends on nothing another rule tells."""
    m = tiny_matcher(("ERROR", "EngineCore encountered a fatal error.", "log"))
    report = "(EngineCore_DP0 pid=9182) ERROR 11-30 08:21:36 [core.py:720] EngineCore encountered a fatal error.\nTraceback (most recent call last):\n"
    frame = '  File "/x/vllm/v1/core/sched/scheduler.py", line 977, in update_from_output\n'
    matches, foreign = m.lookup(report + frame + "    assert not prompt_logprobs_tensors\nAssertionError\n")
    assert matches == [] and foreign["id"] == "python-error-in-code" and foreign["role"] == "answer"
    assert top(m, report + frame + "    self.step()\n") == "e0"

def test_the_raising_frame_names_a_message_another_release_worded_otherwise_or_not_shown_yet():
    template = ("Failed to load the tokenizer. If the tokenizer is a custom tokenizer not yet available in the "
                "HuggingFace transformers library, consider setting `trust_remote_code=True`.")
    errors = [LookupError_("e0", "RuntimeError", template, "RuntimeError: Failed to load the tokenizer", "", ["v1"],
                           [{"path": "vllm/transformers_utils/tokenizer.py", "line": 9, "function": "get_tokenizer"}])]
    m = Matcher(errors, [[template]])
    frame = ('  File "/x/site-packages/vllm/transformers_utils/tokenizer.py", line 42, in get_tokenizer\n'
             "    raise RuntimeError(err_msg) from e\n")
    older = "RuntimeError: Failed to load the tokenizer. If you are using a LLaMA-based model, use 'hf-internal-testing/llama-tokenizer' instead."
    (match,), _ = m.lookup(frame + older)
    assert match.error.id == "e0" and match.frame and match.verdict == "partial"
    assert top(m, older) is None  # without the frame, the first words alone are no match
    assert top(m, frame + "RuntimeError: Failed to load the weights of the model from the disk") is None  # too few words in common
    # a message raised as a tuple, cut after its opening parenthesis: no word shown, the frame names it
    assert top(m, frame + "RuntimeError: (") == "e0"
    assert top(m, frame + "ValueError: (") is None  # another type


def test_a_type_alone_under_a_raising_frame_is_no_message_of_words():
    """Python prints "AssertionError" alone for an assert with no message: the frame's function
    also asserts with a message elsewhere, but that one would have printed its words
    (unsloth's bnb checkpoint: the bare shape assert in linear.py's weight_loader)."""
    template = "Tried to load weights of size {loaded_weight.size()}to a parameter of size {param.size()}"
    errors = [LookupError_("e0", "AssertionError", template, "AssertionError: Tried to load weights", "", ["v1"],
                           [{"path": "vllm/model_executor/layers/linear.py", "line": 311, "function": "ReplicatedLinear.weight_loader"}])]
    m = Matcher(errors, [[template]])
    frame = ('  File "/x/site-packages/vllm/model_executor/layers/linear.py", line 1113, in weight_loader\n'
             "    assert param_data.shape == loaded_weight.shape\n")
    matches, foreign = m.lookup(frame + "AssertionError")
    assert not matches and foreign["id"] == "python-error-in-code"
    assert top(m, frame + "AssertionError: (") == "e0"  # cut after its opening parenthesis: the frame names it


def test_a_stock_phrase_that_the_line_goes_on_from_with_words_of_its_own_is_anothers():
    """vLLM's minimax tool parser logs "An unexpected error occurred" and no more; promptfoo's
    "An unexpected error occurred: Failed to perform extraction: API error: 404 Not Found" is its own."""
    m = tiny_matcher(("ERROR", "An unexpected error occurred", "log"), ("ValueError", "Failed to load {name}"))
    matches, foreign = m.lookup("An unexpected error occurred: Failed to perform extraction: API error: 404 Not Found")
    assert matches == [] and foreign["id"] == "message-not-in-vllm"
    assert top(m, "ERROR 05-02 10:11:12 [minimax_tool_parser.py:367] An unexpected error occurred") == "e0"
    assert top(m, "An unexpected error occurred.\nTraceback (most recent call last):") == "e0"
    assert top(m, "ValueError: Failed to load x: the file is gone") == "e1"  # a message with a value may go on


def test_a_report_whose_value_is_the_original_error_wraps_it():
    """V0's MQEngineDeadError ("Engine loop is not running. Inspect the stacktrace to find the
    original error: <repr of the error>") only points at the error in its value: that error is
    the answer, vLLM's (also where the engine logged it again on the next line) or another's."""
    dead = "Engine loop is not running. Inspect the stacktrace to find the original error"
    errors = [LookupError_("e0", "MQEngineDeadError", dead, "MQEngineDeadError", "", ["v1"], []),
              LookupError_("e1", "ValueError", "Attempted to assign {a} = {b} multimodal tokens to {c} placeholders",
                           "ValueError", "", ["v1"], [])]
    m = Matcher(errors, [[dead, dead + ": {repr(error)}."], [errors[1].template]])
    line = ("vllm.engine.multiprocessing.MQEngineDeadError: " + dead
            + ": ValueError('Attempted to assign 119 = 119 multimodal tokens to 120 placeholders').")
    assert top(m, line) == "e1"
    assert top(m, line + "\nERROR 06-03 17:37:31 [engine.py:160] ValueError('Attempted to assign 119 = 119 multimodal tokens to 120 placeholders')") == "e1"
    matches, foreign = m.lookup(dead + ": OutOfMemoryError('HIP out of memory. Tried to allocate 1.63 GiB. GPU 0 has a total "
                                "capacity of 63.98 GiB of which 1.18 GiB is free.').")
    assert foreign["id"] == "torch-cuda-out-of-memory" and foreign["role"] == "answer" and matches[0].error.id == "e0"
    assert top(m, dead + ": RuntimeError('Engine process (pid 20) died.').") == "e0"  # no error of its own in the value


def test_an_exception_another_program_reraised_under_its_own_type_is_vllms():
    """Dynamo re-raises what the code it traced raised under a type of its own, the inner
    type and message after it: vLLM's message is the answer, the compiler's error its wrapper."""
    text = ("Assigning / modifying buffers of nn.Module during forward pass is not allowed when using cudagraph "
            "inside the compiler because it will cause silent errors. Please use eager mode or fix the code.")
    m = tiny_matcher(("RuntimeError", text))
    line = "ERROR 12-29 07:19:20 core.py:200] torch._dynamo.exc.InternalTorchDynamoError: RuntimeError: " + text
    (match,), foreign = m.lookup(line)
    assert match.error.id == "e0" and foreign["id"] == "torch-compile-error" and foreign["role"] == "wrapper"
    # the words alone, without vLLM's type beside them, leave the compiler's error the answer
    matches, foreign = m.lookup("torch._dynamo.exc.InternalTorchDynamoError: " + text)
    assert not matches and foreign["id"] == "torch-compile-error" and foreign["role"] == "answer"


def test_a_named_message_whose_opening_is_shown_whole_then_other_words_is_partial():
    """An issue title that names the exception and quotes the message's opening words whole,
    then says the rest in its own ("... with vLLM (ms_swift not propagating seed)")."""
    m = tiny_matcher(("AssertionError", "Seed must be set when using external launcher backend to make sure sampling "
                                        "results are the same across workers."))
    (match,), _ = m.lookup("AssertionError: Seed must be set when using external launcher backend with vLLM (ms_swift not propagating seed)")
    assert match.error.id == "e0" and match.verdict == "partial"
    assert top(m, "[Bug]: Seed must be set when using external launcher backend with vLLM") == "e0"
    assert top(m, "Seed must be set when using external launcher backend with vLLM") is None  # not named as one
    assert top(m, "AssertionError: Seed must be set when using the launcher with vLLM") is None  # its opening not shown whole


def test_next_words_found_inside_a_word_of_the_value_are_no_divergence():
    """ "ValueError: Failed to apply MistralCommonPixtralProcessor" is the message cut after its
    first value: the "on" of "...Common..." is no start of vLLM's next words ("on data=")."""
    m = tiny_matcher(("ValueError", "Failed to apply {name} on data={data} with kwargs={kwargs}"))
    assert top(m, "ValueError: Failed to apply MistralCommonPixtralProcessor") == "e0"
    assert top(m, "ValueError: Failed to apply Qwen2VLProcessor") == "e0"
    assert top(m, "ValueError: Failed to apply Qwen2VLProcessor on my images today") is None  # its own words after "on"


def test_a_report_with_its_raising_frame_that_says_see_above_leaves_the_failure_above_the_answer():
    """V1's "EngineCore encountered an issue. See stack trace (above) for the root cause.", raised
    where the traceback shows (get_output_async), only reports the failure above it: a flash-attn
    whose function takes other arguments is the answer, the report listed after it."""
    template = "EngineCore encountered an issue. See stack trace (above) for the root cause."
    errors = [LookupError_("e0", "EngineDeadError", template, "EngineDeadError", "", ["v1"],
                           [{"path": "vllm/v1/engine/core_client.py", "line": 740, "function": "AsyncMPClient.get_output_async"}])]
    m = Matcher(errors, [[template]])
    paste = ("ERROR 07-07 02:22:12 [core.py:588] TypeError: flash_attn_varlen_func() got an unexpected keyword argument 'num_splits'\n"
             "ERROR 07-07 02:22:12 [async_llm.py:419] AsyncLLM output_handler failed.\n"
             "ERROR 07-07 02:22:12 [async_llm.py:419] Traceback (most recent call last):\n"
             '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core_client.py", line 740, in get_output_async\n'
             "    raise self._format_exception(outputs) from None\n"
             "vllm.v1.engine.exceptions.EngineDeadError: " + template)
    matches, foreign = m.lookup(paste)
    assert [x.error.id for x in matches] == ["e0"] and matches[0].frame
    assert foreign is not None and foreign["role"] == "answer"


def test_words_of_an_exception_type_name_are_not_its_message():
    m = tiny_matcher(("NotImplementedError", "not implemented"))
    assert top(m, "NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:") is None
    assert top(m, "NotImplementedError: not implemented") == "e0"




def test_nothing_matched_and_the_traceback_ends_in_another_package():
    m = tiny_matcher(("ValueError", "an unrelated vLLM message about max_model_len"))
    tb = ('Traceback (most recent call last):\n  File "/opt/venv/lib/python3.12/site-packages/vllm/worker.py", line 3, in run\n'
          '  File "/opt/venv/lib/python3.12/site-packages/unsloth_zoo/vllm_utils.py", line 9, in patch\n'
          "RuntimeError: something only that package says")
    matches, foreign = m.lookup(tb)
    assert matches == [] and foreign["source"] == "unsloth_zoo" and foreign["role"] == "answer"
    assert m.lookup(tb.replace("unsloth_zoo/vllm_utils.py", "vllm/utils.py"))[1] is None

def test_nothing_matched_and_the_exception_type_names_another_package():
    m = tiny_matcher(("ValueError", "an unrelated vLLM message about max_model_len"))
    matches, foreign = m.lookup("huggingface_hub.errors.HfHubHTTPError: 500 Server Error for url: https://example.org/x")
    assert matches == [] and foreign["source"] == "huggingface_hub" and foreign["role"] == "answer"
    assert "huggingface_hub.errors.HfHubHTTPError" in foreign["reason"]
    # vLLM's own types, the user's script and a bare builtin name no other package
    for paste in ("vllm.v1.engine.exceptions.EngineDeadError: something", "__main__.MyError: mine", "RuntimeError: something"):
        assert m.lookup(paste)[1] is None, paste


def test_a_log_line_that_repeats_vllms_message_with_the_foreign_error_keeps_vllms_first(history_matcher):
    paste = ("RuntimeError: Error in model execution (input dumped to /tmp/err.pkl): FlashAttention only supports Ampere GPUs or newer.\n"
             "INFO 01-11 13:09:40 model_runner_base.py:149] Completed writing input of failed execution to /tmp/err.pkl.\n"
             "ERROR 01-11 13:09:40 engine.py:366] Error in model execution (input dumped to /tmp/err.pkl): FlashAttention only supports Ampere GPUs or newer.")
    matches, foreign = history_matcher.lookup(paste)
    assert matches and matches[0].error.template.startswith("Error in model execution")
    assert foreign["id"] == "flash-attn-unsupported-gpu" and foreign["role"] == "cause"


def test_a_link_lineage_yaml_keeps_apart_is_two_problems(history_matcher):
    """The text's lineage links the `transformers` log (gone after v0.28.0) to the `mistral_common`
    one logged beside it; errors/lineage.yaml keeps the two apart."""
    matches, _ = history_matcher.lookup("ERROR 03-02 10:00:00 [hf.py:797] An error occurred in `transformers` while applying chat template")
    top = matches[0]
    assert (top.current or top.error).id == "a814276e14d65f7a"
    assert "3572a7f6917698db" not in {a.id for a in top.also}


def test_a_logged_message_is_no_exceptions_message():
    from generator.lookup.match import LookupError_, Matcher

    errors = [LookupError_("e0", "ERROR", "Failed to load {filename}", "Failed to load", "", ["v1"], [], kind="log"),
              LookupError_("e1", "RuntimeError", "Failed to load the tokenizer. If the tokenizer is a custom tokenizer, set trust_remote_code.",
                           "Failed to load the tokenizer", "", ["v1"], [])]
    m = Matcher(errors, [[e.template] for e in errors])
    matches, _ = m.lookup("RuntimeError: Failed to load the tokenizer. If the tokenizer is a custom tokenizer, set trust_remote_code.")
    assert [x.error.id for x in matches] == ["e1"]
    assert top(m, "RuntimeError: Failed to load the weights") is None
    assert top(m, "ERROR 01-02 03:04:05 [adapters.py:113] Failed to load score_weights.pt") == "e0"
    # a bare "Error:" is no exception type (Python has no class of that name): a user's or a CLI's word for it
    assert top(m, "Error: Failed to load score_weights.pt") == "e0"
    warned = tiny_matcher(("WARNING", "Tensor parallel size ({world_size}) exceeds available GPUs ({available_gpus}). This may result "
                                      "in Ray placement group allocation failures.", "log"))
    assert top(warned, "Error: Tensor parallel size (16) exceeds available GPUs (8) when serving Qwen3-32B") == "e0"
    assert top(warned, "ValueError: Tensor parallel size (16) exceeds available GPUs (8) when serving Qwen3-32B") is None


def test_a_message_that_opens_with_a_value_does_not_take_the_exception_type_for_it():
    """"{label}: expected {typ}, got {val}" (v0.26's session protocol) fits "AssertionError:
    Expected kv_cache to have 4 dims, got 5" with the type as its label: the type is no value."""
    m = tiny_matcher(("ValueError", "{label}: expected {typ.__name__}, got {type(val).__name__}"),
                     ("AssertionError", "Expected kv_cache to have 4 dims, got {tuple(kv_cache.shape)}"))
    for paste in ("AssertionError: Expected kv_cache to have 4 dims, got (2, 16, 8)",
                  "[Bug]: AssertionError: Expected kv_cache to have 4 dims, got (2, 16, 8) on H100"):
        assert [x.error.id for x in m.lookup(paste)[0]][:1] == ["e1"], paste
    assert top(m, "ValueError: session_id: expected int, got str") == "e0"  # a label of its own
    # ... nor another's words, where they are fewer than the message's own
    pp = tiny_matcher(("ValueError", "{method} with pipeline parallel is not supported."),
                      ("NotImplementedError", "Pipeline parallelism is not supported yet."))
    assert top(pp, 'Qwen3-32B fails with "Pipeline parallelism is not supported yet."') == "e1"
    # ... nor an issue title's tag, or a JSON key, for its label: a whole message of fewer words of
    # its own does not make the longer one inside it a reading of its words
    for paste in ("[Bug]: Expected kv_cache to have 4 dims, got (2, 16, 8)",
                  '{"object":"error","message":"Expected kv_cache to have 4 dims, got (2, 16, 8)","code":500}'):
        assert [x.error.id for x in m.lookup(paste)[0]][:1] == ["e1"], paste


def test_a_template_of_only_common_grams_is_still_a_candidate():
    """"Tool '{tool_name}' is not supported": "supported" is in more templates than a gram
    tells anything about, and "Tool" is shorter than a gram: it is tried on every paste."""
    from generator.lookup.match import STOP_GRAM_ENTRIES

    many = [("ValueError", f"Feature number {i} is not supported") for i in range(STOP_GRAM_ENTRIES + 1)]
    m = tiny_matcher(*many, ("KeyError", "Tool '{tool_name}' is not supported"))
    tool = f"e{len(many)}"
    assert top(m, "KeyError: Tool 'get_weather' is not supported") == tool
    assert top(m, "Tool 'get_weather' is not supported") == tool


def test_a_word_before_a_value_does_not_run_on_in_the_paste():
    """"Error in {name}: {e}" has a space after "in": "Error Internal (...:60)" is another word."""
    m = tiny_matcher(("ERROR", "Error in {name}: {e}", "log"))
    assert top(m, "Error: Error Internal (cutlass_kernel_file_gemm_grouped_sm120.generated.cu:60)") is None
    assert top(m, "Error: Error in cutlass_kernel_file_gemm_grouped_sm120.generated.cu: 60") == "e0"
    # a word found after a value may be found first inside another word; the walk's later find is not judged so
    cast = tiny_matcher(("WARNING", "Casting {src} to {dst}.", "log"))
    assert top(cast, "WARNING: Casting torch.bfloat16 to torch.float16.") == "e0"

def test_a_word_before_a_quoted_value_does_not_run_on_in_the_paste():
    """"Model architecture '{model_arch}'" has a space and a quote after "architecture", which
    squashing drops: "Model architectures [...] are ... for now." is another message, cut and
    elided, not this one with "s [...]" for its value."""
    m = tiny_matcher(("ValueError", "Model architecture '{model_arch}' is not supported by ROCm for now."))
    assert top(m, "ValueError: Model architectures ['TTQwen2ForCausalLM'] are ... for now.") is None
    assert top(m, "ValueError: Model architecture 'TTQwen2ForCausalLM' is not supported by ROCm for now.") == "e0"


def test_a_message_raised_in_another_packages_frame_is_not_vllms():
    """vLLM once copied transformers' rope_scaling check: the frame says who raised it."""
    m = tiny_matcher(("ValueError", "`rope_scaling` must be a dictionary with two fields, `type` and `factor`, got {self.rope_scaling}"))
    tb = ('Traceback (most recent call last):\n  File "/usr/lib/python3/dist-packages/transformers/models/llama/configuration_llama.py", line 182, in _rope_scaling_validation\n'
          "    raise ValueError(\nValueError: `rope_scaling` must be a dictionary with two fields, `type` and `factor`, got {'factor': 8.0}")
    matches, foreign = m.lookup(tb)
    assert matches == [] and foreign["source"] == "transformers" and foreign["role"] == "answer"
    assert top(m, tb.replace("/transformers/models/llama/", "/vllm/transformers_utils/")) == "e0"



def test_a_near_match_later_on_a_line_another_package_raised_is_not_vllms():
    """SGLang keeps copies of vLLM's older checks, worded a little differently."""
    m = tiny_matcher(("AttributeError", "MoE Model {type(model).__name__} does not support BitsAndBytes quantization yet. Ensure this model has 'get_expert_mapping' method."))
    tb = ('  File "/sgl-workspace/sglang/python/sglang/srt/model_loader/loader.py", line 1002, in _load_weights\n'
          "    raise AttributeError(\n"
          "AttributeError: Model Qwen2_5_VLForConditionalGeneration does not support BitsAndBytes quantization yet.")
    matches, foreign = m.lookup(tb)
    assert matches == [] and foreign["source"] == "sglang" and foreign["role"] == "answer"
    assert foreign["id"] == "exception-not-in-vllm" and "sglang's own code" in foreign["reason"]  # its page, and which package
    assert top(m, tb.replace("/sgl-workspace/sglang/python/sglang/srt/", "/opt/venv/lib/python3.12/site-packages/vllm/")) == "e0"


def test_a_frame_line_that_ends_in_spaces_still_names_the_package_that_raised():
    """A terminal's width pads the frame line with spaces; the code line under it is still the raise."""
    m = tiny_matcher(("ValueError", "Unsupported backend: {args.backend}"))
    tb = ('  File "/envs/q/lib/python3.10/site-packages/gptqmodel/utils/importer.py", line 92, in get_kernel_for_backend' + " " * 25 + "\n"
          '    raise ValueError(f"Unsupported backend: `{backend}` for `{quant_method}` with format `{fmt}`")' + " " * 20 + "\n"
          "ValueError: Unsupported backend: `gptq_marlin` for `gptq` with format `gptq_v2`")
    matches, foreign = m.lookup(tb)
    assert matches == [] and foreign["source"] == "gptqmodel" and foreign["role"] == "answer"


def test_a_traceback_that_ends_outside_vllm_in_no_package_is_another_programs():
    """ms-swift run from its source checkout: the traceback's last frame is in a file of no
    installed package and no vLLM's, and the assert's message is no vLLM message: another
    program's error, told as the last rule (the file named in why). A frame of vLLM's, of a fork or
    plugin named after it, or Python's made-up "<frozen ...>" module tells nothing that way."""
    m = tiny_matcher(("ValueError", "Unsupported backend: {args.backend}"))
    head = 'Traceback (most recent call last):\n'
    swift = ('  File "/home/u/ms-swift-3.7.1/swift/llm/template/base.py", line 1107, in _swift_encode\n'
             "    assert query_role in {'user', 'tool'}, f'query_role: {query_role}'\nquery_role: tool_call")
    matches, foreign = m.lookup(head + swift)
    assert matches == [] and foreign["id"] == "exception-not-in-vllm" and foreign["role"] == "answer"
    assert foreign["source"] == "code outside vLLM" and "swift/llm/template/base.py" not in foreign["why"]
    assert "llm/template/base.py" in foreign["why"]
    for path in ("/home/u/vllm/vllm/v1/engine/core.py", "/home/u/my-vllm-fork/worker/runner.py", "<frozen importlib._bootstrap>"):
        paste = head + f'  File "{path}", line 9, in f\n    run(x)\nquery_role: tool_call'
        assert m.lookup(paste)[1] is None, path
    # vLLM's message under it is still vLLM's; an exception of vLLM's own type, under frames left out, is not the script's
    assert top(m, head + swift.replace("query_role: tool_call", "ValueError: Unsupported backend: 'x'")) == "e0"
    m = tiny_matcher(("ValueError", "Unsupported backend: {args.backend}"), ("VLLMValidationError", "Bad request: {x}"))
    script = head + '  File "/home/u/run.py", line 3, in <module>\n    llm.generate(prompts)\n'
    assert m.lookup(script + "VLLMValidationError: top_p is out of range today")[1] is None
    assert m.lookup(script + "query_role: tool_call")[1]["source"] == "code outside vLLM"


def test_a_near_match_raised_with_a_type_its_problem_never_had_is_another_programs():
    """SGLang's "NotImplementedError: Current platform does not support w4a4 nvfp4 quantization."
    reads like vLLM's ValueError, reworded: the near match is listed, the foreign error is the answer."""
    m = tiny_matcher(("ValueError", "Current platform does not support NVFP4 quantization. Please use Blackwell GPUs or enable FlashInfer."))
    matches, foreign = m.lookup("NotImplementedError: Current platform does not support w4a4 nvfp4 quantization.")
    assert foreign["id"] == "exception-not-in-vllm" and foreign["role"] == "answer"
    assert [x.error.id for x in matches] == ["e0"] and matches[0].verdict == "partial"
    # the same words with the type vLLM raises them with: vLLM's message, reworded
    matches, foreign = m.lookup("ValueError: Current platform does not support w4a4 nvfp4 quantization.")
    assert [x.error.id for x in matches] == ["e0"] and foreign is None
    # and the whole message with another type is still vLLM's (a type that migrated)
    matches, _ = m.lookup("RuntimeError: Current platform does not support NVFP4 quantization. Please use Blackwell GPUs or enable FlashInfer.")
    assert [x.error.id for x in matches] == ["e0"] and matches[0].verdict == "exact"


def test_a_few_words_of_vllms_with_their_capital_written_small_are_someone_elses():
    m = tiny_matcher(("ERROR", "Failed to load {filename}", "log"))
    assert top(m, "llama.cpp terminated unexpectedly: llama.cpp failed: failed to load model") is None
    assert top(m, "failed to load model") is None
    assert top(m, "ERROR 05-01 10:00:00 [adapters.py:113] Failed to load modules.json") == "e0"


def test_lines_that_say_what_is_wrong_in_other_words_are_another_programs_when_nothing_matched():
    m = tiny_matcher(("ValueError", "n exceeds the limit"))
    for line in ("vllmserver：did not find expected '-' indicator",
                 "vLLM backend is only available for API, CLI and Web.",
                 '{"code": "invalid_param", "message": "\'responses\'", "status": 400}',
                 # another program's logger at its CRITICAL level (AReaL's master worker)
                 "RayMasterWorker CRITICAL: the experiment will get stuck without more nodes",
                 "Completed 3 benchmarks, and errored 1 benchmarks",  # EuroEval's summary
                 "Standardized Ascend KV cache must contain two dense K/V planes, got 1 slots",
                 "Input should be a valid list [type=list_type, input_value={'test': 1}, input_type=dict]",  # pydantic's
                 "Expected shape (1, 512), but got (1, 768). Padding/truncating.",
                 "Received a list of 3 images, but a single image was expected",
                 "KV cache page size calculated by the plugin does not match the kernel's page size",
                 "WARNING:CUDA extension not installed.",
                 "destroy_process_group() was not called before program exit",
                 "thus you will not be able to save the model with the right weights"):
        matches, foreign = m.lookup(line)
        assert matches == [] and foreign["id"] == "message-not-in-vllm", line
    assert m.lookup('{"code": "ok", "message": "done", "status": 200}')[1] is None


def test_an_exception_type_of_another_package_links_the_page_for_exceptions_vllm_never_raises():
    m = tiny_matcher(("RuntimeError", "Engine process failed to start. See stack trace for the root cause."))
    matches, foreign = m.lookup("jax.errors.JaxRuntimeError: INVALID_ARGUMENT: MemoryStats is only supported for addressable PjRt devices.")
    assert matches == [] and foreign["source"] == "jax" and foreign["id"] == "exception-not-in-vllm" and foreign["url"]
    assert "jax.errors.JaxRuntimeError" in foreign["why"]  # the page is general: the answer says which type told it
    _, by_pattern = m.lookup("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")
    assert by_pattern["id"] == "torch-cuda-out-of-memory" and "why" not in by_pattern


def test_a_value_cut_at_the_lines_end_needs_the_message_to_open_there():
    m = tiny_matcher(("WARNING", "The environment variable {env_var} is deprecated and ignored. Set {new_key} inside kv_transfer_config instead."))
    # the words open a sentence of someone else's, mid-line: not vLLM's message cut short
    assert top(m, "ImportError: vLLM is not installed. If so, run once with the environment variable NRL_FORCE_REBUILD_VENVS=true set") is None
    # the message opens its line (after a log prefix, or pydantic's "Value error, ") and is cut inside its value
    assert top(m, "WARNING 05-01 10:00:00 [nixl.py:12] The environment variable VLLM_NIXL_SIDE_CHANNEL_PORT") == "e0"
    assert top(m, "Value error, The environment variable VLLM_NIXL_SIDE_CHANNEL_PORT") == "e0"


def test_a_vllm_line_that_calls_another_package_names_that_package():
    """Compiled code adds no frame: the exception under vLLM's call line is the callee's."""
    m = tiny_matcher(("RuntimeError", "Engine process failed to start. See stack trace for the root cause."))
    tb = ('  File "/home/u/vllm/vllm/v1/worker/tpu_model_runner.py", line 267, in _update_states\n'
          "    generator = torch.Generator(device=self.device)\n"
          "                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
          "RuntimeError: XLA device type not an accelerator.")
    matches, foreign = m.lookup(tb)
    assert matches == [] and foreign["source"] == "torch" and "tpu_model_runner.py, line 267" in foreign["reason"]
    assert foreign["id"] == "exception-not-in-vllm"
    # a raise, or vLLM's own kernels through torch.ops, are no other package's
    assert m.lookup(tb.replace("generator = torch.Generator(device=self.device)", "raise RuntimeError(torch.Generator)"))[1] is None
    assert m.lookup(tb.replace("torch.Generator(device=self.device)", "torch.ops._C.rms_norm(out, x)"))[1] is None


def test_a_value_left_open_runs_on_over_the_lines_it_quotes():
    """CUDA's message takes three lines inside vLLM's quote; the quote never closes."""
    m = tiny_matcher(("RuntimeError", "Worker failed with error '{result}', please check the stack trace above for the root cause"))
    paste = ("RuntimeError: Worker failed with error 'CUDA error: no kernel image is available for execution on the device\n"
             "Search for `cudaErrorNoKernelImageForDevice' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html.\n"
             "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.")
    matches, foreign = m.lookup(paste)
    assert [x.error.id for x in matches] == ["e0"] and foreign["role"] == "cause"
    # a traceback after it starts another error: the foreign one there is the answer
    later = paste + "\nTraceback (most recent call last):\n  File \"x.py\", line 1, in f\nRuntimeError: CUDA error: an illegal memory access was encountered"
    matches, foreign = m.lookup(later)
    assert matches == [] and foreign["id"] == "cuda-illegal-memory-access" and foreign["role"] == "answer"


def test_a_failure_logged_after_a_warning_comes_first():
    """The longer warning matched more words, but the error after it is what the user hit."""
    m = tiny_matcher(("WARNING", "The following fields were present in the request but ignored: {fields}", "log"),
                     ("ERROR", "Error in extracting tool call from response.", "log"))
    log = ("WARNING 08-28 20:53:15 [protocol.py:81] The following fields were present in the request but ignored: {'thinking'}\n"
           "ERROR 08-28 20:53:16 [hermes_tool_parser.py:148] Error in extracting tool call from response.")
    assert [x.error.id for x in m.lookup(log)[0]] == ["e1", "e0"]
    # a warning alone is the answer
    assert [x.error.id for x in m.lookup(log.split("\n")[0])[0]] == ["e0"]


def test_of_several_warnings_the_last_the_paste_shows_comes_first():
    """A log of start-up warnings is cut where its writer's problem is (round 55's Spyre log)."""
    m = tiny_matcher(("WARNING", "Inductor compilation was disabled by user settings, optimizations settings that are "
                                 "only active during inductor compilation will be ignored.", "log"),
                     ("WARNING", "VLLM_CPU_KVCACHE_SPACE not set. Using {space} GiB for KV cache.", "log"),
                     ("ERROR", "Error in extracting tool call from response.", "log"))
    inductor = ("(EngineCore pid=53257) WARNING 03-31 17:59:51 [vllm.py:806] Inductor compilation was disabled by user settings, "
                "optimizations settings that are only active during inductor compilation will be ignored.")
    space = "(EngineCore pid=53257) WARNING 03-31 17:59:51 [cpu.py:136] VLLM_CPU_KVCACHE_SPACE not set. Using 251.88 GiB for KV cache."
    assert [x.error.id for x in m.lookup(f"{inductor}\n{space}")[0]] == ["e1", "e0"]
    assert [x.error.id for x in m.lookup(f"{space}\n{inductor}")[0]] == ["e0", "e1"]
    # a failure logged after the first warning still comes before them both
    failure = "ERROR 08-28 20:53:16 [hermes_tool_parser.py:148] Error in extracting tool call from response."
    assert m.lookup(f"{inductor}\n{failure}\n{space}")[0][0].error.id == "e2"
    # a warning's words inside the first's line are its value, not a later warning
    m = tiny_matcher(("WARNING", "We must use the `spawn` multiprocessing start method. Overriding VLLM_WORKER_MULTIPROC_METHOD to "
                                 "'spawn'. Reasons: {reasons}", "log"),
                     ("WARNING", "NUMA binding requires spawn method but got '{start_method}'. NUMA binding will be ineffective.", "log"))
    line = ("WARNING 12-04 20:54:53 [system_utils.py:154] We must use the `spawn` multiprocessing start method. Overriding "
            "VLLM_WORKER_MULTIPROC_METHOD to 'spawn'. Reasons: NUMA binding requires spawn method")
    assert m.lookup(line + "\nspawn")[0][0].error.id == "e0"


def test_a_traceback_cut_at_another_packages_raise_line_is_that_packages():
    """Round 57: vllm-ascend's own raise, cut before its exception line, reads like vLLM's message."""
    m = tiny_matcher(("NotImplementedError", "EPLB is not supported {method}."))
    paste = ('File "/vllm-workspace/vllm-ascend/vllm_ascend/eplb/utils.py", line 80, in model_register\n'
             ' raise NotImplementedError("EPLB is not supported.")')
    matches, foreign = m.lookup(paste)
    assert matches == [] and foreign["id"] == "exception-not-in-vllm" and foreign["source"] == "vllm_ascend"
    # vLLM's own file raises its own message; a line that only calls is no raise of the package's
    assert top(m, paste.replace("vllm-ascend/vllm_ascend/eplb", "vllm/vllm/model_executor")) == "e0"
    assert top(m, paste + "\n    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^") is None
    assert top(m, paste.replace(' raise NotImplementedError("EPLB is not supported.")', ' log("EPLB is not supported.")')) == "e0"


def test_a_sentence_printed_in_vllms_process_without_its_log_header_is_a_librarys():
    """Round 57: transformers' warning under "(APIServer pid=N)", with no "WARNING 05-13 ... [file.py:N]"."""
    m = tiny_matcher(("WARNING", "Casting {config_dtype} to {torch_dtype}.", "log"))
    line = ("(APIServer pid=65324) The image processor of type `Qwen2VLImageProcessor` is now loaded as a fast processor by "
            "default, even if the model checkpoint was saved with a slow processor.")
    matches, foreign = m.lookup(line)
    assert matches == [] and foreign["id"] == "message-not-in-vllm" and "without vLLM's log header" in foreign["reason"]
    assert foreign["line"].startswith("The image processor of type")
    # vLLM's header after the process's name: a plugin's line (the rule of round 55), not this one
    logged = m.lookup(line.replace(") The", ") WARNING 05-13 10:00:00 [processing.py:12] The"))[1]
    assert logged is not None and "log header" in logged["reason"] and "without" not in logged["reason"]
    # a code line, a header of what follows, or a line of vLLM's own words is none
    for other in ("(EngineCore_DP0 pid=1) engine_core = EngineCoreProc(*args, **kwargs)", "(EngineCore_DP0 pid=1) Process EngineCore_DP0:",
                  "(APIServer pid=1) Casting torch.bfloat16 to torch.float16."):
        matches, foreign = m.lookup(other)
        assert foreign is None or "without vLLM's log header" not in foreign["reason"], other
    assert top(m, "(APIServer pid=1) Casting torch.bfloat16 to torch.float16.") == "e0"
    # the line is the paste's last: one above a traceback's end says nothing
    assert m.lookup(line + "\nKeyboardInterrupt")[1] is None or "without vLLM's log header" not in m.lookup(line + "\nKeyboardInterrupt")[1]["reason"]


def test_a_last_line_under_another_programs_log_header_is_that_programs():
    """Round 76: Ray's logger ("... WARNING services.py:2022 -- ") and Gloo's "[Gloo] " wrote the
    paste's last line: not vLLM's, though its words say nothing of an error; vLLM's own header is no other's."""
    m = tiny_matcher(("WARNING", "Casting {config_dtype} to {torch_dtype}.", "log"))
    for line in ("2025-01-15 18:01:02,216\tWARNING services.py:2022 -- WARNING: The object store is using /tmp instead of /dev/shm "
                 "because /dev/shm has only 5367910400 bytes available.",
                 "[Gloo] Rank 0 is connected to 0 peer ranks. Expected number of connected peer ranks is : 0"):
        matches, foreign = m.lookup("INFO 01-15 18:01:00 [api_server.py:1] vLLM API server version 0.11.0\n" + line)
        assert matches == [] and foreign["id"] == "message-not-in-vllm" and "another program's log header" in foreign["reason"], line
    # vLLM's own header, or the other program's line above the paste's last line, is none of this rule's
    for other in ("INFO 01-15 18:01:00 [services.py:2022] The object store is using /tmp instead of /dev/shm",
                  "[Gloo] Rank 0 is connected to 0 peer ranks.\nINFO 01-15 18:01:00 [api_server.py:1] Starting the server now"):
        foreign = m.lookup(other)[1]
        assert foreign is None or "another program's log header" not in foreign["reason"], other
    # a vLLM message on the line is still vLLM's
    assert top(m, "[Gloo] Rank 0 is connected\nWARNING 01-15 18:01:00 [config.py:1] Casting torch.bfloat16 to torch.float16.") == "e0"


def test_the_index_stores_groups_without_each_current_errors_entry_for_itself():
    errors = {i: {"template": "Too large swap space. {x} GiB", "has_message": True, "versions": versions}
              for i, versions in (("a", ["v1"]), ("b", ["v1", "v2"]), ("c", ["v3"]))}
    errors["d"] = {"template": "Another message", "has_message": True, "versions": ["v3"]}
    groups = problem_groups(errors, ["v1", "v2", "v3"], [], {})
    assert groups == {"a": "c", "b": "c", "c": "c"}
    assert pack_groups(groups) == {"a": "c", "b": "c"}
    assert groups_of({"groups": pack_groups(groups)}) == groups
    assert groups_of({"groups": groups}) == groups  # a stored index of the older form reads the same


def test_pytorchs_cpp_log_header_is_another_programs_line():
    """Round 59: c10's "[W530 17:23:59.243033714 OperatorEntry.cpp:154] Warning: ..." (month and day unpadded)."""
    m = tiny_matcher(("ValueError", "Unsupported activation: {activation}"))
    line = ("[W530 17:23:59.243033714 OperatorEntry.cpp:154] Warning: Warning only once for all operators,  other operators "
            "may also be overridden.\n  Overriding a previously registered kernel for the same operator and the same dispatch key")
    matches, foreign = m.lookup(line)
    assert matches == [] and foreign["id"] == "message-not-in-vllm" and foreign["line"].startswith("[W530 17:23:59")
    # the words alone, with no header and no failure in them, report nothing
    assert m.lookup(line.replace("[W530 17:23:59.243033714 OperatorEntry.cpp:154] Warning: ", ""))[1] is None


def test_a_template_of_several_words_is_not_one_word_of_the_paste():
    m = tiny_matcher(("GenerationError", "Internal server error"))
    assert top(m, '{"error":{"message":"Unexpected token","type":"InternalServerError","param":null,"code":500}}') is None
    assert top(m, '{"error":{"message":"Internal server error","type":"InternalServerError","code":500}}') == "e0"


def test_a_notebooks_traceback_names_the_package_it_ends_in():
    """IPython (Jupyter, Colab) prints frames as "path in function(args)" or "File path:N, in function(args)"."""
    m = tiny_matcher(("RuntimeError", "Engine process failed to start. See stack trace for the root cause."))
    for frame in ("/usr/local/lib/python3.10/dist-packages/google/api_core/future/polling.py in result(self, timeout, retry)",
                  "File /usr/local/lib/python3.10/dist-packages/google/api_core/future/polling.py:261, in PollingFuture.result(self, timeout)"):
        paste = f"{frame}\n    259 \n--> 261     raise self._exception\n\nFailedPrecondition: 400 Model server exited unexpectedly."
        matches, foreign = m.lookup(paste)
        assert matches == [] and foreign["source"] == "google", frame


def test_a_message_whose_last_full_stop_the_paste_drops_is_the_message():
    m = tiny_matcher(("TimeoutError", "RPC call to {method} timed out."), ("ValueError", "max_model_len must be positive"))
    for paste in ("[Bug]: the decode node reports: RPC call to sample_tokens timed out",  # an issue title
                  "EngineCore crashes with TimeoutError: RPC call to sample_tokens timed out on DGX Spark (GB10)"):
        matches, _ = m.lookup(paste)
        assert [x.error.id for x in matches] == ["e0"] and matches[0].verdict == "exact", paste
        assert matches[0].values == {"method": "sample_tokens"}
    assert top(m, "RPC call to sample_tokens timed outside the window") is None  # a stop, not a word


def test_a_title_that_quotes_a_first_sentence_and_goes_on_is_that_message():
    m = tiny_matcher(("ValueError", "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` "
                                   "when initializing the engine."),
                     ("ValueError", "No available memory for the cache. Please reduce the batch size."))
    for paste in ("[Bug]: ValueError: No available memory for the cache blocks on main branch after commit 46f98893",
                  "ValueError: No available memory for the cache blocks. Happens on main after commit 46f98893"):
        matches, _ = m.lookup(paste)
        assert [x.error.id for x in matches][:1] == ["e0"] and matches[0].verdict == "exact", paste
    # ... or a sentence that ends with a value in brackets
    mamba = tiny_matcher(("ValueError", "max_num_seqs ({n}) exceeds available Mamba cache blocks ({m}). Each decode sequence "
                                        "requires one Mamba cache block."))
    for paste in ("ValueError: max_num_seqs (256) exceeds available Mamba cache blocks (128) when serving Qwen3-Next",
                  "ValueError: max_num_seqs (256) exceeds available Mamba cache blocks (128). Happens with Qwen3-Next"):
        matches, _ = mamba.lookup(paste)
        assert [x.error.id for x in matches] == ["e0"] and matches[0].verdict == "exact", paste
        assert matches[0].values == {"n": "256", "m": "128"}
    # without its type, a sentence as long as a nearly whole message still names it where it opens
    # the title; after another's words it does not, nor where its line ends after the value
    assert top(mamba, "max_num_seqs (256) exceeds available Mamba cache blocks (128) when serving Qwen3-Next") == "e0"
    assert top(mamba, "[Bug]: max_num_seqs (256) exceeds available Mamba cache blocks (128) when serving Qwen3-Next") == "e0"
    assert top(mamba, "Sadly max_num_seqs (256) exceeds available Mamba cache blocks (128) when serving Qwen3-Next") is None
    # ... or with words after a value
    context = tiny_matcher(("ValueError", "This model's maximum context length is {n} tokens. However, you requested "
                                          "{m} tokens. Please reduce the length of the messages."))
    matches, _ = context.lookup("[Bug]: ValueError: This model's maximum context length is 131072 tokens on my 8 GPUs")
    assert [x.error.id for x in matches] == ["e0"] and matches[0].verdict == "exact" and matches[0].values == {"n": "131072"}
    # ... with words after a value, however few the words before it
    node = tiny_matcher(("ValueError", "Current node has no {device_str} available. current_node_resource={r}."))
    assert top(node, "[Bug]: ValueError: Current node has no GPU available on my 8 GPUs") == "e0"
    # ... or with a quoted value: it closes where the sentence's stop would be
    backend = tiny_matcher(("ValueError", "Unknown attention backend: '{name}'. Valid options are: {options}"))
    matches, _ = backend.lookup("[Bug]: ValueError: Unknown attention backend: 'ASCEND' on my 910B")
    assert [x.error.id for x in matches] == ["e0"] and matches[0].verdict == "exact" and matches[0].values == {"name": "ASCEND"}
    # ... but not when the paste's word goes on ("tokensfoo")
    assert all(x.verdict != "exact" for x in context.lookup("ValueError: This model's maximum context length is 131072 "
                                                             "tokensfoo on my 8 GPUs")[0])
    # the other message's first sentence ends earlier: a title that stops there is that one
    assert top(m, "ValueError: No available memory for the cache on main branch after commit 46f98893") == "e1"
    # without its type, a sentence of 30 squashed letters or more names it where it opens a title
    # that goes on in words of no sentence of their own ...
    matches, _ = m.lookup("No available memory for the cache blocks on main branch after commit 46f98893")
    assert [x.error.id for x in matches][:1] == ["e0"] and matches[0].verdict == "exact"
    # ... also after a title's lead-in and its colon (a word of type that is no type of vLLM's)
    for paste in ("vLLM: No available memory for the cache blocks when serving Qwen3-32B",
                  "Error: No available memory for the cache blocks when serving Qwen3-32B",
                  "vllm serve Qwen3-32B fails\uff1aNo available memory for the cache blocks on 2x A100"):
        matches, _ = m.lookup(paste)
        assert [x.error.id for x in matches][:1] == ["e0"] and matches[0].verdict == "exact", paste
    # ... but not after a sentence of the title's own, nor in a log (vLLM logs its messages whole),
    # nor cut before the sentence ends: the rest is missing, no exact match
    for paste in ("No available memory for the cache blocks on main branch. After commit 46f98893 it works",
                  "[rank0]: No available memory for the cache blocks on main branch after commit 46f98893",
                  "vllm-1  | No available memory for the cache blocks on main branch after commit 46f98893",
                  "Sadly, No available memory for the cache blocks on main branch after commit 46f98893",
                  "ValueError: No available memory for the GPU on main branch after commit 46f98893"):
        assert all(x.verdict != "exact" for x in m.lookup(paste)[0]), paste
    # a shorter sentence needs its type or tag ("Failed to load the model config": 27 letters)
    config = tiny_matcher(("ValueError", "Failed to load the model config. If the model is a custom model not yet available "
                                         "in the HuggingFace transformers library, consider setting `trust_remote_code=True`."))
    assert all(x.verdict != "exact" for x in config.lookup("Failed to load the model config when serving Qwen3-32B")[0])
    assert top(config, "[Bug]: Failed to load the model config when serving Qwen3-32B") == "e0"


def test_a_title_quoting_a_first_sentence_that_is_the_first_chunk_whole_without_its_stop():
    """A first sentence short enough to be the message's whole first chunk is no anchor without
    its stop: "AsyncEngineDeadError: Task finished unexpectedly" (an issue title) is still that
    message, with its type beside it and however its own words go on; without its type, or with
    the paste's word going on, or with vLLM's later words reworded after it, it is not."""
    m = tiny_matcher(("AsyncEngineDeadError", "Task finished unexpectedly. This should never happen! Please open an "
                                              "issue on GitHub. See stack trace above for the actual cause."))
    for paste in ("AsyncEngineDeadError: Task finished unexpectedly",
                  "[Bug]: AsyncEngineDeadError: Task finished unexpectedly when serving Qwen2 on 8 GPUs"):
        matches, _ = m.lookup(paste)
        assert [x.error.id for x in matches] == ["e0"] and matches[0].verdict == "exact", paste
    # after an issue title's tag, which stands for the type
    matches, _ = m.lookup("[Bug]: Task finished unexpectedly when serving Qwen2 on 8 GPUs")
    assert [x.error.id for x in matches] == ["e0"] and matches[0].verdict == "exact" and not matches[0].exception_agrees
    for paste in ("Task finished unexpectedly", "AsyncEngineDeadError: Task finished unexpectedlyfoo",
                  "Sadly [Bug]: Task finished unexpectedly when serving Qwen2",
                  "AsyncEngineDeadError: Task finished unexpectedly; this should never happen on GitHub"):
        assert all(x.verdict != "exact" for x in m.lookup(paste)[0]), paste


def test_a_message_of_one_chunk_without_its_stop():
    """A message short enough to be one chunk is no anchor without its full stop: with its type
    beside it, after an issue title's tag, or alone on its line it is still that message (a
    number may end it: "n=1"); inside another's sentence, or with the paste's word or number
    going on ("n=12"), it is not."""
    m = tiny_matcher(("ValueError", "store_full_fp8 requires store_full_kv."),
                     ("ValueError", "trace_decode_token_ids requires n=1."))
    for paste, want in (("ValueError: store_full_fp8 requires store_full_kv", "e0"),
                        ("[Bug]: store_full_fp8 requires store_full_kv when serving Qwen3", "e0"),
                        ("INFO starting\n  store_full_fp8 requires store_full_kv  \nINFO done", "e0"),
                        ("ValueError: trace_decode_token_ids requires n=1", "e1")):
        matches, _ = m.lookup(paste)
        assert [x.error.id for x in matches][:1] == [want] and matches[0].verdict == "exact", paste
    for paste in ("I got store_full_fp8 requires store_full_kv", "ValueError: store_full_fp8 requires store_full_kvcache",
                  "ValueError: trace_decode_token_ids requires n=12"):
        assert all(x.verdict != "exact" for x in m.lookup(paste)[0]), paste


def test_an_issue_titles_tag_names_the_raise_of_a_raise_and_a_log_line_worded_alike():
    """A tag stands where an exception's type would, and a logged message has none: a title cut
    where vLLM's raise and its warning still read alike is the raise, also where the message
    opens with a value (the tag stands before the value, a space apart from the words)."""
    m = tiny_matcher(("WARNING", "{arch} has no vLLM implementation, falling back to Transformers implementation.", "log"),
                     ("ValueError", "{arch} has no vLLM implementation and the Transformers implementation is not "
                                    "compatible with vLLM."))
    matches, _ = m.lookup("[Bug]: StableLMAlphaForCausalLM has no vLLM implementation")
    assert [x.error.id for x in matches] == ["e1", "e0"]
    # without the tag nothing names either: they stay as they tie
    assert top(m, "StableLMAlphaForCausalLM has no vLLM implementation") == "e0"
    # the warning's own words name the warning
    assert top(m, "[Bug]: StableLMAlphaForCausalLM has no vLLM implementation, falling back to Transformers implementation.") == "e0"



def test_a_title_quoting_a_first_sentence_that_opens_with_a_value_opens_where_the_value_does():
    """A message that opens with a value, a space apart from its words, opens at the value: a
    tag before it stands for the type, and an untyped title may open with it."""
    m = tiny_matcher(("ValueError", "{path} is not a supported multimodal dataset. Supported multimodal datasets are: {names}"))
    for paste in ("[Bug]: sharegpt4v is not a supported multimodal dataset when running vllm bench serve",
                  "sharegpt4v is not a supported multimodal dataset when running vllm bench serve"):
        matches, _ = m.lookup(paste)
        assert [x.error.id for x in matches] == ["e0"] and matches[0].verdict == "exact", paste
    # after another's words the value is theirs
    assert all(x.verdict != "exact" for x in m.lookup("Sadly sharegpt4v is not a supported multimodal dataset when running "
                                                      "vllm bench serve")[0])


def test_an_issue_titles_tag_stands_for_the_type_where_a_title_quotes_a_first_sentence():
    """"[Usage]: No available memory for the cache blocks. on H20": the tag opens the message
    as its type would; other words before it do not."""
    m = tiny_matcher(("ValueError", "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` "
                                   "when initializing the engine."))
    for paste in ("[Usage]: No available memory for the cache blocks. on H20",
                  "[Bug] No available memory for the cache blocks on H20",
                  "[Bug][V1]: No available memory for the cache blocks on H20",  # more tags after the first
                  "[Bug] [gpt-oss-120b]: No available memory for the cache blocks on H20"):
        matches, _ = m.lookup(paste)
        assert [x.error.id for x in matches] == ["e0"] and matches[0].verdict == "exact", paste
    assert all(x.verdict != "exact" for x in m.lookup("Sadly: No available memory for the cache blocks. on H20")[0])
    # a log prefix is no tag: the first tag is words
    assert all(x.verdict != "exact" for x in m.lookup("[rank0]: No available memory for the cache blocks on H20")[0])


def test_a_title_quoting_a_first_sentence_that_ends_with_a_number_or_a_unit_in_brackets():
    """"... of at least 8.0. Your ..." ends its first sentence with a number: a word after the
    stop tells it from a decimal point. "... (0.9, 19.84 GiB). Decrease ..." ends it with words
    inside brackets."""
    bf16 = tiny_matcher(("ValueError", "Bfloat16 is only supported on GPUs with compute capability of at least 8.0. "
                                       "Your {gpu} GPU {compute}. You can use float16 instead."))
    for paste in ("ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0 on my V100",
                  "[Bug]: Bfloat16 is only supported on GPUs with compute capability of at least 8.0 on my V100",
                  "Bfloat16 is only supported on GPUs with compute capability of at least 8.0 on my V100"):
        matches, _ = bf16.lookup(paste)
        assert [x.error.id for x in matches] == ["e0"] and matches[0].verdict == "exact", paste
    assert all(x.verdict != "exact" for x in bf16.lookup("ValueError: Bfloat16 is only supported on GPUs with compute "
                                                         "capability of at least 8.05 on my V100")[0])
    free = tiny_matcher(("ValueError", "Free memory on device ({free}/{total} GiB) on startup is less than desired GPU "
                                       "memory utilization ({util}, {want} GiB). Decrease GPU memory utilization or "
                                       "reduce GPU memory used by other processes."))
    for paste in ("ValueError: Free memory on device (7.34/139.72 GiB) on startup is less than desired GPU memory "
                  "utilization (0.9, 125.75 GiB) with 2 GPUs",
                  "Free memory on device (7.34/139.72 GiB) on startup is less than desired GPU memory utilization "
                  "(0.9, 125.75 GiB) with 2 GPUs"):
        matches, _ = free.lookup(paste)
        assert [x.error.id for x in matches] == ["e0"] and matches[0].verdict == "exact", paste
        assert matches[0].values["want"] == "125.75"


def test_a_title_quoting_a_first_sentence_that_ends_with_a_bracket():
    """A first sentence that ends with a closing bracket before its stop ("... (i.e., Gemma-2).")
    ends there as one that ends with a word does."""
    m = tiny_matcher(("ValueError", "Please use Flashinfer backend for models with logits_soft_cap (i.e., Gemma-2). "
                                    "Otherwise, the output might be wrong. Set Flashinfer backend by export "
                                    "VLLM_ATTENTION_BACKEND=FLASHINFER."))
    matches, _ = m.lookup("[Bug]: ValueError: Please use Flashinfer backend for models with logits_soft_cap (i.e., "
                          "Gemma-2) on my MI300X")
    assert [x.error.id for x in matches] == ["e0"] and matches[0].verdict == "exact"


def test_a_full_stop_of_the_pastes_own_where_vllm_words_go_on_is_no_cut():
    """A paste that shows vLLM's next words whole and then ends its sentence with a stop where
    vLLM's message goes on ("... only 8192 tokens." against "... only {n} tokens, resulting in
    ...") wrote a sentence of its own: not vLLM's message cut short. Without the stop it may be."""
    m = tiny_matcher(("VLLMValidationError", "You passed {a} input tokens and requested {b} output tokens. However, the "
                                             "model's context length is only {c} tokens, resulting in a maximum input "
                                             "length of {d} tokens. Please reduce the length of the input prompt."))
    stop = ("litellm.BadRequestError: Error code: 400 - You passed 8193 input tokens and requested 0 output tokens.\n"
            "However, the model's context length is only 8192 tokens.")
    assert all(x.verdict != "exact" for x in m.lookup(stop)[0])
    matches, _ = m.lookup(stop[:-1])  # cut after vLLM's word
    assert [x.error.id for x in matches] == ["e0"] and matches[0].verdict == "exact"
    # the stop vLLM writes itself, or a user's "..." cut, are no sentence of the paste's own
    for paste in (stop[:-1] + ", resulting in a maximum input length of 8192 tokens.", stop[:-1] + "..."):
        matches, _ = m.lookup(paste)
        assert [x.error.id for x in matches] == ["e0"] and matches[0].verdict == "exact", paste


def test_a_message_cut_after_a_value_that_begins_like_the_words_after_it():
    """A paste that stops after a value whose first letters are those of vLLM's next words
    ("torch.Size" and "to a parameter") was cut after the value: the letters are the value's,
    not vLLM's words gone on in other words."""
    m = tiny_matcher(("AssertionError", "Tried to load weights of size {a}to a parameter of size {b}"))
    matches, _ = m.lookup("AssertionError: Tried to load weights of size torch.Size([3096576, 1])")
    assert [x.error.id for x in matches] == ["e0"] and matches[0].verdict == "exact"


def test_a_message_opening_mid_line_with_its_capital_opens_a_sentence_of_its_own():
    """After another program's words, a message that shows its opening capital opens a sentence
    whose stop the paste left out; one whose capital word the paste writes small is part of
    another sentence ("Previous response with id ..." is not "Response with id ...")."""
    m = tiny_matcher(("VLLMValidationError", "This model's maximum context length is {n} tokens. However, you requested {m} "
                                             "output tokens and your prompt contains {q}{c} input tokens, for a total of {t}."),
                     ("NotFoundError", "Response with id '{response_id}' not found."))
    title = ("[ERROR]Generate embedding error This model's maximum context length is 8192 tokens. However, you requested 0 "
             "output tokens and your prompt contains at least 8193 input tokens PaddleOCR")
    assert top(m, title) == "e0"
    assert top(m, title.replace("error This", "error this")) is None  # written small: another sentence's words
    assert top(m, "Response with id 'resp_1' not found.") == "e1"
    assert top(m, "Error: Response with id 'resp_1' not found.") == "e1"
    assert top(m, "Previous response with id 'resp_1' not found.") is None


def test_an_error_logged_with_its_traceback_reports_the_exception_it_ends_with():
    """``logger.exception("Error in chat completion stream generator.")`` prints the traceback
    under its line: the exception the traceback ends with names the problem, and comes first."""
    m = tiny_matcher(("ERROR", "Error in chat completion stream generator.", "log"),
                     ("RuntimeError", "Failed to apply {processor} on data={data} with kwargs={kwargs}"))
    paste = ("ERROR 07-02 08:52:02 [serving_chat.py:883] Error in chat completion stream generator.\n"
             "ERROR 07-02 08:52:02 [serving_chat.py:883] Traceback (most recent call last):\n"
             'ERROR 07-02 08:52:02 [serving_chat.py:883]   File "/x/vllm/engine/multiprocessing/client.py", line 686, in f\n'
             "ERROR 07-02 08:52:02 [serving_chat.py:883]     raise request_output\n"
             "ERROR 07-02 08:52:02 [serving_chat.py:883] RuntimeError: Failed to apply Qwen2_5OmniProcessor on data={'text': "
             "'<|VIDEO|>', 'videos': [array([[[[142, 128,  99],\n"
             "ERROR 07-02 08:52:02 [serving_chat.py:883]          [142, 128,  99],")
    assert [x.error.id for x in m.lookup(paste)[0]] == ["e1", "e0"]
    # without the traceback under it, the logged line is what the paste reports
    apart = paste.replace("generator.\n", "generator.\nINFO the next request came in\n", 1)
    assert [x.error.id for x in m.lookup(apart)[0]][:1] == ["e0"]
    # ... but lines the user left out ("...") between the two keep the traceback under it,
    # down to its header or to its first frame shown
    elided = paste.replace("generator.\n", "generator.\n...\n", 1)
    assert [x.error.id for x in m.lookup(elided)[0]] == ["e1", "e0"]
    headless = elided.replace("ERROR 07-02 08:52:02 [serving_chat.py:883] Traceback (most recent call last):\n", "")
    assert [x.error.id for x in m.lookup(headless)[0]] == ["e1", "e0"]


def test_a_full_stop_that_ends_the_paste_is_no_start_of_vllms_next_words():
    """After a value, a paste that says other words and ends with its own full stop was not cut
    inside the value: the stop is no start of vLLM's next sentence (". Only weight_bits ...")."""
    m = tiny_matcher(("ValueError", "Marlin does not support weight_bits = {bits}. Only weight_bits = {x} are supported."),
                     ("ValueError", "Marlin does not support weight_bits = {t}. Only types = {s} are supported (for group_size "
                                    "= {g}, device_capability = {d}, zp = {z})."))
    paste = ("ValueError: Marlin does not support weight_bits = uint4b8. Only types = [] are supported (for group_size = 128, "
             "min_capability = 75, zp = False).")
    assert top(m, paste) == "e1"
    # a bracket that closes the value is a start of vLLM's words: cut there, the message is found
    cut = tiny_matcher(("ValueError", "The model's max seq len ({n}) is larger than the maximum number of tokens ({k})."))
    assert top(cut, "ValueError: The model's max seq len (32768)") == "e0"


def test_a_match_on_another_form_of_the_message_shows_that_form_filled_in():
    """``raise ValueError(err_msg)``, whose message a helper returns: the template is the name,
    the helper's strings its other forms. The message shown is the form that matched, with the
    paste's values, not "…" (and the same after a round trip through the stored matcher)."""
    from generator.lookup.match import LookupError_, Matcher

    error = LookupError_("e0", "ValueError", "{err_msg}", "ValueError in verify_marlin_supported", "", ["v1"], [])
    m = Matcher([error], [["Marlin does not support weight_bits = {quant_type}. Only types = {supported_types} are supported."]])
    paste = "ValueError: Marlin does not support weight_bits = uint4b8. Only types = [] are supported."
    for matcher in (m, Matcher.from_snapshot(m.snapshot())):
        found = matcher.lookup(paste)[0][0].to_json()
        assert found["template"] == "{err_msg}"
        assert found["message"] == "Marlin does not support weight_bits = uint4b8. Only types = [] are supported."


def test_a_message_that_opens_with_a_value_at_its_lines_start_is_cut_there():
    """A message whose template opens with a value ("{param}={n} cannot be greater than ...")
    opens where that value does: at its line's start it is no word in another's sentence, and
    a paste that stops after a later value was cut there."""
    m = tiny_matcher(("VLLMValidationError", "{p}={n} cannot be greater than {q}=max_total_tokens={m!r}. "
                                             "Please request fewer output tokens."))
    assert top(m, "max_tokens=131072 cannot be greater than max_model_len=max_total_tokens=40960") == "e0"
    assert top(m, "Error: max_tokens=131072 cannot be greater than max_model_len=max_total_tokens=40960") == "e0"


def test_a_message_opening_inside_a_path_is_no_message():
    m = tiny_matcher(("RuntimeError", "Engine {eng_id} failed: {msg}"))
    paste = ("future: <Task finished coro=<AsyncLLM.collective_rpc() done, defined at /x/vllm/v1/engine/async_llm.py:532> "
             "exception=Exception('Call to collective_rpc method failed: NCCL error: internal error')>")
    assert top(m, paste) is None  # "engine" is a folder of the path
    assert top(m, "RuntimeError: Engine core_0 failed: it died") == "e0"


def test_an_exception_whose_message_no_release_writes_is_not_vllms():
    m = tiny_matcher(("EngineDeadError", "EngineCore encountered an issue. See stack trace (above) for the root cause."),
                     ("ValueError", "max_model_len must be positive"))
    matches, foreign = m.lookup("ValueError: Unsupported kv cache shape: (29627, 2, 16, 2, 128)")
    assert matches == [] and foreign["id"] == "exception-not-in-vllm" and foreign["role"] == "answer"
    assert "ValueError" in foreign["reason"]
    for paste in ("AssertionError", "NotImplementedError: x",  # no message of its own: vLLM raises many of those
                  "EngineDeadError: the engine died in some new way",  # a type of vLLM's own
                  # under vLLM's frame: a message built at run time, or one of vLLM's own kernels
                  'File "/x/site-packages/vllm/v1/core/sched.py", line 9, in f\n    raise ValueError(msg)\nValueError: built at run time',
                  'File "/x/site-packages/vllm/_custom_ops.py", line 9, in f\n    torch.ops._C.rms_norm(out, x)\nRuntimeError: an input is not contiguous'):
        assert m.lookup(paste) == ([], None), paste
    users_frame = 'File "/home/u/train.py", line 9, in main\n    x = table.lookup(key)\nRuntimeError: the table has no entry for this key'
    assert m.lookup(users_frame)[1]["id"] == "exception-not-in-vllm"
    # Python's own exception on a line of vLLM's that raises nothing: Python raised it there
    vllms_line = ('File "/x/site-packages/vllm/entrypoints/chat_utils.py", line 134, in parse\n'
                  '    text = self.prefix + content\nTypeError: can only concatenate str (not "list") to str')
    matches, foreign = m.lookup(vllms_line)
    assert matches == [] and foreign["id"] == "exception-not-in-vllm" and "chat_utils.py, line 134" in foreign["reason"]
    # ... not one of vLLM's own types there, nor a line that calls vLLM's kernels
    assert m.lookup(vllms_line.replace("TypeError", "EngineDeadError")) == ([], None)
    assert m.lookup(vllms_line.replace("self.prefix + content", "ops.rotary(x, y)")) == ([], None)


def test_an_error_line_that_no_release_writes_is_another_programs():
    """A paste whose error is a line, not an exception, and in no message of vLLM's."""
    m = tiny_matcher(("RuntimeError", "Engine process failed to start. See stack trace for the root cause."),
                     ("EngineDeadError", "EngineCore encountered an issue. See stack trace (above) for the root cause."),
                     ("ERROR", "Error in model execution: {e}", "log"))
    for paste in ("docker: Error response from daemon: pull access denied for vllm/vllm-openai-nightly, repository does not exist",
                  "E1213 02:57:18.044381  5811 worker_pool.cpp:274] Worker: Process failed for slice (opcode: 0, length: 1975)",
                  "INFO loading\n[info] Connection to RPC socket failed for endpoint kv-rpc:9600 with ret = IOError: getaddrinfo() failed",
                  "helm upgrade vllm ./chart\nthe chart repository at charts.example.org could not be reached",
                  "Ray cluster status: 1/2 nodes alive.\nCluster is NOT ready.",
                  "Timed out after 30 seconds waiting for the model server to come up",
                  "[WARNING:swift] max_model_len(40960) - num_tokens(118444) < max_tokens(1024). Setting max_tokens: -77484",
                  "16:53:24 - \u274c Crashed container in pod: vllm-standalone-llama-3-1b-845945945-dljsw",
                  "model-server: the inference process exited with code 137",
                  "Worker 3 died unexpectedly while the benchmark was running",
                  # what alone is allowed, in an issue's title
                  "[Bug]: Only base64, http or https URLs are supported.",
                  # Ray Serve's health check of a replica
                  "Didn't receive health check response for replica Replica(id='rut1591v', deployment='vLLM:Qwen') after 10.0s, marking it unhealthy.",
                  # Python's logging format of another program: a warning is its report too
                  "__main__ - WARNING - Attempt 287: Please wait for vllm server to become ready...",
                  # a statement of what is wrong, in words of no failure
                  "The number of Falses in the mask is not a multiple of the chunk size.",
                  'Illegal param: "max_completion_tokens" or "max_tokens" must be less than or equal to the context length.',
                  "additional_kwargs[tool_calls] already exists in this message chunk.",
                  "upper bound and lower bound inconsistent with step sign",
                  "400 deepseek-r1t-chimera:free is not a valid model ID",
                  "Unrecognized keys in `rope_scaling` for 'rope_type'='default': {'mrope_section'}",
                  "spec.rayClusterConfig.headGroupSpec.headService.metadata.name should not be set",
                  # a native crash handler's report of a signal
                  "python scripts/infer.py failed with Caught signal 8 (Floating point exception: integer divide by zero)",
                  # ... and the C++ runtime's, of an exception no code caught
                  "terminate called after throwing an instance of 'std::bad_array_new_length'",
                  # the operating system's refusal, and glog's warning of a native program (Triton's server)
                  "get_mempolicy: Operation not permitted",
                  "This flash attention build does not support tanh softcapping: gemma-2-2b-it on H100 NVL",
                  "W0304 23:43:37.274643 1 model_lifecycle.cc:108] ignore version directory '.ipynb_checkpoints' which fails to "
                  "convert to integral number",
                  # another program's logger warning: lighteval's
                  "[2025-03-25 09:04:12,277] [ WARNING]: context_size + max_new_tokens=33238 which is greater than "
                  "self.max_length=32768. Truncating context to 0 tokens. (vllm_model.py:272)"):
        matches, foreign = m.lookup(paste)
        assert matches == [] and foreign["id"] == "message-not-in-vllm" and foreign["role"] == "answer", paste
        # the line judged, shown to say which (less a time in brackets that cleaning took off)
        assert foreign["line"] == re.sub(r"^\[2025-03-25 09:04:12,277\] ", "", paste.split("\n")[-1].strip())
    # ... and loguru's, whose time stamp is cut as a prefix
    matches, foreign = m.lookup("2025-09-01 17:15:24.634 | WARNING  | tenacity.after:log_it:44 - Finished call to "
                                "'x.acompletion_text' after 26.180(s), this was the 1st time calling it.")
    assert matches == [] and foreign["id"] == "message-not-in-vllm" and foreign["line"].startswith("WARNING  | tenacity")
    # ... and the message of an error body that a client printed over lines
    matches, foreign = m.lookup('{\n    "error": {\n        "message": "No text prompt found in messages",\n'
                                '        "type": "BadRequestError",\n        "param": null,\n        "code": 400\n    }\n}')
    assert matches == [] and foreign["id"] == "message-not-in-vllm" and foreign["line"].startswith('"message": "No text prompt')
    for paste in ("all is well, the server started",  # no error reported
                  "the server took its time, then started",
                  "[INFO:swift] loading the model from the local cache dir",  # another program's, but no failure
                  "ERROR: failed",  # too few words to report anything
                  "EngineDeadError: the engine died in some new way",  # an exception of vLLM's own type
                  # under vLLM's frame: a message built at run time
                  'File "/x/site-packages/vllm/v1/core/sched.py", line 9, in f\n    log_failure(x)\nthe scheduler failed on x y z'):
        assert m.lookup(paste) == ([], None), paste
    # a vLLM message, even one near match, is an answer: no line is judged then
    matches, foreign = m.lookup("docker: Error response from daemon\nRuntimeError: Engine process failed to start. See stack trace")
    assert [x.error.id for x in matches] == ["e0"] and foreign is None


def test_a_foreign_error_on_the_line_where_a_wrapped_vllm_message_ends_is_quoted_by_it():
    """A terminal cut the log line inside vLLM's words; the foreign error it quotes follows on the next line."""
    m = tiny_matcher(("ERROR", "Failed to import Triton kernels. Please make sure your triton version is compatible. Error: {e}", "log"))
    wrapped = ("ERROR 10-17 04:46:12 [gpt_oss_triton_kernels_moe.py:40] Failed to import Triton kernels. Please mak\n"
               "e sure your triton version is compatible. Error: No module named 'triton_kernels.tensor'")
    matches, foreign = m.lookup(wrapped)
    assert [x.error.id for x in matches] == ["e0"] and foreign["id"] == "python-missing-module"
    # a foreign error on a later line of its own is not in the message
    matches, foreign = m.lookup(wrapped.replace(" Error: No", " Error: x\nNo"))
    assert matches == [] and foreign["id"] == "python-missing-module"


def test_a_short_message_is_not_found_where_the_paste_makes_its_last_word_longer():
    m = tiny_matcher(("RuntimeError", "unexpected error"))
    assert top(m, "RuntimeError: unexpected error") == "e0"
    assert top(m, "The worker is crashed unexpectedly due to other unexpected errors.") is None
    assert top(m, "RuntimeError: unexpected error.") == "e0"  # a full stop ends the word
    # (in the middle of someone's sentence, its few words are not vLLM's message at all)
    assert top(m, "The engine hit an unexpected error.") is None


def test_a_line_another_program_logged_is_none_of_vllms_messages():
    """glog's, c10's and klog's headers name a C++ or Go file, SGLang's its ranks: the line is that program's, whatever words it shares."""
    m = tiny_matcher(("ERROR", "Failed to submit {transfer_type} transfer {job_id}", "log"))
    for line in ("E0904 21:29:13.608035 31963 client.cpp:1112] Failed to submit transfer operation",
                 "[E1204 11:18:17.728425480 ProcessGroupNCCL.cpp:616] Failed to submit transfer operation",
                 # Go's klog writes the same header (a gateway in front of vLLM)
                 "E1031 06:10:27.243634       1 zmq_client.go:214] Failed to submit transfer operation",
                 # SGLang, which borrowed vLLM's code and its words
                 "[2025-10-28 09:42:18 TP0] Failed to submit transfer operation",
                 "[2025-10-28 09:42:18 DP1 TP3 EP3] Failed to submit transfer operation",
                 # Rust's tracing (Dynamo's frontend), with its time and as cleaning leaves it
                 "2025-05-30T00:35:01.153Z ERROR chat_completions: dynamo_llm::http::service::openai: Failed to submit transfer operation",
                 "ERROR dynamo_llm::http::service::openai: Failed to submit transfer operation",
                 # a Python logger that names its program before the level (LMCache, whose code vLLM borrowed)
                 "[2025-06-16 14:29:56,882] LMCache ERROR: Failed to submit transfer operation"):
        matches, foreign = m.lookup(line)
        assert matches == [] and foreign["id"] == "message-not-in-vllm", line
    assert top(m, "[2025-06-16 14:29:56,882] vllm ERROR: Failed to submit transfer operation") == "e0"
    assert top(m, "ERROR 09-04 21:29:13 [mooncake.py:1] Failed to submit transfer operation") == "e0"
    assert top(m, "E0904 21:29:13.608035 31963 client.cpp:1112] x\nFailed to submit transfer operation") == "e0"
    assert top(m, "[2025-10-28 09:42:18] Failed to submit transfer operation") == "e0"  # a timestamp names no program
    assert top(m, "ERROR chat_completions: Failed to submit transfer operation") == "e0"  # no module path: no Rust


def test_python_s_warning_of_another_package_is_another_programs_line():
    """warnings.warn prints "path:line: Category: message"; of a file that is not vLLM's, the
    line is that package's (vLLM logs its warnings), whatever words it shares with a log of vLLM's."""
    m = tiny_matcher(("WARNING", "{old_name} is deprecated and will be removed in {removal_version}. Use {new} instead.", "log"))
    line = ("<frozen importlib._bootstrap_external>:1301: FutureWarning: The cuda.cudart module is deprecated and will be "
            "removed in a future release, please switch to use the cuda.bindings.runtime module instead.")
    matches, foreign = m.lookup(line)
    assert matches == [] and foreign["id"] == "message-not-in-vllm"
    matches, foreign = m.lookup(line.replace("<frozen importlib._bootstrap_external>", "/opt/venv/lib/python3.12/site-packages/cuda/cudart.py"))
    assert matches == [] and foreign["id"] == "message-not-in-vllm"
    # a file of vLLM's: the rule does not judge it
    assert top(m, line.replace("<frozen importlib._bootstrap_external>", "/opt/venv/lib/python3.12/site-packages/vllm/envs.py")) == "e0"
    assert top(m, "WARNING 08-01 10:00:00 [utils.py:80] cuda.cudart is deprecated and will be removed in v0.35. Use cuda.bindings instead.") == "e0"


def test_a_line_that_reports_a_failure_in_other_words_is_another_programs():
    """When no message of vLLM's matched: a logger's warning whose header names a module (vLLM's
    names a file), and lines that report "an exception" or "errors" in lower case."""
    m = tiny_matcher(("ValueError", "Something vLLM would say about its configuration"))
    for line in ("2025-04-14:10:53:14,506 WARNING  [lm_eval.models.vllm_causallms:109] You might experience occasional issues "
                 "with model weight downloading when data_parallel is in use.",
                 "(Penguin pid=541090) Caught an exception printed above in comp_coding_simple_agent (SimpleAgent).",
                 "Token indices sequence length is longer than the specified maximum sequence length for this model "
                 "(970412 > 32768). Running this sequence through the model will result in indexing errors"):
        matches, foreign = m.lookup(line)
        assert matches == [] and foreign is not None and foreign["id"] == "message-not-in-vllm", line
    # vLLM's own header names a file: not another logger's header (a line with vLLM's header whose
    # words no release logs is told by its own rule: a plugin's)
    foreign = m.lookup("WARNING 04-14 10:53:14 [api_server.py:109] You might experience occasional issues with downloads")[1]
    assert "vLLM's log header" in foreign["reason"]


def test_a_line_in_vllms_log_format_that_no_release_logs_is_a_plugins():
    """vllm-omni and other plugins log through vLLM's logger: a warning with vLLM's header whose
    words no release logs is theirs, when nothing else told the paste (cleaning takes the header
    off, so the paste as given is read for it)."""
    m = tiny_matcher(("WARNING", "Mooncake is not installed, so the Mooncake connector is off", "log"))
    for paste in ("WARNING 01-27 02:55:35 [mooncake_connector.py:18] Mooncake not available, MooncakeOmniConnector will not work",
                  "(StageEngineCoreProc_stage0_replica0 pid=187820) INFO 07-05 15:31:04 [kv_cache_utils.py:2147] Maximum concurrency: 33.73x\n"
                  "(StageEngineCoreProc_stage0_replica0 pid=187820) WARNING 07-05 15:31:04 [base.py:188] [LLM Worker 0] Sleep Mode DISABLED."):
        matches, foreign = m.lookup(paste)
        assert matches == [] and foreign["id"] == "message-not-in-vllm", paste
        assert "vLLM's log header" in foreign["reason"] and foreign["line"] in paste
        assert foreign["why"] == foreign["reason"]  # the page is general: the answer says which rule told it
    # vLLM's own warning is vLLM's; so is a line under vLLM's frame, and two words report nothing
    assert top(m, "WARNING 01-27 02:55:35 [mooncake.py:18] Mooncake is not installed, so the Mooncake connector is off") == "e0"
    assert m.lookup("WARNING 01-27 02:55:35 [base.py:188] Sleep DISABLED.")[1] is None
    under = ('  File "/venv/vllm/v1/worker/gpu_worker.py", line 9, in f\n    logger.warning(msg)\n'
             "WARNING 01-27 02:55:35 [gpu_worker.py:9] Mooncake not available, the connector will not work")
    assert m.lookup(under)[1] is None
    # ... and a plain line with no header names no plugin: only that it names vLLM nowhere (unmatched_unnamed)
    foreign = m.lookup("Mooncake not available, MooncakeOmniConnector will not work")[1]
    assert "vLLM's log header" not in foreign["reason"] and foreign["reason"].startswith("nothing in the paste names vLLM")
    assert foreign["why"] == foreign["reason"]
    # the plain rule's reason is its page's own words: no "why" to add
    foreign = m.lookup("Traceback (most recent call last):\n  File \"/app/run.py\", line 3, in main\n"
                       "    boot()\nrunner: fatal error: the flux capacitor failed to start")[1]
    assert foreign["id"] == "message-not-in-vllm" and "why" not in foreign, foreign


def test_pythons_own_words_with_its_suggestion_are_pythons():
    """Python 3.10 and later end "has no attribute 'x'" with ". Did you mean: 'y'?": still Python's
    words, not a vLLM message that only begins like them."""
    m = tiny_matcher(("AttributeError", "Module '{module_path}' has no attribute '{class_name}' (speculative_config.model='{backend}')"))
    for paste in ("AttributeError: module 'jax.experimental.pallas.tpu' has no attribute 'TPUMemorySpace'.\nDid you mean: 'MemorySpace'?",
                  "AttributeError: module 'jax.experimental.pallas.tpu' has no attribute 'TPUMemorySpace'. Did you mean: 'MemorySpace'?"):
        assert top(m, paste) is None, paste


def test_a_native_backtrace_under_vllms_error_header_names_no_logged_error():
    """The header of an error log names the file and line of a logger.exception call; under it,
    a Python traceback is what that call printed, a native library's backtrace with none is not
    (the line may log another error in the release that printed it)."""
    from generator.lookup.match import LookupError_, Matcher

    errors = [LookupError_("e0", "ERROR", "Unrecognized input request type encountered: {request_type}", "", "", ["v1"],
                           [{"path": "vllm/v1/engine/core.py", "line": 1033, "function": "EngineCoreProc._handle"}], kind="log")]
    m = Matcher(errors, [[errors[0].template]], log_lines={"e0": ["core.py:1033"]})
    header = "(EngineCore_DP0 pid=280) ERROR 07-15 10:48:46 core.py:1033] "
    native = header + "backtrace:\n" + header + " --- /opt/tt-metal/build/lib/libtt_metal.so(+0xc1e74a) [0x7efb7391d74a]"
    assert top(m, native) is None
    python = header + "Traceback (most recent call last):\n" + header + '  File "/venv/vllm/v1/engine/core.py", line 1020, in run\n'
    assert top(m, python) == "e0"
    torch = header + "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f1 in libc10.so)"
    assert top(m, torch) is None


def test_envoys_no_healthy_upstream_reports_a_failure():
    m = tiny_matcher(("ValueError", "Something vLLM would say about its configuration"))
    matches, foreign = m.lookup("kubernetes inference Access - Response: no healthy upstream for port 8080")
    assert matches == [] and foreign["id"] == "message-not-in-vllm"


def test_a_raise_in_a_function_where_no_release_raises_is_a_forks():
    """The traceback's last frame raises in a vLLM file, in a function where no release covered
    raises or logs, in a file that releases have: a fork's copy of the file (the Gaudi fork's
    prepare_model_input_align_worker). A function that only an older release raises in is
    vLLM's (``functions_before``)."""
    errors = [LookupError_("e0", "NotImplementedError", "", "NotImplementedError", "", ["v1"],
                           [{"path": "vllm/worker/model_runner_base.py", "line": 59, "function": "ModelRunnerBase.execute_model"}])]
    m = Matcher(errors, [[]], paths={"vllm/worker/model_runner_base.py": 1, "vllm/transformers_utils/tokenizer.py": 1},
                functions_before={"vllm/transformers_utils/tokenizer.py": frozenset({"get_tokenizer"})})
    fork = ('  File "/wm/vllm-fork/vllm/worker/model_runner_base.py", line 233, in prepare_model_input_align_worker\n'
            "    raise NotImplementedError\n"
            "NotImplementedError")
    matches, foreign = m.lookup(fork)
    assert matches == [] and foreign["id"] == "exception-not-in-vllm"
    assert "prepare_model_input_align_worker of vllm/worker/model_runner_base.py" in foreign["reason"]
    with_message = ('  File "/venv/vllm/worker/model_runner_base.py", line 364, in forward_xpu\n'
                    "    raise NotImplementedError(\n"
                    "NotImplementedError: XPU gdn_attention does not yet support 'spec_sequence_masks'.")
    assert m.lookup(with_message)[1]["id"] == "exception-not-in-vllm"
    # vLLM's function: its own raise
    assert top(m, fork.replace("line 233, in prepare_model_input_align_worker", "line 59, in execute_model")) == "e0"
    # a function where an older release raises: no answer, not a fork's
    old = ('  File "/env/lib/python3.8/site-packages/vllm/transformers_utils/tokenizer.py", line 42, in get_tokenizer\n'
           "    raise RuntimeError(err_msg) from e\n"
           "RuntimeError: Failed to load the tokenizer. If you are using a LLaMA-based model, use another tokenizer")
    assert m.lookup(old) == ([], None)
    # a file that no release has: its functions say nothing (a newer vLLM's, or a fork's own)
    assert m.lookup(fork.replace("worker/model_runner_base.py", "worker/hpu_model_runner.py")) == ([], None)
    # a line that raises another type than the paste's (a re-raise, an assert) names no raise
    for code in ("raise", "raise exc", "assert x is not None", "raise ValueError("):
        matches, foreign = m.lookup(fork.replace("raise NotImplementedError", code))
        assert foreign is None, code


def test_a_report_of_a_failure_does_not_come_before_the_error_it_reports():
    m = tiny_matcher(("RuntimeError", "Failed to apply {type(hf_processor).__name__} on data={data} with kwargs={kwargs}"),
                     ("CRITICAL", "Got fatal signal from worker processes, shutting down. See stack trace above for root cause issue.", "log"))
    log = ("ERROR 05-16 10:53:31 [core.py:390] RuntimeError: Failed to apply PixtralProcessor on data={'text': '[IMG]'} with kwargs={}\n"
           "CRITICAL 05-16 10:53:31 [core_client.py:361] Got fatal signal from worker processes, shutting down. See stack trace above for root cause issue.")
    assert [x.error.id for x in m.lookup(log)[0]] == ["e0", "e1"]
    # without its type beside it, a match earlier in the log is no raise the report is about
    assert [x.error.id for x in m.lookup(log.replace("RuntimeError: ", ""))[0]] == ["e1", "e0"]


def test_engine_core_failed_to_start_as_the_last_words_reports_the_failure_above_it():
    """The engine logs "EngineCore failed to start." with its traceback below; a paste that ends
    there shows what stopped the start above it (verl's log of a worker's bare assert)."""
    m = tiny_matcher(("ERROR", "EngineCore failed to start.", "log"))
    log = ("(Worker pid=3959376) ERROR 06-06 16:17:09 [multiproc_executor.py:671]     assert token_lora_mapping.size(0) == M\n"
           "(Worker pid=3959376) ERROR 06-06 16:17:09 [multiproc_executor.py:671] AssertionError\n"
           "(EngineCore_DP0 pid=3958190) ERROR 06-06 16:17:09 [core.py:708] EngineCore failed to start.")
    matches, foreign = m.lookup(log)
    assert matches == [] and foreign["id"] == "python-error-in-code" and foreign["role"] == "answer", (matches, foreign)
    # alone, it is the answer: the failure it reports is not in the paste
    assert top(m, log.splitlines()[-1]) == "e0"


def test_a_report_of_a_failure_does_not_come_before_a_raise_with_no_message_under_its_frame():
    from generator.lookup.match import LookupError_, Matcher

    errors = [LookupError_("e0", "NotImplementedError", "", "NotImplementedError", "", ["v1"],
                           [{"path": "vllm/attention/backends/abstract.py", "line": 59, "function": "AttentionBackend.get_state_cls"}]),
              LookupError_("e1", "CRITICAL", "Got fatal signal from worker processes, shutting down. See stack trace above for root cause issue.",
                           "Got fatal signal", "", ["v1"], [], kind="log")]
    m = Matcher(errors, [[], [errors[1].template]])
    log = ('  File "/usr/lib/python3.10/site-packages/vllm/attention/backends/abstract.py", line 59, in get_state_cls\n'
           "    raise NotImplementedError\nNotImplementedError\n...\n"
           "CRITICAL [core_client.py:269] Got fatal signal from worker processes, shutting down. See stack trace above for root cause issue.")
    assert [x.error.id for x in m.lookup(log)[0]] == ["e0", "e1"]
    # a raise of another type under that frame is not this one: the KeyError the report points
    # at is the answer (the report only says the root cause is above)
    matches, foreign = m.lookup(log.replace("NotImplementedError\n...", "KeyError: 'x'\n..."))
    assert matches == [] and foreign["id"] == "python-error-in-code" and foreign["role"] == "answer"


def test_a_paste_that_stops_at_the_raise_line_is_read_as_that_raise():
    from generator.lookup.match import LookupError_, Matcher

    errors = [LookupError_("e0", "NotImplementedError", "", "NotImplementedError", "", ["v1"],
                           [{"path": "vllm/model_executor/layers/quantization/base_config.py", "line": 55,
                             "function": "QuantizeMethodBase.tie_weights"}])]
    m = Matcher(errors, [[]])
    paste = ('  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/quantization/base_config.py", '
             "line 55, in tie_weights\n    raise NotImplementedError\n")
    assert top(m, paste) == "e0"
    assert top(m, paste.replace("raise NotImplementedError", "raise ValueError(msg)")) is None  # another type
    assert top(m, paste + "and then the user's own words\n") is None  # the raise is not where the paste stops
    # a blog made the frame's quotes typographic
    assert top(m, paste.replace('File "', "File \u201c").replace('.py", line', ".py\u201c, line")) == "e0"


def test_a_paste_that_stops_at_a_raise_with_a_message_is_that_raise_when_its_function_raises_one_problem():
    """A raise whose message the paste never shows (cut after the raise line, or inside the
    type's name below it): the frame names it, partial, when its function raises one problem
    of that type."""
    from generator.lookup.match import LookupError_, Matcher

    def site(function):
        return [{"path": "vllm/v1/engine/async_llm.py", "line": 276, "function": function}]

    errors = [LookupError_("e0", "EngineDeadError", "EngineCore encountered an issue. See stack trace (above) for the root cause.",
                           "EngineDeadError: EngineCore encountered an issue.", "", ["v1"], site("AsyncLLM.add_request")),
              LookupError_("e1", "ValueError", "Bad request {x}", "ValueError: Bad request", "", ["v1"], site("AsyncLLM.add_request")),
              LookupError_("e2", "ValueError", "Another problem {y}", "ValueError: Another problem", "", ["v1"], site("AsyncLLM.add_request"))]
    m = Matcher(errors, [[]])
    paste = ('  File "/x/site-packages/vllm/v1/engine/async_llm.py", line 276, in add_request\n'
             "    raise EngineDeadError()\n")
    # (a raise whose code line holds ": " shows no message either)
    for cut in (paste, paste + "vllm.v1.engine.exceptions.Engin", paste + "EngineDe\n",
                paste.replace("EngineDeadError()", 'EngineDeadError(f"dead: {why}")')):
        (match,), _ = m.lookup(cut)
        assert match.error.id == "e0" and match.verdict == "partial" and match.coverage == 0, cut
    assert m.lookup(paste + "vllm.v1.engine.exceptions.Other")[0] == []  # the line below starts no such type
    # two problems raised with that type there: the frame names neither
    assert m.lookup(paste.replace("raise EngineDeadError()", "raise ValueError(msg)"))[0] == []


def test_a_value_in_typographic_quotes_ends_the_message():
    """``{part_type!r}`` shown as \u2019file\u2019: the closing quote ends the value as a straight one does."""
    m = tiny_matcher(("ValueError", "Unsupported chat content part type: {part_type!r}. Supported types: {types}."))
    assert top(m, "Error 400 Unsupported chat content part type: 'file'") == "e0"
    assert top(m, "Error 400 Unsupported chat content part type: \u2019file\u2019") == "e0"


def test_a_first_sentence_in_a_cjk_quote_ends_where_the_quote_closes():
    """A Japanese or Chinese title quotes the message in corner brackets: 「...」 ends it as '...' does."""
    m = tiny_matcher(("ValueError", "No available memory for the cache blocks. Try increasing `gpu_memory_utilization` "
                                    "when initializing the engine."))
    for title in ("Qwen3-32B fails with \u201cNo available memory for the cache blocks\u201d",
                  "vLLMで\u300cNo available memory for the cache blocks\u300dエラー",
                  "vLLM \u62a5\u9519\u300eNo available memory for the cache blocks\u300f"):
        assert top(m, title) == "e0", title
    # the closing bracket must be there: other words after the sentence are no cut
    assert top(m, "vLLMで\u300cNo available memory for the cache blocks on H20 \u3068\u3044\u3046\u30a8\u30e9\u30fc") is None


def test_a_message_cut_with_an_ellipsis_is_cut_not_followed_by_its_full_stop():
    m = tiny_matcher(("ValueError", "The {prompt_type} prompt (length {prompt_len}) is longer than the maximum model length of {max_len}."))
    assert top(m, "ValueError: The decoder prompt (length 4926) is longer than ...") == "e0"
    assert top(m, "ValueError: The decoder prompt (length 4926) is longer than …") == "e0"


def test_a_short_paste_of_a_long_template_is_a_candidate():
    m = tiny_matcher(("WARNING", "Tensor parallel size ({world_size}) exceeds available GPUs ({available_gpus}). This may result in Ray "
                                 "placement group allocation failures. Consider reducing tensor_parallel_size to {available_gpus} or "
                                 "less, or ensure your Ray cluster has {world_size} GPUs available.", "log"))
    assert top(m, "Tensor parallel size (16) exceeds available GPUs (8).") == "e0"
    assert top(m, "Tensor parallel size (16) exceeds avail") == "e0"  # 6 of the template's 48 grams


def test_a_value_holds_no_traceback_frame():
    m = tiny_matcher(("AttributeError", "Module '{module_path}' has no attribute '{class_name}' (speculative_config.model='{backend}')"))
    paste = ('  File "/app/fastchat/serve/vllm_worker.py", line 291, in <module>\n    worker = VLLMWorker(\n'
             '  File "/app/fastchat/serve/vllm_worker.py", line 57, in __init__\n    self.tokenizer = llm_engine.engine.tokenizer\n'
             "AttributeError: 'AsyncLLM' object has no attribute 'engine'")
    assert top(m, paste) is None
    assert top(m, "AttributeError: Module 'my_plugin' has no attribute 'Drafter' (speculative_config.model='x')") == "e0"


def test_a_vllm_log_that_quotes_the_foreign_error_raised_below_it_is_listed():
    m = tiny_matcher(("ERROR", "Error in calling custom op {op}: {e}\nPossibly you have built or installed an obsolete version of vllm.", "log"))
    log = ("ERROR 11-04 22:26:53 _custom_ops.py:63] Error in calling custom op reshape_and_cache: '_OpNamespace' '_C_cache_ops' object "
           "has no attribute 'reshape_and_cache'\nERROR 11-04 22:26:53 _custom_ops.py:63] Possibly you have built or installed an "
           "obsolete version of vllm.\n...\n"
           "AttributeError: '_OpNamespace' '_C_cache_ops' object has no attribute 'reshape_and_cache'")
    matches, foreign = m.lookup(log)
    assert [x.error.id for x in matches] == ["e0"] and foreign["id"] == "torch-operator-not-available"
    assert foreign["role"] == "answer"  # a log line reports the failure; the foreign error stays the answer
    matches, foreign = m.lookup(log.replace("reshape_and_cache'\nERROR", "other_op'\nERROR"))
    assert matches == [] and foreign["id"] == "torch-operator-not-available"


def test_an_error_logged_after_a_foreign_error_vllm_only_warned_about_is_the_answer():
    m = tiny_matcher(("WARNING", "Failed to import from vllm._C: {e}", "log"), ("ERROR", "Error saving model info cache.", "log"))
    log = ("WARNING 04-29 10:09:55 [cpu.py:487] Failed to import from vllm._C: ImportError('libnuma.so.1: cannot open shared object file: No such file or directory')\n"
           "ERROR 04-29 10:09:55 [registry.py:810] Error saving model info cache.")
    matches, foreign = m.lookup(log)
    assert [x.error.id for x in matches][:1] == ["e1"] and foreign["id"] == "shared-library-not-found" and foreign["role"] == "cause"
    # without the later error, the foreign error the warning quotes is the answer
    matches, foreign = m.lookup(log.split("\n")[0])
    assert foreign["role"] == "answer"


def test_a_message_found_cut_short_inside_anothers_value_does_not_make_that_one_a_wrapper():
    m = tiny_matcher(("ValueError", "No valid attention backend found for {cls.device_name} with {config_str}. Reasons: {reasons_str}."),
                     ("NotImplementedError", "Non-causal attention not supported by CacheOnlyAttention"))
    paste = ("ValueError: No valid attention backend found for cuda with AttentionSelectorConfig(head_size=64). "
             "Reasons: {FLASH_ATTN: [kv_cache_dtype not supported], TURBOQUANT: [non-causal attention not supported]}.")
    assert top(m, paste) == "e0"


def test_pythons_own_len_wording_needs_its_raise():
    m = tiny_matcher(("TypeError", "object of type {type(_videos).__name__!r} has no len()"))
    assert top(m, "TypeError: object of type 'Encoding' has no len()") is None


def test_a_kernel_library_run_from_its_source_checkout_is_another_package():
    m = tiny_matcher(("RuntimeError", "DeepEP error: {message} while dispatching"))
    tb = ('  File "/home/u/ep_kernels_workspace/DeepEP/deep_ep/buffer.py", line 393, in dispatch\n'
          "    self.runtime.intranode_dispatch(x)\nRuntimeError: DeepEP error: CPU recv timeout")
    matches, foreign = m.lookup(tb)
    assert matches == [] and foreign["source"] == "deep_ep"

# --- bad input ---------------------------------------------------------------------------


def test_empty_garbage_and_huge_inputs(pin_matcher):
    assert pin_matcher.lookup("") == ([], None)
    assert pin_matcher.lookup("\x00\xff" * 1000)[0] == []
    huge = ("INFO 11-18 18:07:28 [core.py:1] nothing to see here, step done\n" * 200_000) + (
        "ValueError: Total number of attention heads (28) must be divisible by tensor parallel size (8)."
    )
    matches, _ = pin_matcher.lookup(huge)
    assert matches[0].error.template.startswith("Total number of attention heads")


# --- shared vectors and real pastes ---------------------------------------------------------


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_vector(pin_matcher, vector):
    matches, foreign = pin_matcher.lookup(vector["paste"])
    got = matches[0].error.id if matches else None
    assert got == vector["expected"], [(m.error.id, m.error.template[:60], m.score) for m in matches]
    assert (foreign or {}).get("source") == vector["not_vllm"]
    for name, value in vector.get("values", {}).items():
        assert matches[0].values[name] == value


HELD_OUT = sorted((DATA / "pastes-heldout").glob("*.json"))


def _problem_ids(match) -> set[str]:
    """The ids a result stands for: the one matched, its problem's current error and earlier ids."""
    return {match.error.id, (match.current or match.error).id, *(a.id for a in match.also)}


# A GitHub issue or pull request, wherever it is shown: github.com, or a mirror host that
# shows it under its own name ("flambogamers.netlify.app/host-https-github.com/o/r/issues/1",
# "github.chentca.top/o/r/issues/1"). Issues and pull requests share their numbers.
GITHUB_PAGE = re.compile(r"github[\w.-]*/([\w.-]+)/([\w.-]+)/(?:issues|pull|discussions)/(\d+)(?:[/?#]|$)", re.IGNORECASE)


def _page(source: str) -> str:
    """The page a source address shows: a GitHub thread by its repository and number, else the address."""
    found = GITHUB_PAGE.search(source)
    return f"github.com/{found.group(1).lower()}/{found.group(2).lower()}/{found.group(3)}" if found else source


def test_a_github_thread_is_one_page_on_any_host():
    assert _page("https://github.com/vllm-project/vllm/issues/43420#issuecomment-1") == \
        _page("https://flambogamers.netlify.app/host-https-github.com/vllm-project/vllm/issues/43420") == \
        _page("https://github.chentca.top/vllm-project/vLLM/pull/43420") == "github.com/vllm-project/vllm/43420"
    assert _page("https://github.com/vllm-project/vllm/issues/4342") != _page("https://github.com/vllm-project/vllm/issues/43420")
    assert _page("https://errs.dmxapi.cn/detail.php?id=2062") == "https://errs.dmxapi.cn/detail.php?id=2062"


def test_pastes_are_real_and_well_formed(history_matcher):
    """Both splits: real sources, each used once; ids raised by some release; foreign ids known."""
    from generator.lookup.foreign import foreign_errors

    ids = set(history_matcher.number)
    foreign_ids = {f.id for f in foreign_errors()}
    sources = []
    for path in PASTES + HELD_OUT:
        data = json.loads(path.read_text())
        # a page's address (a personal blog may be served over plain http only)
        assert re.match(r"https?://[^/\s]+/\S*$", data["source"]), path.name
        assert data["paste"].strip(), path.name
        sources.append(data["source"])
        if data["expected"]:
            assert data["expected"] in ids, f"{path.name}: {data['expected']} is raised by no release of [history]"
        else:
            assert data["not_vllm"], path.name
            assert data.get("foreign") in foreign_ids | {None}, f"{path.name}: unknown foreign id {data.get('foreign')}"
    held_out = [_page(json.loads(p.read_text())["source"]) for p in HELD_OUT]
    reused = sorted(page for page, n in Counter(held_out).items() if n > 1) + \
        sorted(set(held_out) & {_page(source) for source in sources[: len(PASTES)]})
    assert not reused, f"a held-out paste's page is used again (in either split): {reused}"
    assert len(PASTES) + len(HELD_OUT) >= 300
    # A third of the 322 collected first (tests/data/pastes-heldout/README.md); the 141
    # collected later went to the tuning split.
    assert len(HELD_OUT) >= 100, "the held-out split is a third of the first 322 pastes"
    other = [p for p in PASTES + HELD_OUT if not json.loads(p.read_text())["expected"]]
    assert len(other) >= 40


def test_accuracy_on_real_pastes(history_matcher):
    """The tuning split (never the held-out one, which only bench/lookup.py reads): ≥ 95 % of
    vLLM pastes name the right problem first; the non-vLLM ones are told apart."""
    wrong, foreign_wrong = [], []
    total = foreign_total = 0
    for path in PASTES:
        data = json.loads(path.read_text())
        matches, foreign = history_matcher.lookup(data["paste"])
        if data["expected"]:
            total += 1
            if not matches or not {data["expected"], *data.get("acceptable", [])} & _problem_ids(matches[0]):
                wrong.append(f"{path.name}: got {matches[0].error.id if matches else None}, want {data['expected']}")
        else:
            foreign_total += 1
            if foreign is None or (matches and foreign.get("role") != "answer"):
                foreign_wrong.append(f"{path.name}: got {matches[0].error.id if matches else None}, not_vllm {foreign}")
    assert (total - len(wrong)) / total >= 0.95, wrong
    assert (foreign_total - len(foreign_wrong)) / foreign_total >= 0.94, foreign_wrong


def test_foreign_pastes_name_their_foreign_error(history_matcher):
    """A non-vLLM paste labelled with a foreign error gets that error's id, and an OOM its phase when labelled."""
    named = wrong = 0
    for path in PASTES:
        data = json.loads(path.read_text())
        if data["expected"] or not data.get("foreign"):
            continue
        named += 1
        _, foreign = history_matcher.lookup(data["paste"])
        wrong += foreign is None or foreign["id"] != data["foreign"]
    assert named >= 30 and wrong <= named * 0.1, (named, wrong)


# The shapes a paste takes on its way from a terminal to a search box: each one, applied to a
# paste, must leave its answer as it was (cleaning undoes what it adds).
SHAPES = {
    "docker-compose prefix": lambda p: "\n".join("vllm-1  | " + line for line in p.split("\n")),
    "Kubernetes timestamps": lambda p: "\n".join("2025-06-05T16:30:08.123456789Z " + line for line in p.split("\n")),
    "Windows line ends": lambda p: p.replace("\n", "\r\n"),
    "a reply's quote": lambda p: "\n".join("> " + line for line in p.split("\n")),
    "a Markdown code block's indent": lambda p: "\n".join("    " + line for line in p.split("\n")),
    "a Markdown code fence": lambda p: "```text\n" + p + "\n```",
    "terminal colours": lambda p: "\n".join("\x1b[1;31m" + line + "\x1b[0m" for line in p.split("\n")),
    "colours that lost their ESC": lambda p: "\n".join("[1;31m" + line + "[0m" for line in p.split("\n")),
    "HTML entities": lambda p: html.escape(p),
    "torchrun's rank prefix": lambda p: "\n".join("[rank0]: " + line for line in p.split("\n")),
    "a time in brackets before each line": lambda p: "\n".join(f"[2025-01-07 12:00:{n % 60:02d}] " + line
                                                               for n, line in enumerate(p.split("\n"))),
    "a web page's no-break spaces": lambda p: p.replace(" ", "\u00a0"),
    "spaces padding each line": lambda p: "\n".join(line + "   " for line in p.split("\n")),
    "a blog's typographic quotes": lambda p: p.replace("'", "\u2019").replace('"', "\u201d"),
    # ... and those of this kind the probes of real pastes found lost (each lost 1 % to 7 % before its fix)
    "zero-width spaces after underscores": lambda p: p.replace("_", "_\u200b"),
    "a blog's dash for a flag's hyphens": lambda p: p.replace(" --", " \u2014"),
    "an exception group's bars": lambda p: "\n".join("    | " + line for line in p.split("\n")),
    "a JSON logger's lines": lambda p: "\n".join(json.dumps({"time": "2025-06-01 10:00:00", "level": "ERROR", "message": line})
                                                for line in p.split("\n")),
    "a swarm task's name": lambda p: "\n".join("vllm_vllm.1.abcdef123456@node1    | " + line for line in p.split("\n")),
    "SkyPilot's process tag": lambda p: "\n".join("(task, pid=12345) " + line for line in p.split("\n")),
    "torchrun --tee's prefix": lambda p: "\n".join("[default0]:" + line for line in p.split("\n")),
    "vLLM's logger in Python's common format": lambda p: "\n".join("2025-06-01 10:00:00,123 - vllm - ERROR - " + line
                                                                  for line in p.split("\n")),
    "a question after it": lambda p: p + "\n\nHow can I fix this? Any help is appreciated.",
    "the shutdown's noise and a prompt after it": lambda p: (
        p + "\n/usr/lib/python3.10/multiprocessing/resource_tracker.py:224: UserWarning: resource_tracker: There appear to be "
        "1 leaked semaphore objects to clean up at shutdown\n  warnings.warn('resource_tracker: There appear to be %d '\n"
        "(vllm) user@gpu01:~/work$ ^C"),
}
SHAPES_EVERY = 4  # every fourth tuning paste: the shapes cost a lookup each
SHAPES_LOST = 0.005  # of those answered right as given, and never fewer than 2


def _answered_right(matcher, paste: str, data: dict) -> bool:
    matches, foreign = matcher.lookup(paste, top=3)
    if data["expected"]:
        right = {data["expected"], *data.get("acceptable", [])}
        return bool(matches) and bool(right & {matches[0].error.id, (matches[0].current or matches[0].error).id, *(a.id for a in matches[0].also)})
    return foreign is not None and (not matches or foreign.get("role") == "answer")


def test_a_paste_keeps_its_answer_in_the_shapes_people_paste_it(history_matcher):
    """A paste answered right as given is answered the same way indented, fenced, quoted,
    coloured, escaped or behind a container's prefixes (each shape found cleaning bugs: a
    Markdown fence, spaces padding lines, colours that lost their ESC after a word, curly quotes)."""
    sample = [json.loads(path.read_text(encoding="utf-8")) for path in PASTES[::SHAPES_EVERY]]
    right = [data for data in sample if _answered_right(history_matcher, data["paste"], data)]
    assert len(right) >= 0.9 * len(sample)
    lost = {name: [data["source"] for data in right if not _answered_right(history_matcher, shape(data["paste"]), data)]
            for name, shape in SHAPES.items()}
    too_many = {name: sources for name, sources in lost.items() if len(sources) > max(2, SHAPES_LOST * len(right))}
    assert not too_many, too_many


def test_each_foreign_error_is_told_by_its_own_examples(history_matcher):
    """foreign.yaml's examples are tests: each one, looked up over every release, is answered
    with its own foreign error (as the cause, when a vLLM message is found with it)."""
    from generator.lookup.foreign import foreign_errors

    wrong = []
    for error in foreign_errors():
        for example in error.examples:
            matches, foreign = history_matcher.lookup(example)
            if foreign is None or foreign["id"] != error.id or (matches and foreign["role"] != "cause"):
                wrong.append(f"{error.id}: {example[:80]!r} got {foreign and foreign['id']}, "
                             f"matches {[m.error.id for m in matches[:2]]}")
    assert not wrong, "\n".join(wrong)


def _top_level_alternatives(pattern: str) -> list[str]:
    """A regular expression's alternatives at its outermost level (``a|(b|c)|d`` → a, (b|c), d)."""
    parts, depth, in_class, escaped, current = [], 0, False, False, ""
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char in "()":
            depth += 1 if char == "(" else -1
        elif char == "|" and depth == 0:
            parts.append(current)
            current = ""
            continue
        current += char
    return parts + [current]


# What an alternative may open with before a run of characters that may repeat: a line's start,
# a lookbehind or a word boundary, so that the run starts only where its characters start.
ANCHORED_START = re.compile(r"\(\?<[!=]|\\b|\^|\(\?:\^\|\\n\)")
# A run that can start anywhere (after optional words, quotes): ".*", "[^\n]*", "\w+", "\d+", "\S*",
# "[\w./-]+", "\w[\w.]*"
UNBOUNDED_START = re.compile(r"(?:\(\?:[^()]*\)\?|['\"]\?)*(?:\.\*|\[[^\]]+\][*+]|\\[wdS][*+]|\\w\[[^\]]+\]\*)")


def test_no_foreign_pattern_scans_a_long_line_from_every_character():
    r"""A foreign rule runs over every paste that holds one of its keywords, up to 200,000
    characters: an alternative that may begin at any character with a run (".*X", "\w+ call",
    "[\w./-]+\.cpp") retries the whole rest of a long line from each one, quadratic (a 200 KB line
    took minutes). Each such alternative begins where its run does (bench/lookup.py times the
    hostile line)."""
    from generator.lookup.foreign import foreign_errors

    unanchored = [f"{error.id}: {alternative[:70]}" for error in foreign_errors()
                  for alternative in _top_level_alternatives(error.pattern.pattern)
                  if UNBOUNDED_START.match(alternative) and not ANCHORED_START.match(alternative)]
    assert not unanchored, "\n".join(unanchored)


def test_each_catalog_message_typed_is_answered_by_its_own_problem(history_matcher):
    """Each template of every release with 30 letters or more, its values filled with a plain
    word and its type (or log header) before it, or an issue title's tag, is answered first by
    its own problem. A few are worded as another template of other punctuation or capitals
    ("Phi4flash" and "Phi4Flash"): the limit leaves room for those, not for a rule that takes a
    type or a tag for a value."""
    import re

    from generator.scan.ids import split_template

    missed = []
    for error in history_matcher.errors:
        if not error.template or error.kind == "response":
            continue
        segments, _ = split_template(error.template)
        if len(re.sub(r"\W", "", "".join(segments))) < 30:
            continue
        message = "qwen3".join(segments)
        typed = (f"{error.exception} 01-01 00:00:00 [a.py:1] {message}" if error.kind == "log"
                 else f"{error.exception}: {message}")
        for text in (typed, f"[Bug]: {message}"):
            matches, _ = history_matcher.lookup(text, top=1)
            if not matches or error.id not in {matches[0].error.id, (matches[0].current or matches[0].error).id,
                                               *(a.id for a in matches[0].also)}:
                if not (matches and matches[0].error.template == error.template):  # the same words in another release
                    missed.append(f"{error.id} {text[:100]!r} -> {matches[0].error.id if matches else None}")
    assert len(missed) <= 30, "\n".join(missed)


def test_a_404_from_another_server_than_the_hub_is_no_missing_repository():
    """requests writes "404 Client Error: Not Found for url: ..." for any server: only the Hub's
    (or a mirror's) URL makes it a missing model repository."""
    m = tiny_matcher(("ValueError", "max_model_len must be positive"))
    docker = "requests.exceptions.HTTPError: 404 Client Error: Not Found for url: http+docker://localhost/v1.47/containers/create?name=x"
    assert m.lookup(docker)[1]["id"] == "http-status-without-reason"
    for hub in ("requests.exceptions.HTTPError: 404 Client Error: Not Found for url: https://huggingface.co/api/models/a/b/revision/main",
                "requests.exceptions.HTTPError: 404 Client Error: Not Found for url: https://hf-mirror.com/api/models/a/b",
                "huggingface_hub.utils._errors.RepositoryNotFoundError: 404 Client Error. (Request ID: Root=1-abc)"):
        assert m.lookup(hub)[1]["id"] == "huggingface-repository-not-found", hub


def test_lookup_command_json(tmp_path, corpus_bundle, session_cache):
    text = "ValueError: Total number of attention heads (28) must be divisible by tensor parallel size (8)."
    result = subprocess.run(
        [sys.executable, "-m", "generator", "lookup", "--json", "--source", str(corpus_bundle), "--rev", "v0.33.0", "--cache-dir", str(session_cache)],
        input=text, capture_output=True, text=True, cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    first = data["matches"][0]
    assert set(first) >= {"id", "exception", "template", "score", "url", "versions", "sites", "values"}
    assert first["values"] == {"total_num_attention_heads": "28", "tensor_parallel_size": "8"}
    # errorkb.toml's [history] covers the corpus releases, and this error is raised in all of them
    assert first["versions"] == RELEASES
    assert first["sites"][0]["path"] == "vllm/config/model.py"
    assert data["not_vllm"] is None
    pin_only = subprocess.run(
        [sys.executable, "-m", "generator", "lookup", "--json", "--pin-only", "--source", str(corpus_bundle), "--rev", "v0.33.0", "--cache-dir", str(session_cache)],
        input=text, capture_output=True, text=True, cwd=ROOT,
    )
    assert json.loads(pin_only.stdout)["matches"][0]["versions"] == ["v0.33.0"]


def test_lookup_command_lists_a_problems_other_ids_current_ones_too(corpus_bundle, session_cache):
    """The worker-failed problem groups ids of old releases and one the pin raises ("Worker
    failed with KV connector output"): they are its other ids, not only earlier ones."""
    text = "RuntimeError: Worker failed with error 'boom', please check the stack trace above for the root cause"
    result = subprocess.run(
        [sys.executable, "-m", "generator", "lookup", "--source", str(corpus_bundle), "--rev", "v0.33.0", "--cache-dir", str(session_cache)],
        input=text, capture_output=True, text=True, cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    line = next(line for line in result.stdout.splitlines() if "other ids of this problem: " in line)
    assert "68282f3e0aed8535 (v0.33.0)" in line and "21bc6bbf07bfd686 (v0.7.0 – v0.8.0)" in line
    assert "earlier ids" not in result.stdout


def test_lookup_command_says_when_nothing_matches(corpus_bundle, session_cache):
    result = subprocess.run(
        [sys.executable, "-m", "generator", "lookup", "the weather is nice", "--source", str(corpus_bundle), "--rev", "v0.33.0", "--cache-dir", str(session_cache)],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert result.returncode == 1 and f"No vLLM error of {RELEASES[0]} – {RELEASES[-1]} matches" in result.stdout


def test_a_segment_of_only_quotes_is_no_anchor():
    m = tiny_matcher(("ValueError", "`{scoped_key}` must be a mapping of names to values"))
    (match,), _ = m.lookup("TypeError: x\nValueError: `a.b` must be a mapping of names to values")
    assert match.values == {"scoped_key": "a.b"}  # the hole opens the message: its value is the word before, unquoted
    assert match.exception_agrees and match.start > 0


def values_of(template: str, paste: str) -> dict[str, str]:
    """The values the lookup reads from ``paste`` for a one-error matcher of ``template``."""
    (match,), _ = tiny_matcher(("ValueError", template)).lookup(paste)
    return match.values


def test_a_value_that_opens_the_message_is_the_word_before_it():
    dataset = "{name} is not a supported multimodal dataset. Supported multimodal datasets are: {names}"
    assert values_of(dataset, "[Bug]: sharegpt4v is not a supported multimodal dataset when running bench") == {"name": "sharegpt4v"}
    assert values_of(dataset, "ValueError: is not a supported multimodal dataset.") == {}  # the type is no value
    assert values_of("{name}={rank} is outside [0, {size})", "ValueError: WORLD_SIZE=9 is outside [0, 8)") == {
        "name": "WORLD_SIZE", "rank": "9", "size": "8"}


def test_a_value_that_closes_the_message_is_the_rest_of_its_line():
    arch = "Unsupported model architecture: {arch}"
    assert values_of(arch, "ValueError: Unsupported model architecture: FooForCausalLM") == {"arch": "FooForCausalLM"}
    # ... up to the quote that closes a message the paste quotes, or what another program adds
    assert values_of(arch, '{"object":"error","message":"Unsupported model architecture: Foo","type":"BadRequestError"}') == {"arch": "Foo"}
    assert values_of(arch, "AssertionError('Unsupported model architecture: Foo').") == {"arch": "Foo"}
    assert values_of(arch, "  Value error, Unsupported model architecture: Foo [type=value_error, input_value={}]") == {"arch": "Foo"}
    assert values_of(arch, "ValueError: Unsupported model architecture: Foo [repeated 7x across cluster]") == {"arch": "Foo"}
    assert values_of(arch, "ValueError: Unsupported model architecture: ```") == {}


def test_the_last_value_before_the_closing_stop_holds_its_own_stops():
    dtype = "input.dtype needs to be fp16 or bf16 but got {dtype}."
    assert values_of(dtype, "ValueError: input.dtype needs to be fp16 or bf16 but got torch.float32.") == {"dtype": "torch.float32"}
    assert values_of(dtype, "ValueError: input.dtype needs to be fp16 or bf16 but got 'torch.float32'.") == {"dtype": "'torch.float32'"}
    # ... but not the user's next sentence
    assert values_of(dtype, "ValueError: input.dtype needs to be fp16 or bf16 but got fp32. Please help.") == {"dtype": "fp32"}


def test_a_message_does_not_open_inside_another_name():
    m = tiny_matcher(("AttributeError", "Module '{module_path}' has no attribute '{class_name}' (speculative_config.model='{backend}')"))
    code = "    self.packed_modules_mapping):\nAttributeError: 'AscendQuantConfig' object has no attribute 'packed_modules_mapping'"
    assert top(m, code) is None
    assert top(m, "AttributeError: Module 'my.drafter' has no attribute 'Drafter' (speculative_config.model='x')") == "e0"


def test_a_value_opening_a_short_message_follows_its_type():
    """vLLM's message opens with its value: another exception's words before the value are that message's."""
    m = tiny_matcher(("AssertionError", "{numerator} is not divisible by {denominator}"))
    assert top(m, "ValueError: Tensor height 576 is not divisible by block_height 128. Block quantization requires exact division.") is None
    assert top(m, "AssertionError: 576 is not divisible by 128") == "e0"
    assert top(m, "RuntimeError: AssertionError: 576 is not divisible by 128") == "e0"  # a type, then vLLM's
    assert top(m, "ValueError: 576 is not divisible by 128") == "e0"  # (vLLM's words, another type: still they)


def test_a_label_opening_a_short_message_follows_its_type():
    """... and so does a label before a colon: LiteLLM's words before the value are its message."""
    m = tiny_matcher(("ValueError", "{name}: expected {typ}, got {val}"))
    assert top(m, "litellm.BadRequestError: Invalid value for 'function.description': expected a string, got null") is None
    assert top(m, "ValueError: 'function.description': expected a string, got null") == "e0"


def test_a_message_after_another_programs_label_in_an_exception_is_not_vllms():
    m = tiny_matcher(("ValueError", "Unknown quantization method: {q}. Must be one of {supported}."))
    assert top(m, "[BUG] ValueError: QuantizeConfig: Unknown quantization method: `fp8`.") is None
    assert top(m, "ValueError: Unknown quantization method: fp8. Must be one of ['awq'].") == "e0"
    assert top(m, "RuntimeError: ValueError: Unknown quantization method: fp8. Must be one of ['awq'].") == "e0"


def test_a_value_that_ends_the_pastes_own_sentence_is_no_cut():
    """A paste may stop inside a value; but where the value's words end a sentence, and vLLM's
    message has none left to end, the paste's sentence was its own."""
    m = tiny_matcher(("ValueError", "This model supports at most {limit} choices per question"))
    assert top(m, "This model supports at most 4 images per prompt, and the request has 5.") is None
    assert top(m, "ValueError: This model supports at most 4096") == "e0"  # cut in the value
    longer = tiny_matcher(("ValueError", "This model's maximum context length is {n} tokens. However, you requested {m} "
                                         "tokens, for a total of {t} tokens. Please reduce the length of the input."))
    assert top(longer, "This model's maximum context length is 8 tokens. However, you requested 9 tokens, for a total of 17 tokens.") == "e0"


def test_a_pydantic_error_is_a_requests_only_when_it_names_a_requests_model():
    """A request's model (…Request, …Message, …Param) is a refused request body; one of vLLM's
    configurations is a refused setting; another program's own model ("BenchmarkRunStats",
    guidellm's; "RLConfig", prime-rl's) is that program's validation error, down to its last
    field line, where "Extra inputs are not permitted" alone would read as a request's."""
    m = tiny_matcher(("ValueError", "Unsupported model architecture: {arch}"))
    body = "  Input should be a valid dictionary [type=model_type, input_value=1, input_type=int]"
    extra = "  Extra inputs are not permitted [type=extra_forbidden]"
    header = "pydantic_core._pydantic_core.ValidationError: 1 validation error for "
    told = {  # the model and its field line: the answer
        "ChatCompletionRequest\nmessages\n" + body: "request-validation-error",
        "BenchmarkRunStats\nrequests_made\n" + body: "another-programs-validation-error",
        "RLConfig\norchestrator.mask_truncated_completions\n" + extra: "another-programs-validation-error",
        "SchedulerConfig\nmax_num_seqs\n" + extra: "config-validation-error",
        "ChatCompletionRequest\nfoo\n" + extra: "request-validation-error",
        # ... and a model of vLLM's that is not named like a request is vLLM's
        "StreamOptions\nfoo\n" + extra: "request-validation-error",
    }
    assert {block: m.lookup(header + block)[1]["id"] for block in told} == told


def test_escaped_surrogate_pairs_become_one_character():
    assert clean_paste('"\\ud83d\\ude80 go"') == '"\U0001f680 go"'
    assert clean_paste('"\\ud83d go"') == '"\ufffd go"'


def _releases_with_the_same_message() -> list[dict]:
    """Three releases: the message is raised as a ValueError, then retyped (a new id) in v3."""
    template = "max_num_seqs ({n}) exceeds available Mamba cache blocks ({m})."
    site = {"path": "vllm/a.py", "line": 3, "function": "check", "template": template}
    old = {"id": "a000000000000001", "exception": "ValueError", "template": template, "has_message": True, "sites": [site]}
    new = dict(old, id="b000000000000001", exception="VLLMValidationError")
    return [{"revision": "v1", "errors": [old]}, {"revision": "v2", "errors": [old]}, {"revision": "v3", "errors": [new]}]


def test_one_result_per_problem_and_the_newest_release_first():
    """The same message under two ids (retyped in v3) is one problem: one result, whose
    current error is the newest release's, with the older id inside it."""
    from generator.lookup.index import compact_index, matcher_from_index

    matcher = matcher_from_index(compact_index(_releases_with_the_same_message()))
    matches, _ = matcher.lookup("max_num_seqs (256) exceeds available Mamba cache blocks (161).", top=2)
    assert [m.error.id for m in matches] == ["b000000000000001"]
    data = matches[0].to_json()
    assert data["current"]["id"] == "b000000000000001" and data["current"]["versions"] == ["v3"]
    assert data["also"] == [{"id": "a000000000000001", "versions": ["v1", "v2"]}]
    assert data["verdict"] == "exact" and data["message"] == "max_num_seqs (256) exceeds available Mamba cache blocks (161)."



def test_of_one_entrys_pin_errors_the_matched_one_is_the_current_one():
    """An entry may hold two errors the pin raises (an input and an output check): a paste of
    the second is answered with the second, not sent to the first as "an older wording"."""
    from generator.lookup.index import compact_index, matcher_from_index

    def error(id_, template, line):
        site = {"path": "vllm/q.py", "line": line, "function": "create_weights", "template": template}
        return {"id": id_, "exception": "ValueError", "template": template, "has_message": True, "sites": [site]}

    errors = [error("a000000000000002", "The input size is not aligned with the quantized weight shape.", 10),
              error("b000000000000002", "The output size is not aligned with the quantized weight shape.", 20)]
    entry = {"slug": "not-aligned", "title": "Not aligned", "summary": "", "fix": None}
    index = compact_index([{"revision": "v1", "errors": errors}, {"revision": "v2", "errors": errors}],
                          entries={e["id"]: entry for e in errors})
    (match,), _ = matcher_from_index(index).lookup("ValueError: The output size is not aligned with the quantized weight shape.")
    data = match.to_json()
    assert data["id"] == data["current"]["id"] == "b000000000000002"
    assert [a["id"] for a in data["also"]] == ["a000000000000002"]

def test_an_old_match_leads_to_the_current_error():
    """A paste of the old wording matches the old id best; the result is the problem's current error."""
    from generator.lookup.index import compact_index, matcher_from_index

    releases = _releases_with_the_same_message()
    releases[2]["errors"][0] = dict(releases[2]["errors"][0], template="max_num_seqs ({n}) exceeds the available Mamba cache blocks ({m}); lower it.")
    releases[2]["errors"][0]["sites"] = [dict(releases[0]["errors"][0]["sites"][0], template=releases[2]["errors"][0]["template"])]
    from generator.history.lineage import link_releases

    index = compact_index(releases, links=link_releases(releases))
    matches, _ = matcher_from_index(index).lookup("ValueError: max_num_seqs (256) exceeds available Mamba cache blocks (161).")
    data = matches[0].to_json()
    assert data["id"] == "a000000000000001" and data["current"]["id"] == "b000000000000001"
    assert len(matches) == 1




# --- what the issue's readers pasted: each kind of answer ----------------------------------------------

KV_CACHE = ("ValueError: To serve at least one request with the models's max seq len (131072), (16.00 GiB KV cache is "
            "needed, which is larger than the available KV cache memory (0.71 GiB). Based on the available memory, the "
            "estimated maximum model length is 5632. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` "
            "when initializing the engine.")


def test_an_old_wording_answers_with_the_pins_error_and_its_site(history_matcher):
    matches, _ = history_matcher.lookup(KV_CACHE)
    data = matches[0].to_json()
    assert data["current"]["id"] == "bdaa78831d773037"
    assert data["current"]["sites"][0]["path"] == "vllm/v1/core/kv_cache_planning.py"
    assert all(m.to_json()["current"]["id"] != "bdaa78831d773037" for m in matches[1:])  # one result per problem


def test_an_error_response_body_as_a_client_prints_it(history_matcher):
    paste = ("openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': '\"auto\" tool choice requires "
             "--enable-auto-tool-choice and --tool-call-parser to be set', 'type': 'BadRequestError', 'param': None, 'code': 400}")
    matches, _ = history_matcher.lookup(paste)
    assert matches[0].error.kind == "response" and matches[0].verdict == "exact"
    assert (matches[0].current or matches[0].error).id == "366dfc63cbfe0185"


def test_a_logged_line(history_matcher):
    paste = "(EngineCore_DP0 pid=316) ERROR 11-18 18:07:28 [core.py:710] EngineCore failed to start."
    matches, _ = history_matcher.lookup(paste)
    assert matches[0].error.kind == "log" and matches[0].error.exception == "ERROR"
    assert "EngineCore failed to start." in matches[0].error.template


def test_a_message_set_by_the_exception_class(history_matcher):
    paste = "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause."
    matches, _ = history_matcher.lookup(paste)
    assert matches[0].error.exception == "EngineDeadError" and matches[0].verdict == "exact"
    assert len([m for m in matches if m.error.exception == "EngineDeadError"]) == 1  # three raise sites, one problem


def test_vllms_own_message_comes_first_and_the_foreign_error_is_its_cause(history_matcher):
    paste = """ModuleNotFoundError: No module named 'bitsandbytes'

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/layers/quantization/bitsandbytes.py", line 419, in __init__
ImportError: Please install bitsandbytes>=0.45.3 via `pip install bitsandbytes>=0.45.3` to use bitsandbytes quantizer."""
    matches, foreign = history_matcher.lookup(paste)
    assert matches and matches[0].error.exception == "ImportError" and "Please install bitsandbytes" in matches[0].error.template
    assert foreign["id"] == "python-missing-module" and foreign["role"] == "cause"


def test_an_out_of_memory_in_vllms_start_up_names_the_phase(history_matcher):
    paste = """  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 3421, in profile_run
    hidden_states, last_hidden_states = self._dummy_run(
  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 3160, in _dummy_run
    outputs = self.model(
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.57 GiB of which 1.12 GiB is free."""
    matches, foreign = history_matcher.lookup(paste)
    assert foreign["id"] == "torch-cuda-out-of-memory" and foreign["role"] == "answer"
    assert foreign["phase"] == "memory profiling" and "--max-num-batched-tokens" in foreign["advice"]
    assert foreign["url"] == "foreign/torch-cuda-out-of-memory/"


def test_one_word_changed_is_a_partial_match_not_none(history_matcher):
    matches, _ = history_matcher.lookup("ValueError: max_num_seqs (256) exceeds the available Mamba cache blocks (128). "
                                        "Each decode sequence requires one Mamba cache block")
    assert matches and (matches[0].current or matches[0].error).id == "c8f7b9d6b5fb8793"
    # ... and so is the first sentence alone, with a word added or changed inside a chunk of
    # three words: the chunk's start and end are found, the chunk counts as missing
    for paste in ("ValueError: max_num_seqs (256) exceeds the available Mamba cache blocks (128).",
                  "ValueError: max_num_seqs (256) exceeds available hybrid cache blocks (128)."):
        matches, _ = history_matcher.lookup(paste)
        assert matches and (matches[0].current or matches[0].error).id == "c8f7b9d6b5fb8793", paste
        assert matches[0].verdict == "partial", paste


def test_a_changed_word_inside_a_chunk_keeps_the_match_but_not_the_score():
    m = tiny_matcher(("ValueError", "max_num_seqs ({n}) exceeds available Mamba cache blocks ({m}). Lower max_num_seqs."))
    (exact,), _ = m.lookup("ValueError: max_num_seqs (256) exceeds available Mamba cache blocks (128). Lower max_num_seqs.")
    assert exact.verdict == "exact"
    for paste in ("ValueError: max_num_seqs (256) exceeds the available Mamba cache blocks (128).",  # a word added
                  "ValueError: max_num_seqs (256) exceeds available hybrid cache blocks (128)."):  # a word changed
        (near,), _ = m.lookup(paste)
        assert near.error.id == "e0" and near.verdict == "partial", paste
    assert top(m, "ValueError: max_num_seqs (256) is more than the free hybrid blocks (128).") is None


def test_another_servers_message_with_a_chunk_of_vllms_changed_is_not_vllms(history_matcher):
    """Another server's "must be less than max_seq_len" shares most words with vLLM's "must be
    less than max_model_len": the changed chunk counts as missing, too much for a match of so
    short a message, and the HTTP status rule answers."""
    body = "Error code: 400 - {'code': 20015, 'message': 'length of prompt_tokens (70462) must be less than max_seq_len (65536).', 'data': None}"
    matches, foreign = history_matcher.lookup(body)
    assert foreign["id"] == "http-status-without-reason" and foreign["role"] == "answer" and not matches
    matches, foreign = history_matcher.lookup("ValueError: " + body.split("'message': '")[1].split("'")[0].replace("max_seq_len", "max_model_len"))
    assert matches and matches[0].verdict == "exact" and foreign is None


def test_a_paraphrase_that_shares_one_sentence_is_not_exact(history_matcher):
    """The first sentence of the Mamba message, then words vLLM never wrote: at best partial."""
    paste = ("max_num_seqs (256) exceeds available Mamba cache blocks (128). My server then stopped and I could not "
             "find out why from the documentation, so I restarted it twice.")
    matches, _ = history_matcher.lookup(paste)
    assert all(m.verdict == "partial" and m.score < 0.9 for m in matches)


def test_a_first_sentence_then_a_question_of_ones_own_is_a_near_match():
    """A forum post quotes a message's first sentence and asks on the same line: without type or
    tag that may be a paraphrase, so it is partial, but it is vLLM's message, not another's."""
    m = tiny_matcher(("ValueError", "Model architectures {architectures} are not supported for now. Supported architectures: {archs}"))
    matches, foreign = m.lookup("Model architectures ['GlmForCausalLM'] are not supported for now. Any idea how to fix this?")
    assert [x.error.id for x in matches] == ["e0"] and matches[0].verdict == "partial" and foreign is None
    # named by its type it is the message cut there, as before
    matches, _ = m.lookup("ValueError: Model architectures ['GlmForCausalLM'] are not supported for now. Any idea how to fix this?")
    assert matches[0].verdict == "exact"
    # a stop that a quote closes after is no sentence of the paste's own: no near match from this rule
    matches, _ = m.lookup("Model architectures ['GlmForCausalLM'] are not supported for now.' he said")
    assert not matches or matches[0].verdict == "exact"


def test_which_releases_wrote_the_log(history_matcher):
    paste = """INFO 05-01 12:00:00 api_server.py:1000] vLLM API server version 0.8.3
  File "/usr/local/lib/python3.12/site-packages/vllm/engine/llm_engine.py", line 281, in __init__
ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine."""
    matches, _ = history_matcher.lookup(paste)
    found = history_matcher.releases_of(paste, matches)
    assert found["releases"] == ["v0.8.0"] and found["version"] == "0.8.3"
    assert found["evidence"][0] == "the version string 0.8.3" and "the wording of its message" in found["evidence"]
    data = matches[0].to_json()
    assert data["id"] != data["current"]["id"]  # that release's wording, and the pin's page


def test_every_wording_of_the_problem_the_paste_shows_witnesses_its_release(history_matcher):
    """v0.22's literal "Triton kernel JIT compilation during inference: {fn_name}." and v0.26's
    "%s %s during inference: %s%s." (a starred tuple) both read this line whole: it may come
    from any release since v0.22, not only from the one whose words are the most literal."""
    paste = ("(Worker_TP0 pid=783) WARNING 07-25 17:50:30 Triton kernel JIT compilation during inference: "
             "_fwd_kernel. This causes a latency spike; consider extending warmup to cover this shape/config.")
    matches, _ = history_matcher.lookup(paste)
    found = history_matcher.releases_of(paste, matches)
    assert found["releases"][0] == "v0.22.0" and found["releases"][-1] == "v0.33.0", found
    assert found["evidence"] == ["the wording of its message"]


def test_the_stored_matcher_answers_as_the_built_one(history_matcher):
    from generator.lookup.match import Matcher

    stored = Matcher.from_snapshot(history_matcher.snapshot())
    for paste in (KV_CACHE, "EngineCore failed to start.", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2 GiB"):
        built, stored_result = history_matcher.lookup(paste), stored.lookup(paste)
        assert [m.to_json() for m in built[0]] == [m.to_json() for m in stored_result[0]]
        assert built[1] == stored_result[1]
    with pytest.raises(ValueError):
        Matcher.from_snapshot(b"not a matcher")


def test_a_stored_matcher_with_a_damaged_gram_table_is_refused_or_answers_nothing_wrong():
    import array
    import marshal

    from generator.lookup.match import Matcher

    m = tiny_matcher(("ValueError", "max_num_seqs ({n}) exceeds available Mamba cache blocks ({m})"))
    parts = list(marshal.loads(m.snapshot()))
    table, keys, ends, runs, data = parts[7]
    for damaged in [(table[:-3], keys, ends, runs, data), (table, keys, ends, runs[:-4], data)]:
        with pytest.raises(ValueError, match="gram table is damaged"):
            Matcher.from_snapshot(marshal.dumps(tuple(parts[:7] + [damaged] + parts[8:])))
    full = array.array("i", [0]) * (len(table) // 4)  # no empty slot: a probe must still end
    parts[7] = (full.tobytes(), keys, ends, runs, data)
    assert Matcher.from_snapshot(marshal.dumps(tuple(parts))).lookup("ValueError: nothing like it")[0] == []


def test_lookup_command_text_and_its_stored_matcher(tmp_path, corpus_bundle, session_cache):
    """What a person reads: the curated title, summary and first fix, the message with the
    paste's values, a small line of score and ids. The second run reads the stored matcher;
    a damaged one is built again with one warning."""
    text = "ValueError: max_num_seqs (256) exceeds available Mamba cache blocks (128). Each decode sequence requires one Mamba cache block"
    command = [sys.executable, "-m", "generator", "lookup", "--source", str(corpus_bundle), "--rev", "v0.33.0",
               "--cache-dir", str(session_cache), text]
    first = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    assert lines[0] == "1. Fewer Mamba cache blocks than max_num_seqs, so full CUDA graphs cannot be captured"
    assert any(line.strip().startswith("Fix: Lower max_num_seqs") for line in lines)
    # the entry's example value (256) gives way to the paste's block count
    assert any(line.strip().startswith("$ vllm serve ") and line.endswith(" --max-num-seqs 128") for line in lines), lines
    assert "     (max_num_seqs=128 from your paste; the rest is the entry's example)" in lines
    assert any("max_num_seqs (256) exceeds available Mamba cache blocks (128)" in line for line in lines)
    assert any(line.strip().startswith("score 1.00 · exact · id c8f7b9d6b5fb8793") for line in lines)
    stored = list(session_cache.glob("lookup-matcher-*.marshal"))
    assert stored, "the first run stores its matcher"
    again = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    assert again.stdout == first.stdout and again.stderr == ""
    for path in stored:
        path.write_bytes(b"\x00damaged")
    # matchers stored for code, entries or releases since changed: the oldest go when one is stored
    stale = [session_cache / f"lookup-matcher-stale{n}.marshal" for n in range(STORED_KEPT + 1)]
    for n, path in enumerate(stale):
        path.write_bytes(b"stale")
        os.utime(path, (n + 1, n + 1))
    damaged = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    assert damaged.stdout == first.stdout and damaged.stderr.count("the stored matcher is unreadable") == 1
    left = set(session_cache.glob("lookup-matcher-*.marshal"))
    assert len(left) == STORED_KEPT and set(stored) <= left and stale[0] not in left, sorted(p.name for p in left)
    assert subprocess.run(command, capture_output=True, text=True, cwd=ROOT).stdout == first.stdout
    for path in stale:
        path.unlink(missing_ok=True)


def test_only_the_stored_files_used_last_are_kept(tmp_path):
    """The cache keeps STORED_KEPT files of a kind, those written or read last (by time, then
    by name); files of other kinds are left alone."""
    names = [f"lookup-matcher-{n}.marshal" for n in "abcdef"]
    for n, name in enumerate(names):
        (tmp_path / name).write_bytes(b"x")
        os.utime(tmp_path / name, (100 + n, 100 + n))
    (tmp_path / "analysis.sqlite").write_bytes(b"x")
    (tmp_path / "lookup-index-a.json").write_bytes(b"{}")
    os.utime(tmp_path / "lookup-index-a.json", (1, 1))
    mark_used(tmp_path / names[0])  # read just now: used last
    removed = prune_stored(tmp_path, "lookup-matcher-*.marshal", keep=4)
    assert [p.name for p in removed] == [names[2], names[1]]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["analysis.sqlite", "lookup-index-a.json", names[0], *names[3:]])
    for name in names[3:]:
        os.utime(tmp_path / name, (5, 5))  # a tie: the names settle it, the same way each time
    assert [p.name for p in prune_stored(tmp_path, "lookup-matcher-*.marshal", keep=2)] == [names[4], names[3]]
    assert prune_stored(tmp_path / "no-such-folder", "lookup-matcher-*.marshal") == []


def test_lookup_command_partial_and_foreign(corpus_bundle, session_cache):
    base = [sys.executable, "-m", "generator", "lookup", "--source", str(corpus_bundle), "--rev", "v0.33.0", "--cache-dir", str(session_cache)]
    partial = subprocess.run(base + ["max_num_seqs (256) exceeds the available Mamba cache blocks (128). Each decode sequence "
                                     "requires one Mamba cache block, so CUDA graph capture cannot proceed. Please lower "
                                     "max_num_seqs to at most 128 or increase the gpu_memory_utilization."],
                             capture_output=True, text=True, cwd=ROOT)
    assert "(partial: the message may have been reworded)" in partial.stdout.splitlines()[0]
    header = subprocess.run(base + ["ERROR 06-10 03:43:37 [core.py:500]   File \"/x/vllm/v1/engine/core.py\", line 491, in run_engine_core\n"
                                    "ERROR 06-10 03:43:37 [core.py:500]     engine_core = EngineCoreProc(*args, **kwargs)"],
                            capture_output=True, text=True, cwd=ROOT)
    assert "(partial: found where vLLM raises or logs it, not by its words)" in header.stdout, header.stdout
    oom = subprocess.run(base + ["torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."],
                         capture_output=True, text=True, cwd=ROOT)
    assert oom.returncode == 0 and oom.stdout.startswith("Not a vLLM error: PyTorch: CUDA out of memory (from torch).")
    assert "foreign/torch-cuda-out-of-memory/" in oom.stdout
    # a line no release writes: the answer says which line it judged
    other = subprocess.run(base + ["helm upgrade vllm ./chart\nthe chart repository at charts.example.org could not be reached"],
                           capture_output=True, text=True, cwd=ROOT)
    assert other.returncode == 0 and other.stdout.startswith("Not a vLLM error: An error line that vLLM never writes")
    assert "   The line: the chart repository at charts.example.org could not be reached" in other.stdout.splitlines()
    # another program's copy of a vLLM message, reworded and raised with another type: the near one is listed as near
    near = subprocess.run(base + ["RuntimeError: max_num_seqs (256) exceeds the available Mamba cache blocks (128). Each decode "
                                  "sequence requires one Mamba cache block, so CUDA graph capture cannot proceed."],
                          capture_output=True, text=True, cwd=ROOT)
    lines = near.stdout.splitlines()
    assert near.returncode == 0 and lines[0].startswith("Not a vLLM error: An exception whose message vLLM never writes")
    assert "Near vLLM messages, worded otherwise:" in lines and "(partial: the message may have been reworded)" in near.stdout
    # vLLM's exception that Dynamo re-raised under its own type: vLLM's error first, the wrapper after it
    wrapped = subprocess.run(base + ["torch._dynamo.exc.InternalTorchDynamoError: RuntimeError: Assigning / modifying buffers of "
                                     "nn.Module during forward pass is not allowed when using cudagraph inside the compiler because "
                                     "it will cause silent errors. Please use eager mode or fix the code."],
                             capture_output=True, text=True, cwd=ROOT)
    lines = wrapped.stdout.splitlines()
    assert wrapped.returncode == 0 and lines[0].startswith("1. "), wrapped.stdout
    first_id = next(i for i, line in enumerate(lines) if "· id " in line)
    wrapper = next(i for i, line in enumerate(lines) if line.startswith("Re-raised by another program, not vLLM: torch.compile failed"))
    assert "· id 97d4968bd1998f62 ·" in lines[first_id] and first_id < wrapper, wrapped.stdout
    assert not any(line.startswith(("Not a vLLM error", "Its cause")) for line in lines)


def test_a_malformed_foreign_file_names_the_item_and_what_to_fix(tmp_path):
    from generator.lookup.foreign import FOREIGN_FILE, load_foreign

    assert len(load_foreign(FOREIGN_FILE)) >= 15
    bad = tmp_path / "foreign.yaml"
    bad.write_text("errors:\n  - id: Not An Id\n    source: x\n    title: t\n    keywords: [a]\n    pattern: 'a'\n"
                   "    weak: false\n    reason: r\n    summary: s\n    steps: [s]\n    related: []\n")
    with pytest.raises(ValueError, match=r"foreign.yaml:2: errors\[1\]: id 'Not An Id'"):
        load_foreign(bad)
    bad.write_text("errors:\n  - id: x\n    source: x\n")
    with pytest.raises(ValueError, match=r"foreign.yaml:2: errors\[1\]: `title` must be a str"):
        load_foreign(bad)
    bad.write_text("errors:\n  - id: x\n    source: x\n    title: t\n    keywords: [a]\n    pattern: '(a'\n"
                   "    weak: false\n    reason: r\n    summary: s\n    steps: [s]\n    related: []\n")
    with pytest.raises(ValueError, match=r"foreign.yaml:2: errors\[1\]: `pattern` is not a regular expression"):
        load_foreign(bad)
    bad.write_text("errors:\n  - id: x\n    source: x\n    title: t\n    keywords: [a]\n    pattern: 'a'\n"
                   "    weak: false\n    reason: r\n    summary: s\n    steps: [s]\n    related: []\n    examples: []\n")
    with pytest.raises(ValueError, match=r"foreign.yaml:2: errors\[1\]: `examples` must be a list of at least one paste"):
        load_foreign(bad)
    bad.write_text("errors:\n  - id: x\n    source: x\n    title: t\n    keywords: [a]\n    pattern: 'a'\n"
                   "    weak: false\n    reason: r\n    summary: s\n    steps: [s]\n    related: []\n    examples: [a]\n"
                   "    seen_in: ''\n")
    with pytest.raises(ValueError, match=r"foreign.yaml:2: errors\[1\]: `seen_in` must be a non-empty string"):
        load_foreign(bad)
    bad.write_text("errors:\n  - id: x\n    source: x\n    title: t\n    keywords: [a]\n    pattern: 'a'\n"
                   "    weak: false\n    reason: r\n    summary: s\n    steps: [s]\n    related: []\n    examples: [a]\n"
                   "    vllm_wording: '{error_str} in NCCL'\n")
    with pytest.raises(ValueError, match=r"foreign.yaml:2: errors\[1\]: `vllm_wording` must be a template of vLLM's message"):
        load_foreign(bad)
    bad.write_text("errors: [\n")
    with pytest.raises(ValueError, match=r"foreign.yaml:2: YAML error"):
        load_foreign(bad)


def _moved(rev: str, line: int) -> dict:
    template = "max_num_seqs ({n}) exceeds available Mamba cache blocks ({m})."
    return {"revision": rev, "errors": [{"id": "a" * 16, "exception": "ValueError", "template": template,
                                         "sites": [{"path": "vllm/v1/x.py", "line": line, "function": "f", "template": template}]}]}


def test_the_line_of_the_raise_tells_the_release_where_the_index_has_the_lines():
    from generator.lookup.match import Matcher

    catalogs = [_moved("v1", 10), _moved("v2", 20), _moved("v3", 20)]
    paste = ('Traceback (most recent call last):\n  File "/opt/venv/lib/python3.12/site-packages/vllm/v1/x.py", line 10, in f\n'
             "    raise ValueError(\nValueError: max_num_seqs (256) exceeds available Mamba cache blocks (128).")
    matcher = matcher_from_index(compact_index(catalogs, raise_lines=True))
    found = matcher.releases_of(paste, matcher.lookup(paste)[0])
    assert found["releases"] == ["v1"] and "the line of its raise (vllm/v1/x.py:10)" in found["evidence"]
    stored = Matcher.from_snapshot(matcher.snapshot())
    assert stored.releases_of(paste, stored.lookup(paste)[0]) == found
    # a line no release raises it from says nothing; the browser's index has no lines at all
    elsewhere = paste.replace("line 10", "line 15")
    assert matcher.releases_of(elsewhere, matcher.lookup(elsewhere)[0])["releases"] == ["v1", "v2", "v3"]
    assert "raise_lines" not in compact_index(catalogs)


def test_the_index_keeps_the_functions_only_older_releases_raise_in():
    """A function where an older release raises and the newest sites do not travels in the index
    (by its path's number), through JSON and the stored matcher: a raise there is vLLM's."""
    from generator.lookup.cache import index_problem

    moved = _moved("v2", 20)
    moved["errors"][0]["sites"][0]["function"] = "Planner.g"
    index = json.loads(json.dumps(compact_index([_moved("v1", 10), moved])))
    assert index["functions_before"] == {"0": "f"} and index_problem(index) is None
    paste = ('  File "/opt/venv/lib/python3.12/site-packages/vllm/v1/x.py", line 10, in {}\n'
             "    raise ValueError(\nValueError: no words of vLLM's here")
    for matcher in (matcher_from_index(index), Matcher.from_snapshot(matcher_from_index(index).snapshot())):
        assert matcher.lookup(paste.format("f"))[1] is None
        assert matcher.lookup(paste.format("g"))[1] is None
        assert matcher.lookup(paste.format("h"))[1]["id"] == "exception-not-in-vllm"
    index["functions_before"] = {"7": "f"}
    assert "functions_before" in index_problem(index)


def test_a_stored_index_with_damaged_raise_lines_is_refused():
    from generator.lookup.cache import index_problem

    index = compact_index([_moved("v1", 10)], raise_lines=True)
    assert index_problem(index) is None
    index["raise_lines"]["a" * 16] = [["vllm/v1/x.py", "10", 1]]
    assert "raise_lines" in index_problem(index)


def test_lookup_command_names_the_release_by_the_line_of_the_raise(corpus_bundle, session_cache):
    paste = """Traceback (most recent call last):
  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py", line 760, in check_enough_kv_cache_memory
    raise ValueError(
ValueError: To serve at least one request with the model's max seq len (131072), (16.0 GiB KV cache is needed, which is larger than the available KV cache memory (9.5 GiB). Based on the available memory, the estimated maximum model length is 77824. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine."""
    result = subprocess.run([sys.executable, "-m", "generator", "lookup", "--source", str(corpus_bundle), "--rev", "v0.33.0",
                             "--cache-dir", str(session_cache), "--json", paste], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    releases = json.loads(result.stdout)["releases"]
    assert releases["releases"] == ["v0.24.0"]
    assert "the line of its raise (vllm/v1/core/kv_cache_utils.py:760)" in releases["evidence"]


def test_a_vllm_message_worded_as_pythons_own_needs_its_raise_in_the_traceback():
    from generator.lookup.match import LookupError_, Matcher

    site = {"path": "vllm/lora/layers/base.py", "line": 32, "function": "BaseLayerWithLoRA.__getattr__"}
    errors = [LookupError_("e0", "AttributeError", "{type(self).__name__!r} object has no attribute {name!r}", "", "", ["v1"], [site])]
    m = Matcher(errors, [[errors[0].template]])
    paste = "AttributeError: 'Qwen3Config' object has no attribute 'rope_scaling_factor'"
    assert m.lookup(paste)[0] == []
    raised = ('Traceback (most recent call last):\n  File "/opt/venv/lib/python3.12/site-packages/vllm/lora/layers/base.py", '
              "line 32, in __getattr__\n    raise AttributeError(\n" + paste)
    assert [x.error.id for x in m.lookup(raised)[0]] == ["e0"]


def test_pythons_own_wording_of_a_module_attribute_needs_the_raise_too():
    # vllm/__init__.py's lazy __getattr__ words it as Python does for every module.
    m = tiny_matcher(("AttributeError", "module {__package__} has no attribute {name}"))
    assert top(m, "AttributeError: module 'torch' has no attribute 'float8_e4m3fn'") is None


def test_a_short_message_with_values_inside_is_trusted_as_a_whole_line():
    m = tiny_matcher(("ValueError", "Casting {config_dtype} to {torch_dtype}."))
    matches, _ = m.lookup("WARNING 08-22 16:28:32 config.py:710] Casting torch.bfloat16 to torch.float16.")
    assert [x.error.id for x in matches] == ["e0"]
    assert matches[0].values == {"config_dtype": "torch.bfloat16", "torch_dtype": "torch.float16"}
    assert top(m, "We kept Casting torch.bfloat16 to torch.float16. and then it crashed") is None


def test_an_access_log_lines_status_phrase_is_no_message():
    m = tiny_matcher(("GenerationError", "Internal server error"))
    assert top(m, 'INFO:     10.0.0.1:52846 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error') is None
    assert top(m, "Internal server error") == "e0"


def test_a_wrapper_that_quotes_the_foreign_error_comes_first_with_it_as_cause(history_matcher):
    paste = ("RuntimeError: Worker failed with error 'CUDA error: no kernel image is available for execution on the device', "
             "please check the stack trace above for the root cause")
    matches, foreign = history_matcher.lookup(paste)
    assert matches and "Worker failed with error" in matches[0].error.template
    assert foreign["id"] == "cuda-no-kernel-image" and foreign["role"] == "cause"
    # a wrapper that only points above stays behind the foreign error it follows
    paste = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
             "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}")
    matches, foreign = history_matcher.lookup(paste)
    assert foreign["id"] == "torch-cuda-out-of-memory" and foreign["role"] == "answer"


def test_vllms_message_raised_with_its_own_type_is_not_the_foreign_line(history_matcher):
    """`RuntimeError: NCCL error: ...` is vLLM's pynccl wrapper (NCCL its cause); a log line that
    begins with "Unexpected error" is not vLLM's `RuntimeError('unexpected error')`."""
    matches, foreign = history_matcher.lookup("RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)")
    assert matches and (matches[0].current or matches[0].error).id == "21bd5c25469971ec"
    assert foreign["id"] == "nccl-error" and foreign["role"] == "cause"
    paste = ("ERROR 03-26 05:25:01 engine.py:389] Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions "
             "before calling NumCudaDevices() that might have already set an error? Error 804: forward compatibility was attempted on non supported HW")
    matches, foreign = history_matcher.lookup(paste)
    assert foreign["id"] == "cuda-device-count-failed" and foreign["role"] == "answer"
    # ... nor when raised as a RuntimeError: vLLM's two words are not the whole line the foreign error fills
    matches, foreign = history_matcher.lookup(paste.split("] ", 1)[1].join(["RuntimeError: ", ""]))
    assert not matches and foreign["id"] == "cuda-device-count-failed" and foreign["role"] == "answer"


def test_vllms_words_that_a_foreign_rule_names_are_its_message_without_its_type(history_matcher):
    """"NCCL error: unhandled system error", a title or a worker's log without the RuntimeError,
    is pynccl's message (foreign.yaml's `vllm_wording`): too short to be told by its words, it
    is told by NCCL's description after them; NCCL's error is its cause. PyTorch's "NCCL error
    in: <file>" is not vLLM's words, nor are the words with nothing after them."""
    for paste in ("xinference vllm引擎部署deepseek-r1: 7b报错 NCCL error: unhandled system error",
                  "NCCL Error: unhandled cuda error",
                  # a worker's report, cut in the value that holds the error: it only wraps it
                  "Exception in worker VllmWorkerProcess while processing method init_device: NCCL error: unhandled cuda error"):
        matches, foreign = history_matcher.lookup(paste)
        assert matches and (matches[0].current or matches[0].error).id == "21bd5c25469971ec", paste
        assert matches[0].verdict == "exact" and matches[0].values == {"error_str": paste.rsplit(": ", 1)[1]}, paste
        assert foreign["id"] == "nccl-error" and foreign["role"] == "cause", paste
    # the value to its line's end: what closes around it there is not NCCL's, a bracket it opens is
    for paste, value in (("exception=Exception('Call to collective_rpc method failed: NCCL error: internal error')>", "internal error"),
                         ("NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)",
                          "unhandled system error (run with NCCL_DEBUG=INFO for details)")):
        matches, foreign = history_matcher.lookup(paste)
        assert matches[0].values == {"error_str": value} and foreign["role"] == "cause", paste
    for paste in ("torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, "
                  "unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5",
                  "NCCL error:"):
        matches, foreign = history_matcher.lookup(paste)
        assert not matches and foreign["id"] == "nccl-error" and foreign["role"] == "answer", paste


def test_a_type_name_with_its_colon_is_no_message():
    m = tiny_matcher(("HTTPException", "JSON decode error: {e}"))
    assert top(m, "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)") is None
    assert top(m, "HTTPException: JSON decode error: Expecting value: line 1 column 1 (char 0)") == "e0"


def test_a_value_closed_by_a_bracket_ends_there():
    """After "(8192)" the paste says other words than vLLM's: not a message cut short in its value."""
    m = tiny_matcher(("WARNING", "max_num_batched_tokens ({n}) exceeds max_num_seqs * max_model_len ({m}). This may lead to unexpected behavior."))
    assert top(m, "Value error, max_num_batched_tokens (8192) is smaller than max_model_len (131072). ...") is None
    assert top(m, "max_num_batched_tokens (8192) exceeds max_num_seqs * max_model_len (2048") == "e0"  # cut in the value


def test_a_long_messages_first_sentence_alone_is_found_among_many_alike(history_matcher):
    """vllm-project/verl's paste (lc-011): only the first sentence of a 230-character message,
    inside pydantic's wrapper. Dozens of templates share its words (max_num_batched_tokens,
    max_model_len), and it ranked 65th by the share of its grams: the candidates must reach it."""
    paste = json.loads((DATA / "pastes" / "lc-011-verl-chunked-prefill-batched-tokens-pydantic.json").read_text())["paste"]
    matches, _ = history_matcher.lookup(paste)
    assert matches and "b51a0bcc15720ea5" in _problem_ids(matches[0]), [m.error.id for m in matches]


def test_the_index_writes_an_entry_of_several_ids_once_and_kinds_as_rows():
    from generator.lookup.index import compact_index, entries_of, kinds_of, matcher_from_index, titles_of

    catalog = {"revision": "v1", "errors": [
        {"id": i, "exception": exc, "template": t, "kind": kind,
         "sites": [{"path": "vllm/a.py", "line": n, "function": "f", "template": t}]}
        for n, (i, exc, t, kind) in enumerate([
            ("a" * 16, "ValueError", "Too many sequences: {n}", "raise"),
            ("b" * 16, "ValueError", "Too many sequences in the batch: {n}", "raise"),
            ("c" * 16, "WARNING", "Sequences were capped at {n}", "log")], 1)]}
    entry = {"slug": "too-many", "title": "Too many sequences", "summary": "s", "fix": None}
    index = compact_index([catalog], {"a" * 16: "Too many sequences", "b" * 16: "Too many sequences"},
                          entries={"a" * 16: entry, "b" * 16: entry})
    assert index["entries"] == {"too-many": {"title": "Too many sequences", "summary": "s", "fix": None, "ids": ["a" * 16, "b" * 16]}}
    assert index["curated"] == {}  # the entry gives the titles
    assert kinds_of(index) == {"c" * 16: "log"} and list(index["kinds"]) == ["log"]
    assert entries_of(index)["b" * 16]["slug"] == "too-many" and titles_of(index)["a" * 16] == "Too many sequences"
    matcher = matcher_from_index(index)
    by_id = {e.id: e for e in matcher.errors}
    assert by_id["c" * 16].kind == "log" and by_id["a" * 16].kind == "raise"
    assert by_id["b" * 16].entry["slug"] == "too-many" and by_id["c" * 16].entry is None


def _one_release_matcher(*errors: tuple[str, str, str, str]):
    """A matcher over one release whose errors are (id, exception or level, template, kind)."""
    from generator.lookup.index import compact_index, matcher_from_index

    catalog = {"revision": "v1", "errors": [
        {"id": i, "exception": exc, "template": t, "kind": kind, "has_message": True,
         "sites": [{"path": "vllm/config.py", "line": n, "function": "f", "template": t}]}
        for n, (i, exc, t, kind) in enumerate(errors, 1)]}
    return matcher_from_index(compact_index([catalog]))


def test_a_message_that_starts_inside_another_messages_words_is_that_message():
    """v0.5's warning "Possibly too large swap space. {msg}" holds the words of the raise
    "Too large swap space. ...": a paste of the warning is the warning alone."""
    matcher = _one_release_matcher(
        ("a000000000000003", "ValueError", "Too large swap space. {x} GiB out of the {y} GiB total CPU memory is allocated for the swap space.", "raise"),
        ("b000000000000003", "WARNING", "Possibly too large swap space. {msg}", "log"))
    paste = ("WARNING 06-21 08:32:55 config.py:1148] Possibly too large swap space. 4.00 GiB out of the "
             "7.74 GiB total CPU memory is allocated for the swap space.")
    matches, _ = matcher.lookup(paste)
    assert [m.error.id for m in matches] == ["b000000000000003"]
    (match,), _ = matcher.lookup("ValueError: Too large swap space. 4.00 GiB out of the 7.74 GiB total CPU memory is allocated for the swap space.")
    assert match.error.id == "a000000000000003"


def test_a_short_message_in_other_capitals_is_not_vllms():
    """vLLM's "Internal server error" is not the HTTP status phrase "Internal Server Error" a
    client prints; the phrase alone is a status without its reason."""
    matcher = _one_release_matcher(("a000000000000004", "GenerationError", "Internal server error", "raise"))
    matches, foreign = matcher.lookup("ERROR    | app.llm:ask_tool:725 - OpenAI API error: Internal Server Error")
    assert matches == [] and foreign["id"] == "http-status-without-reason"
    matches, _ = matcher.lookup("openai.InternalServerError: Error code: 500 - {'error': {'message': 'Internal server error', "
                                "'type': 'InternalServerError', 'param': None, 'code': 500}}")
    assert [m.error.id for m in matches] == ["a000000000000004"]


def test_a_status_followed_by_its_reason_in_words_is_no_status_alone():
    """"Error code: 400" alone, or before a JSON body, is a status without its reason; followed
    by words ("Error code: 400 - You passed 8193 input tokens ...") it has one, another program's."""
    matcher = _one_release_matcher(("a000000000000004", "GenerationError", "Internal server error", "raise"))
    assert matcher.lookup("openai.BadRequestError: Error code: 400")[1]["id"] == "http-status-without-reason"
    assert matcher.lookup("Error code: 500 - {'message': 'Something went wrong'}")[1]["id"] == "http-status-without-reason"
    matches, foreign = matcher.lookup("litellm.BadRequestError: Error code: 400 - You passed 8193 input tokens and "
                                      "requested 0 output tokens.")
    assert matches == [] and foreign["id"] == "exception-not-in-vllm"


def test_a_refused_requests_access_log_line_is_kept_without_its_status_phrase():
    """uvicorn's access log line of a 4xx or 5xx is all a server log may show of a refused
    request: its request and status stay, its status phrase goes (no vLLM message matches it)."""
    from generator.lookup.clean import clean_paste

    log = ('INFO:     10.0.0.1:51382 - "POST /v1/embeddings HTTP/1.1" 200 OK\n'
           'INFO:     10.0.0.1:51422 - "POST /v1/embeddings HTTP/1.1" 400 Bad Request')
    assert clean_paste(log) == '"POST /v1/embeddings HTTP/1.1" 400'
    matcher = _one_release_matcher(("a000000000000004", "GenerationError", "Internal server error", "raise"))
    assert matcher.lookup(log)[1]["id"] == "http-status-without-reason"
    assert matcher.lookup('INFO:     127.0.0.1:55766 - "POST /generate HTTP/1.1" 404 Not Found')[1]["id"] == "http-route-not-found"
    matches, foreign = matcher.lookup('INFO:     127.0.0.1:5 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error')
    assert matches == [] and foreign["id"] == "http-status-without-reason"


def test_words_inserted_before_where_the_paste_stops_are_missing():
    """A paste may stop inside a message, but not after words of its own: "suffix is not
    currently supported" is no exact "suffix is not supported with truncate_prompt_tokens"."""
    matcher = _one_release_matcher(("a000000000000005", "ValueError", "suffix is not supported with truncate_prompt_tokens", "raise"))
    (cut,), _ = matcher.lookup("ValueError: suffix is not supported with truncate")
    assert cut.verdict == "exact"
    matches, _ = matcher.lookup("suffix is not currently supported")
    assert [m.verdict for m in matches] in ([], ["partial"])


def test_a_traceback_cut_above_its_log_message_is_named_by_its_log_header():
    """`logger.exception` prints its header on every line of the traceback: a paste cut above
    the message still names the error log written at that file and line, when only one is."""
    from generator.lookup.index import compact_index, matcher_from_index

    def log(id_, template, path, line, level="ERROR"):
        return {"id": id_, "exception": level, "template": template, "kind": "log", "has_message": True,
                "sites": [{"path": path, "line": line, "function": "run_engine_core", "template": template}]}

    catalog = {"revision": "v1", "errors": [log("a000000000000006", "EngineCore failed to start.", "vllm/v1/engine/core.py", 500),
                                            log("b000000000000006", "Worker failed.", "vllm/v1/worker/a.py", 7),
                                            log("c000000000000006", "Worker stopped.", "vllm/v1/worker/b/a.py", 7),
                                            log("d000000000000006", "Slow step.", "vllm/v1/engine/slow.py", 9, "WARNING")]}
    matcher = matcher_from_index(compact_index([catalog]))
    paste = ('ERROR 06-10 03:43:37 [core.py:500]   File "/x/vllm/v1/engine/core.py", line 491, in run_engine_core\n'
             "ERROR 06-10 03:43:37 [core.py:500]     engine_core = EngineCoreProc(*args, **kwargs)")
    (match,), foreign = matcher.lookup(paste)
    assert match.error.id == "a000000000000006" and match.verdict == "partial" and foreign is None
    # two logs at a.py:7 (in two folders): the header names neither; a warning's header is no failure
    assert matcher.lookup(paste.replace("core.py:500", "a.py:7")) == ([], None)
    assert matcher.lookup(paste.replace("ERROR", "WARNING").replace("core.py:500", "slow.py:9")) == ([], None)
    # a terminal's colours around the level
    (match,), _ = matcher.lookup(paste.replace("ERROR ", "\x1b[1;31mERROR\x1b[0m "))
    assert match.error.id == "a000000000000006"
    # an error line of words no release writes, under the header: the header names it first
    (match,), foreign = matcher.lookup("ERROR 06-10 03:43:37 [core.py:500] the engine failed in a way of its own")
    assert match.error.id == "a000000000000006" and foreign is None


def test_a_quote_that_opens_a_word_does_not_end_the_message():
    """A paste may stop where a quote closes vLLM's message, not where one opens another value:
    Ray's "set the environment variable `RAY_memory_usage_threshold` when starting Ray" is not
    vLLM's "The environment variable 'MOONCAKE_CONFIG_PATH' is not set." cut short."""
    matcher = _one_release_matcher(("a000000000000007", "ValueError", "The environment variable 'MOONCAKE_CONFIG_PATH' is not set.", "raise"))
    paste = ("To adjust the kill threshold, set the environment variable `RAY_memory_usage_threshold` when starting Ray. "
             "To disable worker killing, set the environment variable `RAY_memory_monitor_refresh_ms` to zero.")
    assert [m.verdict for m in matcher.lookup(paste)[0]] in ([], ["partial"])
    (quoted,), _ = matcher.lookup("{'error': {'message': 'The environment variable', 'type': 'BadRequestError'}}")
    assert quoted.error.id == "a000000000000007"


def test_of_two_messages_squashed_alike_the_one_spaced_as_the_paste_comes_first():
    """The Mooncake KV connector says "Transfer Engine", its encoder-cache twin "TransferEngine":
    squashing reads both alike, the paste's spacing tells them apart (full stop or not)."""
    matcher = _one_release_matcher(
        ("a000000000000005", "RuntimeError", "Mooncake TransferEngine initialization failed.", "raise"),
        ("b000000000000005", "RuntimeError", "Mooncake Transfer Engine initialization failed.", "raise"))
    for paste, first in (("RuntimeError: Mooncake Transfer Engine initialization failed", "b000000000000005"),
                         ("RuntimeError: Mooncake TransferEngine initialization failed.", "a000000000000005")):
        matches, _ = matcher.lookup(paste)
        assert [m.error.id for m in matches][0] == first, paste


def test_of_two_problems_worded_alike_the_one_the_pin_still_raises_comes_first():
    """A cut paste of a message two problems share: the one whose lineage reaches the pin (its
    wording later grew a sentence) comes before one a later release dropped, though that one
    was raised more recently under its own id."""
    from generator.history.lineage import Link
    from generator.lookup.index import compact_index, matcher_from_index

    def error(id_, exception, template):
        site = {"path": "vllm/p.py", "line": 5, "function": "f", "template": template}
        return {"id": id_, "exception": exception, "template": template, "has_message": True, "sites": [site]}

    kept = error("a000000000000006", "RuntimeError", "Expected {n} placeholders, found {m}. See the processor.")
    dropped = error("b000000000000006", "RuntimeError", "Expected {n} placeholders, found {m}. See the templates.")
    grown = error("c000000000000006", "RuntimeError", "Expected {n} placeholders, found {m}. See the processor, or else.")
    releases = [{"revision": "v1", "errors": [kept, dropped]}, {"revision": "v2", "errors": [dropped]},
                {"revision": "v3", "errors": [grown]}]
    index = compact_index(releases, links=[Link("a000000000000006", "c000000000000006", "reworded", 0.9, "v1", "v3")])
    matches, _ = matcher_from_index(index).lookup("Expected 2 placeholders, found 0.", top=2)
    assert [m.to_json()["current"]["id"] for m in matches] == ["c000000000000006", "b000000000000006"]


def test_a_reworded_chunk_after_a_value_does_not_count_the_value_as_added_words():
    """The chunk right after a value was reworded, so the value's end is unknown: the next chunk
    may lie any way on, and the value between is no words added to vLLM's message."""
    m = tiny_matcher(("ValueError", "Model architectures {archs} are not supported for now. Supported architectures: {supported}"))
    (near,), _ = m.lookup("ValueError: Model architectures ['LlamaForCausalLM'] are not thing for now. Supported architectures: ['A', 'B']")
    assert near.error.id == "e0" and near.verdict == "partial"


def test_a_short_message_inside_a_near_whole_one_is_a_reading_of_its_words():
    m = tiny_matcher(("WARNING", "{mode} is disabled because {reason}.", "log"),
                     ("WARNING", "Custom allreduce is disabled because your platform lacks GPU P2P capability or P2P test failed. "
                                 "To silence this warning, specify disable_custom_all_reduce=True explicitly.", "log"))
    paste = ("WARNING 05-01 10:00:00 [custom_all_reduce.py:1] Custom allreduce is disabled because your platform lacks GPU P2P "
             "capability or P2P test thing. To silence this warning, specify disable_custom_all_reduce=True explicitly.")
    matches, _ = m.lookup(paste)
    assert [x.error.id for x in matches] == ["e1"] and matches[0].verdict == "partial"
    # the short one alone is still found
    assert top(m, "WARNING 05-01 10:00:00 [x.py:1] Sliding window is disabled because the model has none.") == "e0"


def test_a_nearly_whole_failure_comes_before_the_report_that_follows_it():
    m = tiny_matcher(("ERROR", "EngineCore failed to start.", "log"),
                     ("RuntimeError", "DeepGEMM backend is not available or outdated. Please install or update the `deep_gemm` "
                                      "to a newer version to enable FP8 kernels."))
    paste = ("RuntimeError: DeepGEMM backend is not available or outdated. Please install or thing the `deep_gemm` to a newer "
             "version to enable FP8 kernels.\nERROR 01-01 00:00:00 [core.py:1] EngineCore failed to start.")
    matches, _ = m.lookup(paste)
    assert [x.error.id for x in matches][:1] == ["e1"] and matches[0].verdict == "partial"


def test_a_line_in_pythons_own_words_is_not_a_vllm_template_that_begins_alike():
    m = tiny_matcher(("AttributeError", "Module '{path}' has no attribute '{name}' (speculative_config.model='{model}')"))
    matches, foreign = m.lookup("AttributeError: module 'trl.scripts.vllm_serve' has no attribute 'WeightSyncWorkerExtension'")
    assert matches == [] and foreign is not None
    assert top(m, "AttributeError: Module 'my.drafter' has no attribute 'Eagle' (speculative_config.model='x')") == "e0"
    # ... closed with the person's own bracket and stop, as an issue's text quotes it (ms-swift)
    matches, foreign = m.lookup("( AttributeError: module 'vllm.engine.async_llm_engine' has no attribute '_log_task_completion' ).")
    assert matches == [] and foreign is not None


def test_a_few_words_that_open_a_message_are_not_it_mid_sentence():
    m = tiny_matcher(("RuntimeError", "Failed to load {filename}"))
    assert top(m, "ERROR 03-05 12:36:31 [core.py:1006] hip runtime failed to load.") is None
    assert top(m, "RuntimeError: Failed to load config.json") == "e0"
    assert top(m, "ERROR 03-05 12:36:31 [core.py:1006] Failed to load config.json") == "e0"


def test_torch_npus_error_header_is_ascends_but_not_its_report_of_a_python_exception():
    """torch_npu opens its errors with "(PID:n, Device:n, RankID:n) ERRnnnnn"; ERR99999 is its
    "UNKNOWN application exception", logged after a Python exception it only reports."""
    m = tiny_matcher(("KeyError", "Reasoning parser '{name}' not found. Available parsers: {parsers}"))
    header = "[ERROR] 2025-11-20-20:48:03 (PID:2011231, Device:0, RankID:-1) "
    matches, foreign = m.lookup(header + "ERR00007 PTA feature not supported")
    assert matches == [] and foreign["id"] == "ascend-npu-error" and foreign["role"] == "answer"
    matches, foreign = m.lookup("KeyError: \"Reasoning parser 'telechat' not found. Available parsers: qwen3, mistral\"\n"
                                + header + "ERR99999 UNKNOWN applicaiton exception")
    assert [x.error.id for x in matches] == ["e0"] and (foreign is None or foreign["id"] != "ascend-npu-error")


def test_an_exception_logged_as_its_repr_is_the_last_exception():
    """V0's engine logged ``repr(e)`` on a line of its own above the traceback."""
    assert last_exception("Traceback (most recent call last):\nAttributeError(\"'Q' object has no attribute 'pooler'\")") == (
        35, "AttributeError")
    assert last_exception("    raise ValueError(\"No available memory \"") is None  # a raise's code line is not


def test_an_issue_titles_tag_before_an_exception_leaves_it_an_exception_line():
    """"[Usage]: zmq.error.ZMQError: Operation not supported", an issue title: the exception after
    the tag is the paste's last exception, told as one (not as a line of words)."""
    assert last_exception("[Usage]: zmq.error.ZMQError: Operation not supported") == (0, "ZMQError")
    assert last_exception("[Bug] KeyError: 'x'") == (0, "KeyError")
    assert last_exception("[Bug][V1]: KeyError: 'x'") == (0, "KeyError")
    assert last_exception("[see the log below, it is long] ValueError: x") is None  # words, no tag
    m = tiny_matcher(("ValueError", "max_model_len must be positive"))
    assert m.lookup("[Usage]: zmq.error.ZMQError: Operation not supported")[1]["id"] == "exception-not-in-vllm"


def test_warnings_logged_above_a_foreign_exception_do_not_hide_it():
    """A vLLM warning above the paste's last exception did not stop vLLM: the exception, though
    Python's own words (a weak rule), is the answer."""
    m = tiny_matcher(("WARNING", "To indicate that the rerank API is not part of the standard OpenAI API, we have located it at `/rerank`.", "log"))
    warning = "WARNING 06-24 19:02:15 [api_server.py:816] To indicate that the rerank API is not part of the standard OpenAI API, we have located it at `/rerank`."
    error = "ERROR 06-24 19:02:15 [engine.py:165] AttributeError(\"'Qwen2ForCausalLM' object has no attribute 'pooler'\")"
    matches, foreign = m.lookup(warning + "\n" + error)
    assert matches == [] and foreign["id"] == "python-error-in-code" and foreign["role"] == "answer"
    assert [x.error.id for x in m.lookup(warning)[0]] == ["e0"]  # alone, the warning is what the paste shows


def test_a_short_message_without_its_closing_full_stop_is_found():
    """A title or a bare line often leaves the full stop out: of a short template's few grams,
    the last is then missing and the template was no candidate."""
    # words in more templates than STOP_GRAM_ENTRIES tell nothing: of this one's grams, only
    # "themod" and "exist." are left in the index
    m = tiny_matcher(("NotFoundError", "The model `{request.model}` does not exist.", "response"),
                     *[("ValueError", f"{i} he model does not") for i in range(STOP_GRAM_ENTRIES)])
    assert top(m, "The model `Qwen1.5-14B-Chat-GPTQ-Int8` does not exist") == "e0"
    assert top(m, "ValueError: The model `Qwen1.5-14B-Chat-GPTQ-Int8` does not exist") == "e0"


def test_a_title_that_goes_on_after_a_first_sentence_without_its_full_stop_is_found():
    """A title that quotes a first sentence and goes on in its own words lacks the sentence's
    full stop too: of a long template whose other grams are in many templates, that gram makes
    it a candidate. Only on the paste's first line, where a title is."""
    m = tiny_matcher(("WARNING", "FlashInfer is not available. Falling back to the PyTorch-native implementation of top-p & "
                                 "top-k sampling. For the best performance, please install FlashInfer.", "log"),
                     *[("ValueError", f"{i} FlashInfer is not avail") for i in range(STOP_GRAM_ENTRIES + 1)])
    assert top(m, "[Bug]: FlashInfer is not available") == "e0"
    assert top(m, "[Bug]: FlashInfer is not available when serving Qwen3-32B") == "e0"
    assert top(m, "Log:\n[Bug]: FlashInfer is not available when serving Qwen3-32B") is None


def test_a_cut_paste_of_messages_alike_goes_to_the_newest():
    """"Task finished unexpectedly." is the start of v0.4.1's short message and of the longer one
    a later release raised: a paste cut there does not tell them apart, so the newer wins; a
    paste showing the short message whole is the short one."""
    short = "Task finished unexpectedly. This should never happen! Please open an issue on Github."
    errors = [LookupError_(id="e0", exception="AsyncEngineDeadError", template=short, title="", url="", versions=["v1"],
                           sites=[], newest=0),
              LookupError_(id="e1", exception="AsyncEngineDeadError", template=short + " See stack trace above for the actual cause.",
                           title="", url="", versions=["v2"], sites=[], newest=1)]
    m = Matcher(errors, [[e.template] for e in errors])
    assert top(m, "AsyncEngineDeadError: Task finished unexpectedly.") == "e1"
    assert top(m, "AsyncEngineDeadError: " + short) == "e0"


def test_holes_after_a_cut_tell_no_two_messages_apart():
    """"Marlin does not support weight_bits = uint4b8" stops in the first value: v0.5's message with
    two holes and the newer one with five fit it alike (the holes after the cut show nothing), so
    the newer wins; shown whole, the message with fewer holes is still the one that says more."""
    old = "Marlin does not support weight_bits = {bits}. Only weight_bits = {supported} are supported."
    new = ("Marlin does not support weight_bits = {quant_type}. Only types = {supported} are supported "
           "(for group_size = {group_size}, device_capability = {capability}, zp = {zp}).")
    errors = [LookupError_(id="e0", exception="ValueError", template=old, title="", url="", versions=["v1"], sites=[], newest=0),
              LookupError_(id="e1", exception="ValueError", template=new, title="", url="", versions=["v2"], sites=[], newest=1)]
    m = Matcher(errors, [[e.template] for e in errors])
    assert top(m, "[Doc]: Marlin does not support weight_bits = uint4b8") == "e1"
    assert top(m, "ValueError: Marlin does not support weight_bits = uint4b8") == "e1"
    assert top(m, "ValueError: Marlin does not support weight_bits = 3. Only weight_bits = [4, 8] are supported.") == "e0"
    # two templates of one release, whole: fewer holes say more
    m = tiny_matcher(("ValueError", "Error in {name}: {reason}"), ("ValueError", "Error in model execution: {reason}"))
    assert top(m, "ValueError: Error in model execution: CUDA error") == "e1"


def test_a_quoted_value_with_other_words_after_it_is_no_cut_message():
    """Ray's "set the environment variable `RAY_memory_monitor_refresh_ms` to zero." goes on after
    the quoted value in other words than vLLM's "... is deprecated and ignored": it is not that
    warning cut short in its value."""
    m = tiny_matcher(("WARNING", "The environment variable {env_var} is deprecated and ignored. Set {new_key} inside "
                      "kv_transfer_config.kv_connector_extra_config instead.", "log"))
    assert top(m, "To disable worker killing, set the environment variable `RAY_memory_monitor_refresh_ms` to zero.") is None
    assert top(m, "WARNING 01-01 00:00:00 [utils.py:1] The environment variable `LMCACHE_X`") == "e0"  # cut in its value


def test_a_few_words_then_a_value_over_lines_is_no_message():
    """LM Studio's "Engine protocol predict request returned 400:" and, two lines on, "... parser
    generation failed:" are not vLLM's "Engine {eng_id} failed: {msg}"; on one line they would be."""
    m = tiny_matcher(("RuntimeError", "Engine {eng_id} failed: {msg}"))
    assert top(m, 'lmstudio returned: Engine protocol predict request returned 400:\n{"error":{"code":400,"message":"Unable to '
                  'generate parser for this template.\nAutomatic parser generation failed: While executing CallExpression') is None
    assert top(m, "RuntimeError: Engine core_0 failed: connection reset") == "e0"


def test_a_longer_message_reworded_is_not_the_shorter_one_it_grew_from():
    """v0.6.3 raised "Engine process failed to start"; later releases added "See stack trace
    for the root cause.": a paste of the longer one with a word retyped shows the longer one."""
    m = tiny_matcher(("RuntimeError", "Engine process failed to start"),
                     ("RuntimeError", "Engine process failed to start. See stack trace for the root cause."))
    assert top(m, "RuntimeError: Engine process failed to start. See the trace for the root cause.") == "e1"
    assert top(m, "RuntimeError: Engine process failed to start") == "e0"
    assert top(m, "RuntimeError: Engine process failed to start. My own words go on here, more than vLLM's.") == "e0"


def test_a_raised_report_does_not_come_before_the_near_failure_above_it():
    """"Engine core initialization failed. See root cause above." is raised, not logged, but it
    only reports the failure above it, found nearly whole with a word retyped."""
    m = tiny_matcher(("RuntimeError", "DeepGEMM backend is not available or outdated. Please install or update the `deep_gemm` "
                      "to a newer version to enable FP8 kernels."),
                     ("RuntimeError", "Engine core initialization failed. See root cause above. Failed core proc(s): {finished}"))
    paste = ("RuntimeError: DeepGEMM backend is not available or outdated. Please install or renew the `deep_gemm` to a newer "
             "version to enable FP8 kernels.\nRuntimeError: Engine core initialization failed. See root cause above. "
             "Failed core proc(s): {'EngineCore_DP0': 1}")
    assert top(m, paste) == "e0"


def test_a_c10d_client_still_retrying_is_no_store_timeout():
    """"[c10d] TCP client failed to connect/validate to host ... - retrying" is a warning logged
    on the way down after vLLM's own error, not the failure; without "retrying" it is one."""
    m = tiny_matcher(("ValueError", "Free memory on device ({free}/{total} GiB) on startup is less than desired GPU memory "
                      "utilization ({util}, {want} GiB)."))
    paste = ("ValueError: Free memory on device (18.17/22.08 GiB) on startup is less than desired GPU memory utilization "
             "(0.9, 19.88 GiB).\n[W709 12:11:52.579410635 TCPStore.cpp:343] [c10d] TCP client failed to connect/validate to "
             "host 127.0.0.1:50705 - retrying (try=0, timeout=600000ms, delay=889ms): Interrupted system call")
    matches, foreign = m.lookup(paste)
    assert [x.error.id for x in matches] == ["e0"] and foreign is None
    matches, foreign = m.lookup("[c10d] TCP client failed to connect/validate to host")
    assert matches == [] and foreign["id"] == "torch-distributed-store-timeout"


def test_a_long_message_cut_after_its_opening_is_still_found():
    """A paste cut short keeps a long message's opening: its grams are always indexed. (Sampled from
    the sorted grams, too few lay in these 38 characters to make the message a candidate.)"""
    m = tiny_matcher(("ValueError", "To serve at least one request with the model's max seq len ({max_model_len}), "
                      "({format_gib(needed_memory)} GiB KV cache is needed, which is larger than the available KV cache memory "
                      "({format_gib(available_memory)} GiB). {estimated_msg}Try increasing `gpu_memory_utilization` (which also "
                      "controls CPU memory on the CPU backend) or decreasing `max_model_len` when initializing the engine. See "
                      "https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details."))
    assert top(m, "ValueError: To serve at least one request with the model's m") == "e0"


def test_openais_wording_of_a_refusal_vllm_words_otherwise_is_openais():
    """OpenAI's API says "your messages resulted in N tokens" and "does not exist or you do not
    have access to it": a near match of vLLM's wording on the same line is not vLLM's."""
    m = tiny_matcher(("ValueError", "This model's maximum context length is {max_model_len} tokens. However, you requested "
                      "{n} tokens in the messages, Please reduce the length of the messages."),
                     ("NotFoundError", "The model `{request.model}` does not exist.", "response"))
    for paste in ("Error: 400 This model's maximum context length is 128000 tokens. However, your messages resulted in 204308 "
                  "tokens. Please reduce the length of the messages.",
                  "404 The model `llama3.1-405b` does not exist or you do not have access to it."):
        matches, foreign = m.lookup(paste)
        assert matches == [] and foreign["id"] == "openai-api-error" and foreign["role"] == "answer", paste
    assert top(m, "ValueError: This model's maximum context length is 4096 tokens. However, you requested 5000 tokens in "
                  "the messages, Please reduce the length of the messages.") == "e0"
    assert top(m, "The model `llama3.1-405b` does not exist.") == "e1"


def test_a_message_cut_inside_its_first_value_by_the_users_ellipsis_is_found():
    """An issue title cut by its writer after the message's first value: the words before it are
    few, but the exception's type is beside them and the "..." says the rest was left out."""
    m = tiny_matcher(("ValueError", "Fused module {layer_name} requires consistent quant config for {sub_names}"))
    assert top(m, "int4 inference: ValueError: Fused module 'model.layers.0.mlp.gate_up_proj' ...") == "e0"
    assert top(m, "int4 inference: ValueError: Fused module 'model.layers.0.mlp.gate_up_proj' \u2026") == "e0"
    assert top(m, "int4 inference: ValueError: Fused module 'model.layers.0.mlp.gate_up_proj'") is None  # no mark of a cut
    assert top(m, "int4 inference: Fused module 'model.layers.0.mlp.gate_up_proj' ...") is None  # nor its type


def test_a_message_cut_short_after_its_type_named_in_vllms_package_is_found():
    """A paste that stops a few words into the message of an exception type named in vLLM's
    package ("vllm.exceptions.VLLMValidationError: ...") is that message cut short."""
    m = tiny_matcher(("VLLMValidationError", "top_p must be in (0, 1], got {self.top_p}."))
    assert top(m, "vllm.exceptions.VLLMValidationError: top_p must be in (0,") == "e0"
    assert top(m, "VLLMValidationError: top_p must be in (0,") is None  # the type, but not named in vLLM's package
    assert top(m, "vllm.exceptions.VLLMValidationError: top_p must be in (0,\nand more lines") is None  # the paste goes on


def test_a_message_cut_inside_a_word_after_its_type_is_found():
    """A paste that stops inside one of the message's words, with its type beside it, is that
    message cut short ("RuntimeError: Engine proce"), even when fewer of its words show than a
    cut at a word's end would need; at a whole word it may be another program's short message."""
    m = tiny_matcher(("RuntimeError", "Engine process failed to start. See stack trace for the root cause."),
                     ("ValueError", "The decoder prompt (length {prompt_len}) is longer than the maximum model length of {max_len}."))
    assert top(m, "RuntimeError: Engine proce") == "e0"  # inside the first chunk: no anchor, its type tells
    assert top(m, "(EngineCore pid=1) ERROR [core.py:1] RuntimeError: Engine process fail\n") == "e0"
    assert top(m, "ValueError: The decoder prompt (lengt") == "e1"  # after the first chunk
    assert top(m, "RuntimeError: Engine process") is None  # a whole word: maybe a message of its own
    assert top(m, "ValueError: The decoder prompt") is None
    assert top(m, "Engine proce") is None  # no type
    assert top(m, "AsyncRuntimeError: Engine proce") is None  # another type's name ends with it
    assert top(m, "RuntimeError: Engine proce\nmore lines") is None  # the paste goes on


def test_a_line_v0_logged_above_its_cut_traceback_is_an_exception_not_vllms():
    """V0's engine logged str(e) on the line above the traceback it printed: a paste cut inside
    that traceback shows only vLLM's frames, not the package that raised the message."""
    m = tiny_matcher(("RuntimeError", "Engine process failed to start. See stack trace for the root cause."))
    head = "ERROR 02-24 23:19:35 engine.py:389] "
    frames = "".join(head + line + "\n" for line in (
        "Traceback (most recent call last):",
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/engine/llm_engine.py", line 276, in __init__',
        "    self._initialize_kv_caches()"))
    matches, foreign = m.lookup(head + "If cu_seqlens_k is passed in, then page table is not supported\n" + frames)
    assert matches == [] and foreign["id"] == "exception-not-in-vllm" and foreign["role"] == "answer"
    # ... not a line elsewhere above vLLM's frames: the message may be built at run time there
    assert m.lookup("the scheduler is not supported on x y z\nsome other line\n" + frames) == ([], None)
    # ... and when the traceback's own exception is shown below it, that exception is judged
    matches, foreign = m.lookup(head + "If cu_seqlens_k is passed in, then page table is not supported\n" + frames
                                + head + "ValueError: If cu_seqlens_k is passed in, then page table is not supported")
    assert "this ValueError" in foreign["reason"]


# --- reasons a message gives ------------------------------------------------------------


def reasons_matcher(*reasons: str) -> Matcher:
    """e0 shows ``reasons`` ("Reason: {invalid_reasons}"); e1 is another message."""
    errors = [
        LookupError_(id="e0", exception="ValueError", template="Selected backend {backend} is not valid for this "
                     "configuration. Reason: {invalid_reasons}", title="", url="", versions=["v1"], sites=[]),
        LookupError_(id="e1", exception="ValueError", template="The sink setting of this model is not supported by "
                     "the chosen attention backend", title="", url="", versions=["v1"], sites=[]),
    ]
    return Matcher(errors, [[e.template] for e in errors], reasons=[list(reasons), []])


def test_a_reason_quoted_alone_finds_the_message_that_gives_it():
    m = reasons_matcher("sink setting not supported", "head_size {head_size} not supported by this kernel")
    matches, foreign = m.lookup('[Bug]: V1 Engine fails on GB10: "sink setting not supported" by all backends')
    assert [x.error.id for x in matches] == ["e0"] and foreign is None
    data = matches[0].to_json()
    # the message is the error's own, its values unknown; the reason is what the paste shows
    assert data["reason"] == "sink setting not supported"
    assert data["message"] == fill(m.errors[0].template, {})
    assert m.lookup("head_size 72 not supported by this kernel")[0][0].to_json()["reason"] == \
        "head_size 72 not supported by this kernel"


def test_a_message_that_matches_comes_before_any_reason():
    m = reasons_matcher("sink setting of this model is not supported")
    matches, _ = m.lookup("ValueError: The sink setting of this model is not supported by the chosen attention backend")
    assert [x.error.id for x in matches] == ["e1"] and not matches[0].reason
    # ... and a message's own match never says "reason"
    assert "reason" not in m.lookup("Selected backend FLASH_ATTN is not valid for this configuration. "
                                    "Reason: ['sink setting not supported']")[0][0].to_json()


def test_a_reason_must_be_long_and_whole_to_stand_for_its_message():
    # "head_size not supported": 21 squashed characters, fewer than REASON_LEAST (said of many things)
    assert reasons_matcher("head_size not supported").lookup("head_size not supported")[0] == []
    long = "the attention sinks of this model are not supported by the flash attention backend"
    m = reasons_matcher(long)
    assert top(m, long) == "e0"
    assert top(m, long.replace("model", "layer")) is None  # a near match of a reason (0.83) is none


def test_another_programs_error_outranks_a_reason():
    m = reasons_matcher("CUDA out of memory. Tried to allocate {size}")
    matches, foreign = m.lookup("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
                                "total capacity of 79.10 GiB of which 1.2 GiB is free.")
    assert foreign is not None and foreign["role"] == "answer"  # the reason's message is listed after it
    # ... the weak rules too, that tell an exception no release of vLLM raises ("MyError: ...")
    m = reasons_matcher("the attention sinks of this model are not supported by the flash attention backend")
    matches, foreign = m.lookup("MyError: the attention sinks of this model are not supported by the flash attention backend")
    assert foreign is not None and (foreign["id"], foreign["role"]) == ("exception-not-in-vllm", "answer")
    assert [x.error.id for x in matches] == ["e0"]  # listed after it


def test_the_new_near_rules_on_the_corpus_bundle(history_matcher):
    """On the real releases: a message whose opening is cut off, one with a word of its opening
    left out after its type (partial, the pin's error), and a line that names vLLM nowhere."""
    for paste, want in (("ValueError: ...frames to RGB before preprocessing: whether the alpha is straight or premultiplied is "
                         "not recoverable from a bare frame array, so it cannot be composited correctly here.", "6621d377e62f2440"),
                        ("ValueError: trace_decode_token_ids not supported with prompt_logprobs.", "8f6ed8c33cb4c29d")):
        matches, _ = history_matcher.lookup(paste)
        assert matches and matches[0].error.id == want and matches[0].verdict == "partial", (paste, matches[:1])
    matches, foreign = history_matcher.lookup("Please set `use_tensor_cores=True` in BatchDecodeWithPagedKVCacheWrapper for group size 3")
    assert matches == [] and foreign["id"] == "message-not-in-vllm" and foreign["reason"].startswith("nothing in the paste names vLLM")


def test_this_sessions_rules_on_real_pastes_and_the_corpus_bundle(history_matcher):
    """On the real releases and two real pastes: ms-swift's traceback that ends in its own source
    checkout is another program's (frame_outside_vllm), and an issue title cut inside the first
    value of the Marlin message goes to the problem the pin raises, not to v0.5's message with
    fewer placeholders after the cut (_holes_shown)."""
    swift = json.loads((DATA / "pastes" / "uf-029-swift-grpo-agent-query-role-assert.json").read_text())
    matches, foreign = history_matcher.lookup(swift["paste"])
    assert matches == [] and foreign["source"] == "code outside vLLM" and "template/base.py" in foreign["why"], foreign
    marlin = json.loads((DATA / "pastes" / "rl-022-marlin-not-support-uint4b8-qwen2-gptq.json").read_text())
    matches, _ = history_matcher.lookup(marlin["paste"])
    assert matches and marlin["expected"] in {matches[0].error.id, (matches[0].current or matches[0].error).id}, matches[:2]


def test_real_pastes_behind_a_containers_own_name_and_kubectls_prefix(history_matcher):
    """On the real releases: real pastes, each line behind a prefix these tools write, get the
    answer the paste gets as given: docker compose's for a container with its own name (no
    "-1"), and kubectl logs --prefix's. Before COLLECTOR_PREFIX and the wider
    DOCKER_COMPOSE_PREFIX these lost their log headers' reading."""
    for name in ("ll-029-stepcodex-deepgemm-missing.json", "lr-026-get-state-cls-notimplemented-trl.json",
                 "a-056-invalid-repo-id-chained-from-config-format.json"):
        paste = json.loads((DATA / "pastes" / name).read_text())
        for prefix in ("vllm-server  | ", "[pod/vllm-0/vllm] "):
            matches, _ = history_matcher.lookup("\n".join(prefix + line for line in paste["paste"].split("\n")))
            assert matches and paste["expected"] in {matches[0].error.id, (matches[0].current or matches[0].error).id}, (name, prefix, matches[:2])


def test_an_ellipsis_stands_for_the_words_it_leaves_out():
    """A quote that leaves words out of the message's middle and says so with "..." (or "\u2026")
    matches exactly: the chunks the ellipsis stands for are not missing. The same gap without one
    is other words: a near match at most."""
    m = tiny_matcher(("ValueError", "DeepSeek V4.1 Engram does not support DBO or microbatching. Disable --enable-dbo and set --ubatch-size to 0."))
    for elided in ("ValueError: DeepSeek V4.1 Engram does not support... set --ubatch-size to 0.",
                   "ValueError: DeepSeek V4.1 Engram does not support\u2026 set --ubatch-size to 0."):
        matches, _ = m.lookup(elided)
        assert [(x.error.id, x.verdict) for x in matches] == [("e0", "exact")], matches
    matches, _ = m.lookup("ValueError: DeepSeek V4.1 Engram does not support it, so please set --ubatch-size to 0.")
    assert all(x.verdict == "partial" for x in matches), matches
    # ... also inside a chunk of three words, its start and end shown around the ellipsis
    m = tiny_matcher(("ValueError", "trace_decode_token_ids is not supported with prompt_logprobs."))
    assert top(m, "ValueError: trace_decode_token_ids is not... with prompt_logprobs.") == "e0"


def test_a_context_window_of_openais_own_models_is_openais_answer(history_matcher):
    """On the real releases: the refusal vLLM copied from OpenAI, with a window only OpenAI's own
    models have (4,097 tokens: gpt-3.5-turbo), is OpenAI's answer, not vLLM's message; the same
    words with a window a served model has stay vLLM's."""
    for name in ("pj-008-openai-context-length-vllm-wording.json", "qx-020-autogpt-openai-context-4097.json"):
        paste = json.loads((DATA / "pastes" / name).read_text())
        matches, foreign = history_matcher.lookup(paste["paste"])
        assert foreign is not None and foreign["id"] == "openai-api-error" and foreign["role"] == "answer", (name, foreign, matches[:1])
    served = ("openai.BadRequestError: Error code: 400 - {'object': 'error', 'message': \"This model's maximum context length is "
              "4096 tokens. However, you requested 4203 tokens (3703 in the messages, 500 in the completion). Please reduce the "
              "length of the messages or completion.\", 'type': 'BadRequestError', 'param': None, 'code': 400}")
    matches, foreign = history_matcher.lookup(served)
    assert matches and matches[0].score >= 0.9 and (foreign is None or foreign["role"] != "answer"), (matches[:1], foreign)


def test_a_quote_from_mid_message_with_an_ellipsis_and_a_sentence_without_its_stop(history_matcher):
    """On the real releases and a real paste (ob-014): a quote that opens inside the Mamba message,
    leaves its middle out with "..." and stops at the end of a later sentence without its full
    stop is that message (_elided_between, _stop_left_out)."""
    paste = json.loads((DATA / "pastes" / "ob-014-homeops-mamba-cache-blocks.json").read_text())
    matches, _ = history_matcher.lookup(paste["paste"])
    assert matches and paste["expected"] in {matches[0].error.id, (matches[0].current or matches[0].error).id}, matches[:2]


def test_a_report_printed_twice_is_the_report_not_a_foreign_failure(history_matcher):
    """On the real releases and a real paste (b-035): vLLM's report that the engine core failed,
    printed by two workers (or pasted twice), is still vLLM's report: the copy above it is no
    failure of another program. An exception above both copies still is the failure."""
    report = json.loads((DATA / "pastes" / "b-035-engine-core-init-failed-dict.json").read_text())
    lines = [line for line in report["paste"].split("\n") if line.strip()]
    twice = "\n".join([f"(VllmWorker TP0 pid=100) {line}" for line in lines] + [f"(VllmWorker TP1 pid=101) {line}" for line in lines])
    for paste in (twice, report["paste"] + "\n" + report["paste"]):
        matches, foreign = history_matcher.lookup(paste)
        assert foreign is None and matches, (paste, foreign)
        assert report["expected"] in {matches[0].error.id, (matches[0].current or matches[0].error).id}, matches[:2]
    cause = "PermissionError: [Errno 13] Permission denied: '/root/.cache/huggingface'\n"
    matches, foreign = history_matcher.lookup(cause + twice)
    assert foreign is not None and foreign["id"] == "permission-denied" and foreign["role"] == "answer", (foreign, matches[:1])


def test_a_quote_that_leaves_out_the_middle_of_a_message_is_a_near_match():
    """A message named by its type whose first and last words are shown whole, with its middle
    left out or reworded, is a near match (partial) when as much is shown as left out; without
    its type, or with less shown than left out, it is no match."""
    m = tiny_matcher(("ImportError", "Please install bitsandbytes>=0.45.3 via `pip install bitsandbytes>=0.45.3` to use bitsandbytes quantizer."))
    matches, _ = m.lookup("ImportError: Please install bitsandbytes>=0.45.3 to use bitsandbytes quantizer.")
    assert [x.error.id for x in matches] == ["e0"] and matches[0].verdict == "partial", matches
    assert top(m, "Please install bitsandbytes>=0.45.3 to use bitsandbytes quantizer.") is None  # no type
    assert top(m, "ImportError: Please install bitsandbytes quantizer.") is None  # less shown than left out


def test_a_message_that_grew_keeps_its_lineage_past_a_new_assert_alike(history_matcher):
    """On the real releases and a real paste (e-035): v0.6.3's RuntimeError "Engine process failed
    to start" is the problem of v0.7.0's "... See stack trace for the root cause." (errors/lineage.yaml
    links them and keeps it apart from v0.7.0's new assert worded alike), so a paste cut inside
    the message, with v0.6.3's frames, lands on that problem."""
    paste = json.loads((DATA / "pastes" / "e-035-arm-engine-process-faile-truncated.json").read_text())
    matches, _ = history_matcher.lookup(paste["paste"])
    assert matches and {paste["expected"], "d75fb232987c9ca7"} <= _problem_ids(matches[0]), matches[:2]
    assert "3be073c91f955794" not in _problem_ids(matches[0])
