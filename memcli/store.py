"""The item store: one YAML file per item under ``.memory/items/``.

Reading never stops at a broken file: it is skipped and reported as a Problem, so every
command but `mem lint` keeps working around it.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any

from memcli import atomic, ids, itemfile, model, untrusted
from memcli.errors import MemError
from memcli.model import Item, Problem
from memcli.paths import StorePaths

ITEM_SUFFIX = ".yaml"

# The most an item file may hold when mem writes it. An item is one fact, a few hundred bytes
# to a few kilobytes; readers refuse files over untrusted.MAX_FILE_BYTES, so nothing mem writes
# may come near that.
MAX_ITEM_BYTES = 64_000


class ItemTooLarge(MemError):
    """An item that would be written over :data:`MAX_ITEM_BYTES`."""


class ItemStore:
    def __init__(self, paths: StorePaths) -> None:
        self.paths = paths

    def files(self) -> list[Path]:
        if untrusted.is_link(self.paths.items) or not self.paths.items.is_dir():
            return []  # a linked items/ is never followed; lint() reports it
        folder = self.paths.items
        names = sorted(  # sorting names, not Paths: pathlib's comparison is 10x slower
            n for n in os.listdir(folder) if n.endswith((".yaml", ".yml")) and not n.startswith(".")
        )
        return [folder / n for n in names]

    def read(self, path: Path) -> tuple[Item | None, list[Problem]]:
        """One item file: the item, or the problems that keep it from being one."""
        try:
            data = untrusted.read_bytes(path)
        except untrusted.Unreadable as exc:
            return None, [Problem(self.display(path), 1, "(file)", str(exc))]
        item_data, problems = self.parse_bytes(path, data)
        return (Item.from_dict(item_data) if item_data is not None else None), problems

    def parse_bytes(self, path: Path, data: bytes) -> tuple[dict[str, Any] | None, list[Problem]]:
        """An item file's validated mapping from its bytes, or the problems with it."""
        return itemfile.parse_bytes(self.paths, path, data)

    def load_all(self, hashes: dict[str, str] | None = None) -> tuple[list[Item], list[Problem]]:
        """Every item and every problem, through the parse cache (only changed files are
        read; see :mod:`memcli.itemcache`); ``hashes`` receives each file's content hash by
        file name."""
        from memcli import itemcache

        snapshot = itemcache.load(self.paths)
        try:
            if hashes is not None:
                hashes.update(snapshot.hashes)
            return snapshot.items(), snapshot.problems()
        finally:
            snapshot.save()

    def lint(self) -> list[Problem]:
        """Every problem in every item file, plus ids used by more than one file."""
        items, problems = self.load_all()
        counts = Counter(item.id for item in items)
        for item in items:
            if counts[item.id] > 1:
                problems.append(
                    Problem(self.display(self.path_of(item.id)), 1, "id", "used by several files")
                )
        for path in self.files():
            if path.suffix == ".yml":
                problems.append(Problem(self.display(path), 1, "(file)", "use the .yaml suffix"))
        return self.layout_problems() + problems

    def layout_problems(self) -> list[Problem]:
        """A symlinked ``items/`` folder: mem never follows it (it could point anywhere)."""
        if untrusted.is_link(self.paths.items):
            reason = "a symlink (mem never follows links under .memory/)"
            return [Problem(self.display(self.paths.items), 1, "(file)", reason)]
        return []

    def path_of(self, item_id: str) -> Path:
        if not ids.is_valid(item_id):
            raise MemError(f"invalid item id {item_id!r}: {ids.ID_RULE}")
        return self.paths.item_file(item_id)

    def resolve_id(self, id_or_prefix: str) -> str:
        """An exact id, or the one id starting with a prefix of 4 or more characters."""
        if not ids.is_valid_prefix(id_or_prefix):
            raise MemError(f"invalid item id {id_or_prefix!r}: {ids.ID_RULE}")
        if ids.is_valid(id_or_prefix) and self.paths.item_file(id_or_prefix).is_file():
            return id_or_prefix
        if len(id_or_prefix) >= 4:
            matches = [p.stem for p in self.files() if p.stem.startswith(id_or_prefix)]
            if len(matches) == 1:
                return matches[0]
            if len(matches) > 1:
                shown = ", ".join(matches[:5])
                raise MemError(f"item id prefix {id_or_prefix!r} is ambiguous: {shown}")
        hint = " (a prefix needs 4 or more characters)" if len(id_or_prefix) < 4 else ""
        raise MemError(
            f"no item with id {id_or_prefix!r} in {self.display(self.paths.items)}{hint}"
        )

    def get(self, id_or_prefix: str) -> Item:
        item_id = self.resolve_id(id_or_prefix)
        item, problems = self.read(self.paths.item_file(item_id))
        if item is None:
            raise MemError(str(problems[0]))
        return item

    def save(self, item: Item) -> Path:
        """Write an item atomically; a rewrite keeps the comments a reviewer added."""
        from memcli import yamlio

        path = self.path_of(item.id)
        data = item.to_dict()
        problems = model.validate(data, self.display(path), lambda _field: 1)
        if problems:
            raise MemError(str(problems[0]))
        existing = None
        if path.is_file():
            existing, _ = yamlio.read(path)
        text = yamlio.render(data, existing, model.FIELD_ORDER)
        size = len(text.encode("utf-8"))
        if size > MAX_ITEM_BYTES:
            raise ItemTooLarge(
                f"{self.display(path)}: the item would be {size:,} bytes, over the "
                f"{MAX_ITEM_BYTES:,}-byte limit for one item; shorten its body "
                "(an item holds one fact, conclusion first)"
            )
        atomic.write_text(path, text)
        return path

    def delete(self, item_id: str) -> Path:
        path = self.path_of(item_id)
        path.unlink()
        return path

    def display(self, path: Path) -> str:
        """A path relative to the repository root, as messages show it."""
        return itemfile.shown(self.paths, path)

    def size_bytes(self) -> int:
        """Bytes of the regular item files (a link is never followed)."""
        from memcli import itemcache

        _names, stats = itemcache.scan(os.fspath(self.paths.items))
        return sum(s[1] for s in stats.values() if s is not None)


def summarize(items: list[Item]) -> dict[str, Any]:
    return {
        "items": len(items),
        "by_kind": dict(sorted(Counter(i.kind for i in items).items())),
        "by_project": dict(sorted(Counter(i.scope.get("project", "") for i in items).items())),
    }
