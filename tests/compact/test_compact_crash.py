"""Crash safety: a compaction killed anywhere leaves each item once after a rerun."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from compact_helpers import Capture, Writer, obs, snapshot

from memcli import api
from memcli.compact import buffers, compact_session, merge, run, session, stale_sessions


class Killed(BaseException):
    """Stands for the process dying: nothing after it runs, no handler catches it."""


STAGES = [
    ("after the item is written", merge.ItemStore, "save"),
    ("after the summary is written", session, "write"),
    ("after the journal is written", buffers, "write_journal"),
    ("after the buffer is consumed", buffers, "consume"),
]


@pytest.mark.parametrize(("label", "owner", "name"), STAGES, ids=[s[0] for s in STAGES])
def test_killed_at_any_stage_then_rerun_leaves_each_item_once(
    repo: Path,
    memory: api.Memory,
    capture: Capture,
    fixture_lines: list[bytes],
    monkeypatch: pytest.MonkeyPatch,
    label: str,
    owner: Any,
    name: str,
) -> None:
    capture(fixture_lines)
    original = getattr(owner, name)

    def dies(*args: Any, **kwargs: Any) -> Any:
        original(*args, **kwargs)
        raise Killed(label)

    monkeypatch.setattr(owner, name, dies)
    with pytest.raises(Killed):
        compact_session(memory, "abc123")
    monkeypatch.setattr(owner, name, original)
    compact_session(memory, "abc123")
    compact_session(memory, "abc123")
    items = memory.items()
    assert len(items) == 1 and items[0].kind == "pitfall"
    assert memory.lint() == []
    assert not (memory.paths.buffers / "abc123.jsonl").exists()
    summary = snapshot(repo)["sessions/abc123.yaml"]
    assert "observations: 8\n" in summary


def test_a_real_sigkill_before_consumption_then_rerun(
    repo: Path, memory: api.Memory, capture: Capture, fixture_lines: list[bytes]
) -> None:
    capture(fixture_lines)
    script = (
        "import os, signal\n"
        "from memcli.api import Memory\n"
        "from memcli.compact import buffers, run\n"
        "buffers.consume = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)\n"
        "run.compact_session(Memory.open(), 'abc123')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=repo, check=False, timeout=60)
    assert done.returncode == -signal.SIGKILL
    assert len(memory.items()) == 1
    assert (memory.paths.buffers / "abc123.jsonl").exists()
    result = compact_session(memory, "abc123")
    assert result.added == [] and result.consumed == 0
    assert len(memory.items()) == 1 and memory.lint() == []
    assert not (memory.paths.buffers / "abc123.jsonl").exists()


def test_a_line_appended_during_compaction_survives(
    memory: api.Memory, write_buffer: Writer, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = write_buffer([obs("prompt", "late", excerpt="Fix the build")])
    original = merge.apply

    def apply_and_meanwhile_capture(*args: Any, **kwargs: Any) -> merge.Outcome:
        write_buffer([obs("prompt", "late", excerpt="one more thing", id="olatecomer")])
        return original(*args, **kwargs)

    monkeypatch.setattr(merge, "apply", apply_and_meanwhile_capture)
    compact_session(memory, name)
    left = (memory.paths.buffers / "late.jsonl").read_text().splitlines()
    assert [json.loads(line)["id"] for line in left] == ["olatecomer"]


def test_a_session_being_compacted_elsewhere_is_skipped(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([obs("prompt", "busy", excerpt="Fix the build")])
    with buffers.session_lock(memory.paths, name):
        result = compact_session(memory, name)
        assert result.skipped and result.consumed == 0
        assert stale_sessions(memory, older_than_seconds=0) == []
    assert (memory.paths.buffers / "busy.jsonl").exists()


def test_stale_sessions_are_idle_buffers_whose_end_was_never_seen(
    memory: api.Memory, write_buffer: Writer
) -> None:
    write_buffer([obs("prompt", "crashed", excerpt="Fix the build")])
    write_buffer([obs("prompt", "ended"), obs("session", "ended", summary="session end (exit)")])
    write_buffer([obs("prompt", "active", excerpt="still going")])
    now = os.path.getmtime(memory.paths.buffers / "active.jsonl")
    old = now - 3600
    for name in ("crashed", "ended"):
        os.utime(memory.paths.buffers / f"{name}.jsonl", (old, old))
    os.utime(memory.paths.buffers / "active.jsonl", (now - 300, now - 300))
    assert stale_sessions(memory) == ["crashed", "ended"]
    assert buffers.stale_sessions(memory.paths, 7200, 120) == ["ended"]
    assert buffers.stale_sessions(memory.paths, 60) == ["active", "crashed", "ended"]


def test_compact_all_and_a_detached_run(memory: api.Memory, write_buffer: Writer) -> None:
    write_buffer([obs("prompt", "one", excerpt="We use pnpm, never npm.")])
    write_buffer([obs("prompt", "two", excerpt="Fix the build")])
    pid = run.spawn_detached(memory, ["one"])
    os.waitpid(pid, 0)
    assert not (memory.paths.buffers / "one.jsonl").exists()
    assert [r.session for r in run.compact_all(memory)] == ["two"]
    assert [i.kind for i in memory.items()] == ["convention"]
    assert buffers.pending(memory.paths) == []


def test_the_background_process_never_raises(memory: api.Memory, tmp_path: Path) -> None:
    from memcli.compact import background

    assert background.main([]) == 2
    outside = tmp_path / "not-a-repository"
    outside.mkdir()
    assert background.main([str(outside)]) == 3  # no store there: logged, not raised
    buffer_file = memory.paths.buffers / "three.jsonl"
    buffer_file.parent.mkdir(parents=True, exist_ok=True)
    buffer_file.write_text(json.dumps(obs("prompt", "three", excerpt="We use uv.")) + "\n")
    assert background.main([str(memory.root), "three"]) == 0
    assert not buffer_file.exists()
