"""What every command shares: opening the store, error handling, output helpers."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import typer

from memcli.api import Memory
from memcli.cli import failure
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
_FLAT_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=("\0", ": "))
_FLAT = frozenset((str, int, float, bool, type(None)))
_STR = frozenset((str,))


def _indented(node: Any, newline: str, out: list[str]) -> None:
    """``json.dumps(node, indent=2, ensure_ascii=False)``, character for character, with the
    C encoder for every scalar (json's indenting encoder is pure Python: 2 s for 57,000
    findings of `mem prune --check --json`)."""
    if isinstance(node, dict) and node:
        inner, opening = newline + "  ", "{"
        if _flat(node):
            # a mapping of scalars (a finding, an item) in one C call: "\0" cannot occur in
            # json's output otherwise (a control character in a string is escaped)
            flat = _FLAT_ENCODER.encode(node)
            out += ("{", inner, flat[1:-1].replace("\0", "," + inner), newline + "}")
            return
        for key, value in node.items():
            if not isinstance(key, str):
                raise TypeError("a key json would convert")
            out += (opening, inner, _SCALARS.encode(key), ": ")
            _indented(value, inner, out)
            opening = ","
        out.append(newline + "}")
    elif isinstance(node, list | tuple) and node:
        inner, opening = newline + "  ", "["
        if all(type(e) is dict and e and _flat(e) for e in node):
            # mappings of scalars (findings) in one C call: between two of them, and only
            # there, the output holds "}\0{"; "\1" cannot occur in json's output either
            flat = _FLAT_ENCODER.encode(node)[2:-2].replace("}\0{", "\1")
            keys = inner + "  "
            flat = flat.replace("\0", "," + keys).replace("\1", inner + "}," + inner + "{" + keys)
            out += ("[", inner, "{", keys, flat, inner, "}", newline, "]")
            return
        for value in node:
            out += (opening, inner)
            _indented(value, inner, out)
            opening = ","
        out.append(newline + "]")
    else:
        out.append(_SCALARS.encode(node))


def _flat(node: dict[Any, Any]) -> bool:
    """Every key a string and every value a scalar json writes as is."""
    return _FLAT.issuperset(map(type, node.values())) and _STR.issuperset(map(type, node))


def is_terminal() -> bool:
    return sys.stdout.isatty()


def console() -> Any:
    from memcli.cli.render import console as make_console

    return make_console()
