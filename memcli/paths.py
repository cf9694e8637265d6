"""Where things live: the repository root, the `.memory/` store and its parts.

Kept free of third-party imports: `mem capture` uses it on every hook call.
"""

from __future__ import annotations

import os
from pathlib import Path

from memcli import gitfiles
from memcli.errors import MemError

MEMORY_DIR = ".memory"


def find_repo_root(start: Path | None = None) -> Path | None:
    """The nearest folder at or above `start` holding `.git` (a folder, or a file in worktrees)."""
    found = gitfiles.find_repo_root(str(start or Path.cwd()))
    return Path(found) if found else None


def require_repo(start: Path | None = None) -> Path:
    """The repository root around ``start``; a MemError (exit 2) outside a repository."""
    root = find_repo_root(start)
    if root is None:
        where = (start or Path.cwd()).resolve()
        raise MemError(f"not inside a git repository: {where} (run `git init` first)")
    return root


def require_store(start: Path | None = None) -> Path:
    """The root of a repository that has a ``.memory/``; a MemError (exit 2) otherwise."""
    root = require_repo(start)
    from memcli import untrusted

    linked = untrusted.linked_folder(root / MEMORY_DIR)
    if linked is not None:
        shown = os.path.relpath(linked, root)
        raise MemError(f"{shown}: a symlink (mem never follows links under .memory/)")
    if not (root / MEMORY_DIR).is_dir():
        raise MemError(f"no .memory/ in {root} (run `mem init` first)")
    return root


class StorePaths:
    """The layout of one `.memory/` folder (see DESIGN.md, "Layout")."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.memory = root / MEMORY_DIR
        self.config = self.memory / "config.yaml"
        self.items = self.memory / "items"
        self.sessions = self.memory / "sessions"
        self.local = self.memory / "local"
        self.buffers = self.local / "buffer"
        self.raw = self.local / "raw"
        self.log = self.local / "mem.log"
        self.config_cache = self.local / "config.json"
        self.scope_cache = self.local / "scope.json"
        self.usage = self.local / "usage.json"

    def item_file(self, item_id: str) -> Path:
        return self.items / f"{item_id}.yaml"
