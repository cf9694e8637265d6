"""`mem import --format jsonl FILE`: bulk-load items for migrations and benchmarks.

One JSON object a line with ``title``, ``body``, ``kind`` and optionally ``id``, ``tags``
(a list, or words separated by commas), ``created``, ``updated``, ``project``, ``branch``,
``importance``, ``confidence``, ``expires``, ``anchors`` (paths), ``supersedes``. A valid
given id is kept; an invalid one is replaced, and a line without one gets an id derived from
its content, so importing the same file twice adds nothing.

Every line is checked before anything is written: a bad line stops the import with
``FILE:LINE: field: problem`` and no file changed. New files are written by the fast writer
(:mod:`memcli.itemlayout`) straight to their place and flushed to disk once at the end
(a file per fsync would cost more than everything else together). A crash can leave a torn
file; importing again finds that it differs from its line and rewrites it. An existing file
whose content differs is rewritten through the store, atomically, keeping a reviewer's
comments.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memcli import __version__, ids, itemlayout, model, progress, timeutil, untrusted
from memcli.compact import text
from memcli.errors import MemError
from memcli.model import Item

if TYPE_CHECKING:
    from memcli.api import Memory
    from memcli.compact.run import CompactResult


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


KNOWN = _set(
    """id title body kind tags created updated project branch importance confidence expires
    anchors supersedes"""
)


@dataclass
class ImportResult:
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    renamed: int = 0  # lines whose given id was invalid and was replaced
    ids: list[str] = field(default_factory=list)
    # claude-code imports: transcript lines read and skipped, and each session's compaction
    lines: int = 0
    skipped_lines: int = 0
    sessions: list[CompactResult] = field(default_factory=list)


def import_jsonl(memory: Memory, path: Path) -> ImportResult:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as exc:
        raise MemError(f"{path}: {exc.strerror or exc}") from None
    memory.adopt_identity()
    default_project = memory.scope().get("project") or ""
    stamp = timeutil.now()
    result = ImportResult()
    items: dict[str, tuple[int, Item, bool]] = {}
    for number, line in enumerate(lines, 1):
        if number % 256 == 0:
            progress.report("reading items", number, len(lines))
        if not line.strip():
            continue
        where = f"{path}:{number}"
        item, renamed, dated = _item(line, where, default_project, stamp, memory.mask)
        result.renamed += renamed
        if item.id in items:
            first = items[item.id][0]
            raise MemError(f"{where}: id: {item.id!r} is already used on line {first}")
        items[item.id] = (number, item, dated)
    folder = memory.paths.items
    folder.mkdir(parents=True, exist_ok=True)
    present = set(os.listdir(folder))
    for count, (_number, item, dated) in enumerate(items.values()):
        if count % 256 == 0:
            progress.report("writing item files", count, len(items))
        _write(memory, item, dated, present, result)
        result.ids.append(item.id)
    if result.added:
        _flush(memory.paths.items)
    return result


def _item(
    line: str, where: str, default_project: str, stamp: str, mask: Callable[[str], str]
) -> tuple[Item, int, bool]:
    """The item of one line, how many ids were replaced (0 or 1), whether it was dated."""
    try:
        data = json.loads(line)
    except ValueError as exc:
        raise MemError(f"{where}: not a JSON object ({exc})") from None
    if not isinstance(data, dict):
        raise MemError(f"{where}: not a JSON object")
    unknown = sorted(set(data) - KNOWN)
    if unknown:
        raise MemError(f"{where}: {unknown[0]}: unknown field (known: {', '.join(sorted(KNOWN))})")
    title = _text(data.get("title"))
    body = _body(_text(data.get("body"))) or title
    project = mask(_text(data.get("project"))) or default_project
    given_time = _time(data.get("created"), where, "created")
    created = given_time or stamp
    record: dict[str, Any] = {
        "kind": data.get("kind"),
        "title": text.title_of(mask(title), model.TITLE_MAX) if title else "",
        "body": mask(body),
        "tags": model.normalize_tags([mask(t) for t in _tags(data.get("tags"), where)]),
        "scope": {"project": project},
        "importance": data.get("importance", 0.5),
        "confidence": data.get("confidence", "assumed"),
        "created": created,
        "updated": _time(data.get("updated"), where, "updated") or created,
        "expires": _time(data.get("expires"), where, "expires"),
        "supersedes": data.get("supersedes"),
        "anchors": [{"path": mask(str(a))} for a in data.get("anchors") or []],
        "source": {"compactor": "import", "version": __version__},
    }
    if data.get("branch"):
        record["scope"]["branch"] = mask(_text(data["branch"]))
    given = data.get("id")
    renamed = 0
    if isinstance(given, str) and ids.is_valid(given):
        item_id = given
    else:
        renamed = int(given is not None)
        item_id = text.digest_id("import", project, record["title"], body, given_time or "")
    record = {"id": item_id, **{k: v for k, v in record.items() if v not in (None, [], "")}}
    problems = model.validate(record, where, lambda _field: 0)
    if problems:
        first = problems[0]
        raise MemError(f"{where}: {first.field}: {first.message}")
    return Item.from_dict(record), renamed, given_time is not None


def _text(value: object) -> str:
    if value is None:
        return ""
    # Lone surrogates from JSON escapes cannot be written as UTF-8.
    return str(value).encode("utf-8", "replace").decode("utf-8")


def _body(body: str) -> str:
    lines = [line.rstrip() for line in body.strip("\n").split("\n")]
    joined = "\n".join(lines).strip()
    return joined + "\n" if "\n" in joined else joined


def _tags(value: object, where: str) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [t for t in value.replace(",", " ").split() if t]
    if isinstance(value, list) and all(isinstance(t, str) for t in value):
        return [t.replace(" ", "-") for t in value]
    raise MemError(f"{where}: tags: must be a list of words or a comma-separated string")


def _time(value: object, where: str, name: str) -> str | None:
    if value in (None, ""):
        return None
    try:
        return timeutil.format_time(timeutil.parse_time(str(value)))
    except ValueError:
        raise MemError(f"{where}: {name}: {value!r} is not an ISO 8601 time") from None


def _write(
    memory: Memory, item: Item, dated: bool, present: set[str], result: ImportResult
) -> None:
    path = memory.paths.item_file(item.id)
    if path.name not in present:
        # Written in place, not through a temporary file: a file torn by a crash no longer
        # matches its line, so importing again rewrites it (see the module docstring).
        data = itemlayout.render(item.to_dict()).encode("utf-8")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        result.added += 1
        return
    if not dated:
        # An undated line was stamped with the import time: keep the first import's times.
        earlier, _problems = memory.store.read(path)
        if earlier is not None:
            item.created, item.updated = earlier.created, earlier.updated
    try:
        current = untrusted.read_text(path)
    except untrusted.Unreadable:
        current = ""
    if current == itemlayout.render(item.to_dict()):
        result.unchanged += 1
        return
    existing, _problems = memory.store.read(path)
    if existing is not None and existing.to_dict() == item.to_dict():
        result.unchanged += 1
        return
    memory.store.save(item)
    result.updated += 1


def _flush(folder: Path) -> None:
    """One flush to disk for the whole import instead of one per file."""
    if hasattr(os, "sync"):
        os.sync()
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
