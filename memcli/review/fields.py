"""Item files as data, and what changed between two versions of one item, field by field.

Shared by `mem diff` (two revisions) and `mem log ID` (consecutive versions of one item).
Versions are compared as plain data read from YAML, not as validated items, so that a broken
file still shows what changed in it.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from memcli import model
from memcli.model import Item

BODY_CONTEXT = 1  # lines of context around each change of a body's text diff


@dataclass
class FieldChange:
    field: str
    old: Any
    new: Any

    def summary(self) -> str:
        """One line: ``+db -ci`` for a list, ``0.5 -> 0.8`` for a value, ``(removed)``."""
        old, new = self.old, self.new
        if isinstance(old, list | type(None)) and isinstance(new, list | type(None)):
            before = [_entry(v) for v in old or []]
            after = [_entry(v) for v in new or []]
            added = [f"+{v}" for v in after if v not in before]
            removed = [f"-{v}" for v in before if v not in after]
            moved = " (reordered)" if not added and not removed else ""
            return " ".join(added + removed) + moved
        if old is None:
            return f"(added) {_value(new)}"
        if new is None:
            return f"(removed, was {_value(old)})"
        return f"{_value(old)} -> {_value(new)}"

    def to_json(self) -> dict[str, Any]:
        return {"field": self.field, "old": self.old, "new": self.new}


def _entry(value: Any) -> str:
    if isinstance(value, dict):
        if "path" in value:
            return str(value["path"]) + (f"::{value['symbol']}" if value.get("symbol") else "")
        return str(value.get("ref") or value.get("excerpt") or value)[:80]
    return str(value)


def _value(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_value(v)}" for k, v in value.items())
    text = str(value)
    return text if len(text) <= 120 else text[:117] + "..."


def parse(text: str, path: str) -> tuple[dict[str, Any] | None, str | None]:
    """YAML text as a mapping, or None and the reason it is not one."""
    from memcli import yamlread

    doc, problem = yamlread.parse(text, path)
    if problem is not None:
        return None, str(problem)
    assert doc is not None
    data = doc.plain()
    if not isinstance(data, dict):
        return None, f"{path}:1: (file): expected a mapping of item fields"
    return data, None


def to_item(data: dict[str, Any], path: str) -> Item | None:
    """A valid item from parsed data; None when it does not validate."""
    if model.validate(data, path, lambda _field: 1):
        return None
    return Item.from_dict(data)


def compare(old: dict[str, Any], new: dict[str, Any]) -> tuple[list[FieldChange], list[str]]:
    """Changed fields in canonical order (the body excluded) and the body's unified diff."""
    names = [n for n in model.FIELD_ORDER if n in old or n in new]
    names += sorted(k for k in {*old, *new} if k not in model.FIELD_ORDER)
    changes = [
        FieldChange(name, old.get(name), new.get(name))
        for name in names
        if name != "body" and _norm(old.get(name)) != _norm(new.get(name))
    ]
    return changes, body_diff(str(old.get("body") or ""), str(new.get("body") or ""))


def _norm(value: Any) -> Any:
    return None if value in ([], {}, "") else value


def body_diff(old: str, new: str) -> list[str]:
    """``-``/``+``/`` `` lines of a unified diff of two bodies; empty when they are equal."""
    if old.rstrip("\n") == new.rstrip("\n"):
        return []
    lines = difflib.unified_diff(
        old.rstrip("\n").split("\n"), new.rstrip("\n").split("\n"), n=BODY_CONTEXT, lineterm=""
    )
    return [line for line in lines if not line.startswith(("---", "+++"))]
