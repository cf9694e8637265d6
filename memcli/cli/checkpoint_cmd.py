"""`mem checkpoint` as Typer sees it: listed in `mem --help`, run by the light hook entry.

A real `mem checkpoint` process never gets here: ``memcli.__main__`` dispatches it before
Typer is imported. This command serves `mem --help` and in-process callers such as CliRunner.
"""

from __future__ import annotations

import typer

from memcli.checkpoint.command import run


def checkpoint(ctx: typer.Context) -> None:
    """Stop hook: ask the model once to record the session's lessons (see --help)."""
    raise typer.Exit(run(list(ctx.args)))
