"""The ``errorkb`` command line: the parser, and one line for every expected failure.

Each command lives in a file of its own in this folder (``add_parser`` and ``run``):
it parses its arguments, calls its stage and prints. ``main`` turns an
``ErrorkbError`` into ``errorkb: error: <message>`` and its exit code.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from generator.cli.progress import Progress
from generator.config import load_config
from generator.errors import ErrorkbError

# Each a module of generator/cli with add_parser(commands), imported only when needed.
COMMANDS = ("scan", "lookup", "drift", "build", "serve", "check", "new", "verify", "memory")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line; with ``only``, that command alone (the others' modules are not
    imported: `errorkb lookup` starts in a fifth less time)."""
    parser = argparse.ArgumentParser(prog="errorkb", description="The vLLM error knowledge base.")
    commands = parser.add_subparsers(dest="command", required=True)
    for name in COMMANDS:
        if only is None or name == only:
            importlib.import_module(f"generator.cli.{name}").add_parser(commands)
    for sub in commands.choices.values():
        sub.add_argument("--quiet", action="store_true", help="no progress bars: plain lines for long steps only, and no news")
    parser.commands = commands.choices  # each command's own parser, by name (parse tells a typo by it)
    return parser


def parse(argv: list[str]) -> argparse.Namespace:
    """``argv`` parsed; a typo is told by the command it was given to, with its usage and the
    names it may have meant ("errorkb lookup: error: unrecognized arguments: --topp (did you
    mean --top?)"), not by errorkb's own parser, which knows none of the command's options."""
    if argv and not argv[0].startswith("-") and argv[0] not in COMMANDS:
        close = _closest(argv[0], COMMANDS)
        if close:
            build_parser().error(f"unknown command {argv[0]!r} (did you mean {close[0]!r}?); the commands are {', '.join(COMMANDS)}")
    parser = build_parser(argv[0] if argv and argv[0] in COMMANDS else None)
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        command = parser.commands[args.command]
        options = [o for action in command._actions for o in action.option_strings if o.startswith("--")]
        meant = sorted({m for arg in unknown if arg.startswith("-")
                        for m in _closest(arg.split("=", 1)[0], options)})
        command.error(f"unrecognized arguments: {' '.join(unknown)}" + (f" (did you mean {', '.join(meant)}?)" if meant else ""))
    return args


def _closest(word: str, names) -> list[str]:
    """The one name of ``names`` close enough to ``word`` to be what was meant, if any."""
    import difflib  # (here: only a typo needs it, and `errorkb lookup` starts without it)

    return difflib.get_close_matches(word, list(names), n=1)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parse(argv)
    args.progress = Progress(quiet=args.quiet)
    try:
        code = args.run(load_config(), args)
        sys.stdout.flush()  # here, so that a closed pipe is met inside this try
        return code
    except ErrorkbError as exc:
        print(f"errorkb: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:
        # `errorkb ... | head`: the reader has gone. Point stdout at /dev/null so that the
        # interpreter's last flush does not complain, and exit as a process killed by SIGPIPE.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
