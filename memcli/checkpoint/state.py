"""The checkpoint's state per session, under ``.memory/local/checkpoint/<session>.json``.

It holds the byte offset read so far in the session's buffer, the failing commands not yet
passed, every candidate seen (with its evidence), which were asked about, and which the model
recorded (the item id) or dismissed. Local only: never committed.

Three writers: the Stop checkpoint, capture advancing the scan as the session goes
(:func:`memcli.checkpoint.run.advance`, from an asynchronous hook that may still run when the
turn ends) and `mem add --candidate/--dismiss`. Each holds :class:`Locked` from load to save,
so none writes back a state another one changed meanwhile (a lost "asked" would ask again).
"""

import os
import time

from memcli import untrusted
from memcli.fastparse import fastjson
from memcli.observed import buffer

FOLDER = "checkpoint"


def path_of(local: str, session: str) -> str:
    name = buffer.session_file_name(session)
    return os.path.join(local, FOLDER, name[: -len(".jsonl")] + ".json")


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
LOCK_WAIT = 2.0  # seconds a writer waits for another (an advance takes milliseconds)


class Locked:
    """``with Locked(path, wait) as held:`` an exclusive lock on ``<path>.lock``.

    ``wait``: poll until it is free (at most :data:`LOCK_WAIT` seconds, then go on unlocked:
    a hook must end); else give up at once (``held`` False: an advance skips, the Stop reads
    it all). ``os.lockf``, not ``fcntl.flock``: the lock is in ``os`` already (``fcntl`` is
    one more extension to load at every Stop). Without it (Windows) nothing is locked and
    ``held`` is ``wait``: advances never run there, so the other writers never meet one."""

    def __init__(self, path: str, wait: bool = True) -> None:
        self.path = path + ".lock"
        self.wait = wait
        self.fd: int | None = None

    def __enter__(self) -> bool:
        lockf = getattr(os, "lockf", None)
        if lockf is None:  # pragma: no cover - Windows
            return self.wait
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        fd = os.open(self.path, os.O_CREAT | os.O_WRONLY | _NOFOLLOW, 0o600)
        deadline = time.monotonic() + LOCK_WAIT
        while True:
            try:
                lockf(fd, os.F_TLOCK, 0)
            except OSError:  # held by another process (EAGAIN or EACCES)
                if self.wait and time.monotonic() < deadline:
                    time.sleep(0.005)
                    continue
                os.close(fd)
                return self.wait  # an advance gives up; a writer that waited goes on
            self.fd = fd
            return True

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing releases the lock
            self.fd = None


def load(path: str) -> dict[str, object]:
    data = untrusted.read_private(path)  # a state mem wrote, never a committed one
    try:
        value = fastjson.loads(data.decode("utf-8")) if data else None
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def save(path: str, state: dict[str, object]) -> None:
    """Atomically (a temporary file, then a rename); keys starting with ``_`` are this run's
    scratch and are not kept."""
    state = {k: v for k, v in state.items() if not k.startswith("_")}
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    with os.fdopen(untrusted.open_private(tmp), "w", encoding="utf-8") as handle:
        handle.write(fastjson.dumps(state))
    os.replace(tmp, path)


def find(local: str, candidate: str) -> tuple[str, dict[str, object], dict[str, object]] | None:
    """(state file, its state, the candidate) holding ``candidate``, newest file first."""
    folder = os.path.join(local, FOLDER)
    try:
        names = [n for n in os.listdir(folder) if n.endswith(".json")]
    except OSError:
        return None
    names.sort(key=lambda n: _mtime(os.path.join(folder, n)), reverse=True)
    for name in names:
        path = os.path.join(folder, name)
        state = load(path)
        found = state.get("candidates")
        if isinstance(found, dict) and isinstance(found.get(candidate), dict):
            return path, state, found[candidate]
    return None


def _mtime(path: str) -> float:
    try:
        return os.path.getmtime(path)
    except OSError:
        return 0.0


def resolve(local: str, candidates: list[str], outcome: str) -> list[str]:
    """Mark candidates recorded (``outcome`` is the item id) or dismissed; returns the ids
    that no state file knows."""
    unknown = []
    for candidate in candidates:
        found = find(local, candidate)
        if found is None:
            unknown.append(candidate)
            continue
        path, _state, _entry = found
        with Locked(path):
            state = load(path)  # again, under the lock: another writer may have saved
            resolved = state.setdefault("resolved", {})
            assert isinstance(resolved, dict)
            resolved[candidate] = outcome
            save(path, state)
    return unknown


def dismissed_refs(local: str, session: str) -> set[str]:
    """Raw observation references of the candidates the model dismissed in ``session``: the
    rules do not make items of what the model, holding the context, judged no lesson."""
    current = load(path_of(local, session))
    resolved, found = current.get("resolved"), current.get("candidates")
    if not isinstance(resolved, dict) or not isinstance(found, dict):
        return set()
    refs: set[str] = set()
    for candidate, outcome in resolved.items():
        entry = found.get(candidate)
        if outcome == "dismissed" and isinstance(entry, dict):
            refs.update(str(r) for r in entry.get("refs") or [] if r)
    return refs
