"""`mem add`: write one memory item by hand."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from memcli.api import Memory
from memcli.cli.common import handle_errors, open_memory, print_json, show_warnings
from memcli.errors import MemError
from memcli.model import Kind


@handle_errors
def add(
    dismissed: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="CANDIDATE...",
            help="With --dismiss: the candidate ids to dismiss.",
            show_default=False,
        ),
    ] = None,
    kind: Annotated[Kind | None, typer.Option(help="What the fact is.")] = None,
    title: Annotated[str | None, typer.Option(help="One line, the conclusion.")] = None,
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
    candidate: Annotated[
        str | None,
        typer.Option(
            help="Record the checkpoint candidate with this id: the item keeps its evidence "
            "and is merged like any compacted item."
        ),
    ] = None,
    dismiss: Annotated[
        bool, typer.Option("--dismiss", help="Dismiss the candidate ids given as arguments.")
    ] = False,
    agent: Annotated[
        str | None, typer.Option(help="The assistant recording a candidate (default: its own).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the new item as JSON.")] = False,
) -> None:
    """Add a memory item, record a checkpoint candidate, or dismiss candidates."""
    if dismiss:
        from memcli.checkpoint import record

        if kind or title or body or candidate:
            raise MemError("--dismiss: takes only candidate ids")
        done = record.dismiss(open_memory(), list(dismissed or []))
        typer.echo(f"dismissed {len(done)} candidate{'' if len(done) == 1 else 's'}")
        return
    if dismissed:
        raise MemError(f"unexpected argument {dismissed[0]!r} (ids go with --dismiss)")
    if kind is None:
        raise MemError("--kind: missing")
    if title is None:
        raise MemError("--title: missing")
    if body is None:
        if sys.stdin.isatty():
            raise MemError("--body: missing (pass --body TEXT or pipe the text on stdin)")
        body = sys.stdin.read()
    if not body.strip():
        raise MemError("--body: must not be empty")
    if candidate is not None:
        from memcli.checkpoint import record

        memory = open_memory()
        item = record.record(memory, candidate, kind, title, body, tag or [], agent)
        if as_json:
            print_json(item.to_dict())
        else:
            shown = memory.store.display(memory.store.path_of(item.id))
            typer.echo(f"recorded {candidate} as {item.id}: {shown}")
        return
    memory = Memory.open_user() if user else open_memory()
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
    show_warnings(memory)
    if as_json:
        print_json(item.to_dict())
    else:
        typer.echo(f"added {item.id}: {memory.store.display(memory.store.path_of(item.id))}")
