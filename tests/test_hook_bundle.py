"""The Stop checkpoint's module bundle (:func:`memcli.__main__.preload`,
:mod:`memcli.hookbundle`): written by a run as a ``.pyc`` is, used only while every source it
holds is unchanged, and whatever is wrong with it (stale, torn, another interpreter's, a body
that raises) the usual imports take over and the checkpoint's answer and state are the same."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

# Runs `mem checkpoint` from the copy of the package given first, reporting on stderr whether
# the bundle was used and where the modules came from.
PROBE = """
import os, sys
root = sys.argv[1]
sys.path.insert(0, root)
sys.argv = ["mem", sys.argv[2]]
import memcli.__main__ as entry
assert entry.__file__.startswith(root), entry.__file__
preload = entry.preload
def reported(command):
    used = preload(command)
    sys.stderr.write(f"PRELOADED={used}\\n")
    return used
entry.preload = reported
real_exit = os._exit
def leave(code):
    run = sys.modules.get("memcli.checkpoint.run")
    sys.stderr.write(f"RUN={getattr(run, '__file__', None)} {getattr(run, '__cached__', None)}\\n")
    sys.stderr.write(f"MARK={getattr(sys.modules.get('memcli.pasted'), 'MARK', None)}\\n")
    sys.stdout.flush()
    sys.stderr.flush()
    real_exit(code)
os._exit = leave
entry.main()
"""


def _bundle(root: Path, command: str = "checkpoint") -> Path:
    tag = sys.implementation.cache_tag
    return root / "memcli" / "__pycache__" / f"hook-{command}.{tag}.bundle"


def _session(repo: Path) -> bytes:
    """A session whose checkpoint asks about a fix: a failing test, an edit, the test passing."""
    buffer = repo / ".memory" / "local" / "buffer" / "s1.jsonl"
    buffer.parent.mkdir(parents=True, exist_ok=True)
    records = [
        {"id": "o1", "session": "s1", "kind": "error", "summary": "$ pytest -> failed",
         "input": "pytest", "ok": False, "excerpt": "E   KeyError: 'price'"},
        {"id": "o2", "session": "s1", "kind": "edit", "summary": "edit src/a.py",
         "files": ["src/a.py"], "ok": True},
        {"id": "o3", "session": "s1", "kind": "command", "summary": "$ pytest -> ok",
         "input": "pytest", "ok": True, "excerpt": "3 passed"},
    ]  # fmt: skip
    buffer.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    event = {"hook_event_name": "Stop", "session_id": "s1", "cwd": str(repo),
             "stop_hook_active": False, "last_assistant_message": "Done."}  # fmt: skip
    return json.dumps(event).encode()


def _run(root: Path, repo: Path, write: bool = True) -> tuple[str, dict[str, str], str]:
    """(stdout, the probe's reports, the state file) of a first stop from the copy at
    ``root``; ``write``: bytecode (and so bundle) writing allowed."""
    state = repo / ".memory" / "local" / "checkpoint" / "s1.json"
    state.unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if not write:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    done = _probe(root, repo, "checkpoint", _session(repo), env)
    reports = dict(line.split("=", 1) for line in done.stderr.decode().splitlines() if "=" in line)
    return done.stdout.decode(), reports, state.read_text("utf-8")


def _probe(
    root: Path, repo: Path, command: str, payload: bytes, env: dict[str, str]
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-c", PROBE, str(root), command], input=payload,
                          cwd=repo, env=env, capture_output=True, check=True)  # fmt: skip


def test_a_run_writes_the_bundle_and_the_next_loads_from_it(package: Path, repo: Path) -> None:
    out, reports, state = _run(package, repo, write=False)
    assert reports["PRELOADED"] == "False" and "KeyError" in out
    assert not _bundle(package).exists()  # PYTHONDONTWRITEBYTECODE: no bundle, as no .pyc
    assert _run(package, repo)[1]["PRELOADED"] == "False"
    assert _bundle(package).exists()
    again, reports, again_state = _run(package, repo)
    assert reports["PRELOADED"] == "True"
    assert (again, again_state) == (out, state)
    # The modules look as if imported: their own file and compiled file.
    run = package / "memcli" / "checkpoint" / "run.py"
    cached = run.parent / "__pycache__" / f"run.{sys.implementation.cache_tag}.pyc"
    assert reports["RUN"] == f"{run} {cached}"


def test_an_edited_source_is_never_read_from_the_bundle(package: Path, repo: Path) -> None:
    _run(package, repo)  # writes it
    source = package / "memcli" / "pasted.py"
    source.write_text(source.read_text("utf-8") + "\nMARK = 'edited'\n", encoding="utf-8")
    _out, reports, _state = _run(package, repo)
    assert reports["PRELOADED"] == "False" and reports["MARK"] == "edited"
    # That run loaded pasted.py from source (its .pyc was stale): no bundle from it; the next
    # run, with a current .pyc, writes one again, and the one after uses it.
    _run(package, repo)
    _out, reports, _state = _run(package, repo)
    assert reports["PRELOADED"] == "True" and reports["MARK"] == "edited"


@pytest.mark.parametrize(
    "damage",
    ["empty", "torn", "magic", "interpreter", "garbage", "not code"],
)
def test_a_damaged_bundle_means_the_usual_imports(package: Path, repo: Path, damage: str) -> None:
    out, _reports, state = _run(package, repo, write=False)  # the answer without any bundle
    _run(package, repo)
    bundle = _bundle(package)
    data = bundle.read_bytes()
    size = int.from_bytes(data[12:16], "little")
    damaged = {
        "empty": b"",
        "torn": data[: len(data) // 2],
        "magic": b"memhook0" + data[8:],
        "interpreter": data[:8] + b"\0\0\0\0" + data[12:],
        "garbage": data[:16] + os.urandom(len(data) - 16),
        "not code": data[: 16 + size] + marshal.dumps(["x"] * len(marshal.loads(data[16:]))),
    }[damage]
    bundle.write_bytes(damaged)
    got, reports, got_state = _run(package, repo, write=False)
    assert reports["PRELOADED"] == "False"
    assert (got, got_state) == (out, state)


def test_a_body_that_raises_undoes_the_preload(package: Path, repo: Path) -> None:
    """Every module the preload ran is taken back out of sys.modules: the standard imports run
    them again from their own files, and the checkpoint answers as it always does."""
    out, _reports, state = _run(package, repo)
    bundle = _bundle(package)
    data = bundle.read_bytes()
    size = int.from_bytes(data[12:16], "little")
    header = marshal.loads(data[16 : 16 + size])
    codes = marshal.loads(data[16 + size :])
    at = [name for name, *_rest in header].index("memcli.checkpoint.run")
    codes[at] = compile("raise RuntimeError('broken')", "run.py", "exec")
    bundle.write_bytes(data[: 16 + size] + marshal.dumps(codes))
    got, reports, got_state = _run(package, repo, write=False)
    assert reports["PRELOADED"] == "False"
    assert (got, got_state) == (out, state)


def test_capture_has_its_own_bundle(package: Path, repo: Path) -> None:
    """The modules `mem capture` imports before reading its input, on every tool call."""
    payload = json.dumps({
        "session_id": "c1", "cwd": str(repo), "hook_event_name": "PostToolUse",
        "tool_name": "Bash", "tool_input": {"command": "pytest -x"},
        "tool_response": {"stdout": "E   KeyError: 'price'\n1 failed", "stderr": "",
                          "interrupted": False},
    }).encode()  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    buffer = repo / ".memory" / "local" / "buffer" / "c1.jsonl"
    seen = []
    for _ in range(3):  # without a bundle (writes it), with it, and once more
        done = _probe(package, repo, "capture", payload, env)
        seen.append("PRELOADED=True" in done.stderr.decode())
    assert seen == [False, True, True] and _bundle(package, "capture").exists()
    records = [json.loads(line) for line in buffer.read_text("utf-8").splitlines()]
    assert len(records) == 3
    for record in records:  # the same observation but for its own id, time and raw reference
        for key in ("id", "ts", "raw"):
            record.pop(key, None)
    assert records[0] == records[1] == records[2] and "KeyError" in str(records[0])
