"""Session buffers from the compactor's side: read, consume, lock, journal, find stale ones.

Crash safety rests on three rules:

1. A buffer is consumed (its compacted lines removed, under the same lock capture appends
   under) only after the items, the session summary and the journal are on disk.
2. Item ids are derived from (project, session, rule, key), so compacting the same
   observations again writes the same files, which merge as no-ops.
3. The journal (``local/compact/<session>.jsonl``) lists the observations already compacted
   and the session summary's running state: a rerun skips those observations and rebuilds the
   summary from that state, never counting a batch twice.

Standard library only: `mem index` asks :func:`stale_sessions` at every session start.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from memcli import atomic, untrusted
from memcli.errors import MemError
from memcli.fastparse import fastjson
from memcli.observed import buffer
from memcli.paths import StorePaths
from memcli.privacy import owner_only

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks, compaction still works
    fcntl = None  # type: ignore[assignment]

STALE_SECONDS = 30 * 60  # a buffer idle this long, whose end was never seen, is abandoned
ENDED_SECONDS = 2 * 60  # a buffer whose end was seen should have been compacted by now


class Busy(MemError):
    """Another process is compacting this session."""


def stem(session: str) -> str:
    return buffer.session_file_name(session)[: -len(".jsonl")]


def buffer_path(paths: StorePaths, session: str) -> Path:
    return paths.buffers / buffer.session_file_name(session)


def work_dir(paths: StorePaths) -> Path:
    return paths.local / "compact"


def read(path: Path) -> list[dict[str, Any]]:
    """The complete lines of a buffer as records; a torn last line or bad JSON is skipped."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    end = data.rfind(b"\n")
    return fastjson.records(data[: end + 1].splitlines())


def consume(path: Path, ids: set[str]) -> int:
    """Remove the lines of ``ids`` (and notes) from a buffer; delete it once it is empty.

    Runs under the lock capture appends under, so a line appended meanwhile survives.
    Returns the number of lines kept.
    """
    if not path.exists():
        return 0
    with _flock(Path(str(path) + ".lock"), blocking=True):
        try:
            lines = path.read_bytes().splitlines(keepends=True)
        except FileNotFoundError:
            return 0
        keep = [line for line in lines if not _consumed(line, ids)]
        if keep and not keep[-1].endswith(b"\n"):
            keep[-1] += b"\n"
        if keep:
            atomic.write_bytes(path, b"".join(keep))
        else:
            path.unlink()
        return len(keep)


def _consumed(line: bytes, ids: set[str]) -> bool:
    try:
        record = json.loads(line)
    except ValueError:
        return True  # a torn line (a write cut short by a full disk): nothing to keep
    if not isinstance(record, dict):
        return True
    return "note" in record or record.get("id") in ids


@contextmanager
def session_lock(paths: StorePaths, session: str) -> Iterator[None]:
    """Hold the session's compaction lock; :class:`Busy` when another process has it."""
    with _flock(work_dir(paths) / f"{stem(session)}.lock", blocking=False):
        yield


@contextmanager
def _flock(path: Path, blocking: bool) -> Iterator[None]:
    owner_only.make_folders(str(path.parent))
    fd = os.open(path, os.O_CREAT | os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        if fcntl is not None:
            flags = fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB)
            try:
                fcntl.flock(fd, flags)
            except BlockingIOError:
                raise Busy(f"{path.name}: another compaction of this session is running") from None
        yield
    finally:
        os.close(fd)


def journal_path(paths: StorePaths, session: str) -> Path:
    return work_dir(paths) / f"{stem(session)}.jsonl"


def read_journal(paths: StorePaths, session: str) -> tuple[dict[str, Any], set[str]]:
    """The session summary's running state and the ids of observations already compacted."""
    state: dict[str, Any] = {}
    done: set[str] = set()
    try:
        text = journal_path(paths, session).read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        return state, done
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and isinstance(record.get("state"), dict):
            state = record["state"]
        elif isinstance(record, str):
            done.add(record)
    return state, done


def write_journal(paths: StorePaths, session: str, state: dict[str, Any], done: set[str]) -> None:
    lines = [json.dumps({"state": state}, sort_keys=True)]
    lines.extend(json.dumps(obs_id) for obs_id in sorted(done))
    atomic.write_text(journal_path(paths, session), "\n".join(lines) + "\n")


def pending(paths: StorePaths) -> list[str]:
    """The sessions with a buffer, by file name."""
    if not paths.buffers.is_dir():
        return []
    return sorted(p.name[: -len(".jsonl")] for p in paths.buffers.glob("*.jsonl"))


def stale_sessions(
    paths: StorePaths,
    older_than_seconds: float = STALE_SECONDS,
    ended_seconds: float = ENDED_SECONDS,
    now: float | None = None,
) -> list[str]:
    """Buffers nobody will compact: idle past ``older_than_seconds`` with their end never
    seen (a crash, a closed terminal), or idle past ``ended_seconds`` though their end was
    seen (the compaction at session end failed). Buffers being compacted are left out."""
    current = time.time() if now is None else now
    found = []
    for name in pending(paths):
        path = paths.buffers / f"{name}.jsonl"
        try:
            idle = current - path.stat().st_mtime
        except FileNotFoundError:
            continue
        limit = min(older_than_seconds, ended_seconds) if _ended(path) else older_than_seconds
        if idle < limit:
            continue
        try:
            with session_lock(paths, name):
                pass
        except Busy:
            continue
        found.append(name)
    return found


def _ended(path: Path) -> bool:
    """Whether the buffer's last lines hold a session-end observation."""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - 8192))
            tail = handle.read()
    except OSError:
        return False
    for line in reversed(tail.splitlines()[-5:]):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if (
            isinstance(record, dict)
            and record.get("kind") == "session"
            and str(record.get("summary", "")).startswith("session end")
        ):
            return True
    return False


def log(paths: StorePaths, message: str) -> None:
    """One line in ``local/mem.log`` (masked); failing to log never fails a compaction."""
    from memcli import memlog

    if untrusted.linked_folder(paths.memory):
        return  # a committed symlink would send the line anywhere
    memlog.write(str(paths.log), message, "compact")
