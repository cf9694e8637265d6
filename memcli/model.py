"""The memory item: its fields, its canonical order, and its validation.

An item holds one fact. Validation works on the plain mapping read from YAML so that every
problem can name the file, the line and the field (``path:line: field: problem``); it lives in
:mod:`memcli.itemcheck` (no dataclasses there) and is offered here under the same names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from memcli.itemcheck import ANCHOR_KEYS as ANCHOR_KEYS
from memcli.itemcheck import EVIDENCE_KEYS as EVIDENCE_KEYS
from memcli.itemcheck import FIELD_ORDER as FIELD_ORDER
from memcli.itemcheck import MAX_PROBLEMS as MAX_PROBLEMS
from memcli.itemcheck import REQUIRED as REQUIRED
from memcli.itemcheck import SCOPE_KEYS as SCOPE_KEYS
from memcli.itemcheck import SOURCE_KEYS as SOURCE_KEYS
from memcli.itemcheck import TITLE_MAX as TITLE_MAX
from memcli.itemcheck import LineOf as LineOf
from memcli.itemcheck import Problem as Problem
from memcli.itemcheck import validate as validate
from memcli.kinds import CONFIDENCE as CONFIDENCE
from memcli.kinds import KINDS as KINDS

# KINDS as a type, for the CLI's choices and the MCP schema's enum (a Literal needs its values
# written out; tests/test_model.py holds the two equal).
Kind = Literal["decision", "pitfall", "convention", "env", "task"]


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
