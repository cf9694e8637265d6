"""`mem log ID`: one item's history, commit by commit, with what each commit changed in it.

History comes from ``git log --follow`` on the item's file (renames followed, so an item that
was archived or moved keeps its past), newest first; uncommitted edits come first as the
working tree. A forgotten item still has a history: git keeps it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memcli import ids, untrusted
from memcli.errors import MemError
from memcli.review import fields
from memcli.review.fields import FieldChange
from memcli.review.gitrepo import MEMORY, GitRepo

STATUS = {"A": "added", "M": "changed", "D": "removed", "R": "renamed", "C": "copied"}


@dataclass
class Version:
    sha: str | None  # None: the working tree
    author: str
    date: str
    subject: str
    status: str  # added, changed, removed, renamed
    path: str
    title: str
    changes: list[FieldChange] = field(default_factory=list)
    body_diff: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out = {k: v for k, v in vars(self).items() if k not in ("changes", "body_diff")}
        out["changes"] = [c.to_json() for c in self.changes]
        out["body_diff"] = self.body_diff
        return out


def resolve_id(root: Path, id_or_prefix: str) -> str:
    """An id, or the one id on disk (items or archive) that starts with a 4+ char prefix."""
    if not ids.is_valid_prefix(id_or_prefix):
        raise MemError(f"invalid item id {id_or_prefix!r}: {ids.ID_RULE}")
    folders = [root / MEMORY / "items", root / MEMORY / "archive"]
    if any((folder / f"{id_or_prefix}.yaml").is_file() for folder in folders):
        return id_or_prefix
    if len(id_or_prefix) >= 4:
        matches = sorted(
            {p.stem for f in folders if f.is_dir() for p in f.glob(f"{id_or_prefix}*.yaml")}
        )
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise MemError(
                f"item id prefix {id_or_prefix!r} is ambiguous: {', '.join(matches[:5])}"
            )
    if not ids.is_valid(id_or_prefix):
        raise MemError(f"no item with id {id_or_prefix!r}")
    return id_or_prefix


def item_history(root: Path, id_or_prefix: str) -> list[Version]:
    """Every version of one item, newest first."""
    item_id = resolve_id(root, id_or_prefix)
    candidates = [f"{MEMORY}/archive/{item_id}.yaml", f"{MEMORY}/items/{item_id}.yaml"]
    with GitRepo(root) as repo:
        path = next((c for c in candidates if (root / c).is_file()), candidates[-1])
        commits = repo.log_file(path) if repo.has_commits() else []
        if not commits and path == candidates[-1]:
            commits = repo.log_file(candidates[0]) if repo.has_commits() else []
        kept = [(c.sha, c.path) for c in commits if c.status != "D"]
        read = iter(repo.blobs(kept))
        texts = [None if c.status == "D" else next(read) for c in commits]
        versions: list[Version] = []
        working = _working(root, path)
        head_text = texts[0] if texts else None
        if working is not None and working != head_text:
            versions.append(Version(None, "", "", "uncommitted", "changed", path, ""))
            texts.insert(0, working)
        for commit in commits:
            status = STATUS.get(commit.status, "changed")
            versions.append(
                Version(
                    commit.sha, commit.author, commit.date, commit.subject, status, commit.path, ""
                )
            )
    if not versions:
        raise MemError(f"no history for item {item_id}: it is neither on disk nor in git history")
    if versions[0].sha is None and len(versions) == 1:
        versions[0].status = "added"
    _fill(versions, texts)
    return versions


def _working(root: Path, path: str) -> str | None:
    try:
        return untrusted.read_text(root / path)
    except untrusted.Unreadable:
        return None


def _fill(versions: list[Version], texts: list[str | None]) -> None:
    """Each version's title and its changes against the version before it (the next one)."""
    data = [
        fields.parse(t, v.path)[0] if t is not None else None
        for v, t in zip(versions, texts, strict=True)
    ]
    for number, version in enumerate(versions):
        current = data[number]
        previous = data[number + 1] if number + 1 < len(data) else None
        shown = current if current is not None else previous
        version.title = str((shown or {}).get("title") or "")
        if current is not None and previous is not None:
            version.changes, version.body_diff = fields.compare(previous, current)
