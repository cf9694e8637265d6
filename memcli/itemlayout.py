"""mem's own layout of an item file: written and read without a YAML library.

**Writing** (:func:`render`), for bulk imports of tens of thousands of items: the round-trip
YAML layer costs milliseconds per file; an item is a small, fixed shape, so this writes it
directly in the same layout (keys in canonical order, literal blocks for multi-line text, the
same indentation). Any string it cannot prove plain-safe is written single-quoted, or
double-quoted with JSON escapes (valid YAML) when it holds a character that is not printable.
Rewrites of existing files still go through the round-trip layer, which keeps reviewers'
comments. Tests hold that every output reads back through :mod:`memcli.yamlio` as the data
written.

**Reading** (:func:`read`): a search right after one item was edited must parse that one
file, and importing the YAML stack for it (PyYAML compiles its reader's and resolver's
patterns at import) cost more than the rest of the search's update. :func:`read` parses this
layout (two-space indents, plain, single- or double-quoted scalars, literal blocks, lists of
scalars or of flat mappings) and then proves it: the data is rendered again, and only a
byte-identical result is returned. Anything else (a comment, a tag, an anchor, a flow
collection, other quoting or indentation, a value the writer would put another way) returns
None, and the caller reads the file with the full YAML reader, which names the line of any
problem. Since what :func:`render` writes reads back as the data written, the two readers
never differ where this one answers (a Hypothesis test compares them).
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


# --- reading --------------------------------------------------------------------------

MAX_CHARS = 65_536
MAX_INDENT = 12  # item files nest three levels; deeper text is left to the full reader


class _NotThisLayout(ValueError):
    """Text this reader does not read: the full reader will."""


def read(text: str) -> dict[str, Any] | None:
    """The mapping ``text`` holds when it is in mem's own layout, else None."""
    if len(text) > MAX_CHARS or not text.endswith("\n") or "\t" in text or "\r" in text:
        return None  # an item is a few hundred characters; a big file is the full reader's
    if text.startswith("\ufeff"):
        return None
    lines = text[:-1].split("\n")
    try:
        data, end = _read_mapping(lines, 0, 0)
    except (ValueError, IndexError):  # _NotThisLayout, and what int(), float(), json raise
        return None
    if end != len(lines) or render(data) != text:
        return None
    return data


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _read_mapping(
    lines: list[str], pos: int, indent: int, first: str | None = None
) -> tuple[dict[str, Any], int]:
    """The mapping at ``indent`` from line ``pos`` on; ``first``: that line as it reads
    without a list entry's dash (the first key of a mapping in a list)."""
    if indent > MAX_INDENT:
        raise _NotThisLayout("nested deeper than an item")
    out: dict[str, Any] = {}
    start = pos
    while pos < len(lines):
        line = first if first is not None and pos == start else lines[pos]
        if not line or _indent(line) != indent or line.startswith("- ", indent):
            if line and _indent(line) > indent:
                raise _NotThisLayout("indentation")
            break
        key, sep, rest = line[indent:].partition(":")
        if not _plain_key(key) or key in out or not sep or (rest and not rest.startswith(" ")):
            raise _NotThisLayout("key")
        rest = rest[1:]
        pos += 1
        value: Any
        if rest in ("|", "|-"):
            value, pos = _read_literal(lines, pos, indent + 2, rest == "|")
        elif rest:
            value = _read_scalar(rest)
        elif pos < len(lines) and lines[pos].startswith(" " * (indent + 2) + "- "):
            value, pos = _read_list(lines, pos, indent)
        elif pos < len(lines) and _indent(lines[pos]) == indent + 2 and lines[pos].strip():
            value, pos = _read_mapping(lines, pos, indent + 2)
        else:
            raise _NotThisLayout("`key:` with nothing under it is null, which mem writes so")
        out[key] = value
    return out, pos


def _plain_key(key: str) -> bool:
    """A key every YAML reader takes as the same string: a plain word (``created``,
    ``project``), none that YAML resolves to something else (``true``, ``null``, ``~``)."""
    return (
        key.isascii()
        and (key[:1].isalpha() or key[:1] == "_")
        and key.replace("_", "a").isalnum()
        and key.lower() not in _KEY_WORDS
    )


_KEY_WORDS = frozenset(("true", "false", "null", "yes", "no", "on", "off", "y", "n"))


def _read_list(lines: list[str], pos: int, indent: int) -> tuple[list[Any], int]:
    items: list[Any] = []
    dash = " " * (indent + 2) + "- "
    while pos < len(lines) and lines[pos].startswith(dash):
        entry = lines[pos][len(dash) :]
        if ": " in entry and entry[0] not in "'\"" or entry.endswith(":"):
            # A flat mapping: its first key after the dash, the others under it.
            value, pos = _read_mapping(lines, pos, indent + 4, " " * (indent + 4) + entry)
            items.append(value)
        else:
            items.append(_read_scalar(entry))
            pos += 1
    return items, pos


def _read_literal(lines: list[str], pos: int, indent: int, keep_end: bool) -> tuple[str, int]:
    pad = " " * indent
    body: list[str] = []
    while pos < len(lines) and (lines[pos] == "" or lines[pos].startswith(pad)):
        body.append(lines[pos][indent:])
        pos += 1
    return "\n".join(body) + ("\n" if keep_end else ""), pos


_NUMBER_CHARS = frozenset("0123456789.-+e")
_WORDS: dict[str, object] = {"null": None, "true": True, "false": False}


def _read_scalar(text: str) -> Any:
    if text in _WORDS:
        return _WORDS[text]
    if text == "[]":
        return []
    first = text[0]
    if first == "'":
        inner = text[1:-1]
        if len(text) < 2 or text[-1] != "'" or "'" in inner.replace("''", ""):
            raise _NotThisLayout("quoting")
        return inner.replace("''", "'")
    if first == '"':
        value = json.loads(text)
        if not isinstance(value, str):
            raise _NotThisLayout("quoting")
        return value
    if first in "-0123456789.":
        if not set(text) <= _NUMBER_CHARS:
            raise _NotThisLayout("`-inf` is text in YAML 1.2, a float to Python")
        return int(text) if text.lstrip("-").isdigit() else float(text)
    return text  # plain text; the render check refuses what the writer would quote
