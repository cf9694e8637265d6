"""Import parity: a transcript imported gives what the installed hooks gave for that session.

`data/parity-session-transcript.jsonl` is a hand-made Claude Code transcript (a failing test,
a sub-agent's search, a fix, a passing test, a Stop hook that blocked once, an interrupted
turn); `data/parity-session-hooks.jsonl` holds the hook payloads Claude Code sends for that
session, in the documented format and firing order.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from compact_helpers import DATA

from memcli import api
from memcli.compact import buffers, transcripts

TRANSCRIPT = DATA / "parity-session-transcript.jsonl"
HOOKS = DATA / "parity-session-hooks.jsonl"
COMPARED = (
    "hook_event_name", "session_id", "cwd", "tool_name", "tool_input", "tool_use_id",
    "tool_response", "error", "prompt", "last_assistant_message", "stop_hook_active",
)  # fmt: skip


def recorded_payloads() -> list[dict[str, Any]]:
    return [json.loads(line) for line in HOOKS.read_text(encoding="utf-8").splitlines()]


def compared(payload: dict[str, Any]) -> dict[str, Any]:
    return {key: payload[key] for key in COMPARED if key in payload}


def test_the_transcript_yields_the_events_the_installed_hooks_capture() -> None:
    captured = transcripts.captured_events("claude-code")
    assert {"UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop"} <= captured
    expected = [compared(p) for p in recorded_payloads() if p["hook_event_name"] in captured]
    events = transcripts.hook_events("claude-code", [TRANSCRIPT])
    assert [compared(e.payload) for e in events] == expected
    names = [e.name for e in events]
    # the sub-agent's grep, the failure, both turn ends around the hook feedback
    assert names.count("Stop") == 2 and "PostToolUseFailure" in names
    assert any(e.payload.get("tool_input", {}).get("command") == "grep -rn computeTax src"
               for e in events)  # fmt: skip


def test_sub_agent_files_are_read_with_their_session(tmp_path: Path) -> None:
    """Newer Claude Code writes each sub-agent to `<session>/subagents/agent-<id>.jsonl`."""
    lines = TRANSCRIPT.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    main = [line for line, r in zip(lines, records, strict=True) if not r.get("isSidechain")]
    side = [line for line, r in zip(lines, records, strict=True) if r.get("isSidechain")]
    session = records[1]["sessionId"]
    folder = tmp_path / "-home-dev-app"
    (folder / session / "subagents").mkdir(parents=True)
    (folder / f"{session}.jsonl").write_text("\n".join(main) + "\n", encoding="utf-8")
    agent_file = folder / session / "subagents" / "agent-a1b2c3.jsonl"
    agent_file.write_text("\n".join(side) + "\n", encoding="utf-8")
    files = transcripts.transcript_files(folder)
    [group] = transcripts._session_groups(files)
    split = transcripts.hook_events("claude-code", group)
    inline = transcripts.hook_events("claude-code", [TRANSCRIPT])
    assert [compared(e.payload) for e in split] == [compared(e.payload) for e in inline]


def replay_through_installed_hooks(root: Path, payloads: list[dict[str, Any]]) -> None:
    """Install the hooks, then pipe each payload into the exact commands installed for it."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run(["mem", "hooks", "install"], cwd=root, env=env, check=True,
                   capture_output=True)  # fmt: skip
    settings = json.loads((root / ".claude" / "settings.json").read_text(encoding="utf-8"))
    ran: set[str] = set()
    for payload in payloads:
        for group in settings["hooks"].get(payload["hook_event_name"], []):
            for handler in group["hooks"]:
                done = subprocess.run(
                    handler["command"], shell=True, cwd=root, env=env, input=json.dumps(payload),
                    capture_output=True, text=True, check=False,
                )  # fmt: skip
                assert done.returncode == 0, done.stderr
                ran.add(payload["hook_event_name"])
    wanted = {"SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop"}
    assert ran >= wanted | {"SessionEnd"}


def wait_for_compaction(memory: api.Memory, session: str) -> None:
    """`mem compact --detach` (the SessionEnd hook) compacts in the background."""
    buffer = memory.paths.buffers / f"{session}.jsonl"
    for _ in range(600):
        if not buffer.exists() or not buffer.read_text(encoding="utf-8").strip():
            try:
                with buffers.session_lock(memory.paths, buffers.stem(session)):
                    return
            except buffers.Busy:
                pass
        time.sleep(0.1)
    pytest.fail(f"the detached compaction never consumed {buffer}")


def comparable(memory: api.Memory) -> list[dict[str, Any]]:
    """Items without what differs between a replay now and an import of the past: times and
    the observation ids that evidence points to."""
    out = []
    for item in memory.items():
        data = item.to_dict()
        for key in ("created", "updated"):
            data.pop(key, None)
        data["evidence"] = [{k: v for k, v in e.items() if k != "ref"} for e in item.evidence]
        out.append(data)
    return sorted(out, key=lambda d: str(d["title"]))


def test_import_gives_the_items_of_a_replay_through_the_installed_hooks(
    repo: Path, tmp_path: Path
) -> None:
    twin = tmp_path / "twin"
    shutil.copytree(repo, twin)  # same project identity
    imported = api.Memory.open(repo)
    result = transcripts.import_claude_code(imported, TRANSCRIPT)
    assert result.added >= 1

    payloads = recorded_payloads()
    replay_through_installed_hooks(twin, payloads)
    replayed = api.Memory.open(twin)
    wait_for_compaction(replayed, payloads[0]["session_id"])

    assert comparable(imported) == comparable(replayed)
    kinds = [item.kind for item in imported.items()]
    assert "pitfall" in kinds
