"""Finishing the index in the background, for a session start that ran out of time."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from memcli.paths import StorePaths


def spawn_detached(paths: StorePaths) -> int:
    """Finish the index in a background process that outlives the caller (a hook that ran
    out of time); returns its pid. Its failures go to ``local/mem.log``."""
    code = "from memcli.retrieval.background import detached_main; detached_main()"
    options: dict[str, Any] = {"start_new_session": True}
    if sys.platform == "win32":  # pragma: no cover
        options = {"creationflags": 0x00000008 | 0x00000200}  # DETACHED, NEW_PROCESS_GROUP
    process = subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=paths.root,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        close_fds=True,
        **options,
    )
    return process.pid


def detached_main() -> int:
    """Entry point of :func:`spawn_detached`'s process: never raises, logs instead."""
    from memcli.retrieval import index_builder

    root = Path.cwd()
    try:
        index_builder.build(StorePaths(root))
    except Exception as exc:  # noqa: BLE001 - nobody is watching this process
        from memcli import memlog

        memlog.write(str(StorePaths(root).log), f"background index build failed: {exc}", "index")
        return 3
    return 0
