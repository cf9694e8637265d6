"""The store's items as merge candidates, cheap to scan and parsed only when likely to match.

Each item file is summarised by a text scan (no YAML parsing): its kind, its project, the id
it supersedes and its words. The summaries are cached in ``local/compact/pool.json`` keyed by
file name, modification time and size, so a compaction against a store of thousands of items
reads only the files that changed since the last one.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memcli import atomic, untrusted
from memcli.compact import text
from memcli.compact.drafts import Draft
from memcli.model import Item
from memcli.store import ItemStore

CACHE_VERSION = 1
PREFILTER = 0.5  # share of a draft's title words an item file must hold to be parsed
_KIND = re.compile(r"^kind:\s*['\"]?(\w+)", re.M)
_PROJECT = re.compile(r"^scope:\s*\n(?:\s+.*\n)*?\s+project:\s*['\"]?([^'\"\n]+)", re.M)
_SUPERSEDES = re.compile(r"^supersedes:\s*['\"]?([\w-]+)", re.M)


@dataclass
class _Entry:
    path: Path
    kind: str
    project: str
    supersedes: str
    words: set[str]
    item: Item | None = None


class Pool:
    def __init__(self, store: ItemStore, cache: Path | None = None) -> None:
        self.store = store
        self.entries: dict[str, _Entry] = {}
        self.cache = cache
        old = _load(cache)
        fresh: dict[str, list[Any]] = {}
        for entry in _scan(store.paths.items):
            stat = entry.stat()
            stamp = [stat.st_mtime_ns, stat.st_size]
            known = old.get(entry.name)
            if known is None or known[:2] != stamp:
                summary = _summarise(Path(entry.path))
                if summary is None:
                    continue
                known = stamp + summary
            fresh[entry.name] = known
            _mtime, _size, kind, project, older, words = known
            stem = entry.name.rsplit(".", 1)[0]
            self.entries[stem] = _Entry(Path(entry.path), kind, project, older, set(words.split()))
        self.superseded = {e.supersedes for e in self.entries.values() if e.supersedes}
        if cache is not None and fresh != old:
            _save(cache, fresh)

    def item(self, item_id: str) -> Item | None:
        entry = self.entries.get(item_id)
        if entry is None:
            return None
        if entry.item is None:
            entry.item, _problems = self.store.read(entry.path)
        return entry.item

    def add(self, item: Item) -> None:
        """An item just written: a candidate for the drafts still to come."""
        words = text.words(f"{item.title}\n{item.body}")
        self.entries[item.id] = _Entry(
            self.store.path_of(item.id),
            item.kind,
            item.scope.get("project", ""),
            item.supersedes or "",
            words,
            item,
        )
        if item.supersedes:
            self.superseded.add(item.supersedes)

    def candidates(self, draft: Draft, project: str) -> list[Item]:
        """Current (not superseded) items of the draft's kind and project that share enough of
        its title words, or of its error signature, to be worth parsing."""
        shape = text.words(draft.title)
        error = text.words(draft.signature)
        found = []
        for item_id, entry in self.entries.items():
            if entry.kind != draft.kind or entry.project != project:
                continue
            if item_id in self.superseded:
                continue
            if (
                text.containment(shape, entry.words) < PREFILTER
                and text.containment(error, entry.words) < 0.8
            ):
                continue
            item = self.item(item_id)
            if item is not None:
                found.append(item)
        return found


def _scan(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as found:
            return [
                e
                for e in found
                if e.name.endswith((".yaml", ".yml")) and not e.name.startswith(".")
            ]
    except OSError:
        return []


def _summarise(path: Path) -> list[str] | None:
    try:
        raw = untrusted.read_text(path)
    except untrusted.Unreadable:
        return None
    kind = _KIND.search(raw)
    project = _PROJECT.search(raw)
    older = _SUPERSEDES.search(raw)
    return [
        kind.group(1) if kind else "",
        project.group(1).strip() if project else "",
        older.group(1) if older else "",
        " ".join(sorted(text.words(raw))),
    ]


def _load(cache: Path | None) -> dict[str, list[Any]]:
    if cache is None:
        return {}
    raw = untrusted.read_private(cache)
    try:
        data = json.loads(raw) if raw else None
    except ValueError:
        return {}
    if not isinstance(data, dict) or data.get("version") != CACHE_VERSION:
        return {}
    files = data.get("files")
    if not isinstance(files, dict):
        return {}
    return {k: v for k, v in files.items() if isinstance(v, list) and len(v) == 6}


def _save(cache: Path, files: dict[str, list[Any]]) -> None:
    try:
        atomic.write_text(cache, json.dumps({"version": CACHE_VERSION, "files": files}))
    except OSError:
        pass  # a cache that cannot be written only costs time
