"""The closing message's most telling sentence: concrete, with a reason or a limit."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memcli.checkpoint import salient, sayings
from memcli.checkpoint.sayings import sentences


@pytest.mark.parametrize(
    "sentence",
    [
        "The API key and endpoint are visible in `ps` output since they're passed as argv.",
        "`unsubscribeAll()` should only disconnect from the agent, not clear the listeners.",
        "Even `ds.z.copy()` (without deep=True) changes the dtype to `object`.",
        "When `invalidate()` is called, it clears the cached output, but the theme doesn't change.",
    ],
)
def test_a_concrete_sentence_with_a_reason_or_a_limit_is_telling(sentence: str) -> None:
    message = f"Done, the change is in place.\n\n{sentence}\n\nAll tests pass now."
    assert salient.most_telling(sentences(message)) == sentence


@pytest.mark.parametrize(
    "sentence",
    [
        "I need to inspect `filter_members` to see how it checks the option, not guess.",
        "Let me check `auth.py` since it is likely where the logic is, not elsewhere.",
        "Now update `wingman.md` because the trigger is not there anymore.",
        "| `LoadEntireSettings()` | merged, not only the project file |",
        "Is `tokensAfter` not stored because nobody reads it?",
        "The tests pass because everything works fine now.",  # no name: one mark
        "Updated `README.md` with the new installation steps.",  # a name, nothing else
        "The list now renders with a table instead of nested divs.",  # "instead": one mark
    ],
)
def test_plans_table_rows_questions_and_one_mark_are_not(sentence: str) -> None:
    assert salient.most_telling([sentence]) == ""


def test_the_sentence_with_more_marks_wins_then_the_first() -> None:
    two = "The cache in `store.py` is not flushed on exit."
    three = "The cache in `store.py` is not flushed on exit because `atexit` never runs."
    assert salient.most_telling([two, three]) == three
    assert salient.most_telling([two, two.replace("cache", "index")]) == two


def test_a_closing_message_makes_its_telling_sentence_a_finding() -> None:
    state: dict[str, object] = {"session": "s1"}
    text = (
        "Fixed the flaky test.\n\n"
        "When `invalidate()` is called, it clears the cached output, but the theme doesn't change."
    )
    sayings.message(text, state, None)
    found = [c for c in state["candidates"].values()]  # type: ignore[attr-defined]
    assert [(c["kind"], c.get("form")) for c in found] == [("fact", "telling")]
    assert "invalidate()" in found[0]["lines"][0]


def test_a_closing_message_gives_its_two_most_telling_sentences_a_note_one() -> None:
    text = (
        "Fixed it.\n\n`unsubscribeAll()` should only disconnect from the agent, not clear the "
        "listeners.\n\nEven `ds.z.copy()` (without deep=True) changes the dtype to `object`.\n\n"
        "When `invalidate()` is called, it clears the cached output, but the theme doesn't change."
    )
    closing: dict[str, object] = {"session": "s1"}
    sayings.message(text, closing, None)

    def telling(state: dict[str, object]) -> list[str]:
        found = state["candidates"].values()  # type: ignore[attr-defined]
        return [c["lines"][0] for c in found if c.get("form") == "telling"]

    lines = telling(closing)
    assert len(lines) == 2 and "unsubscribeAll" in lines[0] and "ds.z.copy" in lines[1]
    note: dict[str, object] = {"session": "s1"}
    sayings.note(text, note, None)
    assert telling(note) == lines[:1]


def test_a_mid_turn_note_gives_one_too_marked_as_a_note() -> None:
    state: dict[str, object] = {"session": "s1"}
    text = "Good point.\n\nThe API key is visible in `ps` output since it is passed as argv."
    sayings.note(text, state, None)
    found = list(state["candidates"].values())  # type: ignore[attr-defined]
    assert [(c["form"], c["origin"]) for c in found] == [("telling", "note")]
    # the closing message that repeats it asks nothing new
    sayings.message(text, state, None)
    assert len(state["candidates"]) == 1  # type: ignore[arg-type]


def test_a_sentence_a_rule_reads_is_not_asked_twice() -> None:
    state: dict[str, object] = {"session": "s1"}
    cause = "The root cause was that `pool.close()` is never called, so connections leak."
    sayings.message(cause, state, None)
    kinds = sorted(c["kind"] for c in state["candidates"].values())  # type: ignore[attr-defined]
    assert kinds == ["cause"]


@given(st.lists(st.text(max_size=300), max_size=8))
def test_any_text_gives_one_of_its_sentences_or_nothing(parts: list[str]) -> None:
    found = salient.most_telling(parts)
    assert found == "" or found in parts
