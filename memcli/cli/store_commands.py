"""`mem lint`, `mem stats` and `mem list` without Typer, when their output is plain.

Building the Typer application costs more than reading a 1,000-item store from the parse
cache, so these commands take the light dispatcher's path (:mod:`memcli.cli.fastpath`) for
plain invocations whose output is JSON or lines for a pipe; a terminal's dashboard or table,
``--help`` and anything unusual go to the Typer commands, which print the same lines.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memcli.api import Memory


def run(command: str, args: list[str]) -> int | None:
    """The exit code, or None when the Typer command must handle this invocation."""
    from memcli.cli import fastpath

    options = fastpath.parse(command, args)
    if options is None or options["positional"]:
        return None
    as_json = bool(options.get("--json"))
    kind = options.get("--kind")
    if command != "lint" and not as_json and sys.stdout.isatty():
        return None  # the dashboard, the table: Rich
    if kind is not None:
        from typing import get_args

        from memcli.model import Kind

        if kind not in get_args(Kind):
            return None  # Typer names the choices
    from memcli.cli import failure, progress_bar

    bar = progress_bar.install([command], sys.stderr.isatty())
    try:
        if command == "lint":
            return lint(as_json)
        if command == "stats":
            return stats(as_json)
        return list_items(str(kind) if kind is not None else None, as_json)
    except BrokenPipeError:
        raise
    except Exception as exc:
        return failure.report(exc)
    finally:
        if bar is not None:
            bar.stop()
            from memcli import progress

            progress.install(None)


def lint(as_json: bool) -> int:
    from memcli.api import Memory
    from memcli.cli.jsonout import print_json
    from memcli.errors import EXIT_PROBLEMS

    memory = Memory.open()
    problems = memory.lint()
    if as_json:
        print_json([vars(p) for p in problems])
    else:
        for problem in problems:
            sys.stdout.write(f"{problem}\n")
        if not problems:
            sys.stdout.write(f"{len(memory.store.files())} item files, no problems\n")
    return EXIT_PROBLEMS if problems else 0


def stats(as_json: bool) -> int:
    from memcli.api import Memory
    from memcli.cli import tsv
    from memcli.cli.jsonout import print_json

    memory = Memory.open()
    numbers = memory.stats()
    show_warnings(memory)
    if as_json:
        print_json(numbers)
        return 0
    for name, value in stats_rows(numbers):
        sys.stdout.write(tsv.row((name, value)) + "\n")
    return 0


def list_items(kind: str | None, as_json: bool) -> int:
    from memcli.api import Memory
    from memcli.cli import render
    from memcli.cli.jsonout import print_json

    memory = Memory.open()
    items = sorted(memory.items(kind), key=lambda i: (i.updated, i.id), reverse=True)
    show_warnings(memory)
    if as_json:
        print_json([item.to_dict() for item in items])
    else:
        sys.stdout.writelines(render.plain_line(item) + "\n" for item in items)
    return 0


def show_warnings(memory: Memory) -> None:
    """Files that were skipped, and notes (an adopted identity), one line each on stderr."""
    for note in dict.fromkeys(memory.notes):
        sys.stderr.write(f"mem: note: {note}\n")
    memory.notes.clear()
    seen: set[str] = set()
    for problem in memory.warnings:
        line = f"mem: warning: skipped {problem}"
        if line not in seen:
            seen.add(line)
            sys.stderr.write(line + "\n")
    sys.stderr.flush()


def stats_rows(numbers: dict[str, Any]) -> list[tuple[str, object]]:
    """The numbers as name, value pairs: what a pipe gets, one a line."""
    rows: list[tuple[str, object]] = [("items", numbers["items"])]
    rows += [(f"kind.{kind}", count) for kind, count in numbers["by_kind"].items()]
    rows += [(f"project.{name}", count) for name, count in numbers["by_project"].items()]
    pending = numbers["pending_observations"]
    rows += [
        ("files", numbers["files"]),
        ("store_bytes", numbers["store_bytes"]),
        ("broken_files", numbers["broken_files"]),
        ("sessions", numbers["sessions"]),
        ("pending_observations", sum(pending.values())),
        ("pending_sessions", len(pending)),
        ("local_bytes", numbers["local_bytes"]),
    ]
    summarizer = numbers.get("summarizer") or {}
    rows += [(f"summarizer.{name}", value) for name, value in summarizer.items()]
    return rows
