"""`mem forget`: a real deletion of one item, by identity, not a tombstone.

What goes is what is *linked* to the item, never what merely shares its words: the item's
file; the raw observations its evidence points at (by observation id); records under
``local/`` that name the item's id (receipts, the compactor's journals), with the id taken out
and their text naming the item replaced; its usage count; log lines naming its id; the
session summaries that list it; and the derived search index and compactor cache (rebuilt on
demand). A pending observation of another session that happens to contain the item's title is
somebody else's data and stays byte for byte. Git history still holds committed text; the
result says how to purge it.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memcli import atomic, untrusted
from memcli.model import Item

if TYPE_CHECKING:
    from memcli.api import Memory

FORGOTTEN = "[forgotten]"


@dataclass
class ForgetResult:
    item: Item
    removed: list[Path]
    scrubbed: list[Path]
    in_git_history: bool
    purge_hint: str = field(default="")


def forget(memory: Memory, item: Item) -> ForgetResult:
    from memcli import gitlayer

    path = memory.store.path_of(item.id)
    tracked = gitlayer.is_tracked(memory.root, path)
    removed = [memory.store.delete(item.id)]
    local = memory.paths.local
    for derived in (local / "index", local / "compact" / "pool.json"):
        if derived.is_dir() and not derived.is_symlink():
            shutil.rmtree(derived)
            removed.append(derived)
        elif derived.exists() or derived.is_symlink():
            derived.unlink()
            removed.append(derived)
    link = Link(item)
    scrubbed = [p for p in _local_files(local, ".jsonl") if _scrub_records(p, link)]
    scrubbed += [p for p in _local_files(local, ".log") if _scrub_log(p, item.id)]
    if _drop_usage(memory.paths.usage, item.id):
        scrubbed.append(memory.paths.usage)
    scrubbed += [p for p in _session_files(memory) if _scrub_session(p, link)]
    hint = ""
    if tracked:
        relative = memory.store.display(path)
        hint = (
            f"git history still holds {relative}; to purge it: "
            f"git filter-repo --invert-paths --path {relative} (then force-push)"
        )
    return ForgetResult(item, removed, scrubbed, tracked, hint)


class Link:
    """What ties a record to the item: its id, and the ids of its raw observations. The
    item's text (title, long body lines) is replaced only inside records so tied."""

    def __init__(self, item: Item) -> None:
        self.item_id = item.id
        self.observations = frozenset(
            entry["ref"].rsplit("#", 1)[1]
            for entry in item.evidence
            if isinstance(entry.get("ref"), str) and "#" in entry["ref"]
        )
        body_lines = [line.strip() for line in item.body.splitlines()]
        self.text = [t for t in [item.title.strip(), *body_lines] if len(t) >= 3]
        self.text = [t for t in self.text if t == item.title.strip() or len(t) >= 20]

    def is_evidence(self, record: Any) -> bool:
        """A raw or buffered observation the item's evidence points at: dropped whole."""
        return isinstance(record, dict) and record.get("id") in self.observations

    def names_item(self, value: Any) -> bool:
        if isinstance(value, str):
            return self.item_id in value
        if isinstance(value, dict):
            return any(self.names_item(v) for v in value.values())
        if isinstance(value, list):
            return any(self.names_item(v) for v in value)
        return False

    def clean(self, value: Any) -> Any:
        """``value`` without the item: its id out of lists, strings naming it replaced."""
        if isinstance(value, dict):
            return {k: self.clean(v) for k, v in value.items()}
        if isinstance(value, list):
            return [
                self.clean(v)
                for v in value
                if v != self.item_id and not (isinstance(v, dict) and v.get("id") == self.item_id)
            ]
        if isinstance(value, str) and (self.item_id in value or any(t in value for t in self.text)):
            return FORGOTTEN
        return value


def _local_files(local: Path, suffix: str) -> list[Path]:
    if not local.is_dir() or local.is_symlink():
        return []
    return sorted(p for p in local.rglob(f"*{suffix}") if p.is_file() and not p.is_symlink())


def _scrub_records(path: Path, link: Link) -> bool:
    """Drop the item's raw observations from a JSONL file and take the item out of records
    that name its id; every other line stays as it was, byte for byte."""
    try:
        data = path.read_bytes()
    except OSError:
        return False
    if link.item_id.encode() not in data and not any(o.encode() in data for o in link.observations):
        return False
    changed, kept = False, []
    for line in data.splitlines(keepends=True):
        try:
            record = json.loads(line)
        except ValueError:
            kept.append(line)
            continue
        if link.is_evidence(record):
            changed = True
            continue
        if link.names_item(record):
            changed = True
            line = json.dumps(link.clean(record), separators=(",", ":")).encode() + b"\n"
        kept.append(line)
    if changed:
        atomic.write_bytes(path, b"".join(kept))
    return changed


def _scrub_log(path: Path, item_id: str) -> bool:
    try:
        lines = path.read_bytes().splitlines(keepends=True)
    except OSError:
        return False
    kept = [line for line in lines if item_id.encode() not in line]
    if len(kept) == len(lines):
        return False
    atomic.write_bytes(path, b"".join(kept))
    return True


def _drop_usage(path: Path, item_id: str) -> bool:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(data, dict) or item_id not in data:
        return False
    del data[item_id]
    atomic.write_text(path, json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n")
    return True


def _session_files(memory: Memory) -> list[Path]:
    folder = memory.paths.sessions
    if not folder.is_dir() or folder.is_symlink():
        return []
    return sorted(folder.glob("*.yaml"))


def _scrub_session(path: Path, link: Link) -> bool:
    """Take the item out of a session summary that lists it; a summary that does not list
    it is left alone, whatever words it shares with the item."""
    from memcli import yamlio

    try:
        text = untrusted.read_text(path)
    except untrusted.Unreadable:
        return False
    if link.item_id not in text:
        return False
    doc, problem = yamlio.parse(text, str(path))
    if doc is None or problem is not None:
        return False
    plain = doc.plain()
    if not isinstance(plain, dict) or not link.names_item(plain):
        return False
    data = link.clean(plain)
    atomic.write_text(path, yamlio.render(data, doc, tuple(data)))
    return True
