"""The session's workflow and a slow run through the hooks `mem hooks install` writes for
Claude Code, each installed command a subprocess with real payloads: the Stop checkpoint asks
once, in Claude Code's JSON, whether the check run after each edit is how the project is
tested, and about the build that took minutes with its duration; the model records the
workflow, and compaction adds no convention of its own beside the model's item."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_checkpoint_hooks import Session

from memcli import api


@pytest.fixture
def session(repo: Path) -> Session:
    return Session(repo)


def _bash(command: str, stdout: str, **extra: Any) -> dict[str, Any]:
    return {"session_id": "abc123", "hook_event_name": "PostToolUse", "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False},
            **extra}  # fmt: skip


def _edit(path: str) -> dict[str, Any]:
    return {"session_id": "abc123", "hook_event_name": "PostToolUse", "tool_name": "Edit",
            "tool_input": {"file_path": path, "old_string": "x = 1", "new_string": "x = 2"},
            "tool_response": {"filePath": path}}  # fmt: skip


def test_the_workflow_and_a_slow_build_are_asked_about_once(session: Session) -> None:
    session.fire({"session_id": "abc123", "hook_event_name": "UserPromptSubmit",
                  "prompt": "add the bundle discount"})  # fmt: skip
    session.fire(_bash("make build", "built dist/shop", duration_ms=200_000))
    for name in ("discount", "bundle", "cart"):
        session.fire(_edit(f"src/shop/{name}.py"))
        session.fire(_bash(f"uv run pytest tests/test_{name}.py -q", "4 passed in 0.20s"))
    answer = json.loads(session.stop())
    assert answer["decision"] == "block"
    lines = [x for x in answer["reason"].splitlines() if x.startswith("- c")]
    (slow,) = [x for x in lines if "[env -> env]" in x]
    assert "`make build` took 3m 20s here" in slow
    (workflow,) = [x for x in lines if "[workflow -> convention]" in x]
    assert "`uv run pytest` was run 3 times in this session, 3 of them after edits" in workflow
    assert session.stop() == ""  # asked once
    candidate = workflow.split()[1]
    recorded = session.mem(
        "add", "--candidate", candidate, "--kind", "convention",
        "--title", "Run the tests with `uv run pytest`",
        "--body", "The project's tests run under uv; `uv run pytest tests/x.py -q` for one file.",
    )  # fmt: skip
    assert recorded.returncode == 0, recorded.stderr
    done = session.mem("compact", "--session", "abc123")
    assert done.returncode == 0, done.stderr
    memory = api.Memory.open(session.root)
    conventions = [i for i in memory.items() if i.kind == "convention"]
    assert [i.title for i in conventions] == ["Run the tests with `uv run pytest`"]
    assert conventions[0].source.get("author") == "model"
    [slow_item] = [i for i in memory.items() if i.kind == "env"]
    assert slow_item.title.startswith("`make build` takes 3m 20s here")
