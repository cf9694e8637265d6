"""An item's fields and their validation, on the plain mapping read from YAML, so that every
problem can name the file, the line and the field (``path:line: field: problem``).

Apart from :mod:`memcli.model` (which offers all of it under the same names) so that reading
and checking one item file, as the first search after an edit does, imports no dataclasses
(with ``inspect``, ``ast`` and ``dis`` behind it: 10 to 14 ms of that search, measured).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from memcli import ids, timeutil
from memcli.kinds import CONFIDENCE, KINDS

# The order keys are written in; a reviewer reads the conclusion before the bookkeeping.
FIELD_ORDER = (
    "id",
    "kind",
    "title",
    "body",
    "tags",
    "scope",
    "importance",
    "confidence",
    "created",
    "updated",
    "expires",
    "expires_when",
    "supersedes",
    "anchors",
    "evidence",
    "source",
)
REQUIRED = ("id", "kind", "title", "body", "scope", "created", "updated")
SCOPE_KEYS = ("project", "branch")
ANCHOR_KEYS = ("path", "symbol")
EVIDENCE_KEYS = ("excerpt", "ref", "session")
SOURCE_KEYS = ("compactor", "version", "model", "prompt", "author", "agent")
TITLE_MAX = 200


class Problem:
    """One thing wrong with one file, printed as ``path:line: field: problem``.

    What ``@dataclass(frozen=True)`` would make (fields, equality, hash, repr, no assignment),
    written out: this module must not import dataclasses (see the module docstring)."""

    __match_args__ = ("path", "line", "field", "message")
    path: str
    line: int
    field: str
    message: str

    def __init__(self, path: str, line: int, field: str, message: str) -> None:
        for name, value in zip(self.__match_args__, (path, line, field, message), strict=True):
            object.__setattr__(self, name, value)

    def _fields(self) -> tuple[str, int, str, str]:
        return self.path, self.line, self.field, self.message

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of a Problem")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of a Problem")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Problem)
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        path, line, field, message = self._fields()
        return f"Problem(path={path!r}, line={line!r}, field={field!r}, message={message!r})"

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.field}: {self.message}"


LineOf = Callable[[str], int]


MAX_PROBLEMS = 20  # of one file, each with its line; the rest are counted


def validate(data: object, path: str, line_of: LineOf) -> list[Problem]:
    """Every problem with one item mapping; an empty list means it is a valid item."""
    if not isinstance(data, Mapping):
        return [Problem(path, 1, "(file)", "expected a mapping of item fields")]
    problems: list[Problem] = []
    unshown = [0]

    def bad(name: str, message: str) -> None:
        # A committed file is untrusted: 100,000 bad entries must not cost 100,000 line
        # lookups (each may parse the file again) or fill a screen.
        if len(problems) < MAX_PROBLEMS:
            problems.append(Problem(path, line_of(name), name, message))
        else:
            unshown[0] += 1

    for key in data:
        if key not in FIELD_ORDER:
            bad(str(key), "unknown key")
    for name in REQUIRED:
        if data.get(name) in (None, ""):
            bad(name, "missing")
    _check_id(data, bad)
    _check_text(data, bad)
    _check_scope(data, bad)
    _check_numbers(data, bad)
    _check_times(data, bad)
    _check_lists(data, bad)
    _check_expires_when(data, bad)
    if unshown[0]:
        problems.append(Problem(path, 1, "(file)", f"{unshown[0]} more problems not shown"))
    return problems


Report = Callable[[str, str], None]


def _check_id(data: Mapping[str, Any], bad: Report) -> None:
    for name in ("id", "supersedes"):
        value = data.get(name)
        if value is None or value == "":
            continue
        if not isinstance(value, str) or not ids.is_valid(value):
            bad(name, f"invalid id {value!r}: {ids.ID_RULE}")


def _check_text(data: Mapping[str, Any], bad: Report) -> None:
    kind = data.get("kind")
    if kind is not None and kind not in KINDS:
        bad("kind", f"{kind!r} is not one of {', '.join(KINDS)}")
    title = data.get("title")
    if title is not None:
        if not isinstance(title, str):
            bad("title", "must be text")
        elif "\n" in title.strip():
            bad("title", "must be one line")
        elif len(title) > TITLE_MAX:
            bad("title", f"longer than {TITLE_MAX} characters")
    body = data.get("body")
    if body is not None and not isinstance(body, str):
        bad("body", "must be text")
    confidence = data.get("confidence")
    if confidence is not None and confidence not in CONFIDENCE:
        bad("confidence", f"{confidence!r} is not one of {', '.join(CONFIDENCE)}")


def _check_scope(data: Mapping[str, Any], bad: Report) -> None:
    scope = data.get("scope")
    if scope is None:
        return
    if not isinstance(scope, Mapping):
        bad("scope", "must be a mapping with project (and optional branch)")
        return
    for key, value in scope.items():
        if key not in SCOPE_KEYS:
            bad("scope", f"unknown key {key!r}")
        elif value is not None and not isinstance(value, str):
            bad("scope", f"{key} must be text")
    if not scope.get("project"):
        bad("scope", "project is missing")


def _check_numbers(data: Mapping[str, Any], bad: Report) -> None:
    importance = data.get("importance")
    if importance is None:
        return
    ok = isinstance(importance, int | float) and not isinstance(importance, bool)
    if not ok or not math.isfinite(importance) or not 0 <= importance <= 1:
        bad("importance", "must be a number from 0 to 1")


def _check_times(data: Mapping[str, Any], bad: Report) -> None:
    for name in ("created", "updated", "expires"):
        value = timeutil.normalize(data.get(name))
        if value is None or value == "":
            continue
        if not isinstance(value, str):
            bad(name, "must be an ISO 8601 time")
            continue
        try:
            timeutil.parse_time(value)
        except ValueError:
            bad(name, f"{value!r} is not an ISO 8601 time")


def _check_lists(data: Mapping[str, Any], bad: Report) -> None:
    tags = data.get("tags")
    if tags is not None and (
        not isinstance(tags, list) or not all(isinstance(t, str) and t.strip() for t in tags)
    ):
        bad("tags", "must be a list of non-empty words")
    for name, keys, needed in (
        ("anchors", ANCHOR_KEYS, "path"),
        ("evidence", EVIDENCE_KEYS, None),
    ):
        value = data.get(name)
        if value is None:
            continue
        if not isinstance(value, list):
            bad(name, "must be a list")
            continue
        for number, entry in enumerate(value, 1):
            if not isinstance(entry, Mapping):
                bad(name, f"entry {number} must be a mapping")
                continue
            unknown = [k for k in entry if k not in keys]
            if unknown:
                bad(name, f"entry {number} has unknown key {unknown[0]!r}")
            if needed and not entry.get(needed):
                bad(name, f"entry {number} has no {needed}")
            if any(v is not None and not isinstance(v, str | int) for v in entry.values()):
                bad(name, f"entry {number} values must be text")
    source = data.get("source")
    if source is not None and (
        not isinstance(source, Mapping) or any(k not in SOURCE_KEYS for k in source)
    ):
        bad("source", f"must be a mapping of {', '.join(SOURCE_KEYS)}")


def _check_expires_when(data: Mapping[str, Any], bad: Report) -> None:
    rule = data.get("expires_when")
    if rule is None:
        return
    if not isinstance(rule, Mapping) or set(rule) != {"changed"}:
        bad("expires_when", "must be a mapping such as {changed: 'src/db/*'}")
        return
    globs = rule["changed"]
    globs = [globs] if isinstance(globs, str) else globs
    if (
        not isinstance(globs, list)
        or not globs
        or not all(isinstance(g, str) and g.strip() for g in globs)
    ):
        bad("expires_when", "changed: must be a path glob or a list of them")
