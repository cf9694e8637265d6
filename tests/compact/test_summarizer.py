"""The optional summarizer: its items when valid, the rules when it fails in any way."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from compact_helpers import SECRETS, Capture, memory_text

from memcli import api
from memcli.compact import buffers, compact_session, summarizer

SCRIPT = Path(__file__).resolve().parent / "fake_summarizer.py"


@pytest.fixture(autouse=True)
def user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's own config (the summarizer is never read from the committed one)."""
    path = tmp_path / "user-config.yaml"
    monkeypatch.setenv("MEM_CONFIG", str(path))
    return path


def configure(
    repo: Path, mode: str, timeout: float = 20, counter: Path | None = None
) -> api.Memory:
    command = f"{sys.executable} {SCRIPT} {mode}" + (f" {counter}" if counter else "")
    user_config = Path(os.environ["MEM_CONFIG"])
    user_config.write_text(f"compact:\n  summarizer: '{command}'\n  timeout_seconds: {timeout}\n")
    return api.Memory.open(repo)


def log_text(memory: api.Memory) -> str:
    return memory.paths.log.read_text() if memory.paths.log.exists() else ""


def test_a_valid_answer_becomes_items_with_model_and_prompt_version(
    repo: Path, capture: Capture, fixture_lines: list[bytes]
) -> None:
    memory = configure(repo, "good")
    capture(fixture_lines)
    result = compact_session(memory, "abc123")
    assert result.compactor == "summarizer"
    [item] = memory.items()
    assert item.title == "Order tests need the DB_PORT from .env, not a hard-coded 5433"
    assert item.confidence == "verified"  # it cites the failing and the passing run
    assert item.source == {
        "compactor": "summarizer",
        "version": item.source["version"],
        "model": "fake-model-1",
        "prompt": summarizer.PROMPT_VERSION,
    }
    assert item.tags == ["postgres", "tests"]
    assert item.anchors == [{"path": "tests/conftest.py"}]
    assert all(e["ref"].startswith("raw/abc123.jsonl#") for e in item.evidence)
    assert memory.lint() == []
    for secret in SECRETS:
        assert secret not in memory_text(repo)
    assert (memory.paths.sessions / "abc123.yaml").read_text().count("name: summarizer") == 1


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("garbage", "not JSON"),
        ("bad-kind", "kind 'note'"),
        ("fail", "exit 3: model overloaded"),
        ("slow", "timed out"),
    ],
)
def test_failure_timeout_or_invalid_output_falls_back_to_the_rules(
    repo: Path, capture: Capture, fixture_lines: list[bytes], mode: str, reason: str
) -> None:
    memory = configure(repo, mode, timeout=1.5)
    capture(fixture_lines)
    result = compact_session(memory, "abc123")
    assert result.compactor == "rules"
    [item] = memory.items()
    assert item.kind == "pitfall" and item.source["compactor"] == "rules"
    assert "summarizer" in log_text(memory) and reason in log_text(memory)


def test_verified_is_refused_without_a_validating_run(
    repo: Path, capture: Capture, fixture_lines: list[bytes]
) -> None:
    memory = configure(repo, "liar")
    capture(fixture_lines)
    compact_session(memory, "abc123")
    [item] = memory.items()
    assert item.kind == "decision" and item.confidence == "assumed"


def test_an_empty_answer_is_valid_and_writes_only_the_summary(
    repo: Path, capture: Capture, fixture_lines: list[bytes]
) -> None:
    memory = configure(repo, "empty")
    capture(fixture_lines)
    result = compact_session(memory, "abc123")
    assert result.compactor == "summarizer" and memory.items() == []
    assert result.summary_path is not None and result.summary_path.exists()


def test_a_rerun_after_a_crash_reuses_the_answer(
    repo: Path,
    capture: Capture,
    fixture_lines: list[bytes],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    counter = tmp_path / "calls"
    memory = configure(repo, "good", counter=counter)
    capture(fixture_lines)
    original = buffers.write_journal

    def dies(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(buffers, "write_journal", dies)
    with pytest.raises(KeyboardInterrupt):
        compact_session(memory, "abc123")
    monkeypatch.setattr(buffers, "write_journal", original)
    compact_session(memory, "abc123")
    assert len(counter.read_text().splitlines()) == 1
    assert len(memory.items()) == 1


def test_the_request_clusters_episodes_prompts_and_closing_messages(
    memory: api.Memory, capture: Capture, fixture_lines: list[bytes]
) -> None:
    from memcli.compact import observations, rules

    capture(fixture_lines)
    records = buffers.read(memory.paths.buffers / "abc123.jsonl")
    analysis = rules.analyse(observations.from_records(records))
    request = summarizer.request(analysis, "abc123")
    types = [c["type"] for c in request["clusters"]]
    assert types == ["episode", "prompts", "conclusions"]
    episode = request["clusters"][0]
    assert episode["verified"] is True
    assert [o["kind"] for o in episode["observations"]] == ["error", "edit", "command"]
