"""The Claude Code plugin files at the repository root load and run commands that exist."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import typer

from memcli import __version__
from memcli.hooks import mem_hooks

ROOT = Path(__file__).resolve().parent.parent.parent


def load(name: str) -> Any:
    return json.loads((ROOT / name).read_text(encoding="utf-8"))


def hook_commands() -> list[str]:
    hooks = load("hooks/hooks.json")["hooks"]
    return [h["command"] for groups in hooks.values() for g in groups for h in g["hooks"]]


def mcp_commands() -> list[str]:
    servers = load(".mcp.json")["mcpServers"]
    return [shlex.join([s["command"], *s.get("args", [])]) for s in servers.values()]


def mem_command() -> Any:
    """The `mem` click group (Typer ships its own click: no isinstance against `click`)."""
    from memcli.cli.app import app

    command = typer.main.get_command(app)
    assert hasattr(command, "commands")
    return command


def test_the_manifest_is_valid() -> None:
    manifest = load(".claude-plugin/plugin.json")
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", manifest["name"])
    assert manifest["version"] == __version__
    assert manifest["description"]
    # hooks/hooks.json and .mcp.json are found by convention; naming the standard hooks file
    # in the manifest makes Claude Code load it twice ("Duplicate hooks file detected").
    assert "hooks" not in manifest and "mcpServers" not in manifest
    market = load(".claude-plugin/marketplace.json")
    assert market["description"]  # `claude plugin validate --strict .` fails without one
    assert [p["name"] for p in market["plugins"]] == [manifest["name"]]
    assert market["plugins"][0]["source"] == "./"


def test_the_plugin_hooks_are_what_mem_hooks_install_writes() -> None:
    assert load("hooks/hooks.json") == mem_hooks("claude-code")


def test_the_mcp_server_runs_mem_mcp() -> None:
    assert mcp_commands() == ["mem mcp"]
    server = load(".mcp.json")["mcpServers"]["mem"]
    assert "cwd" not in server  # Claude Code ignores it; the server finds the project itself


def test_the_commands_they_run_are_registered() -> None:
    group = mem_command()
    assert {"mcp", "eval", "index", "capture", "compact"} <= set(group.commands)


@pytest.mark.parametrize("line", hook_commands() + mcp_commands())
def test_every_command_line_parses(line: str) -> None:
    words = shlex.split(line)
    assert words[0] == "mem"
    group = mem_command()
    sub = group.commands.get(words[1])
    assert sub is not None, f"`mem {words[1]}` is not a command"
    # Parsing the options catches a renamed or removed flag without running anything.
    sub.make_context(words[1], words[2:])
