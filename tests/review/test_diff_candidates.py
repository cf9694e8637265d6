"""The decisions `mem diff` compares a new decision with: the same report from a fresh clone
(no kept words), from the kept words, and from parsing every decision of the store, when the
alike decisions sit far from the new one in the tree, are written oddly, or were edited and
removed in the same change."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from review_helpers import commit, item_path, save

from memcli.review import diff as review_diff
from memcli.review import sides, store_words


def _diff(repo: Path, spec: str) -> dict[str, Any]:
    data = review_diff.memory_diff(repo, spec).to_json()
    data["head"].pop("time")  # the working tree's is now
    return data


def _every_file(side: sides.SideReader, _new: object, under: str) -> list[str]:
    """The candidates of a full read: every file of the items folder."""
    return [p for p in side.files(under) if p.endswith((".yaml", ".yml"))]


def _three_ways(repo: Path, spec: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    (repo / store_words.CACHE).unlink(missing_ok=True)
    cold = _diff(repo, spec)  # a fresh clone: nothing kept
    assert (repo / store_words.CACHE).is_file()
    warm = _diff(repo, spec)
    with monkeypatch.context() as patched:
        patched.setattr(review_diff, "decision_candidates", _every_file)
        full = _diff(repo, spec)
    assert cold == warm == full
    return cold


def _rewrite(repo: Path, item_id: str, old: str, new: str) -> None:
    path = item_path(repo, item_id)
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def _store(repo: Path) -> None:
    for number in range(40):
        save(repo, f"mmmm{number:06d}", f"Unrelated fact number {number} about module m{number}")
    # alike to the decisions added below, at both ends of the folder
    save(repo, "aaaa000001", "Pin Postgres 14 for the job queue", kind="decision")
    save(repo, "zzzz000001", "Use Redis streams for the notifications", kind="decision")
    save(repo, "aaaa000002", "Ship the nightly build to the mirror", kind="decision")
    # alike too, but not written the way mem writes them
    save(repo, "zzzz000002", "placeholder", kind="decision")
    _rewrite(repo, "zzzz000002", "title: placeholder", "title:\n  Deploy the docs site with rsync")
    save(repo, "aaaa000003", "placeholder", kind="decision")
    _rewrite(repo, "aaaa000003", "title: placeholder", "title: Cache wheels\n  in the CI runner")
    save(repo, "zzzz000003", "Vendor the retry library", kind="decision")
    _rewrite(repo, "zzzz000003", "kind: decision", "kind:\n  decision")
    commit(repo, "store")


def test_a_fresh_clone_a_kept_store_and_a_full_read_give_one_report(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _store(repo)
    save(repo, "nnnn000001", "Pin Postgres 16 for the job queue", kind="decision")
    save(repo, "nnnn000002", "Do not use Redis streams for the notifications", kind="decision")
    save(repo, "nnnn000003", "Deploy the docs site with scp", kind="decision")
    save(repo, "nnnn000004", "Do not cache wheels in the CI runner", kind="decision")
    save(repo, "nnnn000005", "Do not vendor the retry library", kind="decision")
    # an edit and a removal in the same change
    save(repo, "aaaa000002", "Ship the nightly build to the mirror at 3am", kind="decision")
    item_path(repo, "mmmm000007").unlink()
    commit(repo, "new decisions")
    report = _three_ways(repo, "HEAD~1..HEAD", monkeypatch)
    pairs = {(c["id"], c["other_id"]) for c in report["contradictions"]}
    assert {("nnnn000001", "aaaa000001"), ("nnnn000002", "zzzz000001")} <= pairs
    assert {("nnnn000003", "zzzz000002"), ("nnnn000004", "aaaa000003")} <= pairs
    assert ("nnnn000005", "zzzz000003") in pairs
    assert [e["id"] for e in report["changed"]] == ["aaaa000002"]
    assert [e["id"] for e in report["removed"]] == ["mmmm000007"]
    # the working tree: a new alike decision, an edit and a removal, none committed
    save(repo, "nnnn000006", "Pin Postgres 17 for the job queue", kind="decision")
    item_path(repo, "zzzz000001").unlink()
    save(repo, "aaaa000001", "Pin Postgres 15 for the job queue", kind="decision")
    worktree = _three_ways(repo, "HEAD", monkeypatch)
    assert ("nnnn000006", "aaaa000001") in {
        (c["id"], c["other_id"]) for c in worktree["contradictions"]
    }


@pytest.mark.parametrize("sample", [1, 2, 10**9])
def test_the_candidates_do_not_depend_on_the_decisions_the_words_are_counted_in(
    repo: Path, monkeypatch: pytest.MonkeyPatch, sample: int
) -> None:
    """The word counts only choose which rare words prefix filtering looks up: counted in every
    decision, every other one, or the first one alone, the candidates are the same."""
    _store(repo)
    for number in range(12):  # words common in the store, so that the counts matter
        save(repo, f"cccc{number:06d}", f"Pin the queue worker {number} in CI", kind="decision")
    save(repo, "nnnn000001", "Pin Postgres 16 for the job queue", kind="decision")
    save(repo, "nnnn000002", "Pin the queue worker in the CI runner", kind="decision")
    save(repo, "nnnn000003", "Deploy the docs site with scp", kind="decision")
    commit(repo, "new decisions")
    side = sides.SideReader(review_diff.GitRepo(repo), "HEAD", "HEAD")
    new = [
        side.item(item_path(repo, f"nnnn00000{n}").relative_to(repo).as_posix()) for n in (1, 2, 3)
    ]
    items = [item for item in new if item is not None]
    every = sides.decision_candidates(side, items, review_diff.ITEMS)
    with monkeypatch.context() as patched:
        patched.setattr(sides, "SAMPLE", sample)
        assert sides.decision_candidates(side, items, review_diff.ITEMS) == every
    stems = {Path(path).stem for path in every}
    assert {"aaaa000001", "zzzz000002"} <= stems
    assert {f"cccc{number:06d}" for number in range(12)} <= stems
