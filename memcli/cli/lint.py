"""`mem lint`: check every item file."""

from __future__ import annotations

from typing import Annotated

import typer

from memcli.cli.common import handle_errors, open_memory, print_json
from memcli.errors import EXIT_PROBLEMS


@handle_errors
def lint(
    as_json: Annotated[bool, typer.Option("--json", help="Print problems as JSON.")] = False,
) -> None:
    """Check every item file: schema, unknown keys, id collisions. Exit 1 on problems."""
    memory = open_memory()
    problems = memory.lint()
    if as_json:
        print_json([vars(p) for p in problems])
    else:
        for problem in problems:
            typer.echo(str(problem))
        if not problems:
            typer.echo(f"{len(memory.store.files())} item files, no problems")
    if problems:
        raise typer.Exit(EXIT_PROBLEMS)
