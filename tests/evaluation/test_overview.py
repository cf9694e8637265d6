"""The numbers of the `mem stats` dashboard, and the dashboard itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memcli import api
from memcli.cli.dashboard import bar, human_bytes, render_dashboard
from memcli.evaluation.overview import overview
from memcli.paths import StorePaths


@pytest.fixture
def memory(repo: Path) -> api.Memory:
    memory = api.Memory.open(repo)
    a = memory.add("pitfall", "Tests need Postgres on port 5433", "PGPORT.", confidence="verified")
    b = memory.add("pitfall", "Clear the pip cache when wheels are stale", "pip cache purge.")
    memory.add("decision", "Lint with ruff", "Faster.")
    receipts = StorePaths(repo).local / "receipts.jsonl"
    lines = [
        {"time": "2026-11-20T10:00:00Z", "op": "index", "returned": [[a.id, 1.0], [b.id, 0.5]]},
        {"time": "2026-11-20T10:01:00Z", "op": "search", "returned": [[a.id, 2.0]]},
        {"time": "2026-11-20T10:02:00Z", "op": "mcp-get", "returned": [["gone00", 1.0]]},
    ]
    receipts.write_text("".join(json.dumps(x) + "\n" for x in lines))
    memory.record_use([b.id])
    return api.Memory.open(repo)


def test_overview_counts(memory: api.Memory) -> None:
    data = overview(memory)
    assert data["items"] == 3
    assert data["by_kind"] == {"pitfall": 2, "decision": 1}
    assert data["by_age"]["< 1 day"] == 3 and sum(data["by_age"].values()) == 3
    assert data["verified"] == 1 and data["verified_share"] == pytest.approx(0.3333)
    top = data["top_retrieved"]
    assert [(t["retrieved"], t["opened"]) for t in top] == [(2, 0), (1, 1), (1, 0)]
    assert top[0]["title"] == "Tests need Postgres on port 5433"
    assert top[2]["title"] == "(no longer in the store)"
    assert data["sizes"]["files"] == 3 and data["sizes"]["store_bytes"] > 0
    assert data["injection"]["sessions"] == 0  # no captured session: nothing to judge


def test_render_dashboard_prints_the_sections(
    memory: api.Memory, capsys: pytest.CaptureFixture[str]
) -> None:
    render_dashboard(memory)
    out = capsys.readouterr().out
    for text in ("mem stats: 3 items", "by kind", "by age", "verified", "most retrieved"):
        assert text in out, text
    assert "1 of 3 (33%)" in out
    assert "injection rate: nothing injected yet" in out


def test_render_dashboard_on_an_empty_store(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    render_dashboard(api.Memory.open(repo))
    assert "No items yet" in capsys.readouterr().out


def test_bars_and_sizes() -> None:
    assert bar(0, 10) == "" and bar(5, 0) == ""
    assert bar(10, 10, width=4) == "████"
    assert bar(5, 10, width=4) == "██"
    assert bar(1, 1000, width=4) == "▏"  # never invisible when there is something
    assert human_bytes(512) == "512 B" and human_bytes(2048) == "2.0 KB"
