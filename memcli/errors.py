"""The one fatal error type of the core, and the exit codes the CLI maps onto.

The core raises :class:`MemError`; it never prints or exits. The CLI turns the error into a
one-line message on stderr and the exit code it carries.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_PROBLEMS = 1  # a check found problems (lint, prune --check)
EXIT_USAGE = 2  # bad arguments, bad input, missing repository or store
EXIT_INTERNAL = 3  # a bug: an exception nobody expected


class MemError(Exception):
    """A failure the user can act on: bad input, a missing store, an unknown id.

    An error about one argument names it by its field, as the library knows it
    (``field="kind"``, message ``kind: 'x' is not one of ...``); each front end shows the field
    in its own words (the CLI as its flag, ``--kind``; the MCP server as the tool argument).
    """

    def __init__(
        self, message: str, exit_code: int = EXIT_USAGE, *, field: str | None = None
    ) -> None:
        if field is not None and not message.startswith(f"{field}: "):
            message = f"{field}: {message}"
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.field = field

    def reworded(self, names: dict[str, str]) -> str:
        """The message with its field shown as ``names[field]`` (unchanged when not named)."""
        if self.field is None or self.field not in names:
            return self.message
        return names[self.field] + self.message[len(self.field) :]

    def __str__(self) -> str:
        return self.message


def silence_closed_stdout() -> None:
    """After a write to a closed pipe (``mem list | head -1``): point stdout at the null device,
    so that what is still buffered, flushed at exit, goes nowhere instead of failing again."""
    import os
    import sys

    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):
        pass
