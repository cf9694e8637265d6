"""The hook launcher: pip's `mem-hook` rewritten to start Python without `site`, running every
command as `mem` does (real files, real subprocesses)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from memcli import hooklauncher

pytestmark = pytest.mark.skipif(os.name != "posix", reason="a #! launcher is POSIX only")

PIP_SCRIPT = f"""#!{sys.executable}
import sys
from memcli.__main__ import main
if __name__ == '__main__':
    sys.argv[0] = sys.argv[0].removesuffix('.exe')
    sys.exit(main())
"""


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "bin" / "mem-hook"
    path.parent.mkdir()
    path.write_text(PIP_SCRIPT, encoding="utf-8")
    path.chmod(0o755)
    return path


def _imported(
    argv: list[str], stdin: bytes, cwd: Path
) -> tuple[subprocess.CompletedProcess[bytes], set[str]]:
    """Run the launcher as its #! line does, with -X importtime: the result and the modules
    it imported."""
    done = subprocess.run(
        [sys.executable, "-S", "-X", "importtime", *argv],
        input=stdin, cwd=cwd, capture_output=True, check=False, timeout=120,
    )  # fmt: skip
    names = {
        line.rsplit("|", 1)[-1].strip()
        for line in done.stderr.decode().splitlines()
        if line.startswith("import time:")
    }
    return done, names


def test_pip_script_becomes_the_launcher_keeping_its_mode(script: Path) -> None:
    assert hooklauncher.upgrade(script)
    text = script.read_text(encoding="utf-8")
    assert text.startswith(f"#!{sys.executable} -S\n")
    assert hooklauncher.MARK in text
    assert stat.S_IMODE(script.stat().st_mode) == 0o755
    assert not hooklauncher.upgrade(script)  # already current: untouched
    assert script.read_text(encoding="utf-8") == text
    assert [p.name for p in script.parent.iterdir()] == ["mem-hook"]  # no temporary left


def test_a_file_that_is_not_mems_script_is_left_alone(script: Path) -> None:
    foreign = "#!/bin/sh\necho someone else's mem-hook\n"
    script.write_text(foreign, encoding="utf-8")
    assert not hooklauncher.upgrade(script)
    assert script.read_text(encoding="utf-8") == foreign
    assert not hooklauncher.upgrade(script.parent / "missing")


def test_an_interpreter_path_a_shebang_cannot_carry_keeps_pips_script(
    script: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "executable", "/opt/my tools/bin/python")
    assert not hooklauncher.upgrade(script)
    monkeypatch.setattr(sys, "executable", "/" + "p" * 200 + "/python")
    assert not hooklauncher.upgrade(script)
    assert script.read_text(encoding="utf-8") == PIP_SCRIPT


def test_the_launcher_captures_and_checkpoints_without_site(script: Path, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / ".memory" / "local").mkdir(parents=True)
    hooklauncher.upgrade(script)
    prompt = {"session_id": "s1", "hook_event_name": "UserPromptSubmit", "cwd": str(repo),
              "prompt": "we use uv for everything, never pip"}  # fmt: skip
    done, names = _imported([str(script), "capture"], json.dumps(prompt).encode(), repo)
    assert done.returncode == 0 and done.stdout == b"", done.stderr[-2000:]
    assert "site" not in names and "typer" not in names
    lines = (repo / ".memory/local/buffer/s1.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[-1])["kind"] == "prompt"
    stop = {"session_id": "s1", "hook_event_name": "Stop", "cwd": str(repo),
            "stop_hook_active": False, "last_assistant_message": "Done."}  # fmt: skip
    done, names = _imported([str(script), "checkpoint"], json.dumps(stop).encode(), repo)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "site" not in names


def test_any_other_command_finds_the_installed_packages(script: Path, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    hooklauncher.upgrade(script)
    done, names = _imported([str(script), "hooks", "show"], b"", repo)
    assert done.returncode == 0, done.stderr[-2000:]
    assert {"site", "typer"} <= names  # site ran when Typer was first imported
    assert "not installed" in done.stdout.decode() and '"hooks"' in done.stdout.decode()
    # the #! line itself: run the file as the hooks do
    version = subprocess.run([str(script), "--version"], capture_output=True, check=False)
    assert version.returncode == 0 and version.stdout.startswith(b"mem ")
