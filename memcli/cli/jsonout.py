"""JSON on stdout as `--json` prints it, without Typer (the light commands use it too)."""

from __future__ import annotations

import json
import sys
from typing import Any


def print_json(data: Any) -> None:
    """Indented JSON; a list has one element per line (json's C encoder serves only compact
    output, and `mem list --json` of 16,000 items took 4 s indented)."""
    if isinstance(data, list) and data:
        lines = (json.dumps(element, ensure_ascii=False) for element in data)
        sys.stdout.write("[\n  " + ",\n  ".join(lines) + "\n]\n")
        return
    parts: list[str] = []
    try:
        _indented(data, "\n", parts)
    except (TypeError, ValueError, RecursionError):  # a key json would convert, or no JSON
        parts = [json.dumps(data, indent=2, ensure_ascii=False)]
    parts.append("\n")
    sys.stdout.writelines(parts)  # not joined first: 28 MB for 57,000 findings


_SCALARS = json.JSONEncoder(ensure_ascii=False)
_ENCODERS: dict[str, json.JSONEncoder] = {}  # by the line break and indent of a mapping's keys
_FLAT = frozenset((str, int, float, bool, type(None)))
_STR = frozenset((str,))


def _indented(node: Any, newline: str, out: list[str]) -> None:
    """``json.dumps(node, indent=2, ensure_ascii=False)``, character for character, with the
    C encoder for every scalar (json's indenting encoder is pure Python: 2 s for 57,000
    findings of `mem prune --check --json`)."""
    if isinstance(node, dict) and node:
        inner, opening = newline + "  ", "{"
        if _flat(node):
            # a mapping of scalars (a finding, an item) in one C call, its keys on lines of
            # their own (the separator holds the line break and the indent)
            flat = _encoder(inner).encode(node)
            out += ("{", inner, flat[1:-1], newline + "}")
            return
        for key, value in node.items():
            if not isinstance(key, str):
                raise TypeError("a key json would convert")
            out += (opening, inner, _SCALARS.encode(key), ": ")
            _indented(value, inner, out)
            opening = ","
        out.append(newline + "}")
    elif isinstance(node, list | tuple) and node:
        inner, opening = newline + "  ", "["
        if all(type(e) is dict and e and _flat(e) for e in node):
            # mappings of scalars (findings) in one C call, their keys on lines of their own;
            # a line break is never in a string (escaped), and a scalar never ends with "}":
            # "}," + line break + "{" is only ever between two mappings
            keys = inner + "  "
            flat = _encoder(keys).encode(node)[2:-2]
            flat = flat.replace("}," + keys + "{", inner + "}," + inner + "{" + keys)
            out += ("[", inner, "{", keys, flat, inner, "}", newline, "]")
            return
        for value in node:
            out += (opening, inner)
            _indented(value, inner, out)
            opening = ","
        out.append(newline + "]")
    else:
        out.append(_SCALARS.encode(node))


def _encoder(keys: str) -> json.JSONEncoder:
    """json's C encoder with the keys of a mapping at ``keys`` (a line break and an indent)."""
    found = _ENCODERS.get(keys)
    if found is None:
        found = _ENCODERS[keys] = json.JSONEncoder(
            ensure_ascii=False, separators=("," + keys, ": ")
        )
    return found


def _flat(node: dict[Any, Any]) -> bool:
    """Every key a string and every value a scalar json writes as is."""
    return _FLAT.issuperset(map(type, node.values())) and _STR.issuperset(map(type, node))
