"""Apply what `mem prune` found, to the working tree, for a reviewable commit.

Order matters: secrets are masked first (a file rewrite), then items are edited (anchors,
stale tags, merges) from their masked state, and expired or merged-away items are removed last.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from memcli import model
from memcli.compact import merge
from memcli.compact.drafts import Draft
from memcli.errors import MemError
from memcli.model import Item
from memcli.privacy import secret_gate

if TYPE_CHECKING:
    from memcli.api import Memory
    from memcli.review.findings import Finding

STALE_TAG = "stale"
ARCHIVE = "archive"


def apply(memory: Memory, findings: list[Finding], archive: bool) -> list[str]:
    done: list[str] = []
    expired = {f.item_id for f in findings if f.check == "expired" and f.item_id}
    _mask(memory, findings, expired, done)
    edits: dict[str, list[Finding]] = {}
    for finding in findings:
        if finding.item_id and finding.item_id not in expired and finding.action:
            edits.setdefault(finding.item_id, []).append(finding)
    merged_away: dict[str, str] = {}
    for item_id, own in sorted(edits.items()):
        _edit(memory, item_id, own, done)
        for finding in own:
            if finding.check == "duplicate":
                merged_away[item_id] = str(finding.detail["into"])
    for drop_id, keep_id in sorted(merged_away.items()):
        while keep_id in merged_away:
            keep_id = merged_away[keep_id]
        if keep_id in expired:
            continue
        _merge(memory, drop_id, keep_id, done)
    for item_id in sorted(expired):
        _remove(memory, item_id, archive, done)
    return done


def _mask(memory: Memory, findings: list[Finding], expired: set[str], done: list[str]) -> None:
    paths = sorted(
        {f.path for f in findings if f.check in ("secret", "personal-data")}
        - {memory.store.display(memory.store.path_of(i)) for i in expired}
    )
    for path in paths:
        order = model.FIELD_ORDER if path.startswith(".memory/items/") else ()
        if secret_gate.mask_file(memory.root / path, memory.redactor(), order):
            done.append(f"masked {path} (git history still holds the secret: rotate it)")


def _edit(memory: Memory, item_id: str, findings: list[Finding], done: list[str]) -> None:
    try:
        item = memory.store.get(item_id)
    except MemError:
        return
    data = item.to_dict()
    notes: list[str] = []
    for finding in findings:
        if finding.check == "renamed":
            old, new = finding.detail["old"], finding.detail["new"]
            data["anchors"] = [
                {**a, "path": new} if a.get("path") == old else a for a in data.get("anchors", [])
            ]
            notes.append(f"anchor {old} -> {new}")
        elif finding.check in ("stale", "unused") and STALE_TAG not in data.get("tags", []):
            data["tags"] = [*data.get("tags", []), STALE_TAG]
            notes.append(f"tagged {STALE_TAG} ({finding.check})")
    if notes:
        memory.store.save(Item.from_dict(data))
        done.append(f"{item_id}: " + "; ".join(notes))


def _merge(memory: Memory, drop_id: str, keep_id: str, done: list[str]) -> None:
    try:
        keep, drop = memory.store.get(keep_id), memory.store.get(drop_id)
    except MemError:
        return
    draft = Draft(
        rule="",
        key="",
        kind=drop.kind,
        title=drop.title,
        body=drop.body,
        ts=drop.updated,
        session="",
        tags=list(drop.tags),
        confidence=drop.confidence,
        importance=drop.importance,
        anchors=list(drop.anchors),
        evidence=list(drop.evidence),
    )
    memory.store.save(merge.merge_item(keep, draft))
    memory.store.delete(drop_id)
    done.append(f"{drop_id}: merged into {keep_id} and removed")


def _remove(memory: Memory, item_id: str, archive: bool, done: list[str]) -> None:
    path = memory.store.path_of(item_id)
    if not path.is_file():
        return
    if archive:
        target = memory.paths.memory / ARCHIVE / path.name
        target.parent.mkdir(exist_ok=True)
        os.replace(path, target)
        done.append(f"{item_id}: expired, moved to {memory.store.display(target)}")
    else:
        memory.store.delete(item_id)
        done.append(f"{item_id}: expired, removed (git history keeps it)")
