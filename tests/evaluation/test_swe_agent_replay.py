"""The quality benchmark's SWE-agent replay (the converter is memcli/compact/other_agents.py,
which `mem import --format swe-agent` uses too): a trajectory
becomes one Claude Code turn - the issue as the prompt, each step's thought as assistant text,
its action as a Bash call, its observation as the result - and only an obvious shell failure
counts as a failed call (a SWE-agent trajectory has no exit codes). Small inline trajectories:
the tests never need the benchmark's sessions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
EDIT = "edit 3:3\n    return sum(xs) / len(xs) if xs else 0\nend_of_edit"
PROMPT_TAIL = "\n(Open file: /repo/calc.py)\n(Current directory: /repo)\nbash-$"
TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/repo/reproduce.py", line 3, in <module>\n'
    "    print(total([]))\n"
    "ZeroDivisionError: division by zero"
)


@pytest.fixture()
def replay(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import quality_replay

    return quality_replay


def _swe_agent_traj() -> dict[str, Any]:
    instance = (
        "We're currently solving the following issue within our repository. "
        "Here's the issue text:\nISSUE:\ntotal() divides by zero on an empty list\n\n"
        "INSTRUCTIONS:\nNow, you're going to solve this issue on your own."
    )
    steps = [
        ("Let me reproduce it first.", "python reproduce.py", TRACEBACK + PROMPT_TAIL),
        ("The tests use pytest.", "pytestt tests", "bash: pytestt: command not found"),
        ("Guard the empty list.", EDIT,
         "[File: /repo/calc.py (5 lines total)]" + PROMPT_TAIL),
        ("Run the tests.", "pytest tests",
         "FAILED tests/test_calc.py::test_mean - assert 1 == 2\n1 failed, 3 passed" + PROMPT_TAIL),
        ("Done.", "submit", "diff --git a/calc.py b/calc.py"),
    ]  # fmt: skip
    return {
        "history": [
            {"role": "system", "content": "SETTING: You are an autonomous programmer."},
            {"role": "user", "content": "A demo ISSUE:\nold\n\nINSTRUCTIONS:", "is_demo": True},
            {"role": "user", "content": instance, "agent": "primary"},
        ],
        "trajectory": [
            {"thought": thought, "action": action, "observation": observation, "response": ""}
            for thought, action, observation in steps
        ],
        "info": {"exit_status": "submitted"},
    }


def test_a_swe_agent_trajectory_is_one_turn_of_bash_calls(replay: Any) -> None:
    records = replay.from_swe_agent(_swe_agent_traj())
    steps = replay.hook_steps(records, "s1", "/tmp/t.jsonl", "/repo")
    events = [step.event for step in steps]
    assert events.count("UserPromptSubmit") == 1
    assert events.count("Stop") == 1
    prompt = next(s.payload for s in steps if s.event == "UserPromptSubmit")
    assert prompt["prompt"] == "total() divides by zero on an empty list"
    calls = [s.payload for s in steps if s.event.startswith("PostToolUse")]
    assert [c["tool_name"] for c in calls] == ["Bash"] * 5
    assert calls[2]["tool_input"]["command"].startswith("edit 3:3\n")
    assert calls[4]["tool_input"]["command"] == "submit"
    stop = next(s.payload for s in steps if s.event == "Stop")
    assert stop["last_assistant_message"] == "Done."


def test_only_obvious_shell_failures_fail(replay: Any) -> None:
    records = replay.from_swe_agent(_swe_agent_traj())
    steps = replay.hook_steps(records, "s1", "/tmp/t.jsonl", "/repo")
    calls = [s.payload for s in steps if s.event.startswith("PostToolUse")]
    failed = {c["tool_input"]["command"]: c["error"] for c in calls if "error" in c}
    # A traceback ending the output (before SWE-agent's prompt lines), a missing command.
    assert set(failed) == {"python reproduce.py", "pytestt tests"}
    assert failed["python reproduce.py"].startswith("Exit code 1\nTraceback")
    assert failed["pytestt tests"].startswith("Exit code 127\n")
    # A failing test run prints no traceback at its end: a success, as nothing says otherwise.
    assert calls[3]["hook_event_name"] == "PostToolUse"


def test_mini_swe_agent_messages_use_their_return_codes(replay: Any) -> None:
    data = {
        "messages": [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": "<pr_description>\nConsider the following PR "
             "description:\nmean() fails on []\n</pr_description>\n<instructions>"},
            {"role": "assistant", "content": "THOUGHT: Run it.\n\n```bash\npython r.py\n```"},
            {"role": "user", "content": "<returncode>1</returncode>\n<output>\nboom\n</output>"},
            {"role": "assistant", "content": "THOUGHT: Two commands.\n"
             "```bash\na\n```\n```bash\nb\n```"},
            {"role": "user", "content": "Please always provide EXACTLY ONE action."},
            {"role": "assistant", "content": "THOUGHT: Look.\n```python\nx = 1\n```\n"
             "```bash\ngrep -n mean m.py\n```"},
            {"role": "user", "content": "<returncode>0</returncode>\n<output>\n3:mean\n</output>"},
        ],
        "trajectory_format": "mini-swe-agent-1",
    }  # fmt: skip
    records = replay.from_swe_agent(data)
    steps = replay.hook_steps(records, "s2", "/tmp/t.jsonl", "/repo")
    prompt = next(s.payload for s in steps if s.event == "UserPromptSubmit")
    assert prompt["prompt"] == "mean() fails on []"
    calls = [s.payload for s in steps if s.event.startswith("PostToolUse")]
    assert [c["tool_input"]["command"] for c in calls] == ["python r.py", "grep -n mean m.py"]
    assert [c["hook_event_name"] for c in calls] == ["PostToolUseFailure", "PostToolUse"]
    said = [b["text"] for r in records for b in r["message"]["content"] if isinstance(b, dict)
            and b.get("type") == "text"]  # fmt: skip
    assert said[0] == "Run it."
    assert "Two commands." not in " ".join(said)  # a rejected reply ran nothing
