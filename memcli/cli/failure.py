"""The one place where an error becomes a message on stderr and an exit code.

Every command, the light dispatcher included (so no Typer here), reports through
:func:`report`: a :class:`~memcli.errors.MemError` prints its one line, with the field it
names shown as the command-line flag (``kind: ...`` becomes ``--kind: ...``), and exits with
its code (2 by default); an OSError the machine caused (a read-only folder, a full disk)
names the path, exit 2; anything else is a bug, exit 3, with the traceback only when
``MEM_DEBUG=1``.
"""

from __future__ import annotations

import errno
import os
import sys

from memcli.errors import EXIT_INTERNAL, EXIT_USAGE, MemError

# The machine, not mem: a read-only .memory/local, a full disk. Exit 2, like a usage error.
ENVIRONMENT_ERRNOS = frozenset({errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT})

# Library field -> the flag that sets it, where the two differ or the flag is the field's.
FLAGS = {
    "kind": "--kind",
    "title": "--title",
    "body": "--body",
    "tags": "--tag",
    "expires": "--expires",
    "anchors": "--anchor",
    "importance": "--importance",
    "confidence": "--confidence",
    "k": "--k",
    "limit": "--limit",
    "budget": "--budget",
    "format": "--format",
    "candidate": "--candidate",
    "candidates": "--dismiss",  # `mem add --dismiss ID...`
    "paths": "PATHS",  # `mem import PATHS...`
}


def message(exc: BaseException) -> str:
    """What the user reads after ``mem: ``."""
    if isinstance(exc, MemError):
        return exc.reworded(FLAGS)
    if _environment(exc):
        assert isinstance(exc, OSError)
        where = f"{exc.filename}: " if exc.filename else ""
        return f"cannot write {where}{exc.strerror or exc}"
    reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return f"internal error: {reason} (MEM_DEBUG=1 shows the traceback)"


def exit_code(exc: BaseException) -> int:
    if isinstance(exc, MemError):
        return exc.exit_code
    return EXIT_USAGE if _environment(exc) else EXIT_INTERNAL


def _environment(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and exc.errno in ENVIRONMENT_ERRNOS


def report(exc: BaseException) -> int:
    """Print ``mem: <one line>`` on stderr; returns the exit code to end with."""
    if exit_code(exc) == EXIT_INTERNAL and os.environ.get("MEM_DEBUG") == "1":
        import traceback

        traceback.print_exception(exc)
    sys.stderr.write(f"mem: {message(exc)}\n")
    return exit_code(exc)
