"""What the index keeps of one item (its record), and what a build reports.

Shared by the full build (:mod:`memcli.retrieval.index_builder`) and the delta build
(:mod:`memcli.retrieval.delta_builder`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memcli import timeutil
from memcli.retrieval import tokenize

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memcli.model import Item

TEXT_MAX_CHARS = 4000

# What the cache keeps per item file, as a plain list (marshal loads lists fast): id, kind,
# title, tags, project, branch, created, updated, importance, confidence, expires,
# supersedes, text, then the term counts of title, body and meta (13, 14, 15), then created,
# updated and expires as Unix seconds (16, 17, 18). A file that could not be read is
# [None, problem].
Record = list[Any]


class BuildReport:
    """What a build did. A plain class, not a dataclass: the first search after an edit makes
    one (through :mod:`memcli.retrieval.delta_builder`), and importing dataclasses costs it
    10 to 14 ms."""

    def __init__(self, *, scanned: int = 0) -> None:
        self.documents = 0
        self.scanned = scanned
        self.hashed = 0  # files read and hashed because their stat changed
        self.parsed = 0  # files parsed as YAML because their content changed
        self.added = 0
        self.changed = 0
        self.removed = 0
        self.rewritten = False
        self.seconds = 0.0
        self.problems: list[str] = []
        self.generation = 0  # of the index (and delta) written
        self.pending = 0  # item files left unread at the deadline: the index was not written
        self.partial = b""  # then: an index of the files read so far, for an answer now

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if k != "partial")
        return f"BuildReport({fields})"


def record_of(item: Item) -> Record:
    """What the index keeps of an item: its table columns and the term counts of each field."""
    return _record(
        item,
        item.tags,
        [a.get("path", "") + " " + a.get("symbol", "") for a in item.anchors],
        item.scope.get("project", ""),
        item.scope.get("branch", ""),
        float(item.importance),
        item.expires or "",
        item.supersedes or "",
    )


def record_of_data(data: Mapping[str, Any]) -> Record:
    """``record_of(Item.from_dict(data))`` for a mapping :func:`memcli.model.validate`
    accepted, without building the item (0.1 s of a cold 16,000-item build, measured). The
    conversions are :meth:`Item.from_dict`'s; a test holds the two equal."""
    scope = data.get("scope") or {}
    project, branch = scope.get("project"), scope.get("branch")
    importance = data.get("importance")
    return _record(
        _Fields(data),
        [str(t) for t in data.get("tags") or ()],
        [
            (str(a["path"]) if "path" in a else "")
            + " "
            + (str(a["symbol"]) if "symbol" in a else "")
            for a in data.get("anchors") or ()
        ],
        str(project) if project else "",
        str(branch) if branch else "",
        round(float(0.5 if importance is None else importance), 3),
        data.get("expires") or "",
        data.get("supersedes") or "",
    )


class _Fields:
    """The fields :func:`_record` reads of an item, from its validated mapping."""

    __slots__ = ("id", "kind", "title", "body", "created", "updated", "confidence")

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.id, self.kind = data["id"], data["kind"]
        self.title, self.body = data["title"], data["body"]
        self.created, self.updated = data["created"], data["updated"]
        confidence = data.get("confidence")
        self.confidence = "assumed" if confidence is None else confidence


def _record(
    item: Item | _Fields,
    tags: list[str],
    anchors: list[str],
    project: str,
    branch: str,
    importance: float,
    expires: str,
    supersedes: str,
) -> Record:
    meta_text = " ".join([*tags, item.kind, *anchors])
    text = (item.title + "\n" + item.body)[:TEXT_MAX_CHARS]
    return [
        item.id,
        item.kind,
        item.title,
        list(tags),
        project,
        branch,
        item.created,
        item.updated,
        importance,
        item.confidence,
        expires,
        supersedes,
        text,
        _counts(tokenize.tokens(item.title)),
        _counts(tokenize.tokens(item.body)),
        _counts(tokenize.tokens(meta_text)),
        _timestamp(item.created),
        _timestamp(item.updated),
        _timestamp(expires),
    ]


def _counts(terms: list[str]) -> dict[str, int]:
    """Term -> count, in first-seen order (as ``dict(Counter(terms))``, at half its cost)."""
    counts: dict[str, int] = {}
    for term in terms:
        counts[term] = counts.get(term, 0) + 1
    return counts


def _timestamp(text: str) -> float:
    if not text:
        return 0.0
    try:
        return timeutil.parse_time(text).timestamp()
    except ValueError:
        return 0.0
