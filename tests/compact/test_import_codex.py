"""`mem import --format codex`: Codex session files (rollouts) through the capture pipeline.

`data/rollout-...jsonl` is a hand-made rollout in the format Codex CLI writes under
`~/.codex/sessions/YYYY/MM/DD/`: a failing pytest run whose wrong value comes with exit 1, an
`apply_patch` fix, a passing run, the final message.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compact_helpers import DATA, snapshot
from typer.testing import CliRunner

from memcli import api
from memcli.cli.app import app
from memcli.compact import import_transcripts, transcripts
from memcli.compact.codex_rollout import CodexRollout

[ROLLOUT] = DATA.glob("rollout-*.jsonl")
SESSION = "019a6b2c-3d4e-7f80-9a1b-2c3d4e5f6a7b"


def events_of(
    records: list[dict[str, Any]], typed: bool | None = None, notes: bool = False
) -> list[dict[str, Any]]:
    """The payloads of the hook events (``notes``: of the mid-turn notes only)."""
    converter = CodexRollout(f"/home/dev/.codex/sessions/rollout-x-{SESSION}.jsonl", typed=typed)
    out = [e for n, r in enumerate(records, 1) for e in converter.feed(r, n)]
    return [e.payload for e in out + converter.finish() if e.note == notes]


def test_a_rollout_imports_as_a_verified_pitfall_once(repo: Path, memory: api.Memory) -> None:
    result = import_transcripts(memory, [ROLLOUT], "codex")
    assert result.skipped_lines == 0 and len(result.sessions) == 1
    [item] = memory.items()
    assert item.kind == "pitfall" and item.confidence == "verified"
    assert item.anchors == [{"path": "src/api/export.py"}]
    assert "344 == 345" in item.title + item.body
    assert item.created == "2026-11-26T10:00:18Z"
    summary = (memory.paths.sessions / f"{SESSION}.yaml").read_text(encoding="utf-8")
    assert "agent: codex" in summary
    assert "intent: The order export test fails, find out why" in summary
    assert "environment_context" not in summary
    before = snapshot(repo)
    again = import_transcripts(memory, [ROLLOUT.parent], "codex")
    assert again.added == 0 and again.updated == 0
    assert snapshot(repo) == before


def test_the_rollout_gives_the_hook_events_codex_sends() -> None:
    found = transcripts.hook_events("codex", [ROLLOUT])
    events = [e for e in found if not e.note]
    names = [e.name for e in events]
    assert names == ["UserPromptSubmit"] + ["PostToolUse"] * 4 + ["Stop"]
    # The turn's earlier assistant message: a note, recorded just before the turn's end.
    [note] = [e for e in found if e.note]
    assert found.index(note) == len(found) - 2
    assert note.payload["last_assistant_message"].startswith("`int()` truncates 3.45 * 100")
    assert {e.payload["session_id"] for e in events} == {SESSION}
    assert events[1].payload["tool_name"] == "Bash"  # as Codex's hooks name shell tools
    assert events[1].payload["tool_input"] == {"command": "pytest -q tests/test_export.py"}
    assert events[3].payload["tool_name"] == "apply_patch"
    assert events[3].payload["tool_input"]["command"].startswith("*** Begin Patch")
    assert events[3].payload["tool_response"]["exit_code"] == 0
    assert events[-1].payload["last_assistant_message"].startswith("Fixed: `total_cents`")
    assert set(names) <= transcripts.captured_events("codex")


def test_older_rollouts_without_envelopes_or_typed_prompts() -> None:
    """Before the `{timestamp, type, payload}` envelope: a meta line, then bare items; shell
    output as a JSON string with its exit code in `metadata`."""
    records = [
        {"id": SESSION, "timestamp": "2025-06-01T09:00:00Z", "instructions": None},
        {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "<user_instructions>be brief</user_instructions>"}]},
        {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "make the build pass"}]},
        {"type": "function_call", "name": "shell", "call_id": "c1",
         "arguments": json.dumps({"command": ["bash", "-lc", "make"]})},
        {"type": "function_call_output", "call_id": "c1",
         "output": json.dumps({"output": "cc: error: foo.c: No such file", "metadata": {
             "exit_code": 2, "duration_seconds": 0.1}})},
        {"record_type": "state"},
        {"type": "message", "role": "assistant", "content": [
            {"type": "output_text", "text": "foo.c is missing."}]},
    ]  # fmt: skip
    payloads = events_of(records, typed=False)
    assert [p["hook_event_name"] for p in payloads] == ["UserPromptSubmit", "PostToolUse", "Stop"]
    assert payloads[0]["prompt"] == "make the build pass"
    assert payloads[1]["tool_input"] == {"command": "make"}
    assert payloads[1]["tool_response"] == {"output": "cc: error: foo.c: No such file",
                                            "exit_code": 2}  # fmt: skip
    assert {p["session_id"] for p in payloads} == {SESSION}


def test_an_aborted_turn_fires_no_stop_and_typed_prompts_win() -> None:
    def envelope(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"timestamp": "2026-11-26T10:00:00Z", "type": kind, "payload": payload}

    said = {"type": "message", "role": "assistant", "content": [{"type": "output_text",
            "text": "Working on it"}]}  # fmt: skip
    records = [
        envelope("session_meta", {"id": SESSION, "cwd": "/w"}),
        envelope("response_item", {"type": "message", "role": "user",
                                   "content": [{"type": "input_text", "text": "go"}]}),
        envelope("event_msg", {"type": "user_message", "message": "go"}),
        envelope("response_item", said),
        envelope("event_msg", {"type": "turn_aborted", "reason": "interrupted"}),
        envelope("event_msg", {"type": "user_message", "message": "try again"}),
        envelope("response_item", said),
        envelope("event_msg", {"type": "task_complete", "last_agent_message": "Done."}),
    ]  # fmt: skip
    payloads = events_of(records, typed=True)
    assert [(p["hook_event_name"], p.get("prompt") or p.get("last_assistant_message"))
            for p in payloads] == [("UserPromptSubmit", "go"), ("UserPromptSubmit", "try again"),
                                   ("Stop", "Done.")]  # fmt: skip
    # What the aborted turn said reaches mem at the next Stop, as the hooks read it then.
    noted = [p["last_assistant_message"] for p in events_of(records, typed=True, notes=True)]
    assert noted == ["Working on it", "Working on it"]


def test_the_command_takes_several_paths(repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "sessions" / "2026" / "11" / "27"
    other.mkdir(parents=True)
    text = ROLLOUT.read_text(encoding="utf-8").replace(SESSION, SESSION[:-1] + "c")
    (other / f"rollout-2026-11-27T09-00-00-{SESSION[:-1]}c.jsonl").write_text(text)
    result = CliRunner().invoke(
        app, ["import", "--format", "codex", str(ROLLOUT), str(tmp_path / "sessions"), "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["sessions"] == 2 and data["added"] == 1 and data["updated"] == 1
    bad = CliRunner().invoke(app, ["import", "--format", "cursor", str(ROLLOUT)])
    assert bad.exit_code == 2 and "--format" in bad.output
