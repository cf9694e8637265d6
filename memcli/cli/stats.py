"""`mem stats`: what the store holds."""

from __future__ import annotations

from typing import Annotated

import typer

from memcli.cli import tsv
from memcli.cli.common import (
    handle_errors,
    is_terminal,
    open_memory,
    print_json,
    show_warnings,
)
from memcli.cli.store_commands import stats_rows


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
    for name, value in stats_rows(numbers):
        typer.echo(tsv.row((name, value)))
