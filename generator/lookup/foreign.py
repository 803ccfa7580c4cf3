"""A cleaned paste's traceback, and the errors in it that are not vLLM's (pure: no disk, no processes).

- ``last_exception``: the last ``SomeError: ...`` line, which the matcher prefers
  templates near and whose type it compares with a template's;
- ``traceback_frames``: the ``File "...", line N, in f`` lines (and IPython's), innermost last;
- ``not_vllm``: errors that vLLM users hit but that come from elsewhere (PyTorch, CUDA,
  NCCL, imports, transformers, the Hugging Face Hub), told by their messages;
- ``foreign_frame``: when no vLLM error matched, a traceback that ends in another
  package's own code;
- ``foreign_call``: ... or in a line of vLLM's that calls another package (no raise).

The browser port builds the same patterns and rules from the index (``index.py``).
"""

from __future__ import annotations

import builtins
import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from generator.errors import InputError

FOREIGN_FILE = Path(__file__).with_name("foreign.yaml")
FOREIGN_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_FIELDS = {"id": str, "source": str, "title": str, "keywords": list, "pattern": str, "weak": bool,
           "reason": str, "summary": str, "steps": list, "related": list}


@dataclass(frozen=True)
class ForeignError:
    """An error that is not vLLM's but shows up in its logs: an answer with an id of its own."""

    id: str  # published under foreign/: never renamed
    source: str  # the package that reports it
    title: str
    keywords: tuple[str, ...]  # lower case; the pattern runs only where one occurs
    pattern: re.Pattern
    weak: bool  # answers only when no vLLM error matched
    reason: str
    summary: str
    steps: tuple[str, ...]
    related: tuple[str, ...]  # ids of vLLM errors whose pages say more
    phases: tuple[tuple[str, frozenset[str], str], ...] = ()  # (phase, frame functions, advice)
    examples: tuple[str, ...] = ()  # pastes it is told by: shown on its page, and each one a test
    seen_in: str = "vLLM's logs"  # where people meet it: a client's or an installer's output is not vLLM's log
    # vLLM's message that reads as this error, a template whose words open it and whose one value
    # runs to the line's end (pynccl's "NCCL error: {error_str}"): where the paste shows those
    # words without the message's type, they are still vLLM's message, and this error its cause
    vllm_wording: str = ""


class ForeignFileError(InputError, ValueError):
    """``foreign.yaml`` is malformed: the message names the file, the line and what to fix."""


def load_foreign(path: Path = FOREIGN_FILE) -> list[ForeignError]:
    """The foreign errors of the data file; a malformed one stops with its place and what to fix."""
    import yaml  # only when the file is read: a stored matcher carries what it says

    text = path.read_text(encoding="utf-8")
    try:
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ForeignFileError(f"{path}:{mark.line + 1 if mark else 1}: YAML error: "
                               f"{getattr(exc, 'problem', None) or exc}; fix the YAML") from None

    def fail(number: int, what: str) -> ForeignFileError:
        return ForeignFileError(f"{path}:{_item_line(yaml, text, number)}: errors[{number}]: {what}")

    found: list[ForeignError] = []
    seen: set[str] = set()
    items = data.get("errors") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise ForeignFileError(f"{path}:1: the file must be a mapping with an `errors:` list")
    for number, item in enumerate(items, 1):
        if not isinstance(item, dict):
            raise fail(number, "each item must be a mapping")
        for name, kind in _FIELDS.items():
            if not isinstance(item.get(name), kind):
                raise fail(number, f"`{name}` must be a {kind.__name__}")
        if not FOREIGN_ID.match(item["id"]) or item["id"] in seen:
            raise fail(number, f"id {item['id']!r} must be new and of lower-case words and dashes")
        seen.add(item["id"])
        try:
            pattern = re.compile(item["pattern"])
        except re.error as exc:
            raise fail(number, f"`pattern` is not a regular expression ({exc}); fix it") from None
        examples = item.get("examples")
        if not isinstance(examples, list) or not examples or not all(isinstance(e, str) and e.strip() for e in examples):
            raise fail(number, "`examples` must be a list of at least one paste (a line as the error prints it) "
                               "that the pattern tells")
        phases = item.get("phases", [])
        if not isinstance(phases, list) or not all(
                isinstance(p, dict) and isinstance(p.get("phase"), str) and isinstance(p.get("functions"), list)
                and isinstance(p.get("advice", ""), str) for p in phases):
            raise fail(number, "`phases` must be a list of {phase, functions, advice}")
        seen_in = item.get("seen_in", ForeignError.seen_in)
        if not isinstance(seen_in, str) or not seen_in.strip():
            raise fail(number, "`seen_in` must be a non-empty string (where the error shows up, as in \"a client's output\")")
        vllm_wording = item.get("vllm_wording", "")
        if not isinstance(vllm_wording, str) or vllm_wording and not WORDING.match(vllm_wording):
            raise fail(number, "`vllm_wording` must be a template of vLLM's message: words, then one placeholder that "
                               "ends it (\"NCCL error: {error_str}\")")
        found.append(ForeignError(
            id=item["id"], source=item["source"], title=item["title"], keywords=tuple(k.lower() for k in item["keywords"]),
            pattern=pattern, weak=item["weak"], reason=item["reason"], summary=item["summary"],
            steps=tuple(item["steps"]), related=tuple(item["related"]),
            phases=tuple((p["phase"], frozenset(p["functions"]), p.get("advice", "")) for p in phases),
            examples=tuple(examples), seen_in=seen_in, vllm_wording=vllm_wording,
        ))
    return found


def _item_line(yaml, text: str, number: int) -> int:
    """The line where the ``number``-th item (from 1) of ``errors:`` starts."""
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    for key, value in getattr(root, "value", []):
        if getattr(key, "value", None) == "errors" and isinstance(value, yaml.SequenceNode) and number <= len(value.value):
            return value.value[number - 1].start_mark.line + 1
    return 1


@functools.cache
def foreign_errors() -> tuple[ForeignError, ...]:
    """The package's foreign errors, read once (and only when a lookup needs them)."""
    return tuple(load_foreign())

# A vLLM message that only says "something failed, see above": when a foreign error is
# in the paste, that error is the answer and such a message comes after it. Any other
# vLLM message found with a foreign error comes first, the foreign error as its cause
# (vLLM's ImportError "Please install bitsandbytes", chained from ModuleNotFoundError).
WRAPPER = re.compile(r"root cause|see (?:the )?(?:stack trace|above|logs?|error)|failed to start|died unexpectedly|"
                     r"initialization failed|initialization error|Worker failed|encountered an issue|check the logs|"
                     r"fatal error|failed with error|Error executing method|failed to be inspected|find the original error", re.I)

# Also the exception as its repr, a line of its own: V0's engine logged ``repr(e)`` above the
# traceback ("AttributeError(\"'X' object has no attribute 'pooler'\")").
# An issue title's tags: the first of words ("[Usage]", not a log's "[rank0]"), more after it
# with digits, dots and dashes too ("[Bug][V1]", "[Bug] [gpt-oss-120b]")
ISSUE_TAGS = r"\[[A-Za-z][A-Za-z /-]{0,20}\](?:[ \t]*\[[A-Za-z][\w ./-]{0,30}\])*"
# (after an issue title's tag, if any: "[Usage]: zmq.error.ZMQError: Operation not supported")
# (Python 3.11's ExceptionGroup ends in neither word: "exceptiongroup.ExceptionGroup: unhandled
# errors in a TaskGroup (1 sub-exception)")
EXCEPTION_LINE = re.compile(r"^(?:" + ISSUE_TAGS + r":?[ \t]*)?(?:[\w.]+\.)?(\w*(?:Error|Exception|ExceptionGroup|Exit|Interrupt|Warning)|AssertionError)(?:\((\w+)\))?(?::\s?(.*)|\(([\"'])(.*)\4\))?$")
FRAME = re.compile(r'File "([^"]+)", line (\d+), in ([\w<>.]+)')


def last_exception(cleaned: str) -> tuple[int, str] | None:
    """(position, name) of the last ``SomeError: ...`` line of the paste."""
    found = None
    pos = 0
    for line in cleaned.split("\n"):
        stripped = line.strip()
        m = EXCEPTION_LINE.match(stripped)
        if m:
            found = (pos, m.group(2) or m.group(1))
        pos += len(line) + 1
    return found


# A frame as IPython (Jupyter, Colab) prints it: "/usr/lib/.../polling.py in result(self, timeout)"
# before IPython 8, "File /usr/lib/.../polling.py:261, in result(self, timeout)" since.
NOTEBOOK_FRAME = re.compile(r'^[ \t]*(?:File )?((?:[A-Za-z]:)?[^\s"\',:]+\.py)(?::\d+)?,? in ([\w<>.]+)\(', re.M)


def traceback_frames(cleaned: str) -> list[tuple[str, str]]:
    """(path, function) of every traceback frame of the paste, in order (innermost last)."""
    found = [(m.start(), m.group(1), m.group(3)) for m in FRAME.finditer(cleaned)]
    found += [(m.start(), m.group(1), m.group(2)) for m in NOTEBOOK_FRAME.finditer(cleaned)]
    return [(path, function) for _, path, function in sorted(found)]


def not_vllm(cleaned: str, weak: bool = False, errors: Iterable[ForeignError] | None = None) -> tuple[int, str, str, str, int] | None:
    """(end of its line, source, reason, foreign id, where it starts) of the last non-vLLM
    error the paste shows.

    ``weak``: also rules that only speak when no vLLM error matched. Of two rules on the
    same line, the first listed wins. ``errors``: the foreign errors to tell (the package's).
    """
    best = None
    low = cleaned.lower()
    for error in foreign_errors() if errors is None else errors:
        if (error.weak and not weak) or not any(k in low for k in error.keywords):
            continue
        for m in error.pattern.finditer(cleaned):
            # the line a match ends on: a rule that reads a block (a compiler's error, then the
            # build's last line) answers for the block's last line
            line_end = cleaned.find("\n", max(m.start(), m.end() - 1))
            line_end = len(cleaned) if line_end == -1 else line_end
            if best is None or line_end > best[0]:
                best = (line_end, error.source, error.reason, error.id, m.start())
    return best


def phase_of(error: ForeignError | None, frames: list[tuple[str, str]]) -> tuple[str, str] | None:
    """(phase, advice) of a foreign error, from the traceback's frames: the innermost frame
    whose function one of the error's phases names (``_dummy_sampler_run`` → sampler warm-up)."""
    if error is None or not error.phases:
        return None
    for _, function in reversed(frames):
        name = function.rsplit(".", 1)[-1]
        for phase, functions, advice in error.phases:
            if name in functions:
                return phase, advice
    return None


def foreign_rows(errors: Iterable[ForeignError]) -> list[tuple]:
    """The foreign errors as plain tuples (a stored matcher keeps them so)."""
    return [(f.id, f.source, f.title, f.keywords, f.pattern.pattern, f.weak, f.reason, f.summary, f.steps, f.related,
             tuple((phase, tuple(sorted(functions)), advice) for phase, functions, advice in f.phases), f.vllm_wording)
            for f in errors]


def from_rows(rows: Iterable[tuple]) -> list[ForeignError]:
    return [ForeignError(id_, source, title, tuple(keywords), re.compile(pattern), weak, reason, summary, tuple(steps),
                         tuple(related), tuple((phase, frozenset(functions), advice) for phase, functions, advice in phases),
                         vllm_wording=wording)
            for id_, source, title, keywords, pattern, weak, reason, summary, steps, related, phases, wording in rows]


# A foreign error's ``vllm_wording``: words, then one placeholder at its end (no other braces)
WORDING = re.compile(r"^[^{}]*\S[^{}]*\{[^{}]+\}$")


def wording_words(wording: str) -> re.Pattern:
    """The words of a ``vllm_wording`` before its value, as a paste may show them: any case,
    any blanks between them, blanks after (also in the browser)."""
    return re.compile(r"[ \t]*".join(re.escape(word) for word in wording[: wording.index("{")].split()) + r"[ \t]*", re.I)


# Packages whose own frame, innermost in a traceback, says the error is theirs.
# SGLang and vLLM's plugins (vllm_ascend) carry copies of vLLM's checks: their frame says
# the copy raised it. Kernel libraries are often run from a source checkout, not site-packages.
FOREIGN_PACKAGES = ("transformers", "torch", "huggingface_hub", "ray", "triton", "tokenizers", "safetensors", "pydantic", "sglang",
                    "vllm_ascend", "deep_ep", "flashinfer", "xformers", "lmcache")
FOREIGN_FRAME_REASON = "the traceback ends in {package}'s own code ({file})"


# The innermost frame in a file outside vLLM that no package folder names (a source checkout, a
# script, Python's own library): what runs there raised it, when nothing else told the paste.
OUTSIDE_FRAME_REASON = ("the last frame the traceback shows is outside vLLM's code, in {file}: the code there raised it "
                        "(unless the paste leaves out frames under it)")
OUTSIDE_FRAME_SOURCE = "code outside vLLM"


# Any other installed package: the folder under site-packages (or dist-packages) that holds
# the innermost frame (vllm_ascend, xformers, flash_attn, openai, ...); vLLM's own is not one.
SITE_PACKAGE = re.compile(r"/(?:site|dist)-packages/([A-Za-z_]\w*)/")


# The package named by the last exception's own type ("torch.OutOfMemoryError",
# "huggingface_hub.errors.GatedRepoError", "requests.exceptions.ConnectionError"): a
# paste without a traceback often shows no other evidence of where its error came from.
# vLLM's own types and the user's script (__main__) name no other package.
QUALIFIED_EXCEPTION = re.compile(r"^([A-Za-z_]\w*)\.(?:\w+\.)*\w*(?:Error|Exception|Exit|Interrupt|Warning)\b")
NOT_A_PACKAGE = ("vllm", "__main__", "builtins")
EXCEPTION_TYPE_REASON = "its exception type, {type}, is {package}'s"


def foreign_exception_type(cleaned: str, last: tuple[int, str] | None) -> tuple[int, str, str, str, int] | None:
    """When no vLLM error matched: the package whose module the last exception's type is in."""
    if last is None:
        return None
    line_end = cleaned.find("\n", last[0])
    line = cleaned[last[0] : len(cleaned) if line_end == -1 else line_end].strip()
    found = QUALIFIED_EXCEPTION.match(line)
    if found is None or found.group(1) in NOT_A_PACKAGE:
        return None
    type_ = line[: found.end()]
    return 0, found.group(1), EXCEPTION_TYPE_REASON.format(type=type_, package=found.group(1)), UNMATCHED_ID, 0


def foreign_frame(frames: list[tuple[str, str]], any_package: bool = True) -> tuple[int, str, str, str, int] | None:
    """When no vLLM error matched: the package of the traceback's innermost frame.
    ``any_package``: also one not in FOREIGN_PACKAGES (a wrapper such as Unsloth that raises
    vLLM's own message again is one, so that evidence only answers when nothing matched)."""
    if not frames:
        return None
    path = frames[-1][0].replace("\\", "/")
    for package in FOREIGN_PACKAGES:
        if f"/{package}/" in path and "/vllm/" not in path:
            return 0, package, FOREIGN_FRAME_REASON.format(package=package, file=path.rsplit("/", 1)[-1]), UNMATCHED_ID, 0
    found = SITE_PACKAGE.findall(path) if any_package else []
    if found and found[-1] != "vllm":
        return 0, found[-1], FOREIGN_FRAME_REASON.format(package=found[-1], file=path.rsplit("/", 1)[-1]), UNMATCHED_ID, 0
    return None


def frame_outside_vllm(frames: list[tuple[str, str]], last: tuple[int, str] | None, own_types) -> tuple[int, str, str, str, int] | None:
    """When no vLLM error matched and no other rule told the paste: the traceback's innermost frame
    is in no file of vLLM's (nor of a plugin or fork named after it), and not Python's made-up
    module names ("<frozen importlib._bootstrap>", "<string>"): a source checkout's, a script's or
    Python's own library's code raised it ("/home/u/ms-swift/swift/llm/template/base.py"). Not
    when the last exception is of one of vLLM's own types (``own_types``): vLLM raised that, under
    frames the paste leaves out."""
    if not frames or last is not None and last[1] in own_types:
        return None
    path = frames[-1][0].replace("\\", "/")
    if "vllm" in path.lower() or path.startswith("<"):
        return None
    tail = "/".join(path.rsplit("/", 3)[-3:])  # the file and its folders, enough to find it by
    return 0, OUTSIDE_FRAME_SOURCE, OUTSIDE_FRAME_REASON.format(file=tail), UNMATCHED_ID, 0


# A frame in vLLM whose code line is not a raise but a call into another package
# ("generator = torch.Generator(device=self.device)"): compiled code adds no frame of its
# own, so the exception under that line came from the call. vLLM's own kernels are called
# through torch.ops, so that is no other package.
FOREIGN_CALL = re.compile(r"^(?!\s*(?:raise|assert)\b).*?\b(torch|triton|flashinfer|xformers|transformers|numpy|np|ray|safetensors|xgrammar)\.(?!ops\b)[\w.]*\(")
FOREIGN_CALL_REASON = "vLLM's code ({file}, line {line}) called {package}, which raised it: that line is no raise"


def raising_frame(cleaned: str, last: tuple[int, str] | None) -> tuple[re.Match, str] | None:
    """(the frame, its code line) right above the last exception: the traceback's innermost
    frame, with nothing between but its code line (and a caret line)."""
    if last is None:
        return None
    frame = None
    for frame in FRAME.finditer(cleaned):
        pass
    if frame is None or frame.end() > last[0]:
        return None
    # (the frame line may end in spaces, a terminal's width: "..., in get_kernel      ")
    between = cleaned[frame.end() : last[0]].lstrip(" \t").strip("\n").split("\n")
    return None if len(between) > 3 else (frame, between[0])


# The last exception of a paste that no message of vLLM's matched, in any release covered:
# the catalog holds every message vLLM raises or logs, so this one was raised by Python or by
# a package under vLLM. Not so for a bare type ("AssertionError": vLLM has many raises with no
# message), for a type of vLLM's own, nor under a traceback whose last frame is vLLM's: its
# line may build the message at run time, or call one of vLLM's own kernels.
UNMATCHED_ID = "exception-not-in-vllm"
UNMATCHED_REASON = "no message of vLLM's, in any release covered, reads like this {type}: Python or a package under vLLM raised it"
UNMATCHED_SOURCE = "Python or a package under vLLM"
BUILTIN_EXCEPTIONS = tuple(sorted(name for name, value in vars(builtins).items()
                                  if isinstance(value, type) and issubclass(value, BaseException)))
MESSAGE_WORD = re.compile(r"[A-Za-z]{2,}")
PYTHON_ON_VLLMS_LINE_REASON = ("no message of vLLM's, in any release covered, reads like this {type}: Python raised it running "
                               "vLLM's code ({file}, line {line}), a line that raises nothing itself")
CODE_WORD = re.compile(r"[A-Za-z_]")  # the frame shows its code line (a paste may leave it out)
# A code line that raises, asserts, or calls vLLM's compiled kernels (torch.ops._C, _custom_ops):
# an exception under it may carry a message vLLM built at run time.
RAISES_OR_CALLS_A_KERNEL = re.compile(r"^\s*(?:raise|assert)\b|\bops\.|\b_C\b|_custom_ops|_kernels?\b")


def innermost_frame(cleaned: str, end: int) -> re.Match | None:
    """The last traceback frame of the paste before ``end``."""
    frame = None
    for frame in FRAME.finditer(cleaned, 0, end):
        pass
    return frame


def unmatched_exception(cleaned: str, last: tuple[int, str] | None, own_types) -> tuple[int, str, str, str, int] | None:
    """When no vLLM error matched: the last exception, if a message of its own says it is not vLLM's.
    ``own_types``: the names of vLLM's own exception types (not Python's)."""
    if last is None or last[1] in own_types:
        return None
    line_end = cleaned.find("\n", last[0])
    line = cleaned[last[0] : len(cleaned) if line_end == -1 else line_end].strip()
    _, _, message = line.partition(":")
    if len(MESSAGE_WORD.findall(message)) < 2:
        return None
    frame = innermost_frame(cleaned, last[0])
    if frame is not None and "vllm/" in frame.group(1).replace("\\", "/"):
        # Python's own exception on a line of vLLM's that neither raises nor calls one of
        # vLLM's kernels ("self.q_size = self.num_heads * self.head_dim"): Python raised it.
        raising = raising_frame(cleaned, last)
        if (raising is None or raising[0].start() != frame.start() or last[1] not in BUILTIN_EXCEPTIONS
                or not CODE_WORD.search(raising[1]) or RAISES_OR_CALLS_A_KERNEL.search(raising[1])):
            return None
        path = frame.group(1).replace("\\", "/")
        return 0, UNMATCHED_SOURCE, PYTHON_ON_VLLMS_LINE_REASON.format(type=last[1], file=path.rsplit("/", 1)[-1], line=frame.group(2)), UNMATCHED_ID, 0
    return 0, UNMATCHED_SOURCE, UNMATCHED_REASON.format(type=last[1]), UNMATCHED_ID, 0


# The traceback's last frame raises on a line of a vLLM file, in a function where no release
# covered raises anything: a fork's or a plugin's copy of that file raised it (the Gaudi fork's
# bare "raise NotImplementedError" in vllm/worker/model_runner_base.py's
# prepare_model_input_align_worker), or a vLLM newer than the pin. The catalog holds every
# raise of every release, with or without a message (not so an assert without one: only a
# raise counts), so the function's name says it, in a file that some release has.
FORK_RAISE_REASON = ("no release of vLLM covered raises anything in {function} of {file}: a fork's or a plugin's copy of "
                     "vLLM (or a vLLM newer than those covered) raised this {type}")
FORK_RAISE_SOURCE = "a fork or a plugin of vLLM"
RAISE_OF_A_TYPE = re.compile(r"^\s*raise\s+(?:[\w.]+\.)?(\w+)\s*(?:\(|$)")  # also in the browser


def raise_vllm_never_wrote(cleaned: str, last: tuple[int, str] | None,
                           may_raise_in: Callable[[str, str], bool]) -> tuple[int, str, str, str, int] | None:
    """When no vLLM error matched: the last exception, raised by its own type's name on the line
    of the traceback's last frame, in a vLLM file's function where no release raises.
    ``may_raise_in(path, function)``: whether some release raises in ``function`` of ``path``
    (``vllm/...``), or none has the file."""
    raising = raising_frame(cleaned, last)
    if raising is None:
        return None
    frame, code = raising
    path = frame.group(1).replace("\\", "/")
    at = path.rfind("vllm/")
    found = RAISE_OF_A_TYPE.match(code)
    if at == -1 or found is None or found.group(1) != last[1].rsplit(".", 1)[-1]:
        return None
    function = frame.group(3).rsplit(".", 1)[-1]
    if may_raise_in(path[at:], function):
        return None
    return 0, FORK_RAISE_SOURCE, FORK_RAISE_REASON.format(function=function, file=path[at:], type=last[1]), UNMATCHED_ID, 0


# A paste that no message of vLLM's matched, and whose error report is a line of its own
# rather than an exception ("docker: Error response from daemon: ...", a C++ library's
# "E1213 02:57:18.044381 5811 worker_pool.cpp:274] Worker: Process failed ...", a client's
# "Connection to RPC socket failed ..."): the catalog holds every message vLLM raises or logs
# in every release covered, so another program printed it. Not an exception's own line
# ("SomeError: ..."; `unmatched_exception` judges those, and declines vLLM's own types), nor
# under a traceback whose last frame is vLLM's (its line may build the message at run time).
# Only when nothing else answered, a log header included.
UNMATCHED_LINE_ID = "message-not-in-vllm"
UNMATCHED_LINE_REASON = "no message of vLLM's, in any release covered, reads like its last error line: another program printed it"
UNMATCHED_LINE_SOURCE = "another program"
# What makes a line an error report: an exception type's ending, words that report a failure
# ("error", "errored", "failed", a logger's "CRITICAL", "cannot", "not found", "does not exist", "may not exist", "timed out", "not ready", "crashed",
# "died", "exited with", "mismatch(es)", "unhealthy", "not supported", "does not support", "unexpected", "out of
# memory", "Permission denied", "undefined symbol", a crash handler's "Caught signal 8 (Floating
# point exception)", the C++ runtime's "terminate called after throwing an instance of
# 'std::bad_alloc'", the operating system's "Operation not permitted"...), glog's E, F and W
# severities, or another program's logger warning. ASCII classes: the browser reads the same.
ERROR_LINE = re.compile(r"(?:Error|Exception)(?![A-Za-z0-9_])|(?:^|[^A-Za-z0-9_])(?:error|errors|ERROR|exceptions?|failed|Failed|FAILED|fatal|Fatal|FATAL|CRITICAL|[Ee]rrored"
                        r"|[Tt]imed out|does not exist|(?:[Mm]ay|[Mm]ight) not exist|undefined symbol|Symbol not found|No module named|cannot import name|Permission denied"
                        r"|Segmentation fault|core dumped|terminate called|Floating point exception|[Cc]aught signal|out of resource|[Nn]ot [Ff]ound|[Uu]nable to|[Cc]annot|[Cc]ould not"
                        r"|[Ii]nvalid|[Uu]nsupported|[Rr]efused|[Nn]ot permitted|[Aa]borted|Killed|[Cc]rash(?:ed)?|CRASHED|died|[Tt]erminated|exited with|exit code|[Uu]nreachable|[Dd]enied|[Mm]ismatch(?:e[sd])?|No such file|[Uu]navailable|[Pp]anic(?:ked)?|[Ee]xceeded|[Oo]ut of memory|OOM|[Nn]ot supported|(?:[Dd]oes|[Dd]o) not support|(?:[Dd]oesn't|[Dd]on't) support|[Uu]nexpected(?:ly)?|[Dd]isconnected|[Rr]ejected|[Ff]ailure|[Dd]eadlock|[Cc]orrupt(?:ed)?|[Ii]ncompatible|[Nn]ot [Rr]eady|NOT [Rr]eady|NOT READY|[Uu]nhealthy"
                        # ... or a statement of what is wrong, in words of no failure ("... is not a
                        # multiple of the chunk size", "... must contain two dense K/V planes, got 1",
                        # pydantic's "Input should be a valid list [type=list_type, ...]", "Illegal param: ...", "... already exists in this message",
                        # "spec.x.name should not be set")
                        r"|[Ii]llegal|[Ii]nconsistent|already exists|not a multiple|[Mm]ust (?:be|not|contain|have)|Input should be|[Ss]hould not|[Mm]issing|[Uu]nknown|[Ii]ncorrect"
                        r"|[Ww]rong|[Ff]orbidden|[Nn]ot allowed|[Ee]xceeds?|[Tt]oo (?:long|large|many|big|small|short|few)|[Oo]verflow"
                        r"|[Nn]ot enough|[Ii]nsufficient|not (?:a )?valid|[Uu]nrecogni[sz]ed|[Nn]o healthy upstream"
                        # ("Expected shape (1, 512), but got (1, 768).", "... but a Qwen2VLImageProcessor was expected",
                        # "KV cache page size ... does not match ...", "CUDA extension not installed.",
                        # "destroy_process_group() was not called before program exit")
                        r"|but got|(?:was|were) expected|(?:[Dd]oes|[Dd]o) not match|[Nn]ot installed|was not called|not be able to"
                        # ("did not find expected '-' indicator", "X is only available for API, CLI and Web.")
                        r"|[Dd]id not find|(?:is|are) only (?:available|supported) (?:for|on|in|with|when))(?![A-Za-z0-9_])|^[EFW][0-9]{4} [0-9]{2}:[0-9]{2}"
                        # ... or what alone is allowed ("Only base64, http or https URLs are supported.")
                        r"|(?:^|[^A-Za-z0-9_])[Oo]nly [^\n]{1,80}? (?:is|are) (?:supported|allowed)(?![A-Za-z0-9_])"
                        # ... PyTorch's C++ (c10) log header, month and day unpadded: "[W530 17:23:59.243033714 OperatorEntry.cpp:154] Warning: ..."
                        r"|^\[[EFW][0-9]{3,4} [0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)? [\w.-]+\.(?:cpp|cc|cu|h|hpp):[0-9]+\]"
                        # another program's logger warning in its own header ("[WARNING:swift] ...", or
                        # Python's "%(name)s - %(levelname)s - ": "__main__ - WARNING - ...", lighteval's
                        # "[2025-03-25 09:04:12,277] [ WARNING]: ...", loguru's "... | WARNING  | module:fn:44 - ...")
                        r"|^\[(?:WARNING|WARN):(?!vllm\b)[\w.-]+\]|^(?!vllm\b)[\w.]+ - WARNING - |\[ *WARNING *\]:|\bWARNING +\| "
                        # ... a logger's warning whose header names its module, not a file (lm-eval's
                        # "2025-04-14:10:53:14,506 WARNING  [lm_eval.models.vllm_causallms:109] ..."; vLLM's
                        # header names a file: "[api_server.py:784]"), or Python's own warning of a file that
                        # is not vLLM's ("<frozen importlib._bootstrap_external>:1301: FutureWarning: ...")
                        r"|\bWARNING +\[(?!vllm\.)(?![\w.]*\.py:)[A-Za-z_]\w*(?:\.\w+)+:\d+\]"
                        r"|^(?![^\n]*vllm[/\\])[^\n]*?:\d+:[ \t]+(?:[\w.]+\.)?[A-Z]\w*Warning:[ \t]"
                        # ... or the message of an error body that a client printed over lines ('"message": "...",')
                        r'|^[ \t]*"message":[ \t]*"'
                        # ... or an error body of another server's own shape, with an HTTP status of failure
                        # ('{"code": "invalid_param", "message": "...", "status": 400}'; vLLM's says "code": 400)
                        r'|"status":[ \t]*[45][0-9]{2}(?![0-9])')
LINE_WORDS = 3  # words of two letters or more on the line: "ERROR" alone reports nothing
# A line with vLLM's own log header, at warning level or above, whose words no release of vLLM
# logs (the catalog holds them all), when nothing else told the paste: a plugin or a fork that
# logs through vLLM's logger wrote it (vllm-omni's "[Stage-0] WARNING 02-27 08:53:04 [envs.py:94]
# No Flash Attention backend found, ..."). Cleaning takes the header off, so match.py reads the
# paste as given for it (VLLM_LOG_LINE).
VLLM_LOG_LINE_REASON = ("the line has vLLM's log header, but no release of vLLM covered logs these words: a plugin or a fork "
                        "that logs through vLLM's logger wrote it (or a vLLM newer than those covered)")
VLLM_LOG_LINE_SOURCE = "a plugin or a fork of vLLM"
# A sentence printed in one of vLLM's processes ("(APIServer pid=65324) The image processor of
# type `Qwen2VLImageProcessor` is now loaded as a fast processor by default, ...") with no log
# header of vLLM's after the process's name: vLLM's own lines carry that header, so a library
# running in the process printed it (transformers' warnings print so). Not a code line, a
# traceback's line or an exception's, which start otherwise.
PROCESS_LINE_REASON = ("the line was printed in a vLLM process without vLLM's log header, and no release of vLLM covered "
                       "writes these words: a library running in that process printed it")
PROCESS_LINE_SOURCE = "a library in vLLM's process"
# The paste's last line opens with another program's log header (match.ANOTHERS_LOG_LINE): glog's,
# SGLang's, LMCache's, Rust's tracing, Ray's, Gloo's (as "[Gloo] Rank 0 is connected to 0 peer ranks")
ANOTHERS_LINE_REASON = ("the line opens with another program's log header (vLLM's reads 'LEVEL MM-DD hh:mm:ss [file.py:N]'): "
                        "that program wrote it, not vLLM")
ANOTHERS_LINE_SOURCE = "another program's logger"
# A paste that names vLLM nowhere, when nothing else told it: no "vllm" in its words (a path, a
# package, a process's or a logger's name), no traceback frame, no log header of vLLM's kind (at
# any level, or its "[file.py:N]" alone), and its last line of LINE_WORDS words or more no
# exception's: another program's sentence (an issue title that quotes a library, a client's or an
# evaluation tool's message), which no release of vLLM covered writes; only a line of technical
# words, with a name from code in it (CODE_NAME): "the weather is nice" is no program's line.
# A paste that names vLLM, or an exception's line, may be a message of vLLM's worded otherwise.
UNNAMED_REASON = ("nothing in the paste names vLLM (no frame, path, process or log header of vLLM's), and no release of "
                  "vLLM covered writes its words: another program printed it")
UNNAMED_SOURCE = "another program"
# snake_case, camelCase or CamelCase with a capital inside, a term in backticks, or a name with a number in brackets
CODE_NAME = re.compile(r"[A-Za-z0-9]_[A-Za-z0-9]|[a-z][A-Z]|`[^`\n]+`|[A-Za-z]\(\d")
NAMES_VLLM = re.compile(r"[Vv][Ll][Ll][Mm]|\b(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)[ \t]+\d\d-\d\d[ \t]+\d\d:\d\d|\[[\w.-]+\.py:\d+\]")
# A traceback right after the line's end, or after lines the user left out ("...") down to it
# or to its first frame shown
LOGGED_ABOVE_TRACEBACK = re.compile(r'(?:\n[ \t]*(?:\.\.\.|\u2026)[ \t]*)*\n[ \t]*(?:Traceback \(most recent call last\):|File ")')


def unmatched_line(cleaned: str, last: tuple[int, str] | None) -> tuple[int, str, str, str, int] | None:
    """When nothing else told the paste: its last error line, which no release of vLLM writes.
    ``last``: the paste's last exception line (``last_exception``)."""
    found = None
    start = 0
    for line in cleaned.split("\n"):
        if (ERROR_LINE.search(line) and len(MESSAGE_WORD.findall(line)) >= LINE_WORDS and not FRAME.search(line)
                and not EXCEPTION_LINE.match(line.strip())):
            found = (start, start + len(line))
        start += len(line) + 1
    if found is None:
        return None
    frame = innermost_frame(cleaned, len(cleaned))
    if frame is not None and "vllm/" in frame.group(1).replace("\\", "/"):
        # Under vLLM's frame the line may be a message built at run time; but not the line
        # V0's engine logged above the traceback it printed, str(e), when the paste is cut
        # inside that traceback: its frames down to the raise are not shown
        if not LOGGED_ABOVE_TRACEBACK.match(cleaned, found[1]) or (last is not None and last[0] > found[1]):
            return None
        return found[1], UNMATCHED_SOURCE, UNMATCHED_REASON.format(type="exception"), UNMATCHED_ID, found[0]
    return found[1], UNMATCHED_LINE_SOURCE, UNMATCHED_LINE_REASON, UNMATCHED_LINE_ID, found[0]


UNNAMED_LINE_CHARS = 500  # a line of a person's or a program's text, not a blob
_TEXT_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ ")


def _reads_as_text(line: str) -> bool:
    """A line of text: not longer than UNNAMED_LINE_CHARS, no character that decoding replaced
    (U+FFFD), and ASCII letters and blanks make up half of it or more (random bytes, a blob of
    data or an encoded payload are no program's sentence)."""
    return (len(line) <= UNNAMED_LINE_CHARS and "\ufffd" not in line
            and 2 * sum(1 for c in line if c in _TEXT_CHARS) >= len(line))


def unmatched_unnamed(text: str, cleaned: str) -> tuple[int, str, str, str, int] | None:
    """When nothing else told the paste: one that names vLLM nowhere (``NAMES_VLLM`` in the paste's
    end as given, ``text``, or a frame), judged by its last line of words, when that is no exception's and
    names something of code (``CODE_NAME``)."""
    if NAMES_VLLM.search(text) or FRAME.search(cleaned):
        return None
    end = len(cleaned)
    for line in reversed(cleaned.split("\n")):
        start = end - len(line)
        if len(MESSAGE_WORD.findall(line)) >= LINE_WORDS:
            if EXCEPTION_LINE.match(line.strip()) or not CODE_NAME.search(line) or not _reads_as_text(line):
                return None
            return end, UNNAMED_SOURCE, UNNAMED_REASON, UNMATCHED_LINE_ID, start
        end = start - 1
    return None


def foreign_call(cleaned: str, last: tuple[int, str] | None) -> tuple[int, str, str, str, int] | None:
    """When no vLLM error matched: the package that vLLM's innermost frame calls on its code line."""
    raising = raising_frame(cleaned, last)
    if raising is None or "vllm/" not in raising[0].group(1).replace("\\", "/"):
        return None
    frame, code = raising
    found = FOREIGN_CALL.match(code)
    if found is None:
        return None
    package = "numpy" if found.group(1) == "np" else found.group(1)
    path = frame.group(1).replace("\\", "/")
    return 0, package, FOREIGN_CALL_REASON.format(file=path.rsplit("/", 1)[-1], line=frame.group(2), package=package), UNMATCHED_ID, 0

