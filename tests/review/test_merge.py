"""Merge safety: branches that add items never conflict; edits of one item merge through
`mem merge-driver`; a real contradiction is left as a conflict."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from review_helpers import MEM, commit, driver_command, git, item_path, mem, save

from memcli.api import Memory
from memcli.review.merge_driver import (
    ATTRIBUTES_LINE,
    driver_program,
    merge_data,
    register_merge_driver,
)


@pytest.fixture
def shared(repo: Path) -> Path:
    save(repo, "aaaa000001", "Tests need Postgres on port 5433", tags=("db",))
    commit(repo, "base")
    return repo


@pytest.fixture
def driven(shared: Path) -> Path:
    """The driver registered as `mem init` does, with the venv's own `mem`."""
    assert MEM.is_file(), MEM
    command = driver_command()
    register_merge_driver(shared, command=command)  # `mem init` may have registered `mem`
    assert git(shared, "config", "merge.mem.driver").strip() == f"{command} merge-driver %O %A %B"
    assert ATTRIBUTES_LINE in (shared / ".gitattributes").read_text().splitlines()
    git(shared, "add", "-A")
    git(shared, "commit", "-q", "--allow-empty", "-m", "register the memory merge driver")
    return shared


def test_two_branches_that_add_items_merge_without_conflict(shared: Path) -> None:
    git(shared, "checkout", "-q", "-b", "left")
    save(shared, "bbbb000002", "Left knows this", kind="env")
    commit(shared, "left")
    git(shared, "checkout", "-q", "main")
    save(shared, "cccc000003", "Main knows that", kind="env")
    commit(shared, "main")
    git(shared, "merge", "-q", "--no-edit", "left")
    assert sorted(i.id for i in Memory.open(shared).items()) == [
        "aaaa000001",
        "bbbb000002",
        "cccc000003",
    ]
    assert Memory.open(shared).lint() == []


def test_two_branches_that_edit_one_items_tags_merge_through_the_driver(driven: Path) -> None:
    git(driven, "checkout", "-q", "-b", "left")
    save(
        driven, "aaaa000001", "Tests need Postgres on port 5433", tags=("db", "ci"), importance=0.7
    )
    commit(driven, "left tags")
    git(driven, "checkout", "-q", "main")
    save(
        driven,
        "aaaa000001",
        "Tests need Postgres on port 5433",
        tags=("postgres", "db"),
        body="Conftest pins 5432; the test server listens on 5433.",
        updated="2026-02-01T00:00:00Z",
    )
    commit(driven, "main tags")
    git(driven, "merge", "-q", "--no-edit", "left")
    assert git(driven, "status", "--porcelain") == ""
    item = Memory.open(driven).get("aaaa000001")
    assert set(item.tags) == {"db", "ci", "postgres"}
    assert item.importance == 0.7
    assert item.body == "Conftest pins 5432; the test server listens on 5433."
    assert item.updated == "2026-02-01T00:00:00Z"
    assert Memory.open(driven).lint() == []


def test_without_the_driver_the_same_edits_conflict(shared: Path) -> None:
    git(shared, "config", "--remove-section", "merge.mem")  # a clone that never ran `mem init`
    git(shared, "checkout", "-q", "-b", "left")
    save(shared, "aaaa000001", "Tests need Postgres on port 5433", tags=("db", "ci"))
    commit(shared, "left tags")
    git(shared, "checkout", "-q", "main")
    save(shared, "aaaa000001", "Tests need Postgres on port 5433", tags=("db", "postgres"))
    commit(shared, "main tags")
    git(shared, "merge", "--no-edit", "left", check=False)
    assert "UU .memory/items/aaaa000001.yaml" in git(shared, "status", "--porcelain")


def test_a_real_contradiction_is_left_as_a_conflict(driven: Path) -> None:
    git(driven, "checkout", "-q", "-b", "left")
    save(driven, "aaaa000001", "Tests need Postgres on port 5434", tags=("db", "left"))
    commit(driven, "left title")
    git(driven, "checkout", "-q", "main")
    save(driven, "aaaa000001", "Tests need Postgres on port 5435", tags=("db", "main"))
    commit(driven, "main title")
    git(driven, "merge", "--no-edit", "left", check=False)
    assert "UU .memory/items/aaaa000001.yaml" in git(driven, "status", "--porcelain")
    text = item_path(driven, "aaaa000001").read_text()
    assert "<<<<<<< ours\ntitle: Tests need Postgres on port 5435\n=======\n" in text
    assert "title: Tests need Postgres on port 5434\n>>>>>>> theirs\n" in text
    # what merged cleanly is merged: the tags of both sides are there, outside the markers
    assert "  - main\n  - left\n" in text


def test_the_driver_command_follows_git_s_contract(tmp_path: Path, repo: Path) -> None:
    base, ours, theirs = (tmp_path / n for n in ("O", "A", "B"))
    base.write_text("id: x1\nkind: env\ntitle: T\nbody: b\ntags: [a]\n")
    ours.write_text("id: x1\nkind: env\ntitle: T\nbody: b\ntags: [a, b]  # mine\n")
    theirs.write_text("id: x1\nkind: env\ntitle: T\nbody: b\ntags: [c]\n")
    code, _, _ = mem("merge-driver", str(base), str(ours), str(theirs))
    assert code == 0
    merged = ours.read_text()
    assert "  - b\n  - c\n" in merged and "# mine" in merged  # theirs dropped a, both added one
    theirs.write_text("id: x1\nkind: task\ntitle: T\nbody: b\n")
    ours.write_text("id: x1\nkind: pitfall\ntitle: T\nbody: b\n")
    code, _, err = mem("merge-driver", str(base), str(ours), str(theirs), "items/x1.yaml")
    assert code == 1 and "kind" in err
    assert "<<<<<<< ours (items/x1.yaml)\nkind: pitfall\n=======\nkind: task\n>>>>>>>" in (
        ours.read_text()
    )


def test_an_unreadable_side_falls_back_to_a_line_merge(tmp_path: Path, repo: Path) -> None:
    base, ours, theirs = (tmp_path / n for n in ("O", "A", "B"))
    base.write_text("a\nb\nc\n")
    ours.write_text("a\nB\nc\n: [\n")
    theirs.write_text("a\nb\nc\n")
    code, _, _ = mem("merge-driver", str(base), str(ours), str(theirs))
    assert code == 0 and ours.read_text() == "a\nB\nc\n: [\n"


def test_merge_rules() -> None:
    base = {
        "id": "x",
        "title": "T",
        "body": "old",
        "tags": ["a", "b"],
        "importance": 0.5,
        "updated": "2026-01-01T00:00:00Z",
        "confidence": "assumed",
    }
    ours = {
        **base,
        "tags": ["a"],
        "body": "mine",
        "importance": 0.6,
        "updated": "2026-01-03T00:00:00Z",
    }
    theirs = {
        **base,
        "tags": ["a", "b", "c"],
        "body": "theirs",
        "importance": 0.9,
        "updated": "2026-01-02T00:00:00Z",
        "confidence": "verified",
    }
    merged, conflicts = merge_data(base, ours, theirs)
    assert conflicts == []
    assert merged["tags"] == ["a", "c"]  # ours removed b: a removal wins over no change
    assert merged["body"] == "mine"  # the newer body
    assert merged["importance"] == 0.9  # the higher
    assert merged["updated"] == "2026-01-03T00:00:00Z"
    assert merged["confidence"] == "verified"  # only theirs changed it


def test_both_sides_adding_the_same_item_unite_it() -> None:
    ours = {"id": "x", "title": "T", "tags": ["a"], "created": "2026-01-02T00:00:00Z"}
    theirs = {"id": "x", "title": "T", "tags": ["b"], "created": "2026-01-01T00:00:00Z"}
    merged, conflicts = merge_data(None, ours, theirs)
    assert conflicts == [] and merged["tags"] == ["a", "b"]
    assert merged["created"] == "2026-01-01T00:00:00Z"


def test_registration_is_idempotent(repo: Path) -> None:
    (repo / ".gitattributes").write_text("*.png binary")
    assert register_merge_driver(repo)[0] == ".gitattributes"
    assert register_merge_driver(repo) == []
    lines = (repo / ".gitattributes").read_text().splitlines()
    assert lines == ["*.png binary", ATTRIBUTES_LINE]
    assert git(repo, "config", "--local", "merge.mem.driver").strip() == (
        f"{driver_program()} merge-driver %O %A %B"
    )


def test_two_branches_tag_one_item_and_merge_cleanly_with_mem_not_on_path(
    bare_repo: Path,
) -> None:
    """`mem init` registers the driver by this interpreter's absolute path: git finds it in a
    shell whose PATH has no `mem` (a virtual environment nobody activated)."""
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env["PATH"] = os.pathsep.join(["/usr/bin", "/bin"])
    assert shutil.which("mem", path=env["PATH"]) is None
    init = subprocess.run(
        [sys.executable, "-m", "memcli", "init"],
        cwd=bare_repo, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert init.returncode == 0, init.stderr
    assert "git add .memory .gitattributes" in init.stdout
    save(bare_repo, "aaaa000001", "Tests need Postgres on port 5433", tags=("db",))
    commit(bare_repo, "memory")
    git(bare_repo, "checkout", "-q", "-b", "left")
    save(bare_repo, "aaaa000001", "Tests need Postgres on port 5433", tags=("db", "ci"))
    commit(bare_repo, "left")
    git(bare_repo, "checkout", "-q", "main")
    save(bare_repo, "aaaa000001", "Tests need Postgres on port 5433", tags=("db", "docker"))
    commit(bare_repo, "main")
    merged = subprocess.run(
        ["git", "-c", "user.name=T", "-c", "user.email=t@example.invalid",
         "merge", "--no-edit", "left"],
        cwd=bare_repo, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert "not found" not in merged.stderr
    [item] = Memory.open(bare_repo).items()
    assert sorted(item.tags) == ["ci", "db", "docker"]
