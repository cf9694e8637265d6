"""`mem init`: create `.memory/` in the current git repository."""

from __future__ import annotations

import typer

from memcli import api
from memcli.cli.common import handle_errors


@handle_errors
def init() -> None:
    """Create .memory/ from the template (idempotent: never overwrites your edits)."""
    result = api.init()
    memory_dir = result.root / ".memory"
    if result.created:
        typer.echo(f"initialised {memory_dir} ({len(result.created)} files and folders created)")
    else:
        typer.echo(f"{memory_dir} is already initialised; nothing changed")
