"""Where things live: the repository root, the `.memory/` store and its parts.

Kept free of third-party imports: `mem capture` uses it on every hook call.
"""

from __future__ import annotations

import os
from pathlib import Path

MEMORY_DIR = ".memory"


def find_repo_root(start: Path | None = None) -> Path | None:
    """The nearest folder at or above `start` holding `.git` (a folder, or a file in worktrees)."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if os.path.exists(folder / ".git"):
            return folder
    return None


def git_dir(root: Path) -> Path | None:
    """The real git directory of a repository root, following a worktree's `.git` file."""
    dot_git = root / ".git"
    if dot_git.is_dir():
        return dot_git
    try:
        text = dot_git.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    if text.startswith("gitdir:"):
        target = Path(text[len("gitdir:") :].strip())
        return target if target.is_absolute() else (root / target).resolve()
    return None


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
