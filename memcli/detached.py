"""Start a Python process that outlives its caller: a hook that hands long work (finishing the
index, compacting a session) to the background and returns within its time limit."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from typing import Any


def spawn_python(code: str, args: Sequence[str], cwd: str | os.PathLike[str]) -> int:
    """Run ``python -c code *args`` in ``cwd``, detached from the caller's session, with no
    standard streams; returns its pid. The process logs its own failures."""
    options: dict[str, Any] = {"start_new_session": True}
    if sys.platform == "win32":  # pragma: no cover
        options = {"creationflags": 0x00000008 | 0x00000200}  # DETACHED, NEW_PROCESS_GROUP
    process = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        close_fds=True,
        **options,
    )
    return process.pid
