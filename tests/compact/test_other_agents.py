"""Sessions of agents mem has no hooks for (pi, SWE-agent, OpenHands), imported: rewritten as
Claude Code transcript records (memcli/compact/other_agents.py), then read as one, so they
yield what the Claude Code hooks capture of the same records. Fixtures are synthetic:
tests/fixtures/pi/session.jsonl and tests/fixtures/swe-agent/money-rounding.traj."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from test_import_parity import comparable
from typer.testing import CliRunner

from memcli import api
from memcli.cli.app import app
from memcli.compact import other_agents, transcripts

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
PI = FIXTURES / "pi" / "session.jsonl"
SWE = FIXTURES / "swe-agent" / "money-rounding.traj"
OPENHANDS = [
    {"id": 1, "source": "user", "action": "message", "message": "Add a todo list page",
     "timestamp": "2026-11-27T09:00:00"},
    {"id": 2, "source": "agent", "action": "run", "args": {"command": "npm test",
     "thought": "Run the tests first."}},
    {"id": 3, "source": "agent", "observation": "run", "cause": 2, "content": "sh: jest: not found",
     "extras": {"metadata": {"exit_code": 127}}},
    {"id": 4, "source": "agent", "action": "finish", "args": {"final_thought": "jest is missing."}},
]  # fmt: skip


def test_a_pi_session_keeps_its_id_folder_and_times() -> None:
    records, lines, skipped = other_agents.read_session("pi", PI)
    assert (lines, skipped) == (13, 1)
    assert {r["sessionId"] for r in records} == {"3b9f2c1e-pi-fixture-0001"}
    assert {r["cwd"] for r in records} == {"/home/dev/shop"}
    assert records[0]["timestamp"] == "2026-11-27T10:00:01.000Z"
    assert len({r["uuid"] for r in records}) == len(records)
    calls = [b for r in records for b in r["message"]["content"]
             if isinstance(b, dict) and b.get("type") == "tool_use"]  # fmt: skip
    assert [c["name"] for c in calls] == ["Bash", "Read", "Edit", "Bash"]
    assert calls[2]["input"] == {
        "file_path": "tests/conftest.py",
        "old_string": "PORT = 5433",
        "new_string": 'PORT = int(os.environ.get("DB_PORT", 5432))',
    }


def test_a_file_without_an_id_is_named_by_its_name_and_content(tmp_path: Path) -> None:
    copy = tmp_path / "elsewhere" / SWE.name
    copy.parent.mkdir()
    shutil.copy(SWE, copy)
    [first, *_] = other_agents.read_session("swe-agent", SWE)[0]
    [again, *_] = other_agents.read_session("swe-agent", copy)[0]
    assert first["sessionId"] == again["sessionId"]
    assert first["sessionId"].startswith("swe-agent-money-rounding-")
    copy.write_text(SWE.read_text(encoding="utf-8").replace("345", "346"), encoding="utf-8")
    assert other_agents.read_session("swe-agent", copy)[0][0]["sessionId"] != first["sessionId"]


def test_a_file_that_is_not_the_format_is_one_skipped_line(tmp_path: Path) -> None:
    broken = tmp_path / "broken.traj"
    broken.write_text("{not json\n", encoding="utf-8")
    assert other_agents.read_session("swe-agent", broken) == ([], 1, 1)
    listed = tmp_path / "list.traj"
    listed.write_text("[]", encoding="utf-8")
    assert other_agents.read_session("swe-agent", listed)[0] == []


@pytest.mark.parametrize(("fmt", "path"), [("pi", PI), ("swe-agent", SWE)])
def test_an_import_gives_the_items_of_the_same_records_as_a_claude_code_transcript(
    repo: Path, tmp_path: Path, fmt: str, path: Path
) -> None:
    twin = tmp_path / "twin"
    shutil.copytree(repo, twin)  # same project identity
    imported = api.Memory.open(repo)
    result = transcripts.import_transcripts(imported, [path], fmt)
    assert result.added >= 1 and len(result.sessions) == 1

    records = other_agents.read_session(fmt, path)[0]
    as_claude = tmp_path / "transcript.jsonl"
    as_claude.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    twin_memory = api.Memory.open(twin)
    transcripts.import_transcripts(twin_memory, [as_claude], "claude-code")
    assert comparable(imported) == comparable(twin_memory)
    assert transcripts.import_transcripts(imported, [path], fmt).added == 0


def test_the_session_summary_names_the_agent(memory: api.Memory) -> None:
    transcripts.import_transcripts(memory, [PI], "pi")
    [summary] = memory.paths.sessions.glob("*.yaml")
    assert "agent: pi" in summary.read_text(encoding="utf-8")


def test_mem_import_reads_a_folder_of_each_format(repo: Path, tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    shutil.copy(SWE, folder / "a.traj")
    (folder / "notes.jsonl").write_text("{}\n", encoding="utf-8")  # not a trajectory
    (folder / "b.json").write_text(json.dumps(OPENHANDS), encoding="utf-8")
    runner = CliRunner()
    done = runner.invoke(app, ["import", "--format", "swe-agent", str(folder), "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["sessions"] == 1
    done = runner.invoke(app, ["import", "--format", "openhands", str(folder), "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output)["sessions"] == 1
    texts = " ".join(f"{i.title} {i.body}" for i in api.Memory.open(repo).items())
    assert "jest" in texts
