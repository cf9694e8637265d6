"""`mem stats`: what the store holds."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from memcli.cli import tsv
from memcli.cli.common import (
    handle_errors,
    is_terminal,
    open_memory,
    print_json,
    show_warnings,
)


@handle_errors
def stats(
    as_json: Annotated[bool, typer.Option("--json", help="Print the numbers as JSON.")] = False,
) -> None:
    """Items by kind and project, store size, observations waiting for compaction."""
    memory = open_memory()
    if not as_json and is_terminal():
        from memcli.cli.dashboard import render_dashboard

        render_dashboard(memory)  # shows its own warnings
        return
    numbers = memory.stats()
    show_warnings(memory)
    if as_json:
        print_json(numbers)
        return
    for name, value in _rows(numbers):
        typer.echo(tsv.row((name, value)))


def _rows(numbers: dict[str, Any]) -> list[tuple[str, object]]:
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
