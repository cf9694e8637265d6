"""The checkpoint's state per session, under ``.memory/local/checkpoint/<session>.json``.

It holds the byte offset read so far in the session's buffer, the failing commands not yet
passed, every candidate seen (with its evidence), which were asked about, and which the model
recorded (the item id) or dismissed. Local only: never committed.
"""

import os

from memcli import untrusted
from memcli.fastparse import fastjson
from memcli.observed import buffer

FOLDER = "checkpoint"


def path_of(local: str, session: str) -> str:
    name = buffer.session_file_name(session)
    return os.path.join(local, FOLDER, name[: -len(".jsonl")] + ".json")


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
        path, state, _entry = found
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
