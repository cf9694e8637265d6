"""`mem compact`: turn pending session buffers into memory items."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from memcli.cli.common import handle_errors, open_memory, print_json


def _session_from_hook() -> str | None:
    """The session id of a SessionEnd hook payload on stdin, if there is one."""
    if sys.stdin is None or sys.stdin.isatty():
        return None
    try:
        payload = json.loads(sys.stdin.read(1_000_000) or "null")
    except ValueError:
        return None
    if isinstance(payload, dict):
        for key in ("session_id", "sessionId", "conversation_id"):
            if isinstance(payload.get(key), str) and payload[key]:
                return str(payload[key])
    return None


@handle_errors
def compact(
    session: Annotated[str | None, typer.Option(help="Compact this session only.")] = None,
    all_sessions: Annotated[
        bool, typer.Option("--all", help="Compact every pending session buffer.")
    ] = False,
    detach: Annotated[
        bool, typer.Option(help="Return at once; compact in a background process.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print what was done as JSON.")] = False,
) -> None:
    """Compact sessions into items (default: the hook payload's session, else every pending one)."""
    from memcli import compact as compaction

    memory = open_memory()
    if session is None and not all_sessions:
        session = _session_from_hook()
    if detach:
        pid = compaction.spawn_detached(memory, [session] if session else None)
        if not as_json:
            typer.echo(f"compacting in the background (pid {pid}); see .memory/local/mem.log")
        return
    results = (
        [compaction.compact_session(memory, session)] if session else compaction.compact_all(memory)
    )
    if as_json:
        print_json(
            [
                {
                    "session": r.session,
                    "added": r.added,
                    "updated": r.updated,
                    "superseded": r.superseded,
                    "consumed": r.consumed,
                    "compactor": r.compactor,
                    "skipped": r.skipped,
                }
                for r in results
            ]
        )
        return
    if not results:
        typer.echo("no pending observations")
    for r in results:
        if r.skipped:
            typer.echo(f"{r.session}: skipped ({r.skipped})")
            continue
        typer.echo(
            f"{r.session}: {r.consumed} observations -> {len(r.added)} added, "
            f"{len(r.updated)} updated, {len(r.superseded)} superseded ({r.compactor})"
        )
        for item_id in r.added:
            typer.echo(f"  + {item_id}")
