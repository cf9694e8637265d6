"""A fast writer for fresh item files, for bulk imports of tens of thousands of items.

The round-trip YAML layer costs milliseconds per file; an item is a small, fixed shape, so
this writes it directly in the same layout (keys in canonical order, literal blocks for
multi-line text, the same indentation). Any string it cannot prove plain-safe is written
single-quoted, or double-quoted with JSON escapes (valid YAML) when it holds a character that
is not printable. Rewrites of existing files still go through the
round-trip layer, which keeps reviewers' comments. Tests hold that every output reads back
through :mod:`memcli.yamlio` as the data written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9_ ./()+,'-]*[A-Za-z0-9_./()+-]|[A-Za-z]")
_RESERVED = _set(
    "true false yes no on off null y n none nan inf"
)  # words a YAML 1.1 reader takes for something else


def render(data: Mapping[str, Any]) -> str:
    lines: list[str] = []
    for key, value in data.items():
        _emit(lines, str(key), value, 0)
    return "\n".join(lines) + "\n"


def _emit(lines: list[str], key: str, value: Any, indent: int) -> None:
    pad = " " * indent
    if isinstance(value, Mapping):
        lines.append(f"{pad}{key}:")
        for sub_key, sub in value.items():
            _emit(lines, str(sub_key), sub, indent + 2)
    elif isinstance(value, list):
        if not value:
            lines.append(f"{pad}{key}: []")
            return
        lines.append(f"{pad}{key}:")
        for entry in value:
            if isinstance(entry, Mapping) and entry:
                first = True
                for sub_key, sub in entry.items():
                    prefix = f"{pad}  - " if first else f"{pad}    "
                    lines.append(prefix + _inline(str(sub_key), sub, indent + 4))
                    first = False
            else:
                lines.append(f"{pad}  - {_scalar(entry)}")
    else:
        lines.append(f"{pad}{_inline(key, value, indent)}")


def _inline(key: str, value: Any, indent: int) -> str:
    """``key: value`` where value is a scalar (a literal block may span further lines)."""
    if isinstance(value, str) and _literal_ok(value):
        pad = " " * (indent + 2)
        body = value[:-1] if value.endswith("\n") else value
        chomp = "|" if value.endswith("\n") else "|-"
        block = "\n".join(pad + line if line else "" for line in body.split("\n"))
        return f"{key}: {chomp}\n{block}"
    return f"{key}: {_scalar(value)}"


def _literal_ok(text: str) -> bool:
    if "\n" not in text.strip("\n") or text.endswith("\n\n") or text.startswith((" ", "\n")):
        return False
    if any(line != line.rstrip() for line in text.split("\n")):
        return False
    return all(ch.isprintable() or ch == "\n" for ch in text)


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    text = str(value)
    if _PLAIN.fullmatch(text) and text.lower() not in _RESERVED and ": " not in text:
        return text
    return _quoted(text)


def _quoted(text: str) -> str:
    if all(ch.isprintable() for ch in text):
        return "'" + text.replace("'", "''") + "'"
    out = json.dumps(text, ensure_ascii=False)
    if all(ch.isprintable() for ch in out):
        return out
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in out)


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
