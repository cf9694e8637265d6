"""The wheel carries the template; `python -m memcli` is the same program as `mem`."""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OPTIONAL = {"scikit-learn": "eval", "mcp": "mcp"}  # requirement -> the extra that brings it


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(folder)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    (built,) = folder.glob("*.whl")
    return built


def runtime_and_extras(requirements: list[str]) -> tuple[set[str], dict[str, set[str]]]:
    """Requirement names without a marker, and by extra."""
    runtime: set[str] = set()
    extras: dict[str, set[str]] = {}
    for requirement in requirements:
        name = (
            re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0]
            .lower()
            .replace("_", "-")
            .replace(".", "-")
        )
        extra = re.search(r"extra\s*==\s*['\"]([\w-]+)['\"]", requirement)
        if extra:
            extras.setdefault(extra.group(1), set()).add(name)
        else:
            runtime.add(name)
    return runtime, extras


def test_installed_metadata_does_not_require_scikit_learn_mcp_or_gitpython() -> None:
    runtime, extras = runtime_and_extras(importlib.metadata.requires("memcli") or [])
    assert "typer" in runtime  # the parse works
    assert not runtime & {"scikit-learn", "mcp", "gitpython"}
    for name, extra in OPTIONAL.items():
        assert name in extras.get(extra, set()), (name, extra)


def test_the_wheel_declares_the_same_split(wheel: Path) -> None:
    archive = zipfile.ZipFile(wheel)
    metadata = archive.read(next(n for n in archive.namelist() if n.endswith("METADATA")))
    requirements = [
        line.removeprefix("Requires-Dist:").strip()
        for line in metadata.decode().splitlines()
        if line.startswith("Requires-Dist:")
    ]
    runtime, extras = runtime_and_extras(requirements)
    assert runtime == {"typer", "rich", "ruamel-yaml", "pyyaml"}
    assert extras["eval"] == {"scikit-learn"} and extras["mcp"] == {"mcp"}


def test_the_wheel_ships_the_memory_template(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in ("config.yaml", ".gitignore", "README.md", "items/.gitkeep", "sessions/.gitkeep"):
        assert f"memcli/_memory_template/{name}" in names, name
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "mem = memcli.__main__:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_python_dash_m_memcli_matches_the_console_script(repo: Path) -> None:
    module = subprocess.run(
        [sys.executable, "-m", "memcli", "--version"], capture_output=True, text=True, check=True
    )
    assert module.stdout.startswith("mem ")
    bad = subprocess.run(
        [sys.executable, "-m", "memcli", "show", "../x"], capture_output=True, text=True
    )
    assert bad.returncode == 2 and bad.stderr.startswith("mem: invalid item id")
    assert "Traceback" not in bad.stderr
