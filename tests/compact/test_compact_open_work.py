"""Open work a session's last message states: found by :mod:`memcli.compact.open_work`, kept
as the session's task of open work, retired when a later batch ends with nothing open."""

from __future__ import annotations

from compact_helpers import Writer, edit, prompt, run_cmd, said
from hypothesis import given
from hypothesis import strategies as st

from memcli import api
from memcli.compact import compact_session, open_work

REMAINING = """Good progress: the parser and the printer are ported.

**Completed:**
- WP1: `parser.ts` moved onto `Session`
- WP2: `printer.ts`

**Remaining:**
- WP3: port `InteractiveMode` onto `Session`
- [x] WP4: tests for the printer
- WP5: delete `old-main.ts`

Would you like me to continue with WP3, or test the current changes first?"""


def test_a_list_under_a_heading_of_what_is_left_is_open_work() -> None:
    found = open_work.statements(REMAINING)
    assert found == [
        "Remaining: WP3: port `InteractiveMode` onto `Session`",
        "Remaining: WP5: delete `old-main.ts`",  # a ticked item is done
        "Offered at the end, not done: Would you like me to continue with WP3, or test the "
        "current changes first?",
    ]


def test_sentences_saying_a_thing_is_not_done_yet_are_open_work() -> None:
    message = (
        "The fix is in `src/git_ops.go`; the new test passes.\n"
        "Both files are not committed yet, so review them first. "
        "Your branch has diverged from `origin/main` by 3 commits.\n"
        "```sh\ngit push  # not pushed yet\n```"
    )
    assert open_work.statements(message) == [
        "Both files are not committed yet, so review them first.",
        "Your branch has diverged from `origin/main` by 3 commits.",
    ]


def test_changes_handed_over_uncommitted_are_open_work() -> None:
    assert open_work.statements(
        "MSI support is fully removed; the working tree is ready for you to review and commit."
    ) == ["the working tree is ready for you to review and commit."]
    landed = "It won't commit anything: the changes will land uncommitted in your working tree."
    assert open_work.statements(landed) == [landed]
    assert open_work.statements("Committed and pushed. Ready to commit more if you want.") == []


def test_a_finished_message_states_no_open_work() -> None:
    message = (
        "Fixed. The cause: `jobs` runs in a subshell, so the job table never flushes.\n\n"
        "## Summary\n- Counted only live jobs\n- Tests pass\n\n"
        "Let me know if anything else comes up. What else would you like me to do?"
    )
    assert open_work.statements(message) == []


def test_narration_is_no_open_work() -> None:
    assert open_work.statements("Let me check: the TUI changes were never committed.") == []


@given(st.text(max_size=400))
def test_any_text_gives_at_most_a_few_one_line_statements(message: str) -> None:
    found = open_work.statements(message)
    assert len(found) <= open_work.MAX_STATEMENTS
    assert all(s and "\n" not in s for s in found)


def test_the_last_message_s_open_work_becomes_a_task(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer(
        [
            prompt("Port the CLI onto the Session class"),
            edit("src/parser.ts"),
            run_cmd("npm test", "12 passing", True),
            said(REMAINING),
        ]
    )
    compact_session(memory, name)
    [task] = [i for i in memory.items() if i.kind == "task"]
    assert task.title.startswith("Unfinished, as the session's last message says: Remaining: WP3")
    assert "- Remaining: WP5: delete `old-main.ts`" in task.body
    assert "Goal: Port the CLI onto the Session class" in task.body
    assert task.expires  # open work is not memory for ever


def test_open_work_said_before_the_last_prompt_is_no_task(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer(
        [
            prompt("Port the CLI onto the Session class"),
            edit("src/parser.ts"),
            said(REMAINING),
            prompt("go on with WP3"),
            edit("src/interactive.ts"),
        ]
    )
    compact_session(memory, name)
    assert [i for i in memory.items() if i.kind == "task"] == []


def test_a_later_batch_ending_with_nothing_open_retires_the_task(
    memory: api.Memory, write_buffer: Writer
) -> None:
    first = [prompt("Port the CLI onto the Session class"), edit("src/parser.ts"), said(REMAINING)]
    name = write_buffer(first)
    compact_session(memory, name)
    assert [i.kind for i in memory.items()].count("task") == 1
    later = [prompt("go on with WP3"), edit("src/interactive.ts"), said("All five are done.")]
    write_buffer([*first, *later])
    compact_session(memory, name)
    assert [i for i in memory.items() if i.kind == "task"] == []
