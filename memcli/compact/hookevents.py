"""What a transcript converter yields: one hook event as the assistant sent it, with its time."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from memcli import timeutil


@dataclass(frozen=True)
class HookEvent:
    """A hook payload rebuilt from a transcript, when it happened, and a key unique in its
    session (from which the importer derives a stable observation id)."""

    payload: dict[str, Any]
    ts: str
    key: str
    # A mid-turn assistant text (the payload is its turn's Stop with this text as the
    # message): recorded as a ``note`` observation, as capture does at the turn's end.
    note: bool = False
    # A message the user typed into the turn (the payload is its turn's Stop, the text its
    # ``prompt``): recorded as the ``prompt`` observation capture writes at the turn's end.
    queued: bool = False

    @property
    def read_at_stop(self) -> bool:
        """No hook event of its own: capture reads it from the transcript at the turn's end."""
        return self.note or self.queued

    @property
    def name(self) -> str:
        return str(self.payload.get("hook_event_name") or "")


class Converter(Protocol):
    """Records of one transcript file in, hook events out (see each format's module)."""

    agent: str

    def feed(self, record: dict[str, Any], number: int) -> list[HookEvent]: ...

    def finish(self) -> list[HookEvent]: ...


def joined_text(value: object) -> str:
    """The text of a string, or of a list of content blocks (``{"text": ...}``)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(
            str(v.get("text"))
            for v in value
            if isinstance(v, dict) and isinstance(v.get("text"), str)
        )
    return ""


def stamp(value: object) -> str:
    """An ISO 8601 UTC time from a transcript's timestamp, or "" when it has none."""
    if not isinstance(value, str):
        return ""
    try:
        return timeutil.format_time(timeutil.parse_time(value))
    except ValueError:
        return ""
