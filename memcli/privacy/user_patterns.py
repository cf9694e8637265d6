"""The user's own masking patterns (``redaction.extra_patterns``), read as untrusted input.

They come from the committed ``.memory/config.yaml``, so a stranger's pull request can supply
one, and Python's regex engine backtracks: ``(a+)+$`` takes minutes on 31 characters. So:

- a static check rejects what can backtrack without bound: a backreference, a repeat nested in
  a repeat (``(a+)+``, ``(\\w*)*``) and a repeated alternation whose branches do not start with
  distinct literals (``(a|ab)+``). A possessive inner repeat (``(?:a++)+``) is allowed. The
  check's answers are kept in fastre's cache, so the hook path does not import :mod:`re`;
- what passes runs under a time bound (``SIGALRM``, on the main thread): a pattern that still
  runs too long is dropped, and the text it was running on is masked whole (failing closed).

`mem lint` and `mem prune --check` report a rejected pattern with its file and line.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Sequence

MAX_PATTERN_CHARS = 500
SECONDS_PER_TEXT = 0.25  # for one pattern on one text; far above what a sound pattern needs


class Expired(Exception):
    """A user pattern ran past its time bound."""


def problems(patterns: Sequence[str]) -> list[str | None]:
    """For each pattern, why it is refused (a one-line reason), or None when it may run."""
    from memcli.fastparse import fastre

    key = tuple(patterns)
    saved = fastre.memo_get("user_patterns", key)
    if isinstance(saved, list) and len(saved) == len(key):
        return saved
    found = [problem(p) for p in key]
    fastre.memo_put("user_patterns", key, found)
    return found


def problem(pattern: object) -> str | None:
    """Why `pattern` may not run, or None."""
    if not isinstance(pattern, str) or not pattern:
        return "not a non-empty string"
    if len(pattern) > MAX_PATTERN_CHARS:
        return f"longer than {MAX_PATTERN_CHARS} characters"
    import re

    try:
        re.compile(pattern)
        parser = __import__("re._parser", fromlist=["parse"])
        parsed = parser.parse(pattern)
    except (re.error, RecursionError, ImportError, OverflowError) as exc:
        return f"not a valid regular expression ({exc})"
    constants = __import__("re._constants", fromlist=["MAXREPEAT"])
    try:
        return _walk(list(parsed), False, constants)
    except RecursionError:
        return "nested too deeply"


def _walk(items: list[tuple[object, object]], repeated: bool, c: object) -> str | None:
    """The first construct in `items` (a parsed pattern) that can backtrack without bound;
    `repeated` when an enclosing repeat can run many times."""
    for op, arg in items:
        name = str(op)
        if name in ("GROUPREF", "GROUPREF_EXISTS", "GROUPREF_IGNORE", "GROUPREF_LOC_IGNORE"):
            return "uses a backreference, which can take exponential time; drop it"
        if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            high: int = arg[1]  # type: ignore[index]
            body: object = arg[2]  # type: ignore[index]
            many = high > 16  # MAXREPEAT, or a large bound
            if many and repeated and name != "POSSESSIVE_REPEAT":
                return (
                    "nests a repeat inside a repeat (like (a+)+), which can take exponential "
                    "time; use a possessive repeat (a++) or an atomic group (?>...)"
                )
            inner = repeated or (many and name != "POSSESSIVE_REPEAT")
            found = _walk(list(body), inner, c)  # type: ignore[call-overload]
            if found:
                return found
        elif name == "SUBPATTERN":
            found = _walk(list(arg[-1]), repeated, c)  # type: ignore[index]
            if found:
                return found
        elif name in ("ASSERT", "ASSERT_NOT", "ATOMIC_GROUP"):
            body = arg[-1] if isinstance(arg, tuple) else arg
            found = _walk(list(body), repeated, c)  # type: ignore[arg-type]
            if found:
                return found
        elif name == "BRANCH":
            branches = arg[1]  # type: ignore[index]
            if repeated and not _distinct_starts(branches):
                return (
                    "repeats an alternation whose branches can match the same text (like "
                    "(a|ab)+), which can take exponential time"
                )
            for branch in branches:
                found = _walk(list(branch), repeated, c)
                if found:
                    return found
    return None


def _distinct_starts(branches: list[object]) -> bool:
    firsts = []
    for branch in branches:
        items = list(branch)  # type: ignore[call-overload]
        if not items or str(items[0][0]) != "LITERAL":
            return False
        firsts.append(items[0][1])
    return len(set(firsts)) == len(firsts)


def _expire(signum: int, frame: object) -> None:
    raise Expired


def spans(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    """Every non-empty match of `pattern` in `text`, within the time bound (on the main
    thread; elsewhere only the static check stands). Raises :class:`Expired`."""
    import _signal  # type: ignore[import-not-found]  # signal without enum: cheap

    try:
        previous = _signal.signal(_signal.SIGALRM, _expire)
    except ValueError:  # not the main thread: no alarm here
        return [(m.start(), m.end()) for m in pattern.finditer(text) if m.end() > m.start()]
    pending = _signal.setitimer(_signal.ITIMER_REAL, SECONDS_PER_TEXT)
    try:
        return [(m.start(), m.end()) for m in pattern.finditer(text) if m.end() > m.start()]
    finally:
        _signal.setitimer(_signal.ITIMER_REAL, 0)
        _signal.signal(_signal.SIGALRM, previous)
        if pending[0] > 0:  # someone else's alarm (a test runner's timeout): put it back
            _signal.setitimer(_signal.ITIMER_REAL, *pending)
