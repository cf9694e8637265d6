"""What the index keeps of one item (its record), and what a build reports.

Shared by the full build (:mod:`memcli.retrieval.index_builder`) and the delta build
(:mod:`memcli.retrieval.delta_builder`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from memcli import timeutil
from memcli.model import Item
from memcli.retrieval import tokenize

TEXT_MAX_CHARS = 4000

# What the cache keeps per item file, as a plain list (marshal loads lists fast): id, kind,
# title, tags, project, branch, created, updated, importance, confidence, expires,
# supersedes, text, then the term counts of title, body and meta (13, 14, 15), then created,
# updated and expires as Unix seconds (16, 17, 18). A file that could not be read is
# [None, problem].
Record = list[Any]


@dataclass
class BuildReport:
    documents: int = 0
    scanned: int = 0
    hashed: int = 0  # files read and hashed because their stat changed
    parsed: int = 0  # files parsed as YAML because their content changed
    added: int = 0
    changed: int = 0
    removed: int = 0
    rewritten: bool = False
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)
    generation: int = 0  # of the index (and delta) written
    pending: int = 0  # item files left unread at the deadline: the index was not written
    partial: bytes = b""  # then: an index of the files read so far, for an answer now


def record_of(item: Item) -> Record:
    """What the index keeps of an item: its table columns and the term counts of each field."""
    meta_text = " ".join(
        [
            *item.tags,
            item.kind,
            *(a.get("path", "") + " " + a.get("symbol", "") for a in item.anchors),
        ]
    )
    text = (item.title + "\n" + item.body)[:TEXT_MAX_CHARS]
    return [
        item.id,
        item.kind,
        item.title,
        list(item.tags),
        item.scope.get("project", ""),
        item.scope.get("branch", ""),
        item.created,
        item.updated,
        float(item.importance),
        item.confidence,
        item.expires or "",
        item.supersedes or "",
        text,
        dict(Counter(tokenize.tokens(item.title))),
        dict(Counter(tokenize.tokens(item.body))),
        dict(Counter(tokenize.tokens(meta_text))),
        _timestamp(item.created),
        _timestamp(item.updated),
        _timestamp(item.expires or ""),
    ]


def _timestamp(text: str) -> float:
    if not text:
        return 0.0
    try:
        return timeutil.parse_time(text).timestamp()
    except ValueError:
        return 0.0
