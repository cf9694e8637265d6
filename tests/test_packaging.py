"""The wheel carries the template; `python -m memcli` is the same program as `mem`."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_wheel_ships_the_memory_template(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(tmp_path)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("*.whl")
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
