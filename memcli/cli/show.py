"""`mem show`: one item in full (Layer 2), with its raw evidence on request (Layer 3)."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from memcli.cli import render
from memcli.cli.common import console, handle_errors, is_terminal, open_memory, print_json


@handle_errors
def show(
    item_id: Annotated[str, typer.Argument(metavar="ID", help="An id or a unique prefix.")],
    evidence: Annotated[
        bool, typer.Option(help="Also print the raw observations behind the item (Layer 3).")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the item as JSON.")] = False,
) -> None:
    """Show one memory item."""
    memory, item = open_memory().find(item_id)
    memory.record_use([item.id])
    raw = memory.evidence(item) if evidence else None
    if as_json:
        data = item.to_dict()
        if raw is not None:
            data["evidence"] = raw
        print_json(data)
        return
    if is_terminal():
        console().print(render.rich_item(item))
    else:
        typer.echo(render.plain_item(item))
    if raw is not None:
        typer.echo("\nevidence:")
        if not raw:
            typer.echo("  (none recorded)")
        for entry in raw:
            typer.echo(f"- {entry.get('ref') or '(no reference)'}")
            if entry.get("excerpt"):
                typer.echo("  " + entry["excerpt"].replace("\n", "\n  "))
            if entry.get("raw") is not None:
                typer.echo("  raw: " + json.dumps(entry["raw"], ensure_ascii=False)[:2000])
            elif entry.get("ref"):
                typer.echo("  raw: no longer kept under .memory/local/")
