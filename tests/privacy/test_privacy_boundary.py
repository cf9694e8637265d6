"""The privacy boundary, end to end: fresh random secrets in many formats go in through every
channel (tool output, commands, prompts, file edits, failures, `mem add`, MCP `memory_add`,
search and recall queries), compaction runs, and no byte under ``.memory/`` holds one; benign
look-alikes (commit ids, UUIDs, digests) stay readable. Local files are the owner's alone.

The secrets are drawn at run time (the seed is in every failure message), and every prefix is
split, so that no secret-shaped string sits in the repository.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import stat
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from memcli.mcpserver.service import MemoryService

MEM = shutil.which("mem", path=os.path.dirname(sys.executable)) or "mem"
HANG_GUARD_SECONDS = 120
SEED = random.SystemRandom().randrange(1 << 32)
RNG = random.Random(SEED)
UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
LOWER = "abcdefghijklmnopqrstuvwxyz"
DIGITS = "0123456789"
ALNUM = UPPER + LOWER + DIGITS
HEX = "0123456789abcdef"
MARKERS = ("fake", "dummy", "example", "sample", "placeholder", "changeme", "redacted", "your",
           "here", "insert")  # fmt: skip


def drawn(n: int, alphabet: str = ALNUM) -> str:
    """`n` random characters with each class present and no run or ascending stretch, so no
    rule mistakes them for a placeholder."""
    while True:
        value = "".join(RNG.choice(alphabet) for _ in range(n))
        runs = any(value[i] == value[i + 1] == value[i + 2] for i in range(n - 2))
        ascending = any(ord(value[i + 1]) == ord(value[i]) + 1 for i in range(n - 1))
        classes = [
            any(c in s for c in value) for s in (UPPER, LOWER, DIGITS) if set(s) & set(alphabet)
        ]
        marker = any(w in value.lower() for w in MARKERS)  # "faKE" would read as a stand-in
        if not runs and not ascending and not marker and all(classes):
            return value


def password() -> str:
    return drawn(10) + RNG.choice("#&+^~") + drawn(5)


def private_key(cut: bool) -> tuple[str, str]:
    body = "\n".join(drawn(64, ALNUM + "+/") for _ in range(6))
    head = "-----BEGIN RSA " + "PRIVATE KEY-----"
    if cut:  # a key cut short by an ellipsis, no END
        return f"{head}\n{body[:130]}...", body[70:120]
    return f"{head}\n{body}\n-----END RSA " + "PRIVATE KEY-----", body[200:260]


def formats() -> list[tuple[str, str, str]]:
    """(name, a line holding the secret, the secret) for each format."""
    out: list[tuple[str, str, str]] = []

    def add(name: str, line: str, secret: str) -> None:
        out.append((name, line, secret))

    s = "AK" + "IA" + drawn(16, UPPER + DIGITS)
    add("aws access key", f"aws_access_key_id = {s}", s)
    s = drawn(40, ALNUM + "+/")
    add("aws secret key", f"aws_secret_access_key={s}", s)
    s = "gh" + "p_" + drawn(36)
    add("github token", f"cloning with {s} now", s)
    s = "github" + "_pat_" + drawn(22) + "_" + drawn(59)
    add("github fine-grained token", f"GH={s}", s)
    s = "gl" + "pat-" + drawn(20)
    add("gitlab token", f"export GITLAB={s}", s)
    s = "xo" + "xb-" + drawn(11, DIGITS) + "-" + drawn(13, DIGITS) + "-" + drawn(24)
    add("slack token", f"slack: {s}", s)
    s = drawn(11, UPPER + DIGITS) + "/" + drawn(11, UPPER + DIGITS) + "/" + drawn(24)
    add("slack webhook", "posting to https://hooks." + f"slack.com/services/{s}", s)
    s = "sk" + "_live_" + drawn(24)
    add("stripe key", f"stripe.api_key = '{s}'", s)
    s = "sk-" + "proj-" + drawn(48)
    add("openai key", f"OPENAI_API_KEY={s}", s)
    s = "sk-" + "ant-api03-" + drawn(40)
    add("anthropic key", f"key is {s}", s)
    s = "ey" + "J" + drawn(30) + "." + "ey" + "J" + drawn(40) + "." + drawn(43)
    add("jwt", f"Authorization: Bearer {s}", s)
    key, probe = private_key(cut=False)
    add("private key", key, probe)
    key, probe = private_key(cut=True)
    add("private key cut by an ellipsis", key, probe)
    s = password()
    add("password in a url", f"postgres://app:{s}@db.internal:5432/app", s)
    s = password()
    add("password assignment", f'DB_PASSWORD="{s}"', s)
    for lead in "*!%":
        s = lead + password()
        add(f"password starting with {lead}", f"DB_PASSWORD={s}", s)
    s = drawn(32)
    add("value before a parenthesis", f"failed (API_TOKEN={s})", s)
    s = drawn(24)
    add("value before a comma", f"connect(SECRET_KEY={s}, debug=True)", s)
    s = "ya" + "29." + drawn(60, ALNUM + "_-")
    add("google oauth token", f"token: {s}", s)
    s = "AI" + "za" + drawn(35)
    add("google api key", f"maps key {s}", s)
    s = password()
    add("docker login -p", f"docker login -p {s} registry.example.io", s)
    s = password()
    add("docker login --password", f"docker login --password {s} registry.example.io", s)
    s = password()
    add("mysql -p", f"mysql -u root -p{s} shop", s)
    s = "np" + "m_" + drawn(36)
    add("npm token", f"//registry.npmjs.org/:_authToken={s}", s)
    s = "hf" + "_" + drawn(34, UPPER + LOWER)
    add("hugging face token", f"HF_TOKEN={s}", s)
    s = password()
    add("curl -u", f"curl -u deploy:{s} https://api.example.io", s)
    s = "S" + "G." + drawn(22) + "." + drawn(43)
    add("sendgrid key", f"SENDGRID={s}", s)
    s = password()
    add("password in prose", f"the password is {s}", s)
    return out


BENIGN = [
    "".join(RNG.choice(HEX) for _ in range(40)),  # a commit id
    str(uuid.UUID(int=RNG.getrandbits(128))),
    "sha256:" + "".join(RNG.choice(HEX) for _ in range(64)),
]


def mem(root: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MEM_CONFIG": str(root.parent / "user-config.yaml")}
    env.pop("MEM_DEBUG", None)
    return subprocess.run(
        [MEM, *args],
        cwd=root,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_SECONDS,
        env=env,
    )


def hook(root: Path, payload: dict[str, object]) -> None:
    result = mem(root, "capture", "--strict", stdin=json.dumps(payload))
    assert result.returncode == 0, (SEED, result.stderr)


def bash(base: dict[str, object], command: str, stdout: str) -> dict[str, object]:
    return {
        **base,
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_response": {"stdout": stdout, "stderr": "", "exit_code": 0},
    }


def every_file(root: Path) -> list[Path]:
    return [p for p in (root / ".memory").rglob("*") if p.is_file()]


def leaks(root: Path, secrets: list[tuple[str, str, str]]) -> list[str]:
    found = []
    contents = {p: p.read_bytes() for p in every_file(root)}
    for name, _, secret in secrets:
        for path, data in contents.items():
            if secret.encode() in data or json.dumps(secret)[1:-1].encode() in data:
                found.append(f"{name} in {path.relative_to(root)}")
    return found


@pytest.fixture
def store(repo: Path) -> Path:
    config = repo / ".memory" / "config.yaml"
    text = config.read_text()
    assert "  enabled: false" in text
    config.write_text(text.replace("  enabled: false", "  enabled: true", 1))
    return repo


def test_fresh_secrets_reach_no_file_under_memory_through_any_channel(store: Path) -> None:
    secrets = formats()
    benign = " ".join(BENIGN)
    session = "privacy-session"
    base = {"session_id": session, "cwd": str(store)}
    channels: list[Callable[[str], dict[str, object]]] = [
        lambda line: {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "./deploy.sh"},
            "tool_response": {"stdout": f"{line}\n{benign}\n", "stderr": "", "exit_code": 0},
        },
        lambda line: {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": line.split("\n")[0][:300]},
            "tool_response": {"stdout": "", "stderr": f"error: {line}", "exit_code": 1},
        },
        lambda line: {**base, "hook_event_name": "UserPromptSubmit", "prompt": f"use {line}"},
        lambda line: {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_name": "Edit",
            "tool_input": {"file_path": "app/settings.py", "old_string": "x", "new_string": line},
            "tool_response": {"filePath": "app/settings.py", "success": True},
        },
    ]
    for _, line, _ in secrets:
        for channel in channels:
            hook(store, channel(line))
    service = MemoryService(store)
    for name, line, _ in secrets[:12]:
        title = f"deploy note {name}: {line.split(chr(10))[0][:80]}"
        added = mem(store, "add", "--kind", "env", "--title", title, "--body", line)
        assert added.returncode == 0, (SEED, added.stderr)
        service.add("pitfall", f"tool note {name}", f"remember {line}", tags=["deploy"])
    for _, line, _ in secrets:
        first = line.split("\n")[0][:200]
        mem(store, "search", first)
        service.search(first)
        mem(
            store,
            "recall",
            stdin=json.dumps({**base, "hook_event_name": "UserPromptSubmit", "prompt": first}),
        )
    buffer_text = (store / ".memory" / "local" / "buffer" / f"{session}.jsonl").read_text()
    for look_alike in BENIGN:
        assert look_alike in buffer_text, (SEED, look_alike)
    assert mem(store, "compact", "--session", session).returncode in (0, 1)
    assert mem(store, "index").returncode == 0
    assert list((store / ".memory" / "items").iterdir())
    assert leaks(store, secrets) == [], SEED


def test_a_secret_seen_once_is_masked_later_in_the_session_without_its_name(
    store: Path,
) -> None:
    secret = drawn(28)
    base = {"session_id": "s-seen", "cwd": str(store), "hook_event_name": "PostToolUse"}
    hook(store, bash(base, f"export API_TOKEN={secret}", f"set {secret}"))
    hook(store, bash(base, "env | grep TOK", f"value: {secret}\n"))
    hook(
        store, {**base, "hook_event_name": "UserPromptSubmit", "prompt": f"why is {secret}, wrong"}
    )
    assert leaks(store, [("token", "", secret)]) == []
    remembered = (store / ".memory" / "local" / "secrets" / "s-seen").read_text()
    assert remembered.startswith("salt ") and secret not in remembered
    other = {
        **base,
        "session_id": "s-other",
        "tool_name": "Bash",
        "tool_input": {"command": "./run"},
    }
    hook(store, {**other, "tool_response": {"stdout": f"{secret}\n", "stderr": "", "exit_code": 0}})
    assert leaks(store, [("token", "", secret)]) != []  # another session never saw it named


def test_local_files_are_the_owners_alone(store: Path) -> None:
    base = {"session_id": "s-modes", "cwd": str(store), "hook_event_name": "PostToolUse"}
    hook(store, bash(base, f"export TOKEN={drawn(20)}", "ok"))
    mem(store, "add", "--kind", "env", "--title", "a note", "--body", "body text")
    mem(store, "search", "note")
    mem(store, "show", mem(store, "search", "note", "--json").stdout.split('"id": "')[1][:10])
    mem(store, "compact", "--session", "s-modes")
    mem(store, "index")
    local = store / ".memory" / "local"
    wrong = [
        f"{p.relative_to(store)} {stat.filemode(p.stat().st_mode)}"
        for p in [local, *local.rglob("*")]
        if p.stat().st_mode & 0o077
    ]
    assert wrong == []
    assert (local / "receipts.jsonl").exists() and (local / "buffer").is_dir()


def test_receipts_hold_masked_queries(store: Path) -> None:
    secret = "gh" + "p_" + drawn(36)
    mem(store, "search", f"why does {secret} fail")
    MemoryService(store).search(f"token {secret}")
    receipts = (store / ".memory" / "local" / "receipts.jsonl").read_text()
    assert secret not in receipts and receipts.count("[REDACTED]") == 2


def test_a_committed_pattern_that_backtracks_never_hangs_capture(store: Path) -> None:
    config = store / ".memory" / "config.yaml"
    patterns = "  extra_patterns:\n    - '(a+)+$'\n    - 'ACME-[0-9]{6}'\n"
    config.write_text(config.read_text().replace("  extra_patterns: []\n", patterns, 1))
    assert mem(store, "index").returncode == 0  # the SessionStart hook: capture's copy refreshed
    base = {"session_id": "s-regex", "cwd": str(store), "hook_event_name": "PostToolUse"}
    out = "a" * 30 + "! ACME-" + "".join(RNG.choice(DIGITS) for _ in range(6))
    hook(store, bash(base, "make", out))
    buffer_text = (store / ".memory" / "local" / "buffer" / "s-regex.jsonl").read_text()
    assert "a" * 30 in buffer_text and out[-11:] not in buffer_text
    assert "redaction.extra_patterns[0]" in (store / ".memory" / "local" / "mem.log").read_text()
    for args in (("lint",), ("prune", "--check")):
        result = mem(store, *args)
        assert result.returncode == 1, result
        line = next(n for n, t in enumerate(config.read_text().split("\n"), 1) if "(a+)+$" in t)
        assert f".memory/config.yaml:{line}:" in result.stdout, result.stdout
        assert "redaction.extra_patterns[0]" in result.stdout
        assert "extra_patterns[1]" not in result.stdout
