"""The one family of expected failures, and the exit code each one means.

Every stage raises a subclass of ``ErrorkbError`` for a failure the person can act on
(a bad file, a missing tool, an unreachable source); ``generator.cli`` prints it as one
line on stderr, ``errorkb: error: <message>``, and exits with its ``exit_code``. Anything
else is a bug and keeps its traceback.

- exit 2, ``InputError``: bad input or environment (arguments, files, sources, tools);
- exit 1, ``Findings``: the command ran and found problems (it has printed them).
"""

from __future__ import annotations


class ErrorkbError(Exception):
    """A failure the person can act on; the message says what to do."""

    exit_code = 2


class InputError(ErrorkbError):
    """Bad input or environment: arguments, files, configuration, sources, tools."""

    exit_code = 2


class Findings(ErrorkbError):
    """The command ran and found problems, already printed; the message sums them up."""

    exit_code = 1
