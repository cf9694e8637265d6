"""What every command shares: opening the store, error handling, output helpers."""

from __future__ import annotations

import errno
import functools
import json
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any, TypeVar

import typer

from memcli.api import Memory
from memcli.errors import EXIT_INTERNAL, EXIT_USAGE, MemError, silence_closed_stdout

F = TypeVar("F", bound=Callable[..., Any])

_ENVIRONMENT_ERRNOS = frozenset(
    {errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT}
)


def fail(message: str, code: int) -> typer.Exit:
    typer.echo(f"mem: {message}", err=True)
    return typer.Exit(code)


def handle_errors(command: F) -> F:
    """MemError becomes its one-line message and exit code; a closed pipe on stdout exit 0
    quietly; anything else exit 3.

    ``MEM_DEBUG=1`` lets the traceback through.
    """

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except MemError as exc:
            raise fail(exc.message, exc.exit_code) from None
        except BrokenPipeError:
            # The reader went away (`mem list | head -1`): what it wanted, it has. Exit 0.
            silence_closed_stdout()
            raise typer.Exit(0) from None
        except (typer.Exit, typer.Abort, KeyboardInterrupt):
            raise
        except Exception as exc:
            if isinstance(exc, OSError) and exc.errno in _ENVIRONMENT_ERRNOS:
                # The machine, not mem: a read-only .memory/local, a full disk.
                where = f"{exc.filename}: " if exc.filename else ""
                raise fail(f"cannot write {where}{exc.strerror or exc}", EXIT_USAGE) from None
            if os.environ.get("MEM_DEBUG") == "1":
                traceback.print_exc()
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise fail(
                f"internal error: {reason} (MEM_DEBUG=1 shows the traceback)", EXIT_INTERNAL
            ) from None

    return wrapper  # type: ignore[return-value]


def open_memory() -> Memory:
    return Memory.open()


def show_warnings(memory: Memory) -> None:
    """Files that were skipped, and notes (an adopted identity), one line each on stderr."""
    for note in dict.fromkeys(memory.notes):
        typer.echo(f"mem: note: {note}", err=True)
    memory.notes.clear()
    seen: set[str] = set()
    for problem in memory.warnings:
        line = f"mem: warning: skipped {problem}"
        if line not in seen:
            seen.add(line)
            typer.echo(line, err=True)


def print_json(data: Any) -> None:
    """Indented JSON; a list has one element per line (json's C encoder serves only compact
    output, and `mem list --json` of 16,000 items took 4 s indented)."""
    if isinstance(data, list) and data:
        lines = (json.dumps(element, ensure_ascii=False) for element in data)
        sys.stdout.write("[\n  " + ",\n  ".join(lines) + "\n]\n")
        return
    try:
        parts: list[str] = []
        _indented(data, "\n", parts)
        text = "".join(parts)
    except (TypeError, ValueError, RecursionError):  # a key json would convert, or no JSON
        text = json.dumps(data, indent=2, ensure_ascii=False)
    sys.stdout.write(text + "\n")


_SCALARS = json.JSONEncoder(ensure_ascii=False)


def _indented(node: Any, newline: str, out: list[str]) -> None:
    """``json.dumps(node, indent=2, ensure_ascii=False)``, character for character, with the
    C encoder for every scalar (json's indenting encoder is pure Python: 2 s for 57,000
    findings of `mem prune --check --json`)."""
    if isinstance(node, dict) and node:
        inner, opening = newline + "  ", "{"
        for key, value in node.items():
            if not isinstance(key, str):
                raise TypeError("a key json would convert")
            out += (opening, inner, _SCALARS.encode(key), ": ")
            _indented(value, inner, out)
            opening = ","
        out.append(newline + "}")
    elif isinstance(node, list | tuple) and node:
        inner, opening = newline + "  ", "["
        for value in node:
            out += (opening, inner)
            _indented(value, inner, out)
            opening = ","
        out.append(newline + "]")
    else:
        out.append(_SCALARS.encode(node))


def is_terminal() -> bool:
    return sys.stdout.isatty()


def console() -> Any:
    from memcli.cli.render import console as make_console

    return make_console()
