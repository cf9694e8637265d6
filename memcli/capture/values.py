"""Values: small helpers that read loosely typed payload values and make text safe to keep.

Shared by `adapters` (hook events) and `tools` (tool calls). Payloads come from assistants as
parsed JSON of no fixed schema, so every helper accepts any value and never raises on odd input.
"""

from __future__ import annotations

from memcli.observed import filters

MAX_TEXT = 1_000_000  # raw text beyond this keeps its head and tail only


def as_str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def as_dict(value: object) -> dict[str, object]:
    return value if isinstance(value, dict) else {}


def as_int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def first(mapping: dict[str, object], *keys: str) -> str | None:
    """The first non-empty string value among `keys`."""
    for key in keys:
        value = mapping.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def body(text: str) -> str:
    """Text made safe to keep: private spans, mem fences and escapes removed, size bounded."""
    text = filters.strip_ansi(filters.drop_mem_fence(filters.drop_private(text)))
    if len(text) > MAX_TEXT:
        cut, head, tail = len(text) - MAX_TEXT, MAX_TEXT // 4, MAX_TEXT * 3 // 4
        text = f"{text[:head]}\n[... {cut} chars cut ...]\n{text[-tail:]}"
    return text


def line(text: str, limit: int = 200) -> str:
    return filters.one_line(filters.drop_mem_fence(filters.drop_private(text)), limit)


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def text_of(value: object) -> str:
    """Text of a string, a `{text: ...}` object, or a list of those (MCP content blocks)."""
    if isinstance(value, list):
        return "\n".join(t for t in map(_text_of_item, value[:500]) if t)
    return _text_of_item(value)


def _text_of_item(value: object) -> str:
    if isinstance(value, dict):
        return first(value, "text", "content", "message") or ""
    return value if isinstance(value, str) else ""


def loads(value: str) -> object:
    """Parse JSON that some assistants nest inside the payload as a string; the string if not."""
    if value[:1] not in ("{", "["):
        return value
    try:
        try:
            from memcli.fastparse import fastjson
        except ImportError:  # pragma: no cover - fastjson ships with the package
            import json

            return json.loads(value)
        return fastjson.loads(value)
    except (ValueError, RecursionError):
        return value
