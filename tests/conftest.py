"""Shared fixtures: real temporary git repositories, with and without a memory store."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

import memcli
from memcli import api, itemfile

# Hypothesis profiles: `fast` by default (every `make test`), `thorough` for
# `make test-thorough` (HYPOTHESIS_PROFILE=thorough). No test hard-codes its example count;
# a slow property asks for a share of the profile's with `examples(share)`.
settings.register_profile("fast", max_examples=50, deadline=None)
settings.register_profile("thorough", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))


def examples(share: float) -> int:
    """A share of the active profile's example count (at least 5)."""
    return max(5, int(settings.default.max_examples * share))


def git(root: Path, *args: str, check: bool = True) -> str:
    """Run git in ``root`` with a fixed identity; a failure (unless ``check`` is off) is an
    AssertionError that shows git's output."""
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Test",
        "GIT_AUTHOR_EMAIL": "test@example.invalid",
        "GIT_COMMITTER_NAME": "Test",
        "GIT_COMMITTER_EMAIL": "test@example.invalid",
    }
    result = subprocess.run(
        ["git", *args], cwd=root, env=env, check=False, capture_output=True, text=True
    )
    if check and result.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {result.stdout}{result.stderr}")
    return result.stdout


@pytest.fixture(autouse=True)
def isolated_user_config(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """No test reads the developer's own ~/.config/mem/config.yaml."""
    saved = os.environ.get("MEM_CONFIG")
    os.environ["MEM_CONFIG"] = str(tmp_path_factory.mktemp("user") / "config.yaml")
    yield
    if saved is None:
        os.environ.pop("MEM_CONFIG", None)
    else:
        os.environ["MEM_CONFIG"] = saved


@pytest.fixture
def bare_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A git repository with one commit and no .memory/, as the current directory."""
    root = tmp_path / "project"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "README.md").write_text("# project\n")
    git(root, "add", "README.md")
    git(root, "commit", "-q", "-m", "first")
    monkeypatch.chdir(root)
    yield root


@pytest.fixture
def repo(bare_repo: Path) -> Path:
    """A git repository with an initialised .memory/, as the current directory."""
    api.init(bare_repo)
    return bare_repo


@pytest.fixture
def memory(repo: Path) -> api.Memory:
    return api.Memory.open(repo)


@pytest.fixture
def bare_repo_no_commit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A git repository without any commit, as the current directory."""
    root = tmp_path / "fresh"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    monkeypatch.chdir(root)
    yield root


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Names of the item files parsed as YAML (not answered from a cache), in order."""
    seen: list[str] = []
    original = itemfile.parse_named  # what parse_bytes and the parse cache both call

    def counting(where: str, name: str, data: bytes, bulk: bool = False):  # type: ignore[no-untyped-def]
        seen.append(name)
        return original(where, name, data, bulk)

    monkeypatch.setattr(itemfile, "parse_named", counting)
    return seen


@pytest.fixture
def package(tmp_path: Path) -> Path:
    """A copy of mem's source, compiled as pip compiles it (timestamp-based .pyc files)."""
    root = tmp_path / "src"
    shutil.copytree(Path(memcli.__file__).parent, root / "memcli",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(root / "memcli")], check=True)
    return root
