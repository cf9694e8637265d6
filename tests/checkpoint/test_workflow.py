"""The workflow candidate's parts (memcli/checkpoint/workflow.py): a command as the project's
way of running it, and what it does for the project."""

from __future__ import annotations

import pytest

from memcli.checkpoint import workflow
from memcli.checkpoint.commands import command_key


@pytest.mark.parametrize(
    ("command", "key"),
    [
        ("cd app && uv run pytest tests/a.py -x 2>&1 | tail", "uv run pytest"),
        ("npm run build && npm test", "npm run build && npm test"),
        ("python reproduce.py --n 3", "python reproduce.py"),
        ('python -c "print(1)"', ""),  # inline code changes every time
        ("FOO=1 python3 -m pytest -q tests", "python3 -m pytest"),
        ("git status && cargo test --release", "cargo test"),
        # a comment line above the command never ran (it made `#` the program)
        ("# run the smoke test\npython reproduce.py --n 3", "python reproduce.py"),
        ("# build first\nnpm run build && npm test", "npm run build && npm test"),
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


@pytest.mark.parametrize(
    ("command", "key"),
    [
        ("# run the smoke test\npython scripts/smoke.py --steps 5", ("python", False)),
        ("  # check it\n# twice\npytest -x", ("pytest", True)),
        ("pytest -x  # the slow ones", ("pytest", True)),
        ("echo '#1' && make test", ("make test", True)),
    ],
)
def test_a_comment_line_is_never_the_command(command: str, key: tuple[str, bool]) -> None:
    assert command_key(command) == key
