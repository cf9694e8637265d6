"""The item commands end to end, through Typer's CliRunner, in real git repositories."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memcli.cli.app import app

runner = CliRunner()


def mem(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), input=stdin)
    return result.exit_code, result.stdout, result.stderr


def add(*extra: str) -> dict[str, object]:
    code, out, err = mem(
        "add",
        "--kind",
        "pitfall",
        "--title",
        "Postgres is on 5433 in tests",
        "--body",
        "conftest pinned 5432; the test server listens on 5433.",
        "--tag",
        "db",
        "--json",
        *extra,
    )
    assert code == 0, err
    return json.loads(out)


def test_init_outside_a_git_repository_fails_with_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = mem("init")
    assert code == 2
    assert out == ""
    assert err.startswith("mem: not inside a git repository") and err.count("\n") == 1


def test_init_creates_the_store_and_never_overwrites(bare_repo: Path) -> None:
    code, out, _ = mem("init")
    assert code == 0 and "initialised" in out
    memory = bare_repo / ".memory"
    for name in ("config.yaml", "items", "sessions", ".gitignore", "README.md"):
        assert (memory / name).exists(), name
    assert (memory / ".gitignore").read_text().strip() == "local/"
    (memory / "config.yaml").write_text("# mine\nbudgets:\n  index_tokens: 200\n")
    code, out, _ = mem("init")
    assert code == 0 and "it now has a project identity" in out  # adopted, nothing else
    mine = (memory / "config.yaml").read_text()
    assert mine.startswith("# mine\nbudgets:\n  index_tokens: 200\n") and "project: proj-" in mine
    code, out, _ = mem("init")
    assert code == 0 and "nothing changed" in out
    assert (memory / "config.yaml").read_text() == mine


def test_add_show_list_round_trip_as_json(repo: Path) -> None:
    item = add()
    files = list((repo / ".memory" / "items").glob("*.yaml"))
    assert [f.stem for f in files] == [item["id"]]
    code, out, _ = mem("show", str(item["id"]), "--json")
    assert code == 0 and json.loads(out) == item
    code, out, _ = mem("list", "--json")
    assert code == 0 and json.loads(out) == [item]
    assert item["scope"] == {"project": json.loads(out)[0]["scope"]["project"]}


def test_add_reads_the_body_from_stdin(repo: Path) -> None:
    code, out, err = mem(
        "add",
        "--kind",
        "convention",
        "--title",
        "We use ruff",
        "--json",
        stdin="Never black; ruff format is the formatter.\n",
    )
    assert code == 0, err
    assert json.loads(out)["body"] == "Never black; ruff format is the formatter."


def test_bad_arguments_exit_2_with_one_line(repo: Path) -> None:
    code, _, err = mem("add", "--kind", "rumour", "--title", "x", "--body", "y")
    assert code == 2 and "rumour" in err
    code, _, err = mem("add", "--kind", "env", "--title", "x", "--body", "y", "--expires", "soon")
    assert code == 2 and err.startswith("mem: ") and err.count("\n") == 1
    code, _, err = mem("show", "../../etc/passwd")
    assert code == 2 and "invalid item id" in err
    code, _, err = mem("show", "nosuchitem")
    assert code == 2 and "no item with id" in err


def test_show_accepts_a_unique_prefix(repo: Path) -> None:
    item = add()
    code, out, _ = mem("show", str(item["id"])[:5], "--json")
    assert code == 0 and json.loads(out)["id"] == item["id"]


def test_list_filters_by_kind_and_skips_a_broken_file_with_a_warning(repo: Path) -> None:
    item = add()
    mem("add", "--kind", "env", "--title", "Node 20", "--body", "nvm use 20")
    (repo / ".memory" / "items" / "broken0001.yaml").write_text("id: [\n")
    code, out, err = mem("list", "--json", "--kind", "pitfall")
    assert code == 0
    assert [i["id"] for i in json.loads(out)] == [item["id"]]
    assert "skipped .memory/items/broken0001.yaml:" in err


def test_lint_exits_1_naming_path_and_line(repo: Path) -> None:
    add()
    code, out, _ = mem("lint")
    assert code == 0 and "no problems" in out
    (repo / ".memory" / "items" / "broken0001.yaml").write_text("id: broken0001\nkind: [\n")
    code, out, _ = mem("lint")
    assert code == 1
    assert out.startswith(".memory/items/broken0001.yaml:")
    code, out, _ = mem("lint", "--json")
    assert code == 1 and json.loads(out)[0]["path"] == ".memory/items/broken0001.yaml"


def test_edit_by_options_revalidates(repo: Path) -> None:
    item = add()
    code, out, _ = mem(
        "edit", str(item["id"]), "--title", "Postgres: 5433", "--tag", "pg", "--json"
    )
    edited = json.loads(out)
    assert code == 0 and edited["title"] == "Postgres: 5433" and edited["tags"] == ["db", "pg"]
    code, out, _ = mem("edit", str(item["id"]), "--untag", "DB", "--tag", "ports", "--json")
    assert code == 0 and json.loads(out)["tags"] == ["pg", "ports"]
    code, out, _ = mem("edit", str(item["id"]), "--untag", "pg", "--untag", "ports", "--json")
    assert code == 0 and "tags" not in json.loads(out)  # an empty list is not written
    assert edited["created"] == item["created"]
    code, _, err = mem("edit", str(item["id"]), "--title", "two\nlines")
    assert code == 2 and "one line" in err


def test_edit_in_editor_keeps_the_file_valid(repo: Path, tmp_path: Path) -> None:
    item = add()
    script = tmp_path / "editor.sh"
    script.write_text('#!/bin/sh\nsed -i "s/^title: .*/title: Edited in the editor/" "$1"\n')
    script.chmod(0o755)
    os.environ["EDITOR"] = str(script)
    try:
        code, _, err = mem("edit", str(item["id"]))
        assert code == 0, err
        assert mem("show", str(item["id"]), "--json")[1].count("Edited in the editor") == 1
        script.write_text('#!/bin/sh\nsed -i "s/^kind: .*/kind: rumour/" "$1"\n')
        code, _, err = mem("edit", str(item["id"]))
        assert code == 2 and "kind" in err
        assert json.loads(mem("show", str(item["id"]), "--json")[1])["kind"] == "pitfall"
    finally:
        del os.environ["EDITOR"]


def test_forget_leaves_no_copy_under_memory(repo: Path) -> None:
    item = add()
    local = repo / ".memory" / "local"
    (local / "usage.json").write_text(json.dumps({str(item["id"]): {"hits": 3}}))
    (local / "receipts.jsonl").write_text(
        json.dumps({"query": "postgres", "returned": [item["id"]]})
        + "\n"
        + json.dumps({"query": "other", "returned": []})
        + "\n"
    )
    code, out, _ = mem("forget", str(item["id"]))
    assert code == 0 and "forgot" in out and "never committed" in out
    for path in (repo / ".memory").rglob("*"):
        if path.is_file():
            text = path.read_text(errors="replace")
            assert str(item["id"]) not in text, path
            assert "Postgres is on 5433" not in text, path
    assert "other" in (local / "receipts.jsonl").read_text()


def test_forget_of_a_committed_item_explains_git_history(repo: Path) -> None:
    from tests.conftest import git

    item = add()
    git(repo, "add", ".memory")
    git(repo, "commit", "-q", "-m", "memory")
    code, out, _ = mem("forget", str(item["id"]))
    assert code == 0 and "git history still holds" in out and "filter-repo" in out


def test_stats_json_counts_items_by_kind(repo: Path) -> None:
    add()
    add()
    code, out, _ = mem("stats", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["items"] == 2 and data["by_kind"] == {"pitfall": 2}
    assert data["pending_observations"] == {}
    assert data["store_bytes"] > 0


def test_commands_need_an_initialised_store(bare_repo: Path) -> None:
    code, _, err = mem("list")
    assert code == 2 and "mem init" in err


def test_internal_errors_exit_3_without_traceback(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memcli import api

    def boom(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("kaboom")

    monkeypatch.setattr(api.Memory, "items", boom)
    monkeypatch.delenv("MEM_DEBUG", raising=False)
    code, _, err = mem("list")
    assert code == 3 and "internal error: kaboom" in err and "Traceback" not in err


def test_add_edit_and_import_mask_secrets_before_writing(repo: Path, tmp_path: Path) -> None:
    token = "ghp_" + "Zx9" * 12
    code, out, _ = mem(
        "add", "--kind", "env", "--title", f"token {token}", "--json",
        "--body", "postgresql://shop:s3cr3t-Passw0rd@localhost:5432/shop",
    )  # fmt: skip
    item = json.loads(out)
    assert code == 0 and token not in out and "s3cr3t" not in out
    assert item["body"] == "postgresql://shop:[REDACTED]@localhost:5432/shop"
    mem("edit", str(item["id"]), "--body", f"export GITHUB_TOKEN={token}")
    source = tmp_path / "items.jsonl"
    source.write_text(json.dumps({"kind": "env", "title": "t", "body": f"key {token}"}) + "\n")
    assert mem("import", "--format", "jsonl", str(source))[0] == 0
    for path in (repo / ".memory" / "items").glob("*.yaml"):
        assert token not in path.read_text() and "s3cr3t" not in path.read_text()


def test_forget_takes_the_item_out_of_session_summaries(repo: Path) -> None:
    item = add()
    summary = repo / ".memory" / "sessions" / "s1.yaml"
    summary.write_text(
        "session: s1\n# kept comment\n"
        f"outcome: 'Found it: {item['title']}'\nitems:\n  - {item['id']}\n  - other12345\n"
    )
    assert mem("forget", str(item["id"]))[0] == 0
    text = summary.read_text()
    assert str(item["id"]) not in text and str(item["title"]) not in text
    assert "other12345" in text and "# kept comment" in text


def test_lint_checks_config_yaml_with_file_line_and_setting(repo: Path) -> None:
    config = repo / ".memory" / "config.yaml"
    config.write_text(config.read_text().replace("index_tokens: 400", "index_tokens: lots"))
    code, out, _ = mem("lint")
    line = config.read_text().splitlines().index("  index_tokens: lots") + 1
    assert code == 1
    assert out.startswith(f".memory/config.yaml:{line}: budgets.index_tokens: must be a number")
    config.write_text(config.read_text().replace("index_tokens: lots", "index_tokens: 300"))
    config.write_text(config.read_text() + "colour: blue\n")
    code, out, _ = mem("lint")
    assert code == 1 and "colour: unknown setting" in out


def test_a_missing_editor_is_a_usage_error(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    item = add()
    monkeypatch.setenv("EDITOR", "/nonexistent/editor")
    code, _, err = mem("edit", str(item["id"]))
    assert code == 2 and "cannot run '/nonexistent/editor'" in err


def test_compact_detach_is_a_quiet_fail_open_hook(
    bare_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    payload = json.dumps({"hook_event_name": "SessionEnd", "session_id": "s1"})
    for where in (bare_repo, tmp_path):  # no .memory/, then not even a repository
        monkeypatch.chdir(where)
        result = runner.invoke(app, ["compact", "--detach", "--agent", "gemini"], input=payload)
        assert result.exit_code == 0 and result.stdout == ""


def test_an_editor_that_changes_nothing_leaves_the_item_alone(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    item = add()
    path = repo / ".memory" / "items" / f"{item['id']}.yaml"
    before = path.read_text()
    monkeypatch.setenv("EDITOR", "true")
    code, out, _ = mem("edit", str(item["id"]))
    assert code == 0 and "no changes" in out and path.read_text() == before


def test_codex_session_start_compacts_the_sessions_that_went_quiet(repo: Path) -> None:
    """Codex has no session-end event: its SessionStart hook compacts the other sessions
    whose buffers went quiet, never the starting one (a resumed session goes on)."""
    import time

    for session in ("earlier", "resumed"):
        event = {
            "hook_event_name": "PostToolUse",
            "session_id": session,
            "tool_name": "Bash",
            "tool_input": {"command": "pytest"},
            "tool_response": {"stdout": "", "stderr": "E   boom", "exit_code": 1},
        }
        assert mem("capture", "--agent", "codex", stdin=json.dumps(event))[0] == 0
    buffers = repo / ".memory" / "local" / "buffer"
    for buffer in buffers.glob("*.jsonl"):
        past = buffer.stat().st_mtime - 10 * 60
        os.utime(buffer, (past, past))
    start = json.dumps({"hook_event_name": "SessionStart", "session_id": "resumed"})
    code, out, _ = mem("compact", "--detach", "--agent", "codex", stdin=start)
    assert code == 0 and out == ""
    deadline = time.monotonic() + 60
    while (buffers / "earlier.jsonl").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not (buffers / "earlier.jsonl").exists()
    assert (buffers / "resumed.jsonl").exists()
