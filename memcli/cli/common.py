"""What every command shares: opening the store, error handling, output helpers."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import typer

from memcli.api import Memory
from memcli.cli import failure
from memcli.cli.jsonout import print_json as print_json  # the commands import it from here
from memcli.errors import silence_closed_stdout

F = TypeVar("F", bound=Callable[..., Any])


def handle_errors(command: F) -> F:
    """Any error becomes one line on stderr and its exit code (:func:`failure.report`); a
    closed pipe on stdout ends quietly with exit 0."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except BrokenPipeError:
            # The reader went away (`mem list | head -1`): what it wanted, it has. Exit 0.
            silence_closed_stdout()
            raise typer.Exit(0) from None
        except (typer.Exit, typer.Abort, KeyboardInterrupt):
            raise
        except Exception as exc:
            raise typer.Exit(failure.report(exc)) from None

    return wrapper  # type: ignore[return-value]


def open_memory() -> Memory:
    return Memory.open()


def show_warnings(memory: Memory) -> None:
    """Files that were skipped, and notes (an adopted identity), one line each on stderr."""
    from memcli.cli.store_commands import show_warnings as warn

    warn(memory)


def is_terminal() -> bool:
    return sys.stdout.isatty()


def console() -> Any:
    from memcli.cli.render import console as make_console

    return make_console()
