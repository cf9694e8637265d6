"""What a commit message, a closing summary's bullet and a note say without a failing
command: the shapes of :mod:`memcli.statements`, each with the narration it must refuse."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memcli import commit_messages, statements
from tests.conftest import examples


@pytest.mark.parametrize(
    ("command", "lines"),
    [
        (
            "git commit -m \"$(cat <<'EOF'\nSwitch the parser to streaming mode\n\nLarge logs\n"
            "ran out of memory, so the parser now streams.\n\n- Drop the buffer\n\n"
            'Co-Authored-By: Claude <noreply@anthropic.com>\nEOF\n)"',
            [
                "Switch the parser to streaming mode",
                "Large logs ran out of memory, so the parser now streams.",
                "Drop the buffer",
            ],
        ),
        (
            'cd app && git add . && git commit --no-gpg-sign -m "Use pnpm workspaces" '
            '-m "One lock file instead of four." && git push',
            ["Use pnpm workspaces", "One lock file instead of four."],
        ),
        (
            "git -C repo commit -am 'Pin node to 20 for the CI image'",
            ["Pin node to 20 for the CI image"],
        ),
        (
            'git commit --message="Cache the token to avoid a login per call"',
            ["Cache the token to avoid a login per call"],
        ),  # fmt: skip
        # Captured as one line (no raw record): the words up to the marker or a trailer.
        (
            "git commit -m \"$(cat <<'EOF' Use uv for installs It is faster. "
            'Co-Authored-By: x EOF )"',
            ["Use uv for installs It is faster."],
        ),
        # A bullet's or a numbered line's marker goes, not the digits its text starts with.
        (
            "git commit -m 'Require 2FA for admin logins' -m '- 2FA codes expire after 30s' "
            "-m '2. 3 retries at most, to limit brute force'",
            [
                "Require 2FA for admin logins",
                "2FA codes expire after 30s",
                "3 retries at most, to limit brute force",
            ],
        ),
        ("git commit --amend --no-edit", []),
        ("git log --grep 'git commit -m x'", []),
    ],
)
def test_commit_messages(command: str, lines: list[str]) -> None:
    assert commit_messages.commit_message(command) == lines


@pytest.mark.parametrize(
    ("subject", "worth"),
    [
        ("Use pnpm workspaces for the monorepo", True),
        ("feat(parser): stream the input", True),
        ("WIP", False),
        ("Merge branch 'main' into feature", False),
        ("Bump version to 1.2.3", False),
        ("fix typo in README", False),
        ("fix: typo", False),
        ("Formatting fixes in the parser", False),
        ("Miscellaneous clean-ups before the release", False),
        ('Revert "Use pnpm workspaces"', False),
        # A routine word is a whole word: not the start of another one.
        ("Wipe the build cache before each run to avoid stale artifacts", True),
        ("Template rendering escapes HTML to prevent XSS", True),
        ("Formatter settings move to pyproject.toml", True),
    ],
)
def test_routine_commits_are_no_lesson(subject: str, worth: bool) -> None:
    assert commit_messages.commit_worth(subject) is worth


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Switched the parser to streaming mode to bound memory", True),
        ("Moved from npm to pnpm for the workspace", True),
        ("Parser: switched to streaming mode so memory stays bounded", True),
        ("The CI workflow now runs only on pull requests to save Actions minutes", True),
        # What was done, with no reason and no change between two named things.
        ("Updated `src/parser.ts` and `src/cli.ts`", False),
        ("Added tests in `tests/parser.test.ts`", False),
        ("Switched the parser to streaming mode", False),
        ("I switched to pnpm to save time", False),
    ],
)
def test_a_change_of_approach(sentence: str, expected: bool) -> None:
    assert statements.approach(sentence) is expected


@pytest.mark.parametrize(
    "sentence",
    [
        "The test command is configured in `package.json` under scripts.",
        "`publish_session.py` reads the session id from `~/.claude/session.json`.",
        "CLAUDE_SESSION_ID is not exposed to commands as an environment variable.",
        "It turns out the hooks get the session id on stdin, not in the environment.",
        "It looks like the cache is stale because the build script never reruns.",
        "I found that `settings.py` loads `.env` only in debug mode.",
        "Vue 3 and Bootstrap 5 are loaded from CDNs in index.html.",
    ],
)
def test_findings(sentence: str) -> None:
    assert statements.finding(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Let me check `settings.py` to see where the port is set.",  # a plan
        "The file `src/app.ts` might be the problem here somehow.",  # a guess
        "`npm test` fails with a TypeError in price.js at the moment.",  # an outcome
        "The `M-Claude` repository is now a professional-grade project!",  # a cheer, "now"
        "Ensure `gh` is authenticated: run `gh auth login` first.",  # an instruction
        "It uses `Row` components for each line of the list.",  # a pronoun's claim
        "The colours look nicer in the dark theme than they did before.",  # nothing concrete
    ],
)
def test_no_findings(sentence: str) -> None:
    assert not statements.finding(sentence)


def test_a_reason_or_purpose() -> None:
    assert statements.with_reason("Changed workflow triggers to prevent running on every push")
    assert statements.with_reason("This reduces CI noise and Actions minutes.")
    assert not statements.with_reason("Create tests/README.md with installation instructions")


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("The existing tests use the `Mox` library for mocking the HTTP client.", True),
        ("Following the existing convention, handlers live in `lib/app/handlers/`.", True),
        ("This repo runs its tests with `mix test` and formats with `mix format`.", True),
        ("The project's CLAUDE.md says to run `mix precommit` before committing.", True),
        ("The project uses LiveView for every panel, so I'll follow that pattern.", True),
        ("The project probably uses `pytest` for its tests.", False),  # a guess
        ("Let me check how the project uses `config.yaml` here.", False),  # a plan
        ("The project uses a lot of small modules for everything.", False),  # nothing named
        ("The pattern is `new Markdown(text, x, y)`, two more parameters to add.", False),
    ],
)
def test_a_norm_of_the_project(sentence: str, expected: bool) -> None:
    assert statements.convention(sentence) is expected


def test_the_digit_table_knows_every_ascii_digit() -> None:
    """``_number`` maps ASCII text in C: its table must agree with str.isdigit() there."""
    for code in range(128):
        char = chr(code)
        assert (char.translate(statements._DIGITS) == "0") is char.isdigit(), repr(char)


@given(st.text(alphabet=st.sampled_from("ab 1234567890.\u00b2\u0663x-"), max_size=30))
@settings(max_examples=examples(0.5))
def test_two_digits_in_a_row_found_as_the_plain_loop_finds_them(text: str) -> None:
    run, expected = 0, False
    for char in text:
        run = run + 1 if char.isdigit() else 0
        expected = expected or run >= 2
    assert statements._number(text) is expected
