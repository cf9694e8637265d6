"""Print docs/cli.md: the CLI reference, generated from each command's --help.

`make docs` writes it; tests/test_docs.py fails when the committed file is stale.
"""

from __future__ import annotations

import os
import sys

os.environ["COLUMNS"] = "100"
os.environ["TERM"] = "dumb"
os.environ["NO_COLOR"] = "1"

from typing import Any  # noqa: E402

import typer  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from memcli.capture.command import USAGE as CAPTURE_USAGE  # noqa: E402
from memcli.cli.app import app  # noqa: E402


def command_paths(command: Any, prefix: list[str]) -> list[list[str]]:
    """Every command path, in registration order (Typer vendors click: duck-type groups)."""
    paths = [prefix]
    for name, sub in getattr(command, "commands", {}).items():
        if not getattr(sub, "hidden", False):
            paths += command_paths(sub, [*prefix, name])
    return paths


def render() -> str:
    runner = CliRunner()
    root = typer.main.get_command(app)
    parts = [
        "# CLI reference\n",
        "Generated from `mem ... --help` by `make docs`; a test fails when it is stale.\n",
        "\nConventions, the same for every command (`memcli/cli/conventions.py`):\n\n"
        "- `-h` and `--help` show help; values are named by what they are (`--tag TAG`),\n"
        "  choices are listed (`--kind [decision|...]`).\n"
        "- Output: on a terminal, tables; piped, tab-separated text, one record a line,\n"
        "  fields without tabs or line breaks; JSON only with `--json`.\n"
        "- Errors: one line on stderr, `mem: ...`, naming the flag or `file:line` at fault;\n"
        "  exit 0 ok, 1 a check found problems, 2 usage or environment error, 3 internal\n"
        "  error (`MEM_DEBUG=1` shows the traceback). Hook commands fail open: exit 0.\n",
    ]
    for path in command_paths(root, []):
        if path == ["capture"]:
            text = CAPTURE_USAGE
        else:
            result = runner.invoke(app, [*path, "--help"], terminal_width=100)
            text = result.stdout
        title = " ".join(["mem", *path])
        parts.append(f"\n## `{title}`\n\n```text\n{text.rstrip()}\n```\n")
    return "".join(parts)


if __name__ == "__main__":
    sys.stdout.write(render())
