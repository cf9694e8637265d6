"""The first diff in a fresh clone starts its reads with the command: a forked child reads
every item at HEAD while the parent imports, git commands started early are taken by
the run of the same command. The report and the kept words are the same as when the parent
reads them itself; a child that fails or is not needed leaves nothing behind."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from review_helpers import alike_decisions, git, item_path, save

from memcli import gitlayer
from memcli.review import diff as review_diff
from memcli.review import early_words, store_words
from memcli.review.diff import ITEMS


def _store(repo: Path) -> None:
    alike_decisions(repo, 20)


def _dirty(repo: Path) -> None:
    save(repo, "aaaa000001", "Pin MySQL 8 for the job queue", kind="decision")  # edited
    item_path(repo, "zzzz000001").unlink()  # deleted
    save(repo, "aaaa000004", "Pin Postgres 12 for the job queue", kind="decision")  # untracked


def _report(
    repo: Path, spec: str, *, early: bool, all_taken: bool = True
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The report (with nothing kept) and the kept words after it; with ``early``, the reads
    started as `mem diff` starts them, and (``all_taken``) every one of them taken."""
    (repo / store_words.CACHE).unlink(missing_ok=True)
    if early:
        review_diff.start_reads(str(repo))
        assert early_words._children and gitlayer._started
    data = review_diff.memory_diff(repo, spec).to_json()
    assert not early_words._children
    if not all_taken:
        gitlayer.end_early()  # as at exit
    assert not gitlayer._started
    data["head"].pop("time")
    kept = json.loads((repo / store_words.CACHE).read_text("utf-8"))
    return data, kept


@pytest.mark.parametrize("spec", ["HEAD~1..HEAD", "HEAD~1"])
@pytest.mark.parametrize("dirty", [False, True])
def test_the_child_reads_what_the_parent_would(
    repo: Path, monkeypatch: pytest.MonkeyPatch, spec: str, dirty: bool
) -> None:
    _store(repo)
    if dirty:
        _dirty(repo)
    took: list[bool] = []
    take = early_words.take

    def recording(key: tuple[str, ...]) -> Any:
        found = take(key)
        took.append(found is not None)
        return found

    monkeypatch.setattr(early_words, "take", recording)
    early = _report(repo, spec, early=True)
    assert took == [True]  # the child's read was used, not read again
    assert early == _report(repo, spec, early=False)
    pairs = {(c["id"], c["other_id"]) for c in early[0]["contradictions"]}
    assert ("nnnn000002", "zzzz000001") in pairs or (dirty and spec == "HEAD~1")


def test_a_failing_child_leaves_the_read_to_the_parent(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _store(repo)
    expected = _report(repo, "HEAD~1..HEAD", early=False)

    def failing(_root: str, _under: str) -> None:
        raise RuntimeError("the child fails")

    monkeypatch.setattr(store_words, "_early_read", failing)  # the forked child inherits this
    took: list[object] = []
    take = early_words.take
    monkeypatch.setattr(early_words, "take", lambda *args: took.append(take(*args)))
    assert _report(repo, "HEAD~1..HEAD", early=True) == expected
    assert took == [None]


def test_nothing_starts_when_words_are_kept(repo: Path) -> None:
    _store(repo)
    review_diff.memory_diff(repo, "HEAD~1..HEAD")  # keeps HEAD's words
    review_diff.start_reads(str(repo))
    assert not early_words._children
    assert not any("grep" in args for _root, args in gitlayer._started)
    gitlayer.end_early()


def test_what_nobody_takes_is_ended(repo: Path) -> None:
    _store(repo)
    review_diff.start_reads(str(repo))
    pids = [pid for pid, _pipe in early_words._children.values()]
    processes = [process for process, _out, _err in gitlayer._started.values()]
    assert pids and processes
    early_words.end()
    gitlayer.end_early()
    assert not early_words._children and not gitlayer._started
    for pid in pids:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # reaped: no zombie left
    assert all(process.returncode is not None for process in processes)


def test_a_git_command_started_early_is_the_one_run(repo: Path) -> None:
    _store(repo)
    args = ("ls-files", "-z", "--", ".memory/items")
    gitlayer.start_early(str(repo), *args)
    save(repo, "late000002", "Added after the start", kind="task")  # not tracked: not listed
    early = gitlayer.run(repo, *args)
    assert not gitlayer._started
    assert early == gitlayer.run(repo, *args)
    gitlayer.start_early(str(repo), "rev-parse", "--verify", "-q", "no-such-revision")
    failed = gitlayer.run(repo, "rev-parse", "--verify", "-q", "no-such-revision")
    assert failed.status == 1 and not failed.ok


def test_mem_diff_in_a_fresh_clone(repo: Path, tmp_path: Path) -> None:
    """The command as CI runs it: a fresh clone, `mem diff` in a process of its own."""
    _store(repo)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--no-local", str(repo), str(clone))
    done = subprocess.run(
        [sys.executable, "-m", "memcli", "diff", "HEAD~1..HEAD", "--json"],
        cwd=clone, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    report = json.loads(done.stdout)
    kept = json.loads((clone / store_words.CACHE).read_text("utf-8"))
    (clone / store_words.CACHE).unlink()
    expected = review_diff.memory_diff(clone, "HEAD~1..HEAD").to_json()
    assert report == json.loads(json.dumps(expected))
    assert kept == json.loads((clone / store_words.CACHE).read_text("utf-8"))
    assert ITEMS in kept["under"]


def test_the_kept_words_are_not_flushed_to_disk(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cache rebuilt when broken: written without an fsync (a tenth of a cold diff's write)."""
    _store(repo)
    synced: list[int] = []
    fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), fsync(fd))[1])
    review_diff.memory_diff(repo, "HEAD~1..HEAD")
    assert (repo / store_words.CACHE).is_file()
    assert synced == []


def test_a_tree_reached_from_a_kept_one_is_not_written(repo: Path) -> None:
    """The base of a diff next to HEAD's kept tree is reached again as cheaply: only the trees
    read whole are kept (one JSON tree to load in the next diff, not two)."""
    _store(repo)
    review_diff.memory_diff(repo, "HEAD~1..HEAD")
    trees = json.loads((repo / store_words.CACHE).read_text("utf-8"))["trees"]
    head_tree = git(repo, "rev-parse", "HEAD:.memory/items").strip()
    assert list(trees) == [head_tree]


def test_the_child_and_the_diff_run_without_the_cycle_collector(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The words of every item hold no cycles: the collector would only walk them again and
    again (at 15,000 items 24 to 46 ms of CPU); paused in the child and in the diff, and
    running again after the diff."""
    early_words.start(("gc-test",), gc.isenabled)
    assert early_words.take(("gc-test",)) is False
    _store(repo)
    seen: list[bool] = []
    candidates = review_diff.decision_candidates

    def recording(*args: Any) -> list[str]:
        seen.append(gc.isenabled())
        return candidates(*args)

    monkeypatch.setattr(review_diff, "decision_candidates", recording)
    assert gc.isenabled()
    review_diff.memory_diff(repo, "HEAD~1..HEAD")
    assert seen == [False] and gc.isenabled()
