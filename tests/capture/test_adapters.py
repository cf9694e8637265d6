"""Adapters of `mem capture`: every assistant's hook payload becomes one neutral event."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memcli.capture import adapters, tools
from memcli.capture.adapters import (
    AGENTS,
    EVENT_KEYS,
    KINDS,
    detect,
    is_noise,
    text_event,
    to_event,
)
from memcli.observed.filters import FENCE_CLOSE, FENCE_OPEN

SESSION = Path(__file__).parent.parent / "fixtures" / "claude-code" / "session.jsonl"
CLAUDE: dict[str, object] = {
    "session_id": "abc123",
    "transcript_path": "/home/dev/.claude/projects/-home-dev-shop/abc123.jsonl",
    "cwd": "/home/dev/shop",
}


def session_payloads() -> list[dict[str, object]]:
    return [json.loads(line) for line in SESSION.read_text().splitlines() if line.strip()]


def event(payload: dict[str, object], agent: str | None = None) -> dict[str, object]:
    result = to_event(payload, agent if agent is not None else detect(payload))
    assert result is not None
    check_shape(result)
    return result


def check_shape(ev: dict[str, object]) -> None:
    assert tuple(ev) == EVENT_KEYS
    assert isinstance(ev["agent"], str)
    assert ev["session"] is None or isinstance(ev["session"], str)
    assert isinstance(ev["event"], str)
    assert ev["tool"] is None or isinstance(ev["tool"], str)
    assert ev["kind"] in KINDS
    summary = ev["summary"]
    assert isinstance(summary, str) and len(summary) <= 200 and "\n" not in summary
    assert ev["ok"] in (True, False, None)
    assert ev["exit_code"] is None or type(ev["exit_code"]) is int
    files = ev["files"]
    assert isinstance(files, list) and all(isinstance(f, str) for f in files)
    assert isinstance(ev["text"], str)
    assert ev["cwd"] is None or isinstance(ev["cwd"], str)
    hashes = ev["hashes"]
    assert isinstance(hashes, dict)
    assert all(isinstance(k, str) and len(v) == 64 for k, v in hashes.items())
    assert isinstance(ev["input"], str) and len(ev["input"]) <= 200


# the recorded Claude Code session


def test_recorded_session_events() -> None:
    events = [to_event(p, detect(p)) for p in session_payloads()]
    assert [detect(p) for p in session_payloads()] == ["claude-code"] * 9
    summaries = [e["summary"] if e else None for e in events]
    assert summaries == [
        "session start (startup)",
        "prompt: The order tests fail since yesterday, find out why",
        None,  # PreToolUse: the PostToolUse has it all
        "$ pytest tests/test_orders.py -x -> failed (1 failed in 0.41s)",
        "read .env",
        "edit tests/conftest.py",
        "$ pytest tests/test_orders.py -x -> ok (12 passed in 1.02s)",
        "conclusion: The tests hard-coded port 5433 in tests/conftest.py while the local "
        "Postgres listens on 5432 (DB_PORT in .env). conftest now reads DB_PORT; all 12 order "
        "tests pass.",
        "session end (prompt_input_exit)",
    ]
    kinds = [e["kind"] if e else None for e in events]
    assert kinds == [
        "session", "prompt", None, "error", "read", "edit", "command", "conclusion", "session",
    ]  # fmt: skip
    for e in events:
        if e is not None:
            check_shape(e)
            assert e["session"] == "abc123" and e["cwd"] == "/home/dev/shop"


def test_recorded_session_failing_then_passing_run() -> None:
    runs = [p for p in session_payloads() if p["hook_event_name"] == "PostToolUse"]
    failing, passing = (event(p) for p in runs if p["tool_name"] == "Bash")
    assert failing["ok"] is False and failing["tool"] == "Bash"
    assert failing["input"] == "pytest tests/test_orders.py -x"
    assert "port 5433 failed: Connection refused" in str(failing["text"])
    assert passing["ok"] is True and passing["kind"] == "command"


def test_recorded_session_never_keeps_file_contents() -> None:
    payloads = session_payloads()
    read = event(payloads[4])
    dump = json.dumps([to_event(p, "claude-code") for p in payloads])
    assert "s3cr3t-Passw0rd" not in dump and "sk_live" not in dump
    assert 'int(os.environ.get(\\"DB_PORT\\"' not in dump  # the edit's new_string
    content = payloads[4]["tool_response"]["file"]["content"]  # type: ignore[index]
    assert read["files"] == [".env"] and read["text"] == ""
    assert read["hashes"] == {".env": hashlib.sha256(content.encode()).hexdigest()}
    edit = event(payloads[5])
    assert edit["files"] == ["tests/conftest.py"]
    assert edit["text"] == "replaced 1 line with 1 line"


# Claude Code edge cases


def bash(response: object, event_name: str = "PostToolUse", **extra: object) -> dict[str, object]:
    payload: dict[str, object] = {**CLAUDE, "hook_event_name": event_name, "tool_name": "Bash"}
    payload["tool_input"] = {"command": "make build"}
    payload["tool_response"] = response
    return {**payload, **extra}


def test_exit_code_fields_decide() -> None:
    assert (
        event(bash({"stdout": "", "exit_code": 2}))["summary"] == "$ make build -> failed (exit 2)"
    )
    ok = event(bash({"stdout": "grep found: error: x", "returncode": 0}))
    assert ok["ok"] is True and ok["exit_code"] == 0 and ok["summary"] == "$ make build -> ok"


def test_interrupted_command_is_neither_ok_nor_failed() -> None:
    ev = event(bash({"stdout": "partial", "stderr": "", "interrupted": True}))
    assert ev["ok"] is None and ev["kind"] == "command"
    assert ev["summary"] == "$ make build -> interrupted"


def test_failure_inferred_from_output() -> None:
    for output in (
        "bash: mak: command not found",
        "Traceback (most recent call last):\n  File \"x.py\", line 1\nKeyError: 'a'",
        "src/a.c:3:5: error: expected ';'",
        "ERROR: Could not find a version that satisfies the requirement foo",
    ):
        ev = event(bash({"stdout": "", "stderr": output}))
        assert (ev["ok"], ev["kind"]) == (False, "error"), output
    assert (
        event(bash({"stdout": "Traceback (most recent call last):\n  x\nKeyError: 'a'"}))["summary"]
        == "$ make build -> failed (KeyError: 'a')"
    )


def test_post_tool_use_failure() -> None:
    ev = event(bash(None, "PostToolUseFailure", error="Exit code 1\nmake: *** No rule to make"))
    assert (ev["kind"], ev["ok"], ev["exit_code"]) == ("error", False, 1)
    assert "No rule to make" in str(ev["text"])
    edit: dict[str, object] = {
        **CLAUDE,
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Edit",
        "tool_input": {"file_path": "/home/dev/shop/a.py", "old_string": "x", "new_string": "y"},
        "error": "String to replace not found in file.",
    }
    ev = event(edit)
    assert (ev["kind"], ev["ok"], ev["files"]) == ("error", False, ["a.py"])
    assert ev["summary"] == "edit a.py -> failed (String to replace not found in file.)"
    assert ev["hashes"] == {}


def test_a_call_cancelled_with_its_failed_sibling_never_ran() -> None:
    cancelled = "<tool_use_error>Sibling tool call errored</tool_use_error>"
    assert to_event(bash(None, "PostToolUseFailure", error=cancelled), "claude-code") is None
    assert to_event(bash({"stdout": "", "stderr": cancelled}), "claude-code") is None
    assert (
        event(bash(None, "PostToolUseFailure", error="Exit code 1\nmake: *** No rule"))["ok"]
        is False
    )


def test_failed_file_tool_never_keeps_the_file_in_its_text() -> None:
    write: dict[str, object] = {
        **CLAUDE,
        "hook_event_name": "PostToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": "/home/dev/shop/.env", "content": "KEY=sk_live_1"},
        "tool_response": {"type": "create", "content": "KEY=sk_live_1", "success": False},
    }
    ev = event(write)
    assert (ev["kind"], ev["ok"]) == ("error", False)
    assert "sk_live" not in json.dumps(ev)


def test_is_error_and_interrupt_flags() -> None:
    grep: dict[str, object] = {**CLAUDE, "hook_event_name": "PostToolUse", "tool_name": "Grep"}
    ev = event({**grep, "tool_input": {"pattern": "PORT"}, "tool_response": "a.py:1:PORT = 1"})
    assert (ev["kind"], ev["ok"], ev["summary"], ev["input"]) == (
        "other",
        True,
        "Grep PORT",
        "PORT",
    )
    assert ev["text"] == "a.py:1:PORT = 1"
    failed = {**grep, "tool_input": {"pattern": "("}, "tool_response": {"is_error": True}}
    assert event(failed)["kind"] == "error"
    stopped = bash(None, "PostToolUseFailure", error="interrupted", is_interrupt=True)
    assert event(stopped)["ok"] is None


def test_prompt_private_spans_and_fences_are_dropped() -> None:
    prompt = f"use <private>hunter2</private>port 5432 {FENCE_OPEN}\nold memory\n{FENCE_CLOSE}"
    ev = event({**CLAUDE, "hook_event_name": "UserPromptSubmit", "prompt": prompt})
    assert "hunter2" not in json.dumps(ev) and "old memory" not in json.dumps(ev)
    assert ev["summary"] == "prompt: use port 5432"


def test_empty_prompt_and_stop_without_message_are_skipped() -> None:
    assert to_event({**CLAUDE, "hook_event_name": "UserPromptSubmit", "prompt": " "}, "") is None
    assert to_event({**CLAUDE, "hook_event_name": "Stop", "stop_hook_active": False}, "") is None
    assert to_event({**CLAUDE, "hook_event_name": "Notification", "message": "hi"}, "") is None


def test_pre_compact_and_subagent_stop() -> None:
    ev = event({**CLAUDE, "hook_event_name": "PreCompact", "trigger": "auto"})
    assert (ev["kind"], ev["summary"]) == ("session", "compact (auto)")
    sub = event({**CLAUDE, "hook_event_name": "SubagentStop", "last_assistant_message": "done"})
    assert (sub["kind"], sub["summary"]) == ("other", "subagent: done")


def test_long_command_summary_is_bounded() -> None:
    payload = bash({"stdout": "ok"})
    payload["tool_input"] = {"command": "echo " + "x" * 5000}
    ev = event(payload)
    assert len(str(ev["summary"])) <= 200 and str(ev["summary"]).endswith("-> ok")
    assert len(str(ev["input"])) == 200


def test_write_hashes_content_and_edit_hashes_file_on_disk(tmp_path: Path) -> None:
    target = tmp_path / "src" / "app.py"
    target.parent.mkdir()
    target.write_text("PORT = 5432\n")
    base: dict[str, object] = {**CLAUDE, "cwd": str(tmp_path), "hook_event_name": "PostToolUse"}
    write: dict[str, object] = {
        **base,
        "tool_name": "Write",
        "tool_input": {"file_path": str(target), "content": "PORT = 5432\n"},
    }
    ev = event(write)
    digest = hashlib.sha256(b"PORT = 5432\n").hexdigest()
    assert ev["hashes"] == {"src/app.py": digest} and ev["summary"] == "write src/app.py"
    assert ev["text"] == "wrote 2 lines"  # a trailing newline counts as starting a line
    edit: dict[str, object] = {
        **base,
        "tool_name": "MultiEdit",
        "tool_input": {"file_path": "src/app.py", "edits": [{"old_string": "a"}] * 3},
    }
    ev = event(edit)
    assert ev["hashes"] == {"src/app.py": digest} and ev["text"] == "3 edits"


def test_partial_read_is_not_hashed_from_its_content(tmp_path: Path) -> None:
    partial = {"content": "line 5\n", "numLines": 1, "startLine": 5, "totalLines": 9}
    read: dict[str, object] = {
        **CLAUDE,
        "cwd": str(tmp_path),
        "hook_event_name": "PostToolUse",
        "tool_name": "Read",
        "tool_input": {"file_path": "/elsewhere/notes.txt"},
        "tool_response": {"type": "text", "file": partial},
    }
    ev = event(read)
    assert ev["files"] == ["/elsewhere/notes.txt"] and ev["hashes"] == {}


def test_sha256_matches_hashlib_for_small_and_large_data() -> None:
    for data in (b"", b"PORT = 5432\n", b"x" * (1 << 19)):
        assert tools._sha256(data) == hashlib.sha256(data).hexdigest()


# Codex


CODEX: dict[str, object] = {
    "session_id": "0199-codex",
    "transcript_path": "/home/dev/.codex/sessions/2025/06/01/rollout-0199.jsonl",
    "cwd": "/repo",
    "model": "gpt-5-codex",
    "turn_id": "t1",
}


def test_codex_bash_with_exit_code_framing() -> None:
    payload: dict[str, object] = {
        **CODEX,
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": ["bash", "-lc", "cargo test"]},
        "tool_response": "Exit code: 101\nWall time: 2.1 seconds\nOutput:\n"
        "test tests::adds ... FAILED\ntest result: FAILED. 0 passed; 1 failed",
    }
    assert detect(payload) == "codex"
    ev = event(payload)
    assert (ev["agent"], ev["kind"], ev["ok"], ev["exit_code"]) == ("codex", "error", False, 101)
    assert ev["input"] == "cargo test"
    assert ev["text"] == "test tests::adds ... FAILED\ntest result: FAILED. 0 passed; 1 failed"


def test_a_shell_calls_duration_is_read_where_the_assistant_gives_it() -> None:
    codex: dict[str, object] = {
        **CODEX, "hook_event_name": "PostToolUse", "tool_name": "Bash",
        "tool_input": {"command": ["bash", "-lc", "cargo build --release"]},
        "tool_response": "Exit code: 0\nWall time: 184.6 seconds\nOutput:\nFinished release",
    }  # fmt: skip
    assert event(codex)["secs"] == 184.6
    claude: dict[str, object] = {
        "session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "Bash",
        "tool_input": {"command": "npm test"}, "duration_ms": 2140,
        "tool_response": {"stdout": "ok", "stderr": "", "interrupted": False},
    }  # fmt: skip
    assert event(claude)["secs"] == 2.1
    assert event({**claude, "duration_ms": "2140"})["secs"] is None  # not a number: not known


@pytest.mark.parametrize("given", [float("inf"), float("nan"), 1e300, -1.0])
def test_a_duration_no_clock_gives_is_not_recorded(given: float) -> None:
    """An infinite, undefined, absurd or negative duration (``1e999`` in a payload's JSON is
    infinite) is no duration: the readers of ``secs`` would otherwise have to survive it."""
    claude: dict[str, object] = {
        "session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "Bash",
        "tool_input": {"command": "npm test"}, "duration_ms": given,
        "tool_response": {"stdout": "ok", "stderr": "", "interrupted": False},
    }  # fmt: skip
    assert event(claude)["secs"] is None


def test_codex_apply_patch_lists_files_not_content() -> None:
    patch = (
        "*** Begin Patch\n*** Update File: src/app.py\n@@\n-PORT = 5433\n+PORT = 5432\n"
        "*** Add File: docs/port.md\n+The port is 5432\n*** End Patch"
    )
    payload: dict[str, object] = {
        **CODEX,
        "hook_event_name": "PostToolUse",
        "tool_name": "apply_patch",
        "tool_input": {"command": patch},
        "tool_response": "Success. Updated the following files:\nM src/app.py\nA docs/port.md",
    }
    ev = event(payload)
    assert ev["kind"] == "edit" and ev["files"] == ["src/app.py", "docs/port.md"]
    assert ev["text"] == "patch: update src/app.py, add docs/port.md"
    assert "5432" not in json.dumps(ev)


def test_codex_detected_without_transcript_by_turn_id() -> None:
    payload: dict[str, object] = {
        "session_id": "s",
        "cwd": "/r",
        "hook_event_name": "Stop",
        "turn_id": "t9",
    }
    assert detect(payload) == "codex"


# Gemini


GEMINI: dict[str, object] = {
    "session_id": "g-1",
    "transcript_path": "/home/dev/.gemini/tmp/abc/chats/session-1.json",
    "cwd": "/work/app",
    "timestamp": "2025-06-01T10:00:00Z",
}


def test_gemini_prompt_conclusion_and_compress() -> None:
    prompt = event({**GEMINI, "hook_event_name": "BeforeAgent", "prompt": "why does CI fail?"})
    assert (prompt["agent"], prompt["kind"]) == ("gemini", "prompt")
    done: dict[str, object] = {
        **GEMINI,
        "hook_event_name": "AfterAgent",
        "prompt": "why?",
        "prompt_response": "X",
    }
    assert event(done)["summary"] == "conclusion: X"
    compress = event({**GEMINI, "hook_event_name": "PreCompress", "trigger": "manual"})
    assert compress["summary"] == "compact (manual)"
    assert to_event({**GEMINI, "hook_event_name": "BeforeTool", "tool_name": "x"}, "gemini") is None


def test_gemini_shell_output_framing() -> None:
    llm = (
        "Command: npm test\nDirectory: (root)\nOutput: FAIL src/sum.test.js\n  sums\n"
        "Error: (none)\nExit Code: 1\nSignal: (none)\nBackground PIDs: (none)\n"
        "Process Group PGID: 4242"
    )
    payload: dict[str, object] = {
        **GEMINI,
        "hook_event_name": "AfterTool",
        "tool_name": "run_shell_command",
        "tool_input": {"command": "npm test", "description": "run tests"},
        "tool_response": {"llmContent": llm, "returnDisplay": "FAIL", "error": None},
    }
    ev = event(payload)
    assert (ev["kind"], ev["ok"], ev["exit_code"]) == ("error", False, 1)
    assert ev["text"] == "FAIL src/sum.test.js\n  sums"


def test_gemini_write_file_and_tool_error() -> None:
    write: dict[str, object] = {
        **GEMINI,
        "hook_event_name": "AfterTool",
        "tool_name": "write_file",
        "tool_input": {"file_path": "/work/app/README.md", "content": "# app\n"},
        "tool_response": {"llmContent": "Successfully wrote", "error": None},
    }
    ev = event(write)
    assert ev["files"] == ["README.md"] and ev["kind"] == "edit"
    assert ev["hashes"] == {"README.md": hashlib.sha256(b"# app\n").hexdigest()}
    bad: dict[str, object] = {
        **write,
        "tool_name": "replace",
        "tool_response": {"llmContent": "", "error": {"message": "0 occurrences found"}},
    }
    ev = event(bad)
    assert (
        ev["kind"] == "error" and ev["summary"] == "edit README.md -> failed (0 occurrences found)"
    )


# Cursor


CURSOR: dict[str, object] = {
    "conversation_id": "c-1",
    "generation_id": "g-1",
    "workspace_roots": ["/repo"],
    "cursor_version": "1.7.0",
}


def test_cursor_events() -> None:
    prompt: dict[str, object] = {
        **CURSOR,
        "hook_event_name": "beforeSubmitPrompt",
        "prompt": "fix the build",
    }
    assert detect(prompt) == "cursor"
    ev = event(prompt)
    assert (ev["session"], ev["cwd"], ev["kind"]) == ("c-1", "/repo", "prompt")
    shell: dict[str, object] = {
        **CURSOR,
        "hook_event_name": "afterShellExecution",
        "command": "cargo build",
        "output": "error[E0308]: mismatched types\n --> src/lib.rs:3:5",
    }
    ev = event(shell)
    assert (ev["kind"], ev["ok"], ev["tool"], ev["input"]) == (
        "error",
        False,
        "shell",
        "cargo build",
    )
    assert ev["summary"] == "$ cargo build -> failed (error[E0308]: mismatched types)"


def test_cursor_file_edit_and_read() -> None:
    edit: dict[str, object] = {
        **CURSOR,
        "hook_event_name": "afterFileEdit",
        "file_path": "/repo/src/lib.rs",
        "edits": [{"old_string": "let x = 1;", "new_string": "let secret_value = 2;"}],
    }
    ev = event(edit)
    assert (ev["kind"], ev["files"], ev["text"]) == ("edit", ["src/lib.rs"], "1 edit")
    assert "secret_value" not in json.dumps(ev)
    read: dict[str, object] = {
        **CURSOR,
        "hook_event_name": "beforeReadFile",
        "file_path": "/repo/.env",
    }
    ev = event({**read, "content": "KEY=1\n"})
    assert ev["kind"] == "read" and ev["text"] == "" and "KEY=1" not in json.dumps(ev)
    assert ev["hashes"] == {".env": hashlib.sha256(b"KEY=1\n").hexdigest()}


def test_cursor_stop_and_response() -> None:
    stop: dict[str, object] = {
        **CURSOR,
        "hook_event_name": "stop",
        "status": "completed",
        "loop_count": 0,
    }
    assert to_event(stop, "cursor") is None
    broken = event({**stop, "status": "error"})
    assert (broken["kind"], broken["ok"]) == ("error", False)
    answer = event({**CURSOR, "hook_event_name": "afterAgentResponse", "text": "Fixed the port."})
    assert answer["kind"] == "conclusion"


# Copilot


def test_copilot_camel_case_tool_use_without_event_name() -> None:
    payload: dict[str, object] = {
        "timestamp": 1704614600000,
        "cwd": "/repo",
        "toolName": "bash",
        "toolArgs": json.dumps({"command": "npm test", "description": "tests"}),
        "toolResult": {"resultType": "failure", "textResultForLlm": "1 failing\n  adds"},
    }
    assert detect(payload) == "copilot"
    ev = event(payload)
    assert (ev["event"], ev["kind"], ev["ok"], ev["input"]) == (
        "postToolUse",
        "error",
        False,
        "npm test",
    )
    assert ev["summary"] == "$ npm test -> failed (1 failing)"


def test_copilot_lifecycle_events() -> None:
    base = {"timestamp": 1704614500000, "cwd": "/repo", "sessionId": "cp-1"}
    start = event({**base, "source": "new", "initialPrompt": "add a login page"})
    assert (start["event"], start["kind"], start["session"]) == ("sessionStart", "session", "cp-1")
    assert start["summary"] == "session start (new): add a login page"
    prompt = event({"timestamp": 1704614500001, "cwd": "/repo", "prompt": "now the tests"})
    assert (prompt["agent"], prompt["event"]) == ("copilot", "userPromptSubmitted")
    error = {"name": "TimeoutError", "message": "Network timeout", "stack": "at x (a.js:1:1)"}
    ev = event({**base, "error": error})
    assert (ev["event"], ev["kind"]) == ("errorOccurred", "error")
    assert ev["summary"] == "error: TimeoutError: Network timeout"
    assert to_event({**base, "toolName": "bash", "toolArgs": "{}"}, "copilot") is None
    end = event({**base, "reason": "complete"})
    assert end["summary"] == "session end (complete)"


def test_copilot_vscode_compatible_payload() -> None:
    payload: dict[str, object] = {
        "hookEventName": "PostToolUse",
        "sessionId": "vs-1",
        "cwd": "/repo",
        "tool_name": "run_in_terminal",
        "tool_input": {"command": "pytest -q"},
        "tool_response": "3 passed in 0.2s",
    }
    assert detect(payload) == "copilot"
    ev = event(payload)
    assert (ev["session"], ev["kind"], ev["ok"]) == ("vs-1", "command", True)


# detection, noise, piped text


@pytest.mark.parametrize(
    ("payload", "agent"),
    [
        (
            {"hook_event_name": "SessionStart", "session_id": "s", "source": "startup"},
            "claude-code",
        ),
        ({"hook_event_name": "PostToolUse", "tool_name": "Bash"}, "claude-code"),
        ({"hook_event_name": "AfterTool", "session_id": "s"}, "gemini"),
        ({"hook_event_name": "SessionStart", "timestamp": "2025-01-01T00:00:00Z"}, "gemini"),
        ({"hook_event_name": "PostToolUse", "tool_name": "run_shell_command"}, "gemini"),
        ({"hook_event_name": "stop", "status": "completed"}, "cursor"),
        ({"hook_event_name": "sessionStart", "conversation_id": "c"}, "cursor"),
        ({"hook_event_name": "sessionStart"}, "copilot"),
        ({}, "claude-code"),
    ],
)
def test_detect(payload: dict[str, object], agent: str) -> None:
    assert detect(payload) == agent


def test_is_noise() -> None:
    def ev(tool: str | None, command: str = "", kind: str = "command") -> dict[str, object]:
        return {"tool": tool, "input": command, "kind": kind}

    for tool in ("TodoWrite", "TodoRead", "LS", "Glob", "write_todos", "list_directory"):
        assert is_noise(ev(tool, kind="other"), [])
    for command in ("ls -la", "cd src && ls", "LC_ALL=C ls src/", "/bin/ls", "tree -L 2; pwd"):
        assert is_noise(ev("Bash", command), []), command
    for command in ("ls | grep x", "pytest -x", "cat ls", ""):
        assert not is_noise(ev("Bash", command), []), command
    assert is_noise(ev("mcp__browser__snapshot", kind="other"), ["mcp__browser__*"])
    assert is_noise(ev("WebSearch", kind="other"), ["websearch"])
    assert not is_noise(ev("WebSearch", kind="other"), ["WebFetch", ""])
    assert not is_noise(ev("Read", "ls", kind="read"), [])
    assert not is_noise(ev(None, kind="prompt"), ["*"])


def test_noise_with_real_events() -> None:
    payload: dict[str, object] = {
        **CLAUDE,
        "hook_event_name": "PostToolUse",
        "tool_name": "TodoWrite",
    }
    assert is_noise(event({**payload, "tool_input": {"todos": []}}), [])
    listing = event(bash({"stdout": "a\nb"}))
    listing_payload = bash({"stdout": "a\nb"})
    listing_payload["tool_input"] = {"command": "ls -la src"}
    assert not is_noise(listing, [])
    assert is_noise(event(listing_payload), [])


PYTEST_PIPED = (
    "\x1b[1m============ test session starts ============\x1b[0m\n"
    "tests/test_orders.py F\n"
    "E   psycopg.OperationalError: connection refused\n"
    "\x1b[31m============ 1 failed in 0.41s ============\x1b[0m\n"
)


def test_text_event_for_piped_test_output() -> None:
    ev = text_event(PYTEST_PIPED, "test")
    check_shape(ev)
    assert (ev["agent"], ev["event"], ev["tool"]) == ("pipe", "text", "test")
    assert (ev["kind"], ev["ok"]) == ("error", False)
    assert ev["summary"] == "test -> failed (1 failed in 0.41s)"
    assert "\x1b" not in str(ev["text"])
    passing = text_event("== 12 passed in 1.02s ==\n", "test")
    assert (passing["kind"], passing["ok"], passing["summary"]) == (
        "command",
        True,
        "test -> ok (12 passed in 1.02s)",
    )


def test_text_event_kinds() -> None:
    plain = text_event("compiled 3 files\n", None)
    assert (plain["kind"], plain["ok"], plain["summary"]) == (
        "command",
        None,
        "output: compiled 3 files",
    )
    note = text_event("Use port 5432 <private>pw=1</private>for tests", "note")
    assert (note["kind"], note["summary"]) == ("conclusion", "note: Use port 5432 for tests")
    assert text_event("boom", "error")["ok"] is False
    assert text_event("", "weird-hint")["kind"] == "other"
    assert text_event("error: linker failed", "build")["kind"] == "error"
    for ev in (plain, note, text_event("", None)):
        check_shape(ev)


# properties: never raise on odd input

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=20,
)
KNOWN_KEYS = [
    "hook_event_name", "hookEventName", "session_id", "sessionId", "conversation_id", "cwd",
    "workspace_roots", "transcript_path", "tool_name", "toolName", "tool_input", "toolArgs",
    "tool_response", "toolResult", "tool_output", "result_json", "prompt", "error",
    "last_assistant_message", "prompt_response", "text", "source", "reason", "trigger",
    "command", "output", "file_path", "edits", "content", "status", "is_interrupt",
    "initialPrompt", "timestamp", "turn_id",
]  # fmt: skip
EVENT_NAMES = sorted(adapters._ACTIONS) + ["PreToolUse", "BeforeTool", "Notification"]
TOOL_NAMES = ["Bash", "Read", "Edit", "Write", "MultiEdit", "apply_patch", "run_shell_command",
              "bash", "view", "TodoWrite", "Grep", "mcp__x__y", "write_file"]  # fmt: skip
TOOL_INPUT_KEYS = ["command", "file_path", "path", "paths", "content", "old_string",
                   "new_string", "edits", "patch", "input", "pattern", "file_text"]  # fmt: skip
RESPONSE_KEYS = ["stdout", "stderr", "exit_code", "returncode", "interrupted", "is_error",
                 "success", "error", "llmContent", "textResultForLlm", "resultType", "file",
                 "output", "filePath", "content"]  # fmt: skip


def shaped(keys: list[str]) -> st.SearchStrategy[dict[str, object]]:
    return st.dictionaries(st.sampled_from(keys), json_values, max_size=6)


plausible_payloads = st.fixed_dictionaries(
    {},
    optional={
        "hook_event_name": st.sampled_from(EVENT_NAMES) | json_values,
        "tool_name": st.sampled_from(TOOL_NAMES) | json_values,
        "toolName": st.sampled_from(TOOL_NAMES),
        "tool_input": shaped(TOOL_INPUT_KEYS) | json_values,
        "toolArgs": shaped(TOOL_INPUT_KEYS).map(json.dumps) | json_values,
        "tool_response": shaped(RESPONSE_KEYS) | json_values,
        "toolResult": shaped(RESPONSE_KEYS),
        "cwd": st.sampled_from(["/repo", "/", "", "relative"]) | json_values,
        "session_id": json_values,
        "error": json_values,
        "prompt": json_values,
        "workspace_roots": json_values,
        "edits": json_values,
        "file_path": st.sampled_from(["/repo/a.py", "a.py", "", "/dev/null", "."]) | json_values,
    },
)
arbitrary_payloads = st.dictionaries(st.sampled_from(KNOWN_KEYS) | st.text(max_size=10),
                                     json_values, max_size=8)  # fmt: skip
agents = st.sampled_from([*AGENTS, ""])


@settings(deadline=None)
@given(st.one_of(plausible_payloads, arbitrary_payloads), agents)
def test_to_event_never_raises(payload: dict[str, object], agent: str) -> None:
    result = adapters._to_event(payload, agent)  # not to_event: that would hide the exception
    if result is not None:
        check_shape(result)
        is_noise(result, ["mcp__*", "Grep"])
    assert detect(payload) in AGENTS


@settings(deadline=None)
@given(json_values, agents)
def test_to_event_on_non_dicts(value: object, agent: str) -> None:
    result = to_event(value, agent)  # type: ignore[arg-type]
    assert result is None or tuple(result) == EVENT_KEYS


@settings(deadline=None)
@given(st.text(max_size=500), st.none() | st.text(max_size=12))
def test_text_event_never_raises(text: str, hint: str | None) -> None:
    event = text_event(text, hint)
    check_shape(event)
    assert event["summary"]  # at least "output: (empty)"
