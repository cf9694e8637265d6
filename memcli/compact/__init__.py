"""Compaction: a session's observations become atomic, deduplicated, verified memory items.

The public API (the CLI's `mem compact`, `mem import` and `mem index` call these)::

    from memcli.compact import compact_session, compact_all, stale_sessions
    result = compact_session(memory, "abc123")   # CompactResult
    import_jsonl(memory, "items.jsonl")           # ImportResult
    import_claude_code(memory, "~/.claude/projects/-home-dev-shop/", progress=callback)
    import_transcripts(memory, ["~/.codex/sessions/2026/11/"], "codex")

Imports are deferred to each call: `mem index` asks :func:`stale_sessions` at every session
start and should pay only for what it uses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memcli.api import Memory
    from memcli.compact.importer import ImportResult
    from memcli.compact.run import CompactResult

__all__ = [
    "compact_all",
    "compact_session",
    "import_claude_code",
    "import_jsonl",
    "import_transcripts",
    "spawn_detached",
    "stale_sessions",
]


def compact_session(memory: Memory, session: str) -> CompactResult:
    from memcli.compact import run

    return run.compact_session(memory, session)


def compact_all(memory: Memory) -> list[CompactResult]:
    from memcli.compact import run

    return run.compact_all(memory)


def stale_sessions(memory: Memory, older_than_seconds: float = 30 * 60) -> list[str]:
    """Buffers of sessions that are over but were never compacted (crash, closed terminal)."""
    from memcli.compact import buffers

    return buffers.stale_sessions(memory.paths, older_than_seconds)


def spawn_detached(memory: Memory, sessions: Sequence[str] | None = None) -> int:
    """Compact in a background process that outlives the caller; returns its pid."""
    from memcli.compact import run

    return run.spawn_detached(memory, sessions)


def import_jsonl(memory: Memory, path: str | Path) -> ImportResult:
    from memcli.compact import importer

    return importer.import_jsonl(memory, Path(path))


def import_claude_code(
    memory: Memory,
    path: str | Path,
    progress: Callable[[int, int], None] | None = None,
) -> ImportResult:
    from memcli.compact import transcripts

    return transcripts.import_claude_code(memory, Path(path), progress)


def import_transcripts(
    memory: Memory,
    paths: Sequence[str | Path],
    agent: str,
    progress: Callable[[int, int], None] | None = None,
) -> ImportResult:
    """Transcripts of ``agent`` (claude-code or codex): files or folders of ``*.jsonl``."""
    from memcli.compact import transcripts

    return transcripts.import_transcripts(memory, [Path(p) for p in paths], agent, progress)
