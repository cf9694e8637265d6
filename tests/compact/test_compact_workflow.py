"""Lessons shown by what commands did, not by a failure (`memcli/checkpoint/workflow.py`,
`memcli/compact/workflow.py`): a check the session ran after each edit is the project's
workflow, a command that took minutes or hit the timeout is slow here. Each session is a
sequence of Claude Code hook payloads through capture; the Stop checkpoint and compaction
read what capture wrote."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from compact_helpers import Capture, Writer, run_cmd

from memcli import api
from memcli.checkpoint import run
from memcli.compact import compact_session

_ids = itertools.count()


def _base(session: str) -> dict[str, Any]:
    return {"session_id": session, "cwd": ".", "transcript_path": "", "permission_mode": "default"}


def bash(command: str, stdout: str = "", session: str = "w1", **extra: Any) -> dict[str, Any]:
    return {**_base(session), "hook_event_name": "PostToolUse", "tool_name": "Bash",
            "tool_input": {"command": command}, "tool_use_id": f"toolu_{next(_ids)}",
            "tool_response": {"stdout": stdout, "stderr": "", "interrupted": False},
            **extra}  # fmt: skip


def failed(command: str, error: str, session: str = "w1") -> dict[str, Any]:
    return {**_base(session), "hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
            "tool_input": {"command": command}, "tool_use_id": f"toolu_{next(_ids)}",
            "error": error}  # fmt: skip


def edit(path: str, session: str = "w1") -> dict[str, Any]:
    return {**_base(session), "hook_event_name": "PostToolUse", "tool_name": "Edit",
            "tool_input": {"file_path": path, "old_string": "a = 1", "new_string": "a = 2"},
            "tool_use_id": f"toolu_{next(_ids)}", "tool_response": {"filePath": path}}  # fmt: skip


def prompt(text: str, session: str = "w1") -> dict[str, Any]:
    return {**_base(session), "hook_event_name": "UserPromptSubmit", "prompt": text}


def replay(capture: Capture, memory: api.Memory, payloads: list[dict[str, Any]]) -> str:
    """Capture the payloads, then run the Stop checkpoint; its request ("" when silent)."""
    capture([json.dumps(p).encode() for p in payloads])
    session = payloads[0]["session_id"]
    stop = {**_base(session), "hook_event_name": "Stop", "stop_hook_active": False,
            "last_assistant_message": "Done."}  # fmt: skip
    return run.checkpoint(stop, "claude-code", str(memory.paths.local)) or ""


def titles(memory: api.Memory, session: str = "w1") -> dict[str, api.Item]:
    compact_session(memory, session)
    return {i.title: i for i in memory.items()}


TESTS_PASS = "===== 4 passed in 0.31s ====="


def _checked_after_each_edit(session: str = "w1") -> list[dict[str, Any]]:
    return [
        prompt("make the discount apply to bundles too", session),
        edit("src/shop/discount.py", session),
        bash("cd /home/dev/shop && uv run pytest tests/test_discount.py -x 2>&1 | tail -20",
             TESTS_PASS, session),
        edit("src/shop/bundle.py", session),
        bash("uv run pytest tests/test_bundle.py -q", TESTS_PASS, session),
        edit("src/shop/bundle.py", session),
        bash("uv run pytest -q", "===== 31 passed in 2.10s =====", session),
    ]  # fmt: skip


def test_a_check_run_after_each_edit_is_asked_about_but_is_no_item_of_the_rules(
    memory: api.Memory, capture: Capture
) -> None:
    reason = replay(capture, memory, _checked_after_each_edit())
    assert "[workflow -> convention]" in reason
    assert "`uv run pytest` was run 3 times in this session, 3 of them after edits" in reason
    assert "how this project is tested" in reason
    # The model records it if it is worth telling a later session; the rules write nothing.
    assert not [i for i in titles(memory).values() if i.kind == "convention"]


def test_the_workflow_is_asked_about_once_per_session(memory: api.Memory, capture: Capture) -> None:
    assert "[workflow" in replay(capture, memory, _checked_after_each_edit())
    again = [edit("src/shop/cart.py"), bash("uv run pytest -q", TESTS_PASS)]
    assert "[workflow" not in replay(capture, memory, again)


def test_a_check_rerun_with_nothing_edited_is_asked_about_but_is_no_item(
    memory: api.Memory, capture: Capture
) -> None:
    asked = replay(capture, memory, [bash("make test", TESTS_PASS) for _ in range(3)])
    assert "`make test` was run 3 times in this session, and passed" in asked
    assert not [i for i in titles(memory).values() if i.kind == "convention"]


def test_a_check_still_failing_at_the_end_is_no_convention(
    memory: api.Memory, capture: Capture
) -> None:
    payloads = _checked_after_each_edit()[:-1]
    failure = "Exit code 1\nE   assert 3 == 4\n1 failed, 30 passed"
    payloads += [edit("src/shop/bundle.py"), failed("uv run pytest -q", failure)]
    assert "`uv run pytest` was run 3 times" in replay(capture, memory, payloads)  # it passed
    assert not [i for i in titles(memory).values() if i.kind == "convention"]


def test_a_reproduction_run_after_each_edit_is_a_question_only(
    memory: api.Memory, capture: Capture
) -> None:
    payloads = []
    for number in range(3):
        payloads += [edit("lib/parser.py"), bash("python reproduce_bug.py", f"result: {number}")]
    asked = replay(capture, memory, payloads)
    assert "`python reproduce_bug.py` was run 3 times" in asked
    assert "checked after a change" in asked
    assert not [i for i in titles(memory).values() if i.kind == "convention"]


def test_installs_and_git_are_no_workflow(memory: api.Memory, capture: Capture) -> None:
    payloads = []
    for name in ("a", "b", "c"):
        payloads += [edit(f"src/{name}.py"), bash(f"pip install {name}lib", "Successfully"),
                     bash(f"git commit -am {name}", "1 file changed"),
                     bash(f"npm run lint -- src/{name}.py", "0 problems")]  # fmt: skip
    asked = replay(capture, memory, payloads)
    workflows = [line for line in asked.splitlines() if "[workflow" in line]
    assert len(workflows) == 1 and "`npm run lint` was run 3 times" in workflows[0]
    assert "how this project is linted or type-checked" in workflows[0]


def test_a_build_taking_minutes_is_asked_about_and_is_an_env_fact(
    memory: api.Memory, capture: Capture
) -> None:
    payloads = [bash("cargo build --release", "Finished release", duration_ms=185_000)]
    asked = replay(capture, memory, payloads)
    assert "`cargo build --release` took 3m 05s here" in asked
    [item] = [i for i in titles(memory).values() if i.kind == "env"]
    assert item.title.startswith(
        "`cargo build --release` takes 3m 05s here: run it in the background"
    )


def test_a_minute_is_asked_about_but_makes_no_item(memory: api.Memory, capture: Capture) -> None:
    asked = replay(capture, memory, [bash("npm ci", "added 812 packages", duration_ms=75_000)])
    assert "`npm ci` took 1m 15s here" in asked
    assert titles(memory) == {}


def test_a_command_timeout_is_a_slow_run(memory: api.Memory, capture: Capture) -> None:
    payloads = [failed("npm run test:e2e", "Command timed out after 2m 0.0s")]
    asked = replay(capture, memory, payloads)
    assert "`npm run test:e2e` hit a timeout (Command timed out after 2m 0.0s)" in asked
    slow = [i for i in titles(memory).values() if "timeout" in i.title]
    assert [i.title for i in slow] == [
        "`npm run test:e2e` hits the command timeout here (Command timed out after 2m 0.0s): "
        "run it in the background or with a longer timeout"
    ]


def test_a_connection_timeout_is_no_slow_run(memory: api.Memory, capture: Capture) -> None:
    payloads = [failed("curl -sS https://api.example.com/health",
                       "curl: (28) Connection timed out after 30001 milliseconds"),
                failed("pytest tests/e2e", "Command timed out after 10m 0.0s")]  # fmt: skip
    asked = replay(capture, memory, payloads)
    slow = [line for line in asked.splitlines() if "hit a timeout" in line]
    assert len(slow) == 1 and "`pytest tests/e2e` hit a timeout" in slow[0]
    timeouts = [i.title for i in titles(memory).values() if "command timeout" in i.title]
    assert len(timeouts) == 1 and "pytest tests/e2e" in timeouts[0]


def test_a_call_sent_to_the_background_while_it_ran_is_asked_about(
    memory: api.Memory, capture: Capture
) -> None:
    backgrounded = "b5798f9"
    moved = bash("claude -p '/share:publish' 2>&1", "")
    moved["tool_input"]["timeout"] = 60_000
    moved["tool_response"]["backgroundTaskId"] = backgrounded
    started = bash("npm run dev", "")
    started["tool_input"]["run_in_background"] = True
    started["tool_response"]["backgroundTaskId"] = "b0000001"
    asked = replay(capture, memory, [started, moved])
    slow = [line for line in asked.splitlines() if "sent to the background" in line]
    assert len(slow) == 1
    said = "`claude -p '/share:publish' 2>&1` was sent to the background while it ran, past its "
    assert said + "60s timeout" in slow[0]
    assert not [i for i in titles(memory).values() if i.kind == "env"]  # the model knows why


@pytest.mark.parametrize(
    "secs", [float("inf"), float("nan"), 10**400], ids=["inf", "nan", "10**400"]
)
def test_a_duration_no_clock_gives_breaks_neither_the_checkpoint_nor_compaction(
    memory: api.Memory, write_buffer: Writer, secs: float
) -> None:
    """A buffer is local and untrusted (an older capture, a hand edit): an infinite, undefined
    or unrepresentable `secs` is no duration. A crash here would come back at every later Stop
    and compaction of the session, which read the same line again."""
    slow = run_cmd("make build", "built dist/shop", True, session="w9")
    write_buffer([{**slow, "secs": secs}, run_cmd("make lint", "ok", True, session="w9")])
    stop = {**_base("w9"), "hook_event_name": "Stop", "stop_hook_active": False,
            "last_assistant_message": "Done."}  # fmt: skip
    asked = run.checkpoint(stop, "claude-code", str(memory.paths.local)) or ""
    assert "make build" not in asked
    assert compact_session(memory, "w9").consumed == 2
    assert list(memory.items()) == []
