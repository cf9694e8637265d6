"""`mem add`: write one memory item by hand."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from memcli.cli.common import handle_errors, open_memory, print_json
from memcli.errors import MemError
from memcli.model import KINDS


def check_kind(value: str | None) -> str | None:
    if value is not None and value not in KINDS:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(KINDS)}")
    return value


@handle_errors
def add(
    kind: Annotated[str, typer.Option(help=f"One of {', '.join(KINDS)}.", callback=check_kind)],
    title: Annotated[str, typer.Option(help="One line, the conclusion.")],
    body: Annotated[
        str | None, typer.Option(help="Root cause and remedy; read from stdin when omitted.")
    ] = None,
    tag: Annotated[list[str] | None, typer.Option(help="A tag (repeatable).")] = None,
    expires: Annotated[
        str | None, typer.Option(help="ISO date or time, or a span such as 30d or 12w.")
    ] = None,
    anchor: Annotated[
        list[str] | None,
        typer.Option(help="A file the item is about, PATH or PATH::SYMBOL (repeatable)."),
    ] = None,
    importance: Annotated[float, typer.Option(min=0.0, max=1.0, help="0 to 1.")] = 0.5,
    verified: Annotated[
        bool, typer.Option(help="Backed by a passing test or build (default: assumed).")
    ] = False,
    branch: Annotated[
        bool, typer.Option(help="File the item under the current branch only.")
    ] = False,
    user: Annotated[
        bool,
        typer.Option("--user", help="Write to the user-level store (cross-project conventions)."),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the new item as JSON.")] = False,
) -> None:
    """Add a memory item."""
    if body is None:
        if sys.stdin.isatty():
            raise MemError("--body: missing (pass --body TEXT or pipe the text on stdin)")
        body = sys.stdin.read()
    if not body.strip():
        raise MemError("--body: must not be empty")
    if user:
        from memcli import userstore

        memory = userstore.open_memory()
    else:
        memory = open_memory()
    item = memory.add(
        kind,
        title,
        body,
        tags=tag or [],
        expires=expires,
        anchors=anchor or [],
        importance=importance,
        confidence="verified" if verified else "assumed",
        branch=branch,
    )
    if as_json:
        print_json(item.to_dict())
    else:
        typer.echo(f"added {item.id}: {memory.store.display(memory.store.path_of(item.id))}")
