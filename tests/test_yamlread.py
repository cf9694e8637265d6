"""The fast reader (libyaml) gives what the round-trip reader (ruamel) gives, file for file."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from memcli import untrusted, yamlio, yamlread

SCALAR_CHARACTERS = "0123456789.-+_:eExobTtrueFalsnNl~ &*!#'\"[]{},%@`|>?=<\\\t"


def same(left: Any, right: Any) -> bool:
    if isinstance(left, float) and isinstance(right, float):
        return (math.isnan(left) and math.isnan(right)) or left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(same(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(same(a, b) for a, b in zip(left, right, strict=True))
    if isinstance(left, int | float) and isinstance(right, int | float):
        return bool(left == right) and isinstance(left, bool) == isinstance(right, bool)
    if type(left) is type(right) and left == right:
        return True
    return repr(left) == repr(right)  # both from the round-trip reader (a tagged scalar)


def both(text: str) -> tuple[Any, Any]:
    fast, fast_problem = yamlread.parse(text, "f.yaml")
    slow, slow_problem = yamlio.parse(text, "f.yaml")
    return (
        fast.plain() if fast is not None else fast_problem,
        slow.plain() if slow is not None else slow_problem,
    )


@settings(max_examples=400, deadline=None)
@given(
    values=st.lists(st.text(alphabet=SCALAR_CHARACTERS, max_size=14), min_size=1, max_size=4),
    layout=st.sampled_from(["map", "seq", "flow"]),
)
@example(values=["0,'", "':"], layout="flow")  # a one-pair mapping libyaml read, ruamel refuses
def test_any_scalar_reads_the_same(values: list[str], layout: str) -> None:
    if layout == "map":
        text = "".join(f"k{n}: {v}\n" for n, v in enumerate(values))
    elif layout == "seq":
        text = "".join(f"- {v}\n" for v in values)
    else:
        text = "[" + ", ".join(values) + "]\n"
    fast, slow = both(text)
    assert same(fast, slow), (text, fast, slow)


@pytest.mark.parametrize(
    "text",
    [
        "a: yes\nb: on\nc: 0o17\nd: 1_000\ne: 2024-01-01T10:00:00+02:00\nf: 2024-01-02\n",
        "a: !!str 12\n",
        "a: &x [1]\nb: *x\n",
        "a: 1\na: 2\n",
        "<<: {a: 1}\n",
        "%YAML 1.1\n---\na: yes\n",
        "a: " + "[" * 40 + "]" * 40 + "\n",
        "? [a]\n: 1\n",
        "a: 012\n",
        "title: 'It''s: \"quoted\"'\nbody: |\n  literal & *text* !here\n",
        "a: ._\n",  # typed a float by the resolver, which float() refuses: a problem, no crash
        "a: _\n",
    ],
)
def test_tricky_files_read_the_same(text: str) -> None:
    fast, slow = both(text)
    assert same(fast, slow) or fast == slow, (fast, slow)


def test_the_depth_cap_is_shared() -> None:
    assert yamlread.MAX_DEPTH == yamlio.MAX_DEPTH == untrusted.MAX_YAML_DEPTH
    ok = "a: " + "[" * (untrusted.MAX_YAML_DEPTH - 1) + "]" * (untrusted.MAX_YAML_DEPTH - 1)
    deep = "a: " + "[" * untrusted.MAX_YAML_DEPTH + "]" * untrusted.MAX_YAML_DEPTH
    assert yamlread.parse(ok + "\n", "f")[1] is None
    assert yamlread.parse(deep + "\n", "f")[1] is not None


def test_an_alias_never_reaches_the_fast_path() -> None:
    bomb = "a: &a [x, x]\nb: &b [*a, *a]\nc: &c [*b, *b]\nd: [*c, *c]\n"
    with pytest.raises(yamlread.Fallback):
        yamlread.load_fast(bomb)
    doc, problem = yamlread.parse(bomb, "f.yaml")
    assert doc is None and problem is not None and "aliases" in problem.message


def test_line_numbers_come_from_the_round_trip_reader_only_when_asked() -> None:
    doc, _ = yamlread.parse("id: x\n\nkind: pitfall\n", "f.yaml")
    assert doc._lines is None  # nothing parsed twice for a valid file
    assert doc.line_of("kind") == 3


def test_a_file_the_round_trip_reader_decides_gives_plain_built_in_types() -> None:
    """`'>#'` in a title sends the file to ruamel (a glued block-header comment may stand
    there); its numbers must still be plain floats and ints, which the parse cache marshals
    (Hypothesis found `ValueError: unmarshallable object` with ruamel's ScalarFloat)."""
    import marshal

    text = "id: a1\ntitle: '>#'\nimportance: 0.5\ncount: 3\nflag: true\n"
    with pytest.raises(yamlread.Fallback):
        yamlread.load_fast(text)
    doc, problem = yamlread.parse(text, "x.yaml")
    assert problem is None and doc is not None
    data = doc.plain()
    assert [type(data[k]) for k in ("importance", "count", "flag")] == [float, int, bool]
    assert marshal.loads(marshal.dumps(data)) == data


def test_the_memoised_tags_of_plain_scalars_decide_as_the_patterns_do(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = "a: 0.5\nb: true\nc: 12\nd: null\ne: pitfall\nf: 0o17\ng: 2025-01-01\n"
    monkeypatch.setattr(yamlread, "_plain_tags", {})
    cold = yamlread.load_fast(text)
    assert yamlread._plain_tags  # remembered
    assert yamlread.load_fast(text) == cold
    assert cold == {
        **{"a": 0.5, "b": True, "c": 12, "d": None},
        **{"e": "pitfall", "f": 15, "g": "2025-01-01"},
    }
    monkeypatch.setattr(yamlread, "_MEMO_LIMIT", 2)
    monkeypatch.setattr(yamlread, "_plain_tags", {})
    assert yamlread.load_fast(text) == cold
    assert len(yamlread._plain_tags) == 2  # bounded


def test_a_big_file_names_line_1_instead_of_a_round_trip(monkeypatch: pytest.MonkeyPatch) -> None:
    def slow(*_args: object) -> None:
        raise AssertionError("the round-trip reader was asked for a big file's lines")

    monkeypatch.setattr(yamlio, "parse", slow)
    text = "id: a\nanchors:\n" + "  - p: x\n" * 20_000  # over LINES_FOR_AT_MOST
    doc, problem = yamlread.parse(text, "a.yaml")
    assert problem is None and doc.line_of("anchors") == 1
