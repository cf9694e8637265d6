"""`mem merge-driver %O %A %B`: the git merge driver for item files (git runs it, not you).

Registered by `mem init`: ``.memory/items/*.yaml merge=mem`` in ``.gitattributes`` and
``merge.mem.driver = mem merge-driver %O %A %B`` in the clone's git config.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from memcli.cli.common import handle_errors
from memcli.errors import EXIT_PROBLEMS


@handle_errors
def merge_driver(
    ancestor: Annotated[Path, typer.Argument(metavar="BASE", help="%O: the common ancestor.")],
    current: Annotated[
        Path, typer.Argument(metavar="OURS", help="%A: our version; the result is written here.")
    ],
    other: Annotated[Path, typer.Argument(metavar="THEIRS", help="%B: their version.")],
    path: Annotated[
        str, typer.Argument(metavar="PATH", help="%P: the file's path, for conflict labels.")
    ] = "",
    marker_size: Annotated[
        int, typer.Option(min=1, help="%L: the length of conflict markers.")
    ] = 7,
) -> None:
    """Merge two edits of one memory item field by field: tags and evidence united, the newer
    body, the higher importance. Exit 1, with conflict markers, when both sides changed another
    field differently."""
    from memcli.errors import MemError
    from memcli.review.merge_driver import merge_files

    for name, given in (("BASE", ancestor), ("OURS", current), ("THEIRS", other)):
        if not given.is_file():
            raise MemError(f"{name}: {given}: no such file")
    conflicts = merge_files(ancestor, current, other, path, marker_size)
    if conflicts:
        where = f" in {path}" if path else ""
        typer.echo(
            f"mem merge-driver: both sides changed {', '.join(conflicts)}{where} differently; "
            "resolve the conflict markers by hand",
            err=True,
        )
        raise typer.Exit(EXIT_PROBLEMS)
