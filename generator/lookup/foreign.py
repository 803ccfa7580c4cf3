"""A cleaned paste's traceback, and the errors in it that are not vLLM's (pure: no disk, no processes).

- ``last_exception``: the last ``SomeError: ...`` line, which the matcher prefers
  templates near and whose type it compares with a template's;
- ``traceback_frames``: the ``File "...", line N, in f`` lines, innermost last;
- ``not_vllm``: errors that vLLM users hit but that come from elsewhere (PyTorch, CUDA,
  NCCL, imports, transformers, the Hugging Face Hub), told by their messages;
- ``foreign_frame``: when no vLLM error matched, a traceback that ends in another
  package's own code.

The browser port builds the same patterns and rules from the index (``index.py``).
"""

from __future__ import annotations

import re

# Errors that vLLM users hit but that come from elsewhere. Checked against the last
# exception of the paste; a vLLM template that explains that exception wins.
NOT_VLLM_RULES: list[tuple[str, tuple[str, ...], re.Pattern, str, bool]] = [
    # (source, keywords, pattern, reason, weak): the pattern runs only where one of
    # the keywords occurs (lower case); a weak rule speaks only when no vLLM error matched.
    ("torch", ("out of memory", "re-initialize cuda"),
     re.compile(r"OutOfMemoryError: CUDA out of memory|CUDA out of memory\. Tried to allocate|Cannot re-initialize CUDA in forked subprocess", re.I),
     "PyTorch reported it (a CUDA allocation that failed, or CUDA used in a forked process), not a vLLM check", False),
    ("cuda", ("cuda error",),
     re.compile(r"CUDA error: (?:an illegal memory access|no kernel image is available|device-side assert|misaligned address|unspecified launch failure|out of memory|invalid device ordinal|CUDA-capable device)", re.I),
     "an error reported by the CUDA runtime (through PyTorch), not a vLLM check", False),
    ("nccl", ("nccl", "distbackenderror"),
     re.compile(r"\bNCCL error|nccl(?:UnhandledCudaError|SystemError|InternalError|InvalidUsage|RemoteError)|DistBackendError", re.I),
     "an error from NCCL, the GPU collective-communication library", False),
    ("nccl", ("nccl warn",), re.compile(r"\bNCCL WARN\b"),
     "a warning from NCCL, the GPU collective-communication library", True),
    ("python-import", ("no module named", "cannot import name", "undefined symbol"),
     re.compile(r"(?:ModuleNotFoundError|ImportError): (?:No module named|cannot import name)|undefined symbol: \w+"),
     "Python could not import a package, a name from it, or a compiled extension built against another PyTorch", False),
    ("transformers", ("transformers", "unrecognized", "config.json", "gguf model", "custom code"),
     re.compile(r"contains custom code which must be executed|Transformers does not recognize this architecture|model type `[^`]+` but Transformers|Unrecognized configuration class|does not appear to have a file named config\.json|Unrecognized model in |GGUF model with architecture \S+ is not supported yet", re.I),
     "an error from Hugging Face transformers while reading the model's configuration", False),
    ("huggingface_hub", ("repo", "client error", "model identifier", "localentrynotfound", "huggingface.co"),
     re.compile(r"GatedRepoError|RepositoryNotFoundError|(?:401|403) Client Error|is not a valid model identifier|LocalEntryNotFoundError|We couldn't connect to 'https://huggingface\.co'|Cannot access gated repo", re.I),
     "an error from the Hugging Face Hub client while fetching the model", False),
]

EXCEPTION_LINE = re.compile(r"^(?:[\w.]+\.)?(\w*(?:Error|Exception|Exit|Interrupt|Warning)|AssertionError)(?:\((\w+)\))?(?::\s?(.*))?$")
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


def traceback_frames(cleaned: str) -> list[tuple[str, str]]:
    """(path, function) of every traceback frame of the paste, in order (innermost last)."""
    return [(m.group(1), m.group(3)) for m in FRAME.finditer(cleaned)]


def not_vllm(cleaned: str, weak: bool = False) -> tuple[int, str, str] | None:
    """(end of its line, source, reason) of the last non-vLLM error the paste shows.

    ``weak``: also rules that only speak when no vLLM error matched.
    """
    best = None
    low = cleaned.lower()
    for source, keywords, pattern, reason, is_weak in NOT_VLLM_RULES:
        if (is_weak and not weak) or not any(k in low for k in keywords):
            continue
        for m in pattern.finditer(cleaned):
            line_end = cleaned.find("\n", m.start())
            line_end = len(cleaned) if line_end == -1 else line_end
            if best is None or line_end > best[0]:
                best = (line_end, source, reason)
    return best


# Packages whose own frame, innermost in a traceback, says the error is theirs.
FOREIGN_PACKAGES = ("transformers", "torch", "huggingface_hub", "ray", "triton", "tokenizers", "safetensors", "pydantic")
FOREIGN_FRAME_REASON = "the traceback ends in {package}'s own code ({file})"


def foreign_frame(frames: list[tuple[str, str]]) -> tuple[int, str, str] | None:
    """When no vLLM error matched: the package of the traceback's innermost frame."""
    if not frames:
        return None
    path = frames[-1][0].replace("\\", "/")
    for package in FOREIGN_PACKAGES:
        if f"/{package}/" in path and "/vllm/" not in path:
            return 0, package, FOREIGN_FRAME_REASON.format(package=package, file=path.rsplit("/", 1)[-1])
    return None
