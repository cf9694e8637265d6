"""`mem compact`: turn pending session buffers into memory items."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from memcli.cli.common import handle_errors, open_memory, print_json, show_warnings


def _hook_payload() -> tuple[str | None, str]:
    """The session id and event name of a hook payload on stdin, if there is one."""
    if sys.stdin is None or sys.stdin.isatty():
        return None, ""
    try:
        payload = json.loads(sys.stdin.read(1_000_000) or "null")
    except ValueError:
        return None, ""
    if not isinstance(payload, dict):
        return None, ""
    event = payload.get("hook_event_name") or payload.get("hookEventName") or ""
    for key in ("session_id", "sessionId", "conversation_id"):
        if isinstance(payload.get(key), str) and payload[key]:
            return str(payload[key]), str(event)
    return None, str(event)


def _ended_before(session: str | None) -> list[str]:
    """At a session's start, the other sessions that went quiet: over, for an assistant with
    no session-end event (Codex). The starting session (a resumed one too) is left alone."""
    from memcli.compact import buffers

    current = buffers.stem(session) if session else None
    idle = buffers.ENDED_SECONDS
    try:
        paths = open_memory().paths
        return [s for s in buffers.stale_sessions(paths, idle, idle) if s != current]
    except Exception:  # noqa: BLE001 - a hook never fails: no store, a read-only one
        return []


def _detach(session: str | None) -> None:
    """Start the background compaction; a hook command, so never an error exit."""
    _detach_sessions([session] if session else None)


def _detach_sessions(sessions: list[str] | None) -> None:
    from memcli.errors import MemError

    try:
        memory = open_memory()
    except MemError:
        return  # no repository or no .memory/ here: nothing to compact
    try:
        memory.compact_in_background(sessions)
    except Exception as exc:  # noqa: BLE001 - a hook must never break the session
        from memcli import memlog

        memlog.write(str(memory.paths.log), f"compact: {type(exc).__name__}: {exc}", "compact")


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
    agent: Annotated[
        str | None,
        typer.Option(help="The assistant whose session-end hook runs this (its payload's keys)."),
    ] = None,
) -> None:
    """Compact sessions into items (default: the hook payload's session, else every pending one).

    With --detach this is the session-end hook: it fails open (exit 0, nothing on stdout, the
    reason in .memory/local/mem.log) and prints nothing when it starts the background work.
    """
    event = ""
    if session is None and not all_sessions:
        session, event = _hook_payload()
    if detach:
        if event == "SessionStart":  # Codex's compaction hook (it has no session end)
            ended = _ended_before(session)
            if ended:
                _detach_sessions(ended)
            return
        _detach(session)
        return
    memory = open_memory()
    results = memory.compact(session)
    show_warnings(memory)
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
        if not r.consumed and not r.added and not r.updated:
            typer.echo(f"{r.session}: no pending observations")
            continue
        typer.echo(
            f"{r.session}: {r.consumed} observations -> {len(r.added)} added, "
            f"{len(r.updated)} updated, {len(r.superseded)} superseded ({r.compactor})"
        )
        for item_id in r.added:
            typer.echo(f"  + {item_id}")
