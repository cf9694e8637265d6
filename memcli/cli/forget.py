"""`mem forget`: delete an item for real."""

from __future__ import annotations

from typing import Annotated

import typer

from memcli.cli.common import handle_errors, open_memory


@handle_errors
def forget(
    item_id: Annotated[str, typer.Argument(metavar="ID", help="An id or a unique prefix.")],
) -> None:
    """Delete an item: its file, its raw evidence, its index rows and usage counts."""
    result = open_memory().forget(item_id)
    typer.echo(f"forgot {result.item.id}: {result.item.title}")
    for path in result.scrubbed:
        typer.echo(f"  removed its traces from {path.name}")
    if result.in_git_history:
        typer.echo(f"note: {result.purge_hint}")
    else:
        typer.echo("it was never committed, so no copy is left in git history")
