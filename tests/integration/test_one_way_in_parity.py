"""One store, three ways in: the CLI, the Python API and the MCP tools answer alike.

Search includes the opt-in user-level store (the merge lives in the library, so the API and
the MCP server see it as `mem search` does); show/get, index and add are compared on the
same repository. Compact, import, prune, diff and stats have no MCP tool: the CLI and the API
are compared.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from memcli import api, userstore
from memcli.cli.app import app
from memcli.errors import MemError
from memcli.mcpserver.service import MemoryService
from tests.conftest import git

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


# Upkeep: compact, import, prune, diff, stats. These change the store, so the CLI works on
# the repository and the API on a copy made before (a twin: same files, same git history).


@pytest.fixture
def twin(repo: Path, tmp_path: Path) -> Path:
    """A copy of ``repo`` made now, for the API to do what the CLI does to ``repo``."""
    copy = tmp_path / "twin"
    shutil.copytree(repo, copy, symlinks=True)
    return copy


def committed(root: Path) -> dict[str, Any]:
    """Items and session summaries by file name, without the times a run stamps."""
    stamped = ("created:", "updated:", "compacted:", "generated:")
    return {
        str(path.relative_to(root / ".memory")): [
            line for line in path.read_text().splitlines() if not line.startswith(stamped)
        ]
        for folder in ("items", "sessions")
        for path in sorted((root / ".memory" / folder).glob("*.yaml"))
    }


def observation(number: int, session: str, excerpt: str) -> dict[str, Any]:
    obs_id = f"o{number:06d}parity"
    return {
        "id": obs_id, "session": session, "project": "github.com/acme/shop", "branch": "main",
        "ts": f"2026-11-29T10:00:{number:02d}Z", "agent": "claude-code",
        "event": "UserPromptSubmit", "tool": None, "kind": "prompt",
        "summary": f"prompt: {excerpt}", "ok": None, "exit_code": None, "files": [],
        "hashes": {}, "input": "", "excerpt": excerpt, "raw": f"raw/{session}.jsonl#{obs_id}",
    }  # fmt: skip


def write_buffers(root: Path) -> None:
    folder = root / ".memory" / "local" / "buffer"
    folder.mkdir(parents=True, exist_ok=True)
    for number, (session, said) in enumerate(
        [("one", "We use pnpm, never npm."), ("two", "Never commit .env files, use .env.example.")]
    ):
        line = json.dumps(observation(number, session, said))
        (folder / f"{session}.jsonl").write_text(line + "\n", encoding="utf-8")


def test_compact_gives_the_same_items_through_cli_and_api(repo: Path, twin: Path) -> None:
    for root in (repo, twin):
        write_buffers(root)
    cli = json.loads(mem("compact", "--all", "--json"))
    library = [
        {k: getattr(r, k) for k in ("session", "added", "updated", "superseded", "consumed")}
        | {"compactor": r.compactor, "skipped": r.skipped}
        for r in api.Memory.open(twin).compact()
    ]
    assert cli == library and sum(r["consumed"] for r in cli) == 2
    assert committed(repo) == committed(twin) and any(committed(repo))
    again = json.loads(mem("compact", "--session", "one", "--json"))
    assert again == [
        {k: getattr(r, k) for k in ("session", "added", "updated", "superseded", "consumed")}
        | {"compactor": r.compactor, "skipped": r.skipped}
        for r in api.Memory.open(twin).compact("one")
    ]


def test_import_gives_the_same_result_through_cli_and_api(
    repo: Path, twin: Path, tmp_path: Path
) -> None:
    lines = [
        {"kind": "pitfall", "title": "Tests need Postgres on 5433", "body": "Export PGPORT."},
        {"kind": "convention", "title": "Use pnpm, never npm", "body": "The lockfile is pnpm's."},
    ]
    source = tmp_path / "items.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    cli = json.loads(mem("import", "--format", "jsonl", str(source), "--json"))
    result = api.Memory.open(twin).import_items([source], "jsonl")
    assert cli["ids"] == result.ids and len(result.ids) == 2
    assert (cli["added"], cli["updated"]) == (result.added, result.updated) == (2, 0)
    assert committed(repo) == committed(twin)
    source.write_text('{"kind": "nonsense"}\n', encoding="utf-8")
    failed = runner.invoke(app, ["import", "--format", "jsonl", str(source)])
    with pytest.raises(MemError) as caught:
        api.Memory.open(twin).import_items([source], "jsonl")
    assert (failed.exit_code, failed.stderr) == (2, f"mem: {caught.value.message}\n")


def test_prune_check_and_apply_agree_through_cli_and_api(repo: Path, tmp_path: Path) -> None:
    memory = api.Memory.open(repo)
    memory.add("pitfall", "Staging is down until the migration lands", "Use prod-like.",
               expires="2020-01-01")  # fmt: skip
    memory.add("decision", "Lint with ruff, not flake8", "ruff covers isort.")
    twin = tmp_path / "twin"
    shutil.copytree(repo, twin, symlinks=True)
    checked = runner.invoke(app, ["prune", "--check", "--json"])
    assert checked.exit_code in (0, 1)
    report = api.Memory.open(repo).prune_check()
    assert json.loads(checked.stdout) == report.to_json()
    assert any(f["check"] == "expired" for f in json.loads(checked.stdout)["findings"])
    applied = runner.invoke(app, ["prune", "--delete", "--json"])
    library = api.Memory.open(twin).prune_apply(archive=False)
    assert json.loads(applied.stdout) == library.to_json() and library.applied
    assert committed(repo) == committed(twin)


def test_diff_and_stats_are_the_same_through_cli_and_api(repo: Path) -> None:
    git(repo, "add", ".memory")
    git(repo, "commit", "-q", "-m", "memory")
    api.Memory.open(repo).add("decision", "Lint with ruff, not flake8", "ruff covers isort.")
    cli = json.loads(mem("diff", "HEAD", "--json"))
    library = api.Memory.open().diff("HEAD").to_json()
    for side in (cli, library):  # the working tree's side is stamped with the time of reading
        assert side["head"].pop("time")
    assert cli == library
    assert [entry["title"] for entry in cli["added"]] == ["Lint with ruff, not flake8"]
    assert json.loads(mem("stats", "--json")) == api.Memory.open().stats()


def test_upkeep_errors_name_the_field_and_the_cli_shows_the_flag(repo: Path) -> None:
    with pytest.raises(MemError) as caught:
        api.Memory.open().import_items([repo / "README.md"], "yaml")
    assert caught.value.field == "format" and caught.value.message.startswith("format: ")
    result = runner.invoke(app, ["import", "--format", "yaml", "README.md"])
    assert result.exit_code == 2
    assert result.stderr.startswith("mem: --format: 'yaml' is not one of claude-code, codex")
    result = runner.invoke(app, ["diff", "--format", "yaml"])
    assert (result.exit_code, result.stderr.startswith("mem: --format: 'yaml'")) == (2, True)
