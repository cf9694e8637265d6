"""`mem forget`: a real deletion of one item, not a tombstone.

The item's file goes, and so does every local trace: the raw observations its evidence points
at, lines that name it in local logs and usage counts, and the derived search index (rebuilt
on demand). Git history still holds committed text; the result says how to purge it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from memcli import atomic, untrusted
from memcli.model import Item

if TYPE_CHECKING:
    from memcli.api import ForgetResult, Memory

_TEXT_SUFFIXES = (".jsonl", ".log", ".json")


def forget(memory: Memory, item: Item) -> ForgetResult:
    from memcli import gitlayer
    from memcli.api import ForgetResult

    path = memory.store.path_of(item.id)
    tracked = gitlayer.is_tracked(memory.root, path)
    removed = [memory.store.delete(item.id)]
    local = memory.paths.local
    index_dir = local / "index"
    if index_dir.is_dir():
        shutil.rmtree(index_dir)
        removed.append(index_dir)
    pool = local / "compact" / "pool.json"  # the compactor's cache of the store: rebuilt
    if pool.is_file():
        pool.unlink()
        removed.append(pool)
    needles = _needles(item)
    scrubbed = [p for p in _local_text_files(local) if _scrub(p, needles)]
    scrubbed += [p for p in _session_files(memory) if _scrub_session(p, item, needles)]
    hint = ""
    if tracked:
        relative = memory.store.display(path)
        hint = (
            f"git history still holds {relative}; to purge it: "
            f"git filter-repo --invert-paths --path {relative} (then force-push)"
        )
    return ForgetResult(item, removed, scrubbed, tracked, hint)


def _needles(item: Item) -> list[str]:
    """What marks a line as this item's: its id, its title, and its raw observations' ids."""
    needles = [item.id, item.title]
    for entry in item.evidence:
        ref = entry.get("ref", "")
        if "#" in ref:
            needles.append(ref.rsplit("#", 1)[1])
    body_lines = [line.strip() for line in item.body.splitlines() if len(line.strip()) >= 20]
    return [n for n in needles + body_lines if n]


def _session_files(memory: Memory) -> list[Path]:
    folder = memory.paths.sessions
    return sorted(folder.glob("*.yaml")) if folder.is_dir() else []


def _scrub_session(path: Path, item: Item, needles: list[str]) -> bool:
    """Take the item out of a session summary: its id from lists, text naming it replaced."""
    from memcli import yamlio

    try:
        text = untrusted.read_text(path)
    except untrusted.Unreadable:
        return False
    if not any(n in text for n in needles):
        return False
    doc, problem = yamlio.parse(text, str(path))
    if doc is None or problem is not None:
        return False

    def clean(value: object) -> object:
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items()}
        if isinstance(value, list):
            return [clean(v) for v in value if v != item.id]
        if isinstance(value, str) and any(n in value for n in needles):
            return "[forgotten]"
        return value

    data = clean(doc.plain())
    assert isinstance(data, dict)
    atomic.write_text(path, yamlio.render(data, doc, tuple(data)))
    return True


def _local_text_files(local: Path) -> list[Path]:
    if not local.is_dir():
        return []
    return sorted(p for p in local.rglob("*") if p.is_file() and p.suffix in _TEXT_SUFFIXES)


def _scrub(path: Path, needles: list[str]) -> bool:
    """Drop every line of ``path`` that holds a needle (or the key, in a JSON object file)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    if path.suffix == ".json":
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, dict):
            kept = {k: v for k, v in data.items() if not any(n in k for n in needles)}
            if len(kept) == len(data):
                return False
            atomic.write_text(path, json.dumps(kept, sort_keys=True) + "\n")
            return True
    lines = text.splitlines(keepends=True)
    kept_lines = [line for line in lines if not any(n in line for n in needles)]
    if len(kept_lines) == len(lines):
        return False
    atomic.write_text(path, "".join(kept_lines))
    return True
