"""`mem forget` deletes by identity: what is linked to the item goes, nothing else moves
(issue: trust, finding 6: forgetting an item titled "port" once deleted other sessions'
pending observations and rewrote 11 session summaries)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from memcli.cli.app import app

runner = CliRunner()


def _event(session: str, command: str, stderr: str) -> str:
    return json.dumps(
        {
            "hook_event_name": "PostToolUse",
            "session_id": session,
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_response": {"stdout": "", "stderr": stderr, "exit_code": 1},
        }
    )


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_forgetting_an_item_titled_port_touches_nothing_it_is_not_linked_to(repo: Path) -> None:
    memory = repo / ".memory"
    local = memory / "local"
    # The item's own session: one observation becomes its evidence.
    capture = runner.invoke(app, ["capture"], input=_event("mine", "make db", "port taken"))
    assert capture.exit_code == 0
    [evidence] = [json.loads(line) for line in (local / "raw" / "mine.jsonl").open()]
    item_id = "port-forget-0001"
    (memory / "items" / f"{item_id}.yaml").write_text(
        f"id: {item_id}\nkind: pitfall\ntitle: port\n"
        "body: The dev database port is 5433, not 5432, on every machine here.\n"
        "tags: [db]\nscope:\n  project: whatever\nimportance: 0.5\nconfidence: assumed\n"
        "created: '2026-01-01T00:00:00Z'\nupdated: '2026-01-01T00:00:00Z'\n"
        f"evidence:\n  - excerpt: port taken\n    ref: raw/mine.jsonl#{evidence['id']}\n"
        "    session: mine\n"
    )
    (local / "buffer" / "mine.jsonl").unlink()  # compacted: only the raw evidence is left
    # Other sessions: 14 pending observations, 4 of them containing "port".
    for number in range(14):
        text = f"port {number} in use" if number % 4 == 0 else f"assertion {number} failed"
        event = _event(f"other{number % 3}", f"pytest -k t{number}", text)
        assert runner.invoke(app, ["capture"], input=event).exit_code == 0
    # 11 session summaries that mention "port" but do not list the item, and one that does.
    sessions = memory / "sessions"
    for number in range(11):
        (sessions / f"s{number}.yaml").write_text(
            f"session: s{number}\noutcome: fixed the port clash {number}\nitems: [other-0001]\n"
        )
    linked = sessions / "mine.yaml"
    linked.write_text(
        f"session: mine\n# a reviewer's note\noutcome: 'learned: port'\nitems:\n"
        f"  - {item_id}\n  - other-0001\n"
    )
    (local / "usage.json").write_text(json.dumps({item_id: {"hits": 2}, "other-0001": {"hits": 5}}))
    receipts = local / "receipts.jsonl"
    receipts.write_text(
        json.dumps({"query": "port", "returned": [item_id, "other-0001"]})
        + "\n"
        + json.dumps({"query": "port clash", "returned": ["other-0001"]})
        + "\n"
    )
    before_buffers = _snapshot(local / "buffer")
    before_sessions = {p.name: p.read_bytes() for p in sessions.glob("s*.yaml")}
    other_raw = {p.name: p.read_bytes() for p in (local / "raw").glob("other*.jsonl")}

    result = runner.invoke(app, ["forget", item_id])
    assert result.exit_code == 0, result.output

    assert not (memory / "items" / f"{item_id}.yaml").exists()
    assert _snapshot(local / "buffer") == before_buffers  # 14 pending observations, untouched
    pending = [line for p in (local / "buffer").glob("*.jsonl") for line in p.open()]
    assert len(pending) == 14 and sum("port" in line for line in pending) == 4
    assert {p.name: p.read_bytes() for p in sessions.glob("s*.yaml")} == before_sessions
    assert {p.name: p.read_bytes() for p in (local / "raw").glob("other*.jsonl")} == other_raw
    assert evidence["id"] not in (local / "raw" / "mine.jsonl").read_text()
    summary = linked.read_text()
    assert item_id not in summary and "learned: port" not in summary
    assert "other-0001" in summary and "# a reviewer's note" in summary
    assert json.loads((local / "usage.json").read_text()) == {"other-0001": {"hits": 5}}
    first, second = (json.loads(line) for line in receipts.open())
    assert first["returned"] == ["other-0001"] and item_id not in json.dumps(first)
    assert second == {"query": "port clash", "returned": ["other-0001"]}
    for path in memory.rglob("*"):
        if path.is_file():
            assert item_id not in path.read_text(errors="replace"), path
