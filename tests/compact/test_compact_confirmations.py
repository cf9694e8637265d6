"""Commands that act only on their second run (`memcli/compact/confirmations.py`): the first
run's request to be run again is an env fact once a second run no longer asked."""

from __future__ import annotations

from compact_helpers import Writer, edit, run_cmd

from memcli import api
from memcli.compact import compact_session, confirmations
from memcli.compact.observations import from_records

REVIEW = "\n".join(
    (
        "Thank you for your work on this issue. Please carefully follow the steps below to help"
        " review your changes.",
        "",
        "1. If you made any changes to your code after running the reproduction script, please run"
        " the reproduction script again.",
        "  If the reproduction script is failing, please revisit your changes and make sure they"
        " are correct.",
        "2. Remove your reproduction script (if you haven't done so already).",
        "3. If you have modified any TEST files, please revert them to the state they had before"
        " you started fixing the issue.",
        "4. Run the submit command again to confirm.",
        "",
        "Here is a list of all of your changes:",
        "",
        "<diff>",
        "diff --git a/reproduce.py b/reproduce.py",
    )
)
PLAN = "Plan: 3 changes. Run this command again to confirm."


def _confirmations(memory: api.Memory) -> list[api.Item]:
    return [i for i in memory.items() if "run a second time" in i.title]


def test_a_command_that_asked_to_be_run_again_is_a_verified_env_fact(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        run_cmd("submit", REVIEW, True),
        run_cmd("rm /testbed/reproduce.py", "", True),
        run_cmd("submit", "diff --git a/src/core.py b/src/core.py\n+fixed", True),
    ])  # fmt: skip
    compact_session(memory, name)
    [item] = _confirmations(memory)
    assert item.kind == "env" and item.confidence == "verified"
    assert item.title == (
        "`submit` acts only when run a second time: its first run asks for it"
        " (Run the submit command again to confirm)"
    )
    assert "Remove your reproduction script" in item.body  # the steps it listed
    assert "help review your changes" in item.body
    assert "Between the runs: `rm /testbed/reproduce.py`" in item.body
    assert "confirm" in item.tags


def test_a_request_with_a_flag_counts_and_edits_between_are_named() -> None:
    records = [
        run_cmd(
            "./release.sh 1.4.0", "Would tag v1.4.0 and push.\nRe-run with --yes to apply.", True
        ),
        edit("CHANGELOG.md"),
        run_cmd("./release.sh 1.4.0 --yes", "tagged v1.4.0", True),
    ]
    [draft] = confirmations.drafts(
        from_records([{**r, "id": f"o{n}"} for n, r in enumerate(records)]), "s"
    )
    assert draft.title.startswith("`./release.sh 1.4.0` acts only when run a second time")
    assert "Between the runs: edited CHANGELOG.md" in draft.body


def test_no_second_run_or_a_second_request_proves_nothing(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        run_cmd("submit", REVIEW, True),
        run_cmd("deploy --env staging", PLAN, True),
        run_cmd("deploy --env staging", PLAN, True),
    ])  # fmt: skip
    compact_session(memory, name)
    assert _confirmations(memory) == []


def test_advice_and_printed_documents_are_no_request(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        run_cmd("pytest -q", "1 failed\nYou may want to run the tests again later.", False),
        run_cmd("cat docs/release.md", "Run the release command again to confirm.", True),
        run_cmd("cat docs/release.md", "done", True),
        run_cmd("pytest -q", "3 passed", True),
    ])  # fmt: skip
    compact_session(memory, name)
    assert _confirmations(memory) == []
