"""Which transcript lines the Stop checkpoint parses: the ``bytes.find`` scan finds exactly the
lines the earlier regex scan found (kept here as the reference)."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from memcli.fastparse import fastjson
from memcli.observed import transcript_tail

_REFERENCE = re.compile(rb'"(?:text"|isSidechain": ?true)')


def _reference(data: bytes, stop: int = -1) -> list[dict[str, object]]:
    found: list[dict[str, object]] = []
    taken_to = -1
    stop = len(data) if stop < 0 else stop
    lines: dict[int, int] = {}
    for match in _REFERENCE.finditer(data, 0, stop):
        at = match.start()
        if at < taken_to:
            continue
        start = data.rfind(b"\n", 0, at) + 1
        if data[at + 1 : at + 2] == b"i" and match.end() - start > 400:
            continue
        end = data.find(b"\n", at, stop)
        taken_to = lines[start] = stop if end < 0 else end
    for commit in re.finditer(rb"git commit", data[:stop]):  # a commit's line, once
        start = data.rfind(b"\n", 0, commit.start()) + 1
        end = data.find(b"\n", commit.start(), stop)
        lines.setdefault(start, stop if end < 0 else end)
    for start in sorted(lines):
        line = data[start : lines[start]]
        if b'"assistant"' not in line:
            continue
        try:
            value = fastjson.loads(line.decode("utf-8", errors="replace"))
        except ValueError:
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


_PIECES = st.sampled_from([
    '"text"', '"isSidechain":true', '"isSidechain": true', '"isSidechain": false', '"assistant"',
    '"type": "assistant"', "x" * 390, '"tex', 't"', "\n", " ", '{"type": "text", "text": "hi"}',
    "git commit -m 'x'", '"git commit"',
])  # fmt: skip


def _line(n: int, sidechain: bool, pad: int, text: bool) -> str:
    record: dict[str, object] = {"type": "assistant", "uuid": f"u{n}", "pad": "p" * pad}
    if sidechain:
        record["isSidechain"] = True
    record["message"] = {"content": [{"type": "text", "text": f"t{n}"}] if text else []}
    return json.dumps(record, separators=(",", ":") if n % 2 else (", ", ": "))


@given(
    lines=st.lists(
        st.one_of(
            st.builds(_line, st.integers(0, 9), st.booleans(), st.integers(0, 500), st.booleans()),
            st.lists(_PIECES, max_size=6).map("".join),
        ),
        max_size=8,
    ),
    cut=st.integers(0, 4000),
)
def test_the_find_scan_takes_the_lines_the_regex_scan_took(lines: list[str], cut: int) -> None:
    data = ("\n".join(lines) + "\n").encode()
    assert transcript_tail._records(data) == _reference(data)
    stop = data.rfind(b"\n", 0, min(cut, len(data))) + 1
    assert transcript_tail._records(data, stop) == _reference(data, stop)
