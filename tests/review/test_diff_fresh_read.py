"""The first diff with nothing kept reads the items from git, never from the checked-out files:
no ``git diff`` of the working tree for a committed range (in a fresh clone git cannot trust
its stat data and hashes every file again), and the same report as parsing every decision with
a dirty checkout (edited, deleted, staged, untracked, moved and assume-unchanged files), a base
that is not an ancestor of HEAD, a committed rename, a revision far from HEAD, a converted
checkout (line endings, ``ident``), and a git without PCRE."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from review_helpers import alike_decisions, commit, git, item_path, save

from memcli import gitlayer
from memcli.review import diff as review_diff
from memcli.review import early_words, store_words
from memcli.review.sides import SideReader


def _diff(repo: Path, spec: str) -> dict[str, Any]:
    data = review_diff.memory_diff(repo, spec).to_json()
    data["head"].pop("time")  # the working tree's is now
    return data


def _every_file(side: SideReader, _new: object, under: str) -> list[str]:
    return [p for p in side.files(under) if p.endswith((".yaml", ".yml"))]


def _revisions(args: tuple[str, ...]) -> list[str]:
    """The revisions a ``git diff`` compares (none named after ``--``)."""
    end = args.index("--") if "--" in args else len(args)
    return [arg for arg in args[1:end] if not arg.startswith("-")]


def _fresh(
    repo: Path, spec: str, monkeypatch: pytest.MonkeyPatch, *, early: bool = False
) -> dict[str, Any]:
    """The report with nothing kept (with ``early``, HEAD's items read by a child started as
    `mem diff` starts it), equal to the one from parsing every decision; for a committed
    range, no ``git diff`` looks at the working tree."""
    (repo / store_words.CACHE).unlink(missing_ok=True)
    if early:
        review_diff.start_reads(str(repo))
    ran: list[tuple[str, ...]] = []
    run = gitlayer.run

    def recording(root: Path, *args: str) -> gitlayer.GitResult:
        ran.append(args)
        return run(root, *args)

    with monkeypatch.context() as patched:
        patched.setattr(gitlayer, "run", recording)
        report = _diff(repo, spec)
    if ".." in spec:
        assert [_revisions(a) for a in ran if a[0] == "diff"] == [
            _revisions(a) for a in ran if a[0] == "diff" and len(_revisions(a)) == 2
        ]
    with monkeypatch.context() as patched:
        patched.setattr(review_diff, "decision_candidates", _every_file)
        assert _diff(repo, spec) == report
    return report


def _pairs(report: dict[str, Any]) -> set[tuple[str, str]]:
    return {(c["id"], c["other_id"]) for c in report["contradictions"]}


def _store(repo: Path) -> None:
    ship = ("aaaa000002", "Ship the nightly build to the mirror")
    alike_decisions(repo, 30, ship, ("aaaa000005", "Pin Postgres 11 for the job queue"))


def test_a_dirty_checkout_does_not_count_for_a_committed_range(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _store(repo)
    clean = _fresh(repo, "HEAD~1..HEAD", monkeypatch)
    assert {("nnnn000001", "aaaa000001"), ("nnnn000002", "zzzz000001")} <= _pairs(clean)
    assert [e["id"] for e in clean["expired"]] == ["late000001"]
    save(repo, "aaaa000001", "Pin MySQL 8 for the job queue", kind="decision")  # edited
    item_path(repo, "zzzz000001").unlink()  # deleted
    save(repo, "aaaa000003", "Pin Postgres 13 for the job queue", kind="decision")
    git(repo, "add", str(item_path(repo, "aaaa000003")))  # staged, new
    save(repo, "aaaa000004", "Pin Postgres 12 for the job queue", kind="decision")  # untracked
    git(repo, "mv", str(item_path(repo, "aaaa000002")), str(item_path(repo, "bbbb000002")))
    path = item_path(repo, "aaaa000005")  # git is told not to look at it on disk
    git(repo, "update-index", "--assume-unchanged", str(path))
    path.write_text(path.read_text("utf-8").replace("Postgres 11", "MySQL 5"), encoding="utf-8")
    assert _fresh(repo, "HEAD~1..HEAD", monkeypatch) == clean
    worktree = _fresh(repo, "HEAD~1", monkeypatch)
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
    report = _fresh(repo, "main..side", monkeypatch)  # neither side is HEAD
    assert ("ssss000001", "aaaa000002") in _pairs(report)
    assert [e["id"] for e in report["added"]] == ["ssss000001", "yyyy000001"]
    git(repo, "mv", str(item_path(repo, "aaaa000001")), str(item_path(repo, "pppp000001")))
    commit(repo, "rename")
    renamed = _fresh(repo, "HEAD~1..HEAD", monkeypatch)
    assert [e["id"] for e in renamed["added"]] == ["pppp000001"]
    assert [e["id"] for e in renamed["removed"]] == ["aaaa000001"]


def test_a_revision_far_from_head_is_read_whole(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _store(repo)
    monkeypatch.setattr(store_words, "MOST_CHANGED", 2)
    git(repo, "checkout", "-q", "HEAD~1")
    # the child reads HEAD (main~1); main is three files from it: read whole
    report = _fresh(repo, "main~1..main", monkeypatch, early=True)
    assert ("nnnn000001", "aaaa000001") in _pairs(report)
    assert not early_words._children and not gitlayer._started
    (repo / store_words.CACHE).unlink()
    review_diff.start_reads(str(repo))
    _diff(repo, "main~1..main")
    trees = json.loads((repo / store_words.CACHE).read_text("utf-8"))["trees"]
    assert set(trees) == {
        git(repo, "rev-parse", f"{rev}:.memory/items").strip() for rev in ("main", "HEAD")
    }


@pytest.mark.parametrize("conversion", ["crlf", "ident"])
def test_a_converted_checkout(repo: Path, monkeypatch: pytest.MonkeyPatch, conversion: str) -> None:
    """Files on disk that are not their blobs' text (CRLF line endings, ``$Id$`` expanded),
    read by the child started with the command as by the parent: from git."""
    _store(repo)
    if conversion == "crlf":
        git(repo, "config", "core.autocrlf", "true")
    else:
        with (repo / ".gitattributes").open("a", encoding="utf-8") as handle:
            handle.write(".memory/items/*.yaml ident\n")
        save(repo, "nnnn000003", "Ship the nightly build to the CDN $Id$", kind="decision")
        commit(repo, "ident")
    expected = _fresh(repo, "HEAD~1..HEAD", monkeypatch)
    for path in (repo / ".memory" / "items").iterdir():
        path.unlink()
    git(repo, "checkout", "--", ".memory/items")
    assert git(repo, "status", "--porcelain") == ""
    assert _fresh(repo, "HEAD~1..HEAD", monkeypatch, early=True) == expected
    assert not early_words._children and not gitlayer._started
    assert expected["contradictions"]


def test_a_git_without_pcre_reads_the_same(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``git grep -P`` fails (git built without PCRE): git's own regex engine reads the same
    lines, so the same expiries and the same kept words."""
    _store(repo)
    expected = _fresh(repo, "HEAD~1..HEAD", monkeypatch)
    kept = json.loads((repo / store_words.CACHE).read_text("utf-8"))
    run = gitlayer.run
    engines: list[str] = []

    def without_pcre(root: Path, *args: str) -> gitlayer.GitResult:
        if "grep" in args:
            engines.append("-P" if "-P" in args else "-E")
        if "-P" in args:
            return gitlayer.GitResult(128, "", "fatal: cannot use Perl-compatible regexes\n")
        return run(root, *args)

    monkeypatch.setattr(gitlayer, "run", without_pcre)
    assert _fresh(repo, "HEAD~1..HEAD", monkeypatch) == expected
    assert engines == ["-P", "-E"]
    assert json.loads((repo / store_words.CACHE).read_text("utf-8")) == kept
