"""The conventions every command follows: -h, plain metavars, choices, piped output, errors."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from memcli import api
from memcli.cli.app import app
from memcli.cli.edit import editor_command
from memcli.errors import MemError

runner = CliRunner()


def every_command() -> list[list[str]]:
    """The argv prefix of every command and subcommand, from the app itself."""
    found: list[list[str]] = []

    def walk(command: Any, prefix: list[str]) -> None:
        found.append(prefix)
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, [*prefix, name])

    walk(typer.main.get_command(app), [])
    return found


# The hook commands that take any argument (capture, checkpoint) have no help option at all.
HOOK_COMMANDS = [["capture"], ["checkpoint"]]
COMMANDS = [c for c in every_command() if c not in HOOK_COMMANDS]


def test_the_walk_finds_the_commands() -> None:
    names = {" ".join(c) for c in COMMANDS}
    assert {"", "search", "edit", "hooks", "hooks install", "merge-driver"} <= names


@pytest.mark.parametrize("prefix", COMMANDS, ids=lambda c: " ".join(c) or "mem")
def test_dash_h_is_help_without_typer_noise(prefix: list[str]) -> None:
    short = runner.invoke(app, [*prefix, "-h"])
    long = runner.invoke(app, [*prefix, "--help"])
    assert short.exit_code == 0 and short.stdout == long.stdout
    assert short.stdout.startswith("Usage: mem")
    for noise in ("<list[", "<str>", "<int", "<float", "<path>", "<bool", "[["):
        assert noise not in short.stdout, (noise, short.stdout)
    usage = short.stdout.splitlines()[0]
    assert "{" not in usage, usage


@pytest.mark.parametrize("command", ["add", "edit", "list", "search"])
def test_kind_options_list_their_choices(command: str) -> None:
    out = runner.invoke(app, [command, "-h"]).stdout
    assert "--kind [decision|pitfall|convention|env|task]" in out


def test_dash_h_reaches_help_through_the_light_dispatcher(repo: Path) -> None:
    for command in ("index", "search", "recall"):
        result = subprocess.run(
            [sys.executable, "-m", "memcli", command, "-h"], capture_output=True, text=True
        )
        assert result.returncode == 0 and result.stdout.startswith(f"Usage: mem {command}")


def test_piped_listings_are_tab_separated_and_json_needs_the_flag(repo: Path) -> None:
    memory = api.Memory.open(repo)
    item = memory.add("pitfall", "Postgres\tlistens on 5433", "PGPORT=5433.", tags=["db", "ci"])
    memory.record_use([item.id])
    for args, fields in (
        (["list"], [item.id, "pitfall", "Postgres listens on 5433", "db,ci"]),
        (["search", "postgres"], [item.id, "pitfall"]),
        (["stats"], ["items", "1"]),
    ):
        out = runner.invoke(app, args).stdout  # CliRunner's stdout is not a terminal
        first = out.splitlines()[0].split("\t")
        assert first[: len(fields)] == fields, (args, out)
        assert json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    receipts = runner.invoke(app, ["log"]).stdout.splitlines()
    assert receipts[-1].split("\t")[1:3] == ["search", "postgres"]


def test_library_errors_name_fields_and_the_cli_shows_flags(repo: Path) -> None:
    memory = api.Memory.open(repo)
    with pytest.raises(MemError) as caught:
        memory.add("pitfall", "t", "b", expires="someday")
    assert caught.value.field == "expires" and caught.value.message.startswith("expires: ")
    result = runner.invoke(
        app, ["add", "--kind", "env", "--title", "t", "--body", "b", "--expires", "someday"]
    )
    assert result.exit_code == 2
    assert result.stderr.startswith("mem: --expires: 'someday' is not an ISO date")
    with pytest.raises(MemError, match=r"^anchors: "):
        memory.add("env", "t", "b", anchors=["/elsewhere/file.py"])


@pytest.mark.parametrize(
    ("environment", "found", "expected"),
    [
        ({"VISUAL": "code -w", "EDITOR": "nano"}, {"vi", "nano"}, "code -w"),
        ({"EDITOR": "emacs"}, {"vi", "nano"}, "emacs"),
        ({}, {"vi", "nano"}, "vi"),
        ({}, {"nano"}, "nano"),
    ],
)
def test_the_editor_is_chosen_as_git_chooses_it(
    environment: dict[str, str],
    found: set[str],
    expected: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for variable in ("VISUAL", "EDITOR"):
        monkeypatch.delenv(variable, raising=False)
    for variable, value in environment.items():
        monkeypatch.setenv(variable, value)
    monkeypatch.setattr("shutil.which", lambda name: f"/usr/bin/{name}" if name in found else None)
    assert editor_command() == expected


def test_no_editor_at_all_is_one_clear_line(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    item = api.Memory.open(repo).add("env", "t", "b")
    for variable in ("VISUAL", "EDITOR"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setattr("shutil.which", lambda name: None)
    result = runner.invoke(app, ["edit", item.id])
    assert result.exit_code == 2
    assert re.fullmatch(r"mem: no editor: set \$VISUAL or \$EDITOR, .*\n", result.stderr)


def test_a_fallback_editor_really_runs(repo: Path, tmp_path: Path) -> None:
    item = api.Memory.open(repo).add("env", "Old title", "b")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake_vi = bin_dir / "vi"
    fake_vi.write_text('#!/bin/sh\nsed -i "s/^title: .*/title: Set by vi/" "$1"\n')
    fake_vi.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("VISUAL", "EDITOR")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    result = subprocess.run(
        [sys.executable, "-m", "memcli", "edit", item.id], capture_output=True, text=True, env=env
    )
    assert result.returncode == 0, result.stderr
    assert api.Memory.open(repo).get(item.id).title == "Set by vi"


def test_mem_mcp_without_the_extra_says_what_to_install(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [
        m for m in sys.modules if m == "mcp" or m.startswith(("mcp.", "memcli.mcpserver.server"))
    ]:
        monkeypatch.delitem(sys.modules, name)
    import memcli.mcpserver

    monkeypatch.delattr(memcli.mcpserver, "server", raising=False)  # imported by other tests
    monkeypatch.setitem(sys.modules, "mcp", None)  # as if the mcp extra were not installed
    result = runner.invoke(app, ["mcp"])
    assert result.exit_code == 2
    assert result.stderr.endswith("mem: mem mcp needs the MCP SDK: pip install 'memcli[mcp]'\n")


@pytest.mark.parametrize("command", ["capture", "checkpoint"])
def test_the_hook_commands_own_parsers_take_dash_h(command: str, repo: Path) -> None:
    short, long = (
        subprocess.run(
            [sys.executable, "-m", "memcli", command, flag],
            capture_output=True,
            text=True,
            input="",
        )
        for flag in ("-h", "--help")
    )
    assert short.returncode == 0 and short.stdout == long.stdout
    assert short.stdout.startswith(f"usage: mem {command}")
