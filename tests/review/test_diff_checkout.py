"""The first diff with nothing kept reads HEAD's items from the checked-out files: the same
report, and the same kept words, as reading the revision and as parsing every decision, with a
clean checkout, a dirty one (edited, deleted, staged, untracked and moved files), a base that is
not an ancestor of HEAD, a revision far from HEAD, a committed rename, and a checkout that git
converts (line endings, ``ident``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from review_helpers import commit, git, item_path, save

from memcli.review import diff as review_diff
from memcli.review import store_words
from memcli.review.gitrepo import GitRepo
from memcli.review.sides import SideReader


def _diff(repo: Path, spec: str) -> dict[str, Any]:
    data = review_diff.memory_diff(repo, spec).to_json()
    data["head"].pop("time")  # the working tree's is now
    return data


def _kept(repo: Path) -> dict[str, Any]:
    trees: dict[str, Any] = json.loads((repo / store_words.CACHE).read_text("utf-8"))["trees"]
    return trees


def _every_file(side: SideReader, _new: object, under: str) -> list[str]:
    return [p for p in side.files(under) if p.endswith((".yaml", ".yml"))]


def _same_three_ways(
    repo: Path, spec: str, monkeypatch: pytest.MonkeyPatch, greps: list[bool]
) -> dict[str, Any]:
    """The report with nothing kept (asserting which greps read whole: True for the checked-out
    files), equal to the one read from revisions only and to a full parse; the kept words of
    each tree the revision read equal too."""
    (repo / store_words.CACHE).unlink(missing_ok=True)
    seen: list[bool] = []
    grep = GitRepo.grep_output

    def recording(self: GitRepo, rev: str | None, *args: Any, **options: Any) -> str:
        seen.append(rev is None and options.get("untracked") is False)  # the checkout's files
        return grep(self, rev, *args, **options)

    with monkeypatch.context() as patched:
        patched.setattr(GitRepo, "grep_output", recording)
        report = _diff(repo, spec)
    assert seen == greps
    from_checkout = _kept(repo)
    (repo / store_words.CACHE).unlink()
    with monkeypatch.context() as patched:
        patched.setattr(store_words, "_from_checkout", lambda *_args: ("", None))
        assert _diff(repo, spec) == report
    for tree, words in _kept(repo).items():
        assert from_checkout[tree] == words
    with monkeypatch.context() as patched:
        patched.setattr(review_diff, "decision_candidates", _every_file)
        assert _diff(repo, spec) == report
    return report


def _pairs(report: dict[str, Any]) -> set[tuple[str, str]]:
    return {(c["id"], c["other_id"]) for c in report["contradictions"]}


def _store(repo: Path) -> None:
    for number in range(30):
        save(repo, f"mmmm{number:06d}", f"Unrelated fact number {number} about module m{number}")
    save(repo, "aaaa000001", "Pin Postgres 14 for the job queue", kind="decision")
    save(repo, "zzzz000001", "Use Redis streams for the notifications", kind="decision")
    save(repo, "aaaa000002", "Ship the nightly build to the mirror", kind="decision")
    save(repo, "aaaa000005", "Pin Postgres 11 for the job queue", kind="decision")
    save(repo, "gone000001", "Gone: the staging host", kind="task", expires="2026-01-01T00:00:00Z")
    commit(repo, "store")
    save(repo, "nnnn000001", "Pin Postgres 16 for the job queue", kind="decision")
    save(repo, "nnnn000002", "Do not use Redis streams for the notifications", kind="decision")
    save(repo, "late000001", "Late: the build cache", kind="task", expires="2026-01-02T00:00:00Z")
    commit(repo, "new decisions")


def test_a_clean_checkout_is_read_from_disk(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _store(repo)
    report = _same_three_ways(repo, "HEAD~1..HEAD", monkeypatch, [True])
    assert {("nnnn000001", "aaaa000001"), ("nnnn000002", "zzzz000001")} <= _pairs(report)
    assert [e["id"] for e in report["expired"]] == ["late000001"]
    worktree = _same_three_ways(repo, "HEAD~1", monkeypatch, [True])
    assert _pairs(worktree) == _pairs(report)


def test_a_dirty_checkout_reads_what_changed_from_head(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _store(repo)
    save(repo, "aaaa000001", "Pin MySQL 8 for the job queue", kind="decision")  # edited
    item_path(repo, "zzzz000001").unlink()  # deleted
    save(repo, "aaaa000003", "Pin Postgres 13 for the job queue", kind="decision")
    git(repo, "add", str(item_path(repo, "aaaa000003")))  # staged, new
    save(repo, "aaaa000004", "Pin Postgres 12 for the job queue", kind="decision")  # untracked
    git(repo, "mv", str(item_path(repo, "aaaa000002")), str(item_path(repo, "bbbb000002")))
    # an alike decision git is told not to look at on disk: git reads its blob, so must mem
    path = item_path(repo, "aaaa000005")
    git(repo, "update-index", "--assume-unchanged", str(path))
    path.write_text(path.read_text("utf-8").replace("Postgres 11", "MySQL 5"), encoding="utf-8")
    report = _same_three_ways(repo, "HEAD~1..HEAD", monkeypatch, [True])
    assert ("nnnn000001", "aaaa000005") in _pairs(report)
    # the committed range: what is on disk does not count
    assert {("nnnn000001", "aaaa000001"), ("nnnn000002", "zzzz000001")} <= _pairs(report)
    worktree = _same_three_ways(repo, "HEAD~1", monkeypatch, [True])
    assert ("nnnn000001", "aaaa000003") in _pairs(worktree)
    assert ("nnnn000002", "zzzz000001") not in _pairs(worktree)


def test_a_base_that_is_not_an_ancestor_and_a_rename(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _store(repo)
    git(repo, "checkout", "-q", "-b", "side", "HEAD~1")
    save(repo, "ssss000001", "Ship the nightly build to the CDN", kind="decision")
    git(repo, "mv", str(item_path(repo, "zzzz000001")), str(item_path(repo, "yyyy000001")))
    commit(repo, "side")
    git(repo, "checkout", "-q", "main")
    # neither side is HEAD: both reached from HEAD's checked-out files
    report = _same_three_ways(repo, "main..side", monkeypatch, [True])
    assert ("ssss000001", "aaaa000002") in _pairs(report)
    assert [e["id"] for e in report["added"]] == ["ssss000001", "yyyy000001"]
    # the rename committed on HEAD's branch
    git(repo, "mv", str(item_path(repo, "aaaa000001")), str(item_path(repo, "pppp000001")))
    commit(repo, "rename")
    renamed = _same_three_ways(repo, "HEAD~1..HEAD", monkeypatch, [True])
    assert [e["id"] for e in renamed["added"]] == ["pppp000001"]
    assert [e["id"] for e in renamed["removed"]] == ["aaaa000001"]


def test_a_revision_far_from_head_is_read_from_git(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _store(repo)
    monkeypatch.setattr(store_words, "MOST_CHANGED", 2)
    git(repo, "checkout", "-q", "HEAD~1")
    # main, three files from HEAD, is read from git; its base is HEAD (its expiries are due)
    report = _same_three_ways(repo, "main~1..main", monkeypatch, [False, True])
    assert ("nnnn000001", "aaaa000001") in _pairs(report)


def test_a_converted_checkout_is_read_from_git(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _store(repo)
    # line endings: every file on disk ends its lines with CRLF, git reports none as changed
    git(repo, "config", "core.autocrlf", "true")
    for path in (repo / ".memory" / "items").iterdir():
        path.unlink()
    git(repo, "checkout", "--", ".memory/items")
    assert b"\r\n" in item_path(repo, "aaaa000001").read_bytes()
    assert git(repo, "status", "--porcelain") == ""
    _same_three_ways(repo, "HEAD~1..HEAD", monkeypatch, [True, False])
    git(repo, "config", "core.autocrlf", "false")
    # ident: $Id$ on disk is not the blob's
    with (repo / ".gitattributes").open("a", encoding="utf-8") as handle:
        handle.write(".memory/items/*.yaml ident\n")
    save(repo, "nnnn000003", "Ship the nightly build to the mirror $Id$", kind="decision")
    commit(repo, "ident")
    for path in (repo / ".memory" / "items").iterdir():
        path.unlink()
    git(repo, "checkout", "--", ".memory/items")
    assert "$Id: " in item_path(repo, "nnnn000003").read_text("utf-8")
    _same_three_ways(repo, "HEAD~1..HEAD", monkeypatch, [False])
