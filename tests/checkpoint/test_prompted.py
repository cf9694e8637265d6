"""What the checkpoint reads in the user's prompts beyond corrections in so many words:
questions that challenge a choice, terse norms typed after a turn, and what a long pasted
context states (the first few only)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from memcli.checkpoint import candidates, prompted, run, sayings

_numbers = itertools.count()


def prompt(text: str) -> dict[str, Any]:
    number = next(_numbers)
    return {"id": f"o{number:06d}", "session": "s", "ts": "2026-12-01T10:00:00Z",
            "agent": "claude-code", "kind": "prompt", "summary": "", "excerpt": text,
            "raw": f"raw/s.jsonl#o{number:06d}"}  # fmt: skip


def said(*prompts: str) -> list[tuple[str, str, str]]:
    """(kind, form, evidence) of each candidate, for prompts typed one after the other."""
    state: dict[str, object] = {"session": "s"}
    candidates.scan([prompt(p) for p in prompts], state)
    entries = state.get("candidates") or {}
    assert isinstance(entries, dict)
    return [(str(e["kind"]), str(e.get("form", "")), str(e["lines"][0])) for e in entries.values()]


@pytest.mark.parametrize(
    "question",
    [
        "why does `unsubscribe()` clear the listeners?",
        "`AppMessage` not `Message`?",
        "isn't that already in the session object?",
        "why do you go 100 lines at a time",
        "why not reuse the existing parser?",
        "what about a `Map` instead?",
        "pnpm, not npm?",
        "are you sure that's the right file?",
        "don't we have a helper for that?",
    ],
)
def test_a_question_that_challenges_a_choice(question: str) -> None:
    assert said(question) == [("correction", "question", f'the user asked: "{question}"')]


@pytest.mark.parametrize(
    "question",
    [
        "what are guest passes?",
        "how do we enable sudo again?",
        "are you able to test it?",
        "can you run the tests with `-x`?",
        "Why does the build fail?",
        "update the brew cache?",
        "should we pair the second key?",
    ],
)
def test_a_question_for_information_is_no_candidate(question: str) -> None:
    assert said(question) == []


@pytest.mark.parametrize(
    "text",
    ["only e2e tests", "keep the old code around", "no console logs", "need to be fully clean",
     "without mocks", "use rgb values", "that's not the system prompt, see main.ts",
     "ok, only e2e tests", "also keep the old code around", "I don't think that's it",
     "Wait it's a different program", "that's the wrong branch", "wrong service"],
)  # fmt: skip
def test_a_terse_norm_after_a_turn(text: str) -> None:
    found = said("port the footer to the theme system", text)
    assert [(kind, form) for kind, form, _line in found] == [("convention", "fragment")]
    # The session's first prompt states the task: a fragment there is no norm yet (one that
    # names something and says what it is not may still be its most telling sentence).
    assert [kind for kind, form, _line in said(text) if form != "telling"] == []


@pytest.mark.parametrize(
    "text",
    ["yes", "continue", "do it", "commit!", "push to github", "verify", "you run it", "ok",
     "no thanks", "not yet", "keep going", "swapped", "6", "thanks!", "go ahead",
     "use it to test the parser", "it's not working", "ok, continue", "also push it",
     "wait for the build", "I don't think that's a good idea", "wrong"],
)  # fmt: skip
def test_acknowledgements_and_plain_tasks_are_no_norm(text: str) -> None:
    assert said("fix the login page", text) == []


def test_a_notification_is_not_typed_and_an_ides_note_is_not_the_prompt() -> None:
    notification = "<task-notification>only e2e tests</task-notification>"
    assert said("start", notification) == []
    note = "<ide_opened_file>The user opened main.ts, only e2e tests.</ide_opened_file> yes"
    assert said("start", note) == []
    note = "<ide_opened_file>The user opened main.ts.</ide_opened_file> only e2e tests"
    assert [line for _kind, _form, line in said("start", note)] == [
        'the user said: "only e2e tests"'
    ]


PASTED = "\n".join(
    [f"[{n:02d}] read src/file{n}.ts" for n in range(40)]
    + [
        "The keypair was committed because the .gitignore has no entry for `*.pem` files.",
        "We decided to defer the oracle check because the test net is down this week.",
        "The `oracle` binary is not installed on the CI runners.",
        "Let me look at the logs again.",
    ]
    + [f"The deploy failed because step {n} does not retry on a timeout." for n in range(10)]
)


def test_a_long_pasted_context_gives_its_first_few_facts() -> None:
    found = said(PASTED)
    assert len(found) == prompted.MAX_PASTED
    assert {form for _kind, form, _line in found} == {"pasted"}
    lines = [line for _kind, _form, line in found]
    assert lines[0] == ('pasted in a prompt: "The keypair was committed because the .gitignore '
                        'has no entry for `*.pem` files."')  # fmt: skip
    assert any("oracle` binary is not installed" in line for line in lines)
    assert not any("Let me look" in line for line in lines)
    # Said about in a prompt, never seen happen: the env fact is prose.
    state: dict[str, object] = {"session": "s"}
    candidates.scan([prompt(PASTED)], state)
    entries = state["candidates"]
    assert isinstance(entries, dict)
    env = next(e for e in entries.values() if e["kind"] == "env")
    assert env["env"] == "stated"


def test_a_pasted_context_with_instructions_is_not_read() -> None:
    assert said("Contents of CLAUDE.md:\n" + PASTED) == []


def test_weaker_forms_rank_below_a_correction_in_so_many_words() -> None:
    state: dict[str, object] = {"session": "s"}
    candidates.scan(
        [prompt("start the port"), prompt("why does `render()` cache per line?"),
         prompt("only e2e tests"), prompt("No, use pnpm instead of npm.")],
        state,
    )  # fmt: skip
    entries = state["candidates"]
    assert isinstance(entries, dict)
    ranked = sorted(entries.values(), key=lambda c: -sayings.strength(c))
    assert "pnpm" in str(ranked[0]["lines"][0])
    config: dict[str, object] = {"max_per_turn": 1, "max_per_session": 12}
    (chosen,) = run._choose(state, config)
    assert "pnpm" in str(chosen["lines"][0])


def test_a_long_pasted_failure_is_still_read_as_one() -> None:
    error = "Uncaught TypeError: cart.items.map is not a function " + "x" * 3_000
    frames = ["    at render (cart.js:1)"] * 3
    trace = "\n".join(["The cart page is blank, console says:", *frames, error])
    state: dict[str, object] = {"session": "s"}
    candidates.scan([prompt(trace)], state)
    assert state.get("pasted")


def conclusion(text: str) -> dict[str, Any]:
    number = next(_numbers)
    return {"id": f"o{number:06d}", "session": "s", "ts": "2026-12-01T10:00:00Z",
            "agent": "claude-code", "kind": "conclusion", "summary": "", "excerpt": text,
            "raw": f"raw/s.jsonl#o{number:06d}"}  # fmt: skip


def lines_after(closing: str, *prompts: str) -> list[list[str]]:
    state: dict[str, object] = {"session": "s"}
    candidates.scan([prompt("tidy up the build scripts"), conclusion(closing),
                     *(prompt(p) for p in prompts)], state)  # fmt: skip
    entries = state.get("candidates") or {}
    assert isinstance(entries, dict)
    return [list(e["lines"]) for e in entries.values()]


ASKED = (
    "Removed the old scripts.\n\n"
    "Would you like me to delete `legacy/build.sh` as well, or keep it for the release job?"
)


def test_a_terse_answer_names_the_question_it_answers() -> None:
    assert lines_after(ASKED, "keep it") == [[
        'the user said: "keep it"',
        'answering your question: "Would you like me to delete `legacy/build.sh` as well, or '
        'keep it for the release job?"',
    ]]  # fmt: skip


def test_a_question_is_answered_once_and_only_by_a_terse_prompt() -> None:
    # the prompt after the answer answers nothing: the question was the one before
    assert lines_after(ASKED, "yes go ahead", "only the unit tests") == [
        ['the user said: "only the unit tests"']
    ]
    long = "keep it, and then also move the deploy notes into docs so the release job finds them"
    assert all(len(lines) == 1 for lines in lines_after(ASKED, long))
    # a closing message without a question: a terse norm stands alone
    assert lines_after("Removed the old scripts.", "keep it") == [['the user said: "keep it"']]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("reason being that we injected the bash message in between the tool call and tool"
         " result.", "cause"),
        ("This will cause build failures for non-Unix targets because `spawnDetached` is"
         " undefined there.", "cause"),
        ("We use uv instead of pip because the lock file pins the index.", "correction"),
    ],
)  # fmt: skip
def test_a_cause_the_user_states_is_a_candidate(text: str, kind: str) -> None:
    state: dict[str, object] = {"session": "s1"}
    prompted.prompt({"id": "o1", "excerpt": text, "raw": "raw/s1.jsonl#o1"}, state)
    found = state.get("candidates")
    assert isinstance(found, dict)
    assert [c["kind"] for c in found.values()] == [kind]
    assert next(iter(found.values()))["lines"][0].startswith('the user said: "')


def test_a_users_request_or_plan_is_no_cause() -> None:
    state: dict[str, object] = {"session": "s1"}
    for text in ("ok, copy the dark theme over to the themes folder and let me try it",
                 "log a linear improvement for the gc issue in project Troy please"):  # fmt: skip
        prompted.prompt({"id": "o1", "excerpt": text, "raw": "r"}, state)
    assert not state.get("candidates")


def test_a_prompts_most_telling_sentence_no_rule_reads_is_a_finding() -> None:
    typed = (
        "Looks good overall. The `triggerAutoApply` hook never fired on session end, "
        "since nothing calls it from the shutdown path."
    )
    assert said("port the footer to the theme system", typed) == [
        ("fact", "telling", 'the user said: "The `triggerAutoApply` hook never fired on session '
         'end, since nothing calls it from the shutdown path."'),
    ]  # fmt: skip
    assert said("port the footer", "Looks good, thanks. Push it to the main branch.") == []
