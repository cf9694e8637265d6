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
from typing import IO

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


# git processes started before they were asked for (:func:`start_early`), by (root, args)
_started: dict[tuple[str, tuple[str, ...]], tuple[subprocess.Popen[bytes], IO[bytes], IO[bytes]]]
_started = {}


def start_early(root: str, *args: str) -> None:
    """Start ``git ARGS`` in ``root`` now, for the :func:`run` of the same arguments later in
    this process to take its result: git works while Python is still importing (two cores: the
    user waits for the longer of the two, not for both). Its output goes to anonymous temporary
    files (a pipe would stop git when full, until read). A process nobody took is ended at
    exit; one that cannot start is left to :func:`run`."""
    import atexit

    key = (root, args)
    if key in _started:
        return
    out, err = _scratch_file(), _scratch_file()
    try:
        process = subprocess.Popen(
            ["git", *args], cwd=root, env=environment(), stdin=subprocess.DEVNULL,
            stdout=out, stderr=err,
        )  # fmt: skip
    except OSError:
        out.close()
        err.close()
        return
    if not _started:
        atexit.register(end_early)
    _started[key] = (process, out, err)


def _scratch_file() -> IO[bytes]:
    """An anonymous file for a process's output, closed when taken or at exit (``O_TMPFILE``
    where the system has it: no name, and no :mod:`tempfile` to import at start-up)."""
    anonymous = getattr(os, "O_TMPFILE", 0)
    if anonymous:
        try:
            folder = os.environ.get("TMPDIR") or "/tmp"  # noqa: S108 - a file with no name
            return os.fdopen(os.open(folder, anonymous | os.O_RDWR, 0o600), "w+b")
        except OSError:
            pass  # no such folder, or a file system without anonymous files
    import tempfile

    return tempfile.TemporaryFile()  # noqa: SIM115 - closed by the caller


def _take_early(root: Path, args: tuple[str, ...]) -> GitResult | None:
    """The result of a :func:`start_early` of the same git command, once it has finished."""
    started = _started.pop((os.fspath(root), args), None)
    if started is None:
        return None
    process, out, err = started
    status = process.wait()
    texts = []
    for handle in (out, err):
        with handle:
            handle.seek(0)
            texts.append(handle.read().decode("utf-8", "replace"))
    return GitResult(status, texts[0], texts[1])


def end_early() -> None:
    """End the git processes started early that nobody took (their output is not needed)."""
    while _started:
        _key, (process, out, err) = _started.popitem()
        if process.poll() is None:
            process.kill()
        process.wait()
        out.close()
        err.close()


def run(root: Path, *args: str) -> GitResult:
    """``git ARGS`` in ``root``; never raises for a failing git (see ``GitResult.status``).
    The result of the same command started by :func:`start_early`, when it was."""
    if _started:
        early = _take_early(root, args)
        if early is not None:
            return early
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
