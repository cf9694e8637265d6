"""Precision of the rules: shapes of text that are no lesson never become items, and titles
a reader learns from (memcli/compact/prose.py, text.py, rules.py, tasks.py).

Every example here is synthetic: the shapes (a change report, a hedge, an aside, a bold
label, a user's passing correction, an aborted command) hold whatever the words."""

from __future__ import annotations

from pathlib import Path

import pytest
from compact_helpers import Writer, edit, prompt, run_cmd, said
from test_compact_carry import mem_compact

from memcli import api
from memcli.compact import compact_session, prose, text
from memcli.compact.observations import aborted

PASSING_CORRECTIONS = [
    "No, that's ugly",
    "No, that's not it, but try the sidebar",
    "No, the header should stay as it is",
    "No, borderGrey should be that, no need for frameGrey",
    "Actually, it's the background of the status bar that doesn't refresh",
    "Hm, I clicked save while you were working and it crashed, that should never happen",
]


@pytest.mark.parametrize("sentence", PASSING_CORRECTIONS)
def test_a_passing_correction_of_a_detail_is_no_convention(
    memory: api.Memory, write_buffer: Writer, sentence: str
) -> None:
    name = write_buffer([prompt("Restyle the settings page"), said("Restyled."),
                         prompt(sentence), said("Understood.")])  # fmt: skip
    compact_session(memory, name)
    assert memory.items() == [], sentence


@pytest.mark.parametrize(
    "sentence",
    [
        "No, you should use the fixtures in tests/data",
        "No, we use pnpm here",
        "Actually, use the staging database for these checks",
        "No, it's pnpm, not npm",
        "Actually it's `main`, not `master`",
        "Migrations should always be reversible",
    ],
)
def test_a_correction_that_says_what_to_do_stays_a_convention(
    memory: api.Memory, write_buffer: Writer, sentence: str
) -> None:
    name = write_buffer([prompt("Tidy up the payments service"), said("Tidied."),
                         prompt(sentence), said("Understood.")])  # fmt: skip
    compact_session(memory, name)
    assert [i.kind for i in memory.items()] == ["convention"], sentence


CHANGE_REPORTS = [
    "Updated `borderColour()` to use the palette tokens instead of mapping to raw colours.",
    "Fixed all widget tests to use the shared fixtures instead of literals.",
    "Uses `Row` and `Gap` components instead of rendering plain strings.",
    "Empty cells are now `'-'` instead of `''`.",
    "Sidebar now uses `slate` (#555555) instead of `grey` (#777777), making it darker.",
    "I bet the browser reports a light scheme, which would pick `#224466` instead of `#88aaff`.",
    "Maybe the proxy strips the header instead of forwarding it to port 8080.",
    "Instead of patching each call site, let me add one wrapper around the client.",
    "Take the whole `Config` instead of three separate arguments.",
    "In `upload()`, if the queue is full, drop the oldest entry instead of blocking.",
    "it's not needed since the list view uses `compact` and headers use bold.",
]


@pytest.mark.parametrize("sentence", CHANGE_REPORTS)
def test_a_change_report_or_a_hedge_in_a_closing_message_is_no_decision(
    memory: api.Memory, write_buffer: Writer, sentence: str
) -> None:
    name = write_buffer([prompt("Polish the dashboard"), edit("src/dashboard.tsx"),
                         said(sentence)])  # fmt: skip
    compact_session(memory, name)
    assert memory.items() == [], sentence


@pytest.mark.parametrize(
    "sentence",
    [
        "Switched the cache to Redis instead of memcached because the workers share sessions.",
        "Instead of blocking the commit on a secret, the hook now redacts it in place.",
        "Prices are stored as integer cents because floats lose pennies.",
        "Since `APP_SESSION` isn't set in hooks, I'll use the session id of the payload.",
    ],
)
def test_a_choice_with_its_reason_is_still_a_decision(
    memory: api.Memory, write_buffer: Writer, sentence: str
) -> None:
    name = write_buffer([prompt("Rework the cache"), edit("src/cache.py"), said(sentence)])
    compact_session(memory, name)
    assert [i.kind for i in memory.items()] == ["decision"], sentence


def test_a_claim_only_in_an_aside_is_no_environment_fact(
    memory: api.Memory, write_buffer: Writer
) -> None:
    offer = "Trial users get 14 days of the Pro plan (requires a card, renews at $9/month)."
    fact = "The API server listens on 8080 in development."
    name = write_buffer([prompt("Explain the set-up"), said(f"{offer} {fact}")])
    compact_session(memory, name)
    assert [(i.kind, i.title) for i in memory.items()] == [("env", fact.rstrip("."))]


def test_a_bold_label_is_never_part_of_a_title(memory: api.Memory, write_buffer: Writer) -> None:
    closing = (
        "Summary:\n"
        "- **Export Script** (`scripts/export.py`)\n"
        "- **Naming**: `Exporter` instead of `Dumper`\n"
        "- **This is a known bug in Viewer.app** that affects versions 3.1 and 3.2."
    )
    name = write_buffer([prompt("Why does the viewer hang?"), said(closing)])
    compact_session(memory, name)
    titles = [i.title for i in memory.items()]
    assert titles == ["This is a known bug in Viewer.app that affects versions 3.1 and 3.2"]


def test_sentences_drop_a_bold_header_and_a_label() -> None:
    assert text.sentences("**Export Script** (`scripts/export.py`)") == []
    assert text.sentences("**Dependencies**: the lock file pins every version.") == [
        "the lock file pins every version."
    ]
    assert text.sentences("**Root cause**: the port in `conftest.py` was stale.") == [
        "Root cause: the port in `conftest.py` was stale."
    ]
    # A Markdown heading titles what follows (a sub-agent's "## Root Cause Analysis: ...").
    assert text.sentences("## Root Cause Analysis: E2E test 3.1\n\nThe selector is stale.") == [
        "The selector is stale."
    ]
    assert text.sentences("#123 is the issue the fix closes.") == [
        "#123 is the issue the fix closes."
    ]
    assert text.title_of("The **cache** ignores the theme") == "The cache ignores the theme"
    assert text.title_of("Run `__init__.py` first") == "Run `__init__.py` first"


def test_shapes_of_change_reports() -> None:
    assert prose.change_report("Added a retry to the upload client instead of failing")
    assert not prose.change_report("Added a retry because the upload API drops 1 in 50 calls")
    assert not prose.change_report("The server now listens on 8080 instead of 3000")


@pytest.mark.parametrize(
    ("output", "stopped"),
    [
        ("Command aborted", True),
        ("Error: Operation cancelled by user.", True),
        ("[Request interrupted by user]", True),
        ("Error: aborted because the lock is held", False),
        ("", False),
    ],
)
def test_an_output_that_only_says_the_user_stopped_it(output: str, stopped: bool) -> None:
    assert aborted(output) is stopped


def test_a_command_the_user_aborted_is_no_failure(memory: api.Memory, write_buffer: Writer) -> None:
    name = write_buffer([
        prompt("Check the types"),
        run_cmd("npm run check", "Command aborted", False),
        edit("src/app.ts"),
        run_cmd("npm run check", "ok", True),
        said("Done."),
    ])  # fmt: skip
    compact_session(memory, name)
    assert memory.items() == []


def test_a_fix_outside_the_repository_is_named_in_the_title(
    memory: api.Memory, write_buffer: Writer
) -> None:
    failing = "TypeError: total is not a function\n    at src/price.js:3"
    name = write_buffer([
        prompt("Fix the price tests"),
        run_cmd("npm test", failing, False),
        edit("/home/dev/shop/src/price.js"),
        run_cmd("npm test", "Tests: 3 passed", True),
    ])  # fmt: skip
    compact_session(memory, name)
    [item] = memory.items()
    assert item.title.endswith(": fixed in price.js"), item.title


def test_a_long_error_line_is_cut_before_the_fix(memory: api.Memory, write_buffer: Writer) -> None:
    failing = "TypeError: " + "the value of the configured total " * 12 + "is not a function"
    name = write_buffer([
        prompt("Fix the price tests"),
        run_cmd("npm test", failing, False),
        edit("src/price.js"),
        run_cmd("npm test", "Tests: 3 passed", True),
    ])  # fmt: skip
    compact_session(memory, name)
    [item] = memory.items()
    assert len(item.title) <= 200 and item.title.endswith(": fixed in src/price.js")


def test_mem_compact_keeps_the_lesson_and_drops_the_junk_of_one_session(
    memory: api.Memory, write_buffer: Writer
) -> None:
    """End to end through `mem compact`: one real lesson among junk shapes."""
    root = Path(memory.root)
    name = write_buffer([
        prompt("Make the order tests pass"),
        run_cmd("pytest tests/test_orders.py", "E   KeyError: 'currency'", False),
        edit("src/orders.py"),
        run_cmd("pytest tests/test_orders.py", "3 passed in 0.2s", True),
        said("The root cause was `orders.py` reading `currency` before the defaults were "
             "merged. Updated `load()` to merge defaults first instead of last."),
        prompt("No, that's ugly"),
        said("**Cleanup**: `merge()` instead of `update()`"),
        prompt("No, we use pnpm here"),
        run_cmd("pnpm run check", "Command aborted", False),
    ])  # fmt: skip
    mem_compact(root, name)
    kinds = sorted((i.kind, i.title) for i in api.Memory.open(root).items())
    assert [k for k, _ in kinds] == ["convention", "pitfall"], kinds
    pitfall = next(t for k, t in kinds if k == "pitfall")
    assert pitfall.startswith("The root cause was `orders.py` reading `currency`")


def test_a_checklist_line_is_never_the_cause(memory: api.Memory, write_buffer: Writer) -> None:
    failing = "TypeError: total is not a function\n    at src/price.js:3"
    name = write_buffer([
        prompt("Fix the price tests"),
        run_cmd("npm test", failing, False),
        edit("src/price.js"),
        run_cmd("npm test", "Tests: 3 passed", True),
        said("✅ `src/price.js` (fixed, 2KB)"),
    ])  # fmt: skip
    compact_session(memory, name)
    [item] = memory.items()
    assert not item.title.startswith("✅") and item.title.endswith("fixed in src/price.js")


def test_options_added_to_the_passing_run_are_the_fix(
    memory: api.Memory, write_buffer: Writer
) -> None:
    """A look at the failure between the runs (`git check-ignore`) is no setup: the `-f`
    the passing run added is what the next session needs."""
    ignored = (
        "The following paths are ignored by one of your .gitignore files:\n"
        "scripts/export_secrets.py\nhint: Use -f if you really want to add them."
    )
    name = write_buffer([
        prompt("Commit the export script"),
        run_cmd("git add scripts/export_secrets.py", ignored, False),
        run_cmd("git check-ignore -v scripts/export_secrets.py", ".gitignore:3:*secret*", True),
        run_cmd("git add -f scripts/export_secrets.py", "", True),
    ])  # fmt: skip
    compact_session(memory, name)
    [item] = memory.items()
    assert item.kind == "env" and item.confidence == "verified"
    assert "ignored by one of your .gitignore files" in item.title
    assert item.title.endswith("it passes with `-f`") and "check-ignore" not in item.title


def test_a_fix_in_a_windows_path_is_named_by_its_file(
    memory: api.Memory, write_buffer: Writer
) -> None:
    failing = "TypeError: total is not a function\n    at src/price.js:3"
    name = write_buffer([
        prompt("Fix the price tests"),
        run_cmd("npm test", failing, False),
        edit("C:\\Users\\dev\\shop\\src\\price.js"),
        run_cmd("npm test", "Tests: 3 passed", True),
    ])  # fmt: skip
    compact_session(memory, name)
    [item] = memory.items()
    assert item.title.endswith(": fixed in price.js"), item.title


@pytest.mark.parametrize(
    "sentence",
    [
        "The theme cache now keys on the name; the old `ThemeCache` ignored theme changes.",
        "What happened: the old pairing had corrupted metadata that caused macOS to send "
        "malformed PIN requests.",
    ],
)
def test_what_the_replaced_code_did_is_a_pitfall_in_a_closing_message(
    memory: api.Memory, write_buffer: Writer, sentence: str
) -> None:
    name = write_buffer([prompt("Fix the theme switch"), edit("src/theme.ts"), said(sentence)])
    compact_session(memory, name)
    assert [i.kind for i in memory.items()] == ["pitfall"], sentence


def test_the_old_code_named_vaguely_is_no_item(memory: api.Memory, write_buffer: Writer) -> None:
    name = write_buffer([
        prompt("Fix the theme switch"), edit("src/theme.ts"),
        said("The old implementation is still in the file for reference."),
        said("The old cache ignored theme changes."),  # nothing concrete named
    ])  # fmt: skip
    compact_session(memory, name)
    assert memory.items() == []


CAUSE = "The issue is that the dashboard caches `theme` at import time, so `setTheme()` is ignored."
REJECTIONS = [
    "no, that's not it, both panels use the dark theme",
    "No. Still broken after a reload",
    "that's not the problem, the sidebar repaints fine",
    "it still fails the same way",
    "That didn't help",
]


@pytest.mark.parametrize("answer", REJECTIONS)
def test_a_cause_the_user_rejects_next_is_no_pitfall(
    memory: api.Memory, write_buffer: Writer, answer: str
) -> None:
    name = write_buffer([prompt("Why do the colours not change?"), edit("src/dashboard.tsx"),
                         said(CAUSE), prompt(answer), said("Looking again.")])  # fmt: skip
    compact_session(memory, name)
    assert memory.items() == [], answer


@pytest.mark.parametrize("answer", ["thanks, now make the sidebar darker", "No worries, ship it"])
def test_a_cause_the_user_goes_on_from_stays_a_pitfall(
    memory: api.Memory, write_buffer: Writer, answer: str
) -> None:
    name = write_buffer([prompt("Why do the colours not change?"), edit("src/dashboard.tsx"),
                         said(CAUSE), prompt(answer), said("Done.")])  # fmt: skip
    compact_session(memory, name)
    assert [i.kind for i in memory.items()] == ["pitfall"], answer
