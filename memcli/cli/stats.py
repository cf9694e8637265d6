"""`mem stats`: what the store holds."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from memcli.cli.common import (
    console,
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
    console().print(_table(numbers))


def _table(numbers: dict[str, Any]) -> Any:
    from rich.table import Table

    table = Table(title="mem stats", box=None, show_header=False)
    table.add_column(style="bold")
    table.add_column()
    table.add_row("items", str(numbers["items"]))
    for kind, count in numbers["by_kind"].items():
        table.add_row(f"  {kind}", str(count))
    for project, count in numbers["by_project"].items():
        table.add_row("project", f"{project} ({count})")
    table.add_row("store", f"{numbers['files']} files, {numbers['store_bytes']:,} bytes")
    table.add_row("broken files", str(numbers["broken_files"]))
    table.add_row("sessions", str(numbers["sessions"]))
    pending = numbers["pending_observations"]
    table.add_row("pending", f"{sum(pending.values())} observations in {len(pending)} sessions")
    table.add_row("local", f"{numbers['local_bytes']:,} bytes (never committed)")
    if numbers["summarizer"]["calls"]:
        from memcli.cli.dashboard import summarizer_cost

        table.add_row("summarizer", summarizer_cost(numbers["summarizer"]))
    return table
