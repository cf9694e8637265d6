"""A turn an API error cut short (a usage limit): Claude Code ends it with `StopFailure`
instead of `Stop`. Through the installed hooks the session becomes an open task and an
unfinished summary; `mem import` of the transcript, whose refused turn is an
`isApiErrorMessage` line, yields the same."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import yaml
from compact_helpers import replay_through_installed_hooks, wait_for_compaction
from test_import_parity import comparable

from memcli import api
from memcli.compact import transcripts

LIMIT = "You're out of extra usage · resets 2pm (America/Denver)"
SESSION = "0b9c7a52-1d2e-4f3a-9b8c-5d6e7f8a9b0c"


def transcript_lines(cwd: str) -> list[dict[str, Any]]:
    base = {"sessionId": SESSION, "cwd": cwd, "isSidechain": False, "version": "2.1.197"}
    return [
        {**base, "type": "user", "uuid": "u1", "timestamp": "2026-11-30T10:00:00Z",
         "message": {"role": "user", "content": "add the window tracking layer"}},
        {**base, "type": "assistant", "uuid": "a1", "timestamp": "2026-11-30T10:00:05Z",
         "message": {"role": "assistant", "content": [
             {"type": "text", "text": "I'll start with the tracker."},
             {"type": "tool_use", "id": "toolu_1", "name": "Write",
              "input": {"file_path": f"{cwd}/Sources/Tracker.swift", "content": "import AppKit\n"}},
         ]}},
        {**base, "type": "user", "uuid": "u2", "timestamp": "2026-11-30T10:00:06Z",
         "toolUseResult": {"type": "create", "filePath": f"{cwd}/Sources/Tracker.swift"},
         "message": {"role": "user", "content": [
             {"type": "tool_result", "tool_use_id": "toolu_1", "content": "File created"}]}},
        {**base, "type": "assistant", "uuid": "a2", "timestamp": "2026-11-30T10:00:09Z",
         "error": "rate_limit", "isApiErrorMessage": True,
         "message": {"role": "assistant", "model": "<synthetic>",
                     "content": [{"type": "text", "text": LIMIT}]}},
    ]  # fmt: skip


def hook_payloads(cwd: str, transcript: str) -> list[dict[str, Any]]:
    base = {"session_id": SESSION, "transcript_path": transcript, "cwd": cwd}
    return [
        {**base, "hook_event_name": "SessionStart", "source": "startup"},
        {**base, "hook_event_name": "UserPromptSubmit", "prompt": "add the window tracking layer",
         "permission_mode": "default"},
        {**base, "hook_event_name": "PostToolUse", "tool_name": "Write", "tool_use_id": "toolu_1",
         "tool_input": {"file_path": f"{cwd}/Sources/Tracker.swift", "content": "import AppKit\n"},
         "tool_response": {"type": "create", "filePath": f"{cwd}/Sources/Tracker.swift"}},
        {**base, "hook_event_name": "StopFailure", "error": "rate_limit", "error_details": LIMIT,
         "last_assistant_message": LIMIT},
        {**base, "hook_event_name": "SessionEnd", "reason": "other"},
    ]  # fmt: skip


def write_transcript(folder: Path, cwd: str) -> Path:
    path = folder / f"{SESSION}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in transcript_lines(cwd)), "utf-8")
    return path


def test_a_turn_cut_short_by_a_usage_limit_is_the_sessions_open_task(
    repo: Path, tmp_path: Path
) -> None:
    transcript = write_transcript(tmp_path, str(repo))
    ran = replay_through_installed_hooks(repo, hook_payloads(str(repo), str(transcript)))
    assert "StopFailure" in ran  # `mem hooks install` wires it
    memory = api.Memory.open(repo)
    wait_for_compaction(memory, SESSION)
    [task] = memory.items()
    assert task.kind == "task" and task.title.startswith("Unfinished: the session stopped on")
    assert f"rate_limit: {LIMIT}" in task.title
    assert "Goal: add the window tracking layer" in task.body
    assert task.expires
    [summary] = memory.paths.sessions.glob("*.yaml")
    data = yaml.safe_load(summary.read_text(encoding="utf-8"))
    assert data["status"] == "unfinished"
    assert data["outcome"] == f"stopped by an API error (rate_limit: {LIMIT})"
    # the turn's mid-turn text was read from the transcript at StopFailure, as at Stop
    notes = [line for line in (memory.paths.local / "raw").glob("*.jsonl")]
    assert any("I'll start with the tracker." in p.read_text("utf-8") for p in notes)


def test_a_session_that_went_on_after_the_error_is_no_stopped_task(repo: Path) -> None:
    payloads = hook_payloads(str(repo), "")
    cwd = str(repo)
    base = {"session_id": SESSION, "transcript_path": "", "cwd": cwd}
    payloads[-1:-1] = [
        {**base, "hook_event_name": "UserPromptSubmit", "prompt": "continue",
         "permission_mode": "default"},
        {**base, "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "toolu_2",
         "tool_input": {"command": "swift build"},
         "tool_response": {"stdout": "Build complete!", "stderr": "", "interrupted": False}},
        {**base, "hook_event_name": "Stop", "stop_hook_active": False,
         "last_assistant_message": "The tracker builds now."},
    ]  # fmt: skip
    replay_through_installed_hooks(repo, payloads)
    memory = api.Memory.open(repo)
    wait_for_compaction(memory, SESSION)
    assert not [i for i in memory.items() if i.kind == "task"]


def test_import_reads_the_refused_turn_as_the_hooks_do(repo: Path, tmp_path: Path) -> None:
    twin = tmp_path / "twin"
    shutil.copytree(repo, twin)  # same project identity
    transcript = write_transcript(tmp_path, str(repo))
    events = [e for e in transcripts.hook_events("claude-code", [transcript]) if not e.note]
    failure = events[-1].payload
    assert failure["hook_event_name"] == "StopFailure"
    assert (failure["error"], failure["last_assistant_message"]) == ("rate_limit", LIMIT)
    assert "Stop" not in [e.name for e in events]  # the refused turn has no Stop of its own
    imported = api.Memory.open(repo)
    transcripts.import_transcripts(imported, [transcript], "claude-code")
    replay_through_installed_hooks(twin, hook_payloads(str(repo), str(transcript)))
    replayed = api.Memory.open(twin)
    wait_for_compaction(replayed, SESSION)
    # expires: 30 days after the turn ended, which is now for the replay, the past for import
    mine, theirs = comparable(imported), comparable(replayed)
    assert [d.pop("expires") for d in mine] and [d.pop("expires") for d in theirs]
    assert mine == theirs != []
