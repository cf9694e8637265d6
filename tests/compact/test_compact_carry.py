"""Episodes across compaction batches (memcli/compact/carry.py): a failure compacted in one
batch and its fix in the next still make one verified lesson, through `mem compact`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from compact_helpers import Writer, edit, obs, prompt, run_cmd, said, snapshot
from test_compact_rules import summary_of

from memcli import api
from memcli.compact import buffers, carry, compact_session, merge

PORT_FAILURE = (
    "tests/test_orders.py F\n"
    'E   psycopg.OperationalError: connection to server at "localhost", port 5433 failed\n'
    "1 failed in 0.4s"
)
MISSING = "Traceback (most recent call last):\nModuleNotFoundError: No module named 'requests'"


def mem_compact(root: Path, session: str) -> subprocess.CompletedProcess[str]:
    """`mem compact --session` as a user (or the SessionEnd hook) runs it."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("MEM_DISABLE", None)
    done = subprocess.run(
        ["mem", "compact", "--session", session],
        cwd=root, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done


def first_batch(session: str = "s1") -> list[dict[str, Any]]:
    """The order tests fail, an edit does not fix them: the batch ends unfinished."""
    return [
        prompt("The order tests fail since yesterday, find out why", session),
        run_cmd("pytest tests/test_orders.py -x", PORT_FAILURE, False, session),
        edit("tests/helpers.py", session),
        run_cmd("pytest tests/test_orders.py -x", PORT_FAILURE, False, session),
    ]


def second_batch(session: str = "s1") -> list[dict[str, Any]]:
    return [
        edit("tests/conftest.py", session),
        run_cmd("pytest tests/test_orders.py -x", "12 passed in 1.02s", True, session),
        said("The tests hard-coded port 5433 in tests/conftest.py while Postgres listens on "
             "5432. Fix: conftest now reads DB_PORT.", session),
    ]  # fmt: skip


def test_a_failure_in_one_batch_and_its_fix_in_the_next_make_the_pitfall(
    repo: Path, memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer(first_batch())
    mem_compact(repo, name)
    tasks = [i for i in memory.items() if i.kind == "task"]
    assert len(tasks) == 1 and summary_of(memory, name)["status"] == "unfinished"

    write_buffer(second_batch())
    mem_compact(repo, name)
    items = memory.items()
    assert [i.kind for i in items] == ["pitfall"], [i.title for i in items]
    pitfall = items[0]
    assert pitfall.confidence == "verified" and "5433" in pitfall.title
    assert "OperationalError" in pitfall.body and {a["path"] for a in pitfall.anchors} >= {
        "tests/conftest.py"
    }
    summary = summary_of(memory, name)
    assert summary["status"] == "done"
    assert summary["items"] == [pitfall.id]  # the retired task is gone from the summary too
    assert summary["stats"]["observations"] == 7  # the carried failure is not counted twice
    assert summary["stats"]["failed"] == 2
    assert memory.lint() == []


def test_a_replay_adds_nothing_and_a_rerun_is_a_no_op(
    repo: Path, memory: api.Memory, write_buffer: Writer
) -> None:
    lines = first_batch()
    name = write_buffer(lines)
    mem_compact(repo, name)
    later = second_batch()
    write_buffer(later)
    mem_compact(repo, name)
    before = snapshot(repo)
    write_buffer([*lines, *later])  # the same observations captured again (a replayed hook)
    mem_compact(repo, name)
    mem_compact(repo, name)
    assert snapshot(repo) == before


def test_the_open_episode_survives_batches_that_do_not_resolve_it(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer(first_batch())
    compact_session(memory, name)
    write_buffer([run_cmd("git status", "On branch main", True), edit("README.md")])
    compact_session(memory, name)
    assert [i.kind for i in memory.items()] == ["task"]
    write_buffer(second_batch())
    compact_session(memory, name)
    assert [i.kind for i in memory.items()] == ["pitfall"]
    state, _done = buffers.read_journal(memory.paths, name)
    assert state[carry.STATE_KEY] == []  # nothing is open any more


def test_an_environment_fact_becomes_the_verified_lesson_when_a_later_batch_fixes_it(
    repo: Path, memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        prompt("Run the sync script"),
        run_cmd("python sync.py", MISSING, False),
        said("The sync script cannot run yet."),
    ])  # fmt: skip
    mem_compact(repo, name)
    facts = memory.items()
    assert len(facts) == 1 and facts[0].kind == "env" and "requests" in facts[0].title
    write_buffer([
        run_cmd("pip install requests", "Successfully installed requests-2.32.3", True),
        run_cmd("python sync.py", "synced 14 rows", True),
    ])  # fmt: skip
    mem_compact(repo, name)
    items = memory.items()
    assert len(items) == 1, [i.title for i in items]  # one item for one lesson
    assert items[0].kind == "env" and items[0].confidence == "verified"
    assert "pip install requests" in items[0].title and facts[0].id != items[0].id


def test_what_another_session_or_a_person_added_to_is_never_retired(
    memory: api.Memory, write_buffer: Writer
) -> None:
    write_buffer([run_cmd("python sync.py", MISSING, False)])
    compact_session(memory, "s1")
    (fact,) = memory.items()
    seen_again = {"excerpt": "No module named 'requests'", "session": "s2"}
    memory.store.save(replace(fact, evidence=[*fact.evidence, seen_again]))
    write_buffer([
        run_cmd("pip install requests", "Successfully installed requests-2.32.3", True),
        run_cmd("python sync.py", "synced 14 rows", True),
    ])  # fmt: skip
    compact_session(memory, "s1")
    ids = {i.id for i in memory.items()}
    assert fact.id in ids and len(ids) == 2


@pytest.mark.parametrize("stage", ["save", "delete", "write_journal"])
def test_a_compaction_killed_in_the_second_batch_reruns_clean(
    repo: Path, memory: api.Memory, write_buffer: Writer, monkeypatch: pytest.MonkeyPatch,
    stage: str,
) -> None:  # fmt: skip
    name = write_buffer(first_batch())
    compact_session(memory, name)
    write_buffer(second_batch())
    owner: Any = buffers if stage == "write_journal" else merge.ItemStore
    original = getattr(owner, stage)

    class Killed(BaseException):
        pass

    def dies(*args: Any, **kwargs: Any) -> Any:
        original(*args, **kwargs)
        raise Killed(stage)

    monkeypatch.setattr(owner, stage, dies)
    with pytest.raises(Killed):
        compact_session(memory, name)
    monkeypatch.setattr(owner, stage, original)
    compact_session(memory, name)
    compact_session(memory, name)
    items = memory.items()
    assert [i.kind for i in items] == ["pitfall"] and items[0].confidence == "verified"
    assert summary_of(memory, name)["items"] == [items[0].id]
    assert memory.lint() == []


def test_the_carry_holds_only_the_open_episode_and_is_bounded(
    memory: api.Memory, write_buffer: Writer
) -> None:
    noise = [run_cmd(f"python step{n}.py", "done", True) for n in range(carry.MAX_CARRIED + 5)]
    name = write_buffer([
        prompt("Always run the linter before committing"),
        run_cmd("ls", "a b", True),
        run_cmd("pytest -x", PORT_FAILURE, False),
        run_cmd("git status", "On branch main", True),
        said("Still failing, I will look again."),
        obs("note", excerpt="The port is read from tests/conftest.py.", summary="note: port"),
        *noise,
    ])  # fmt: skip
    compact_session(memory, name)
    journal = buffers.journal_path(memory.paths, name).read_text(encoding="utf-8")
    kept = json.loads(journal.splitlines()[0])["state"][carry.STATE_KEY]
    assert len(kept) == carry.MAX_CARRIED
    assert {r["kind"] for r in kept} <= {"command", "error", "edit", "note"}
    assert not any(r.get("input") in ("ls", "git status") for r in kept)
    assert kept[0]["input"] == "pytest -x"  # the open failure stays, the oldest others go
