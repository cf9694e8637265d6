"""mem's own item layout, read without a YAML library: wherever it answers, it answers what
the full reader does, and it answers for what mem writes."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from memcli import itemlayout, yamlread

text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=60)
scalar = st.one_of(
    text,
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.none(),
)
item = st.fixed_dictionaries(
    {
        "id": st.text("0123456789abcdef", min_size=12, max_size=12),
        "kind": st.sampled_from(["pitfall", "decision", "env"]),
        "title": text,
        "body": text,
        "importance": st.floats(0, 1),
    },
    optional={
        "tags": st.lists(text, max_size=3),
        "scope": st.fixed_dictionaries({"project": text}),
        "anchors": st.lists(st.fixed_dictionaries({"path": text, "symbol": text}), max_size=2),
        "extra": scalar,
    },
)


def full(source: str) -> Any:
    doc, problem = yamlread.parse(source, "x.yaml")
    return None if problem is not None or doc is None else doc.plain()


@settings(deadline=None)
@given(item)
def test_what_mem_writes_reads_back_as_the_full_reader_reads_it(data: dict[str, Any]) -> None:
    source = itemlayout.render(data)
    fast = itemlayout.read(source)
    if fast is not None:  # refusing is always allowed: the full reader then reads it
        assert fast == full(source) == data


@settings(deadline=None)
@given(item, st.integers(0, 10_000), st.sampled_from(list("#:'\"-| \n&*!{}[]>%@\\x0")))
def test_an_edited_file_is_read_as_the_full_reader_reads_it_or_refused(
    data: dict[str, Any], where: int, char: str
) -> None:
    source = itemlayout.render(data)
    at = where % (len(source) + 1)
    edited = source[:at] + char + source[at:]
    fast = itemlayout.read(edited)
    if fast is not None:
        assert fast == full(edited)


def test_the_usual_file_is_read_and_anything_else_is_refused() -> None:
    source = (
        "id: '0006f129260e'\nkind: pitfall\ntitle: 'Merge pull request #9149'\n"
        "body: |\n  Line one.\n\n  Line three.\nscope:\n  project: github.com/acme/bench\n"
        "importance: 0.5\nanchors:\n  - path: src/a.py\n    symbol: run\ntags:\n  - ci\n"
    )
    assert itemlayout.read(source) == full(source)
    assert itemlayout.read(source)["body"] == "Line one.\n\nLine three.\n"
    for other in (
        source.replace("kind: pitfall", "kind: pitfall  # why"),  # a reviewer's comment
        source.replace("importance: 0.5", "importance: !!float 0.5"),  # a tag
        source.replace("tags:\n  - ci\n", "tags: [ci]\n"),  # a flow list
        source.replace("  project:", "   project:"),  # other indentation
        source.replace("title: 'Merge", 'title: "Merge').replace("#9149'", '#9149"'),
        "id: x\nkind: &a pitfall\ntitle: *a\n",  # an anchor and an alias
        "a:\n" + "".join("  " * n + "b:\n" for n in range(1, 40)) + "  " * 40 + "c: 1\n",
    ):
        assert itemlayout.read(other) is None
