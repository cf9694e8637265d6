"""`mem import`: bootstrap memory from Claude Code transcripts or bulk-load JSONL items."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from memcli.cli.common import handle_errors, is_terminal, open_memory, print_json
from memcli.errors import MemError

FORMATS = ("claude-code", "jsonl")


@handle_errors
def import_(
    path: Annotated[Path, typer.Argument(help="A transcript file or folder, or a JSONL file.")],
    fmt: Annotated[str, typer.Option("--format", help="claude-code or jsonl.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Import memory: `--format claude-code` transcripts, or `--format jsonl` items."""
    from memcli import compact as compaction

    if fmt not in FORMATS:
        raise MemError(f"--format: {fmt!r} is not one of {', '.join(FORMATS)}")
    if not path.exists():
        raise MemError(f"{path}: no such file or folder")
    memory = open_memory()
    if fmt == "jsonl":
        result = compaction.import_jsonl(memory, path)
    elif is_terminal() and not as_json:
        result = _with_progress(
            lambda progress: compaction.import_claude_code(memory, path, progress)
        )
    else:
        result = compaction.import_claude_code(memory, path)
    summary = {
        "added": result.added,
        "updated": result.updated,
        "unchanged": result.unchanged,
        "renamed": result.renamed,
        "lines": result.lines,
        "skipped_lines": result.skipped_lines,
        "sessions": len(result.sessions),
    }
    if as_json:
        print_json({**summary, "ids": result.ids})
        return
    typer.echo(
        f"imported {path}: {result.added} added, {result.updated} updated, "
        f"{result.unchanged} unchanged"
        + (f", {result.renamed} invalid ids replaced" if result.renamed else "")
        + (f" from {len(result.sessions)} sessions" if result.sessions else "")
    )


def _with_progress(work: Any) -> Any:
    from rich.progress import Progress

    with Progress(transient=True) as bar:
        task = bar.add_task("importing transcripts", total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        return work(progress)
