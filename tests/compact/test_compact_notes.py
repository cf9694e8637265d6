"""Mid-turn assistant notes (`kind: note`, see docs/compaction.md): the explanation of an
episode and a source of decisions, root causes and environment facts, with the same bar
against narration as closing messages; never the session's status."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from compact_helpers import Writer, edit, obs, prompt, run_cmd, said
from test_compact_carry import PORT_FAILURE, mem_compact
from test_compact_rules import summary_of

from memcli import api
from memcli.compact import compact_session


def note(text: str, session: str = "s1") -> dict[str, Any]:
    """A buffer line as the `midturn` branch writes it: a conclusion's fields, kind note."""
    first = text.splitlines()[0]
    return obs("note", session, event="Stop", excerpt=text, summary=f"note: {first}"[:200])


def test_the_note_after_the_fix_explains_the_episode(
    repo: Path, memory: api.Memory, write_buffer: Writer
) -> None:
    cause = note(
        "Found it: the root cause is that tests/conftest.py hard-codes port 5433 while the "
        "local Postgres listens on 5432."
    )
    name = write_buffer([
        prompt("The order tests fail, find out why"),
        run_cmd("pytest tests/test_orders.py -x", PORT_FAILURE, False),
        note("Let me look at the test configuration."),
        edit("tests/conftest.py"),
        cause,
        run_cmd("pytest tests/test_orders.py -x", "12 passed in 1.02s", True),
        said("Done: the order tests pass."),
    ])  # fmt: skip
    mem_compact(repo, name)
    items = memory.items()
    assert len(items) == 1, [i.title for i in items]  # the cause is not a second item
    pitfall = items[0]
    assert pitfall.kind == "pitfall" and pitfall.confidence == "verified"
    assert "root cause" in pitfall.title and "5433" in pitfall.title
    assert cause["raw"] in {e.get("ref") for e in pitfall.evidence}


def test_a_guess_or_narration_in_a_note_never_explains(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        run_cmd("pytest tests/test_orders.py -x", PORT_FAILURE, False),
        note("This might be because tests/conftest.py uses port 5433."),
        note("I've updated tests/conftest.py to read the port from the environment."),
        edit("tests/conftest.py"),
        run_cmd("pytest tests/test_orders.py -x", "12 passed in 1.02s", True),
    ])  # fmt: skip
    compact_session(memory, name)
    (item,) = memory.items()
    assert item.title.startswith("`pytest tests/test_orders.py -x` fails with")
    assert "might" not in item.body and "updated" not in item.body


def test_notes_give_decisions_causes_and_environment_facts(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        prompt("Add caching to the price lookup"),
        note("I chose an LRU cache in src/prices.py instead of Redis because the lookups are "
             "per process and Redis would add a service to run."),
        note("The staging database listens on port 6543, not the default 5432."),
        note("The wrong totals were caused by `round()` in src/tax.py using banker's rounding."),
        edit("src/prices.py"),
        said("Caching is in place."),
    ])  # fmt: skip
    compact_session(memory, name)
    kinds = sorted((i.kind, i.title) for i in memory.items())
    assert [k for k, _ in kinds] == ["decision", "env", "pitfall"], kinds
    assert all(i.source.get("compactor") == "rules" for i in memory.items())


def test_notes_that_narrate_guess_or_restate_a_command_are_not_lessons(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        prompt("Check the build"),
        run_cmd("npm run build --workspace web", "built in 2.1s", True),
        note("Let me check the build configuration because the output looks odd."),
        note("Run `npm run build --workspace web` instead."),
        note("The slowdown is probably caused by the `sourcemap` option in vite.config.ts."),
        note("Now I'll switch to the web folder since the build lives there."),
        edit("web/vite.config.ts"),
        said("The build works."),
    ])  # fmt: skip
    compact_session(memory, name)
    assert memory.items() == []


def test_a_note_never_sets_the_session_status(memory: api.Memory, write_buffer: Writer) -> None:
    name = write_buffer([
        prompt("Make the order tests pass"),
        edit("tests/conftest.py"),
        run_cmd("pytest tests/test_orders.py -x", PORT_FAILURE, False),
        note("All fixed: everything passes now."),
    ])  # fmt: skip
    compact_session(memory, name)
    summary = summary_of(memory, name)
    assert summary["status"] == "unfinished"
    assert "All fixed" not in str(summary.get("outcome"))

    other = write_buffer([
        prompt("Look at the docs", "s2"),
        note("The docs are complete and everything is done.", "s2"),
    ])  # fmt: skip
    compact_session(memory, other)
    assert summary_of(memory, other)["status"] == "no outcome"


@pytest.mark.parametrize("hook_order", [False, True], ids=["in place", "at the turn's end"])
def test_the_diagnosis_after_the_last_failure_explains_in_its_own_words(
    memory: api.Memory, write_buffer: Writer, hook_order: bool
) -> None:
    rejected = "remote: error: GH013: Repository rule violations found for refs/heads/x."
    guess = note("The issue was in one test file, so I replaced the token-like strings there.")
    found = note("The issue is that the old commit `ffe9ab78` still has the problematic data.")
    name = write_buffer([
        run_cmd("git push -u origin x", rejected, False),
        *([] if hook_order else [guess]),
        edit("tests/test_redaction.py"),
        run_cmd("git commit -am 'fake tokens'", "[x 1a2b3c4] fake tokens", True),
        run_cmd("git push -u origin x", rejected, False),
        *([] if hook_order else [found]),
        run_cmd("git reset --soft HEAD~2", "", True),
        run_cmd("git commit -m 'squashed'", "[x 9f8e7d6] squashed", True),
        run_cmd("git push -u origin x", "To github.com:acme/shop.git", True),
        *([guess, found] if hook_order else []),  # hooks write a turn's notes at its end
        said("Pushed."),
    ])  # fmt: skip
    compact_session(memory, name)
    (item,) = memory.items()
    assert item.title == found["excerpt"].rstrip(".")
    assert "GH013" in item.body and item.confidence == "verified"


def test_hypothetical_advice_is_no_decision(memory: api.Memory, write_buffer: Writer) -> None:
    name = write_buffer([
        prompt("Why does brew say it is up to date?"),
        said("If it's installed as a Homebrew Cask, you'd need `brew upgrade --cask` instead "
             "of just `brew upgrade`."),
        note("The banner is wrong because the cask version 2.1.9 isn't the latest release."),
    ])  # fmt: skip
    compact_session(memory, name)
    assert [i.kind for i in memory.items()] == ["pitfall"]


def test_a_long_decision_keeps_every_word_in_its_body(
    memory: api.Memory, write_buffer: Writer
) -> None:
    decision = (
        "Rather than threading `SessionAgents` through every caller of the resume command and "
        "each of its helpers in the strategy package, I made `GetSessionInfo` look up the "
        "agent of each session and return the agent type with it, so callers can print the "
        "correct resume command for every agent"
    )
    name = write_buffer([prompt("Fix the resume command for Gemini sessions"),
                         edit("cmd/resume.go"), said(decision + ".")])  # fmt: skip
    compact_session(memory, name)
    [item] = [i for i in memory.items() if i.kind == "decision"]
    assert item.title.endswith("…") and len(item.title) <= 200
    assert "callers can print the correct resume command for every agent." in item.body
