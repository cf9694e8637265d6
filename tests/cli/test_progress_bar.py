"""Progress bars: only for a person at a terminal, only for work that lasts, never in hooks."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from memcli import api, itemcache, progress
from memcli.cli import progress_bar


@pytest.fixture(autouse=True)
def no_display() -> Iterator[None]:
    yield
    progress.install(None)


@pytest.mark.parametrize("command", sorted(progress_bar.QUIET_COMMANDS))
def test_hook_commands_never_get_a_bar(command: str) -> None:
    assert progress_bar.install([command], stderr_is_terminal=True) is None


def test_no_bar_when_stderr_is_not_a_terminal() -> None:
    assert progress_bar.install(["lint"], stderr_is_terminal=False) is None
    progress.report("reading item files", 1, 2)  # nowhere to go: a no-op


def test_short_work_draws_nothing_and_long_work_draws_a_bar() -> None:
    bar = progress_bar.install(["reindex"], stderr_is_terminal=True)
    assert bar is not None
    progress.report("reading item files", 1, 10)
    assert bar.rich is None  # under a second: nothing drawn
    bar.started = time.monotonic() - 2 * progress_bar.DELAY_SECONDS
    progress.report("reading item files", 5, 10)
    assert bar.rich is not None
    (task,) = bar.rich.tasks
    assert (task.description, task.completed, task.total) == ("reading item files", 5, 10)
    bar.stop()
    assert bar.rich is None


def test_a_store_read_reports_its_progress(memory: api.Memory) -> None:
    for n in range(3):
        memory.add("pitfall", f"Item {n}", "Details.")
    seen: list[tuple[str, int, int]] = []
    progress.install(lambda label, done, total: seen.append((label, done, total)))
    itemcache.load(memory.paths)
    assert seen == [("reading item files", 0, 3)]
