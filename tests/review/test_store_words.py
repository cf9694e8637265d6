"""The words `mem diff` keeps per items tree: the same diff as a fresh read, after commits,
working-tree edits, and a corrupt or tampered file; a tree next to a kept one is not read whole."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from review_helpers import commit, item_path, save

from memcli.review import diff as review_diff
from memcli.review import item_lines, store_words
from memcli.review.gitrepo import GitRepo


def _store(repo: Path) -> None:
    for number in range(30):
        save(repo, f"fact{number:06d}", f"Unrelated fact number {number} about module m{number}")
    save(repo, "pgpg000001", "Pin Postgres 14 for the job queue", kind="decision")
    save(repo, "rdrd000001", "Use Redis streams for notifications", kind="decision")
    save(
        repo,
        "tmpt000001",
        "Temporary: the staging host is down",
        kind="task",
        expires="2026-01-01T00:00:00Z",
    )
    commit(repo, "store")


def _fresh(repo: Path, spec: str) -> dict[str, Any]:
    (repo / store_words.CACHE).unlink(missing_ok=True)
    return _diff(repo, spec)


def _diff(repo: Path, spec: str) -> dict[str, Any]:
    data = review_diff.memory_diff(repo, spec).to_json()
    data["head"].pop("time")  # the working tree's is now
    return data


def test_kept_words_give_the_diff_a_fresh_read_gives(repo: Path) -> None:
    _store(repo)
    save(repo, "pgpg000002", "Pin Postgres 16 for the job queue", kind="decision")
    commit(repo, "16")
    first = _diff(repo, "HEAD~1..HEAD")
    assert (repo / store_words.CACHE).is_file()
    assert [c["other_id"] for c in first["contradictions"]] == ["pgpg000001"]
    assert _diff(repo, "HEAD~1..HEAD") == first == _fresh(repo, "HEAD~1..HEAD")
    # a commit that changes, removes and adds decisions: reached from the kept tree
    save(repo, "rdrd000001", "Use Redis lists for notifications", kind="decision")
    item_path(repo, "pgpg000001").unlink()
    save(repo, "rdrd000002", "Do not use Redis streams for notifications", kind="decision")
    commit(repo, "redis")
    kept = _diff(repo, "HEAD~1..HEAD")
    assert kept == _fresh(repo, "HEAD~1..HEAD")
    assert {c["other_id"] for c in kept["contradictions"]} == {"rdrd000001"}
    # the working tree: an edit, a deletion and a new file, none committed
    save(repo, "pgpg000003", "Pin Postgres 15 for the job queue", kind="decision")
    save(repo, "pgpg000002", "Pin Postgres 17 for the job queue", kind="decision")
    item_path(repo, "rdrd000001").unlink()
    save(repo, "late000001", "Late: the build cache is wiped", expires="2026-01-02T00:00:00Z")
    worktree = _diff(repo, "HEAD")
    assert worktree == _fresh(repo, "HEAD")
    assert [(c["id"], c["other_id"]) for c in worktree["contradictions"]] == [
        ("pgpg000003", "pgpg000002")
    ]
    assert [e["id"] for e in worktree["expired"]] == ["late000001"]


def test_a_tree_next_to_a_kept_one_reads_only_what_differs(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _store(repo)
    save(repo, "pgpg000002", "Pin Postgres 16 for the job queue", kind="decision")
    commit(repo, "16")
    review_diff.memory_diff(repo, "HEAD~1..HEAD")
    save(repo, "pgpg000003", "Pin Postgres 17 for the job queue", kind="decision")
    commit(repo, "17")
    greps: list[str] = []
    grep = GitRepo.grep_output

    def counting(self: GitRepo, rev: str | None, *args: Any, **kwargs: Any) -> Any:
        greps.append(str(rev))
        return grep(self, rev, *args, **kwargs)

    monkeypatch.setattr(GitRepo, "grep_output", counting)
    result = review_diff.memory_diff(repo, "HEAD~1..HEAD")
    assert greps == []  # no file of the store read whole
    assert {(c.item.id, c.other.id) for c in result.contradictions} == {
        ("pgpg000003", "pgpg000001"),
        ("pgpg000003", "pgpg000002"),
    }


@pytest.mark.parametrize(
    "written",
    [
        "{not json",
        json.dumps({"version": store_words.VERSION, "under": ".memory/items/", "trees": []}),
        "TAMPERED",  # a well-formed file naming a path outside the items folder
    ],
)
def test_a_corrupt_or_tampered_file_is_rebuilt(repo: Path, written: str) -> None:
    _store(repo)
    save(repo, "pgpg000002", "Pin Postgres 16 for the job queue", kind="decision")
    commit(repo, "16")
    expected = _fresh(repo, "HEAD~1..HEAD")
    if written == "TAMPERED":
        data = json.loads((repo / store_words.CACHE).read_text(encoding="utf-8"))
        for tree in data["trees"].values():
            tree["odd"].append(".memory/items/../../outside.yaml")
        written = json.dumps(data)
    (repo / store_words.CACHE).write_text(written, encoding="utf-8")
    assert _diff(repo, "HEAD~1..HEAD") == expected
    kept = json.loads((repo / store_words.CACHE).read_text(encoding="utf-8"))
    assert all("outside" not in path for t in kept["trees"].values() for path in t["odd"])


def test_the_lines_read_from_a_file_are_the_lines_git_grep_prints(repo: Path) -> None:
    save(repo, "aaaa000001", "Block body", kind="decision", body="First line.\nSecond line.")
    save(repo, "bbbb000002", "One line", kind="decision", body="x", expires="2027-01-01")
    path = item_path(repo, "cccc000003")
    path.write_text(
        "kind: decision\ntitle: a\nbody: |\nexpires: at the end\nkind:", encoding="utf-8"
    )
    commit(repo, "store")
    under = ".memory/items/"
    with GitRepo(repo) as git_repo:
        for rev in ("HEAD", None):
            printed = git_repo.grep_output(rev, item_lines.PATTERN, under, after=1)
            by_file = _lines_by_file(printed, f"{rev}:" if rev else "")
            assert len(by_file) == 3
            for name in ("aaaa000001", "bbbb000002", "cccc000003"):
                relative = f"{under}{name}.yaml"
                text = (repo / relative).read_text(encoding="utf-8")
                mine = _lines_by_file(item_lines.grep_text(relative, text), "")
                assert mine == {relative: by_file[relative]}


def _lines_by_file(printed: str, prefix: str) -> dict[str, list[str]]:
    """The numbered lines of each file in ``git grep --heading -n -z`` output."""
    files: dict[str, list[str]] = {}
    lines: list[str] = []
    for line in printed.splitlines():
        if "\0" in line:
            lines.append(line)
        elif line != "--":
            lines = files.setdefault(line.removeprefix(prefix), [])
    return files


def test_a_linked_local_folder_is_never_written_through(repo: Path, tmp_path: Path) -> None:
    """A committed symlink at ``.memory/local`` (``git add -f``) must not send the file
    elsewhere: the diff is made from the store, and nothing is kept."""
    _store(repo)
    save(repo, "pgpg000002", "Pin Postgres 16 for the job queue", kind="decision")
    commit(repo, "16")
    expected = _fresh(repo, "HEAD~1..HEAD")
    outside = tmp_path / "outside"
    outside.mkdir()
    local = repo / ".memory" / "local"
    shutil.rmtree(local)
    local.symlink_to(outside)
    assert _diff(repo, "HEAD~1..HEAD") == expected
    assert list(outside.iterdir()) == []


# the regex before it was unrolled: one alternation a character
_ONE_AT_A_TIME = re.compile(r"(?:[^\\]|\\[^n])*")


@given(st.text(alphabet='ab\\n"# \t\né', max_size=40))
def test_a_quoted_first_line_is_cut_where_a_regex_a_character_cuts_it(value: str) -> None:
    cut = item_lines._FIRST_QUOTED_LINE.match(value)
    assert cut is not None
    assert cut.group(0) == _ONE_AT_A_TIME.match(value).group(0)  # type: ignore[union-attr]
