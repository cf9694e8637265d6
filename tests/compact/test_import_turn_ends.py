"""Import parity at turn ends: the same session through the installed hooks and through
`mem import --format claude-code` gives the same items.

`data/turn-ends-transcript.jsonl` is a hand-made Claude Code transcript whose turns end the
ways the importer once missed: a turn whose last message is thinking alone after tool calls
(Claude Code runs Stop all the same, with the turn's last text), a tool the user interrupted
(PostToolUseFailure with `is_interrupt`, then no Stop), and a session that ends after a tool
call and thinking. `data/turn-ends-hooks.jsonl` holds, for each hook Claude Code fires in that
session, the payload it sends and how many transcript lines exist by then; the replay writes
the transcript as it grows, so the Stop captures read their mid-turn notes from it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from compact_helpers import DATA, replay_through_installed_hooks, wait_for_compaction
from test_import_parity import comparable

from memcli import api
from memcli.compact import transcripts

TRANSCRIPT = DATA / "turn-ends-transcript.jsonl"
HOOKS = DATA / "turn-ends-hooks.jsonl"
COMPARED = (
    "hook_event_name", "tool_name", "tool_input", "tool_use_id", "tool_response", "error",
    "is_interrupt", "prompt", "last_assistant_message", "stop_hook_active",
)  # fmt: skip


def steps() -> list[tuple[int, dict[str, Any]]]:
    rows = [json.loads(line) for line in HOOKS.read_text(encoding="utf-8").splitlines()]
    return [(int(row["lines"]), row["payload"]) for row in rows]


def test_the_transcript_yields_every_turn_end_claude_code_hooks() -> None:
    captured = transcripts.captured_events("claude-code")
    expected = [
        {k: p[k] for k in COMPARED if k in p}
        for _lines, p in steps()
        if p["hook_event_name"] in captured
    ]
    events = [e for e in transcripts.hook_events("claude-code", [TRANSCRIPT]) if not e.note]
    assert [{k: e.payload[k] for k in COMPARED if k in e.payload} for e in events] == expected
    stops = [e.payload["last_assistant_message"] for e in events if e.name == "Stop"]
    # the turn that ended on thinking (its last text), none for the interrupted one, the last
    assert len(stops) == 2 and stops[0].startswith("The root cause was") and stops[1] == ""
    interrupted = [e.payload for e in events if e.payload.get("is_interrupt")]
    assert [p["tool_input"]["command"] for p in interrupted] == ["npm test -- --watch"]


def replay(root: Path, transcript: Path) -> set[str]:
    """`mem hooks install`, then each payload piped into the commands installed for its
    event (as subprocesses, in the repository), the transcript written up to that event."""
    lines = TRANSCRIPT.read_text(encoding="utf-8").splitlines(keepends=True)
    counts, payloads = zip(*steps(), strict=True)
    return replay_through_installed_hooks(
        root,
        [{**payload, "transcript_path": str(transcript)} for payload in payloads],
        before=lambda i: transcript.write_text("".join(lines[: counts[i]]), encoding="utf-8"),
    )


def test_import_gives_the_items_of_the_replay_through_the_installed_hooks(
    repo: Path, tmp_path: Path
) -> None:
    twin = tmp_path / "twin"
    shutil.copytree(repo, twin)  # same project identity
    imported = api.Memory.open(repo)
    result = transcripts.import_transcripts(imported, [TRANSCRIPT], "claude-code")
    assert result.added >= 2

    live = tmp_path / "claude" / TRANSCRIPT.name
    live.parent.mkdir()
    ran = replay(twin, live)
    assert {"SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop",
            "SessionEnd"} <= ran  # fmt: skip
    replayed = api.Memory.open(twin)
    wait_for_compaction(replayed, steps()[0][1]["session_id"])

    assert comparable(imported) == comparable(replayed)
    texts = " ".join(f"{i.title} {i.body}" for i in imported.items())
    assert "left-pad" in texts  # the build's missing module and its fix
    # Importing again adds nothing.
    again = transcripts.import_transcripts(imported, [TRANSCRIPT], "claude-code")
    assert again.added == 0 and comparable(imported) == comparable(replayed)
