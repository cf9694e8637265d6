"""Mid-turn notes at a turn's end: what the assistant said in the middle of the turn, and
what the user typed into it (no prompt hook fires for a message the assistant takes into a
running turn), read from its transcript (:mod:`memcli.observed.transcript_tail`) and written
to the session's buffer as ``note`` and ``prompt`` observations before the turn's conclusion
(see docs/hooks.md)."""

import os

from memcli import untrusted
from memcli.fastparse import fastjson
from memcli.observed import buffer

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from collections.abc import Callable

    Pair = tuple[dict[str, object] | None, dict[str, object] | None]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # a file under local/ that is a symlink: refused


def write_turn_notes(
    payload: dict[str, object],
    options: dict[str, str | bool | None],
    local: str,
    observe: "Callable[[str, str, str], Pair]",
    write: "Callable[[dict[str, object], dict[str, object] | None], object]",
) -> None:
    """At a turn's end, what was said in the middle of it: the texts appended to its
    transcript since the last Stop (:mod:`memcli.observed.transcript_tail`), each written as
    an observation (``observe(kind, text, agent)``, ``kind`` a note or a queued message, then
    ``write(observation, raw)``: capture's own, passed in so this module does not import the
    pipeline). The read offset is kept per session under ``local/notes/``, under a lock, so
    that two Stop captures of one session never record a text twice."""
    from memcli.capture import adapters

    agent = str(options.get("agent") or adapters.detect(payload))
    transcript = payload.get("transcript_path")
    session = payload.get("session_id")
    if not (isinstance(transcript, str) and transcript and isinstance(session, str) and session):
        return
    if not adapters.is_turn_end(payload, agent):
        return
    from memcli.observed import transcript_tail

    name = buffer.session_file_name(session).removesuffix(".jsonl")
    mark_path = os.path.join(local, "notes", f"{name}.json")
    folder = os.path.dirname(mark_path)
    if not os.path.isdir(folder):
        from memcli.privacy import owner_only

        owner_only.make_folders(folder)
    lock = os.open(mark_path + ".lock", os.O_CREAT | os.O_WRONLY | _NOFOLLOW, 0o600)
    try:
        buffer.lock(lock)
        data = untrusted.read_private(mark_path)
        try:
            mark = fastjson.loads(data.decode("utf-8")) if data else {}
        except ValueError:
            mark = {}
        last = payload.get("last_assistant_message")
        said, _commits, new_mark = transcript_tail.turn_said(
            transcript, mark, last if isinstance(last, str) else ""
        )
        for kind, text in said:  # in transcript order
            note, raw = observe(kind, text, agent)
            if note is not None:
                write(note, raw)
        if new_mark != mark:
            write_private_json(mark_path, new_mark)
    finally:
        os.close(lock)


def write_private_json(path: str, value: object) -> None:
    """Atomically (a temporary file, then a rename), owner-only; a failure is ignored."""
    try:
        folder = os.path.dirname(path)
        if not os.path.isdir(folder):
            from memcli.privacy import owner_only

            owner_only.make_folders(folder)
        tmp = f"{path}.{os.getpid()}.tmp"
        with os.fdopen(untrusted.open_private(tmp), "w", encoding="utf-8") as handle:
            handle.write(fastjson.dumps(value))
        os.replace(tmp, path)
    except OSError:
        pass
