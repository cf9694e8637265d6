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
    try:
        parts: list[str] = []
        _indented(data, "\n", parts)
        text = "".join(parts)
    except (TypeError, ValueError, RecursionError):  # a key json would convert, or no JSON
        text = json.dumps(data, indent=2, ensure_ascii=False)
    sys.stdout.write(text + "\n")


_SCALARS = json.JSONEncoder(ensure_ascii=False)
_FLAT_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=("\0", ": "))
_FLAT = frozenset((str, int, float, bool, type(None)))
_STR = frozenset((str,))


def _indented(node: Any, newline: str, out: list[str]) -> None:
    """``json.dumps(node, indent=2, ensure_ascii=False)``, character for character, with the
    C encoder for every scalar (json's indenting encoder is pure Python: 2 s for 57,000
    findings of `mem prune --check --json`)."""
    if isinstance(node, dict) and node:
        inner, opening = newline + "  ", "{"
        if _flat(node):
            # a mapping of scalars (a finding, an item) in one C call: "\0" cannot occur in
            # json's output otherwise (a control character in a string is escaped)
            flat = _FLAT_ENCODER.encode(node)
            out += ("{", inner, flat[1:-1].replace("\0", "," + inner), newline + "}")
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
            # mappings of scalars (findings) in one C call: between two of them, and only
            # there, the output holds "}\0{"; "\1" cannot occur in json's output either
            flat = _FLAT_ENCODER.encode(node)[2:-2].replace("}\0{", "\1")
            keys = inner + "  "
            flat = flat.replace("\0", "," + keys).replace("\1", inner + "}," + inner + "{" + keys)
            out += ("[", inner, "{", keys, flat, inner, "}", newline, "]")
            return
        for value in node:
            out += (opening, inner)
            _indented(value, inner, out)
            opening = ","
        out.append(newline + "]")
    else:
        out.append(_SCALARS.encode(node))


def _flat(node: dict[Any, Any]) -> bool:
    """Every key a string and every value a scalar json writes as is."""
    return _FLAT.issuperset(map(type, node.values())) and _STR.issuperset(map(type, node))
