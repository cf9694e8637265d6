"""Norms the checkpoint reads in prompts without "always" or "never": a manner of work asked
for again in a later prompt, a recurring order of work, a longer "use X, not Y" after an
interjection, and a fragment that says what has to be (ranked above other fragments); and
a state put as a question, which is no challenge (memcli/checkpoint/prompted.py,
memcli/redirects.py, memcli/phrasing.py). Synthetic examples: the shapes hold whatever the
words."""

from __future__ import annotations

import pytest
from test_prompted import said

from memcli import phrasing, redirects
from memcli.checkpoint import sayings


def test_a_manner_asked_for_again_is_a_convention() -> None:
    found = said("read src/render.ts in full, then port the footer", "now the header",
                 "ok, read header.ts in full please")  # fmt: skip
    assert [(kind, form) for kind, form, _ in found] == [("convention", "")]
    assert found[0][2] == 'the user asked again: "ok, read header.ts in full please"'


@pytest.mark.parametrize(
    "prompts",
    [
        ["read src/render.ts in full, then port the footer", "now the header"],
        ["read a.ts in full and b.ts in full"],  # one prompt: one task's detail
        ["read the log if you need to (don't read the full file!)", "read b.ts in full"],
    ],
)
def test_a_manner_asked_for_once_is_no_candidate(prompts: list[str]) -> None:
    assert said(*prompts) == []


@pytest.mark.parametrize(
    ("sentence", "how"),
    [
        ("read tui/renderer.ts in full", "read in full"),
        ("please review the migration carefully", "review carefully"),
        ("go through the failing tests one at a time", "go through one at a time"),
        ("read the whole file before you edit it", "read in full"),
        ("the file is fully loaded", ""),
        ("never read the full file", ""),
    ],
)
def test_manner(sentence: str, how: str) -> None:
    assert redirects.manner(sentence) == how


@pytest.mark.parametrize(
    "sentence",
    [
        "I want the branch committed and clean after every step",
        "run the linter before each commit",
        "every time you change the schema, run the migrations",
        "omfg use plain hex values in the palette, no terminal indices!",
        "ugh, use the fixtures, not real data",
    ],
)
def test_a_recurring_order_or_a_longer_use_x_not_y_is_a_norm(sentence: str) -> None:
    assert phrasing.convention(sentence) or phrasing.correction(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "the tests fail every time I run them",
        "I want a summary for each file",
        "whenever we deploy, it breaks",
        "we release after every sprint",
    ],
)
def test_behaviour_and_tasks_are_no_recurring_norm(sentence: str) -> None:
    assert not (phrasing.convention(sentence) or phrasing.correction(sentence))


def test_a_fragment_after_yes_is_a_norm_and_an_obliging_one_ranks_higher() -> None:
    found = said("tidy up the parser", "yes need to be fully clean")
    assert [(kind, form) for kind, form, _ in found] == [("convention", "fragment")]
    obliging = {"kind": "convention", "form": "fragment",
                "lines": ['the user said: "yes need to be fully clean"']}  # fmt: skip
    restricting = {"kind": "convention", "form": "fragment",
                   "lines": ['the user said: "only e2e tests"']}  # fmt: skip
    assert sayings.strength(obliging) > sayings.strength(restricting)


@pytest.mark.parametrize(
    "question", ["userText is not used it seems?", "the footer does not refresh?"]
)
def test_a_state_put_as_a_question_is_no_name_against_a_name(question: str) -> None:
    assert not redirects.name_against_name(question)
    assert not redirects.challenge(question)


def test_typographic_apostrophes_are_read_as_plain_ones() -> None:
    assert sayings.sentences("I\u2019ve added the guard.") == ["I've added the guard."]
