"""Evidence links for candidates read from the assistant's words before capture recorded them.

The checkpoint reads the turn's mid-turn notes from the transcript (and the closing message
from the Stop event) while capture, in parallel, writes the same texts to the session's
buffer as ``note`` and ``conclusion`` observations: the candidate has no observation id yet.
When the model records or dismisses it (`mem add --candidate`, ``--dismiss``), capture has
written them: the observation whose text holds the candidate's sentence is its evidence. A
commit message read whole from the transcript is linked the same way, to the `git commit`
command observation whose (one-line) input holds its subject.
"""

from __future__ import annotations

import os

from memcli.fastparse import fastjson
from memcli.observed import buffer

SAID_KINDS = ("note", "conclusion")
COMMAND_KINDS = ("command", "error")
_SAID_PREFIX = 'you said: "'
_COMMIT_PREFIX = 'commit message: "'  # a commit read whole from the transcript
MAX_SCAN = 8_000_000  # bytes of a session's buffer read to find the observation


def sentence_of(entry: dict[str, object]) -> str:
    """The sentence a candidate quotes from the assistant (``you said: "..."``), or ``""``."""
    return _quoted(entry, _SAID_PREFIX)


def _quoted(entry: dict[str, object], prefix: str) -> str:
    lines = entry.get("lines")
    first = str(lines[0]) if isinstance(lines, list) and lines else ""
    if not first.startswith(prefix) or not first.endswith('"'):
        return ""
    return first[len(prefix) : -1].removesuffix("…")


def link(local: str, entry: dict[str, object]) -> bool:
    """Give a candidate without evidence links the observation capture wrote for its sentence
    (the latest one); True when ``entry`` changed."""
    if entry.get("refs") or entry.get("obs"):
        return False
    kinds = SAID_KINDS
    sentence = _normal(sentence_of(entry))
    if not sentence:  # a commit's subject: the `git commit` command capture recorded
        kinds, sentence = COMMAND_KINDS, _normal(_quoted(entry, _COMMIT_PREFIX))
    session = str(entry.get("session") or "")
    if not sentence or not session:
        return False
    path = os.path.join(local, "buffer", buffer.session_file_name(session))
    try:
        with open(path, "rb") as handle:
            handle.seek(max(0, os.path.getsize(path) - MAX_SCAN))
            data = handle.read(MAX_SCAN)
    except OSError:
        return False
    found: dict[str, object] | None = None
    for record in fastjson.records(data.decode("utf-8", errors="replace").splitlines()):
        if not isinstance(record, dict) or record.get("kind") not in kinds:
            continue
        text = record.get("excerpt" if kinds is SAID_KINDS else "input")
        if isinstance(text, str) and sentence in _normal(text):
            found = record
    if found is None or not isinstance(found.get("id"), str):
        return False
    entry["obs"] = [found["id"]]
    raw = found.get("raw")
    entry["refs"] = [raw] if isinstance(raw, str) and raw else []
    if isinstance(found.get("ts"), str) and not entry.get("ts"):
        entry["ts"] = found["ts"]
    return True


def _normal(text: str) -> str:
    return " ".join(text.replace("**", "").replace("__", "").split()).lower()
