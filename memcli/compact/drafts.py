"""A draft: an item the compactor proposes, before it is merged with the store."""

from __future__ import annotations

from dataclasses import dataclass, field

from memcli import __version__, model
from memcli.compact import text
from memcli.model import Item

COMPACTOR = "rules"
# Base importance by kind; verification and recurrence add to it (see `importance`).
BASE_IMPORTANCE = {"pitfall": 0.6, "convention": 0.6, "decision": 0.55, "env": 0.5, "task": 0.4}
VERIFIED_BONUS = 0.15
RECURRENCE_BONUS = 0.1  # per further session that saw the same fact
RECURRENCE_CAP = 0.3


@dataclass
class Draft:
    rule: str
    key: str
    kind: str
    title: str
    body: str
    ts: str
    session: str
    tags: list[str] = field(default_factory=list)
    confidence: str = "assumed"
    importance: float = 0.5
    anchors: list[dict[str, str]] = field(default_factory=list)
    evidence: list[dict[str, str]] = field(default_factory=list)
    expires: str | None = None
    # The decisive error line with its values blanked, for matching pitfalls across sessions.
    signature: str = ""
    # A restatement (assumed, from prose) is dropped when the store already knows the fact
    # from another session: recalled memory said again is not new evidence.
    restatement: bool = False
    source: dict[str, str] = field(
        default_factory=lambda: {"compactor": COMPACTOR, "version": __version__}
    )

    def item_id(self, project: str) -> str:
        return text.digest_id(project, self.session, self.rule, self.key)

    def to_item(self, item_id: str, project: str, supersedes: str | None = None) -> Item:
        return Item(
            id=item_id,
            kind=self.kind,
            title=self.title,
            body=self.body,
            scope={"project": project},
            created=self.ts,
            updated=self.ts,
            tags=model.normalize_tags(self.tags),
            importance=self.importance,
            confidence=self.confidence,
            expires=self.expires,
            supersedes=supersedes,
            anchors=list(self.anchors),
            evidence=list(self.evidence),
            source=dict(self.source),
        )


def importance(kind: str, verified: bool, recurrence: int = 0) -> float:
    """From kind, verification and recurrence (extra occurrences, in or across sessions)."""
    value = BASE_IMPORTANCE.get(kind, 0.5) + (VERIFIED_BONUS if verified else 0.0)
    value += min(RECURRENCE_CAP, RECURRENCE_BONUS * max(0, recurrence))
    return round(min(1.0, value), 3)


def evidence(excerpt: str, ref: str, session: str, limit: int = 300) -> dict[str, str]:
    entry = {"excerpt": text.one_line(excerpt, limit)} if excerpt.strip() else {}
    if ref:
        entry["ref"] = ref
    if session:
        entry["session"] = session
    return entry


def evidence_of(session: str, *sources: tuple[str, str]) -> list[dict[str, str]]:
    """The evidence of several observations, as ``(excerpt, raw ref)`` pairs, empty ones left
    out (a failing run and the run that passed, a first run and the one after it)."""
    return [e for e in (evidence(excerpt, ref, session) for excerpt, ref in sources) if e]


def body_lines(*lines: str) -> str:
    """A body from its non-empty lines; multi-line bodies end with a newline (literal blocks)."""
    kept = [" ".join(line.split()) for line in lines if line and line.strip()]
    joined = "\n".join(kept)
    return joined + "\n" if len(kept) > 1 else joined
