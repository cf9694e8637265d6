"""What the checkpoint reads in the assistant's words (closing message and mid-turn notes):
causes, decisions, findings and environment facts, and how it ranks them when a turn holds
more than a request may name."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memcli import statements
from memcli.checkpoint import run, sayings
from tests.conftest import examples


def found(text: str) -> list[tuple[str, str]]:
    state: dict[str, object] = {"session": "s"}
    sayings.note(text, state, None)
    entries = state.get("candidates") or {}
    assert isinstance(entries, dict)
    return [(str(e["kind"]), str(e["lines"][0])) for e in entries.values()]


@pytest.mark.parametrize(
    "text",
    [
        "The `libpq` headers are not installed in this container image.",
        "The migrations require Node 20 or newer on this machine.",
        "The e2e suite must be run from the repository root with the dev server up.",
        "Port 5432 is already in use by a local Postgres service.",
        "There is no network access inside the sandbox, so downloads fail here.",
        "The environment variable DATABASE_URL must be set before the tests start.",
    ],
)
def test_environment_facts_said_in_a_sentence(text: str) -> None:
    assert [kind for kind, _line in found(text)] == ["env"]


@pytest.mark.parametrize(
    "text",
    [
        "I see the config loader doesn't read the user-level file at all.",
        "It turns out the cache key never includes the locale.",
        "Apparently the CLI only accepts absolute paths for --output.",
        "I wrote the file by hand since the generator cannot handle nested enums.",
        "This is a **known upstream bug** in the date parser.",
    ],
)
def test_findings_and_causes(text: str) -> None:
    assert [kind for kind, _line in found(text)] == ["cause"]
    assert "**" not in found(text)[0][1]


@pytest.mark.parametrize(
    "text",
    [
        "The E2E failure is a wrong CSS selector: `share-dialog.page.ts` looks for `.modal`.",
        "The `orders` job is missing `max_len=768`, which caused the KV cache OOM we hit.",
        "No, the worktree location under `.worktrees/1` isn't the cause.",
        "The `SIWE flow result: null` lines are expected noise from the wallet test.",
        "AirPods issue: `AudioRecorder` creates an engine but never observes device changes.",
        "The staticcheck linter doesn't recognize that `t.Fatal` terminates execution.",
        "That's the issue \u2014 the commit we pushed wasn't created through the hook's system.",
        "The console logs in `render()` were causing the rendering artifacts.",
        "The 404s are just IPNS record lookups for new accounts \u2014 expected.",
        "The `DeprecationWarning` about `collections.abc` comes from urllib3, which is normal.",
    ],
)
def test_causes_said_in_other_words(text: str) -> None:
    assert [kind for kind, _line in found(text)] == ["cause"]


@pytest.mark.parametrize(
    "text",
    [
        "The 4 failures are all pre-existing: integration tests needing a live Daytona sandbox.",
        "The `test_raises` failure is unrelated to my changes, it uses the old string form.",
        "The remaining test failure already fails on main without my change applied.",
    ],
)
def test_failures_that_are_not_the_sessions_are_environment_facts(text: str) -> None:
    assert [kind for kind, _line in found(text)] == ["env"]


@pytest.mark.parametrize(
    "text",
    [
        "The crash is specifically in `test_gpu_tensor_memory` under the GPU suite.",
        "Let me check the error handling in the parser module now.",
        "The error message now names the file and the line that failed.",
        "All 12 tests pass and the output of `make docs` looks as expected.",
        "This step is expected to take about 5 minutes on the CI runner.",
        "Let me check whether the timeout is causing the failure in `auth.spec.ts`.",
    ],
)
def test_naming_a_failure_is_no_cause(text: str) -> None:
    assert found(text) == []


def test_a_quoted_environment_failure_is_read_as_output_would_be() -> None:
    text = 'The deploy step failed with "Could not resolve host: registry.internal" again.'
    assert [kind for kind, _line in found(text)] == ["env"]
    assert found('The function returned "hello world" as expected by the caller.') == []


@pytest.mark.parametrize(
    "text",
    [
        "Let me check whether the package is installed.",
        "I see the output now, the tests look fine to me.",
        "Now I'll run the build again since the last change.",
        "I'll read the test file first.",
        "The file has been successfully updated with the new settings.",
    ],
)
def test_narration_is_no_candidate(text: str) -> None:
    assert found(text) == []


def candidate(kind: str, line: str, **extra: object) -> dict[str, object]:
    return {"id": line, "kind": kind, "lines": [line], **extra}


def test_the_strongest_come_first() -> None:
    weak = candidate("cause", 'you said: "It failed because the flag was wrong here."')
    stated = candidate("cause", 'you said: "The root cause was a stale lock in `db/lock.py`."')
    choice = candidate(
        "decision", 'you said: "Chose SQLite over Postgres because the tests run offline."'
    )
    plain = candidate("decision", 'you said: "We switched the loader since it was slow."')
    said_env = candidate("env", 'you said: "git is not installed"', env="stated")
    seen_env = candidate("env", "`make` failed: make: command not found", env="missing-tool")
    assert sayings.strength(stated) > sayings.strength(weak)
    assert sayings.strength(choice) > sayings.strength(plain)
    assert sayings.strength(seen_env) > sayings.strength(said_env)
    state: dict[str, object] = {
        "candidates": {c["id"]: c for c in (weak, plain, stated, choice, said_env, seen_env)}
    }
    config: dict[str, object] = {"max_per_turn": 4, "max_per_session": 12}
    chosen = run._choose(state, config)
    # What happened first (by kind); of what was said the three strongest, whatever their
    # kind: the stated cause and the choice with its reason before the environment fact
    # only said (and before the weak cause and the plain decision, left out).
    assert [c["id"] for c in chosen] == [seen_env["id"], said_env["id"], stated["id"], choice["id"]]


def test_a_text_that_can_state_nothing_is_not_masked() -> None:
    assert not sayings.may_state_fact("Let me run the tests and look at the output.")
    assert sayings.may_state_fact("It turns out the lock is never released.")
    assert sayings.may_state_fact('It failed with "Permission denied" on the socket.')


def test_a_decision_said_mid_turn_needs_its_reason() -> None:
    plan = "The list now renders with a table instead of nested divs."
    assert found(plan) == []  # a plan, in a note
    state: dict[str, object] = {"session": "s"}
    sayings.message(plan, state, None)  # the closing message keeps the old bar
    assert state.get("candidates")
    reasoned = "The list uses a table instead of nested divs because screen readers announce rows."
    assert [kind for kind, _line in found(reasoned)] == ["decision"]
    no_choice = "Since the API has no batch call, the sync uses one request per page."
    assert [kind for kind, _line in found(no_choice)] == ["decision"]


def test_what_was_said_and_what_happened_share_the_caps() -> None:
    notes = [candidate("cause", f"finding {n}", origin="note") for n in range(10)]
    failing = candidate("unresolved", "`pytest` still fails at the end of the turn")
    config: dict[str, object] = {"max_per_turn": 5, "max_per_session": 12}
    # 8 said already: the last third of the session is reserved for what happened.
    state: dict[str, object] = {"candidates": {c["id"]: c for c in [*notes, failing]},
                                "asked": [f"finding {n}" for n in range(8)]}  # fmt: skip
    assert [c["id"] for c in run._choose(state, config)] == [failing["id"]]
    # Early in a session a request is shared: the failing check and prose, strongest first.
    state["asked"] = []
    chosen = [c["id"] for c in run._choose(state, config)]
    assert failing["id"] in chosen and len(chosen) == 5
    # With nothing that happened, prose fills the request.
    del state["candidates"][failing["id"]]  # type: ignore[attr-defined]
    assert len(run._choose(state, config)) == 5


def test_a_note_is_masked_sentence_by_sentence_and_only_what_is_kept() -> None:
    from memcli.privacy.redactor import Redactor

    masked: list[str] = []

    def mask(sentence: str) -> str:
        masked.append(sentence)
        return Redactor().mask(sentence)

    state: dict[str, object] = {"session": "s"}
    text = (
        "Let me look at the deploy script first. The deploy fails because the token "
        "ghp_16C7e42F292c6912E7710c838347Ae178B4a expired in the CI secrets. "
        "The build is caused by a stale lock in `db/lock.py` on every run."
    )
    sayings.note(text, state, None, mask)
    entries = state["candidates"]
    assert isinstance(entries, dict) and len(entries) == 2 and len(masked) == 2
    kept = " ".join(str(e["lines"][0]) for e in entries.values())
    assert "ghp_" not in kept and "[REDACTED]" in kept and "Let me look" not in kept
    # Read again (the next turn): the sentence without a secret is known without masking;
    # the one with a secret is masked again, and its masked id finds the same candidate.
    masked.clear()
    state.pop("_seen")
    sayings.note(text, state, None, mask)
    assert len(entries) == 2 and len(masked) == 1 and "ghp_" in masked[0]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("The theme cache now keys on the theme name; the old cache ignored theme changes.",
         "cause"),
        ("`render()` used to re-measure every line on each frame.", "cause"),
        ("The loader cached by path, which meant theme changes were ignored until restart.",
         "cause"),
        ("Previously, every keystroke triggered a full re-render of the editor.", "cause"),
        ("Without the lock, two writers interleave their lines in the buffer.", "decision"),
        ("The list was slow to render, so now it renders only the visible rows.", "decision"),
        ("The footer flickered because each render re-measured the width.", "cause"),
    ],
)  # fmt: skip
def test_a_change_explained_by_what_it_replaced(text: str, kind: str) -> None:
    assert [k for k, _line in found(text)] == [kind]
    state: dict[str, object] = {"session": "s"}
    sayings.message(text, state, None)  # the closing message reads it the same way
    assert [e["kind"] for e in state["candidates"].values()] == [kind]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "text",
    [
        "The old implementation is still in the file for reference.",
        "Let me look at the old code first before changing it.",
        "I kept the old code around in main-new.ts for now.",
        "The new footer shows the token count and the model name.",
    ],
)
def test_what_only_mentions_the_old_code_is_no_candidate(text: str) -> None:
    assert found(text) == []


def test_findings_take_a_few_places_and_never_a_later_turns_lesson() -> None:
    said = 'you said: "`x.py` reads `y.json`."'
    findings = [candidate("fact", f"{said} {n}", form="finding") for n in range(12)]
    config: dict[str, object] = {"max_per_turn": 8, "max_per_session": 16}
    state: dict[str, object] = {"candidates": {c["id"]: c for c in findings}, "asked": []}
    first = run._choose(state, config)
    assert len(first) == 4  # at most 4 a request, whatever room is left
    state["asked"] = [c["id"] for c in first]
    second = run._choose(state, config)
    assert len(second) == 4
    state["asked"] = [*state["asked"], *(c["id"] for c in second)]  # type: ignore[misc]
    assert run._choose(state, config) == []  # half the session's cap: 8
    # A later turn's cause is still asked about, and before any finding.
    cause = candidate("cause", 'you said: "The root cause was a stale lock in `db.py`."')
    state["candidates"][cause["id"]] = cause  # type: ignore[index]
    assert [c["id"] for c in run._choose(state, config)] == [cause["id"]]


def test_the_weakest_said_take_two_places_early_and_none_once_a_third_is_used() -> None:
    questions = [
        candidate("correction", f'the user asked: "why would we track this {n}?"', form="question")
        for n in range(5)
    ]
    cause = candidate("cause", 'you said: "The root cause was a stale lock in `db.py`."')
    assert all(sayings.strength(q) == 0 for q in questions) and sayings.strength(cause) > 0
    config: dict[str, object] = {"max_per_turn": 8, "max_per_session": 24}
    state: dict[str, object] = {"candidates": {c["id"]: c for c in questions}, "asked": []}
    first = [c["id"] for c in run._choose(state, config)]
    assert first == [questions[0]["id"], questions[1]["id"]]  # 2 a request, in order seen
    # Once a third of the session's cap is used, only stronger evidence is asked about: the
    # room stays for a later turn's lesson.
    state["asked"] = [*first, *(f"earlier {n}" for n in range(6))]
    assert run._choose(state, config) == []
    state["candidates"][cause["id"]] = cause  # type: ignore[index]
    assert [c["id"] for c in run._choose(state, config)] == [cause["id"]]


_PIECES = [*"abc 12.`_/-", "because ", "turns out ", " from ", "cause ", "instead of ",
           "install ", "Error ", "old ", "fooBar ", "\u00e9", "**"]  # fmt: skip


@given(st.lists(st.sampled_from(_PIECES), max_size=25).map("".join))
@settings(max_examples=examples(0.5))
def test_the_gate_on_what_was_said_answers_as_its_parts_in_their_first_order(text: str) -> None:
    """may_state_fact asks its cheapest parts first; the answer is the one they give in any
    order (each is a pure test)."""
    expected = sayings._may_state_lesson(text) or statements.may_state(text)
    assert sayings.may_state_fact(text) is expected


def test_an_abbreviation_goes_on_with_its_sentence() -> None:
    said = "The cause: `jobs` runs in a command substitution, i.e. a subshell, so it sees no jobs."
    assert sayings.sentences(said + " Then I fixed it.") == [said, "Then I fixed it."]
    assert sayings.sentences("Use a linter (e.g. ruff) here. Done") == [
        "Use a linter (e.g. ruff) here.",
        "Done",
    ]
