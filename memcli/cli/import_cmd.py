"""`mem import`: bootstrap memory from agents' transcripts, or load JSONL items."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from memcli import progress
from memcli.cli.common import handle_errors, open_memory, print_json, show_warnings


@handle_errors
def import_(
    paths: Annotated[
        list[Path],
        typer.Argument(help="Transcript or session files, or folders of them, or JSONL files."),
    ],
    fmt: Annotated[
        str, typer.Option("--format", help="claude-code, codex, pi, swe-agent, openhands or jsonl.")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Import memory from agents' transcripts, or from JSONL items.

    `--format claude-code`: transcripts (~/.claude/projects/<project>/); `--format codex`:
    session files (~/.codex/sessions/); `--format pi`: pi sessions (~/.pi/agent/sessions/);
    `--format swe-agent`: trajectories (*.traj); `--format openhands`: event lists (*.json);
    `--format jsonl`: one item a line."""
    from memcli.maintenance import import_sources

    import_sources(paths, fmt)  # bad arguments first, before the store is looked for
    memory = open_memory()
    result = memory.import_items(paths, fmt, _report_transcripts)
    show_warnings(memory)
    shown = str(paths[0]) if len(paths) == 1 else f"{len(paths)} paths"
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
        f"imported {shown}: {result.added} added, {result.updated} updated, "
        f"{result.unchanged} unchanged"
        + (f", {result.renamed} invalid ids replaced" if result.renamed else "")
        + (f" from {len(result.sessions)} sessions" if result.sessions else "")
    )


def _report_transcripts(done: int, total: int) -> None:
    progress.report("importing transcripts", done, total)  # a bar only in a terminal
