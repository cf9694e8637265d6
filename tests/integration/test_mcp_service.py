"""The MCP tools' work in-process: the index stays loaded, arguments are checked, receipts kept."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from memcli import api
from memcli.errors import MemError
from memcli.mcpserver.service import MemoryService
from memcli.paths import StorePaths
from memcli.retrieval import persisted, receipts, usage


def age_items(root: Path) -> None:
    """Move item files and the folder out of the index's racy window (as a real store is)."""
    items = StorePaths(root).items
    past = 10_000_000_000
    for path in [*items.iterdir(), items]:
        st = path.stat()
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - past))


@pytest.fixture
def service(repo: Path) -> MemoryService:
    memory = api.Memory.open(repo)
    memory.add("pitfall", "Tests need Postgres on port 5433", "Export PGPORT=5433.", tags=["db"])
    memory.add("decision", "Lint with ruff, not flake8", "ruff covers isort.")
    age_items(repo)
    return MemoryService(repo)


def test_the_index_stays_loaded_between_calls(service: MemoryService, repo: Path) -> None:
    assert service.search("postgres")["results"]
    held = service.cache._index
    assert held is not None and service.cache.loads == 1
    assert service.search("ruff")["results"]
    service.index()
    assert service.cache._index is held and service.cache.loads == 1

    added = service.add("env", "Redis runs on port 6380 locally", "docker compose maps 6380.")
    found = service.search("redis 6380")["results"]
    assert [r["id"] for r in found] == [added["id"]]
    assert service.cache.loads == 2 and service.cache._index is not held


def test_a_damaged_index_is_rebuilt(service: MemoryService, repo: Path) -> None:
    assert service.search("postgres")["results"]
    service.cache.close()
    index_file = repo / ".memory" / "local" / "index" / persisted.INDEX_NAME
    index_file.write_bytes(b"garbage")
    assert service.search("postgres")["results"]


def test_receipts_and_use_counts(service: MemoryService, repo: Path) -> None:
    hit = service.search("postgres 5433", limit=3)["results"][0]
    item = service.get(hit["id"], evidence=True)
    assert item["body"].startswith("Export PGPORT") and item["evidence"] == []
    layer = service.index(budget=200)
    assert layer["tokens"] <= 200 and "memory_get(id)" in layer["text"]
    paths = StorePaths(repo)
    ops = [r["op"] for r in receipts.read(paths)]
    assert ops == ["mcp-search", "mcp-get", "mcp-index"]
    assert all(r["tokens"] > 0 for r in receipts.read(paths))
    assert usage.hit_counts(paths) == {hit["id"]: 1}  # a get is a use, a search is not


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda s: s.search(""), "query: must not be empty"),
        (lambda s: s.search("x", limit=0), "limit: must be a whole number from 1 to 50"),
        (lambda s: s.search("x", limit=51), "limit:"),
        (lambda s: s.search("x", kind="rumour"), "kind: 'rumour' is not one of"),
        (lambda s: s.get("../../etc/passwd"), "id: invalid item id"),
        (lambda s: s.get("zzzzzzzzzz"), "id: no item with id 'zzzzzzzzzz'"),
        (lambda s: s.index(budget=0), "budget:"),
        (lambda s: s.add("rumour", "t", "b"), "kind: 'rumour'"),
        (lambda s: s.add("env", "two\nlines", "b"), "title: must be one line"),
        (lambda s: s.add("env", "t" * 300, "b"), "title: longer than 200 characters"),
        (lambda s: s.add("env", "t", "b" * 9000), "body: longer than"),
        (lambda s: s.add("env", "t", "b", tags=["two words"]), "tags:"),
        (lambda s: s.add("env", "t", "<private>all of it</private>"), "nothing is left"),
    ],
)
def test_bad_arguments_raise_one_line_errors(
    service: MemoryService, call: Callable[[MemoryService], object], message: str
) -> None:
    with pytest.raises(MemError) as caught:
        call(service)
    assert message in caught.value.message and "\n" not in caught.value.message


def test_memory_add_masks_drops_fences_and_marks_the_source(service: MemoryService) -> None:
    key = "AKIA" + "Z7QK3M9XW2R8T4VB"
    added = service.add(
        "env",
        "Deploys use the ci-deploy IAM user",
        f"Its key {key} lives in the vault.\n<mem-context>old memory</mem-context>",
        tags=["AWS", "ci"],
    )
    assert key not in added["body"] and "[REDACTED]" in added["body"]
    assert "old memory" not in added["body"] and "mem-context" not in added["body"]
    assert added["tags"] == ["aws", "ci"] and added["confidence"] == "assumed"
    assert added["source"]["compactor"] == "mcp"


def test_a_repository_without_a_store_gives_a_tool_error(bare_repo: Path) -> None:
    service = MemoryService(bare_repo)
    with pytest.raises(MemError, match=r"no \.memory/ in .* \(run `mem init` there first\)"):
        service.search("anything")


def test_the_served_repository(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memcli.cli.mcp_cmd import PROJECT_ENV, server_root

    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    (other / "src").mkdir()
    monkeypatch.delenv(PROJECT_ENV, raising=False)
    assert server_root(None) == repo  # the current folder
    monkeypatch.setenv(PROJECT_ENV, str(other / "src"))
    assert server_root(None) == other  # what Claude Code says the project is
    assert server_root(repo) == repo  # --root wins
    with pytest.raises(MemError, match="--root: .* is not a folder"):
        server_root(tmp_path / "missing")
    with pytest.raises(MemError, match="not inside a git repository"):
        server_root(tmp_path)


def _checkpoint_with_a_candidate(repo: Path) -> str:
    """A session whose checkpoint named one candidate (a decision); its id."""
    from memcli.checkpoint import run

    local = str(StorePaths(repo).local)
    said = "I kept prices as integer cents instead of floats because floats lose pennies."
    payload = {"session_id": "s9", "last_assistant_message": said}
    reason = run.checkpoint(payload, "claude-code", local)
    assert reason is not None
    return next(x for x in reason.splitlines() if x.startswith("- c")).split()[1]


def test_memory_add_with_a_candidate_keeps_its_evidence_and_author(
    service: MemoryService, repo: Path
) -> None:
    candidate = _checkpoint_with_a_candidate(repo)
    added = service.add(
        "decision", "Prices are integer cents", "Floats lose pennies in sums.", ["money"], candidate
    )
    assert added["source"]["author"] == "model" and added["source"]["compactor"] == "checkpoint"
    assert added["evidence"][0]["session"] == "s9"
    assert "integer cents instead of floats" in added["evidence"][0]["excerpt"]
    again = service.add("decision", "Prices are integer cents", "Same.", None, candidate)
    assert again["id"] == added["id"]  # merged, never a second item
    with pytest.raises(MemError, match="no candidate"):
        service.add("decision", "t", "b", None, "cffffffff")


def test_memory_dismiss(service: MemoryService, repo: Path) -> None:
    candidate = _checkpoint_with_a_candidate(repo)
    assert service.dismiss([candidate]) == {"dismissed": [candidate]}
    with pytest.raises(MemError, match="candidates: no candidate cffffffff"):
        service.dismiss(["cffffffff"])


def test_a_budget_too_small_for_one_line_says_which_would_do(service: MemoryService) -> None:
    tiny = service.index(1)
    assert tiny["text"] == "" and tiny["shown"] == 0 and tiny["total"] == 2
    needed = int(tiny["hint"].split("at least ")[1].split(",")[0])
    assert service.index(needed)["shown"] >= 1
    assert service.index(needed - 1)["shown"] == 0
    assert "hint" not in service.index(needed)


def test_an_empty_store_says_so(repo: Path) -> None:
    answer = MemoryService(repo).index()
    assert answer["total"] == 0 and "No items" in answer["hint"]


def test_an_item_edited_in_place_is_seen_by_the_next_call(
    service: MemoryService, repo: Path
) -> None:
    [hit] = service.search("postgres")["results"]
    path = StorePaths(repo).item_file(hit["id"])
    stat, folder = path.stat(), StorePaths(repo).items.stat()
    with open(path, "r+", encoding="utf-8") as handle:  # in place: same inode
        text = handle.read().replace("Postgres", "Cockroach")
        handle.seek(0)
        handle.write(text)
        handle.truncate()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    os.utime(StorePaths(repo).items, ns=(folder.st_atime_ns, folder.st_mtime_ns))
    assert service.search("postgres")["results"] == []
    assert [h["id"] for h in service.search("cockroach")["results"]] == [hit["id"]]
