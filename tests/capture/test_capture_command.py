"""`mem capture` as the hooks run it: real processes, real repositories, hostile input."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memcli import api
from memcli.capture import command
from tests.conftest import git

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "claude-code" / "session.jsonl"
SECRETS = ("s3cr3t-Passw0rd", "sk_live_51Hx7aBCdEfGhIjKlMnOpQrStUvWxYz0123456789")
PLANTED = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def capture(data: bytes, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "memcli", "capture", *args],
        input=data,
        capture_output=True,
        cwd=cwd,
        check=False,
        timeout=60,
    )


def memory_text(root: Path) -> str:
    return "\n".join(
        p.read_text(encoding="utf-8", errors="replace")
        for p in (root / ".memory").rglob("*")
        if p.is_file() and not p.name.endswith(".cache")
    )


def pending(root: Path) -> dict[str, int]:
    return api.Memory.open(root).stats()["pending_observations"]


def test_replaying_the_recorded_session_masks_both_secrets(repo: Path) -> None:
    lines = FIXTURE.read_bytes().splitlines()
    for line in lines:
        result = capture(line, "--strict")
        assert result.returncode == 0, result.stderr
        assert result.stdout == b""
    text = memory_text(repo)
    for secret in SECRETS:
        assert secret not in text
    assert "[REDACTED]" in text
    observations = [
        json.loads(x) for x in (repo / ".memory/local/buffer/abc123.jsonl").read_text().splitlines()
    ]
    kinds = [o["kind"] for o in observations]
    assert "error" in kinds and "prompt" in kinds and "conclusion" in kinds
    env_read = [o for o in observations if any(f.endswith(".env") for f in o["files"])]
    assert env_read and all(o["excerpt"] == "" and not o["hashes"] for o in env_read)
    failing = next(o for o in observations if o["kind"] == "error")
    assert "5433" in failing["excerpt"] and failing["ok"] is False
    assert failing["project"] and failing["session"] == "abc123"
    assert failing["raw"].startswith("raw/abc123.jsonl#")
    assert pending(repo) == {"abc123": len(observations)}


@pytest.mark.parametrize(
    "data",
    [
        os.urandom(4096),
        b'{"hook_event_name": "PostToolUse", "session_id": "s", "tool_name": "Ba',
        b'{"hook_event_name": "SomethingNew", "session_id": "s2"}',
        b"\xff\xfe\x00\x00garbage",
        b"",
        b"[1, 2, 3]",
    ],
    ids=["random", "truncated", "unknown-event", "binary", "empty", "json-list"],
)
def test_any_input_exits_0_with_empty_stdout(repo: Path, data: bytes) -> None:
    result = capture(data)
    assert result.returncode == 0
    assert result.stdout == b""


def test_truncated_json_is_logged_and_reported_under_strict(repo: Path) -> None:
    data = b'{"hook_event_name": "PostToolUse", "session_id": "s", "tool_'
    assert capture(data).returncode == 0
    log = (repo / ".memory/local/mem.log").read_text()
    assert "invalid hook JSON" in log and log.count("\n") == 1
    strict = capture(data, "--strict")
    assert strict.returncode == 2 and b"invalid hook JSON" in strict.stderr


def test_a_100_mb_payload_is_skipped_without_harm(repo: Path) -> None:
    big = (
        b'{"hook_event_name":"PostToolUse","session_id":"big","tool_response":"'
        + (b"x" * 100_000_000)
        + b'"}'
    )
    result = capture(big)
    assert result.returncode == 0 and result.stdout == b""
    assert "over capture.max_input_bytes" in (repo / ".memory/local/mem.log").read_text()


def test_without_memory_dir_capture_is_a_silent_no_op(bare_repo: Path) -> None:
    result = capture(FIXTURE.read_bytes().splitlines()[3])
    assert result.returncode == 0 and result.stdout == b"" and result.stderr == b""
    assert not (bare_repo / ".memory").exists()


def test_bad_arguments_fail_open_unless_strict(repo: Path) -> None:
    assert capture(b"x", "--agent", "clippy").returncode == 0
    assert capture(b"x", "--agent", "clippy", "--strict").returncode == 2


def test_plain_text_from_a_pipe(repo: Path) -> None:
    text = "FAILED tests/test_api.py::test_login - KeyError: token\n1 failed in 0.2s\n"
    result = capture(text.encode(), "--kind", "test", "--session", "manual-1", "--strict")
    assert result.returncode == 0, result.stderr
    (line,) = (repo / ".memory/local/buffer/manual-1.jsonl").read_text().splitlines()
    observation = json.loads(line)
    assert observation["ok"] is False and "KeyError: token" in observation["excerpt"]


def test_private_spans_and_mem_fences_are_never_captured(repo: Path) -> None:
    prompt = (
        "Fix the login bug <private>my bank pin is 4921</private> please\n"
        "<mem-context>\nold memory: use port 5433\n</mem-context>\n"
    )
    payload = {"hook_event_name": "UserPromptSubmit", "session_id": "p1", "prompt": prompt}
    assert capture(json.dumps(payload).encode(), "--strict").returncode == 0
    text = memory_text(repo)
    assert "Fix the login bug" in text
    assert "4921" not in text and "old memory" not in text


def test_eight_processes_writing_100_events_each_lose_nothing(repo: Path) -> None:
    worker = (
        "import io, json, sys\n"
        "from memcli.capture import command\n"
        "for n in range(100):\n"
        "    event = {'hook_event_name': 'PostToolUse', 'session_id': 'busy',\n"
        "             'tool_name': 'Bash',\n"
        "             'tool_input': {'command': f'make step{n}'},\n"
        "             'tool_response': {'stdout': 'x' * 5000 + sys.argv[1]}}\n"
        "    sys.stdin = io.TextIOWrapper(io.BytesIO(json.dumps(event).encode()))\n"
        "    assert command.run(['--strict']) == 0\n"
    )
    workers = [subprocess.Popen([sys.executable, "-c", worker, str(n)], cwd=repo) for n in range(8)]
    assert [w.wait(timeout=300) for w in workers] == [0] * 8
    assert pending(repo) == {"busy": 800}
    lines = (repo / ".memory/local/buffer/busy.jsonl").read_text().splitlines()
    records = [json.loads(x) for x in lines]
    assert len({r["id"] for r in records if "note" not in r}) == 800


def test_the_buffer_is_bounded_with_a_note(repo: Path) -> None:
    config = repo / ".memory" / "config.yaml"
    config.write_text(
        config.read_text().replace("buffer_max_bytes: 2000000", "buffer_max_bytes: 20000")
    )
    api.Memory.open(repo).settings()  # any mem command refreshes capture's copy of the config
    for n in range(60):
        event = {
            "hook_event_name": "PostToolUse",
            "session_id": "small",
            "tool_name": "Bash",
            "tool_input": {"command": f"step {n}"},
            "tool_response": {"stdout": "y" * 900},
        }
        assert capture(json.dumps(event).encode(), "--strict").returncode == 0
    path = repo / ".memory/local/buffer/small.jsonl"
    assert path.stat().st_size <= 20000
    assert any("dropped" in json.loads(x).get("note", "") for x in path.read_text().splitlines())


def test_a_torn_line_from_a_full_disk_loses_only_itself(repo: Path) -> None:
    """A write cut short by a full disk leaves a line without its newline; the next
    observation must not be glued to it (trust finding 8)."""

    def event(n: int) -> bytes:
        return json.dumps(
            {
                "hook_event_name": "PostToolUse",
                "session_id": "torn",
                "tool_name": "Bash",
                "tool_input": {"command": f"make step{n}"},
                "tool_response": {"stdout": "", "stderr": f"error {n}", "exit_code": 2},
            }
        ).encode()

    assert capture(event(1), "--strict").returncode == 0
    for folder in ("buffer", "raw"):
        path = repo / ".memory" / "local" / folder / "torn.jsonl"
        whole = path.read_bytes()
        path.write_bytes(whole + whole[: len(whole) // 2])  # the torn copy: no newline
    assert capture(event(2), "--strict").returncode == 0
    buffer = (repo / ".memory/local/buffer/torn.jsonl").read_bytes().splitlines()
    assert len(buffer) == 3 and "step2" in json.loads(buffer[-1])["input"]
    assert pending(repo) == {"torn": 2}
    compacted = subprocess.run(
        [sys.executable, "-m", "memcli", "compact", "--session", "torn"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert compacted.returncode == 0 and "2 observations" in compacted.stdout, compacted
    assert not (repo / ".memory/local/buffer/torn.jsonl").exists()  # the torn line went too


# In-process runs for Hypothesis: the same code path, without a process per example.

_REPO: Path | None = None


def shared_repo() -> Path:
    global _REPO
    if _REPO is None:
        root = Path(tempfile.mkdtemp()) / "hypo"
        root.mkdir()
        git(root, "init", "-q")
        api.init(root)
        _REPO = root
    return _REPO


def run_in_process(
    data: bytes, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> int:
    monkeypatch.chdir(shared_repo())
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code = command.run([])
    assert capsys.readouterr().out == ""
    return code


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=20), inner, max_size=4)
    ),
    max_leaves=20,
)
hook_keys = st.sampled_from(
    [
        "hook_event_name",
        "session_id",
        "tool_name",
        "tool_input",
        "tool_response",
        "prompt",
        "last_assistant_message",
        "cwd",
        "toolName",
        "toolResult",
        "conversation_id",
        "output",
    ]
)


@settings(deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.binary(max_size=2000))
def test_arbitrary_bytes_never_crash(
    data: bytes, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_in_process(data, monkeypatch, capsys) == 0


@settings(deadline=None, suppress_health_check=list(HealthCheck))
@given(
    payload=st.dictionaries(hook_keys, json_values, max_size=6),
    where=st.sampled_from(
        ["prompt", "tool_response", "last_assistant_message", "output", "toolResult"]
    ),
)
def test_arbitrary_json_never_crashes_nor_writes_a_planted_secret(
    payload: dict[str, object],
    where: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    payload[where] = f"{payload.get(where)!s} token {PLANTED} end"
    payload.setdefault("hook_event_name", "PostToolUse")
    assert run_in_process(json.dumps(payload).encode(), monkeypatch, capsys) == 0
    assert PLANTED not in memory_text(shared_repo())


def test_an_edit_of_a_denied_file_keeps_only_its_path(repo: Path) -> None:
    payload = {
        "session_id": "deny",
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": "/x/.env.local", "old_string": "X=1", "new_string": "Q_zq9"},
        "tool_response": {"success": True},
    }
    assert capture(json.dumps(payload).encode(), "--strict").returncode == 0
    text = memory_text(repo)
    assert ".env.local" in text and "Q_zq9" not in text and "X=1" not in text


def test_nul_characters_are_dropped_before_parsing(repo: Path) -> None:
    """A payload with NUL characters (a binary tool output) is read as if they were absent;
    one without them is read as it is (the NUL search guards the copy)."""
    event = {"hook_event_name": "PostToolUse", "session_id": "nul", "tool_name": "Bash",
             "tool_input": {"command": "cat data.bin"},
             "tool_response": {"stdout": "head\x00er\x00 line", "stderr": ""}}  # fmt: skip
    raw = json.dumps(event).replace("\\u0000", "\x00").encode()
    assert b"\x00" in raw
    result = capture(raw.replace(b"er\x00 line", b"er\x00 li\x00ne"), "--strict")
    assert result.returncode == 0, result.stderr
    buffer = repo / ".memory/local/buffer/nul.jsonl"
    observation = json.loads(buffer.read_text(encoding="utf-8").splitlines()[-1])
    assert "header line" in observation["excerpt"]
