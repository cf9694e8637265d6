"""`mem capture` as Typer sees it: listed in `mem --help`, run by the light hook entry.

A real `mem capture` process never gets here: ``memcli.__main__`` dispatches it before Typer is
imported. This command serves `mem --help` and in-process callers such as CliRunner.
"""

from __future__ import annotations

import typer

from memcli.capture.command import run


def capture(ctx: typer.Context) -> None:
    """Record one hook event or piped text (fails open; see `mem capture --help`)."""
    raise typer.Exit(run(list(ctx.args), _advance))


def _advance(local: str, session: str, agent: str, transcript: object) -> None:
    from memcli.checkpoint.run import advance_quietly  # only when a buffer grew that far

    advance_quietly(local, session, agent, transcript)


SETTINGS = {"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []}
