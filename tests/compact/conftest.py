"""Helpers for the compaction tests: capture in-process, and synthetic observations."""

from __future__ import annotations

import io
import json
import sys
from typing import Any

import pytest
from compact_helpers import FIXTURE, Capture, Writer

from memcli import api
from memcli.capture import command


@pytest.fixture
def capture(monkeypatch: pytest.MonkeyPatch) -> Capture:
    """Run `mem capture --strict` in-process on each line (the current directory's repo)."""

    def run(lines: list[bytes], session: str | None = None) -> None:
        for line in lines:
            if session is not None:
                data = json.loads(line)
                data["session_id"] = session
                line = json.dumps(data).encode()
            monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(line)))
            assert command.run(["--strict"]) == 0

    return run


@pytest.fixture
def fixture_lines() -> list[bytes]:
    return FIXTURE.read_bytes().splitlines()


@pytest.fixture
def write_buffer(memory: api.Memory) -> Writer:
    """Append synthetic observations to their session's buffer; returns the session."""

    def write(records: list[dict[str, Any]]) -> str:
        session = str(records[0]["session"])
        path = memory.paths.buffers / f"{session}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8") as handle:
            for record in records:
                handle.write(json.dumps(record) + "\n")
        return session

    return write
