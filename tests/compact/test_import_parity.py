"""Import parity: a transcript imported gives what the installed hooks gave for that session.

`data/parity-session-transcript.jsonl` is a hand-made Claude Code transcript (a failing test,
a sub-agent's search, a fix, a passing test, a Stop hook that blocked once, an interrupted
turn); `data/parity-session-hooks.jsonl` holds the hook payloads Claude Code sends for that
session, in the documented format and firing order. `data/rollout-...jsonl` and
`data/codex-session-hooks.jsonl` are the same for Codex (payloads as Codex's hook input
schemas describe them).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from compact_helpers import DATA, replay_through_installed_hooks, wait_for_compaction

from memcli import api, hooks
from memcli.capture import pipeline
from memcli.compact import transcripts

TRANSCRIPT = DATA / "parity-session-transcript.jsonl"
HOOKS = DATA / "parity-session-hooks.jsonl"
[ROLLOUT] = DATA.glob("rollout-*.jsonl")
CASES = {
    "claude-code": (TRANSCRIPT, HOOKS, ".claude/settings.json"),
    "codex": (ROLLOUT, DATA / "codex-session-hooks.jsonl", ".codex/hooks.json"),
}
COMPARED = (
    "hook_event_name", "session_id", "cwd", "tool_name", "tool_input", "tool_use_id",
    "tool_response", "error", "prompt", "last_assistant_message", "stop_hook_active",
)  # fmt: skip


def recorded_payloads(path: Path = HOOKS) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def compared(payload: dict[str, Any]) -> dict[str, Any]:
    return {key: payload[key] for key in COMPARED if key in payload}


def test_the_transcript_yields_the_events_the_installed_hooks_capture() -> None:
    captured = transcripts.captured_events("claude-code")
    assert {"UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop"} <= captured
    expected = [compared(p) for p in recorded_payloads() if p["hook_event_name"] in captured]
    # Notes are no hook event: capture reads them from the transcript at Stop (see
    # test_import_notes.py).
    events = [e for e in transcripts.hook_events("claude-code", [TRANSCRIPT]) if not e.read_at_stop]
    assert [compared(e.payload) for e in events] == expected
    names = [e.name for e in events]
    # the sub-agent's grep, the failure, both turn ends around the hook feedback
    assert names.count("Stop") == 2 and "PostToolUseFailure" in names
    assert any(e.payload.get("tool_input", {}).get("command") == "grep -rn computeTax src"
               for e in events)  # fmt: skip


def observed(payloads: list[dict[str, Any]], agent: str, root: Path) -> list[dict[str, Any]]:
    """What `mem capture --agent AGENT` records for each payload, without id, time, raw ref."""
    settings = pipeline.load_settings(str(root / ".memory"))
    out = []
    for payload in payloads:
        observation, _raw = pipeline.observe_event(payload, settings, str(root), agent)
        if observation is not None:
            out.append({k: v for k, v in observation.items() if k not in ("id", "ts", "raw")})
    return out


@pytest.mark.parametrize("agent", sorted(CASES))
def test_the_transcript_gives_the_observations_the_hooks_give(agent: str, repo: Path) -> None:
    transcript, hooks_file, _settings = CASES[agent]
    captured = transcripts.captured_events(agent)
    expected = [p for p in recorded_payloads(hooks_file) if p["hook_event_name"] in captured]
    events = [e for e in transcripts.hook_events(agent, [transcript]) if not e.read_at_stop]
    got = observed([e.payload for e in events], agent, repo)
    assert got == observed(expected, agent, repo)
    assert len(got) >= 6


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
    # whatever the sub-agent's lines say, its hooks carry the parent session's id
    side = [line.replace(session, "agent-own-id").replace('"isSidechain": true', '"x": 1')
            for line in side]  # fmt: skip
    agent_file.write_text("\n".join(side) + "\n", encoding="utf-8")
    (folder / session / "subagents" / "agent-a1b2c3.meta.json").write_text("{}")
    files = transcripts.transcript_files(folder)
    [group] = transcripts._session_groups(files)
    # (Notes differ: capture reads the main transcript only, so a sub-agent's own file gives
    # none, as at a live Stop.)
    split = [e for e in transcripts.hook_events("claude-code", group) if not e.read_at_stop]
    inline = [e for e in transcripts.hook_events("claude-code", [TRANSCRIPT]) if not e.read_at_stop]
    assert [compared(e.payload) for e in split] == [compared(e.payload) for e in inline]


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


def growing(transcript: Path, payloads: list[dict[str, Any]], live: Path) -> Any:
    """``before(i)`` for a replay: at each Stop, the transcript written up to the assistant
    line its message comes from (what Claude Code had written when it fired)."""
    lines = transcript.read_text(encoding="utf-8").splitlines()

    def said(line: str) -> str:
        message = json.loads(line).get("message")
        content = message.get("content") if isinstance(message, dict) else None
        blocks = content if isinstance(content, list) else []
        return "".join(b.get("text", "") for b in blocks if isinstance(b, dict))

    def before(index: int) -> None:
        last = payloads[index].get("last_assistant_message")
        if payloads[index]["hook_event_name"] != "Stop" or not last:
            return
        end = next(n for n, line in enumerate(lines) if said(line).strip() == last.strip())
        live.write_text("\n".join(lines[: end + 1]) + "\n", encoding="utf-8")

    return before


@pytest.mark.parametrize("agent", sorted(CASES))
def test_import_gives_the_items_of_a_replay_through_the_installed_hooks(
    repo: Path, tmp_path: Path, agent: str
) -> None:
    transcript, hooks_file, _settings = CASES[agent]
    twin = tmp_path / "twin"
    shutil.copytree(repo, twin)  # same project identity
    imported = api.Memory.open(repo)
    result = transcripts.import_transcripts(imported, [transcript], agent)
    assert result.added >= 1

    payloads = recorded_payloads(hooks_file)
    before = None
    if agent == "claude-code":  # the transcript grows as the session goes: read at each Stop
        live = tmp_path / "live-transcript.jsonl"
        payloads = [{**p, "transcript_path": str(live)} for p in payloads]
        before = growing(transcript, payloads, live)
    ran = replay_through_installed_hooks(twin, payloads, agent, before)
    # every event the session has (it has no turn an API error cut short: no StopFailure)
    assert ran >= (transcripts.captured_events(agent) - {"StopFailure"}) | {"SessionStart"}
    compacting = {s.event for s in hooks.hook_specs(agent) if "compact" in str(s.handler)}
    if compacting == {"SessionStart"}:
        # Codex has no session-end event: the session is compacted when the next one starts,
        # once it has gone quiet.
        replayed = api.Memory.open(twin)
        for buffer in replayed.paths.buffers.glob("*.jsonl"):
            past = buffer.stat().st_mtime - 10 * 60
            os.utime(buffer, (past, past))
        start = {**payloads[0], "session_id": "the-next-session"}
        replay_through_installed_hooks(twin, [start], agent)
    else:
        assert "SessionEnd" in ran and compacting == {"SessionEnd"}
    replayed = api.Memory.open(twin)
    wait_for_compaction(replayed, payloads[0]["session_id"])

    assert comparable(imported) == comparable(replayed)
    kinds = [item.kind for item in imported.items()]
    assert "pitfall" in kinds
