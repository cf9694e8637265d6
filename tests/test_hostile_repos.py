"""Hostile repositories: what a stranger can commit under .memory/ never runs a command and
never hangs or exhausts a command (issue: trust, findings 1 and 2).

Every command runs as the installed console script in a subprocess, with a memory cap and a
timeout that only guards against a hang (it is not a speed assertion: the commands finish in a
fraction of it). Each must work or exit with a one-line error naming the file, never with a
traceback.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import git

MEM = shutil.which("mem", path=os.path.dirname(sys.executable)) or "mem"
HANG_GUARD_SECONDS = 60
MEMORY_CAP_BYTES = 1 << 30  # a bomb that expands shows as a MemoryError, not a dead machine

GOOD_ITEM = """\
id: good-item-0001
kind: pitfall
title: pytest needs the venv python, not the system one
body: Run tests with .venv/bin/pytest; the system pytest lacks the plugins.
tags: [pytest, venv]
scope:
  project: demo
importance: 0.5
confidence: assumed
created: '2026-01-01T00:00:00Z'
updated: '2026-01-01T00:00:00Z'
"""


def _alias_bomb() -> str:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        name, prev = chr(97 + i), chr(96 + i)
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP_BYTES, MEMORY_CAP_BYTES))


def environment(root: Path) -> dict[str, str]:
    """The user's environment: mem on PATH (as the installed hooks expect), the user config
    beside the repository."""
    env = {**os.environ, "MEM_CONFIG": str(root.parent / "user-config.yaml")}
    env["PATH"] = os.path.dirname(MEM) + os.pathsep + env.get("PATH", "")
    env.pop("MEM_DEBUG", None)
    return env


def mem(root: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = environment(root)
    return subprocess.run(
        [MEM, *args],
        cwd=root,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_SECONDS,
        env=env,
        preexec_fn=_cap_memory,
    )


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """A repository with mem initialised, one good item and its files committed."""
    root = tmp_path / "clone"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    assert mem(root, "init").returncode == 0
    (root / ".memory" / "items" / "good-item-0001.yaml").write_text(GOOD_ITEM)
    config = root / ".memory" / "config.yaml"
    config.write_text(re.sub(r"(?m)^  project: \S+$", "  project: demo", config.read_text(), 1))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "memory")
    return root


def _no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr, result.stderr
    assert "MemoryError" not in result.stderr, result.stderr


def _set_summarizer(root: Path, command: str) -> None:
    config = root / ".memory" / "config.yaml"
    config.write_text(config.read_text() + f"\ncompact:\n  summarizer: {json.dumps(command)}\n")


def _event(session: str, command: str, exit_code: int, stderr: str) -> str:
    return json.dumps(
        {
            "hook_event_name": "PostToolUse",
            "session_id": session,
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_response": {"stdout": "", "stderr": stderr, "exit_code": exit_code},
        }
    )


def test_a_committed_summarizer_never_runs_through_the_installed_hooks(clone: Path) -> None:
    marker = clone.parent / "PWNED"
    _set_summarizer(clone, f"sh -c 'touch {marker}'")
    assert mem(clone, "hooks", "install", "--agent", "claude-code").returncode == 0
    settings = json.loads((clone / ".claude" / "settings.json").read_text())
    hook_commands = {
        event: [h["command"] for group in groups for h in group["hooks"]]
        for event, groups in settings["hooks"].items()
    }
    [capture] = {c for c in hook_commands["PostToolUse"] if "capture" in c}
    [compact] = hook_commands["SessionEnd"]
    for event in (
        _event("s1", "pytest", 1, "E   ModuleNotFoundError: No module named 'yaml'"),
        _event("s1", "pip install pyyaml && pytest", 0, ""),
    ):
        hook = subprocess.run(
            capture, shell=True, cwd=clone, input=event, text=True, env=environment(clone)
        )
        assert hook.returncode == 0
    end = json.dumps({"hook_event_name": "SessionEnd", "session_id": "s1"})
    subprocess.run(
        compact, shell=True, cwd=clone, input=end, text=True, env=environment(clone), check=True
    )
    assert mem(clone, "compact").returncode == 0  # and once more in the foreground
    deadline = time.monotonic() + 5  # the detached compaction may still be finishing
    while time.monotonic() < deadline and not marker.exists():
        time.sleep(0.1)
    assert not marker.exists()


def test_lint_and_prune_check_flag_a_committed_command(clone: Path) -> None:
    _set_summarizer(clone, "sh -c 'echo hi'")
    for args in (("lint",), ("prune", "--check")):
        result = mem(clone, *args)
        assert result.returncode == 1, result
        assert ".memory/config.yaml:" in result.stdout
        assert "compact.summarizer" in result.stdout and "may not name a command" in result.stdout


def test_the_summarizer_runs_from_the_user_config(clone: Path) -> None:
    marker = clone.parent / "ran"
    script = clone.parent / "summarizer.sh"
    script.write_text(f"#!/bin/sh\ncat > /dev/null\ntouch {marker}\necho '{{\"items\": []}}'\n")
    script.chmod(0o755)
    (clone.parent / "user-config.yaml").write_text(f"compact:\n  summarizer: {script}\n")
    stdin = _event("s2", "make", 2, "make: *** No rule to make target 'all'.  Stop.")
    assert mem(clone, "capture", stdin=stdin).returncode == 0
    assert mem(clone, "compact").returncode == 0
    assert marker.exists()


def _bomb_item(root: Path) -> str:
    (root / ".memory" / "items" / "bomb-0001.yaml").write_text(_alias_bomb())
    return ".memory/items/bomb-0001.yaml"


def _bomb_config(root: Path) -> str:
    config = root / ".memory" / "config.yaml"
    config.write_text(config.read_text() + "\nx_bomb:\n" + _indent(_alias_bomb()))
    return ".memory/config.yaml"


def _indent(text: str) -> str:
    return "".join(f"  {line}\n" for line in text.splitlines())


def _zero_link(root: Path) -> str:
    (root / ".memory" / "items" / "zero-0001.yaml").symlink_to("/dev/zero")
    return ".memory/items/zero-0001.yaml"


def _outside_link(root: Path) -> str:
    outside = root.parent / "outside.yaml"
    outside.write_text(GOOD_ITEM.replace("good-item-0001", "link-item-0001"))
    (root / ".memory" / "items" / "link-item-0001.yaml").symlink_to(outside)
    return ".memory/items/link-item-0001.yaml"


def _huge_item(root: Path) -> str:
    body = "x" * 3_000_000
    (root / ".memory" / "items" / "huge-0001.yaml").write_text(
        GOOD_ITEM.replace("good-item-0001", "huge-0001").replace("body: Run", f"body: {body} Run")
    )
    return ".memory/items/huge-0001.yaml"


def _deep_item(root: Path) -> str:
    (root / ".memory" / "items" / "deep-0001.yaml").write_text(
        "id: deep-0001\ntags: " + "[" * 5000 + "]" * 5000 + "\n"
    )
    return ".memory/items/deep-0001.yaml"


def _fifo_item(root: Path) -> str:
    os.mkfifo(root / ".memory" / "items" / "fifo-0001.yaml")
    return ".memory/items/fifo-0001.yaml"


HOSTILE: dict[str, Callable[[Path], str]] = {
    "alias bomb item": _bomb_item,
    "alias bomb config": _bomb_config,
    "item linked to /dev/zero": _zero_link,
    "item linked out of the repository": _outside_link,
    "3 MB item": _huge_item,
    "deeply nested item": _deep_item,
    "fifo item": _fifo_item,
}

READING_COMMANDS = [
    ("lint",),
    ("list",),
    ("stats",),
    ("prune", "--check"),
    ("search", "pytest"),
    ("show", "good-item-0001"),
    ("reindex",),
    ("diff",),
]


@pytest.mark.parametrize("make", HOSTILE.values(), ids=list(HOSTILE))
def test_a_hostile_file_is_named_and_bounded_in_every_command(
    clone: Path, make: Callable[[Path], str]
) -> None:
    culprit = make(clone)
    for args in READING_COMMANDS:
        result = mem(clone, *args)
        _no_traceback(result)
        assert result.returncode in (0, 1, 2), (args, result)
        if result.returncode == 2:  # a usage error: exactly one line, naming the file
            assert result.stderr.count("\n") == 1 and culprit in result.stderr, (args, result)
        if args[0] == "lint":
            assert result.returncode == 1 and culprit in result.stdout, result
    if "config" not in culprit:  # a bad item never hides the good ones
        found = mem(clone, "search", "pytest", "--json")
        assert "good-item-0001" in found.stdout, found
        assert "link-item-0001" not in mem(clone, "list").stdout


@pytest.mark.parametrize("make", HOSTILE.values(), ids=list(HOSTILE))
def test_hook_commands_fail_open_on_a_hostile_file(
    clone: Path, make: Callable[[Path], str]
) -> None:
    make(clone)
    for args, stdin in (
        (("index", "--format", "claude"), json.dumps({"hook_event_name": "SessionStart"})),
        (("capture",), _event("s3", "pytest", 1, "E   AssertionError")),
        (("compact",), ""),
    ):
        result = mem(clone, *args, stdin=stdin)
        _no_traceback(result)
        assert result.returncode == 0, (args, result)
