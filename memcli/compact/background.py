"""The background compaction process: what :func:`memcli.compact.run.spawn_detached` starts.

Its own module, at the top of the library: it opens the store through :class:`memcli.api.Memory`,
which itself uses the compaction package, so nothing in the package imports this module.
"""

from __future__ import annotations

from pathlib import Path

from memcli.api import Memory
from memcli.compact import buffers
from memcli.compact.run import compact_all, compact_session
from memcli.paths import StorePaths


def main(argv: list[str]) -> int:
    """Entry point of :func:`memcli.compact.run.spawn_detached`'s process: never raises, logs
    instead. ``argv``: the repository root, then session names or ``--all``."""
    if not argv:
        return 2
    root = Path(argv[0])
    try:
        memory = Memory.open(root)
        if argv[1:] == ["--all"]:
            compact_all(memory)
        else:
            for name in argv[1:]:
                compact_session(memory, name)
    except Exception as exc:  # noqa: BLE001 - nobody is watching this process
        buffers.log(StorePaths(root), f"detached compaction failed: {type(exc).__name__}: {exc}")
        return 3
    return 0
