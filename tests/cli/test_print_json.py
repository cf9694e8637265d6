"""`--json` output of a mapping: exactly what json's indenting encoder writes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from memcli.cli import jsonout

SAMPLES: list[Any] = [
    {},
    {"a": []},
    {
        "counts": {"secret": 2, "duplicate": 0},
        "findings": [
            {"check": "lint", "line": 3, "detail": {}, "id": None, "ok": True, "score": 0.1 + 0.2},
            {"message": 'caf\u00e9 \u2192 "quoted"\n\ttab \\ back', "changed": ["a", ("b", 1)]},
        ],
        "notes": [[], [{}], [[1.5e300, -0.0, float("inf")]]],
    },
    {  # mappings of scalars only (written in one C call): separators inside strings and keys
        "findings": [
            {"nul\0key": "a\0b", "sep": ",\n  x", "colon": ": ", "nan": float("nan"), "n": -3},
            {"bool": False, "none": None, "emoji": "\U0001f600 \u2028 \x7f \x1f", "": ""},
        ],
        "one": [{"between": "}\0{ }\x01{ },{"}],
        "mixed": [{"a": 1}, {}, {"b": [2]}],
    },
    {  # what the one replace between two mappings looks for, inside strings and keys
        "findings": [
            {"ends": "x}", "next": "},\n    {", "},\n      {": "}", "n": 1.5},
            {"ends": "}", "deep": "\n      },\n      {\n        "},
            {"}": "{"},
        ],
        "flat": {"a": "},\n  {", "b": "}"},
    },
]


@pytest.mark.parametrize("data", SAMPLES)
def test_indented_json_matches_json_module(data: Any, capsys: pytest.CaptureFixture[str]) -> None:
    jsonout.print_json(data)
    assert capsys.readouterr().out == json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def test_non_string_keys_are_converted_as_json_does(capsys: pytest.CaptureFixture[str]) -> None:
    data = {"outer": {1: "one", None: "none", 2.5: "half"}}
    jsonout.print_json(data)
    assert capsys.readouterr().out == json.dumps(data, indent=2, ensure_ascii=False) + "\n"
