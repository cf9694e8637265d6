"""Atomic file writes: a temporary file in the same folder, flushed, then renamed over."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_text(path: Path, text: str, *, durable: bool = True) -> None:
    write_bytes(path, text.encode("utf-8"), durable=durable)


def write_bytes(path: Path, data: bytes, *, durable: bool = True) -> None:
    """The file is created 0600 (:func:`tempfile.mkstemp`); a missing folder under
    ``.memory/local/`` is created 0700, like every folder there. Not ``durable``: not flushed
    to the disk before the rename (a cache that is rebuilt when a crash leaves it broken)."""
    if "/.memory/local" in path.parent.as_posix():
        from memcli.privacy import owner_only

        owner_only.make_folders(str(path.parent))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
