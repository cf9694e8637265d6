"""The one place that runs git: plain ``git`` subprocesses, no library.

git is driven only through its command line (rev-list, log, diff, cat-file, merge-file), so a
subprocess is all it takes; gitpython, which wrapped the same calls, cost about nine bare
Python starts to import (see docs/dependencies.md). `mem --help` and the hook commands never
import this module (tests assert that).
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

# git's messages in English whatever the user's locale: callers quote its first line.
_ENV_OVERRIDES = {"LC_ALL": "C", "LANGUAGE": "C", "GIT_TERMINAL_PROMPT": "0"}


@dataclass
class GitResult:
    status: int  # git's exit status; -1 when git could not be started
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        return self.status == 0

    def reason(self) -> str:
        """git's first line of explanation, or ``failed``."""
        text = self.stderr.strip()
        return text.splitlines()[0].removeprefix("fatal: ").strip() if text else "failed"


def environment() -> dict[str, str]:
    return {**os.environ, **_ENV_OVERRIDES}


def run(root: Path, *args: str) -> GitResult:
    """``git ARGS`` in ``root``; never raises for a failing git (see ``GitResult.status``)."""
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=root,
            env=environment(),
            capture_output=True,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except OSError as exc:
        return GitResult(-1, "", f"cannot run git: {exc.strerror}")
    return GitResult(
        done.returncode,
        done.stdout.decode("utf-8", "replace"),
        done.stderr.decode("utf-8", "replace"),
    )


def root_commit(root: Path) -> str | None:
    """The sha of the root commit (the smallest if there are several); None without commits."""
    result = run(root, "rev-list", "--max-parents=0", "HEAD")
    shas = result.stdout.split() if result.ok else []
    return sorted(shas)[0] if shas else None


def is_tracked(root: Path, path: Path) -> bool:
    """Whether git history holds ``path`` (so deleting the file does not erase its text)."""
    try:
        relative = str(path.relative_to(root))
    except ValueError:
        return False
    result = run(root, "log", "--all", "--format=%H", "-1", "--", relative)
    return result.ok and bool(result.stdout.strip())


def tracked_under(root: Path, folder: Path) -> list[str]:
    """The files git tracks under ``folder`` (repo-relative paths); [] when git cannot say."""
    try:
        relative = str(folder.relative_to(root))
    except ValueError:
        return []
    result = run(root, "ls-files", "-z", "--", relative)
    return [name for name in result.stdout.split("\0") if name] if result.ok else []
