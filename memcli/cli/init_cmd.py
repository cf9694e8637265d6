"""`mem init`: create `.memory/` in the current git repository."""

from __future__ import annotations

from typing import Annotated

import typer

from memcli import api
from memcli.cli.common import handle_errors


@handle_errors
def init(
    user: Annotated[
        bool, typer.Option("--user", help="Create the user-level store of conventions instead.")
    ] = False,
) -> None:
    """Create .memory/ from the template (idempotent: never overwrites your edits)."""
    if user:
        from memcli import userstore

        made = userstore.init()
        where = userstore.home() / ".memory"
        typer.echo(
            f"user store {where}: "
            + (
                f"{len(made)} files and folders created"
                if made
                else "already initialised; nothing changed"
            )
        )
        typer.echo("repositories use it when their config.yaml sets scope.user_store: true")
        return
    result = api.init()
    memory_dir = result.root / ".memory"
    if result.created:
        typer.echo(f"initialised {memory_dir} ({len(result.created)} files and folders created)")
    elif result.notes:
        typer.echo(f"{memory_dir} is already initialised; it now has a project identity")
    else:
        typer.echo(f"{memory_dir} is already initialised; nothing changed")
    typer.echo(f"project identity: {result.identity} (scope.project in .memory/config.yaml)")
    typer.echo(f"merge driver for items, in this clone's git config: {result.driver}")
    typer.echo("commit these so that every clone and fork shares the memory and the driver:")
    typer.echo(f"  git add {' '.join(result.to_commit)} && git commit -m 'mem: project memory'")
