"""Conventions and corrections the user states in prompts (memcli/compact/prose.py): shapes of
sentences, not words; a question or a task request is never a convention."""

from __future__ import annotations

from pathlib import Path

import pytest
from compact_helpers import Writer, edit, prompt, run_cmd, said
from test_compact_carry import mem_compact

from memcli import api
from memcli.compact import compact_session

NORMS = [
    "Always run make lint before committing.",
    "never push directly to main",
    "We use ruff, not black.",
    "Use pnpm, not npm.",
    "No, use the fixtures in tests/data instead.",
    "please dont mock the database in these tests",
    "Stop using print for logging.",
    "Migrations should always be reversible.",
    "This project uses tabs for indentation.",
    "Prefer composition over inheritance in the services.",
    "Only use the public API of the payments module.",
    "use `gh` to authenticate",
    "when you scan staged files dont block the commit, instead redact each secret in place",
    "You shouldn't have deleted the old migration.",
    "I said to keep the old endpoint.",
    "remember to resolve any merge issues on your own",
]
NOT_NORMS = [
    "push to github",
    "fix these issues or disable the scan",
    "commit!",
    "Can you always run the linter?",
    "The tests always fail on CI.",
    "Don't forget the changelog entry.",
    "use it to test the parser",
    "read plan.md and roadmap.md",
    "you run it",
    "I edited session-sudo and saved.",
    "Use the debugger to find the bug.",
    "use playwright to test the login page",
    "I don't know why it fails instead of passing.",
    "Why did you use black here?",
    "I remember to check it.",
]


@pytest.mark.parametrize("sentence", NORMS)
def test_a_stated_norm_or_correction_is_a_convention(
    memory: api.Memory, write_buffer: Writer, sentence: str
) -> None:
    name = write_buffer([prompt("Tidy up the payments service"), said("Tidied."),
                         prompt(sentence), said("Understood.")])  # fmt: skip
    compact_session(memory, name)
    items = memory.items()
    assert [i.kind for i in items] == ["convention"], sentence
    assert items[0].title.lower().rstrip(".") == sentence.lower().rstrip(".")


@pytest.mark.parametrize("sentence", NOT_NORMS)
def test_a_task_request_or_a_question_is_not_a_convention(
    memory: api.Memory, write_buffer: Writer, sentence: str
) -> None:
    name = write_buffer([prompt(sentence), said("Done.")])
    compact_session(memory, name)
    assert memory.items() == []


def test_a_norm_with_its_reason_is_a_decision_and_instructions_are_not_restated(
    repo: Path, memory: api.Memory, write_buffer: Writer
) -> None:
    (repo / "CLAUDE.md").write_text("Never push directly to main.\n", encoding="utf-8")
    name = write_buffer([
        prompt("Never push directly to main. Use uv instead of pip because the lock file "
               "pins every dependency."),
        edit("pyproject.toml"),
        run_cmd("uv sync", "Resolved 12 packages", True),
        said("Switched to uv."),
    ])  # fmt: skip
    mem_compact(repo, name)
    items = memory.items()
    assert [(i.kind, i.title.split()[0]) for i in items] == [("decision", "Use")]
    assert "lock file" in items[0].title


def test_a_norm_without_a_corrections_words_is_kept_when_the_assistant_acts_on_it(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        prompt("Port the session runner to the new API"), edit("src/runner.ts"),
        said("Ported."),
        prompt("keep the old runner in `main-old.ts`"), edit("src/main-old.ts"),
        said("Kept."),
        prompt("`AppMessage` not `Message`?"), edit("src/types/AppMessage.ts"),
        said("Renamed."),
    ])  # fmt: skip
    compact_session(memory, name)
    titles = sorted(i.title for i in memory.items() if i.kind == "convention")
    assert titles == ["Keep the old runner in `main-old.ts`", "`AppMessage` not `Message`"]


@pytest.mark.parametrize(
    ("turn", "words"),
    [
        # Nothing done after it, or nothing done that names the thing: no item.
        ([prompt("keep the old runner in `main-old.ts`"), said("Sure.")], "main-old"),
        ([prompt("keep the old runner in `main-old.ts`"), edit("src/other.ts"), said("Done.")],
         "main-old"),
        # Nothing concrete named, or a question that asks why: the checkpoint asks the model.
        ([prompt("only e2e tests"), edit("tests/e2e/login.spec.ts"), said("Done.")], "e2e"),
        ([prompt("why does `unsubscribe()` clear the listeners?"), edit("src/unsubscribe.ts"),
          said("It no longer does.")], "unsubscribe"),
    ],
)  # fmt: skip
def test_a_terse_norm_nobody_acted_on_or_that_names_nothing_is_no_item(
    memory: api.Memory, write_buffer: Writer, turn: list[dict[str, object]], words: str
) -> None:
    name = write_buffer([prompt("Port the session runner"), edit("src/runner.ts"),
                         said("Ported."), *turn])  # fmt: skip
    compact_session(memory, name)
    assert not [i for i in memory.items() if words in i.title.lower()]
