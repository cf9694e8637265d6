"""`mem list`: every item, newest first."""

from __future__ import annotations

from typing import Annotated

import typer

from memcli.cli import render
from memcli.cli.common import (
    console,
    handle_errors,
    is_terminal,
    open_memory,
    print_json,
    show_warnings,
)
from memcli.model import Kind


@handle_errors
def list_items(
    kind: Annotated[Kind | None, typer.Option(help="Only items of this kind.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list of items.")] = False,
) -> None:
    """List memory items, most recently updated first."""
    memory = open_memory()
    items = sorted(memory.items(kind), key=lambda i: (i.updated, i.id), reverse=True)
    show_warnings(memory)
    if as_json:
        print_json([item.to_dict() for item in items])
    elif is_terminal():
        console().print(render.items_table(items))
    else:
        for item in items:
            typer.echo(render.plain_line(item))
