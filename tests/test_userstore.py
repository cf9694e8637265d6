"""The opt-in user-level store: cross-project conventions, seen only where a repo opts in."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memcli.cli.app import app

runner = CliRunner()


def mem(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout


def opt_in(repo: Path) -> None:
    config = repo / ".memory" / "config.yaml"
    config.write_text(config.read_text().replace("user_store: false", "user_store: true"))


def test_user_conventions_reach_only_repositories_that_opt_in(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEM_USER_HOME", str(tmp_path / "user"))
    assert mem("add", "--user", "--kind", "convention", "--title", "t", "--body", "b")[0] == 2
    code, out = mem("init", "--user")
    assert code == 0 and "created" in out
    assert "nothing changed" in mem("init", "--user")[1]
    code, out = mem(
        "add", "--user", "--kind", "convention", "--json",
        "--title", "Always pin ruff in pre-commit", "--body", "Across every project.",
    )  # fmt: skip
    item = json.loads(out)
    assert code == 0 and item["scope"] == {"project": "user"}
    assert (tmp_path / "user" / ".memory" / "items" / f"{item['id']}.yaml").is_file()
    assert not list((repo / ".memory" / "items").glob("*.yaml"))

    assert json.loads(mem("search", "pin ruff pre-commit", "--json")[1]) == []
    opt_in(repo)
    hits = json.loads(mem("search", "pin ruff pre-commit", "--json")[1])
    assert [h["id"] for h in hits] == [item["id"]]
    code, out = mem("show", item["id"], "--json")
    assert code == 0 and json.loads(out)["title"] == "Always pin ruff in pre-commit"
