"""Facts capture derives for the checkpoint (memcli/observed/derived.py) and the transcript's
token filter: a recorded fact is read only when it is well formed and of these rules; what
the checkpoint finds is the same with and without them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memcli.checkpoint import candidates, commands
from memcli.observed import buffer, derived, transcript_tail
from memcli.observed.derived import COMMAND, FIELD

FAILING = {
    "id": "o1", "session": "s1", "kind": "error", "tool": "Bash", "ok": False,
    "input": "pytest tests/test_price.py", "summary": "$ pytest tests/test_price.py -> failed",
    "excerpt": "collected 3 items\nE   KeyError: 'price'\n1 failed in 0.1s",
    "raw": "raw/s1.jsonl#o1", "ts": "2026-12-01T10:00:00Z",
}  # fmt: skip


def test_capture_derives_a_failing_commands_signature_only() -> None:
    facts = derived.facts(FAILING)
    assert facts == {"rules": derived.rules_stamp(), COMMAND: ["pytest", "KeyError: 'price'"]}
    prompt = {"kind": "prompt", "excerpt": "This fails:\nTypeError: x is not a function"}
    assert derived.facts(prompt) is None  # short: derived at Stop, rules not loaded per prompt
    passing = {**FAILING, "ok": True}
    assert derived.facts(passing) is None  # nothing costly to derive from a success
    assert derived.facts({**FAILING, "summary": "edit x.py"}) is None  # not read as a command


def test_a_recorded_signature_is_read_only_when_well_formed_and_of_these_rules() -> None:
    stamp = derived.rules_stamp()
    good = {**FAILING, FIELD: {"rules": stamp, COMMAND: ["pytest", "the recorded line"]}}
    assert derived.recorded_signature(good, COMMAND) == ("pytest", "the recorded line")
    assert derived.recorded_signature(good, "pasted") is None  # another fact's name
    for damaged in (
        {"rules": "0.0.1 1.2 3.4 5.6", COMMAND: ["pytest", "x"]},  # another version's rules
        {COMMAND: ["pytest", "x"]},  # no stamp
        {"rules": stamp, COMMAND: ["pytest"]},
        {"rules": stamp, COMMAND: ["pytest", 3]},
        {"rules": stamp, COMMAND: ["no such shape", "x"]},
        {"rules": stamp, COMMAND: ["pytest", "x" * (derived.MAX_LINE + 1)]},
        {"rules": stamp, COMMAND: "pytest x"},
        "pytest x",
    ):
        assert derived.recorded_signature({**FAILING, FIELD: damaged}, COMMAND) is None, damaged


def test_the_checkpoint_derives_anew_when_the_recorded_fact_is_stale() -> None:
    stale = {**FAILING, FIELD: {"rules": "old", COMMAND: ["pytest", "a line of other rules"]}}
    assert commands._signature(stale) == ("pytest", "KeyError: 'price'")
    fresh = {**FAILING, FIELD: {"rules": derived.rules_stamp(), COMMAND: ["pytest", "recorded"]}}
    assert commands._signature(fresh) == ("pytest", "recorded")  # trusted: not derived again
    state: dict[str, object] = {"session": "s1"}
    candidates.scan([fresh], state)
    runs = state["runs"]
    assert isinstance(runs, dict) and runs["pytest"]["line"] == "recorded"


def test_the_stamp_changes_with_the_rules(tmp_path: Path) -> None:
    """Another copy of the rules modules (an upgrade, another checkout) has another stamp."""
    root = Path(derived.__file__).resolve().parents[2]
    copy = tmp_path / "src"
    shutil.copytree(root / "memcli", copy / "memcli", ignore=shutil.ignore_patterns("*.pyc"))
    signals = copy / "memcli" / "signals.py"
    signals.write_text(signals.read_text(encoding="utf-8") + "\n# a changed rule\n", "utf-8")
    probe = "from memcli.observed import derived; print(derived.rules_stamp())"
    env = {**os.environ, "PYTHONPATH": str(copy)}
    other = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                           env=env, check=True, cwd=tmp_path).stdout.strip()  # fmt: skip
    assert other and other != derived.rules_stamp()


def test_an_emptied_excerpt_drops_what_was_derived_from_it() -> None:
    line = json.dumps({**FAILING, FIELD: derived.facts(FAILING)}).encode()
    kept = json.loads(buffer._without_excerpt(line))
    assert kept["excerpt"] == "" and FIELD not in kept


PROBE = """
import sys, os
os._exit = lambda code: None
sys.argv = ["mem", "capture", "--strict"]
from memcli.__main__ import main
main()
sys.stderr.write("MODULES=" + ",".join(sorted(sys.modules)) + "\\n")
"""


def _capture(repo: Path, session: str, output: str) -> tuple[dict[str, Any], set[str]]:
    event = {"session_id": session, "hook_event_name": "PostToolUse", "tool_name": "Bash",
             "cwd": str(repo), "tool_input": {"command": "pytest -x"},
             "tool_response": {"stdout": output, "stderr": "", "interrupted": False}}  # fmt: skip
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=repo, input=json.dumps(event),
                          capture_output=True, text=True, check=True)  # fmt: skip
    line = [x for x in done.stderr.splitlines() if x.startswith("MODULES=")][-1]
    path = repo / ".memory" / "local" / "buffer" / f"{session}.jsonl"
    (record,) = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    return record, set(line[len("MODULES=") :].split(","))


def test_capture_records_the_facts_of_a_failure_and_loads_no_rules_for_a_success(
    repo: Path,
) -> None:
    record, modules = _capture(repo, "s9", "E   AssertionError: assert 1 == 2\n1 failed in 0.1s")
    assert record["ok"] is False and "memcli.signals" in modules
    assert derived.recorded_signature(record, COMMAND) == derived.command_signature(
        record["excerpt"], record["summary"]
    )
    assert record[FIELD][COMMAND] == ["pytest", "AssertionError: assert 1 == 2"]
    record, modules = _capture(repo, "s10", "3 passed in 0.1s")
    assert record["ok"] is True and FIELD not in record
    assert not modules & {"memcli.signals", "memcli.observed.derived"}, modules


def _reference_lines(data: bytes) -> list[bytes]:
    """The filter as it was, a line at a time: a "text" key or a sidechain flag among the
    first 400 bytes, and an assistant token."""
    out = []
    for line in data.split(b"\n"):
        head = line[:400]
        flagged = b'"isSidechain":true' in head or b'"isSidechain": true' in head
        if (b'"text"' in line or flagged) and b'"assistant"' in line:
            out.append(line)
    return out


def _lines() -> list[dict[str, Any]]:
    padding = "p" * 500
    return [
        {"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "one"}]}},
        {"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "content": '{"text": "assistant"}' * 50}]}},
        {"isSidechain": True, "type": "assistant", "message": {"content": [
            {"type": "tool_use", "name": "Bash"}]}},
        {"pad": padding, "isSidechain": True, "type": "assistant", "message": {"content": []}},
        {"pad": padding, "isSidechain": True, "type": "assistant", "message": {"content": [
            {"type": "text", "text": "late flag, but a text"}]}},
        {"type": "assistant", "isSidechain": False, "message": {"content": [
            {"type": "tool_use", "name": "Edit", "input": {"text": "x"}}]}},
        {"type": "user", "message": {"content": [{"type": "text", "text": "a prompt"}]}},
    ]  # fmt: skip


@pytest.mark.parametrize("separators", [(",", ":"), (", ", ": ")])
def test_the_token_pass_keeps_the_lines_the_line_filter_kept(separators: tuple[str, str]) -> None:
    text = "\n".join(json.dumps(x, separators=separators) for x in _lines())
    for data in (text.encode(), (text + "\n").encode(), b"", b"\n\n"):
        expected = [json.loads(x) for x in _reference_lines(data)]
        assert transcript_tail._records(data) == expected
    assert len(transcript_tail._records(text.encode())) == 4
    cut = text.encode().rfind(b"\n")  # a torn last line: read next time, not now
    assert transcript_tail._records(text.encode(), cut) == transcript_tail._records(
        text.encode()[:cut]
    )
