"""The recorded session (a port pitfall) through capture and compaction: the Done-when."""

from __future__ import annotations

from pathlib import Path

from compact_helpers import SECRETS, Capture, memory_text, snapshot

from memcli import api
from memcli.compact import compact_all, compact_session


def test_the_recorded_session_yields_one_verified_pitfall_about_the_port(
    memory: api.Memory, capture: Capture, fixture_lines: list[bytes]
) -> None:
    capture(fixture_lines)
    result = compact_session(memory, "abc123")
    assert len(result.added) == 1 and result.consumed == 8
    items = memory.items()
    assert len(items) == 1
    item = items[0]
    assert item.kind == "pitfall"
    assert item.confidence == "verified"
    assert "5433" in item.title and "DB_PORT" in item.title
    assert item.anchors == [{"path": "tests/conftest.py"}]
    assert "Symptom: `pytest tests/test_orders.py -x` failed with: psycopg.OperationalError" in (
        item.body
    )
    assert "Verified: `pytest tests/test_orders.py -x` passed afterwards" in item.body
    assert "DB_PORT" in item.body
    assert item.source["compactor"] == "rules"
    assert item.importance > 0.7
    excerpts = [e["excerpt"] for e in item.evidence]
    assert any("port 5433 failed: Connection refused" in e for e in excerpts)
    assert any("12 passed" in e for e in excerpts)
    raw = (memory.paths.raw / "abc123.jsonl").read_text()
    for entry in item.evidence:
        assert entry["session"] == "abc123"
        assert entry["ref"].startswith("raw/abc123.jsonl#")
        assert entry["ref"].split("#")[1] in raw
    assert memory.lint() == []


def test_no_secret_anywhere_and_the_env_file_is_not_memory(
    repo: Path, memory: api.Memory, capture: Capture, fixture_lines: list[bytes]
) -> None:
    capture(fixture_lines)
    compact_session(memory, "abc123")
    text = memory_text(repo)
    for secret in SECRETS:
        assert secret not in text
    committed = "\n".join(snapshot(repo).values())
    assert "DATABASE_URL" not in committed and "STRIPE_KEY" not in committed


def test_the_session_summary_holds_intent_outcome_and_items(
    memory: api.Memory, capture: Capture, fixture_lines: list[bytes]
) -> None:
    capture(fixture_lines)
    result = compact_session(memory, "abc123")
    assert result.summary_path == memory.paths.sessions / "abc123.yaml"
    from memcli import yamlio

    doc, problem = yamlio.read(result.summary_path)
    assert problem is None and doc is not None
    summary = doc.plain()
    assert summary["session"] == "abc123"
    assert summary["intent"] == "The order tests fail since yesterday, find out why"
    assert "5433" in summary["outcome"]
    assert summary["status"] == "done"
    assert summary["items"] == result.added
    assert summary["files"] == ["tests/conftest.py"]
    assert summary["stats"]["observations"] == 8
    assert summary["ended"]


def test_the_buffer_is_consumed_and_compacting_twice_adds_nothing(
    repo: Path, memory: api.Memory, capture: Capture, fixture_lines: list[bytes]
) -> None:
    capture(fixture_lines)
    compact_session(memory, "abc123")
    assert not (memory.paths.buffers / "abc123.jsonl").exists()
    before = snapshot(repo)
    again = compact_session(memory, "abc123")
    assert (again.added, again.updated, again.consumed) == ([], [], 0)
    assert compact_all(memory) == []
    assert snapshot(repo) == before


def test_replaying_the_same_session_adds_no_duplicate(
    repo: Path, memory: api.Memory, capture: Capture, fixture_lines: list[bytes]
) -> None:
    capture(fixture_lines)
    compact_session(memory, "abc123")
    items_before = {k: v for k, v in snapshot(repo).items() if k.startswith("items/")}
    capture(fixture_lines)
    result = compact_session(memory, "abc123")
    assert result.added == [] and result.updated == [] and result.consumed == 8
    items_after = {k: v for k, v in snapshot(repo).items() if k.startswith("items/")}
    assert items_after == items_before
    assert memory.lint() == []


def test_the_same_pitfall_in_another_session_updates_the_item(
    memory: api.Memory, capture: Capture, fixture_lines: list[bytes]
) -> None:
    capture(fixture_lines)
    first = compact_session(memory, "abc123").added[0]
    before = memory.get(first)
    capture(fixture_lines, session="def456")
    result = compact_session(memory, "def456")
    assert result.added == [] and result.updated == [first]
    items = memory.items()
    assert [i.id for i in items] == [first]
    after = items[0]
    assert {e["session"] for e in after.evidence} == {"abc123", "def456"}
    assert after.importance > before.importance
    assert after.created == before.created


def test_a_changed_port_is_a_new_item_that_supersedes_the_old(
    memory: api.Memory, capture: Capture, fixture_lines: list[bytes]
) -> None:
    capture(fixture_lines)
    old = compact_session(memory, "abc123").added[0]
    moved = [line.replace(b"5433", b"6543") for line in fixture_lines]
    capture(moved, session="ghi789")
    result = compact_session(memory, "ghi789")
    assert len(result.added) == 1 and result.superseded == [old]
    new = memory.get(result.added[0])
    assert new.supersedes == old and "6543" in new.title
    assert len(memory.items()) == 2
    assert memory.lint() == []
