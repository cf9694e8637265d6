"""Capture advancing the Stop checkpoint's scan as the session goes
(:func:`memcli.checkpoint.run.advance`): the Stop that ends a long turn then reads only what
followed, and asks what it would have asked having read it all; one lock keeps the state's
writers (the Stop, an advance, `mem add --candidate`) from undoing each other."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memcli.checkpoint import run, state
from memcli.observed import buffer

BIN = Path(sys.executable).parent
SESSION = "s1"


def observation(n: int) -> dict[str, object]:
    """The n-th observation of a long turn: failing checks fixed by edits, a stated norm,
    look-arounds, as capture writes them."""
    base: dict[str, object] = {
        "id": f"o{n:06d}", "session": SESSION, "agent": "claude-code", "event": "PostToolUse",
        "tool": "Bash", "kind": "command", "ok": True, "exit_code": 0, "files": [],
        "input": "git status", "summary": "$ git status -> ok", "excerpt": "On branch main",
        "raw": f"raw/{SESSION}.jsonl#o{n:06d}",
        "ts": f"2026-12-02T10:{n // 60 % 60:02d}:{n % 60:02d}Z",
    }  # fmt: skip
    step = n % 8
    test = f"tests/test_m{n // 8 % 5}.py"
    if step == 1:
        base.update(kind="error", ok=False, exit_code=1, input=f"pytest {test}",
                    summary=f"$ pytest {test} -> failed (1 failed)",
                    excerpt="x" * 300 + f"\nE   KeyError: 'col{n // 8 % 5}'\n1 failed")  # fmt: skip
    elif step in (2, 3):
        base.update(kind="edit", tool="Edit", files=[f"src/m{n // 8 % 5}.py"],
                    summary=f"edit src/m{n // 8 % 5}.py", input="")  # fmt: skip
    elif step == 4:
        base.update(input=f"pytest {test}", summary=f"$ pytest {test} -> ok (3 passed)",
                    excerpt="." * 300 + "\n3 passed")  # fmt: skip
    elif step == 6 and n // 8 == 3:
        base.update(kind="prompt", event="UserPromptSubmit", tool=None, input="",
                    summary="prompt: always run the linter",
                    excerpt="Always run the linter before you commit.")  # fmt: skip
    return base


def transcript_lines(n: int) -> list[str]:
    said = {"type": "assistant", "sessionId": SESSION, "message": {"role": "assistant",
            "content": [{"type": "text", "text": f"The failure is caused by the fixture: "
                         f"it has no `col{n // 8 % 5}` column since the migration."}]}}  # fmt: skip
    return [json.dumps(said)] if n % 8 == 1 else []


def write_session(local: Path, upto: int, start: int = 0) -> Path:
    """Append observations [start, upto) to the buffer and their texts to the transcript."""
    buffer_file = local / "buffer" / f"{SESSION}.jsonl"
    buffer_file.parent.mkdir(parents=True, exist_ok=True)
    transcript = local.parent / "transcript.jsonl"
    with buffer_file.open("a", encoding="utf-8") as out, transcript.open("a") as said:
        for n in range(start, upto):
            out.write(json.dumps(observation(n)) + "\n")
            said.writelines(line + "\n" for line in transcript_lines(n))
    return transcript


def stop(local: Path, transcript: Path) -> str:
    payload = {"session_id": SESSION, "hook_event_name": "Stop", "stop_hook_active": False,
               "last_assistant_message": "Done.", "transcript_path": str(transcript)}  # fmt: skip
    return run.checkpoint(payload, "claude-code", str(local)) or ""


def saved(local: Path) -> dict[str, object]:
    return state.load(state.path_of(str(local), SESSION))


def test_a_stop_after_advances_asks_what_a_stop_reading_it_all_asks(tmp_path: Path) -> None:
    whole, advanced = tmp_path / "a" / "local", tmp_path / "b" / "local"
    transcript = write_session(whole, 120)
    asked_whole = stop(whole, transcript)
    transcript = write_session(advanced, 50)
    assert run.advance(str(advanced), SESSION, "claude-code", str(transcript))
    write_session(advanced, 90, start=50)
    assert run.advance(str(advanced), SESSION, "claude-code", str(transcript))
    write_session(advanced, 120, start=90)
    asked_advanced = stop(advanced, transcript)
    assert "KeyError" in asked_whole
    assert asked_advanced == asked_whole
    a, b = saved(whole), saved(advanced)
    assert a["candidates"] == b["candidates"] and a["asked"] == b["asked"]
    assert a["offset"] == b["offset"] == (whole / "buffer" / f"{SESSION}.jsonl").stat().st_size


def test_an_advance_neither_asks_nor_ends_the_turn(tmp_path: Path) -> None:
    local = tmp_path / "local"
    transcript = write_session(local, 60)
    assert run.advance(str(local), SESSION, "claude-code", str(transcript))
    current = saved(local)
    assert current["candidates"] and not current.get("asked")
    kinds = {c["kind"] for c in current["candidates"].values()}  # type: ignore[attr-defined]
    assert "unresolved" not in kinds  # a check still failing is told only at the turn's end


def test_an_advance_is_off_with_the_checkpoint(tmp_path: Path) -> None:
    local = tmp_path / "local"
    transcript = write_session(local, 20)
    config = local / "config.json"
    config.write_text(json.dumps({"checkpoint": {"mode": "off"}}))
    config.chmod(0o600)  # mem's own copy of config.yaml: read only when private
    assert not run.advance(str(local), SESSION, "claude-code", str(transcript))
    assert not Path(state.path_of(str(local), SESSION)).exists()


HOLD = """
import os, sys, time
fd = os.open(sys.argv[1], os.O_CREAT | os.O_WRONLY, 0o600)
os.lockf(fd, os.F_LOCK, 0)
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


@contextmanager
def another_writer(local: Path, seconds: float) -> Iterator[subprocess.Popen[str]]:
    """Another process holding the session state's lock for ``seconds`` (or until the end)."""
    lock = state.path_of(str(local), SESSION) + ".lock"
    Path(lock).parent.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen([sys.executable, "-c", HOLD, lock, str(seconds)],
                              stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield holder
    finally:
        holder.kill()
        holder.wait()


def test_an_advance_skips_while_another_writer_holds_the_state(tmp_path: Path) -> None:
    local = tmp_path / "local"
    transcript = write_session(local, 20)
    with another_writer(local, 30):
        assert not run.advance(str(local), SESSION, "claude-code", str(transcript))
        assert not Path(state.path_of(str(local), SESSION)).exists()
    assert run.advance(str(local), SESSION, "claude-code", str(transcript))  # released


def test_the_stop_waits_for_a_writer_holding_the_state(tmp_path: Path) -> None:
    local = tmp_path / "local"
    transcript = write_session(local, 20)
    with another_writer(local, 0.3) as holder:
        asked = stop(local, transcript)
        assert holder.poll() is not None  # it ran once the holder let go
    assert "KeyError" in asked and saved(local)["asked"]


def capture(root: Path, payload: dict[str, object]) -> subprocess.CompletedProcess[str]:
    """`mem-hook capture`, the command `mem hooks install` writes, as a subprocess."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    program = shutil.which("mem-hook", path=str(BIN)) or str(BIN / "mem")
    given = json.dumps({**payload, "cwd": str(root)})
    return subprocess.run([program, "capture"], input=given, cwd=root, env=env,
                          capture_output=True, text=True, check=False)  # fmt: skip


def pad_to_below(buffer_file: Path, size: int, start: int) -> int:
    """Append observations until the buffer is within 3,000 bytes of ``size``."""
    n = start
    with buffer_file.open("a", encoding="utf-8") as out:
        while buffer_file.stat().st_size < size - 3_000:
            out.write(json.dumps(observation(n)) + "\n")
            out.flush()
            n += 1
    return n


def test_capture_advances_the_scan_when_a_tool_call_takes_the_buffer_past_a_step(
    repo: Path,
) -> None:
    local = repo / ".memory" / "local"
    buffer_file = local / "buffer" / f"{SESSION}.jsonl"
    buffer_file.parent.mkdir(parents=True, exist_ok=True)
    buffer_file.touch()
    n = pad_to_below(buffer_file, buffer.ADVANCE_BYTES, 0)
    prompt = {"session_id": SESSION, "hook_event_name": "UserPromptSubmit",
              "prompt": "Please keep going. " + "word " * 1_000}  # fmt: skip
    done = capture(repo, prompt)
    assert done.returncode == 0 and done.stdout == ""
    assert buffer_file.stat().st_size > buffer.ADVANCE_BYTES
    assert not Path(state.path_of(str(local), SESSION)).exists()  # a prompt: the Stop's part
    pad_to_below(buffer_file, 2 * buffer.ADVANCE_BYTES, n)
    ran = {"session_id": SESSION, "hook_event_name": "PostToolUse", "tool_name": "Bash",
           "tool_input": {"command": "npm run build"},
           "tool_response": {"stdout": ("a line of output " * 12 + "\n") * 400}}  # fmt: skip
    done = capture(repo, ran)
    assert done.returncode == 0 and done.stdout == ""
    assert buffer_file.stat().st_size > 2 * buffer.ADVANCE_BYTES
    current = saved(local)
    assert current["offset"] == buffer_file.stat().st_size  # read up to what it wrote
    assert current["candidates"]  # the failing checks and their fixes, read ahead of the Stop
    bundle = Path(run.__file__).parent.parent / "__pycache__"
    for path in bundle.glob("hook-capture.*.bundle"):
        assert b"memcli.checkpoint.candidates" not in path.read_bytes()
