"""Plain output for pipes: one record a line, fields separated by tabs (`cut -f`, `awk -F'\\t'`).

A tab or line break inside a field would split it, so each becomes a space; a list becomes
comma-separated. Light on purpose: `mem search` writes it without importing Typer.
"""

from __future__ import annotations

from collections.abc import Iterable

TRANSLATE = str.maketrans({"\t": " ", "\n": " ", "\r": " "})


def field(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return ",".join(field(v) for v in value)
    if isinstance(value, float):
        return str(round(value, 4))
    return str(value).translate(TRANSLATE)


def row(values: Iterable[object]) -> str:
    return "\t".join(field(v) for v in values)
