"""Files under ``.memory/local/`` are readable by their owner only: files 0600, folders 0700.

Local state holds captured text (masked, but still a record of the user's work), receipts of
queries and the hashes of secrets; nothing there is for other users of the machine.
"""

from __future__ import annotations

import os

FILE_MODE = 0o600
FOLDER_MODE = 0o700
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # a committed symlink is never written through


def make_folders(path: str) -> None:
    """`path` and any missing parent, each created 0700."""
    if os.path.isdir(path):
        return
    parent = os.path.dirname(path)
    if parent and parent != path and not os.path.isdir(parent):
        make_folders(parent)
    try:
        os.mkdir(path, FOLDER_MODE)
    except FileExistsError:
        pass


def open_append(path: str, exclusive_first: bool = False) -> tuple[int, bool]:
    """A descriptor for appending to `path` (created 0600, its folder 0700) and whether this
    call created the file."""
    make_folders(os.path.dirname(path))
    flags = os.O_WRONLY | os.O_APPEND | _NOFOLLOW
    if exclusive_first:
        try:
            return os.open(path, flags | os.O_CREAT | os.O_EXCL, FILE_MODE), True
        except FileExistsError:
            return os.open(path, flags), False
    return os.open(path, flags | os.O_CREAT, FILE_MODE), False


def write_atomic(path: str, data: bytes) -> None:
    """Write `path` whole through a temporary file (0600) in its folder, then rename."""
    make_folders(os.path.dirname(path))
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _NOFOLLOW, FILE_MODE)
        with open(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def append_line(path: str, line: str) -> None:
    """Append one line (one ``write``), creating the file 0600."""
    fd, _ = open_append(path)
    try:
        os.write(fd, (line.rstrip("\n") + "\n").encode("utf-8", "replace"))
    finally:
        os.close(fd)
