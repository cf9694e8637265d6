"""The summarizer as an assistant's headless CLI: envelopes, recursion guard, budget, cost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from compact_helpers import Capture, replay_through_installed_hooks, wait_for_compaction
from typer.testing import CliRunner

from memcli import api
from memcli.cli.app import app
from memcli.compact import buffers, compact_session, headless, observations, rules, summarizer

SCRIPT = Path(__file__).resolve().parent / "fake_summarizer.py"


@pytest.fixture(autouse=True)
def user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "user-config.yaml"
    monkeypatch.setenv("MEM_CONFIG", str(path))
    monkeypatch.delenv("MEM_DISABLE", raising=False)
    return path


def configure(user_config: Path, repo: Path, mode: str, counter: Path, **extra: Any) -> api.Memory:
    command = f"{sys.executable} {SCRIPT} {mode} {counter} {repo}"
    lines = [f"  summarizer: '{command}'", "  timeout_seconds: 60"]
    lines += [f"  {key}: {value}" for key, value in extra.items()]
    user_config.write_text("compact:\n" + "\n".join(lines) + "\n")
    return api.Memory.open(repo)


def ledger(memory: api.Memory) -> list[dict[str, Any]]:
    path = memory.paths.local / headless.COST_FILE
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize(
    ("mode", "tokens"),
    [("claude-json", (1500, 150)), ("gemini-json", (1400, 160)), ("codex-jsonl", (1300, 170))],
)
def test_each_cli_envelope_is_unwrapped_and_its_cost_recorded(
    repo: Path,
    capture: Capture,
    fixture_lines: list[bytes],
    user_config: Path,
    tmp_path: Path,
    mode: str,
    tokens: tuple[int, int],
) -> None:
    counter = tmp_path / "calls"
    memory = configure(user_config, repo, mode, counter)
    capture(fixture_lines)
    result = compact_session(memory, "abc123")
    assert result.compactor == "summarizer"
    [item] = memory.items()
    assert item.source["compactor"] == "summarizer" and item.confidence == "verified"
    [call] = [json.loads(line) for line in counter.read_text().splitlines()]
    assert call["disable"] == "1"  # the headless session's own hooks stay quiet
    assert Path(call["cwd"]).resolve() != repo.resolve()  # no project instructions, no repo
    [cost] = ledger(memory)
    assert cost["outcome"] == "ok" and cost["session"] == "abc123"
    assert cost["chars_in"] == call["size"] and cost["chars_out"] > 0
    assert (cost["tokens_in"], cost["tokens_out"]) == tokens
    stats = CliRunner().invoke(app, ["stats", "--json"])
    totals = json.loads(stats.stdout)["summarizer"]
    assert totals["calls"] == 1 and totals["tokens_out"] == tokens[1]
    assert totals["chars_in"] == call["size"]
    plain = CliRunner().invoke(app, ["stats"])
    lines = plain.stdout.splitlines()  # piped: one tab-separated name and value a line
    assert "summarizer.calls\t1" in lines and f"summarizer.chars_in\t{call['size']}" in lines
    if mode == "claude-json":
        assert totals["cost_usd"] == 0.0125 and "summarizer.cost_usd\t0.0125" in lines


def test_after_the_session_ends_the_summarizer_runs_detached_from_the_hook(
    repo: Path, fixture_lines: list[bytes], user_config: Path, tmp_path: Path
) -> None:
    """The session is replayed through the installed Claude Code hooks. The SessionEnd hook
    returns while the summarizer is still waiting to answer: it runs after the session, in
    the background, and its answer lands later."""
    counter = tmp_path / "calls"
    memory = configure(user_config, repo, "gated", counter)
    payloads = [json.loads(line) for line in fixture_lines]
    assert payloads[-1]["hook_event_name"] == "SessionEnd"
    replay_through_installed_hooks(repo, payloads)  # every hook has returned
    for _ in range(600):
        if counter.exists():
            break
        time.sleep(0.1)
    assert counter.exists(), "the detached compaction never called the summarizer"
    assert not memory.items()  # the summarizer is still waiting
    Path(f"{counter}.go").touch()
    wait_for_compaction(memory, "abc123")
    [item] = memory.items()
    assert item.source["compactor"] == "summarizer"
    [cost] = ledger(memory)
    assert cost["outcome"] == "ok" and cost["tokens_out"] == 150


def test_a_failed_call_is_accounted_for_and_a_cached_answer_costs_nothing(
    repo: Path, capture: Capture, fixture_lines: list[bytes], user_config: Path, tmp_path: Path
) -> None:
    memory = configure(user_config, repo, "fail", tmp_path / "calls")
    capture(fixture_lines)
    assert compact_session(memory, "abc123").compactor == "rules"
    [cost] = ledger(memory)
    assert cost["outcome"] == "failed" and cost["chars_in"] > 0 and cost["tokens_in"] is None
    assert headless.cost_totals(memory.paths)["failed"] == 1


def test_a_timed_out_command_is_killed_with_what_it_started(
    repo: Path, capture: Capture, fixture_lines: list[bytes], user_config: Path, tmp_path: Path
) -> None:
    counter = tmp_path / "calls"
    command = f"{sys.executable} {SCRIPT} spawner {counter}"
    user_config.write_text(f"compact:\n  summarizer: '{command}'\n  timeout_seconds: 3\n")
    memory = api.Memory.open(repo)
    capture(fixture_lines)
    assert compact_session(memory, "abc123").compactor == "rules"
    helper = int(Path(f"{counter}.helper").read_text())
    status = Path(f"/proc/{helper}/status")
    if status.exists():  # gone, or a zombie nobody has reaped yet
        assert "State:\tZ" in status.read_text()


def test_the_headless_sessions_own_hooks_neither_capture_nor_compact(
    repo: Path, capture: Capture, fixture_lines: list[bytes], user_config: Path, tmp_path: Path
) -> None:
    memory = configure(user_config, repo, "hooked", tmp_path / "calls")
    capture(fixture_lines)
    assert compact_session(memory, "abc123").compactor == "summarizer"
    assert not (memory.paths.buffers / "headless-1.jsonl").exists()
    assert "headless" not in memory.paths.log.read_text() if memory.paths.log.exists() else True
    assert len(ledger(memory)) == 1


def test_hook_commands_do_nothing_under_mem_disable(repo: Path) -> None:
    payload = json.dumps({"session_id": "s9", "hook_event_name": "UserPromptSubmit",
                          "prompt": "hello there", "cwd": str(repo)})  # fmt: skip
    env = {**os.environ, "MEM_DISABLE": "1"}
    for command in (["capture"], ["index", "--format", "claude"], ["compact", "--detach"]):
        argv = [sys.executable, "-m", "memcli", *command]
        done = subprocess.run(
            argv, input=payload, env=env, cwd=repo, capture_output=True, text=True, check=False
        )
        assert (done.returncode, done.stdout) == (0, "")
    assert not (repo / ".memory" / "local" / "buffer" / "s9.jsonl").exists()
    env["MEM_DISABLE"] = "0"
    argv = [sys.executable, "-m", "memcli", "capture"]
    subprocess.run(argv, input=payload, env=env, cwd=repo, check=True, text=True)
    assert (repo / ".memory" / "local" / "buffer" / "s9.jsonl").exists()


def test_the_digest_stays_under_its_budget_and_is_masked_again(
    memory: api.Memory, capture: Capture, fixture_lines: list[bytes]
) -> None:
    capture(fixture_lines)
    records = buffers.read(memory.paths.buffers / "abc123.jsonl")
    analysis = rules.analyse(observations.from_records(records))
    full = summarizer.request(analysis, "abc123")
    assert "truncated" not in full and "psycopg" in json.dumps(full)
    budget = max(summarizer.MIN_CHARS, len(json.dumps(full)) // 2)
    config = memory.paths.config
    config.write_text(
        config.read_text().replace("extra_patterns: []", "extra_patterns: ['psycopg\\w*']")
    )
    masking = api.Memory.open(memory.root)
    small = summarizer.request(analysis, "abc123", budget, masking.mask)
    assert len(json.dumps(small)) <= budget < len(json.dumps(full))
    assert "psycopg" not in json.dumps(small)
    assert any(c["type"] == "episode" for c in small["clusters"])


@pytest.mark.parametrize(
    ("stdout", "text"),
    [
        ('{"items": []}', '{"items": []}'),
        ('```json\n{"items": []}\n```', '{"items": []}'),
        ('{"type": "result", "result": "[]", "usage": {"input_tokens": 5}}', "[]"),
        ('{"response": "```\\n[]\\n```", "stats": {}}', "[]"),
    ],
)
def test_unwrap(stdout: str, text: str) -> None:
    assert headless.unwrap(stdout)[0] == text


def test_an_error_envelope_is_a_failure() -> None:
    with pytest.raises(headless.Failed, match="reported an error"):
        headless.unwrap('{"type": "result", "is_error": true, "result": "Credit balance too low"}')
