"""`mem show`: one item in full."""

from __future__ import annotations

from typing import Annotated

import typer

from memcli.cli import render
from memcli.cli.common import console, handle_errors, is_terminal, open_memory, print_json


@handle_errors
def show(
    item_id: Annotated[str, typer.Argument(metavar="ID", help="An id or a unique prefix.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the item as JSON.")] = False,
) -> None:
    """Show one memory item."""
    item = open_memory().get(item_id)
    if as_json:
        print_json(item.to_dict())
    elif is_terminal():
        console().print(render.rich_item(item))
    else:
        typer.echo(render.plain_item(item))
