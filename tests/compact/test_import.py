"""`mem import`: bulk JSONL items, and Claude Code transcripts through the compactor."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from compact_helpers import DATA, SECRETS, memory_text, snapshot
from hypothesis import given, settings
from hypothesis import strategies as st

from memcli import api, itemlayout, model, yamlio
from memcli.compact import import_claude_code, import_jsonl
from memcli.errors import MemError

TRANSCRIPT = DATA / "port-session-transcript.jsonl"
SHARED = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "claude-code" / "transcripts"


def write_lines(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_jsonl_items_keep_valid_ids_and_reimporting_adds_nothing(
    tmp_path: Path, memory: api.Memory
) -> None:
    source = write_lines(
        tmp_path / "items.jsonl",
        [
            {
                "id": "pip-1234",
                "title": "Drop Python 3.7",
                "body": "EOL.\n\nNo more.",
                "kind": "decision",
                "tags": ["python", "support"],
                "created": "2023-06-01T10:00:00+02:00",
                "project": "github.com/pypa/pip",
            },  # fmt: skip
            {
                "id": "Bad Id!",
                "title": "Vendor rich",
                "body": "For progress bars",
                "kind": "decision",
            },
            {
                "title": "Resolver backtracks on conflicts",
                "body": "",
                "kind": "pitfall",
                "tags": "resolver, perf",
            },  # fmt: skip
        ],
    )
    result = import_jsonl(memory, source)
    assert (result.added, result.renamed, result.unchanged) == (3, 1, 0)
    assert result.ids[0] == "pip-1234"
    first = memory.get("pip-1234")
    assert first.created == "2023-06-01T08:00:00Z" and first.scope == {
        "project": "github.com/pypa/pip"
    }
    assert first.body == "EOL.\n\nNo more.\n" and first.source["compactor"] == "import"
    third = memory.get(result.ids[2])
    assert third.body == third.title and third.tags == ["resolver", "perf"]
    assert third.scope["project"] == memory.scope()["project"]
    assert memory.lint() == []
    again = import_jsonl(memory, source)
    assert (again.added, again.updated, again.unchanged) == (0, 0, 3)


def test_a_bad_line_names_file_and_line_and_writes_nothing(
    tmp_path: Path, memory: api.Memory
) -> None:
    source = write_lines(
        tmp_path / "items.jsonl",
        [
            {"title": "Fine", "body": "ok", "kind": "env"},
            {"title": "Bad", "body": "x", "kind": "note"},
        ],
    )
    with pytest.raises(MemError, match=r"items.jsonl:2: kind: 'note' is not one of"):
        import_jsonl(memory, source)
    assert memory.items() == []
    (tmp_path / "dup.jsonl").write_text(
        '{"id": "abc", "title": "a", "body": "b", "kind": "env"}\n' * 2
    )
    with pytest.raises(MemError, match=r"dup.jsonl:2: id: 'abc' is already used on line 1"):
        import_jsonl(memory, tmp_path / "dup.jsonl")


def test_a_changed_line_rewrites_its_item_keeping_comments(
    tmp_path: Path, memory: api.Memory
) -> None:
    row = {"id": "k01", "title": "Old title", "body": "Body", "kind": "env"}
    import_jsonl(memory, write_lines(tmp_path / "a.jsonl", [row]))
    path = memory.paths.item_file("k01")
    path.write_text(path.read_text().replace("kind: env", "kind: env  # reviewed"))
    result = import_jsonl(
        memory, write_lines(tmp_path / "b.jsonl", [{**row, "title": "New title"}])
    )
    assert result.updated == 1
    assert "# reviewed" in path.read_text() and memory.get("k01").title == "New title"


def test_thousands_of_items_import_quickly(tmp_path: Path, memory: api.Memory) -> None:
    rows = [
        {
            "id": f"c{n:05d}",
            "title": f"Commit {n}: fix the resolver",
            "body": f"Line one {n}.\nLine two.",
            "kind": "decision",
            "tags": ["git"],
            "created": "2024-01-01T00:00:00Z",
        }  # fmt: skip
        for n in range(3_000)
    ]
    source = write_lines(tmp_path / "many.jsonl", rows)
    result = import_jsonl(memory, source)  # `make bench` times 30,000: no clock here
    assert result.added == 3_000
    item, problems = memory.store.read(memory.paths.item_file("c02999"))
    assert problems == [] and item is not None and item.body == "Line one 2999.\nLine two.\n"


printable = st.text(st.characters(blacklist_categories=("Cs",)), max_size=80)


@settings(deadline=None)
@given(title=printable, body=printable, tags=st.lists(printable, max_size=3), project=printable)
def test_the_fast_writer_reads_back_as_written(
    title: str, body: str, tags: list[str], project: str
) -> None:
    data = {
        "id": "abc",
        "kind": "env",
        "title": title,
        "body": body,
        "tags": tags,
        "scope": {"project": project},
        "importance": 0.5,
        "created": "2026-01-01T00:00:00Z",
        "anchors": [{"path": body, "symbol": title}],
    }
    text = itemlayout.render(data)
    doc, problem = yamlio.parse(text, "x.yaml")
    assert problem is None and doc is not None
    assert doc.plain() == data


def test_the_fast_writer_matches_the_round_trip_layout_for_plain_items() -> None:
    data = {
        "id": "abc",
        "kind": "pitfall",
        "title": "Tests need Postgres on 5433",
        "body": "conftest pinned 5432.\nSet PGPORT.\n",
        "tags": ["db"],
        "scope": {"project": "github.com/acme/shop"},
        "importance": 0.6,
        "anchors": [{"path": "tests/conftest.py", "symbol": "pg_port"}],
    }
    assert itemlayout.render(data) == yamlio.render(data, None, model.FIELD_ORDER)


def test_a_transcript_imports_through_the_same_filters_and_compactor(
    repo: Path, memory: api.Memory, tmp_path: Path
) -> None:
    seen: list[tuple[int, int]] = []
    result = import_claude_code(
        memory, TRANSCRIPT, progress=lambda done, total: seen.append((done, total))
    )
    assert seen[-1] == (14, 14)
    assert result.skipped_lines == 2
    [item] = memory.items()
    assert item.kind == "pitfall" and item.confidence == "verified"
    assert "5433" in item.title and "DB_PORT" in item.title
    assert item.anchors == [{"path": "tests/conftest.py"}]
    assert item.created == "2026-11-20T09:00:10Z"
    assert result.ids == [item.id] and result.added == 1
    text = memory_text(repo)
    for secret in SECRETS:
        assert secret not in text
    raw = (memory.paths.raw / "tr-port-1.jsonl").read_text()
    assert all(e["ref"].split("#")[1] in raw for e in item.evidence)
    summary = (memory.paths.sessions / "tr-port-1.yaml").read_text()
    assert "intent: The order tests fail since yesterday, find out why" in summary
    assert "tabs" not in text  # a sub-agent's last text is SubagentStop, which mem does not hook
    before = snapshot(repo)
    folder = tmp_path / "-home-dev-shop"
    folder.mkdir()
    shutil.copy(TRANSCRIPT, folder)
    again = import_claude_code(memory, folder)
    assert again.added == 0 and again.updated == 0
    assert snapshot(repo) == before


def test_a_missing_path_is_an_error(memory: api.Memory, tmp_path: Path) -> None:
    with pytest.raises(MemError, match="no such file or folder"):
        import_claude_code(memory, tmp_path / "nope")


@pytest.mark.skipif(not SHARED.is_dir(), reason="the shared fixtures are not beside the project")
def test_the_shared_public_transcripts_import_without_error(
    memory: api.Memory, tmp_path: Path
) -> None:
    folder = tmp_path / "slug"
    shutil.copytree(SHARED, folder)
    os.utime(folder)
    result = import_claude_code(memory, folder)
    assert result.lines > 0 and len(result.sessions) >= 4
    assert memory.lint() == []


def test_undated_lines_keep_their_first_import_time(
    tmp_path: Path, memory: api.Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memcli import timeutil

    source = write_lines(tmp_path / "a.jsonl", [{"title": "t", "body": "b", "kind": "env"}])
    monkeypatch.setattr(timeutil, "now", lambda: "2026-01-01T00:00:00Z")
    first = import_jsonl(memory, source)
    monkeypatch.setattr(timeutil, "now", lambda: "2026-01-02T00:00:00Z")
    again = import_jsonl(memory, source)
    assert again.ids == first.ids and (again.added, again.unchanged) == (0, 1)
    assert memory.get(first.ids[0]).created == "2026-01-01T00:00:00Z"
