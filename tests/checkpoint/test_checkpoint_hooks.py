"""The recorded session driven through the hooks `mem hooks install` writes for Claude Code,
each installed command run as a subprocess with the real payloads: the Stop checkpoint asks
once per candidate, in Claude Code's documented JSON, and is silent otherwise."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memcli import api

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "claude-code" / "session.jsonl"
BIN = Path(sys.executable).parent


class Session:
    """A repository with mem's Claude Code hooks installed, and a way to fire them."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
        self.env.pop("MEM_DEBUG", None)
        self.mem("hooks", "install")
        settings = json.loads((root / ".claude" / "settings.json").read_text(encoding="utf-8"))
        self.hooks: dict[str, list[dict[str, Any]]] = {
            event: [h for group in groups for h in group["hooks"]]
            for event, groups in settings["hooks"].items()
        }

    def mem(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(BIN / "mem"), *args], cwd=self.root, env=self.env, capture_output=True,
            text=True, check=False,
        )  # fmt: skip

    def fire(self, payload: dict[str, Any]) -> list[str]:
        """Run every installed handler of the payload's event; the synchronous ones' stdout.

        Compaction at SessionEnd is left out here (the tests compact when they choose)."""
        payload = {**payload, "cwd": str(self.root)}
        outputs = []
        for handler in self.hooks.get(payload["hook_event_name"], []):
            if handler["command"].split()[1:2] == ["compact"]:
                continue
            done = subprocess.run(
                handler["command"], shell=True, cwd=self.root, env=self.env,
                input=json.dumps(payload), capture_output=True, text=True, check=False,
                timeout=handler.get("timeout", 60),
            )  # fmt: skip
            assert done.returncode == 0, done.stderr
            if not handler.get("async"):
                outputs.append(done.stdout)
        return outputs

    def stop(self, active: bool = False, message: str = "Done.") -> str:
        (checkpoint,) = [
            out
            for out, handler in zip(
                self.fire(
                    {"session_id": "abc123", "hook_event_name": "Stop",
                     "stop_hook_active": active, "last_assistant_message": message}
                ),
                [h for h in self.hooks["Stop"] if not h.get("async")],
                strict=True,
            )
            if handler["command"].split()[1:2] == ["checkpoint"]
        ]  # fmt: skip
        return checkpoint


class HookedTranscript:
    """A Claude Code transcript that grows as the session goes, with the hooks fired for it:
    a test appends what Claude Code writes, then fires the event that follows."""

    def __init__(self, session: Session, path: Path, session_id: str) -> None:
        self.session, self.path, self.session_id = session, path, session_id
        self.calls = 0

    def base(self, event: str) -> dict[str, Any]:
        return {"session_id": self.session_id, "transcript_path": str(self.path),
                "hook_event_name": event, "permission_mode": "default"}  # fmt: skip

    def append(self, line: dict[str, Any]) -> None:
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps({**line, "sessionId": self.session_id}) + "\n")

    def stop(self, message: str) -> str:
        """The turn's closing message written, then the Stop hooks: the checkpoint's output."""
        self.append({"type": "assistant", "message": {"role": "assistant",
                     "content": [{"type": "text", "text": message}]}})  # fmt: skip
        outputs = self.session.fire(
            {**self.base("Stop"), "stop_hook_active": False, "last_assistant_message": message}
        )
        return next((o for o in outputs if o.strip()), "")


@pytest.fixture
def session(repo: Path) -> Session:
    return Session(repo)


def payloads() -> list[dict[str, Any]]:
    return [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]


def replay_until_stop(session: Session) -> str:
    """Fire every recorded event up to the Stop; the checkpoint's output at that Stop."""
    out = ""
    for payload in payloads():
        if payload["hook_event_name"] == "SessionEnd":
            break
        outputs = session.fire(payload)
        if payload["hook_event_name"] == "Stop":
            (out,) = [o for o in outputs if o.strip()] or [""]
    return out


def test_the_checkpoint_asks_once_in_claude_codes_json(session: Session) -> None:
    out = replay_until_stop(session)
    answer = json.loads(out)
    assert set(answer) == {"decision", "reason"} and answer["decision"] == "block"
    reason = answer["reason"]
    assert "mem add --candidate c" in reason and "mem add --dismiss" in reason
    assert "memory_add" in reason
    (line,) = [x for x in reason.splitlines() if x.startswith("- c")]
    candidate = line.split()[1]
    assert "[fix -> pitfall]" in line and "port 5433 failed" in line and "conftest.py" in line
    assert "s3cr3t" not in reason and "sk_live" not in reason
    # Nothing new since: silent, exit 0, empty stdout. The same candidate is never asked again.
    assert session.stop() == ""
    # The model answers; its own `mem add` call is captured but is no candidate.
    recorded = session.mem(
        "add", "--candidate", candidate, "--kind", "pitfall",
        "--title", "Order tests need DB_PORT from .env, not a hard-coded port 5433",
        "--body", "tests/conftest.py hard-coded 5433; local Postgres listens on 5432.",
    )  # fmt: skip
    assert recorded.returncode == 0, recorded.stderr
    session.fire(
        {"session_id": "abc123", "hook_event_name": "PostToolUse", "tool_name": "Bash",
         "tool_input": {"command": f"mem add --candidate {candidate} --kind pitfall ..."},
         "tool_response": {"stdout": recorded.stdout, "stderr": "", "interrupted": False}}
    )  # fmt: skip
    assert session.stop(active=True) == ""
    assert session.stop() == ""


def test_stop_hook_active_is_silent_and_asks_nothing(session: Session) -> None:
    for payload in payloads():
        if payload["hook_event_name"] in ("Stop", "SessionEnd"):
            continue
        session.fire(payload)
    assert session.stop(active=True) == ""
    # The candidates are still there for the next real stop, asked once.
    assert json.loads(session.stop())["decision"] == "block"
    assert session.stop() == ""


def test_a_new_lesson_in_a_later_turn_is_asked_about_once(session: Session) -> None:
    replay_until_stop(session)
    session.fire(
        {"session_id": "abc123", "hook_event_name": "UserPromptSubmit",
         "prompt": "No, use pnpm instead of npm in this repo."}
    )  # fmt: skip
    out = session.stop()
    reason = json.loads(out)["reason"]
    assert "[correction -> convention]" in reason and "pnpm" in reason
    assert "port 5433" not in reason  # asked about in the turn before
    assert session.stop() == ""


def test_a_question_and_a_fragment_that_redirect_are_asked_about_once(session: Session) -> None:
    replay_until_stop(session)
    for prompt in ("why does `conftest.py` hard-code the port?", "only e2e tests", "yes"):
        session.fire({"session_id": "abc123", "hook_event_name": "UserPromptSubmit",
                      "prompt": prompt})  # fmt: skip
    assert session.stop(active=True) == ""
    reason = json.loads(session.stop())["reason"]
    assert 'the user asked: "why does `conftest.py` hard-code the port?"' in reason
    assert 'the user said: "only e2e tests"' in reason and '"yes"' not in reason
    assert session.stop() == ""


def test_silent_when_the_checkpoint_is_off(session: Session) -> None:
    config = session.root / ".memory" / "config.yaml"
    config.write_text(config.read_text() + "\n", encoding="utf-8")
    text = config.read_text().replace("  mode: null", "  mode: off")
    config.write_text(text, encoding="utf-8")
    assert session.mem("stats").returncode == 0  # any command refreshes the settings copy
    assert replay_until_stop(session) == ""


def test_the_recorded_candidate_and_the_rules_land_in_one_item(session: Session) -> None:
    reason = json.loads(replay_until_stop(session))["reason"]
    candidate = [x for x in reason.splitlines() if x.startswith("- c")][0].split()[1]
    session.mem(
        "add", "--candidate", candidate, "--kind", "pitfall",
        "--title", "Order tests need DB_PORT from .env, not a hard-coded port 5433",
        "--body", "tests/conftest.py hard-coded 5433; local Postgres listens on 5432.",
    )  # fmt: skip
    assert session.mem("compact").returncode == 0
    memory = api.Memory.open(session.root)
    (item,) = memory.items()
    assert item.kind == "pitfall" and item.confidence == "verified"
    assert item.source["author"] == "model" and item.source["agent"] == "claude-code"
    assert item.title.startswith("Order tests need DB_PORT")
    assert any(e.get("ref", "").startswith("raw/abc123.jsonl#") for e in item.evidence)
    assert memory.lint() == []


def test_dismissed_candidates_are_never_asked_again(session: Session) -> None:
    reason = json.loads(replay_until_stop(session))["reason"]
    candidate = [x for x in reason.splitlines() if x.startswith("- c")][0].split()[1]
    done = session.mem("add", "--dismiss", candidate)
    assert done.returncode == 0 and "dismissed 1 candidate" in done.stdout
    assert session.mem("add", "--dismiss", "cdeadbeef").returncode == 2
    assert session.stop() == ""


def test_the_rules_respect_a_dismissal(session: Session) -> None:
    reason = json.loads(replay_until_stop(session))["reason"]
    candidate = [x for x in reason.splitlines() if x.startswith("- c")][0].split()[1]
    assert session.mem("add", "--dismiss", candidate).returncode == 0
    assert session.mem("compact").returncode == 0
    assert api.Memory.open(session.root).items() == []


def test_a_candidate_said_mid_turn_is_recorded_with_its_note_as_evidence(
    session: Session, tmp_path: Path
) -> None:
    transcript = tmp_path / "abc123.jsonl"
    cause = "The failure is caused by the fixture: it has no `price` column since the migration."
    lines = [
        {"type": "assistant", "sessionId": "abc123", "message": {"role": "assistant",
         "content": [{"type": "text", "text": f"Found it. {cause}"}]}},
        {"type": "assistant", "sessionId": "abc123", "message": {"role": "assistant",
         "content": [{"type": "text", "text": "Done."}]}},
    ]  # fmt: skip
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    outputs = session.fire(
        {"session_id": "abc123", "hook_event_name": "Stop", "stop_hook_active": False,
         "last_assistant_message": "Done.", "transcript_path": str(transcript)}
    )  # fmt: skip
    reason = json.loads(next(o for o in outputs if o.strip()))["reason"]
    (line,) = [x for x in reason.splitlines() if x.startswith("- c") and "price" in x]
    candidate = line.split()[1]
    done = session.mem(
        "add", "--candidate", candidate, "--kind", "pitfall",
        "--title", "The price fixture lacks the column added by the migration",
        "--body", "Regenerate the fixture after a migration that adds a column.",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (item,) = api.Memory.open(session.root).items()
    refs = [e.get("ref", "") for e in item.evidence]
    assert refs and refs[0].startswith("raw/abc123.jsonl#o")  # the note capture recorded


def test_a_pasted_failure_fixed_in_its_turn_is_offered_at_that_turns_end(
    session: Session,
) -> None:
    """The user pastes a console error; the turn edits a file and says why: one ``fix``
    candidate with the signature line and the cause, masked; a prose prompt offers none."""
    session.fire(
        {"session_id": "abc123", "hook_event_name": "UserPromptSubmit",
         "prompt": "The cart is blank:\n\nUncaught TypeError: cart.items.map is not a function\n"
                   "    at CartList (src/CartList.jsx:14:22)\n"}
    )  # fmt: skip
    path = str(session.root / "src" / "CartList.jsx")
    session.fire(
        {"session_id": "abc123", "hook_event_name": "PostToolUse", "tool_name": "Edit",
         "tool_input": {"file_path": path, "old_string": "cart.items.map",
                        "new_string": "Object.values(cart.items).map"},
         "tool_response": {"filePath": path, "success": True}}
    )  # fmt: skip
    cause = (
        "The cause was that the API returns items as an object keyed by id, and the token "
        "sk_live_51Hx7aBCdEfGhIjKlMnOpQrStUvWxYz0123456789 is unrelated."
    )
    reason = json.loads(session.stop(message=cause))["reason"]
    (line,) = [x for x in reason.splitlines() if x.startswith("- c")]  # the cause once
    assert "[fix -> pitfall]" in line
    assert "Uncaught TypeError: cart.items.map is not a function" in line
    assert "src/CartList.jsx" in line and "object keyed by id" in line
    assert "sk_live" not in reason
    session.fire(
        {"session_id": "abc123", "hook_event_name": "UserPromptSubmit",
         "prompt": "When I open the cart I still get an error, can you look?"}
    )  # fmt: skip
    session.fire(
        {"session_id": "abc123", "hook_event_name": "PostToolUse", "tool_name": "Edit",
         "tool_input": {"file_path": path, "old_string": "a", "new_string": "b"},
         "tool_response": {"filePath": path, "success": True}}
    )  # fmt: skip
    assert session.stop(message="I changed the cart list.") == ""
