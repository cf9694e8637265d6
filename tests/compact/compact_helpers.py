"""Shared helpers of the compaction tests: synthetic observations in capture's format."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from memcli.api import Memory

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "claude-code" / "session.jsonl"
DATA = Path(__file__).resolve().parent / "data"
Capture = Callable[..., None]
Writer = Callable[[list[dict[str, Any]]], str]
SECRETS = ("s3cr3t-Passw0rd", "sk_live_51Hx7aBCdEfGhIjKlMnOpQrStUvWxYz0123456789")


def memory_text(root: Path) -> str:
    return "\n".join(
        p.read_text(encoding="utf-8", errors="replace")
        for p in (root / ".memory").rglob("*")
        if p.is_file() and not p.name.endswith((".cache", ".lock"))
    )


def snapshot(root: Path) -> dict[str, str]:
    """The committed part of the store: items and session summaries."""
    memory = root / ".memory"
    return {
        str(p.relative_to(memory)): p.read_text(encoding="utf-8")
        for folder in ("items", "sessions")
        for p in sorted((memory / folder).glob("*.yaml"))
    }


_counter = itertools.count()


def obs(kind: str, session: str = "s1", **fields: Any) -> dict[str, Any]:
    """A synthetic observation line in capture's format."""
    number = next(_counter)
    obs_id = f"o{number:06d}test"
    record: dict[str, Any] = {
        "id": obs_id,
        "session": session,
        "project": "github.com/acme/shop",
        "branch": "main",
        "ts": f"2026-11-29T10:{number // 60 % 60:02d}:{number % 60:02d}Z",
        "agent": "claude-code",
        "event": "PostToolUse",
        "tool": None,
        "kind": kind,
        "summary": "",
        "ok": None,
        "exit_code": None,
        "files": [],
        "hashes": {},
        "input": "",
        "excerpt": "",
        "raw": f"raw/{session}.jsonl#{obs_id}",
    }
    record.update(fields)
    return record


def run_cmd(command_line: str, output: str, ok: bool, session: str = "s1") -> dict[str, Any]:
    state = "ok" if ok else "failed"
    return obs(
        "command" if ok else "error",
        session,
        tool="Bash",
        input=command_line,
        ok=ok,
        excerpt=output,
        summary=f"$ {command_line} -> {state}",
    )


def edit(path: str, session: str = "s1") -> dict[str, Any]:
    return obs("edit", session, tool="Edit", files=[path], ok=True, summary=f"edit {path}")


def prompt(said: str, session: str = "s1") -> dict[str, Any]:
    return obs("prompt", session, event="UserPromptSubmit", excerpt=said, summary=f"prompt: {said}")


def said(message: str, session: str = "s1") -> dict[str, Any]:
    return obs("conclusion", session, event="Stop", excerpt=message, summary=message[:200])


def replay_through_installed_hooks(
    root: Path,
    payloads: list[dict[str, Any]],
    agent: str = "claude-code",
    before: Callable[[int], object] | None = None,
) -> set[str]:
    """Install the hooks, then pipe each payload into the exact commands installed for it
    (``before(i)`` first, for payload ``i``: a transcript growing as the session goes);
    returns the events that had a command."""
    from memcli import hooks

    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("MEM_DISABLE", None)
    subprocess.run(["mem", "hooks", "install", "--agent", agent], cwd=root, env=env,
                   check=True, capture_output=True)  # fmt: skip
    settings_file = hooks.settings_path(agent, "project", root, Path.home())
    settings = json.loads(settings_file.read_text(encoding="utf-8"))
    ran: set[str] = set()
    for index, payload in enumerate(payloads):
        if before is not None:
            before(index)
        for group in settings["hooks"].get(payload["hook_event_name"], []):
            for handler in group["hooks"]:
                done = subprocess.run(
                    handler["command"], shell=True, cwd=root, env=env, input=json.dumps(payload),
                    capture_output=True, text=True, check=False,
                )  # fmt: skip
                assert done.returncode == 0, done.stderr
                ran.add(payload["hook_event_name"])
    return ran


def wait_for_compaction(memory: Memory, session: str) -> None:
    """`mem compact --detach` (the SessionEnd hook) compacts in the background."""
    from memcli.compact import buffers

    buffer = memory.paths.buffers / f"{session}.jsonl"
    for _ in range(600):
        try:
            pending = buffer.read_text(encoding="utf-8").strip()
        except FileNotFoundError:  # consumed: gone between a check and a read, or before
            pending = ""
        if not pending:
            try:
                with buffers.session_lock(memory.paths, buffers.stem(session)):
                    return
            except buffers.Busy:
                pass
        time.sleep(0.1)
    pytest.fail(f"the detached compaction never consumed {buffer}")
