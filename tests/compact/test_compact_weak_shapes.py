"""Precision of the rules, continued: sentences that read like lessons but are none (a
user's guess, a wish, a cause of "it", a hypothesis about to be checked, a rejected turn's
diagnosis, narration with a typographic apostrophe), commands on another machine, and
norms said by repetition (memcli/compact/prose.py, rejections.py, manners.py, commands.py).

Every example is synthetic: the shapes hold whatever the words."""

from __future__ import annotations

from typing import Any

import pytest
from compact_helpers import Writer, edit, obs, prompt, run_cmd, said

from memcli import api
from memcli.compact import commands, compact_session, prose


def note(text: str, session: str = "s1") -> dict[str, Any]:
    first = text.splitlines()[0]
    return obs("note", session, event="Stop", excerpt=text, summary=f"note: {first}"[:200])


def titles(memory: api.Memory) -> list[str]:
    return [i.title for i in memory.items()]


@pytest.mark.parametrize(
    "sentence",
    [
        "Ok, i think the sidebar doesn't respect the rule that rows must not be taller than 40px",
        "maybe the exporter must never write partial files",
        "I guess we should always close the socket",
    ],
)
def test_a_users_hedged_sentence_is_no_convention_item(
    memory: api.Memory, write_buffer: Writer, sentence: str
) -> None:
    name = write_buffer([prompt("Restyle the sidebar"), said("Restyled."),
                         prompt(sentence), said("Looking.")])  # fmt: skip
    compact_session(memory, name)
    assert memory.items() == [], sentence


@pytest.mark.parametrize(
    "sentence",
    [
        "The config loader should report the error gracefully instead of crashing on start.",
        "The `Exporter` could stream rows rather than building the whole list in memory.",
    ],
)
def test_a_wish_without_a_reason_is_a_wish(sentence: str) -> None:
    assert prose.wish(sentence)
    assert not prose.wish(sentence.rstrip(".") + ", because the start script has no log.")


def test_a_wish_is_no_item_but_a_reasoned_choice_is(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        prompt("Make the loader robust"),
        said("The config loader should report the error gracefully instead of crashing on "
             "start. We parse `settings.toml` with `tomllib` instead of the regex reader "
             "because the regex reader drops quoted keys."),
    ])  # fmt: skip
    compact_session(memory, name)
    assert [i.kind for i in memory.items()] == ["decision"]
    assert "tomllib" in titles(memory)[0]


def test_a_cause_of_a_bare_pronoun_is_no_item(memory: api.Memory, write_buffer: Writer) -> None:
    name = write_buffer([
        prompt("Which backup service keeps fewer logs?"),
        said("The 2021 audit matters: investigators with a subpoena got no records because "
             "it simply didn't store them."),
    ])  # fmt: skip
    compact_session(memory, name)
    assert memory.items() == []


def test_a_cause_the_next_words_set_out_to_check_is_no_item(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        prompt("Why do the colours differ between the two terminals?"),
        said("The issue is that Kitty sets `TERM=xterm-kitty` while iTerm sets "
             "`TERM=xterm-256color`. Let me check the colour detection:"),
    ])  # fmt: skip
    compact_session(memory, name)
    assert memory.items() == []


def test_a_stated_cause_stays_an_item(memory: api.Memory, write_buffer: Writer) -> None:
    name = write_buffer([
        prompt("Why do the colours differ between the two terminals?"),
        said("The issue is that Kitty sets `TERM=xterm-kitty` while iTerm sets "
             "`TERM=xterm-256color`. I've changed the detection to read COLORTERM."),
    ])  # fmt: skip
    compact_session(memory, name)
    assert [i.kind for i in memory.items()] == ["pitfall"]


def test_a_rejected_turn_takes_its_notes_with_it(memory: api.Memory, write_buffer: Writer) -> None:
    name = write_buffer([
        prompt("The greys look the same in the editor's terminal"),
        note("This is a known issue with the editor's terminal: it maps `#808080` to "
             "palette index 244."),
        said("Both greys should differ now since the theme uses RGB values."),
        prompt("ugh, the editor's terminal still looks the same for all greys"),
        said("Looking again."),
    ])  # fmt: skip
    compact_session(memory, name)
    assert memory.items() == [], titles(memory)


def test_narration_with_a_typographic_apostrophe_is_narration(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        prompt("Scope the implicit references"),
        said("I\u2019ve added logic so that implicit references created by `:type:` respect "
             "the current module instead of searching globally."),
    ])  # fmt: skip
    compact_session(memory, name)
    assert memory.items() == []


def test_a_manner_of_work_asked_for_in_two_prompts_is_a_convention(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        prompt("read src/render.ts in full, then port the footer"),
        said("Ported."),
        prompt("now the header: read it in full first"),
        said("Ported."),
    ])  # fmt: skip
    compact_session(memory, name)
    (item,) = memory.items()
    assert item.kind == "convention"
    assert item.title.startswith("Read in full: the user asked for it in 2 prompts")
    assert len(item.evidence) == 2


@pytest.mark.parametrize(
    "second",
    [
        "now port the header",  # asked once only
        "look at the log if you need to, but don't read the full file",  # the opposite
    ],
)
def test_a_manner_asked_for_once_is_no_convention(
    memory: api.Memory, write_buffer: Writer, second: str
) -> None:
    name = write_buffer([prompt("read src/render.ts in full, then port the footer"),
                         said("Ported."), prompt(second), said("Ported.")])  # fmt: skip
    compact_session(memory, name)
    assert memory.items() == []


def test_a_recurring_order_of_work_is_a_convention(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([prompt("Split the parser into modules"), said("Split."),
                         prompt("I want the branch committed and clean after every step"),
                         said("Understood.")])  # fmt: skip
    compact_session(memory, name)
    assert [i.kind for i in memory.items()] == ["convention"]


def test_a_run_on_another_machine_is_another_command() -> None:
    here, there = (
        commands.parse("dig example.org @10.0.0.1"),
        commands.parse('ssh root@10.0.0.1 "dig example.org @127.0.0.1 -p 5335"'),
    )
    assert not commands.equivalent(here, there)
    assert commands.machine('ssh root@10.0.0.1 "opkg list"') == "ssh root@10.0.0.1"
    assert commands.equivalent(
        commands.parse('ssh root@10.0.0.1 "opkg remove x"'),
        commands.parse('ssh root@10.0.0.1 "sleep 2 && opkg remove x"'),
    )


def test_a_local_failure_is_no_workaround_of_a_remote_pass(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        prompt("DNS lookups time out from this laptop"),
        run_cmd("dig example.org @10.0.0.1 +short",
                ";; connection timed out; no servers could be reached", False),
        run_cmd('ssh root@10.0.0.1 "dig example.org @127.0.0.1 -p 5335 +short"',
                "93.184.216.34", True),
    ])  # fmt: skip
    compact_session(memory, name)
    assert not any("it passes with" in t for t in titles(memory)), titles(memory)


def test_edits_then_the_same_command_on_the_same_machine_still_pair(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        run_cmd("pytest tests/test_orders.py -x",
                "E   AssertionError: assert 344 == 345", False),
        edit("src/money.py"),
        run_cmd("pytest tests/test_orders.py -x", "12 passed in 1.02s", True),
    ])  # fmt: skip
    compact_session(memory, name)
    assert [i.confidence for i in memory.items()] == ["verified"]
