"""The workflow candidate's parts (memcli/checkpoint/workflow.py): a command as the project's
way of running it, and what it does for the project."""

from __future__ import annotations

import pytest

from memcli.checkpoint import workflow


@pytest.mark.parametrize(
    ("command", "key"),
    [
        ("cd app && uv run pytest tests/a.py -x 2>&1 | tail", "uv run pytest"),
        ("npm run build && npm test", "npm run build && npm test"),
        ("python reproduce.py --n 3", "python reproduce.py"),
        ('python -c "print(1)"', ""),  # inline code changes every time
        ("FOO=1 python3 -m pytest -q tests", "python3 -m pytest"),
        ("git status && cargo test --release", "cargo test"),
    ],
)
def test_a_command_is_counted_by_the_projects_way_of_running_it(command: str, key: str) -> None:
    assert workflow.normalised(command) == key


@pytest.mark.parametrize(
    ("key", "check", "done"),
    [
        ("uv run pytest", True, "tested"),
        ("npm run lint", True, "linted or type-checked"),
        ("cargo build", True, "built"),
        ("npm run dev", False, "started"),
        ("python reproduce.py", False, "checked after a change"),
        # The program's own name is not what it does for the project (`watch` runs another).
        ("watch", False, "checked after a change"),
    ],
)
def test_what_a_workflow_does_for_the_project(key: str, check: bool, done: str) -> None:
    assert workflow.what(key, check) == done


def test_the_question_names_what_the_command_does() -> None:
    state: dict[str, object] = {"session": "s", "workflow": {"watch": {
        "runs": 3, "checked": 1, "passed": True, "check": False, "cmd": "watch"}}}  # fmt: skip
    workflow.turn_end(state)
    candidates = state["candidates"]
    assert isinstance(candidates, dict)
    (entry,) = candidates.values()
    assert "is it how this project is checked after a change?" in entry["lines"][0]
