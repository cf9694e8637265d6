"""`mem log ID`: one item's history across commits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from review_helpers import commit, git, item_path, mem, save


@pytest.fixture
def edited(repo: Path) -> Path:
    save(repo, "aaaa000001", "Tests need Postgres on port 5433", tags=("db",))
    commit(repo, "add the item")
    save(repo, "aaaa000001", "Tests need Postgres on port 5433", tags=("db", "ci"))
    commit(repo, "tag it")
    save(
        repo,
        "aaaa000001",
        "Tests need Postgres on port 5433",
        tags=("db", "ci"),
        body="Conftest pins 5432.\nThe server listens on 5433.",
    )
    commit(repo, "explain it")
    return repo


def test_history_lists_every_commit_newest_first_with_its_changes(edited: Path) -> None:
    code, out, err = mem("log", "aaaa000001", "--json")
    assert code == 0, err
    versions = json.loads(out)
    assert [v["subject"] for v in versions] == ["explain it", "tag it", "add the item"]
    assert [v["status"] for v in versions] == ["changed", "changed", "added"]
    assert versions[1]["changes"] == [{"field": "tags", "old": ["db"], "new": ["db", "ci"]}]
    assert "+The server listens on 5433." in versions[0]["body_diff"]
    assert versions[2]["title"] == "Tests need Postgres on port 5433"


def test_history_as_text_and_by_prefix(edited: Path) -> None:
    code, out, _ = mem("log", "aaaa")
    assert code == 0
    assert "tag it" in out and "    tags: +ci" in out
    assert "      +The server listens on 5433." in out


def test_uncommitted_edits_come_first(edited: Path) -> None:
    save(edited, "aaaa000001", "Tests need Postgres on port 5433", tags=("db",))
    code, out, _ = mem("log", "aaaa000001", "--json")
    versions = json.loads(out)
    assert versions[0]["sha"] is None and versions[0]["changes"][0]["field"] == "tags"


def test_a_forgotten_item_keeps_its_history(edited: Path) -> None:
    item_path(edited, "aaaa000001").unlink()
    commit(edited, "forget it")
    code, out, _ = mem("log", "aaaa000001", "--json")
    assert code == 0
    versions = json.loads(out)
    assert versions[0]["status"] == "removed" and versions[0]["subject"] == "forget it"
    assert versions[0]["title"] == "Tests need Postgres on port 5433"


def test_an_archived_item_follows_the_move(edited: Path) -> None:
    archive = edited / ".memory" / "archive"
    archive.mkdir()
    git(edited, "mv", str(item_path(edited, "aaaa000001")), str(archive / "aaaa000001.yaml"))
    commit(edited, "archive it")
    code, out, _ = mem("log", "aaaa000001", "--json")
    subjects = [v["subject"] for v in json.loads(out)]
    assert subjects == ["archive it", "explain it", "tag it", "add the item"]


def test_an_unknown_item_is_a_usage_error(edited: Path) -> None:
    code, out, err = mem("log", "zzzz999999")
    assert code == 2 and out == ""
    assert "no history for item zzzz999999" in err
