"""A SWE-agent-like trajectory (tests/fixtures/swe-agent/, synthetic) driven through the hooks
`mem hooks install` writes for Claude Code: each action a `Bash` call, each thought an
assistant text of the growing transcript. The reproduction prints 344, a source edit, it
prints 345: the checkpoint offers the fix (before and after) and the workaround (`python` ->
`python3`); compaction makes the pitfall titled by the cause the thought stated; a second
compaction and a second Stop add nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_checkpoint_hooks import HookedTranscript, Session

from memcli import api

TRAJECTORY = (
    Path(__file__).resolve().parent.parent / "fixtures" / "swe-agent" / "money-rounding.traj"
)
SESSION = "swe-money-1"
FINAL = "I changed `to_cents` in shop/money.py to round before converting to an integer."


class Trajectory(HookedTranscript):
    """Plays a ``.traj`` file as Claude Code would have recorded and hooked it."""

    def step(self, thought: str, action: str, observation: str, exit_code: int = 0) -> None:
        self.calls += 1
        call = f"toolu_{self.calls:03d}"
        used = {"type": "tool_use", "id": call, "name": "Bash", "input": {"command": action}}
        self.append({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "text", "text": thought}, used]}})  # fmt: skip
        payload = {**self.base("PostToolUse"), "tool_name": "Bash",
                   "tool_input": {"command": action}, "tool_use_id": call}  # fmt: skip
        if exit_code:
            payload.update(hook_event_name="PostToolUseFailure",
                           error=f"Exit code {exit_code}\n{observation}")  # fmt: skip
        else:
            payload["tool_response"] = {"stdout": observation, "stderr": "",
                                        "interrupted": False, "isImage": False}  # fmt: skip
        self.session.fire(payload)
        self.append({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call, "content": observation,
             "is_error": bool(exit_code)}]}})  # fmt: skip


@pytest.fixture
def played(repo: Path, tmp_path: Path) -> tuple[Session, Trajectory, str]:
    session = Session(repo)
    trajectory = Trajectory(session, tmp_path / f"{SESSION}.jsonl", SESSION)
    prompt = "to_cents(3.45) returns 344 instead of 345. Fix it."
    trajectory.append({"type": "user", "message": {"role": "user", "content": prompt}})
    session.fire({**trajectory.base("UserPromptSubmit"), "prompt": prompt})
    steps = json.loads(TRAJECTORY.read_text(encoding="utf-8"))["trajectory"]
    for step in steps:
        trajectory.step(step["thought"], step["action"], step["observation"],
                        step.get("exit_code", 0))  # fmt: skip
    return session, trajectory, trajectory.stop(FINAL)


def test_the_checkpoint_offers_the_output_fix_and_the_workaround(
    played: tuple[Session, Trajectory, str],
) -> None:
    session, trajectory, out = played
    reason = json.loads(out)["reason"]
    lines = [x for x in reason.splitlines() if x.startswith("- c")]
    (fix,) = [x for x in lines if "printed: 344" in x]
    assert "[fix -> pitfall]" in fix and "money.py: 345" in fix
    (instead,) = [x for x in lines if "did the same job" in x]
    assert "python: command not found" in instead and "`python3 reproduce.py`" in instead
    # SWE-agent's looks around are never candidates.
    assert not [x for x in lines if "search_dir" in x or "`open " in x or "submit" in x]
    assert trajectory.stop("Done.") == ""


def test_compaction_makes_the_pitfall_and_a_replay_adds_nothing(
    played: tuple[Session, Trajectory, str],
) -> None:
    session, _trajectory, _out = played
    assert session.mem("compact").returncode == 0
    memory = api.Memory.open(session.root)
    items = {i.title: i for i in memory.items()}
    (pitfall,) = [i for t, i in items.items() if t.startswith("The issue is that `to_cents`")]
    assert pitfall.kind == "pitfall"
    assert "Before: `python3 reproduce.py` printed: 344" in pitfall.body
    assert "After: 345" in pitfall.body and "money.py" in pitfall.body
    (workaround,) = [i for t, i in items.items() if t.startswith("Use `python3 reproduce.py`")]
    assert workaround.kind == "env" and "python: command not found" in workaround.title
    assert not [t for t in items if "successfully removed" in t or "Let me" in t]
    assert len(items) == 2, sorted(items)
    before = sorted((i.id, i.title, i.updated) for i in memory.items())
    assert session.mem("compact").returncode == 0
    assert sorted((i.id, i.title, i.updated) for i in memory.items()) == before
    assert memory.lint() == []


def test_swe_agent_file_tool_is_no_check_and_no_warning(repo: Path, tmp_path: Path) -> None:
    """SWE-agent 1.x's `str_replace_editor` views and edits files: run again and again, it is
    not how the project is checked; a viewed file that mentions a warning warns of nothing."""
    session = Session(repo)
    trajectory = Trajectory(session, tmp_path / "swe-tool-1.jsonl", "swe-tool-1")
    prompt = "to_cents(3.45) returns 344 instead of 345. Fix it."
    trajectory.append({"type": "user", "message": {"role": "user", "content": prompt}})
    session.fire({**trajectory.base("UserPromptSubmit"), "prompt": prompt})
    viewed = (
        "Here's the result of running `cat -n` on /repo/shop/money.py:\n"
        "     1\timport warnings\n"
        '     2\twarnings.warn("DeprecationWarning: to_cents is deprecated")\n'
        "     3\tdef to_cents(x):\n     4\t    return int(x * 100)\n"
    )
    failing = (
        'Traceback (most recent call last):\n  File "/repo/reproduce.py", line 3, in <module>\n'
        "    assert to_cents(3.45) == 345\nAssertionError: to_cents(3.45) gave 344"
    )
    trajectory.step("Reproduce first.", "python3 reproduce.py", failing, exit_code=1)
    for _ in range(4):
        trajectory.step("Let me look at the file.", "str_replace_editor view /repo/shop/money.py",
                        viewed)  # fmt: skip
    trajectory.step("Round first.", "str_replace_editor str_replace /repo/shop/money.py "
                    "--old_str 'int(x * 100)' --new_str 'int(round(x * 100))'",
                    "The file /repo/shop/money.py has been edited.")  # fmt: skip
    trajectory.step("Check.", "python3 reproduce.py", "345")
    out = trajectory.stop("I made `to_cents` round before converting to an integer.")
    lines = (
        [x for x in json.loads(out)["reason"].splitlines() if x.startswith("- c")] if out else []
    )
    assert not [x for x in lines if "str_replace_editor" in x], lines
    assert session.mem("compact").returncode == 0
    items = api.Memory.open(session.root).items()
    assert not [i.title for i in items if "str_replace_editor" in i.title], items
    # the fix shows what the editor replaced, as an editing tool's one-line edit does
    (fix,) = [i for i in items if "AssertionError" in i.body]
    assert "`int(x * 100)` -> `int(round(x * 100))`" in fix.body
