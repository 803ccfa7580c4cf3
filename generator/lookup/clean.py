"""Cleaning a paste: the text as vLLM printed it, and its squashed form (pure: no disk, no processes).

How a paste is read, steps 1 and 2 (step 3, matching the templates, is ``match.py``):

1. ``clean_paste`` undoes what happens to text between vLLM and the search box:
   ANSI colours, HTML entities, JSON string escapes, and per line the prefixes that
   logs add (docker-compose ``vllm-1  | ``, ``(EngineCore_DP0 pid=316)``,
   ``[rank0]:``, vLLM's ``ERROR 11-18 18:07:28 [core.py:710]`` headers, timestamps).
2. ``squash`` drops whitespace and backticks, folds case and quote styles. Compared
   squashed, a message survives hard wraps that split words, lost indentation, lost
   backticks, and re-flowed paragraphs. Each squashed character remembers where it
   came from, so placeholder values are cut from the cleaned text.

The browser port (``templates/assets/lookup.js``) builds its patterns from the sources
that ``index.compact_index`` puts in the index; it carries none of them itself.
"""

from __future__ import annotations

import html
import json
import os
import re
from bisect import bisect_right

MAX_TEXT_CHARS = 200_000  # a bigger paste is read from its end, where the error is
UNESCAPE_ROUNDS = 3  # a JSON body quoted inside another is escaped twice
PREFIX_ROUNDS = 6  # prefixes stack: "vllm-1  | (APIServer pid=1) ERROR ... ] "

# --- cleaning --------------------------------------------------------------------------

# ANSI escapes: CSI (colours, cursor), OSC (a title, a hyperlink: ended by BEL or by ST, ESC \\),
# other two-character escapes, and CSI colours that lost their ESC. An OSC stops at the next
# ESC: each one's body is read once, so 100,000 unterminated "ESC ]" cost linear time (an OSC
# read up to the next BEL anywhere made each of them scan the rest of the paste). A colour that
# lost its ESC also right after a word ("ValueError: boom[0m"); a reset with no number ("[m")
# only between words: "[multiproc_executor.py:546]" is vLLM's log header, "[m" its file's name.
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]|(?<!\])\[\d{1,3}(?:;\d{1,3})*m(?!\])|(?<![\w\]])\[m(?![\w.-])")
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
JSON_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|[nrt\"'\\/])")
# docker compose's service name, "vllm-1  | ", or a container's own name ("vllm-server  | ",
# "qwen3-30b-a3b  | ": a service with container_name set); a level's column of another
# logger ("ERROR    | ", loguru's) is no name; a swarm service's task names its node
# ("vllm_vllm.1.x2x4z@node1    | "), pm2 its process's number ("0|vllm     | ")
DOCKER_COMPOSE_PREFIX = re.compile(r"^(?!(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|SUCCESS|TRACE)\b)(?:\d+\|)?[\w.@-]+[ \t]+\|[ \t]?")
RANK_PREFIX = re.compile(r"^\s*\[(?:rank|default)\d+\]:\s?")  # torchrun's [rank0]:, and with --tee its [default0]:
# kubectl logs --prefix ("[pod/vllm-7d9f8b6c5-x2x4z/vllm] "), Open MPI's --tag-output ("[1,0]<stderr>:")
LAUNCHER_PREFIX = re.compile(r"^\s*(?:\[pod/[\w.-]+/[\w.-]+\][ \t]?|\[\d+,\d+\]<(?:stdout|stderr)>:)")
QUOTE_PREFIX = re.compile(r"^\s*>\s?")  # a quoted reply on GitHub
# Python's report of an exception group puts "| " before each line of the tracebacks it holds,
# once per level ("  |   File ...", "    | ValueError: ..."; anyio's and asyncio's task groups,
# Starlette under vLLM's server); a CI log viewer puts one before each line as well (Buildkite's
# "  | [2025-03-10T15:07:20Z] ..."); no message of vLLM's opens a line with one. Not a row of a
# Markdown table, which ends with one too ("| GPU | Model |").
GROUP_PREFIX = re.compile(r"^[ \t]*\|(?:[ \t]|$)(?![^\n]*\|[ \t]*$)")
# What a container's log collector or a reply put before each line, around any program's log
# line: kubectl's --timestamps ("2025-06-05T16:30:08.123456789Z "; another program's header may
# open with a date and time of its own: Ray's "2025-01-15 18:01:02,216 WARNING ..." stays)
OUTER_PREFIXES = [
    DOCKER_COMPOSE_PREFIX, RANK_PREFIX, LAUNCHER_PREFIX,
    re.compile(r"^\s*\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)\s+(?:(?:stdout|stderr) [FP] )?"),
    GROUP_PREFIX, QUOTE_PREFIX,
]
LINE_PREFIXES = [
    DOCKER_COMPOSE_PREFIX,
    # (EngineCore_DP0 pid=316); SkyPilot's "(task, pid=2503) ", "(worker1, rank=1, pid=2504, ip=10.0.0.2) "
    re.compile(r"^\s*\((?:[\w.:-]+(?:=[\w.:-]+)?,?\s+)*pid=\d+(?:,\s*ip=[\w.:]+)?\)\s?"),
    RANK_PREFIX, LAUNCHER_PREFIX,
    # vLLM's headers: "ERROR 11-18 18:07:28 engine.py:366] ", "INFO 05-01 12:00:00.123 [core.py:710] "
    re.compile(
        r"^\s*(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\s+\d\d-\d\d\s+\d\d:\d\d:\d\d(?:\.\d+)?\s+"
        r"(?:\[[^\]\s]+:\d+\]|[\w./-]+:\d+\])\s?"
    ),
    # another logging format's header: a level, a few fields (a process id, a thread), then the
    # file and line: "ERROR 56542 [async_llm_engine.py:64] "
    re.compile(r"^\s*(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\s+(?:[^\s\[\]]+\s+){1,3}\[[\w.-]+\.py:\d+\]\s?"),
    re.compile(r"^\s*\[[^\]\s]+\.py:\d+\]\s?"),  # a bare "[core.py:710] "
    # syslog's and journalctl's header: the time, the host, the program and its process id
    # ("Dec 01 10:00:00 gpu-host vllm[1234]: ", a service systemd runs)
    re.compile(r"^\s*[A-Z][a-z]{2}\s+\d{1,2}\s+\d\d:\d\d:\d\d\s+[\w.-]+\s+[\w./@-]+\[\d+\]:\s?"),
    # a timestamp; in a container runtime's own log files (CRI) its stream and tag follow:
    # "2025-06-05T16:30:08.123456789Z stderr F "
    # (a separator "|" or "-" after it, not a flag's "--" that opens the line's text)
    re.compile(r"^\s*\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\s*(?:(?:stdout|stderr) [FP] )?(?:(?:\||-(?!-))\s*)?"),
    # a timestamp in brackets, as a CI log (Buildkite's "[2025-10-20T13:11:22Z] ") or a wrapper's
    # logger puts before each line ("[2025-01-07 12:00:01] ", "[2025-01-07 12:00:01,123] ")
    re.compile(r"^\s*\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\][ \t]?"),
    # logging's default format, for vLLM's own loggers ("WARNING:vllm.config:..."); another
    # package's ("ERROR:lightrag:...") stays, to tell its line apart (match.ANOTHERS_LOG_LINE)
    re.compile(r"^\s*(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):(?=[Vv][Ll][Ll][Mm]\b)[\w.]+:"),
    # ... and the common "%(asctime)s - %(name)s - %(levelname)s - %(message)s", whose time the
    # timestamp's prefix above took off ("vllm.engine.llm_engine - ERROR - ...")
    re.compile(r"^\s*(?=[Vv][Ll][Ll][Mm]\b)[\w.]+ - (?:DEBUG|INFO|WARNING|ERROR|CRITICAL) - "),
    GROUP_PREFIX,
    QUOTE_PREFIX,  # (last: the browser reads it as the last)
]


# Docker's json-file log driver (and Kubernetes log collectors after it) keeps each line as
# {"log":"...\n","stream":"stderr","time":"..."}: the line is its "log" value less its line
# break, still escaped (the JSON escapes are undone after).
DOCKER_JSON_LOG = re.compile(r'\{"log":"((?:[^"\\\n]|\\.)*?)(?:\\r)?(?:\\n)?","stream":"(?:stdout|stderr)","time":"[^"\n]*"\}')
# Any other log collector's or JSON logger's line, one JSON object a line (python-json-logger, as
# vLLM's logging configuration documents it: {"asctime": "...", "levelname": "ERROR", "message":
# "..."}; a cloud's "textPayload", journald's "MESSAGE", structlog's "event"): the line is its
# message. Only an object with a key that a log record has (a time, a level, a stream, a
# logger): an HTTP error body ({"object": "error", "message": "..."}) is a body, and stays.
JSON_LOG_LINE = re.compile(r'^[ \t]*\{"[^\n]*\}[ \t]*$', re.MULTILINE)
JSON_LOG_MESSAGE_KEYS = ("message", "msg", "log", "textPayload", "MESSAGE", "event")
JSON_LOG_RECORD_KEYS = ("time", "timestamp", "ts", "@timestamp", "asctime", "level", "levelname", "severity", "stream", "logger")
# ... and what such a record says after its message, each on lines of its own: the exception's
# traceback (python-json-logger's "exc_info"), Go's zap's "error" and "stacktrace"
JSON_LOG_DETAIL_KEYS = ("error", "exc_info", "exception", "stack_info", "stacktrace")
JSON_LOG_BRACKETS = 256  # a line with more is left as it is: Python's parser and the browser's nest to different depths


# A carriage return as a pager or an editor shows it ("^M" at a line's end: less, vim, cat -v):
# the line break it was.
SHOWN_CR = re.compile(r"\^M(?=\r?\n|$)")


# A traceback frame whose double quotes a blog or a word processor made typographic
# ('File “/x/vllm/config.py”, line 5, in f'): its quotes made straight again, so that it is
# read as a frame (the squashed message folds quote styles anyway).
TYPOGRAPHIC_FRAME = re.compile(r'File [\u201c\u201d\u201e]([^\u201c\u201d"\n]+)[\u201c\u201d], line')
# A traceback frame that a terminal or a page cut at its width, inside its path
# ('File "/usr/.../layers/quantiz' + 'ation/base_config.py", line 55, in tie_weights') or inside
# its function's name ('..., line 355, in dispat' + 'ch_router_logits', the rest alone on the
# next line, in lower case: an exception's type there is no part of it, nor is a code line
# such as "return"): one line again, so that it is read as a frame. A path holds no quote and
# no line break; a name is cut only in a line as long as a terminal's narrowest (HARD_WRAP_WIDTH).
WRAPPED_FRAME_PATH = re.compile(r'(File "[^"\n]+)\n([^"\n]*", line \d+, in )')
WRAPPED_FRAME_FUNCTION = re.compile(r'((?<![^\n])[^\n]*File "[^"\n]+", line \d+, in [\w<>.]+)\n'
                                    r'(?!(?:raise|return|pass|continue|break|yield|assert|await|del|global|nonlocal)(?![\w<>.]))'
                                    r'([a-z_][\w<>.]*)(?=[ \t]*(?:\n|$))')
# A paste that opens inside a frame's path, its start cut off when it was copied
# ('lib/python3.12/site-packages/transformers/models/llama/configuration_llama.py", line 182, in f'):
# its 'File "' put back, so that the frame is read, and with it the package that raised (a path
# alone: words before it are no frame's).
CUT_FRAME = re.compile(r'\A(\s*)(?!File ")([^"\s]+\.py)", line (\d+), in ')
# A full-width colon after an exception's type, as a Chinese or Japanese keyboard types it in an
# issue's title ("ValueError：No available memory ..."): the type and its colon as Python prints them.
FULL_WIDTH_TYPE_COLON = re.compile(r"(?<![A-Za-z0-9_.])((?:[A-Za-z_][A-Za-z0-9_.]*)?(?:Error|Exception|Warning))\uff1a[ \t\u3000]*")
# Quotes a blog, a forum or a word processor made typographic ("‘auto’ tool choice ...", a
# body's “message”): straight again, so that patterns and values read as printed (the
# squashed message folds quote styles anyway).
CURLY_SINGLE = re.compile("[\u2018\u2019]")
CURLY_DOUBLE = re.compile("[\u201c\u201d]")
# The no-break spaces a web page's code block is copied with ("&nbsp;" indents, a blog's
# editor): spaces again, so that frames, log headers and "Type: message" read as printed.
WEB_SPACE = re.compile("[\u00a0\u2007\u202f]")
# Characters a web page or a chat client puts in without showing them: zero-width spaces and
# joiners (some sites put one after each "_" or "/" so that long names may break), a word
# joiner, a byte-order mark, a soft hyphen: gone, so that names and words read as printed.
INVISIBLE = re.compile("[\u00ad\u200b-\u200d\u2060\ufeff]")
# A flag's two hyphens that a blog or a word processor made one dash ("requires —enable-auto-tool-choice
# and –tool-call-parser to be set"): two hyphens again. Only a dash that opens a word in lower case,
# as a flag does: vLLM's own dashes stand between words ("... failed — transfers will still work").
TYPOGRAPHIC_FLAG = re.compile("(?<![^\\s(\\[{'\"`=])[\u2013\u2014](?=[a-z])")
# Markdown's strong emphasis around a message ("**ValueError: ... for now.**", a title or a line of
# an issue's text): the text alone. Its opening "**" starts a line or follows a blank or a bracket,
# and its closing one ends a word; Python's "**kwargs" and "2**63" are no emphasis.
MARKDOWN_STRONG = re.compile(r"(?<![^\s(\[])\*\*(?=[^\s*])([^\n*]*?[^\s*])\*\*(?![\w*])")


# A log record's start: vLLM's header, after a process's "(EngineCore_DP0 pid=316) " if any,
# or such processes' names alone ("(APIServer pid=1) (EngineCore pid=2) ").
# A web page that drops a log's line breaks runs its records together on one line
# ("... line 162, in all_reduce ERROR 11-04 18:02:56 [executor.py:597] self.nccl..."); a
# line with two or more is cut back into records before each one.
_PROCESS = r"\((?:[\w.:-]+(?:=[\w.:-]+)?,?\s+)*pid=\d+(?:,\s*ip=[\w.:]+)?\)"
_NAMED_PROCESS = r"\((?:[\w.:-]+(?:=[\w.:-]+)?,?\s+)+pid=\d+(?:,\s*ip=[\w.:]+)?\)"  # alone, a tag needs its name: "(pid=3)" may be text
RECORD_START = re.compile(
    r"(?:" + _PROCESS + r"\s*)*\b(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\s+"
    r"\d\d-\d\d\s+\d\d:\d\d:\d\d(?:\.\d+)?\s+(?:\[[^\]\s]+:\d+\]|[\w./-]+:\d+\])"
    r"|(?:" + _NAMED_PROCESS + r"\s*)+"
)


# A terminal that cut every line at its width and a copy that kept the cuts (tmux's copy
# mode, a screen's scrollback): "...Casting torch.bfloat1" / "6 to torch.float16." A paste
# is read as cut at width W when W, its longest line's length, is at least HARD_WRAP_WIDTH and
# HARD_WRAP_LINES distinct lines have it; then each such line is joined to the next, unless
# that one starts a line of its own (NEW_LINE) or the cut one is a whole frame whose code line
# follows. A log several workers wrote has lines of one length too, each followed by a record.
DOUBLE_SPACED_LEAST = 3  # gaps of blank lines between a paste's lines that tell it was double-spaced
HARD_WRAP_WIDTH = 40
HARD_WRAP_LINES = 2
NEW_LINE = re.compile(
    r'\s*(?:Traceback \(most recent call last\)|File "|During handling of|The above exception'
    r"|(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Warning|Exit|Interrupt)(?::|$))"
)
WHOLE_FRAME = re.compile(r'\s*File "[^"\n]+", line \d+, in [\w<>.]+$')
CODE_LINE = re.compile(r"\s+\S")  # indented


# A short prefix that a launcher or a log collector puts before every line ("0] " from
# torchrun's --tee, "worker-3: ", "[1,0]<stderr>: "): stripped where it starts most lines.
# It holds a digit: "ValueError: " repeated down a log is a message, not a prefix.
SHARED_PREFIX = re.compile(r"^(?=[^\s:|]*\d)[^\s:|]{1,24}(?:\]|:|\|) ")
SHARED_PREFIX_SHARE = 0.6  # of the paste's non-blank lines, and at least 3
# ... and, read before anything else on the lines, where it opens most of them: a tool's prefix
# on every line, in front of vLLM's own (docker compose's and podman's service, "vllm  | ",
# "[vllm] | "; kubectl logs --prefix, "[pod/vllm-0/vllm] "; srun --label, "0: "), so that the
# process names and log headers after it are read as at a line's start
COLLECTOR_PREFIX = re.compile(
    r"^(?:[\w.-]{1,60}[ \t]+\|[ \t]?|\[[\w./:-]{1,100}\](?:[ \t]+\|)?[ \t]|"
    + SHARED_PREFIX.pattern.removeprefix("^") + ")"
)


# A vLLM INFO/DEBUG header anywhere in the line's prefix.
CHATTER = re.compile(r"^[^\n]{0,80}?\b(?:INFO|DEBUG)\s+\d\d-\d\d\s+\d\d:\d\d:\d\d")
# kept: what may be an error, and the line that says which vLLM this is (match.VERSION_STRING)
CHATTER_KEEP = re.compile(r"Error|Exception|Traceback|vLLM API server version|LLM engine \(v", re.I)
# A Markdown code fence's own line ("```python", "~~~"): the paste's frame, none of its text
CODE_FENCE = re.compile(r"^[ \t]*(?:```|~~~)[\w+.-]*[ \t]*$")
# A line that is one quoted exception line ('"ValueError: image_embeds has rank 3 but expected 2"',
# as a title, a chat or a JSON string quotes it): the line inside the quotes
QUOTED_EXCEPTION_LINE = re.compile(r"""^([ \t]*)(["'`])((?:[\w.]+\.)?\w*(?:Error|Exception)(?:\(\w+\))?:[ \t](?:(?!\2).)*)\2[ \t,]*$""")
# an HTTP server's access log line ('INFO: 10.0.0.1:5 - "POST /v1/chat/completions HTTP/1.1" 500
# Internal Server Error'): its status phrase is no message of vLLM's, whatever its words
_REQUEST = r'"(?:GET|POST|PUT|DELETE|PATCH|HEAD|OPTIONS) /\S* HTTP/\d(?:\.\d)?"'
ACCESS_LOG = re.compile(_REQUEST + r" \d{3}\b")
# ... of a refused request: its request and status stay (`"POST /v1/embeddings HTTP/1.1" 400`),
# all a paste of the server's log may show of a failure (foreign.yaml tells them apart)
REFUSED_REQUEST = re.compile(_REQUEST + r" [45]\d\d\b")
# ... and the whole record, to its status's reason phrase ("200 OK", "500 Internal Server Error")
ACCESS_RECORD = re.compile(_REQUEST + r" \d{3}\b(?: OK\b| [A-Z][a-z][\w-]*)*")


# A person's own words after what they pasted, on lines of their own at its end: a question
# ("How can I fix this?"), a plea or thanks ("Any help is appreciated.", "Thanks in advance!").
# What reads the paste's end (a message cut there, a bare raise, its last line of words) reads
# it before them. Not a line with code or a number in it: that may be the error, or say which
# version ran ("Did you forget to call `init_mm_limits_per_prompt`?" is vLLM's).
CLOSING_WORDS = re.compile(
    r"[ \t]*(?:(?:how|what|why|where|which|who|can|could|would|should|does|do|did|is|are|has|have|any|anyone|anybody"
    r"|someone|somebody|please|pls|plz|help|i|i'm|i've|we|hope|hoping|appreciate)\b[^\n`_=\[\](){}<>/\\|:0-9]*?"
    r"(?:\?|\bhelp(?: me)?|\bappreciated?|\bthanks?(?: you)?(?: in advance| a lot| so much)?|\bthx|\btia)"
    r"|(?:thanks|thank you|thx|tia|cheers)(?: in advance| a lot| so much)?)[ \t.!?]*$", re.IGNORECASE)
# ... and what an issue's form puts after the log: the code block's closing fence, a heading
# ("##" or more: "# " opens a comment in code), a checklist's item, a folded section's tag
# ("### Before submitting a new issue...", "- [x] Make sure you already searched ...", "</details>"),
# or what a terminal shows after it: the shell's prompt, waiting ("(vllm) user@gpu01:~/work$ "), a ^C
CLOSING_FORM = re.compile(r"[ \t]*(?:#{2,6}[ \t]|[-*][ \t]+\[[ xX]\][ \t]|</?(?:details|summary)\b|(?:```|~~~)[\w+.-]*[ \t]*$"
                          r"|(?:\([\w.-]+\)[ \t]+)?[\w.-]+@[\w.-]+:[^\n]*?[$#][ \t]*(?:\^C)?[ \t]*$|\^C[ \t]*$)")
# ... and what Python, PyTorch and the HTTP server print at shutdown, after the error, behind
# any prefix: multiprocessing's leaked semaphores or shared memory (and its warnings.warn line),
# PyTorch's process group left undestroyed, asyncio's pending task, uvicorn's shutdown lines;
# and what the container's runtime says of its end (docker compose's "vllm-1 exited with code 1",
# kubectl's "stream closed EOF for default/vllm-0 (vllm)")
CLOSING_NOISE = re.compile(r"[\w.-]+ exited with code \d+[ \t]*$"
                           r"|[^\n]*(?:resource_tracker: There appear to be \d+ leaked|warnings\.warn\('resource_tracker: "
                           r"|[Ss]tream closed(?: EOF)? for "
                           r"|destroy_process_group\(\) was not called before program exit|process group has NOT been destroyed before"
                           r"|Task was destroyed but it is pending!|task: <Task pending "
                           r"|INFO:[ \t]+(?:Shutting down|Waiting for application shutdown\.|Application shutdown complete\.|Finished server process \[\d+\]))")
WORD_LEFT = re.compile(r"[0-9A-Za-z]")
ERROR_LEFT = re.compile(r"Error|ERROR|error|Exception|Traceback|CRITICAL")
CLOSING_LINES = 8  # at most: the words after a paste are a line or two, an issue form's or the shutdown's a few more
CLOSING_TAIL = 4096  # characters at the paste's end where they are looked for (a paste may be megabytes)


def without_closing_words(text: str) -> str:
    """``text`` without the person's own words that close it (``CLOSING_WORDS``), an issue
    form's lines after the log (``CLOSING_FORM``) and the shutdown's noise (``CLOSING_NOISE``),
    when something is left before them."""
    tail = text[-CLOSING_TAIL:]
    end = len(tail)
    noise = False
    for _ in range(CLOSING_LINES):
        body = tail[:end].rstrip()
        start = body.rfind("\n") + 1
        if not start:
            break
        if CLOSING_NOISE.match(body, start):
            noise = True
        elif not (CLOSING_WORDS.match(body, start) or CLOSING_FORM.match(body, start)):
            break
        end = start - 1
    if end == len(tail):
        return text
    kept = text[: len(text) - len(tail) + end]
    # words must be left, and an error before the shutdown's noise: else the noise is what the paste is about
    return kept if WORD_LEFT.search(kept) and (not noise or ERROR_LEFT.search(kept)) else text


def decode_paste(data: bytes) -> str:
    """``data.decode("utf-8", errors="replace")`` as far as ``clean_paste`` reads it: the
    last ``MAX_TEXT_CHARS`` characters are the same, and the bytes before them are not
    decoded (50 MB of binary take seconds to decode with replacement characters).

    A character is at most 4 bytes, so the last ``4 * MAX_TEXT_CHARS`` bytes hold the last
    ``MAX_TEXT_CHARS`` characters or more. Decoding from the middle of the data is in step
    with decoding the whole from its fourth byte on (what came before can reach at most 3
    continuation bytes into it): the 3 bytes more are only read to get into step.
    """
    keep = 4 * MAX_TEXT_CHARS + 3
    return (data[-keep:] if len(data) > keep else data).decode("utf-8", errors="replace")


def clean_paste(text: str) -> str:
    """The paste as vLLM printed it, as far as that can be recovered."""
    if len(text) > MAX_TEXT_CHARS:
        text = text[-MAX_TEXT_CHARS:]
    text = ANSI.sub("", text)
    text = CONTROL.sub("", text)
    if "&" in text:
        text = unescape_html(text)
    text = DOCKER_JSON_LOG.sub(r"\1", text)
    if '{"' in text:
        text = JSON_LOG_LINE.sub(_json_log_message, text)
    for _ in range(UNESCAPE_ROUNDS):
        if "\\" not in text:
            break
        text = JSON_ESCAPE.sub(_unescape, text)
    # "\ud83d\ude80" came out as two halves: one code point again; a lone half is no text
    text = _SURROGATES.sub(_join_surrogates, text)
    text = TYPOGRAPHIC_FRAME.sub(r'File "\1", line', text)
    text = restore_cut_frame(text)
    text = untypeset(text)
    if "\uff1a" in text:  # (a scan that reads every word of a long log otherwise)
        text = FULL_WIDTH_TYPE_COLON.sub(r"\1: ", text)
    text = SHOWN_CR.sub("", text)
    lines = []
    given = dedented(single_spaced(text.replace("\r\n", "\n").replace("\r", "\n").split("\n")))
    collector = _shared_prefix(given, COLLECTOR_PREFIX)
    joined = join_hard_wraps(given, collector)
    if any('File "' in line for line in joined):  # (after the terminal's wraps: a frame joined first would widen its lines)
        joined = join_wrapped_frames("\n".join(joined)).split("\n")
    for raw in (record for line in joined
                for piece in split_records(line[len(collector):] if collector and line.startswith(collector) else line)
                for part in split_access_records(piece)
                for record in split_traceback(part)):
        line = without_prefixes(raw)
        if ACCESS_LOG.search(raw):
            refused = REFUSED_REQUEST.search(line)
            if refused is not None:
                lines.append(refused.group(0))
            continue
        if CHATTER.search(raw) and not CHATTER_KEEP.search(raw):
            continue  # an INFO or DEBUG log line: vLLM never reports a raised error there
        if CODE_FENCE.match(line):
            continue
        if line and line[-1] in "\"'`, \t":  # (a quote, or a comma or space after one: only then)
            line = QUOTED_EXCEPTION_LINE.sub(r"\1\3", line)
        # a terminal or an editor pads lines with spaces: a line's end is where its text ends
        lines.append(line.rstrip(" \t"))
    return "\n".join(_without_shared_prefix(lines))


def _no_constant(name: str):
    raise ValueError(name)  # NaN and Infinity are no JSON (the browser's JSON.parse rejects them too)


def _json_log_message(match: re.Match) -> str:
    """A JSON log record's line (``JSON_LOG_LINE``): its message, without its line break; any
    other line as it is."""
    line = match.group(0)
    if line.count("{") + line.count("[") > JSON_LOG_BRACKETS:
        return line
    try:
        record = json.loads(line, parse_constant=_no_constant)
    except ValueError:
        return line
    if not isinstance(record, dict) or not any(key in record for key in JSON_LOG_RECORD_KEYS):
        return line
    for key in JSON_LOG_MESSAGE_KEYS:
        message = record.get(key)
        if isinstance(message, str):
            details = [detail for detail in map(record.get, JSON_LOG_DETAIL_KEYS) if isinstance(detail, str)]
            return "\n".join(part.removesuffix("\n").removesuffix("\r") for part in [message, *details])
    return line


def untypeset(text: str) -> str:
    """``text`` without what a web page, an editor or Markdown made of the printed characters:
    no-break spaces, invisible characters, a flag's dash, strong emphasis, curly quotes."""
    text = INVISIBLE.sub("", WEB_SPACE.sub(" ", text))
    text = TYPOGRAPHIC_FLAG.sub("--", text)
    if "**" in text:
        text = MARKDOWN_STRONG.sub(r"\1", text)
    return CURLY_DOUBLE.sub('"', CURLY_SINGLE.sub("'", text))


def join_wrapped_frames(text: str) -> str:
    """``text`` with each frame that a terminal cut inside its path or its function's name
    (``WRAPPED_FRAME_PATH``, ``WRAPPED_FRAME_FUNCTION``) on one line again."""
    text = WRAPPED_FRAME_PATH.sub(r"\1\2", text)
    return WRAPPED_FRAME_FUNCTION.sub(
        lambda m: m.group(1) + m.group(2) if len(m.group(1)) >= HARD_WRAP_WIDTH else m.group(0), text)


def restore_cut_frame(text: str) -> str:
    """``text`` with the 'File "' of a frame whose start was cut off put back (``CUT_FRAME``),
    where it opens the paste, behind the prefixes of its first line too ("vllm-1  | lib/...")."""
    first = text[: text.find("\n")] if "\n" in text else text
    skip = len(first) - len(without_prefixes(first))
    return text[:skip] + CUT_FRAME.sub(r'\1File "\2", line \3, in ', text[skip:])


def single_spaced(lines: list[str]) -> list[str]:
    """``lines`` as printed, where a web page put a blank line after each of them (each line its
    own paragraph, as some blogs and forums show a log): every gap between lines of text is an
    odd run of blank lines, at least ``DOUBLE_SPACED_LEAST`` of them; each run of 2k + 1 blank
    lines was k. A paste with two lines of text side by side anywhere stays as it is."""
    gaps = []
    run = 0
    seen = False  # a line of text
    for number, line in enumerate(lines):
        if not line.strip():
            run += 1
            continue
        if seen:
            if not run:
                return lines  # two lines of text side by side
            gaps.append((number - run, run))
        seen, run = True, 0
    if len(gaps) < DOUBLE_SPACED_LEAST or any(size % 2 == 0 for _, size in gaps):
        return lines
    drop = {n for start, size in gaps for n in range(start, start + size - (size - 1) // 2)}
    return [line for number, line in enumerate(lines) if number not in drop]


def dedented(lines: list[str]) -> list[str]:
    """``lines`` less the spaces and tabs that open every one of them with text: a Markdown code
    block indents a paste by four spaces, a quoting reply by its own; what each line has
    beyond that (a traceback's indentation) stays. A code fence's own line does not count."""
    common = None
    for line in lines:
        if not line.strip() or CODE_FENCE.match(line):
            continue
        indent = line[: len(line) - len(line.lstrip(" \t"))]
        common = indent if common is None else os.path.commonprefix([common, indent])
        if not common:
            return lines
    return lines if not common else [line[len(common) :] if line.startswith(common) else line for line in lines]


def join_hard_wraps(lines: list[str], collector: str | None = None) -> list[str]:
    """``lines`` with the lines a terminal cut at its width joined again (``HARD_WRAP_WIDTH``);
    a line that opens with the ``collector`` prefix of every line is a line of its own."""
    width = max(map(len, lines), default=0)
    if width < HARD_WRAP_WIDTH or len({line for line in lines if len(line) == width}) < HARD_WRAP_LINES:
        return lines
    joined = [lines[0]]
    cut = len(lines[0]) == width
    for line in lines[1:]:
        own = _starts_own_line(line) or bool(collector) and line.startswith(collector)
        if (cut and (not own or _rest_of_a_cut_word(joined[-1], line))
                and not (WHOLE_FRAME.match(joined[-1]) and CODE_LINE.match(line))):
            joined[-1] += line
        else:
            joined.append(line)
        cut = len(line) == width
    return joined


# A type's name cut inside its first word ("A" + "ssertionError"): no type opens in lower case
# without a module before it ("torch.OutOfMemoryError" does)
CUT_TYPE_NAME = re.compile(r"[a-z][A-Za-z0-9_]*(?:Error|Exception|Warning|Exit|Interrupt)\b")


def _rest_of_a_cut_word(before: str, line: str) -> bool:
    """Whether ``line`` goes on with the word that ``before``, cut at the terminal's width, ends in."""
    return before[-1:].isascii() and before[-1:].isalnum() and CUT_TYPE_NAME.match(line) is not None


def _starts_own_line(line: str) -> bool:
    # a quote's "> " may be cut text ("x\n> y" wrapped): what follows it tells
    line = QUOTE_PREFIX.sub("", line, count=1)
    return (NEW_LINE.match(line) is not None or RECORD_START.match(line) is not None
            or any(p.match(line) for p in LINE_PREFIXES if p is not QUOTE_PREFIX))


def without_prefixes(line: str) -> str:
    """``line`` less the ``LINE_PREFIXES`` it starts with, however they are stacked."""
    return _without_stacked(line, LINE_PREFIXES)


def without_outer_prefixes(line: str) -> str:
    """``line`` less the ``OUTER_PREFIXES`` it starts with, however they are stacked: the line
    as the program that logged it wrote it, its own header kept."""
    return _without_stacked(line, OUTER_PREFIXES)


def _without_stacked(line: str, prefixes: list[re.Pattern]) -> str:
    for _ in range(PREFIX_ROUNDS):
        before = line
        for pattern in prefixes:
            line = pattern.sub("", line, count=1)
        if line == before:
            break
    return line


def split_access_records(line: str) -> list[str]:
    """``line`` cut before and after each access log record it holds among other text (a log
    whose line breaks were dropped: "... root cause. INFO:     10.0.0.1:5 - "POST /v1/rerank
    HTTP/1.1" 500 Internal Server Error INFO 09-11 06:30:05 ..."): otherwise the whole line
    would be read as that record, and the error before it lost."""
    if ACCESS_LOG.search(line) is None:
        return [line]
    cuts = [m.start(1) for m in FLAT_ACCESS_RECORD.finditer(line) if without_prefixes(line[: m.start(1)]).strip()]
    cuts += [m.end() for m in ACCESS_RECORD.finditer(line) if line[m.end():].strip()]
    return _cut_at(line, cuts) if cuts else [line]


def _cut_at(line: str, cuts: list[int]) -> list[str]:
    """``line`` cut at each position of ``cuts``, blank pieces dropped, each right-stripped."""
    bounds = [0, *sorted(set(cuts)), len(line)]
    return [line[a:b].rstrip() for a, b in zip(bounds, bounds[1:]) if line[a:b].strip()]


def split_records(line: str) -> list[str]:
    """``line`` cut before each log record it holds (``RECORD_START``), when it holds two or more."""
    starts = [m.start() for m in RECORD_START.finditer(line)]
    if len(starts) < 2:
        return [line]
    return _cut_at(line, [n for n in starts if n > 0])


# A traceback whose line breaks a page or a title dropped ('File "a.py", line 3, in f x = g()
# File "b.py", line 9, in g raise ValueError(...) ValueError: ...'): a line that holds two
# frames, or a frame and text after it, is cut back into lines before each frame (where text
# comes before it), after each frame (its code line), before the exception that follows the
# last frame (the first "SomeError: " after it: a raise's code line shows the type with a
# parenthesis), and before an HTTP server's access log record run into it.
FLAT_FRAME = re.compile(r'File "[^"\n]+", line \d+, in [\w<>.]+|Traceback \(most recent call last\):')
FLAT_EXCEPTION = re.compile(r"\s((?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt): )")
FLAT_ACCESS_RECORD = re.compile(r"\s((?:INFO|WARNING|ERROR):\s+\S+ -\s?" + _REQUEST + ")")
RAISE_CODE = re.compile(r"\s*raise [\w.]+\(")


def split_traceback(line: str) -> list[str]:
    """``line`` cut back into the lines of the traceback it holds run together, if it does."""
    found = list(FLAT_FRAME.finditer(line))
    frames = sum(1 for m in found if m.group(0).startswith("File"))
    if not frames:
        # a raise's code line and its exception: 'raise X(e) X: e' (behind a log's prefixes too)
        code = RAISE_CODE.match(line, len(line) - len(without_prefixes(line)))
        exception = code and FLAT_EXCEPTION.search(line, code.end())
        return _cut_at(line, [exception.start(1)]) if exception else [line]
    exception = FLAT_EXCEPTION.search(line, found[-1].end())
    code = [m.end() for m in found if m.group(0).startswith("File") and line[m.end() :].strip()]  # a frame's code line after it
    if frames < 2 and exception is None and not code:
        return [line]
    cuts = [m.start() for m in found if line[: m.start()].strip()] + code
    cuts += [m.start(1) for m in (exception, *FLAT_ACCESS_RECORD.finditer(line, found[-1].end())) if m is not None]
    return _cut_at(line, cuts)


def _shared_prefix(lines: list[str], pattern: re.Pattern) -> str | None:
    """The prefix of ``pattern`` that most of ``lines`` start with (the first of the most
    common, on a tie), where one starts ``SHARED_PREFIX_SHARE`` of them and 3 or more."""
    counts: dict[str, int] = {}
    for line in lines:
        found = pattern.match(line)
        if found:
            counts[found.group(0)] = counts.get(found.group(0), 0) + 1
    if not counts:
        return None
    prefix = max(counts, key=lambda p: counts[p])  # max keeps the first of equals
    if counts[prefix] < max(3, SHARED_PREFIX_SHARE * sum(1 for line in lines if line.strip())):
        return None
    return prefix


def _without_shared_prefix(lines: list[str]) -> list[str]:
    """``lines`` less the ``SHARED_PREFIX`` most of them start with, where there is one."""
    prefix = _shared_prefix(lines, SHARED_PREFIX)
    if prefix is None:
        return lines
    return [line[len(prefix):] if line.startswith(prefix) else line for line in lines]


MAX_CHARREF_DIGITS = 8  # past this (leading zeros aside), a numeric reference is beyond Unicode


def unescape_html(text: str) -> str:
    """``html.unescape``, with numeric references of any length: ``&#`` and 5,000 digits is
    U+FFFD (beyond Unicode), as ``html.unescape`` would say if ``int`` read that many
    digits (it refuses: a ValueError past 4,300, and quadratic time before)."""
    return html._charref.sub(_charref, text)  # type: ignore[attr-defined]


def _charref(match: re.Match) -> str:
    ref = match.group(1)
    if ref[0] != "#":
        return html._replace_charref(match)  # type: ignore[attr-defined]  # a name: at most 32 characters
    hexadecimal = ref[1] in "xX"
    digits = ref[2 if hexadecimal else 1 :].rstrip(";").lstrip("0") or "0"
    if len(digits) > MAX_CHARREF_DIGITS:
        return "\ufffd"
    return html.unescape(f"&#{'x' if hexadecimal else ''}{digits};")


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

QUOTES = "\u2018\u2019\u201c\u201d\""  # each read as "'"
_QUOTES = str.maketrans(dict.fromkeys(QUOTES, "'"))
# Quotes go too: they differ between str() and repr(), and the pieces of an
# implicitly concatenated message in a traceback's source lines read as the message.
_DROP = frozenset(" \t\n\r\f\v`\u00a0'")
DROP_RUN = re.compile("[" + re.escape("".join(sorted(_DROP))) + "]+")


class Origin:
    """Maps a position in squashed text back to the cleaned text it came from."""

    def __init__(self, starts: list[int], shifts: list[int]):
        self.starts = starts  # squashed position where each run of dropped chars ends
        self.shifts = shifts  # dropped chars before that position

    def __getitem__(self, index: int) -> int:
        run = bisect_right(self.starts, index)
        return index + (self.shifts[run - 1] if run else 0)


def squash(text: str) -> tuple[str, Origin]:
    """Text without whitespace, backticks or quotes, in lower case; and where each char came from."""
    folded = text.translate(_QUOTES).lower()
    if len(folded) != len(text):  # rare case-folding that changes length: fold per char
        folded = "".join(c.translate(_QUOTES).lower()[:1] or c for c in text)
    starts: list[int] = []
    shifts: list[int] = []
    dropped = 0
    for run in DROP_RUN.finditer(folded):
        dropped += run.end() - run.start()
        starts.append(run.end() - dropped)
        shifts.append(dropped)
    return DROP_RUN.sub("", folded), Origin(starts, shifts)


def squash_text(text: str) -> str:
    """``squash`` without the origin map."""
    folded = text.translate(_QUOTES).lower()
    return DROP_RUN.sub("", folded)


DROPPED = _DROP | frozenset(QUOTES)  # the characters squashing drops
# A character that squashing keeps (as one character or more: lower() never drops one).
_KEPT = re.compile("[^" + re.escape("".join(sorted(DROPPED))) + "]")


def squashes_longer(text: str, start: int, end: int, size: int) -> bool:
    """True when ``squash_text(text[start:end])`` is longer than ``size`` for sure (more kept
    characters than that), read only as far as needed to tell: a long line is not squashed
    whole to be compared with a short message. False says nothing (lower case can make one
    character two: İ)."""
    for count, _ in enumerate(_KEPT.finditer(text, start, end), 1):
        if count > size:
            return True
    return False
