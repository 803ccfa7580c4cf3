"""The ``errorkb`` command line: the parser, and one line for every expected failure.

Each command lives in a file of its own in this folder (``add_parser`` and ``run``):
it parses its arguments, calls its stage and prints. ``main`` turns an
``ErrorkbError`` into ``errorkb: error: <message>`` and its exit code.
"""

from __future__ import annotations

import argparse
import os
import sys

from generator.cli import build, check, drift, lookup, memory, new, scan, serve, verify
from generator.cli.progress import Progress
from generator.config import load_config
from generator.errors import ErrorkbError

COMMANDS = (scan, lookup, drift, build, serve, check, new, verify, memory)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="errorkb", description="The vLLM error knowledge base.")
    commands = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_parser(commands)
    for sub in commands.choices.values():
        sub.add_argument("--quiet", action="store_true", help="no progress bars: plain lines for long steps only, and no news")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
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
