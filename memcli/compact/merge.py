"""Deduplicate drafts within a session and merge them with the items of the same scope.

- A draft whose id already exists (a rerun after a crash) merges into that item: a no-op.
- A *near-duplicate* (same kind and project; titles alike, or a pitfall with the same error
  signature about the same files) updates the existing item: evidence, tags and anchors are
  united, ``updated`` moves forward, the more complete body wins (never over a hand-written
  one), ``verified`` sticks, importance grows with the number of sessions that saw it.
- A near-duplicate whose concrete values differ (another port, a new version) is a *changed
  value*: a new item that supersedes the old one.

Existing items come from a :class:`memcli.compact.pool.Pool`: scanned as text and cached,
parsed only when they are likely matches.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from memcli import model
from memcli.compact import commands, text
from memcli.compact.drafts import Draft, importance
from memcli.compact.pool import Pool
from memcli.model import Item
from memcli.store import ItemStore, ItemTooLarge

NEAR = 0.6  # Jaccard of title words above which two items say the same thing
RELATED = 0.35  # with the same error signature and no shared anchor, titles must be this alike
MAX_EVIDENCE = 10


@dataclass
class Outcome:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    landed: list[str] = field(default_factory=list)  # every item a draft ended up in
    too_large: list[str] = field(default_factory=list)  # over store.MAX_ITEM_BYTES: not written


def _shape(title: str, body: str) -> set[str]:
    first = body.strip().split("\n", 1)[0] if body else ""
    return text.words(f"{title}\n{first}")


def similarity(draft: Draft, item: Item) -> float:
    """Title words alike, or title and first body line alike, whichever is closer."""
    titles = text.jaccard(text.words(draft.title), text.words(item.title))
    return max(titles, text.jaccard(_shape(draft.title, draft.body), _shape(item.title, item.body)))


def _signature_of(item: Item) -> str:
    return commands.signature(item.evidence[0].get("excerpt", "")) if item.evidence else ""


def is_near(draft: Draft, item: Item) -> bool:
    compacted = item.kind in ("pitfall", "env") and item.source.get("compactor") == "rules"
    if draft.signature and compacted and _signature_of(item) != draft.signature:
        return False  # two different failures, however alike the prose around them
    if same_episode(draft, item):
        return True
    score = similarity(draft, item)
    if score >= NEAR:
        return True
    if draft.signature and any(
        commands.signature(e.get("excerpt", "")) == draft.signature for e in item.evidence
    ):
        mine = {a["path"] for a in draft.anchors}
        theirs = {a.get("path", "") for a in item.anchors}
        return bool(mine & theirs) or score >= RELATED
    return False


def _refs(evidence: list[dict[str, str]]) -> set[str]:
    return {e["ref"] for e in evidence if e.get("ref")}


def same_episode(draft: Draft, item: Item) -> bool:
    """The model recorded this very episode at a checkpoint: its words, the rules' evidence."""
    return (
        item.source.get("compactor") == "checkpoint"
        and item.kind == draft.kind
        and bool(_refs(draft.evidence) & _refs(item.evidence))
    )


def changed_value(draft: Draft, item: Item) -> bool:
    if same_episode(draft, item):
        return False
    mine, theirs = text.values(draft.title), text.values(item.title)
    return bool(mine and theirs and mine != theirs)


def _code_spans(title: str) -> set[str]:
    """The longer code spans a title quotes (`_AnnotationBase.__init__`, not `x`)."""
    return {span.strip() for span in title.split("`")[1::2] if len(span.strip()) >= 8}


def _same_cause_restated(one: Draft, other: Draft) -> bool:
    """Two causes the session's messages state of the same code, in other words: a step's
    "the issue is in the `_AnnotationBase.__init__` method where ..." and the summary's "the
    issue was in `_AnnotationBase.__init__`, where ..." (an SWE-agent trajectory says its
    diagnosis at each step). Same long code span, and titles alike at least loosely."""
    return (
        one.kind == other.kind == "pitfall"
        and one.restatement
        and other.restatement
        and bool(_code_spans(one.title) & _code_spans(other.title))
        and text.jaccard(text.words(one.title), text.words(other.title)) >= RELATED
    )


def dedupe(drafts: list[Draft]) -> list[Draft]:
    """One draft per fact within a session: same rule and key, or near-identical titles."""
    kept: list[Draft] = []
    for draft in drafts:
        twin = next(
            (
                k
                for k in kept
                if k.kind == draft.kind
                and k.signature == draft.signature
                and (
                    (k.rule, k.key) == (draft.rule, draft.key)
                    or text.jaccard(_shape(k.title, k.body), _shape(draft.title, draft.body))
                    >= NEAR
                    or _same_cause_restated(k, draft)
                )
            ),
            None,
        )
        if twin is None:
            kept.append(draft)
            continue
        twin.evidence = _union_evidence(twin.evidence, draft.evidence)
        twin.tags = model.normalize_tags(twin.tags + draft.tags)
        twin.anchors = _union_anchors(twin.anchors, draft.anchors)
        twin.importance = max(twin.importance, draft.importance)
        if draft.confidence == "verified":
            twin.confidence = "verified"
        if len(draft.body) > len(twin.body):
            twin.title, twin.body = draft.title, draft.body
    return kept


def apply(
    store: ItemStore, drafts: list[Draft], project: str, cache: Path | None = None
) -> Outcome:
    """Merge the drafts into the store, writing only what changed."""
    pool = Pool(store, cache)
    outcome = Outcome()
    for draft in dedupe(drafts):
        own_id = draft.item_id(project)
        own = pool.item(own_id)
        if own is not None:
            _update(store, pool, own, draft, outcome)
            continue
        matches = [i for i in pool.candidates(draft, project) if is_near(draft, i)]
        best = max(matches, key=lambda i: similarity(draft, i), default=None)
        if best is not None and not changed_value(draft, best):
            if draft.restatement and not _seen_in(best, draft.session):
                continue  # known memory said again: not new evidence
            _update(store, pool, best, draft, outcome)
            continue
        item = draft.to_item(own_id, project, supersedes=best.id if best is not None else None)
        try:
            store.save(item)
        except ItemTooLarge:
            outcome.too_large.append(item.id)  # never written; the run reports it
            continue
        pool.add(item)
        outcome.added.append(item.id)
        outcome.landed.append(item.id)
        if best is not None:
            outcome.superseded.append(best.id)
    return outcome


def _seen_in(item: Item, session: str) -> bool:
    return any(e.get("session") == session for e in item.evidence)


def _update(store: ItemStore, pool: Pool, item: Item, draft: Draft, outcome: Outcome) -> None:
    merged = merge_item(item, draft)
    outcome.landed.append(item.id)
    if merged.to_dict() == item.to_dict():
        return
    try:
        store.save(merged)
    except ItemTooLarge:
        outcome.too_large.append(item.id)  # the item stays as it was
        return
    pool.add(merged)
    outcome.updated.append(item.id)


def merge_item(item: Item, draft: Draft) -> Item:
    """The existing item updated with what the draft adds."""
    data = item.to_dict()
    data["evidence"] = _union_evidence(item.evidence, draft.evidence)
    data["tags"] = model.normalize_tags(item.tags + draft.tags)[:10]
    data["anchors"] = _union_anchors(item.anchors, draft.anchors)
    hand_written = item.source.get("compactor", "") in ("manual", "import", "checkpoint")
    if not hand_written and len(draft.body) > len(item.body):
        data["title"], data["body"] = draft.title, draft.body
    if draft.confidence == "verified":
        data["confidence"] = "verified"
    sessions = {e.get("session") for e in data["evidence"] if e.get("session")}
    grown = importance(item.kind, data.get("confidence") == "verified", len(sessions) - 1)
    data["importance"] = max(item.importance, draft.importance, grown)
    if draft.ts > item.updated and data != item.to_dict():
        data["updated"] = draft.ts
    return Item.from_dict({k: v for k, v in data.items() if v not in (None, [], {})})


def _union_evidence(old: list[dict[str, str]], new: list[dict[str, str]]) -> list[dict[str, str]]:
    seen = {_evidence_key(e) for e in old}
    merged = list(old)
    for entry in new:
        key = _evidence_key(entry)
        if key not in seen:
            seen.add(key)
            merged.append(entry)
    if len(merged) > MAX_EVIDENCE:
        merged = merged[:4] + merged[-(MAX_EVIDENCE - 4) :]
    return merged


def _evidence_key(entry: dict[str, str]) -> tuple[str, str]:
    """The same excerpt from the same session is the same evidence (a replayed session)."""
    if entry.get("session") and entry.get("excerpt"):
        return entry["session"], entry["excerpt"]
    return entry.get("ref", ""), entry.get("excerpt", "")


def _union_anchors(old: list[dict[str, str]], new: list[dict[str, str]]) -> list[dict[str, str]]:
    paths = {a.get("path") for a in old}
    return list(old) + [a for a in new if a.get("path") not in paths][: max(0, 8 - len(old))]
