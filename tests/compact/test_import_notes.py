"""Import parity for mid-turn notes: `mem import` records the notes that capture records when
the same transcript is replayed through the installed hooks, the transcript file growing as
the session goes (each Stop fires once the turn's lines are written)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from compact_helpers import DATA, replay_through_installed_hooks

from memcli import api
from memcli.capture import pipeline
from memcli.compact import transcripts
from memcli.compact.hookevents import HookEvent

CASES = {
    "claude-code": DATA / "parity-session-transcript.jsonl",
    "codex": next(DATA.glob("rollout-*.jsonl")),
}
KEPT = ("kind", "summary", "excerpt", "event", "agent", "session", "files", "ok")


def stop_line(agent: str, lines: list[str], event: HookEvent) -> int:
    """How many transcript lines exist when ``event`` (a Stop) fires: up to the line it
    came from (the turn's last text, or Codex's task_complete)."""
    key = event.key.split("\0", 1)[0]
    if agent == "codex":
        return int(key.removeprefix("line"))
    uuids = [json.loads(line).get("uuid") for line in lines]
    return uuids.index(key) + 1


def kept(observation: dict[str, Any]) -> dict[str, Any]:
    return {k: observation.get(k) for k in KEPT}


@pytest.mark.parametrize("agent", sorted(CASES))
def test_import_records_the_notes_the_hooks_record(agent: str, repo: Path, tmp_path: Path) -> None:
    source = CASES[agent]
    lines = source.read_text(encoding="utf-8").splitlines()
    live = tmp_path / source.name  # the file the assistant writes as the session goes
    live.write_text("", encoding="utf-8")
    events = transcripts.hook_events(agent, [source])
    imported = []
    settings = pipeline.load_settings(str(repo / ".memory"))
    for event in events:
        payload = {**event.payload, "transcript_path": str(live), "cwd": str(repo)}
        if event.note or event.queued:
            observation, _raw = (
                pipeline.observe_note(payload, payload["last_assistant_message"], settings,
                                      str(repo), agent)
                if event.note else
                pipeline.observe_queued(payload, payload["prompt"], settings, str(repo), agent)
            )  # fmt: skip
            assert observation is not None
            imported.append(kept(observation))
            continue
        if event.name == "Stop":
            live.write_text("\n".join(lines[: stop_line(agent, lines, event)]) + "\n")
        replay_through_installed_hooks(repo, [payload], agent)
    memory = api.Memory.open(repo)
    [buffer] = memory.paths.buffers.glob("*.jsonl")
    records = [json.loads(line) for line in buffer.read_text(encoding="utf-8").splitlines()]
    # what was read from the transcript at a Stop: notes, and prompts typed into the turn
    replayed = [kept(r) for r in records if r.get("kind") == "note"
                or (r.get("kind") == "prompt" and r.get("event") == "Stop")]  # fmt: skip
    assert imported and replayed == imported
    if agent == "claude-code":  # the fixture's user typed into its first turn
        assert ("prompt", "remember to run the linter before committing") in [
            (r["kind"], r["excerpt"]) for r in imported
        ]
    # Notes come just before their turn's conclusion, as the import orders them.
    kinds = [r.get("kind") for r in records]
    read = [n for n, r in enumerate(records) if kept(r) in imported]
    assert read == list(range(read[0], read[0] + len(imported)))
    assert kinds[read[-1] + 1] == "conclusion"
