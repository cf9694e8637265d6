"""A Rich progress bar on stderr for work that takes more than about a second.

Installed by :func:`memcli.cli.app.run` only when stderr is an interactive terminal and the
command is not one a hook runs; nothing is drawn (and rich's progress module is not even
imported) before the work has lasted :data:`DELAY_SECONDS`.
"""

from __future__ import annotations

import time
from typing import Any

from memcli import progress

DELAY_SECONDS = 1.0
# Commands hooks and other programs run: their stderr is not a person's (and a terminal
# that happens to be attached must not get a bar in the middle of a hook's output).
QUIET_COMMANDS = frozenset(
    {"capture", "checkpoint", "index", "recall", "compact", "mcp", "merge-driver"}
)


class Bar:
    def __init__(self) -> None:
        self.started = time.monotonic()
        self.rich: Any = None
        self.tasks: dict[str, Any] = {}

    def __call__(self, label: str, done: int, total: int) -> None:
        if self.rich is None:
            if time.monotonic() - self.started < DELAY_SECONDS:
                return
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            self.rich = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self.rich.start()
        task = self.tasks.get(label)
        if task is None:
            task = self.tasks[label] = self.rich.add_task(label, total=total)
        self.rich.update(task, completed=done, total=total)

    def stop(self) -> None:
        if self.rich is not None:
            self.rich.stop()
            self.rich = None


def install(argv: list[str], stderr_is_terminal: bool) -> Bar | None:
    """A bar for this command, when a person is watching its stderr; else None."""
    command = next((a for a in argv if not a.startswith("-")), "")
    if not stderr_is_terminal or command in QUIET_COMMANDS:
        return None
    bar = Bar()
    progress.install(bar)
    return bar
