"""One store, three ways in: the CLI, the Python API and the MCP tools answer alike.

Search includes the opt-in user-level store (the merge lives in the library, so the API and
the MCP server see it as `mem search` does); show/get, index and add are compared on the
same repository.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memcli import api, userstore
from memcli.cli.app import app
from memcli.mcpserver.service import MemoryService

runner = CliRunner()


def mem(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.stderr
    return result.stdout


@pytest.fixture
def both_stores(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A project store and an opted-in user-level store, each with a ruff item."""
    monkeypatch.setenv("MEM_USER_HOME", str(tmp_path / "user"))
    userstore.init()
    user_item = api.Memory.open_user().add(
        "convention", "Always pin ruff in pre-commit", "Across every project: pin ruff."
    )
    config = repo / ".memory" / "config.yaml"
    config.write_text(config.read_text().replace("user_store: false", "user_store: true"))
    memory = api.Memory.open(repo)
    project_item = memory.add("decision", "Lint with ruff, not flake8", "ruff covers isort.")
    memory.add("pitfall", "Tests need Postgres on port 5433", "Export PGPORT=5433.")
    return {"user": user_item.id, "project": project_item.id}


def test_search_sees_the_user_store_in_cli_api_and_mcp(both_stores: dict[str, str]) -> None:
    query = "pin ruff"
    cli = [(h["id"], h["score"]) for h in json.loads(mem("search", query, "--json"))]
    outcome = api.Memory.open().search(query)
    library = [(r.id, r.score) for r in outcome.results]
    tool = MemoryService(Path.cwd()).search(query, limit=10)
    mcp = [(h["id"], h["score"]) for h in tool["results"]]
    assert {i for i, _ in cli} >= {both_stores["user"], both_stores["project"]}
    assert cli == library == mcp


def test_show_get_and_find_give_the_same_item(both_stores: dict[str, str]) -> None:
    service = MemoryService(Path.cwd())
    for item_id in both_stores.values():  # one from each store
        cli = json.loads(mem("show", item_id, "--json"))
        _store, item = api.Memory.open().find(item_id)
        tool = service.get(item_id)
        assert cli == item.to_dict() == tool


def test_index_is_the_same_text_and_items(both_stores: dict[str, str]) -> None:
    # A cold `mem index` answers from what it read inside the hook's time budget; parity is
    # about an up-to-date index, so build it first.
    mem("reindex")
    cli = json.loads(mem("index", "--format", "json", "--budget", "300"))
    layer = api.Memory.open().index(300)
    tool = MemoryService(Path.cwd()).index(300)
    assert [e["id"] for e in cli["items"]] == [e.id for e in layer.entries]
    assert [e["id"] for e in tool["items"]] == [e.id for e in layer.entries]
    assert cli["text"] == layer.text
    # The tool's closing line names its tools instead of the commands; the rest is the same.
    assert tool["text"].splitlines()[:-2] == layer.text.splitlines()[:-2]


def test_add_writes_the_same_item_through_each_way_in(repo: Path) -> None:
    fields = {"kind": "env", "title": "CI runs on Python 3.12", "body": "Set in ci.yml."}
    cli = json.loads(
        mem("add", "--kind", "env", "--title", fields["title"], "--body", fields["body"],
            "--tag", "ci", "--json")
    )  # fmt: skip
    library = api.Memory.open().add(fields["kind"], fields["title"], fields["body"], tags=["ci"])
    tool = MemoryService(repo).add(fields["kind"], fields["title"], fields["body"], ["ci"])
    ignored = {"id", "created", "updated", "source", "path"}
    same = [
        {k: v for k, v in d.items() if k not in ignored} for d in (cli, library.to_dict(), tool)
    ]
    assert same[0] == same[1] == same[2]
    assert tool["source"]["compactor"] == "mcp" and cli["source"]["compactor"] == "manual"


def test_recall_is_what_the_hook_injects(both_stores: dict[str, str]) -> None:
    text, hits = api.Memory.open().recall("ruff flake8 lint", 200, record=False)
    assert hits and hits[0].id == both_stores["project"]
    assert text.startswith("<mem-context>") and both_stores["project"] in text
