"""`mem edit`: change an item by options, or in $EDITOR when none are given."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from memcli.cli.common import handle_errors, open_memory, print_json, show_warnings
from memcli.errors import MemError
from memcli.model import Kind


@handle_errors
def edit(
    item_id: Annotated[str, typer.Argument(metavar="ID", help="An id or a unique prefix.")],
    kind: Annotated[Kind | None, typer.Option(help="New kind.")] = None,
    title: Annotated[str | None, typer.Option(help="New title.")] = None,
    body: Annotated[str | None, typer.Option(help="New body.")] = None,
    tag: Annotated[list[str] | None, typer.Option(help="Add a tag (repeatable).")] = None,
    untag: Annotated[
        list[str] | None, typer.Option(help="Remove a tag (repeatable; before --tag).")
    ] = None,
    expires: Annotated[str | None, typer.Option(help="New expiry: ISO time or 30d.")] = None,
    anchor: Annotated[
        list[str] | None, typer.Option(help="Replace the anchors (repeatable).")
    ] = None,
    importance: Annotated[float | None, typer.Option(min=0.0, max=1.0)] = None,
    confidence: Annotated[str | None, typer.Option(help="assumed or verified.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the edited item.")] = False,
) -> None:
    """Edit a memory item; without field options, open it in an editor ($VISUAL, $EDITOR,
    else vi or nano). Re-validated."""
    memory = open_memory()
    tags = None
    if tag or untag:
        current = memory.get(item_id).tags
        removed = {t.strip().lower() for t in untag or []}
        tags = [t for t in current if t not in removed] + list(tag or [])
    changes = {
        "kind": kind,
        "title": title,
        "body": body,
        "tags": tags,
        "expires": expires,
        "anchors": anchor,
        "importance": importance,
        "confidence": confidence,
    }
    if any(value is not None for value in changes.values()):
        item = memory.edit(item_id, **changes)
    else:
        item_id = memory.store.resolve_id(item_id)
        path = memory.store.path_of(item_id)
        before = path.read_text(encoding="utf-8")
        edited = _run_editor(before)
        if edited == before:
            typer.echo(f"no changes to {item_id}")
            return
        item = memory.edit_text(item_id, edited)
    show_warnings(memory)
    if as_json:
        print_json(item.to_dict())
    else:
        typer.echo(f"edited {item.id}")


FALLBACK_EDITORS = ("vi", "nano")


def editor_command() -> str:
    """The editor as git picks one: $VISUAL, $EDITOR, then vi or nano if installed."""
    for variable in ("VISUAL", "EDITOR"):
        chosen = os.environ.get(variable, "").strip()
        if chosen:
            return chosen
    for name in FALLBACK_EDITORS:
        if shutil.which(name):
            return name
    raise MemError(
        "no editor: set $VISUAL or $EDITOR, or install vi or nano "
        "(or pass field options such as --title)"
    )


def _run_editor(text: str) -> str:
    editor = editor_command()
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder) / "item.yaml"
        scratch.write_text(text, encoding="utf-8")
        try:
            result = subprocess.run([*shlex.split(editor), str(scratch)], check=False)
        except OSError as exc:
            raise MemError(f"editor: cannot run {editor!r} ({exc.strerror})") from None
        if result.returncode != 0:
            raise MemError(
                f"editor {editor!r} exited with {result.returncode}; the item is unchanged"
            )
        return scratch.read_text(encoding="utf-8")
