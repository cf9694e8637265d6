"""The first step of capture: every long string cut to a bound before any other work.

Masking, prose detection and the filters cost time in proportion to the text they read; a
tool that prints a megabyte must not make the hook cost a megabyte's worth. Pure ``str``
methods only (no :mod:`re`): this runs on every tool call.
"""

from __future__ import annotations

CUT_MARKER = "\n\n[... {} characters cut ...]\n\n"
# `bound`: the longest text capture works on, and how much of it is the head.
BOUND_CHARS = 24_000
BOUND_HEAD = 6_000
BOUND_MIDDLE_LINES = 40  # error-like lines kept from what `bound` cuts
_BOUND_WORDS = ("error", "fail", "exception", "traceback", "fatal", "panic")


def bound(text: str, limit: int = BOUND_CHARS) -> str:
    """A text of at most about ``limit`` characters, before any other work looks at it.

    A longer text keeps its first quarter and its last three quarters of ``limit``, cut at line
    ends, and between them up to BOUND_MIDDLE_LINES error-like lines of what was cut (found
    with plain ``str.find``, so that a megabyte costs about a millisecond). Each cut is a
    marker between blank lines, so a private key cut short is still masked up to the blank
    line; a tail that starts inside a key block starts after the block's end line.
    """
    if len(text) <= limit:
        return text
    head_size = min(BOUND_HEAD, limit // 4)
    head_end = text.rfind("\n", 0, head_size) + 1 or head_size
    tail_from = text.find("\n", len(text) - (limit - head_size)) + 1 or len(text) - limit // 2
    tail = text[max(tail_from, head_end) :]
    end, begin = tail.find("-----END "), tail.find("-----BEGIN ")
    if end >= 0 and (begin < 0 or end < begin):
        tail = tail[tail.find("\n", end) + 1 or len(tail) :]
    middle = _middle_lines(text[head_end : len(text) - len(tail)], BOUND_MIDDLE_LINES)
    cut = len(text) - head_end - len(tail) - sum(len(line) + 1 for line in middle)
    kept = "\n".join(middle) + "\n\n" if middle else ""
    return text[:head_end] + CUT_MARKER.format(cut) + kept + tail


def _middle_lines(text: str, most: int) -> list[str]:
    """Up to ``most`` lines holding an error word, the first and the last ones, in order."""
    lower = text.lower()
    half = max(most // 2, 1)
    starts: set[int] = set()
    for word in _BOUND_WORDS:
        at = lower.find(word)
        if at < 0:  # absent: the backward search would scan the whole text again for nothing
            continue
        for _ in range(half):
            if at < 0:
                break
            starts.add(lower.rfind("\n", 0, at) + 1)
            at = lower.find(word, lower.find("\n", at) + 1 or len(lower))
        at = lower.rfind(word)
        for _ in range(half):
            if at < 0:
                break
            line_start = lower.rfind("\n", 0, at) + 1
            starts.add(line_start)
            at = lower.rfind(word, 0, line_start) if line_start else -1
    ordered = sorted(starts)
    chosen = ordered if len(ordered) <= most else ordered[:half] + ordered[-half:]
    lines = []
    for start in chosen:
        stop = text.find("\n", start)
        lines.append(text[start : stop if stop >= 0 else len(text)][:500])
    return lines
