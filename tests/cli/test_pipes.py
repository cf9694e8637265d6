"""A closed pipe ends a command quietly with exit 0, as `head` users expect.

Real processes: the installed `mem` console script writes into a pipe whose reading end is
already closed (every write fails with EPIPE), or into `head -1` through a shell.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memcli import api
from tests.conftest import git

MEM = str(Path(sys.executable).parent / "mem")


@pytest.fixture
def store(repo: Path) -> Path:
    memory = api.Memory.open(repo)
    for number in range(300):
        memory.add(
            "pitfall",
            f"Pipe test item {number}: the queue worker needs Redis on port {6000 + number}",
            "Start it with docker compose before the tests; otherwise the worker hangs.",
        )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "items")
    return repo


COMMANDS = [
    ["list"],
    ["list", "--json"],
    ["search", "redis"],
    ["search", "redis", "--json"],
    ["log"],
    ["stats"],
    ["diff", "HEAD~1..HEAD"],
]


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_a_closed_pipe_exits_0_without_a_message(store: Path, args: list[str]) -> None:
    process = subprocess.Popen(
        [MEM, *args], cwd=store, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # the reader is gone before mem writes its first byte
    error = process.stderr.read().decode()
    assert process.wait(timeout=120) == 0, error
    assert error == ""


@pytest.mark.skipif(shutil.which("head") is None, reason="needs head")
def test_mem_list_into_head_exits_0(store: Path) -> None:
    shell = f"set -o pipefail; '{MEM}' list | head -1"
    result = subprocess.run(
        ["bash", "-c", shell], cwd=store, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert len(result.stdout.splitlines()) == 1
