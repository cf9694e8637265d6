"""Reading committed files, which are untrusted input (see docs/security.md).

Anything under ``.memory/`` may come from a stranger's pull request. A file is read only when
it is a regular file reached without a symlink, and only up to a size cap, so that a link to
``/dev/zero``, a FIFO or a 64 MB item cannot hang or exhaust a command. The checks happen on
the opened descriptor (``O_NOFOLLOW``, ``fstat``), so a swap between check and read is caught.
"""

import os
import stat

# An item is a few hundred bytes to a few kilobytes; even a long session summary or a config
# with many patterns stays far below this.
MAX_FILE_BYTES = 1_000_000
# Items and settings are a few levels deep; a committed YAML file nested deeper is hostile.
MAX_YAML_DEPTH = 32

_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)  # a FIFO must not block the open
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class Unreadable(Exception):
    """A file mem refuses to read; the message is the reason, for a one-line Problem."""


def read_bytes(
    path: str | os.PathLike[str],
    limit: int = MAX_FILE_BYTES,
    *,
    follow: bool = False,
    truncate: bool = False,
    dir_fd: int | None = None,
) -> bytes:
    """The file's bytes; :class:`Unreadable` for a symlink (unless ``follow``), a non-regular
    file, a file over ``limit`` bytes (unless ``truncate``: then its first ``limit`` bytes),
    or an OS error. ``dir_fd``: ``path`` is a name in that open folder (a whole store is read
    so without resolving the folder's path again for every file)."""
    try:
        fd = os.open(path, _FLAGS | (0 if follow else _NOFOLLOW), dir_fd=dir_fd)
    except OSError as exc:
        if _is_link(path, dir_fd):
            raise Unreadable("a symlink (mem never follows links under .memory/)") from None
        raise Unreadable(exc.strerror or str(exc)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Unreadable("not a regular file")
        if info.st_size > limit and not truncate:
            raise Unreadable(f"larger than the {limit:,}-byte limit ({info.st_size:,} bytes)")
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        data = b"".join(chunks)
        if total > limit:
            if not truncate:
                raise Unreadable(f"larger than the {limit:,}-byte limit")
            data = data[:limit]
        return data
    except OSError as exc:
        raise Unreadable(exc.strerror or str(exc)) from None
    finally:
        os.close(fd)


def _is_link(path: str | os.PathLike[str], dir_fd: int | None) -> bool:
    try:
        return stat.S_ISLNK(os.stat(path, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def read_text(
    path: str | os.PathLike[str],
    limit: int = MAX_FILE_BYTES,
    *,
    follow: bool = False,
    truncate: bool = False,
    errors: str = "strict",
) -> str:
    """The file as UTF-8 text; :class:`Unreadable` as :func:`read_bytes`, or when not UTF-8
    (with ``errors="strict"``)."""
    data = read_bytes(path, limit, follow=follow, truncate=truncate)
    try:
        return data.decode("utf-8", errors)
    except UnicodeDecodeError as exc:
        raise Unreadable(f"not UTF-8 text ({exc.reason})") from None


def is_link(path: str | os.PathLike[str]) -> bool:
    """True for a symlink (a committed folder such as ``items/`` must not be one)."""
    return os.path.islink(path)


# --- local caches ---------------------------------------------------------------------------
# Files under ``.memory/local/`` are written by mem, owner-only (mode 0600), and git-ignored.
# A hostile repository can still commit one with ``git add -f`` (a marshalled index or regex
# cache, a config copy with masking turned off). A checkout writes files readable by others
# (0644 under the usual umask), so a cache is trusted only when it is a regular file of this
# user that nobody else may read or write; anything else is ignored and rebuilt.

PRIVATE_MODE = 0o600


def is_private(info: os.stat_result) -> bool:
    """Whether ``info`` (an fstat) is a regular file of this user, closed to everyone else."""
    if not hasattr(os, "geteuid"):  # pragma: no cover - Windows: no owner-only mode bits
        return stat.S_ISREG(info.st_mode)
    return stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & 0o077


def read_private(path: str | os.PathLike[str]) -> bytes | None:
    """A local cache's bytes when mem wrote it (see :func:`is_private`); None otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not is_private(info):
            return None
        chunks: list[bytes] = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)


def open_private(path: str) -> int:
    """A new file at ``path`` for writing, owner-only (the temporary file of an atomic write)."""
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _NOFOLLOW, PRIVATE_MODE)


# Folders mem writes into. A committed symlink at any of them (``git add -f`` gets past the
# .gitignore) would send buffers, logs and caches wherever it points: mem refuses the store.
LOCAL_FOLDERS = (
    "local",
    "local/buffer",
    "local/raw",
    "local/compact",
    "local/index",
    "local/checkpoint",
    "local/notes",
    "local/secrets",
)


def linked_folder(memory: str | os.PathLike[str]) -> str | None:
    """The first of ``.memory`` and its local folders that is a symlink, else None."""
    base = os.fspath(memory)
    for part in ("", *LOCAL_FOLDERS):
        path = os.path.join(base, part) if part else base
        if os.path.islink(path):
            return path
    return None
