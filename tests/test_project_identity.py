"""A project identity that travels with the repository (issue: trust, finding 9): every clone
and fork finds the committed items, whatever its remote URL; stores made before the identity
adopt one on their next write and keep their old items visible."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from memcli.template import template_dir
from tests.conftest import git

MEM = [sys.executable, "-m", "memcli"]


def mem(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ}
    env.pop("MEM_DEBUG", None)
    return subprocess.run(
        [*MEM, *args], cwd=root, capture_output=True, text=True, timeout=120, env=env
    )


def add(root: Path, title: str, body: str) -> str:
    result = mem(root, "add", "--kind", "pitfall", "--title", title, "--body", body, "--json")
    assert result.returncode == 0, result.stderr
    return str(json.loads(result.stdout)["id"])


def found(root: Path, query: str) -> list[str]:
    result = mem(root, "search", query, "--json")
    assert result.returncode == 0, result.stderr
    return [hit["id"] for hit in json.loads(result.stdout)]


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def upstream(tmp_path: Path) -> Path:
    root = tmp_path / "upstream"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "remote", "add", "origin", "https://github.com/team/app.git")
    assert mem(root, "init").returncode == 0
    return root


def test_init_writes_a_generated_identity_into_the_committed_config(tmp_path: Path) -> None:
    root = upstream(tmp_path)
    config = (root / ".memory" / "config.yaml").read_text()
    assert "  project: proj-" in config
    template = (template_dir() / "config.yaml").read_text().splitlines()
    changed = [line for line, was in zip(config.splitlines(), template, strict=True) if line != was]
    assert changed == [  # every other line as the template has it, comments and nulls
        next(line for line in changed if line.startswith("  project: proj-")),
        '  aliases: ["github.com/team/app"]',
    ]
    item = add(root, "Postgres listens on 5433 in tests", "conftest pins 5433.")
    text = (root / ".memory" / "items" / f"{item}.yaml").read_text()
    assert "project: proj-" in text and "github.com" not in text


def test_a_fork_finds_the_committed_items_and_upstream_finds_the_forks(tmp_path: Path) -> None:
    root = upstream(tmp_path)
    first = add(root, "Postgres listens on 5433 in tests", "conftest pins 5433.")
    commit(root, "memory")
    fork = tmp_path / "fork"
    git(tmp_path, "clone", "-q", str(root), str(fork))
    git(fork, "remote", "set-url", "origin", "https://github.com/someone/app-fork.git")
    assert found(fork, "postgres") == [first]
    index = mem(fork, "index")
    assert index.returncode == 0 and first in index.stdout and "1 of 1 item" in index.stdout
    second = add(fork, "Run ruff before pushing", "CI fails on ruff findings.")
    commit(fork, "fork memory")
    git(root, "pull", "-q", "--no-rebase", str(fork), "main")
    assert found(root, "ruff") == [second]


def test_an_old_store_adopts_an_identity_on_its_next_write_and_keeps_its_items(
    tmp_path: Path,
) -> None:
    root = upstream(tmp_path)
    config = root / ".memory" / "config.yaml"
    text = config.read_text()  # as an older mem wrote it: no identity, no aliases
    start, end = text.index("scope:\n"), text.index("  # Also search the user-level store")
    config.write_text(text[:start] + "scope:\n  project: null\n" + text[end:])
    old = "oldstore01"  # an item an older mem wrote, filed under the remote URL
    (root / ".memory" / "items" / f"{old}.yaml").write_text(
        f"id: {old}\nkind: pitfall\ntitle: Postgres listens on 5433 in tests\n"
        "body: conftest pins 5433.\nscope:\n  project: github.com/team/app\n"
        "importance: 0.5\nconfidence: assumed\n"
        "created: '2026-01-01T00:00:00Z'\nupdated: '2026-01-01T00:00:00Z'\n"
    )
    assert found(root, "postgres") == [old]
    assert "project: null" in config.read_text()  # reading never writes the config
    result = mem(root, "add", "--kind", "env", "--title", "Node 20 needed", "--body", "nvm use")
    assert result.returncode == 0
    assert "note: this store now has a project identity" in result.stderr
    assert "commit .memory/config.yaml" in result.stderr
    adopted = config.read_text()
    assert "  project: proj-" in adopted and '  aliases: ["github.com/team/app"]' in adopted
    commit(root, "memory")
    fork = tmp_path / "fork"
    git(tmp_path, "clone", "-q", str(root), str(fork))
    git(fork, "remote", "set-url", "origin", "https://gitlab.com/other/app.git")
    assert found(fork, "postgres") == [old]  # written under the upstream URL, still found
