"""Mid-turn notes: what the assistant said in the middle of a turn, read from its transcript at
Stop (memcli/observed/transcript_tail.py), recorded once by capture as `note` observations and
read by the checkpoint with its own offset. Real files, and the hooks `mem hooks install`
writes run as subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memcli.observed import transcript_tail

BIN = Path(sys.executable).parent
SESSION = "note-session"
SECRET = "AKIAZ7QWERTYUIOPASDF"


def said(text: str, sidechain: bool = False, agent: str = "") -> dict[str, Any]:
    record: dict[str, Any] = {
        "type": "assistant", "sessionId": SESSION, "isSidechain": sidechain,
        "message": {"role": "assistant", "content": [{"type": "text", "text": text}]},
    }  # fmt: skip
    if agent:
        record["agentId"] = agent
    return record


def tool_use(sidechain: bool = False, agent: str = "") -> dict[str, Any]:
    record = said("", sidechain, agent)
    record["message"]["content"] = [{"type": "tool_use", "id": "t1", "name": "Bash",
                                     "input": {"command": "ls"}}]  # fmt: skip
    return record


def tool_result(output: str) -> dict[str, Any]:
    return {"type": "user", "sessionId": SESSION, "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": output}]}}  # fmt: skip


def append(path: Path, *records: dict[str, Any]) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record) + "\n")


# --- the reader -----------------------------------------------------------------------------


def test_reads_only_what_was_appended_and_skips_the_conclusion(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    append(path, said("The cause is a stale lock file."), tool_use(), tool_result("x" * 5000),
           said("Done."))  # fmt: skip
    notes, mark = transcript_tail.turn_notes(str(path), {}, "Done.")
    assert notes == ["The cause is a stale lock file."]
    assert mark["offset"] == path.stat().st_size
    assert transcript_tail.turn_notes(str(path), mark, "Done.") == ([], mark)
    append(path, said("Next turn: chose uv over pip because it locks."), said("Ok."))
    notes, later = transcript_tail.turn_notes(str(path), mark, "Ok.")
    assert notes == ["Next turn: chose uv over pip because it locks."]
    assert later["offset"] > mark["offset"]


def test_a_torn_last_line_waits_for_the_next_turn(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    append(path, said("first"))
    line = json.dumps(said("second")) + "\n"
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(line[:20])
    notes, mark = transcript_tail.turn_notes(str(path), {})
    assert notes == ["first"]
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(line[20:])
    assert transcript_tail.turn_notes(str(path), mark)[0] == ["second"]


def test_a_truncated_or_replaced_file_is_read_again_from_its_start(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    append(path, said("one " * 50), said("two " * 50))
    _notes, mark = transcript_tail.turn_notes(str(path), {})
    path.write_text(json.dumps(said("short")) + "\n", encoding="utf-8")  # truncated
    assert transcript_tail.turn_notes(str(path), mark)[0] == ["short"]
    _notes, mark = transcript_tail.turn_notes(str(path), {})
    other = tmp_path / "other.jsonl"
    append(other, said("a new file, longer than the old one " * 5))
    os.replace(other, path)  # same path, another file
    assert transcript_tail.turn_notes(str(path), mark)[0] == [
        "a new file, longer than the old one " * 5
    ]


def test_a_huge_transcript_is_read_in_bounded_steps(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    output = "y" * 100_000
    with open(path, "w", encoding="utf-8") as handle:
        for n in range(100):  # 10 MB of tool results, a few texts among them
            handle.write(json.dumps(tool_result(output)) + "\n")
            if n % 10 == 0:
                handle.write(json.dumps(said(f"note {n}")) + "\n")
    mark: dict[str, object] = {}
    seen: list[str] = []
    calls = 0
    while True:
        notes, new = transcript_tail.turn_notes(str(path), mark)
        assert int(new["offset"]) - int(mark.get("offset") or 0) <= transcript_tail.MAX_READ  # type: ignore[call-overload]
        seen += notes
        calls += 1
        if new == mark:
            break
        mark = new
    assert seen == [f"note {n}" for n in range(0, 100, 10)]
    assert calls >= 3


def test_sub_agent_reports_are_their_last_words(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    append(path, said("I will ask a sub-agent."), said("looking", True, "a1"), tool_use(True, "a1"),
           said("Found it: the config key is misspelled.", True, "a1"), said("Fixed."))  # fmt: skip
    notes, _mark = transcript_tail.turn_notes(str(path), {}, "Fixed.")
    assert notes == ["I will ask a sub-agent.", "Found it: the config key is misspelled."]


def test_codex_rollouts_give_the_assistant_messages(tmp_path: Path) -> None:
    path = tmp_path / "rollout.jsonl"

    def item(role: str, text: str) -> dict[str, Any]:
        kind = "output_text" if role == "assistant" else "input_text"
        return {"type": "response_item", "payload": {"type": "message", "role": role,
                "content": [{"type": kind, "text": text}]}}  # fmt: skip

    append(path, item("user", "go"), item("assistant", "The port 8000 is already in use."),
           {"type": "event_msg", "payload": {"type": "agent_message", "message": "dup"}},
           item("assistant", "Done."))  # fmt: skip
    assert transcript_tail.turn_notes(str(path), {}, "Done.")[0] == [
        "The port 8000 is already in use."
    ]


@pytest.mark.parametrize(
    "content",
    [b"", b"\x00\xff\xfe garbage\n", b"[1,2]\n{\"type\": \"assistant\"}\n", b"{\"assistant\"\n",
     b"{\"type\": \"assistant\", \"message\": {\"content\": [1, null, {\"type\": \"text\"}]}}\n"],
)  # fmt: skip
def test_odd_input_never_raises(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(content)
    notes, _mark = transcript_tail.turn_notes(str(path), {"offset": "x"})
    assert notes == []


def test_links_folders_and_missing_files_are_not_read(tmp_path: Path) -> None:
    real = tmp_path / "real.jsonl"
    append(real, said("secret plans"))
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    for path in (link, tmp_path, tmp_path / "missing.jsonl"):
        assert transcript_tail.turn_notes(str(path), {"offset": 3}) == ([], {"offset": 3})


# --- through the installed hooks ------------------------------------------------------------


class Hooks:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
        self.env.pop("MEM_DEBUG", None)
        subprocess.run([str(BIN / "mem"), "hooks", "install"], cwd=root, env=self.env,
                       check=True, capture_output=True)  # fmt: skip
        settings = json.loads((root / ".claude" / "settings.json").read_text(encoding="utf-8"))
        self.stop_hooks = [h for group in settings["hooks"]["Stop"] for h in group["hooks"]]
        self.transcript = root.parent / "transcript.jsonl"

    def stop(self, message: str, active: bool = False) -> str:
        payload = {"session_id": SESSION, "hook_event_name": "Stop", "cwd": str(self.root),
                   "transcript_path": str(self.transcript), "stop_hook_active": active,
                   "last_assistant_message": message}  # fmt: skip
        shown = ""
        for handler in self.stop_hooks:
            done = subprocess.run(handler["command"], shell=True, cwd=self.root, env=self.env,
                                  input=json.dumps(payload), capture_output=True, text=True,
                                  check=False, timeout=60)  # fmt: skip
            assert done.returncode == 0, done.stderr
            if handler["command"].split()[1:2] == ["checkpoint"]:
                shown = done.stdout
        return shown

    def buffer(self) -> list[dict[str, Any]]:
        path = self.root / ".memory" / "local" / "buffer" / f"{SESSION}.jsonl"
        lines = path.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines]


@pytest.fixture
def hooks(repo: Path) -> Hooks:
    return Hooks(repo)


def test_capture_records_each_note_once_before_the_conclusion(hooks: Hooks) -> None:
    cause = "The root cause was that `pytest-asyncio` is not installed in the test extra."
    append(hooks.transcript, said("Let me look at the failing test."), tool_use(),
           tool_result("ModuleNotFoundError"), said(cause), said("Fixed the extra."))  # fmt: skip
    shown = hooks.stop("Fixed the extra.")
    records = hooks.buffer()
    assert [(r["kind"], r["summary"]) for r in records] == [
        ("note", "note: Let me look at the failing test."),
        ("note", f"note: {cause}"),
        ("conclusion", "conclusion: Fixed the extra."),
    ]
    assert {r["event"] for r in records} == {"Stop"}
    assert records[1]["excerpt"] == cause
    # The checkpoint read the same transcript itself: the stated cause is a candidate.
    reason = json.loads(shown)["reason"]
    assert "[cause -> pitfall]" in reason and "pytest-asyncio" in reason
    assert hooks.stop("Fixed the extra.") == ""  # nothing new: nothing recorded, nothing shown
    assert len(hooks.buffer()) == 4  # the repeated Stop's conclusion only
    append(hooks.transcript, said("A second turn's note."), said("Bye."))
    hooks.stop("Bye.")
    assert [r["excerpt"] for r in hooks.buffer() if r["kind"] == "note"][-1] == (
        "A second turn's note."
    )


def test_a_secret_said_mid_turn_never_reaches_disk(hooks: Hooks) -> None:
    leak = f"The deploy failed because the key {SECRET} is not installed in CI."
    append(hooks.transcript, said(leak), said("Done."))
    shown = hooks.stop("Done.")
    assert any(r["kind"] == "note" for r in hooks.buffer())
    assert SECRET not in shown
    for path in (hooks.root / ".memory").rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


def test_two_stop_captures_at_once_record_each_note_once(hooks: Hooks) -> None:
    texts = [f"Finding {n}: the cache key never includes the locale." for n in range(20)]
    append(hooks.transcript, *[said(t) for t in texts], said("Done."))
    payload = json.dumps({"session_id": SESSION, "hook_event_name": "Stop",
                          "cwd": str(hooks.root), "transcript_path": str(hooks.transcript),
                          "last_assistant_message": "Done."})  # fmt: skip
    running = [
        subprocess.Popen([str(BIN / "mem"), "capture"], cwd=hooks.root, env=hooks.env,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(3)
    ]  # fmt: skip
    for process in running:
        process.communicate(payload.encode(), timeout=60)
        assert process.returncode == 0
    notes = [r["excerpt"] for r in hooks.buffer() if r["kind"] == "note"]
    assert notes == texts


def test_many_notes_keep_the_caps_and_ask_once_each(hooks: Hooks) -> None:
    """Turns full of findings: at most the per-request cap each, two thirds of the session's
    cap in all, none asked twice, the documented JSON, and silence under stop_hook_active."""
    from memcli.defaults import DEFAULTS

    per_turn = int(DEFAULTS["checkpoint"]["max_per_turn"])
    per_session = int(DEFAULTS["checkpoint"]["max_per_session"])
    append(hooks.transcript, said("It turns out the cache does not expire."), said("Hm."))
    assert hooks.stop("Hm.", active=True) == ""  # the model is answering a Stop hook already
    asked: list[str] = []
    for turn in range(4):
        findings = [f"It turns out module{turn}x{n} does not close its socket." for n in range(8)]
        append(hooks.transcript, *[said(t) for t in findings], said(f"Turn {turn} done."))
        shown = hooks.stop(f"Turn {turn} done.")
        if not shown:
            continue
        answer = json.loads(shown)
        assert set(answer) == {"decision", "reason"} and answer["decision"] == "block"
        ids = [line.split()[1] for line in answer["reason"].splitlines() if line.startswith("- c")]
        assert 1 <= len(ids) <= per_turn
        asked += ids
    # What was said takes at most two thirds of the session's cap: a third stays for what happens.
    said_room = per_session - per_session // 3
    assert len(asked) == said_room and len(set(asked)) == said_room


# --- what the user typed into a running turn ------------------------------------------------


def queue(operation: str, content: str | None = None) -> dict[str, Any]:
    """Claude Code's line for its input queue (a message typed while the assistant works)."""
    record: dict[str, Any] = {
        "type": "queue-operation",
        "operation": operation,
        "timestamp": "2026-03-16T23:55:07.527Z",
        "sessionId": SESSION,
    }
    if content is not None:
        record["content"] = content
    return record  # fmt: skip


def test_a_message_taken_into_the_turn_is_said_in_order(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    task = '{"task_id":"b1","description":"Commit","task_type":"local_bash"}'
    append(path, said("Let me commit."), queue("enqueue", task), queue("remove"),
           queue("enqueue", "remember to resolve any merge issues on your own"), tool_use(),
           queue("remove"), tool_result("ok"), said("Pushed, no merge issues."),
           queue("enqueue", "<task-notification>done</task-notification>"), queue("remove"),
           queue("enqueue", "next, tag the release"), queue("dequeue"),  # the next prompt
           queue("enqueue", "typo"), queue("popAll"),  # taken back to the input box
           said("Done."))  # fmt: skip
    said_, _commits, mark = transcript_tail.turn_said(str(path), {}, "Done.")
    assert said_ == [
        ("note", "Let me commit."),
        ("queued", "remember to resolve any merge issues on your own"),
        ("note", "Pushed, no merge issues."),
    ]
    assert "queue" not in mark  # nothing left queued
    # notes alone, as before
    assert transcript_tail.turn_notes(str(path), {}, "Done.")[0] == [
        "Let me commit.",
        "Pushed, no merge issues.",
    ]


def test_the_queue_goes_on_across_reads_without_keeping_texts(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    append(path, queue("enqueue", f"use the staging key {SECRET}"), said("Working."))
    first, _commits, mark = transcript_tail.turn_said(str(path), {})
    assert first == [("note", "Working.")] and mark["queue"] == 1
    assert SECRET not in json.dumps(mark)  # a mark holds no text
    append(path, queue("enqueue", "and keep the old flag"), queue("remove"), queue("remove"),
           said("Ok."))  # fmt: skip
    second, _commits, later = transcript_tail.turn_said(str(path), mark)
    # The first message's text was not kept: it is lost, but the second keeps its place.
    assert second == [("queued", "and keep the old flag"), ("note", "Ok.")]
    assert "queue" not in later


def test_the_checkpoint_and_capture_read_a_message_typed_into_the_turn(hooks: Hooks) -> None:
    """No UserPromptSubmit fires for it: capture records it as a prompt at the turn's end,
    the checkpoint asks about it once, and a later turn does not read it again."""
    typed = "remember to resolve any merge issues on your own"
    append(hooks.transcript, said("Let me commit and push."), tool_use(),
           queue("enqueue", typed), queue("remove"), tool_result("pushed"),
           said("Pushed."))  # fmt: skip
    reason = json.loads(hooks.stop("Pushed."))["reason"]
    assert f'the user said: "{typed}"' in reason
    prompts = [r for r in hooks.buffer() if r["kind"] == "prompt"]
    assert [(p["excerpt"], p["event"]) for p in prompts] == [(typed, "Stop")]
    append(hooks.transcript, said("Nothing else."), said("Bye."))
    assert typed not in hooks.stop("Bye.")
    assert len([r for r in hooks.buffer() if r["kind"] == "prompt"]) == 1


def test_a_secret_typed_into_the_turn_never_reaches_disk(hooks: Hooks) -> None:
    append(hooks.transcript, tool_use(), queue("enqueue", f"no, deploy with the key {SECRET}"),
           queue("remove"), tool_result("ok"), said("Deployed."))  # fmt: skip
    shown = hooks.stop("Deployed.")
    assert SECRET not in shown
    assert any(r["kind"] == "prompt" for r in hooks.buffer())
    for path in (hooks.root / ".memory").rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
