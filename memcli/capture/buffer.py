"""Session buffers under ``.memory/local/``: append-only, one JSON line per observation.

Parallel hooks append at once, so every append holds an exclusive lock on the session's lock
file; a size bound drops the oldest half under the same lock and leaves a note. The raw
record of each observation goes to a sibling file under ``raw/`` with the same bound.
Standard library only: this runs on every hook call.
"""

from __future__ import annotations

import json
import os
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memcli.paths import StorePaths

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: O_APPEND writes of one line still land whole
    fcntl = None  # type: ignore[assignment]

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def session_file_name(session: str) -> str:
    """A file name for a session id: safe characters kept, anything else replaced."""
    name = _UNSAFE.sub("_", session)[:100].lstrip(".")
    return (name or "unknown") + ".jsonl"


def append(path: str, line: str, max_bytes: int, now: str) -> bool:
    """Append one line under the session lock; returns True when older lines were dropped."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    data = (line.rstrip("\n") + "\n").encode("utf-8")
    lock_fd = os.open(str(path) + ".lock", os.O_CREAT | os.O_WRONLY, 0o600)
    try:
        if fcntl is not None:
            fcntl.flock(lock_fd, fcntl.LOCK_EX)
        dropped = False
        try:
            size = os.path.getsize(path)
        except OSError:
            size = 0
        if size + len(data) > max_bytes > 0:
            dropped = _drop_oldest_half(path, now)
        fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_APPEND, 0o600)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        return dropped
    finally:
        os.close(lock_fd)  # closing releases the flock


def _drop_oldest_half(path: str, now: str) -> bool:
    with open(path, "rb") as handle:
        lines = handle.read().splitlines(keepends=True)
    keep = lines[len(lines) // 2 :]
    dropped = len(lines) - len(keep)
    note = {"note": f"dropped the {dropped} oldest lines to stay under the size bound", "ts": now}
    tmp = path + ".tmp"
    with open(tmp, "wb") as handle:
        handle.write((json.dumps(note) + "\n").encode("utf-8"))
        handle.writelines(keep)
    os.replace(tmp, path)
    return dropped > 0


def pending_counts(paths: StorePaths) -> dict[str, int]:
    """Observations waiting for compaction, per session buffer."""
    counts: dict[str, int] = {}
    if not paths.buffers.is_dir():
        return counts
    for path in sorted(paths.buffers.glob("*.jsonl")):
        session = None
        count = 0
        with open(path, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if isinstance(record, dict) and "note" not in record:
                    count += 1
                    session = session or record.get("session")
        counts[str(session or path.stem)] = count
    return counts
