"""The memory item: its fields, its canonical order, and its validation.

An item holds one fact. Validation works on the plain mapping read from YAML so that every
problem can name the file, the line and the field (``path:line: field: problem``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from memcli import ids, timeutil
from memcli.kinds import CONFIDENCE as CONFIDENCE
from memcli.kinds import KINDS as KINDS

# KINDS as a type, for the CLI's choices and the MCP schema's enum (a Literal needs its values
# written out; tests/test_model.py holds the two equal).
Kind = Literal["decision", "pitfall", "convention", "env", "task"]

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


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one file, printed as ``path:line: field: problem``."""

    path: str
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.field}: {self.message}"


@dataclass
class Item:
    id: str
    kind: str
    title: str
    body: str
    scope: dict[str, str]
    created: str
    updated: str
    tags: list[str] = field(default_factory=list)
    importance: float = 0.5
    confidence: str = "assumed"
    expires: str | None = None
    # Event-triggered expiry, e.g. {"changed": "src/db/*"}: see memcli.review.prune.
    expires_when: dict[str, Any] | None = None
    supersedes: str | None = None
    anchors: list[dict[str, str]] = field(default_factory=list)
    evidence: list[dict[str, str]] = field(default_factory=list)
    source: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Three decimals are plenty for a 0..1 weight, and keep YAML floats stable on rewrite.
        self.importance = round(float(self.importance), 3)

    def to_dict(self) -> dict[str, Any]:
        """The item as plain data in canonical key order, empty optional fields left out."""
        out: dict[str, Any] = {}
        for name in FIELD_ORDER:
            value = getattr(self, name)
            if value is None or (
                name in ("tags", "anchors", "evidence", "source", "expires_when") and not value
            ):
                continue
            out[name] = value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Item:
        """Build from a mapping that :func:`validate` accepted."""
        known = {k: data[k] for k in FIELD_ORDER if k in data and data[k] is not None}
        known["importance"] = float(known.get("importance", 0.5))
        for name in ("tags", "anchors", "evidence"):
            known[name] = list(known.get(name) or [])
        for name in ("scope", "source"):
            known[name] = {k: str(v) for k, v in dict(known.get(name) or {}).items() if v}
        known["anchors"] = [{k: str(v) for k, v in dict(a).items()} for a in known["anchors"]]
        known["evidence"] = [{k: str(v) for k, v in dict(e).items()} for e in known["evidence"]]
        known["tags"] = [str(t) for t in known["tags"]]
        if "expires_when" in known:
            known["expires_when"] = dict(known["expires_when"])
        return cls(**known)


def normalize_tags(tags: list[str]) -> list[str]:
    """Lower case, stripped, de-duplicated, in first-seen order."""
    seen: dict[str, None] = {}
    for tag in tags:
        clean = tag.strip().lower()
        if clean:
            seen.setdefault(clean, None)
    return list(seen)


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
