"""JSON for the hook path without importing :mod:`json`.

``import json`` pulls in :mod:`re` (and with it enum and functools), which on its own costs a
third of a bare interpreter start on our machines. The C accelerator ``_json`` that
:mod:`json` itself uses needs none of that, so the hook path calls it directly. Every call
falls back to :mod:`json` if the accelerator is missing or behaves differently.
"""

from __future__ import annotations

try:
    import _json
except ImportError:  # pragma: no cover - every CPython we support has it
    _json = None  # type: ignore[assignment]


TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any


class DecodeError(ValueError):
    """The text is not one JSON document."""


class _ScannerContext:
    strict = False  # hook payloads may carry raw control characters inside strings
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    memo: dict[str, str] = {}

    @staticmethod
    def parse_constant(name: str) -> float:
        return float(name.replace("Infinity", "inf"))


_scanner = None
_encoder = None


def loads(text: str) -> object:
    global _scanner
    stripped = text.strip(" \t\r\n")
    if _json is None:
        return _std_loads(stripped)
    if _scanner is None:
        _scanner = _json.make_scanner(_ScannerContext())  # type: ignore[arg-type]
    try:
        value, end = _scanner(stripped, 0)
    except (StopIteration, ValueError, SystemError):
        # The accelerator reports errors through json.decoder, which it does not import
        # itself (SystemError without it): let the standard module parse and explain.
        return _std_loads(stripped)
    if end != len(stripped):
        return _std_loads(stripped)
    return value


def records(lines: Iterable[str | bytes]) -> list[dict[str, Any]]:
    """The JSON objects among ``lines`` (a JSONL file's); bad or torn lines are skipped."""
    found: list[dict[str, Any]] = []
    for line in lines:
        text = line.decode("utf-8", errors="replace") if isinstance(line, bytes) else line
        try:
            value = loads(text)
        except ValueError:
            continue
        if isinstance(value, dict):
            found.append(value)
    return found


def jsonl_records(text: str) -> list[dict[str, Any]]:
    """:func:`records` of a JSONL text, in one decoder call when every line is an object.

    Decoding one array of all lines lets the decoder reuse the key strings it has already
    built, a third faster on a long buffer than a call per line. Lines written by
    :func:`dumps` (one object each, every control character escaped) take that path; a
    buffer holding anything else (a torn or blank line, a line that is not an object) is
    read line by line, with the same result as :func:`records`.
    """
    lines = text.splitlines()
    whole = (
        _json is not None
        and len(lines) > 1
        and text.count("\n") + (not text.endswith("\n")) == len(lines)
        and all(line[:1] == "{" and line[-1:] == "}" for line in lines)
    )
    if whole:
        global _scanner
        if _scanner is None:
            _scanner = _json.make_scanner(_ScannerContext())  # type: ignore[arg-type]
        joined = "[" + ",".join(lines) + "]"
        try:
            value, end = _scanner(joined, 0)
        except (StopIteration, ValueError, SystemError):
            value, end = None, -1
        if (
            end == len(joined)
            and isinstance(value, list)
            and len(value) == len(lines)
            and all(isinstance(v, dict) for v in value)
        ):
            return value
    return records(lines)


def dumps(value: object) -> str:
    """Compact JSON on one line, non-ASCII escaped (safe in any log and any terminal)."""
    global _encoder
    if _json is None:
        return _std_dumps(value)
    if _encoder is None:
        _encoder = _json.make_encoder(
            None, _unserializable, _json.encode_basestring_ascii, None, ":", ",", False, True, True
        )
    return "".join(_encoder(value, 0))


def _unserializable(value: object) -> object:
    return str(value)


def _std_loads(text: str) -> object:
    import json

    try:
        return json.loads(text, strict=False)
    except ValueError as exc:
        raise DecodeError(str(exc)) from None


def _std_dumps(value: object) -> str:
    import json

    return json.dumps(value, separators=(",", ":"), default=str)
