"""`mem diff`: what a change does to memory, item by item, instead of line by line.

Between two revisions, or a revision and the working tree, every file under ``.memory/`` that
git reports as changed is read on both sides. Item files (``items/ID.yaml``) become items
added, changed (field by field, with a text diff of the body) or removed; an added item's
``supersedes`` marks the item it replaces; items whose ``expires`` passed between the two sides
are listed as expired. Other files (sessions, config) are listed by status. New or changed
decisions that resemble another decision but disagree with it are flagged
(:mod:`memcli.review.contradiction`).

Only what git reports as changed is read and parsed, in batches (:mod:`memcli.review.sides`),
so a pull request that touches three items of a 15,000-item store parses three pairs of
files, plus the few decisions that share a rare word with a new decision and the few items
whose expiry date passed in between.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memcli import timeutil
from memcli.batchwork import without_cycle_collector
from memcli.errors import MemError
from memcli.model import Item
from memcli.review import contradiction, fields, store_words
from memcli.review.contradiction import Contradiction
from memcli.review.fields import FieldChange
from memcli.review.gitrepo import (
    GIT_DIR,
    HAS_COMMITS,
    MEMORY,
    UNSHALLOW_HINT,
    GitRepo,
)
from memcli.review.sides import SideReader, decision_candidates, expires_value

ITEMS = f"{MEMORY}/items/"
WORKING_TREE = "working tree"


@dataclass
class Side:
    label: str  # as the user named it: main, HEAD~1, working tree
    sha: str | None  # None: the working tree
    time: str

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "sha": self.sha, "time": self.time}


@dataclass
class ItemEntry:
    id: str
    kind: str
    title: str
    path: str
    data: dict[str, Any]  # the item as it is at head (as it was at base, for a removal)
    changes: list[FieldChange] = field(default_factory=list)
    body_diff: list[str] = field(default_factory=list)
    note: str = ""  # why a removal happened (expired, superseded by X)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "kind": self.kind, "title": self.title}
        out["path"] = self.path
        if self.changes or self.body_diff:
            out["changes"] = [c.to_json() for c in self.changes]
            out["body_diff"] = self.body_diff
        if self.note:
            out["note"] = self.note
        out["item"] = self.data
        return out


@dataclass
class Superseded:
    id: str
    title: str
    by: str
    by_title: str
    removed: bool

    def to_json(self) -> dict[str, Any]:
        return dict(vars(self))


@dataclass
class Expired:
    id: str
    title: str
    expires: str

    def to_json(self) -> dict[str, Any]:
        return dict(vars(self))


@dataclass
class FileEntry:
    path: str
    status: str  # added, changed, removed
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in vars(self).items() if v}


@dataclass
class MemoryDiff:
    base: Side
    head: Side
    added: list[ItemEntry] = field(default_factory=list)
    changed: list[ItemEntry] = field(default_factory=list)
    removed: list[ItemEntry] = field(default_factory=list)
    superseded: list[Superseded] = field(default_factory=list)
    expired: list[Expired] = field(default_factory=list)
    files: list[FileEntry] = field(default_factory=list)
    contradictions: list[Contradiction] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.added or self.changed or self.removed or self.expired or self.files)

    def counts(self) -> dict[str, int]:
        return {
            "added": len(self.added),
            "changed": len(self.changed),
            "removed": len(self.removed),
            "superseded": len(self.superseded),
            "expired": len(self.expired),
            "files": len(self.files),
            "contradictions": len(self.contradictions),
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "base": self.base.to_json(),
            "head": self.head.to_json(),
            "counts": self.counts(),
            "added": [e.to_json() for e in self.added],
            "changed": [e.to_json() for e in self.changed],
            "removed": [e.to_json() for e in self.removed],
            "superseded": [s.to_json() for s in self.superseded],
            "expired": [e.to_json() for e in self.expired],
            "files": [f.to_json() for f in self.files],
            "contradictions": [c.to_json() for c in self.contradictions],
            "warnings": self.warnings,
        }


def parse_range(spec: str | None) -> tuple[str | None, str | None, bool]:
    """``BASE``, ``BASE..HEAD`` or ``BASE...HEAD`` as (base, head, from the merge-base).

    A missing base means the default branch; a missing head, the working tree.
    """
    if not spec:
        return None, None, True
    if "..." in spec:
        base, _, head = spec.partition("...")
        return base or "HEAD", head or "HEAD", True
    if ".." in spec:
        base, _, head = spec.partition("..")
        return base or "HEAD", head or "HEAD", False
    return spec, None, False


def start_reads(cwd: str) -> None:
    """Start now the git reads that the diff about to run in ``cwd`` will ask for first (the
    repository's state and, in a fresh clone, every item's lines at ``HEAD``: see
    :func:`store_words.start_early_read`), so that git works while Python imports the rest."""
    from memcli import gitfiles, gitlayer

    root = gitfiles.find_repo_root(cwd)
    if root is None:
        return
    store_words.start_early_read(root, ITEMS)  # first: the child needs none of what follows
    gitlayer.start_early(root, *GIT_DIR)
    gitlayer.start_early(root, *HAS_COMMITS)


def memory_diff(root: Path, spec: str | None = None) -> MemoryDiff:
    """The semantic diff of ``.memory/`` for a revision range (see :func:`parse_range`)."""
    # the words of every item (15,000: tens of thousands of tuples, lists and strings, no
    # cycles) would be walked by the collector again and again: 24 to 46 ms of CPU at 15,000
    # items, 1.5 ms at 1,000
    with GitRepo(root) as repo, without_cycle_collector():
        if not repo.has_commits():
            raise MemError("no commits yet: there is nothing to compare with")
        base_name, head_name, from_merge_base = parse_range(spec)
        head_sha = repo.resolve(head_name) if head_name else None
        if (base_name is None or from_merge_base) and repo.is_shallow():
            raise MemError(UNSHALLOW_HINT)
        if base_name is None:
            branch = repo.default_branch()
            if branch is None:
                raise MemError(
                    "no default branch to compare with (no origin/HEAD, main or master): "
                    "name one, e.g. `mem diff origin/develop`"
                )
            base_sha = repo.merge_base(branch, "HEAD")
            label = f"merge-base with {branch} ({repo.short(base_sha)})"
        elif from_merge_base:
            base_sha = repo.merge_base(repo.resolve(base_name), head_sha or repo.resolve("HEAD"))
            label = f"merge-base of {base_name} and {head_name} ({repo.short(base_sha)})"
        else:
            base_sha, label = repo.resolve(base_name), base_name
        now = timeutil.now()
        base = Side(label, base_sha, repo.commit_time(base_sha))
        head = Side(
            head_name or WORKING_TREE, head_sha, repo.commit_time(head_sha) if head_sha else now
        )
        return _compare(repo, base, head)


def _is_item(path: str) -> bool:
    return path.startswith(ITEMS) and path.endswith(".yaml") and "/" not in path[len(ITEMS) :]


def _compare(repo: GitRepo, base: Side, head: Side) -> MemoryDiff:
    result = MemoryDiff(base, head)
    status_names = {"A": "added", "M": "changed", "D": "removed", "T": "changed"}
    old_side = SideReader(repo, base.sha, base.label)
    new_side = SideReader(repo, head.sha, head.label)
    changed = [
        (status, path)
        for status, path in repo.changed(str(base.sha), head.sha)
        if not path.startswith(f"{MEMORY}/local/")
    ]
    items = [(status, path) for status, path in changed if _is_item(path)]
    if items:  # every item's lines at head (the expiries need them), before anything else
        store_words.of_side(new_side, ITEMS)
    old_side.prefetch([path for status, path in items if status != "A"])
    new_side.prefetch([path for status, path in items if status != "D"])
    new_decisions: set[str] = set()
    for status, path in changed:
        if not _is_item(path):
            result.files.append(FileEntry(path, status_names.get(status, "changed")))
            continue
        old = _load(old_side, path, result) if status != "A" else None
        new = _load(new_side, path, result) if status != "D" else None
        item_id = Path(path).stem
        if old is None and new is None:
            continue
        if old is None:
            assert new is not None
            result.added.append(_entry(item_id, path, new))
        elif new is None:
            result.removed.append(_entry(item_id, path, old))
        else:
            changes, body = fields.compare(old, new)
            if not changes and not body:
                continue
            entry = _entry(item_id, path, new)
            entry.changes, entry.body_diff = changes, body
            result.changed.append(entry)
        if new is not None and new.get("kind") == "decision":
            new_decisions.add(item_id)
    _supersessions(new_side, result)
    _expiries(old_side, new_side, result)
    if new_decisions:
        result.contradictions = contradiction.among(
            _decisions(new_side, new_decisions), new_decisions
        )
    return result


def _load(side: SideReader, path: str, result: MemoryDiff) -> dict[str, Any] | None:
    data, problem = side.data(path)
    if data is None and problem is not None:
        warning = f"{side.label}: {problem}"
        if warning not in result.warnings:
            result.warnings.append(warning)
    return data


def _entry(item_id: str, path: str, data: dict[str, Any]) -> ItemEntry:
    return ItemEntry(
        item_id, str(data.get("kind") or "?"), str(data.get("title") or "(untitled)"), path, data
    )


def _supersessions(head: SideReader, result: MemoryDiff) -> None:
    removed = {e.id: e for e in result.removed}
    changed = {e.id for e in result.changed}
    targets = [e.data.get("supersedes") for e in result.added + result.changed]
    head.prefetch([f"{ITEMS}{t}.yaml" for t in targets if isinstance(t, str) and t])
    for entry in result.added + result.changed:
        target = entry.data.get("supersedes")
        if not isinstance(target, str) or not target:
            continue
        old_value = next((c.old for c in entry.changes if c.field == "supersedes"), None)
        if entry.id in changed and old_value == target:
            continue
        if target in removed:
            title = removed[target].title
            removed[target].note = f"superseded by {entry.id}"
        else:
            data = _load(head, f"{ITEMS}{target}.yaml", result) or {}
            title = str(data.get("title") or "(not in this store)")
        result.superseded.append(
            Superseded(target, title, entry.id, entry.title, target in removed)
        )
    for entry in result.removed:
        expires = entry.data.get("expires")
        if not entry.note and isinstance(expires, str) and _passed(expires, result.head.time):
            entry.note = "expired"


def _passed(stamp: str, reference: str) -> bool:
    try:
        return timeutil.parse_time(stamp) <= timeutil.parse_time(reference)
    except ValueError:
        return False


def _expiries(base: SideReader, head: SideReader, result: MemoryDiff) -> None:
    """Items at head whose expiry passed between the two sides, or that arrive expired.

    Every ``expires:`` line of both sides is known without parsing
    (:mod:`memcli.review.store_words`); only the items whose date (as
    written) passed at head and either arrive now or had another date or none at base are
    parsed, so an old expired item that nobody pruned costs no YAML parse."""
    added = {e.id for e in result.added}
    touched = {e.id: e.data for e in result.added + result.changed}
    due: list[tuple[str, str | None]] = []
    for path, line in _expires_lines(head):
        written = expires_value(line)
        if written is None or _passed(written, result.head.time):
            due.append((path, written))  # the parse below checks the dates that are due
    lines = _expires_lines(base) if due else []  # the base is read only if needed
    at_base = {path: expires_value(line) for path, line in lines}
    candidates: list[str] = []
    for path, written in due:
        same = written is not None and at_base.get(path) == written
        if same and Path(path).stem not in added and _passed(str(written), result.base.time):
            continue  # the same date, due already at base: not news
        candidates.append(path)
    head.prefetch([p for p in candidates if Path(p).stem not in touched])
    base.prefetch([p for p in candidates if Path(p).stem not in added])
    for path in sorted(candidates):
        item_id = Path(path).stem
        data = touched.get(item_id) or _load(head, path, result) or {}
        expires = data.get("expires")
        if not isinstance(expires, str) or not _passed(expires, result.head.time):
            continue
        if item_id not in added:
            before = _load(base, path, result) or {}
            was = before.get("expires")
            if isinstance(was, str) and _passed(was, result.base.time):
                continue  # expired already at base: not news
        result.expired.append(Expired(item_id, str(data.get("title") or ""), expires))


def _expires_lines(side: SideReader) -> list[tuple[str, str]]:
    """(path, line) of every ``expires:`` line of the items at a side."""
    kept = store_words.of_side(side, ITEMS).expires
    return [(path, line) for path in sorted(kept) for line in kept[path]]


def _decisions(head: SideReader, new_ids: set[str]) -> list[Item]:
    """The new decisions and the decisions at head that could contradict one of them, in the
    order of their paths."""
    new_paths = [f"{ITEMS}{i}.yaml" for i in new_ids]
    new = [item for path in new_paths if (item := head.item(path)) is not None]
    candidates = [p for p in decision_candidates(head, new, ITEMS) if Path(p).stem not in new_ids]
    head.prefetch(candidates)
    items: list[Item] = []
    for path in sorted(new_paths + candidates):
        item = head.item(path)
        if item is not None and item.kind == "decision":
            items.append(item)
    return items
