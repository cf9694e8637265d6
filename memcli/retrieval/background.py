"""Finishing the index in the background, for a session start that ran out of time."""

from __future__ import annotations

from pathlib import Path

from memcli import detached
from memcli.paths import StorePaths


def spawn_detached(paths: StorePaths) -> int:
    """Finish the index in a background process that outlives the caller (a hook that ran
    out of time); returns its pid. Its failures go to ``local/mem.log``."""
    code = "from memcli.retrieval.background import detached_main; detached_main()"
    return detached.spawn_python(code, [], paths.root)


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
