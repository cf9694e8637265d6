"""`mem hooks install | uninstall | show`, run through Typer's CliRunner in real folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from memcli import hooks
from memcli.cli import hooks as hooks_cli
from memcli.hookprogram import program


def make_app() -> typer.Typer:
    app = typer.Typer()
    app.add_typer(hooks_cli.app)

    @app.callback()
    def main() -> None:
        """mem"""

    return app


runner = CliRunner()


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(root)
    return root


def test_no_arguments_shows_help(repo: Path) -> None:
    result = runner.invoke(make_app(), ["hooks"])
    for command in ("install", "uninstall", "show"):
        assert command in result.output


def test_install_then_again(repo: Path) -> None:
    first = runner.invoke(make_app(), ["hooks", "install"])
    assert first.exit_code == 0, first.output
    assert first.stdout == "installed 8 mem hooks into .claude/settings.json\n"
    again = runner.invoke(make_app(), ["hooks", "install"])
    assert again.exit_code == 0
    assert again.stdout == "mem hooks already installed in .claude/settings.json\n"
    doc = json.loads((repo / ".claude/settings.json").read_text(encoding="utf-8"))
    assert doc == hooks.mem_hooks("claude-code", program=program())


def test_install_from_a_subfolder_uses_the_repository_root(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sub = repo / "src" / "pkg"
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)
    result = runner.invoke(make_app(), ["hooks", "install", "--agent", "codex"])
    assert result.exit_code == 0, result.output
    assert result.stdout == "installed 6 mem hooks into .codex/hooks.json\n"
    assert (repo / ".codex/hooks.json").exists() and not (sub / ".codex").exists()
    assert "/hooks" in result.stderr  # what else Codex needs is said on stderr


def test_a_git_file_marks_a_worktree_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "worktree"
    root.mkdir()
    (root / ".git").write_text("gitdir: /elsewhere/.git/worktrees/w\n", encoding="utf-8")
    monkeypatch.chdir(root)
    result = runner.invoke(make_app(), ["hooks", "install", "--agent", "cursor"])
    assert result.exit_code == 0, result.output
    assert (root / ".cursor/hooks.json").exists()


def test_project_scope_outside_a_repository_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for command in ("install", "uninstall", "show"):
        result = runner.invoke(make_app(), ["hooks", command])
        assert result.exit_code == 2
        assert result.stderr == "mem: not inside a git repository\n"
    assert list(tmp_path.iterdir()) == []


def test_user_scope_works_outside_a_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(make_app(), ["hooks", "install", "--scope", "user"])
    assert result.exit_code == 0, result.output
    assert result.stdout == "installed 8 mem hooks into ~/.claude/settings.json\n"
    result = runner.invoke(
        make_app(), ["hooks", "install", "--scope", "user", "--agent", "copilot"]
    )
    assert result.stdout == "installed 5 mem hooks into ~/.copilot/hooks/mem.json\n"


@pytest.mark.parametrize("agent", hooks.AGENTS)
def test_every_agent_round_trips(agent: str, repo: Path) -> None:
    installed = runner.invoke(make_app(), ["hooks", "install", "--agent", agent])
    assert installed.exit_code == 0, installed.output
    path = hooks.settings_path(agent, "project", repo, Path.home())
    assert json.loads(path.read_text(encoding="utf-8")) == hooks.mem_hooks(agent, program=program())
    shown = runner.invoke(make_app(), ["hooks", "show", "--agent", agent])
    assert shown.exit_code == 0
    assert shown.stdout.splitlines()[0].endswith(
        f"installed ({len(hooks.hook_specs(agent))} mem hooks)"
    )
    removed = runner.invoke(make_app(), ["hooks", "uninstall", "--agent", agent])
    assert removed.exit_code == 0
    assert removed.stdout.startswith(f"removed {len(hooks.hook_specs(agent))} mem hooks: deleted ")
    assert not path.exists()


def test_uninstall_keeps_other_hooks(repo: Path) -> None:
    settings = repo / ".claude/settings.json"
    settings.parent.mkdir()
    mine = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./done.sh"}]}]}}
    settings.write_text(json.dumps(mine, indent=2) + "\n", encoding="utf-8")
    runner.invoke(make_app(), ["hooks", "install"])
    result = runner.invoke(make_app(), ["hooks", "uninstall"])
    assert result.stdout == "removed 8 mem hooks from .claude/settings.json\n"
    assert json.loads(settings.read_text(encoding="utf-8")) == mine
    result = runner.invoke(make_app(), ["hooks", "uninstall"])
    assert result.stdout == "no mem hooks in .claude/settings.json\n"


def test_invalid_json_exits_2_and_names_the_line(repo: Path) -> None:
    settings = repo / ".gemini/settings.json"
    settings.parent.mkdir()
    broken = '{\n  "theme": "dark"\n  "hooks": {}\n}\n'
    settings.write_text(broken, encoding="utf-8")
    result = runner.invoke(make_app(), ["hooks", "install", "--agent", "gemini"])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"mem: {settings}:3: invalid JSON: ")
    assert result.stderr.count("\n") == 1  # one line, no traceback
    assert settings.read_text(encoding="utf-8") == broken


def test_unknown_agent_or_scope_is_rejected(repo: Path) -> None:
    assert runner.invoke(make_app(), ["hooks", "install", "--agent", "vim"]).exit_code == 2
    assert runner.invoke(make_app(), ["hooks", "install", "--scope", "system"]).exit_code == 2
    assert not (repo / ".claude").exists()


def test_show_json_prints_exactly_what_install_merges(repo: Path) -> None:
    result = runner.invoke(make_app(), ["hooks", "show", "--agent", "gemini", "--json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout) == hooks.mem_hooks("gemini", program=program())


def test_show_before_and_after_install(repo: Path) -> None:
    before = runner.invoke(make_app(), ["hooks", "show"])
    assert before.exit_code == 0
    header, _, body = before.stdout.partition("\n")
    assert header == (
        "claude-code, project scope: .claude/settings.json: not installed (the file does not exist)"
    )
    assert json.loads(body) == hooks.mem_hooks("claude-code", program=program())
    runner.invoke(make_app(), ["hooks", "install"])
    settings = repo / ".claude/settings.json"
    doc = json.loads(settings.read_text(encoding="utf-8"))
    doc["hooks"]["Stop"][0]["hooks"][0]["timeout"] = 60
    settings.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    partly = runner.invoke(make_app(), ["hooks", "show"]).stdout.splitlines()[0]
    assert "partly installed (7 of 8 mem hooks, 1 other)" in partly


def test_install_wires_recall_when_the_repository_enables_it(repo: Path) -> None:
    config = repo / ".memory" / "config.yaml"
    config.parent.mkdir()
    config.write_text("recall:\n  enabled: true\n", encoding="utf-8")
    result = runner.invoke(make_app(), ["hooks", "install"])
    assert result.exit_code == 0, result.output
    doc = json.loads((repo / ".claude/settings.json").read_text(encoding="utf-8"))
    prompt = [h["command"] for g in doc["hooks"]["UserPromptSubmit"] for h in g["hooks"]]
    assert prompt == [f"{program()} capture", f"{program()} recall"]
    shown = runner.invoke(make_app(), ["hooks", "show"]).stdout.splitlines()[0]
    assert "installed (9 mem hooks)" in shown
    config.write_text(
        config.read_text(encoding="utf-8").replace("  enabled: true", "  enabled: false"),
        encoding="utf-8",
    )
    again = runner.invoke(make_app(), ["hooks", "install"])
    assert (
        again.stdout
        == "removed 1 mem hook that mem no longer installs from .claude/settings.json\n"
    )
    doc = json.loads((repo / ".claude/settings.json").read_text(encoding="utf-8"))
    assert "mem recall" not in json.dumps(doc)


def test_install_before_init_says_the_hooks_wait_for_mem_init(bare_repo: Path) -> None:
    result = runner.invoke(make_app(), ["hooks", "install"])
    assert result.exit_code == 0, result.output
    assert "no .memory/ yet" in result.stderr and "`mem init`" in result.stderr
    assert ".gitattributes" in result.stderr
    (bare_repo / ".memory").mkdir()
    again = runner.invoke(make_app(), ["hooks", "install"])
    assert "mem init" not in again.stderr


def test_hooks_name_mem_hook_when_path_finds_this_installation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    venv_bin = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", venv_bin)
    assert program() == "mem-hook"
    commands = json.dumps(hooks.mem_hooks("claude-code", program=program()))
    assert '"mem-hook capture"' in commands and '"mem capture"' not in commands


def test_hooks_name_this_installation_when_mem_is_not_on_path(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import subprocess
    import sys

    from memcli import api

    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    api.init(repo)
    mine = Path(sys.executable).parent / "mem-hook"
    monkeypatch.setenv("PATH", "/nonexistent")
    assert program() == str(mine)
    result = runner.invoke(make_app(), ["hooks", "install"])
    assert result.exit_code == 0, result.output
    doc = json.loads((repo / ".claude/settings.json").read_text(encoding="utf-8"))
    command = doc["hooks"]["PostToolUse"][0]["hooks"][0]["command"]
    assert command == f"{mine} capture"
    assert hooks.is_mem_command(command)
    # the command works with no mem on PATH: it records the event
    payload = {"session_id": "p1", "hook_event_name": "UserPromptSubmit", "prompt": "hello"}
    payload["cwd"] = str(repo)
    done = subprocess.run(
        command.split(),
        input=json.dumps(payload).encode(),
        cwd=repo,
        env={"PATH": "/nonexistent"},
        capture_output=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0 and done.stdout == b""
    assert (repo / ".memory/local/buffer/p1.jsonl").is_file()
