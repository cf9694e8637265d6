"""`mem lint`, `stats` and `list` print the same through the light path as through Typer."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memcli import api
from memcli.cli.app import app

INVOCATIONS = [
    ["lint"],
    ["lint", "--json"],
    ["stats"],
    ["stats", "--json"],
    ["list"],
    ["list", "--json"],
    ["list", "--kind", "decision"],
    ["list", "--kind=pitfall", "--json"],
]


@pytest.fixture
def store(repo: Path) -> Path:
    memory = api.Memory.open(repo)
    memory.add("pitfall", "The worker needs Redis on port 6380", "Start it first.")
    memory.add("decision", "Use ruff for linting", "One tool for lint and format.")
    memory.add("env", "CI runs on Ubuntu 24.04", "The runners are hosted.")
    return repo


def _light(args: list[str], root: Path) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "memcli", *args], cwd=root, capture_output=True, text=True
    )
    return done.returncode, done.stdout, done.stderr


def _typer(args: list[str]) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, args)
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("args", INVOCATIONS)
def test_the_light_path_prints_what_typer_prints(store: Path, args: list[str]) -> None:
    _light(args, store), _typer(args)  # the caches under local/ written (stats counts them)
    assert _light(args, store) == _typer(args)


@pytest.mark.parametrize("args", INVOCATIONS)
def test_problems_and_skipped_files_are_reported_the_same(store: Path, args: list[str]) -> None:
    (store / ".memory" / "items" / "broken0001.yaml").write_text("id: [unclosed\n")
    _light(args, store), _typer(args)
    light = _light(args, store)
    assert light == _typer(args)
    if args[0] == "lint":
        assert light[0] == 1 and "broken0001.yaml" in light[1]
    else:
        assert "mem: warning: skipped" in light[2]


def test_what_the_light_path_cannot_parse_goes_to_typer(store: Path) -> None:
    code, out, err = _light(["list", "--kind", "nonsense"], store)
    assert code == 2 and "nonsense" in err
    code, out, _ = _light(["lint", "--help"], store)
    assert code == 0 and "Usage" in out


def test_outside_a_store_the_error_is_the_same(tmp_path: Path) -> None:
    for args in (["lint"], ["stats", "--json"], ["list"]):
        done = subprocess.run(
            [sys.executable, "-m", "memcli", *args], cwd=tmp_path, capture_output=True, text=True
        )
        assert done.returncode == 2 and done.stderr.startswith("mem:"), (args, done.stderr)
