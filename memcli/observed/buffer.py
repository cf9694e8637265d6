"""Session buffers under ``.memory/local/``: append-only, one JSON line per observation.

Parallel hooks append at once, so every append holds an exclusive lock on the session's lock
file; a size bound drops the oldest half under the same lock and leaves a note. The raw
record of each observation goes to a sibling file under ``raw/`` with the same bound.
Standard library only: this runs on every hook call.
"""

import os

from memcli.fastparse import fastjson

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path

if TYPE_CHECKING:
    from memcli.paths import StorePaths


MAX_SECS = 10_000_000.0  # about 116 days: a longer duration is no clock's


def seconds(value: object) -> "float | None":
    """An observation's ``secs`` (how long a command took) as capture writes it, or None for
    anything else: not a number, negative, NaN, infinite (``1e999`` in a payload's JSON) or
    past :data:`MAX_SECS`. A buffer is untrusted, and ``int()`` of an infinity or ``float()``
    of a huge integer raises: a reader that did so would fail at every later read of the line."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if 0 <= value <= MAX_SECS else None  # NaN fails both


def lock(fd: int) -> None:
    """flock, the same lock `mem compact` takes (memcli/compact/buffers.py) before it consumes
    a buffer: a line captured during compaction waits, and survives. (lockf would not exclude
    it.) Imported here, not at the top: the Stop checkpoint reads this module and never locks.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: O_APPEND writes of one line land whole
        return
    fcntl.flock(fd, fcntl.LOCK_EX)


# A file under local/ that is a symlink was committed by someone (`git add -f`): never follow.
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")


def session_file_name(session: str) -> str:
    """A file name for a session id: safe characters kept, anything else replaced."""
    name = "".join(c if c in _SAFE else "_" for c in session[:100]).lstrip(".")
    return (name or "unknown") + ".jsonl"


# Each time a session's buffer grows past another multiple of this, capture advances the
# Stop checkpoint's scan (memcli.checkpoint.run.advance): a Stop then reads at most about this
# much, however long its turn (a first stop read all of a long turn: 1.7x a bare start at 200
# observations, 135 KB).
ADVANCE_BYTES = 65_536


def append(path: str, line: str, max_bytes: int, now: str) -> bool:
    """Append one line under the session lock; returns True when older text was dropped."""
    return append_sized(path, line, max_bytes, now)[0]


def append_sized(path: str, line: str, max_bytes: int, now: str) -> tuple[bool, int, int]:
    """:func:`append`, also returning the file's size before and after the line."""
    folder = os.path.dirname(path)
    if not os.path.isdir(folder):  # once per store: keeps the module off the common path
        from memcli.privacy import owner_only

        owner_only.make_folders(folder)
    data = (line.rstrip("\n") + "\n").encode("utf-8")
    lock_fd = os.open(path + ".lock", os.O_CREAT | os.O_WRONLY | _NOFOLLOW, 0o600)
    try:
        lock(lock_fd)
        dropped = False
        try:
            size = os.path.getsize(path)
        except OSError:
            size = 0
        if size + len(data) > max_bytes > 0:
            dropped = _shrink(path, now, max_bytes - len(data))
        fd = os.open(path, os.O_CREAT | os.O_RDWR | os.O_APPEND | _NOFOLLOW, 0o600)
        try:
            before, after = _write_whole_line(fd, data)
        finally:
            os.close(fd)
        return dropped, before, after
    finally:
        os.close(lock_fd)  # closing releases the flock


def crossed_advance(before: int, after: int) -> bool:
    """Whether a line that took the buffer from ``before`` to ``after`` bytes passed another
    multiple of :data:`ADVANCE_BYTES` (one line in a few dozen to a hundred does)."""
    return before // ADVANCE_BYTES != after // ADVANCE_BYTES


def _write_whole_line(fd: int, data: bytes) -> tuple[int, int]:
    """Append ``data`` as a line of its own; the file's size before and after. A write cut
    short (a full disk) leaves a torn line without its newline; the next append starts with
    one, so only the torn line is lost (readers skip it) and the next observation is kept
    whole."""
    size = os.fstat(fd).st_size
    if size and os.pread(fd, 1, size - 1) != b"\n":
        data = b"\n" + data
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if written <= 0:  # pragma: no cover - os.write raises rather than return 0
            raise OSError("short write")
        view = view[written:]
    return size, size + len(data)


def _shrink(path: str, now: str, room: int) -> bool:
    """Make room: first empty the excerpts of the older half of the observations (they stay
    countable and keep their summaries), then, if that is not enough, drop the oldest lines."""
    with open(path, "rb") as handle:
        lines = handle.read().splitlines(keepends=True)
    half = len(lines) // 2
    older = [_without_excerpt(line) for line in lines[:half]]
    kept = older + lines[half:]
    note = "emptied the excerpts of the older half of this buffer to stay under its size bound"
    while kept and sum(len(x) for x in kept) > room:
        kept = kept[max(1, len(kept) // 2) :]
        note = "dropped the oldest lines of this buffer to stay under its size bound"
    marker = (fastjson.dumps({"note": note, "ts": now}) + "\n").encode("utf-8")
    from memcli.privacy import owner_only

    owner_only.write_atomic(path, marker + b"".join(kept))
    return True


def _without_excerpt(line: bytes) -> bytes:
    try:
        record = fastjson.loads(line.decode("utf-8", errors="replace"))
    except ValueError:
        return line
    if not isinstance(record, dict) or not record.get("excerpt"):
        if isinstance(record, dict) and "payload" in record:  # a raw record: its text goes
            record["payload"] = "[dropped to stay under capture.raw_max_bytes]"
            return (fastjson.dumps(record) + "\n").encode("utf-8")
        return line
    record["excerpt"] = ""
    record["excerpt_dropped"] = True
    record.pop("derived", None)  # derived from the excerpt dropped: the reader derives anew
    return (fastjson.dumps(record) + "\n").encode("utf-8")


def pending_counts(paths: "StorePaths") -> dict[str, int]:
    """Observations waiting for compaction, per session buffer."""
    counts: dict[str, int] = {}
    if not paths.buffers.is_dir():
        return counts
    for path in sorted(paths.buffers.glob("*.jsonl")):
        with open(path, encoding="utf-8", errors="replace") as handle:
            observations = [r for r in fastjson.records(handle) if "note" not in r]
        session = next((r["session"] for r in observations if r.get("session")), None)
        counts[str(session or path.stem)] = len(observations)
    return counts


def raw_records(path: str, ids: set[str]) -> list[dict[str, object]]:
    """The raw records (``local/raw/<session>.jsonl``) of the observations ``ids``."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = [line for line in handle if any(i in line for i in ids)]
    except OSError:
        return []
    return [r for r in fastjson.records(lines) if r.get("id") in ids]
