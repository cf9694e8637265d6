"""JSON for the hook path without importing :mod:`json`.

``import json`` pulls in :mod:`re` (and with it enum and functools), which on its own costs a
third of a bare interpreter start on our machines. The C accelerator ``_json`` that
:mod:`json` itself uses needs none of that, so the hook path calls it directly. Every call
falls back to :mod:`json` if the accelerator is missing or behaves differently.
"""

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


def records(lines: "Iterable[str | bytes]") -> "list[dict[str, Any]]":
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


def jsonl_records(text: str) -> "list[dict[str, Any]]":
    """The JSON objects of the lines of ``text`` (a JSONL file's, whole lines), as
    :func:`records` finds them in ``text.splitlines()``, each line's value read in place by
    the accelerator when every line holds exactly one value (a Stop checkpoint's first read
    of a session holds hundreds of lines). A blank, torn or bad line, or any doubt, and the
    lines are read one by one through :func:`records`.

    Read in place, not joined into one array (``"[" + text.replace("\n", ",") + "]"``): the
    join made three copies of the whole read, fresh memory the process had to fault in (80
    pages of 4 KB for a first stop's 135 KB, more time than the call it saved)."""
    # Lines split at "\n" alone are those of str.splitlines() only in ASCII text without the
    # other line breaks it knows (mem writes such lines: non-ASCII is escaped).
    if _json is None or not text or not text.isascii() or _other_breaks(text):
        return records(text.splitlines())
    global _scanner
    if _scanner is None:
        _scanner = _json.make_scanner(_ScannerContext())  # type: ignore[arg-type]
    scan = _scanner
    found: list[dict[str, Any]] = []
    at, size = 0, len(text)
    try:
        while at < size:
            value, at = scan(text, at)
            if at < size and text[at] != "\n":
                return records(text.splitlines())  # more than one value on the line
            at += 1
            if isinstance(value, dict):
                found.append(value)
    except (StopIteration, ValueError, SystemError, RecursionError):
        return records(text.splitlines())  # a blank or bad line, or space around a value
    return found


def _other_breaks(text: str) -> bool:
    """Whether ASCII ``text`` holds a line break str.splitlines() knows besides "\\n"."""
    return (
        "\r" in text
        or "\x0b" in text
        or "\x0c" in text
        or "\x1c" in text
        or "\x1d" in text
        or "\x1e" in text
    )


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
