"""Fixtures of the retrieval tests: items written straight through the store."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memcli import api, ids
from memcli.model import Item
from memcli.paths import StorePaths
from memcli.store import ItemStore

NOW = "2026-11-29T10:00:00Z"
AddItem = Callable[..., Item]


def save_item(root: Path, title: str, body: str = "Details.", **fields: Any) -> Item:
    """Save an item (the repository's own project unless ``project`` is given)."""
    project = fields.pop("project", None)
    if project is None:
        project = api.Memory.open(root).scope()["project"] or ""
    scope = {"project": project}
    if fields.get("branch"):
        scope["branch"] = fields.pop("branch")
    fields.pop("branch", None)
    item = Item(
        id=fields.pop("item_id", None) or ids.new_id(),
        kind=fields.pop("kind", "pitfall"),
        title=title,
        body=body,
        scope=scope,
        created=fields.pop("created", NOW),
        updated=fields.pop("updated", NOW),
        **fields,
    )
    ItemStore(StorePaths(root)).save(item)
    return item


def age_files(root: Path, seconds: int = 10) -> None:
    """Move every item file's mtime into the past, out of the index's racy window."""
    for path in StorePaths(root).items.iterdir():
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns - seconds * 1_000_000_000))


@pytest.fixture
def add_item(repo: Path) -> AddItem:
    def add(title: str, body: str = "Details.", **fields: Any) -> Item:
        return save_item(repo, title, body, **fields)

    return add
