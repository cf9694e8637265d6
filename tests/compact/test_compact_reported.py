"""Failures the user pasted into a prompt (docs/compaction.md, "Reported failures"): a fix in
the same turn makes one pitfall; prose about an error makes nothing; a paste repeated and
left unfixed makes one task."""

from __future__ import annotations

from pathlib import Path

from compact_helpers import Writer, edit, prompt, run_cmd, said
from test_compact_carry import mem_compact
from test_compact_notes import note

from memcli import api

PASTED = (
    "The cart page is blank, the console says:\n\n"
    "Uncaught TypeError: cart.items.map is not a function\n"
    "    at CartList (src/cart/CartList.jsx:14:22)\n"
    "    at renderWithHooks (react-dom.development.js:14985:18)\n"
)
CAUSE = (
    "The cause was that the API returns `items` as an object keyed by id, so "
    "src/cart/CartList.jsx now maps over `Object.values(cart.items)`."
)


def test_a_pasted_type_error_fixed_by_an_edit_is_one_pitfall(
    repo: Path, memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        prompt(PASTED),
        edit("src/cart/CartList.jsx"),
        run_cmd("npm test -- CartList", "Tests: 4 passed, 4 total", True),
        said(CAUSE),
    ])  # fmt: skip
    mem_compact(repo, name)
    items = memory.items()
    assert [i.kind for i in items] == ["pitfall"], [i.title for i in items]
    pitfall = items[0]
    assert pitfall.title.startswith("Uncaught TypeError: cart.items.map is not a function")
    assert "object keyed by id" in pitfall.title
    assert pitfall.confidence == "verified"
    assert {"path": "src/cart/CartList.jsx"} in pitfall.anchors
    excerpts = " ".join(e.get("excerpt", "") for e in pitfall.evidence)
    assert "cart.items.map is not a function" in excerpts and "keyed by id" in excerpts


def test_a_prompt_that_speaks_of_an_error_in_prose_is_no_report(
    repo: Path, memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        prompt("When I open the cart I get a TypeError, there is an error somewhere in it"),
        edit("src/cart/CartList.jsx"),
        said("I updated the cart list."),
    ])  # fmt: skip
    mem_compact(repo, name)
    assert memory.items() == []


def test_the_same_paste_twice_unfixed_is_one_task(
    repo: Path, memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        prompt(PASTED),
        edit("src/cart/CartList.jsx"),
        said("I guarded the map call in the cart list."),
        prompt("Still broken:\n\n" + PASTED),
        said("Could you share the response of the cart API?"),
    ])  # fmt: skip
    mem_compact(repo, name)
    items = memory.items()
    assert [i.kind for i in items] == ["task"], [i.title for i in items]
    assert "cart.items.map is not a function" in items[0].title


def test_a_note_explains_a_pasted_failure_only_when_it_names_it(
    repo: Path, memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        prompt(PASTED),
        note("The issue is that `hooks` is None when the session is built without defaults."),
        edit("src/cart/CartList.jsx"),
        run_cmd("npm test -- CartList", "Tests: 4 passed, 4 total", True),
        said("Done."),
    ])  # fmt: skip
    mem_compact(repo, name)
    [pitfall] = [i for i in memory.items() if i.title.startswith("Uncaught TypeError")]
    assert "hooks" not in pitfall.title and "fixed in src/cart/CartList.jsx" in pitfall.title


def test_a_note_naming_the_pasted_failure_explains_it(
    repo: Path, memory: api.Memory, write_buffer: Writer
) -> None:
    cause = "The issue is that `CartList` maps over `cart.items`, an object keyed by id."
    name = write_buffer([
        prompt(PASTED),
        note(cause),
        edit("src/cart/CartList.jsx"),
        run_cmd("npm test -- CartList", "Tests: 4 passed, 4 total", True),
        said("Done."),
    ])  # fmt: skip
    mem_compact(repo, name)
    [pitfall] = [i for i in memory.items() if i.title.startswith("Uncaught TypeError")]
    assert "object keyed by id" in pitfall.title
