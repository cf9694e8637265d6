"""A failure the user pasted into a prompt (a stack trace, a compiler or test error, a console
error) instead of the assistant running the failing command.

Shared by the Stop checkpoint (a hook command: no :mod:`re`) and the compactor. A prompt holds
a pasted failure only when one of its lines *is* an error signature (see
:func:`memcli.signals.failure`): a prompt that speaks about an error in prose ("when I run it
I get a TypeError") holds none, nor does a question.
"""

from memcli import signals

# Shapes a pasted line can have; "other" (any line holding "error") and "interactive" (a
# question such as "Are you sure ...?") read prose as often as output.
_PROSE_SHAPES = ("", "other", "interactive")
# A line opening like a sentence someone wrote is prose about an error, not the error.
_PROSE_OPENERS = frozenset(
    ("i", "i'm", "im", "i've", "we", "we're", "my", "our", "you", "your", "it", "it's", "its",
     "this", "that", "the", "there", "when", "why", "how", "what", "can", "could", "please",
     "after", "now", "so", "but", "and", "also", "still", "just", "hi", "hey", "ok", "okay")
)  # fmt: skip
MAX_PROMPT = 20_000


def signature(prompt: str) -> tuple[str, str]:
    """(kind, line) of the error signature a prompt holds as a line of its own, else ("", "")."""
    # "other" (the generic search's line) is prose as often as not: never searched for.
    kind, line = signals.failure(prompt[:MAX_PROMPT], fallback=False)
    if kind in _PROSE_SHAPES or not line or line.rstrip().endswith("?"):
        return "", ""
    first = line.split(maxsplit=1)[0].lower().strip(",.:;!\"'`*") if line.split() else ""
    if first in _PROSE_OPENERS:
        return "", ""
    return kind, line
