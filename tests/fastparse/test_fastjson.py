"""memcli.fastparse.fastjson: the ``_json`` accelerator called directly, with :mod:`json` behind.

Both paths are exercised: the accelerator (the normal case) and the standard module (when
``_json`` is missing, or when the accelerator raises, as it does for any error because it
reports through ``json.decoder``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memcli.fastparse import fastjson

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(st.characters(blacklist_categories=("Cs",))),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


@pytest.fixture(params=["accelerator", "standard"])
def path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Run a test once through ``_json`` and once as if it were missing."""
    monkeypatch.setattr(fastjson, "_scanner", None)
    monkeypatch.setattr(fastjson, "_encoder", None)
    if request.param == "standard":
        monkeypatch.setattr(fastjson, "_json", None)
    else:
        assert fastjson._json is not None  # CPython ships it; the test would be moot otherwise
    yield request.param


@given(value=json_values)
def test_loads_reads_what_json_writes(value: object) -> None:
    for text in (json.dumps(value), json.dumps(value, indent=2), f"  {json.dumps(value)}\n"):
        assert fastjson.loads(text) == value


@given(value=json_values)
def test_dumps_is_compact_ascii_json(value: object) -> None:
    text = fastjson.dumps(value)
    assert text == json.dumps(value, separators=(",", ":"), ensure_ascii=True)
    assert text.isascii() and "\n" not in text


@pytest.mark.usefixtures("path")
def test_both_paths_agree_on_the_edge_cases() -> None:
    assert fastjson.loads('{"a": [1, 2.5, true, null], "b": "\\u00e9"}') == {
        "a": [1, 2.5, True, None],
        "b": "é",
    }
    assert fastjson.loads('"tab\tinside"') == "tab\tinside"  # raw control characters: allowed
    assert math.isinf(fastjson.loads("[Infinity]")[0])  # type: ignore[index]
    assert math.isnan(fastjson.loads("NaN"))  # type: ignore[arg-type]
    assert fastjson.dumps({"é": "\u2603", "n": [1, None]}) == '{"\\u00e9":"\\u2603","n":[1,null]}'
    assert fastjson.dumps({"when": object}) == json.dumps(
        {"when": str(object)}, separators=(",", ":")
    )


@pytest.mark.usefixtures("path")
@pytest.mark.parametrize("text", ["", "{", '{"a": 1} trailing', "[1,]", "nul", "{'a': 1}"])
def test_bad_documents_raise_decode_error_on_both_paths(text: str) -> None:
    with pytest.raises(ValueError) as caught:
        fastjson.loads(text)
    assert isinstance(caught.value, fastjson.DecodeError)
    assert str(caught.value)  # the standard module's explanation, e.g. "Expecting value"


def test_an_accelerator_that_raises_falls_back_to_json(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def broken_scanner(text: str, index: int) -> tuple[object, int]:
        calls.append(text)
        raise SystemError("json.decoder not imported")

    monkeypatch.setattr(fastjson, "_scanner", broken_scanner)
    assert fastjson.loads('{"ok": true}') == {"ok": True}
    assert calls == ['{"ok": true}']


def test_records_keeps_objects_and_skips_the_rest() -> None:
    lines = [
        b'{"a": 1}\n',
        '{"b": 2}\n',
        "not json\n",
        '{"torn": \n',
        "[1, 2]\n",
        b'{"c": "\xff"}\n',  # invalid UTF-8: replaced, still read
        "\n",
    ]
    assert fastjson.records(lines) == [{"a": 1}, {"b": 2}, {"c": "\ufffd"}]


_LINE = st.one_of(
    json_values.map(lambda v: json.dumps(v)),
    st.dictionaries(st.text(max_size=6), json_values, max_size=3).map(json.dumps),
    st.sampled_from(["", "  ", "not json", '{"torn": ', '{"a": "cut', "1, 2", "{}{}", '{"a":1} x']),
)


@given(
    lines=st.lists(_LINE, max_size=8),
    end=st.sampled_from(["\n", "\r\n", "\r", "\x0b", "\u2028"]),
    last=st.booleans(),
)
def test_jsonl_records_finds_what_records_finds(lines: list[str], end: str, last: bool) -> None:
    """The bulk read (the accelerator reading each line in place) finds exactly what reading each
    line of ``str.splitlines()`` finds: torn, blank and bad lines, other line breaks, a last
    line without its end."""
    text = end.join(lines) + (end if lines and last else "")
    assert fastjson.jsonl_records(text) == fastjson.records(text.splitlines())


def test_jsonl_records_reads_whole_lines_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    text = '{"a": 1}\n{"b": [2]}\n5\n'
    assert fastjson.jsonl_records(text) == [{"a": 1}, {"b": [2]}]
    monkeypatch.setattr(fastjson, "records", lambda lines: pytest.fail("read line by line"))
    assert fastjson.jsonl_records(text) == [{"a": 1}, {"b": [2]}]


def test_jsonl_records_reads_line_by_line_around_a_torn_line(path: str) -> None:
    text = '{"a": 1}\n{"torn": "x\n{"b": 2}\n\n'
    assert fastjson.jsonl_records(text) == [{"a": 1}, {"b": 2}]
