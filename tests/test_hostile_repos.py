"""Hostile repositories: what a stranger can commit under .memory/ never runs a command and
never hangs or exhausts a command (issue: trust, findings 1 and 2).

Every command runs as the installed console script in a subprocess, with a memory cap and a
timeout that only guards against a hang (it is not a speed assertion: the commands finish in a
fraction of it). Each must work or exit with a one-line error naming the file, never with a
traceback.

Findings 7 and 8 (links, caches committed under local/, a read-only local/, oversized items)
are fixtures here too. The others have suites of their own, named in docs/security.md:
forget by identity (tests/cli/test_forget.py), a torn buffer line
(tests/capture/test_capture_command.py), the project identity of clones and forks
(tests/test_project_identity.py), the merge driver without `mem` on PATH
(tests/review/test_merge.py) and the Codex events (tests/test_hooks.py).
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import git

MEM = shutil.which("mem", path=os.path.dirname(sys.executable)) or "mem"
HANG_GUARD_SECONDS = 60
MEMORY_CAP_BYTES = 1 << 30  # a bomb that expands shows as a MemoryError, not a dead machine

GOOD_ITEM = """\
id: good-item-0001
kind: pitfall
title: pytest needs the venv python, not the system one
body: Run tests with .venv/bin/pytest; the system pytest lacks the plugins.
tags: [pytest, venv]
scope:
  project: demo
importance: 0.5
confidence: assumed
created: '2026-01-01T00:00:00Z'
updated: '2026-01-01T00:00:00Z'
"""


def _alias_bomb() -> str:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        name, prev = chr(97 + i), chr(96 + i)
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP_BYTES, MEMORY_CAP_BYTES))


def environment(root: Path) -> dict[str, str]:
    """The user's environment: mem on PATH (as the installed hooks expect), the user config
    beside the repository."""
    env = {**os.environ, "MEM_CONFIG": str(root.parent / "user-config.yaml")}
    env["PATH"] = os.path.dirname(MEM) + os.pathsep + env.get("PATH", "")
    env.pop("MEM_DEBUG", None)
    return env


def mem(root: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = environment(root)
    return subprocess.run(
        [MEM, *args],
        cwd=root,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_SECONDS,
        env=env,
        preexec_fn=_cap_memory,
    )


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """A repository with mem initialised, one good item and its files committed."""
    root = tmp_path / "clone"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    assert mem(root, "init").returncode == 0
    (root / ".memory" / "items" / "good-item-0001.yaml").write_text(GOOD_ITEM)
    config = root / ".memory" / "config.yaml"
    config.write_text(
        re.sub(r"(?m)^  project: \S+$", "  project: demo", config.read_text(), count=1)
    )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "memory")
    return root


def _no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr, result.stderr
    assert "MemoryError" not in result.stderr, result.stderr


def _set_summarizer(root: Path, command: str) -> None:
    config = root / ".memory" / "config.yaml"
    config.write_text(config.read_text() + f"\ncompact:\n  summarizer: {json.dumps(command)}\n")


def _event(session: str, command: str, exit_code: int, stderr: str) -> str:
    return json.dumps(
        {
            "hook_event_name": "PostToolUse",
            "session_id": session,
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_response": {"stdout": "", "stderr": stderr, "exit_code": exit_code},
        }
    )


def test_a_committed_summarizer_never_runs_through_the_installed_hooks(clone: Path) -> None:
    marker = clone.parent / "PWNED"
    _set_summarizer(clone, f"sh -c 'touch {marker}'")
    assert mem(clone, "hooks", "install", "--agent", "claude-code").returncode == 0
    settings = json.loads((clone / ".claude" / "settings.json").read_text())
    hook_commands = {
        event: [h["command"] for group in groups for h in group["hooks"]]
        for event, groups in settings["hooks"].items()
    }
    [capture] = {c for c in hook_commands["PostToolUse"] if "capture" in c}
    [compact] = hook_commands["SessionEnd"]
    for event in (
        _event("s1", "pytest", 1, "E   ModuleNotFoundError: No module named 'yaml'"),
        _event("s1", "pip install pyyaml && pytest", 0, ""),
    ):
        hook = subprocess.run(
            capture, shell=True, cwd=clone, input=event, text=True, env=environment(clone)
        )
        assert hook.returncode == 0
    end = json.dumps({"hook_event_name": "SessionEnd", "session_id": "s1"})
    subprocess.run(
        compact, shell=True, cwd=clone, input=end, text=True, env=environment(clone), check=True
    )
    assert mem(clone, "compact").returncode == 0  # and once more in the foreground
    deadline = time.monotonic() + 5  # the detached compaction may still be finishing
    while time.monotonic() < deadline and not marker.exists():
        time.sleep(0.1)
    assert not marker.exists()


def test_lint_and_prune_check_flag_a_committed_command(clone: Path) -> None:
    _set_summarizer(clone, "sh -c 'echo hi'")
    for args in (("lint",), ("prune", "--check")):
        result = mem(clone, *args)
        assert result.returncode == 1, result
        assert ".memory/config.yaml:" in result.stdout
        assert "compact.summarizer" in result.stdout and "may not name a command" in result.stdout


def test_the_summarizer_runs_from_the_user_config(clone: Path) -> None:
    marker = clone.parent / "ran"
    script = clone.parent / "summarizer.sh"
    script.write_text(f"#!/bin/sh\ncat > /dev/null\ntouch {marker}\necho '{{\"items\": []}}'\n")
    script.chmod(0o755)
    (clone.parent / "user-config.yaml").write_text(f"compact:\n  summarizer: {script}\n")
    stdin = _event("s2", "make", 2, "make: *** No rule to make target 'all'.  Stop.")
    assert mem(clone, "capture", stdin=stdin).returncode == 0
    assert mem(clone, "compact").returncode == 0
    assert marker.exists()


def _bomb_item(root: Path) -> str:
    (root / ".memory" / "items" / "bomb-0001.yaml").write_text(_alias_bomb())
    return ".memory/items/bomb-0001.yaml"


def _bomb_config(root: Path) -> str:
    config = root / ".memory" / "config.yaml"
    config.write_text(config.read_text() + "\nx_bomb:\n" + _indent(_alias_bomb()))
    return ".memory/config.yaml"


def _indent(text: str) -> str:
    return "".join(f"  {line}\n" for line in text.splitlines())


def _zero_link(root: Path) -> str:
    (root / ".memory" / "items" / "zero-0001.yaml").symlink_to("/dev/zero")
    return ".memory/items/zero-0001.yaml"


def _outside_link(root: Path) -> str:
    outside = root.parent / "outside.yaml"
    outside.write_text(GOOD_ITEM.replace("good-item-0001", "link-item-0001"))
    (root / ".memory" / "items" / "link-item-0001.yaml").symlink_to(outside)
    return ".memory/items/link-item-0001.yaml"


def _huge_item(root: Path) -> str:
    body = "x" * 3_000_000
    (root / ".memory" / "items" / "huge-0001.yaml").write_text(
        GOOD_ITEM.replace("good-item-0001", "huge-0001").replace("body: Run", f"body: {body} Run")
    )
    return ".memory/items/huge-0001.yaml"


def _deep_item(root: Path) -> str:
    (root / ".memory" / "items" / "deep-0001.yaml").write_text(
        "id: deep-0001\ntags: " + "[" * 5000 + "]" * 5000 + "\n"
    )
    return ".memory/items/deep-0001.yaml"


def _fifo_item(root: Path) -> str:
    os.mkfifo(root / ".memory" / "items" / "fifo-0001.yaml")
    return ".memory/items/fifo-0001.yaml"


def _outside_folder(root: Path) -> Path:
    outside = root.parent / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "planted.yaml").write_text(GOOD_ITEM.replace("good-item-0001", "planted-0001"))
    return outside


def _sessions_link(root: Path) -> str:
    sessions = root / ".memory" / "sessions"
    shutil.rmtree(sessions)
    sessions.symlink_to(_outside_folder(root))
    return ".memory/sessions"


def _session_file_link(root: Path) -> str:
    (root / ".memory" / "sessions" / "s1.yaml").symlink_to("/etc/passwd")
    return ".memory/sessions/s1.yaml"


def _config_link(root: Path) -> str:
    config = root / ".memory" / "config.yaml"
    outside = root.parent / "outside-config.yaml"
    outside.write_text(config.read_text())
    config.unlink()
    config.symlink_to(outside)
    return ".memory/config.yaml"


def _committed_local(root: Path, name: str, data: bytes) -> str:
    """A file under the git-ignored local/ as a hostile repository commits it (`git add -f`):
    a checkout writes it readable by everyone (mode 0644)."""
    path = root / ".memory" / "local" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        path.unlink()
    path.write_bytes(data)
    path.chmod(0o644)
    git(root, "add", "-f", str(path.relative_to(root)))
    git(root, "commit", "-q", "-m", f"add {name}")
    return f".memory/local/{name}"


def _committed_config_copy(root: Path) -> str:
    hostile = {"capture": {"deny_globs": []}, "redaction": {"mask_emails": False}}
    return _committed_local(root, "config.json", json.dumps(hostile).encode())


def _committed_index(root: Path) -> str:
    return _committed_local(root, "index/index.bin", b"MEMINDEX" + os.urandom(4096))


def _committed_regex_cache(root: Path) -> str:
    return _committed_local(root, "regex.cache", os.urandom(2048))


HOSTILE: dict[str, Callable[[Path], str]] = {
    "alias bomb item": _bomb_item,
    "alias bomb config": _bomb_config,
    "item linked to /dev/zero": _zero_link,
    "item linked out of the repository": _outside_link,
    "3 MB item": _huge_item,
    "deeply nested item": _deep_item,
    "fifo item": _fifo_item,
    "symlinked sessions folder": _sessions_link,
    "session summary linked to /etc/passwd": _session_file_link,
    "symlinked config.yaml": _config_link,
    "config copy committed under local/": _committed_config_copy,
    "index committed under local/": _committed_index,
    "regex cache committed under local/": _committed_regex_cache,
}

READING_COMMANDS = [
    ("lint",),
    ("list",),
    ("stats",),
    ("prune", "--check"),
    ("search", "pytest"),
    ("show", "good-item-0001"),
    ("reindex",),
    ("diff",),
]


@pytest.mark.parametrize("make", HOSTILE.values(), ids=list(HOSTILE))
def test_a_hostile_file_is_named_and_bounded_in_every_command(
    clone: Path, make: Callable[[Path], str]
) -> None:
    culprit = make(clone)
    for args in READING_COMMANDS:
        result = mem(clone, *args)
        _no_traceback(result)
        assert result.returncode in (0, 1, 2), (args, result)
        if result.returncode == 2:  # a usage error: exactly one line, naming the file
            assert result.stderr.count("\n") == 1 and culprit in result.stderr, (args, result)
        if args[0] == "lint":
            assert result.returncode == 1 and culprit in result.stdout, result
    if "config" not in culprit:  # a bad item never hides the good ones
        found = mem(clone, "search", "pytest", "--json")
        assert "good-item-0001" in found.stdout, found
        assert "link-item-0001" not in mem(clone, "list").stdout


@pytest.mark.parametrize("make", HOSTILE.values(), ids=list(HOSTILE))
def test_hook_commands_fail_open_on_a_hostile_file(
    clone: Path, make: Callable[[Path], str]
) -> None:
    make(clone)
    for args, stdin in (
        (("index", "--format", "claude"), json.dumps({"hook_event_name": "SessionStart"})),
        (("capture",), _event("s3", "pytest", 1, "E   AssertionError")),
        (("compact",), ""),
    ):
        result = mem(clone, *args, stdin=stdin)
        _no_traceback(result)
        assert result.returncode == 0, (args, result)


# Findings 7 and 8: links where mem writes, caches mem did not write, a read-only local/,
# items over the size limit.


@pytest.mark.parametrize("folder", [".memory", ".memory/local", ".memory/local/buffer"])
def test_a_linked_store_folder_is_refused_and_never_written_through(
    clone: Path, folder: str
) -> None:
    outside = clone.parent / "elsewhere"
    outside.mkdir()
    linked = clone / folder
    if linked.exists():
        shutil.copytree(linked, outside, dirs_exist_ok=True)
        shutil.rmtree(linked)
    linked.parent.mkdir(parents=True, exist_ok=True)
    linked.symlink_to(outside)
    before = sorted(str(p) for p in outside.rglob("*"))
    for args in (("search", "pytest"), ("list",), ("lint",), ("compact",), ("add", "--kind",
                 "env", "--title", "t", "--body", "b")):  # fmt: skip
        result = mem(clone, *args)
        _no_traceback(result)
        assert result.returncode == 2, (args, result)
        assert result.stderr.count("\n") == 1 and folder in result.stderr, (args, result)
        assert "symlink" in result.stderr
    for args, stdin in (
        (("capture",), _event("s9", "pytest", 1, "E   AssertionError")),
        (("index", "--format", "claude"), json.dumps({"hook_event_name": "SessionStart"})),
        (("compact", "--detach"), json.dumps({"session_id": "s9"})),
    ):
        result = mem(clone, *args, stdin=stdin)
        _no_traceback(result)
        assert result.returncode == 0 and result.stdout == "", (args, result)
    time.sleep(1)  # a detached compaction, had one started, would have written by now
    assert sorted(str(p) for p in outside.rglob("*")) == before  # nothing written through


def test_a_committed_log_or_buffer_link_is_never_written_through(clone: Path) -> None:
    victim = clone.parent / "victim.txt"
    victim.write_text("precious\n")
    local = clone / ".memory" / "local"
    (local / "buffer").mkdir(parents=True, exist_ok=True)
    (local / "mem.log").unlink(missing_ok=True)
    (local / "mem.log").symlink_to(victim)
    (local / "buffer" / "s7.jsonl").symlink_to(victim)
    for args, stdin in (
        (("capture",), "{not json"),  # logged
        (("capture",), _event("s7", "pytest", 1, "E   AssertionError")),  # appended
        (("compact",), ""),
    ):
        result = mem(clone, *args, stdin=stdin)
        _no_traceback(result)
        assert result.returncode == 0, (args, result)
    assert victim.read_text() == "precious\n"


def test_caches_committed_under_local_are_never_trusted(clone: Path) -> None:
    _committed_config_copy(clone)  # masking off, no denied files
    _committed_regex_cache(clone)
    _committed_index(clone)
    email = "jane.doe@example.org"
    read_env = json.dumps(
        {
            "hook_event_name": "PostToolUse",
            "session_id": "s8",
            "tool_name": "Read",
            "tool_input": {"file_path": ".env"},
            "tool_response": {"file": {"content": "STRIPE_KEY=plainvalue123\n"}},
        }
    )
    for stdin in (read_env, _event("s8", "git log", 1, f"fatal: bad author {email}")):
        assert mem(clone, "capture", stdin=stdin).returncode == 0
    buffer = (clone / ".memory" / "local" / "buffer" / "s8.jsonl").read_text()
    assert "plainvalue123" not in buffer and email not in buffer
    found = mem(clone, "search", "pytest", "--json")
    assert found.returncode == 0 and "good-item-0001" in found.stdout, found
    lint = mem(clone, "lint")
    assert lint.returncode == 1
    for name in ("config.json", "regex.cache", "index/index.bin"):
        assert f".memory/local/{name}:1: (file): committed under the git-ignored local/" in (
            lint.stdout
        )


def _read_only_runner() -> list[str]:
    """A prefix that runs a command where mode bits bind: as root they do not, so run as an
    ordinary user mapped onto root's files by a user namespace (the files look like ours)."""
    if os.geteuid() != 0:
        return []
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("running as root without unshare: a read-only folder cannot be made")
    probe = subprocess.run(
        [unshare, "--user", "--map-user=1000", "--map-group=1000", "true"], check=False
    )
    if probe.returncode != 0:
        pytest.skip("user namespaces are not available here")
    return [unshare, "--user", "--map-user=1000", "--map-group=1000"]


def test_a_read_only_local_folder_keeps_reading_commands_working(clone: Path) -> None:
    prefix = _read_only_runner()
    assert mem(clone, "capture", stdin=_event("s6", "pytest", 1, "E   boom")).returncode == 0
    local = clone / ".memory" / "local"
    shutil.rmtree(local / "index", ignore_errors=True)
    (local / "scope.json").unlink(missing_ok=True)
    modes = {p: p.stat().st_mode for p in [local, *local.rglob("*")] if p.is_dir()}
    for folder in modes:
        folder.chmod(0o555)
    try:

        def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                [*prefix, MEM, *args], cwd=clone, input=stdin, capture_output=True, text=True,
                timeout=HANG_GUARD_SECONDS, env=environment(clone),
            )  # fmt: skip

        for args in (("search", "pytest", "--json"), ("show", "good-item-0001"), ("list",)):
            result = run(*args)
            _no_traceback(result)
            assert result.returncode == 0, (args, result)
            if args[0] == "search":
                assert "good-item-0001" in result.stdout
        for args, stdin in (
            (("index", "--format", "claude"), json.dumps({"hook_event_name": "SessionStart"})),
            (("capture",), _event("s6", "make", 2, "make: *** Error 2")),
            (("compact", "--detach"), json.dumps({"session_id": "s6"})),
        ):
            result = run(*args, stdin=stdin)
            _no_traceback(result)
            assert result.returncode == 0 and not result.stderr, (args, result)
        result = run("compact")
        _no_traceback(result)
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result
        assert ".memory/local" in result.stderr and "Permission denied" in result.stderr
    finally:
        for folder, mode in modes.items():
            folder.chmod(mode)


def test_an_item_over_the_size_limit_is_refused_on_write(clone: Path) -> None:
    result = mem(clone, "add", "--kind", "env", "--title", "huge", "--body", "x" * 70_000)
    _no_traceback(result)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result
    assert "64,000-byte limit" in result.stderr
    assert not [p for p in (clone / ".memory" / "items").glob("*.yaml") if "huge" in p.read_text()]
