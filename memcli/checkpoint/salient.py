"""The most telling sentence of a message that no other rule reads: an assistant's closing
message or mid-turn note (:mod:`memcli.checkpoint.sayings`) or a typed prompt
(:mod:`memcli.checkpoint.prompted`).

Most lessons a session states are not said in a lesson's words: "The API key is visible in
`ps` output since it is passed as argv", "`unsubscribeAll()` should only disconnect from the
agent, not clear the user's listeners", "Even `ds.z.copy()` (without deep=True) changes the
dtype". What such a sentence has is a shape, not a wording: it names something concrete (a
file, a function, a flag, a version), says why or what follows, and says what a thing does
not do or only does. :func:`most_telling` picks the sentence of a message that has two of
the three (a closing message gives its two most telling, a note its one); the model, which
holds the context, judges whether it is a lesson (the checkpoint asks after everything
else, within a budget of its own: see :mod:`memcli.checkpoint.choose`).

Hook path: plain string tests and :mod:`memcli.statements`' cached pattern only.
"""

from memcli import phrasing, redirects, statements
from memcli.checkpoint.entries import add, known

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from collections.abc import Callable

MIN_WORDS, MAX_WORDS = 7, 50
# What a thing does not do, or only does ("isn't", "never", "only", "without", "unlike").
# ("instead" is a reason word of statements.with_reason already: not counted twice)
_LIMITS = (" not ", "n't ", " never ", " only ", " without ", " no longer ", " unlike ")
# A plan, an intent or a report of one's own work, not a finding ("I need to inspect ...",
# "We should ...", "Let me ...", "Now ...", "I've ported ...").
_OWN_WORK = ("i ", "i'", "we need", "we should", "we could", "we can ", "we'll", "let me",
             "let's", "now ", "next", "then ", "first", "or we", "you can ", "you could ",
             "you may ", "you might ", "if you ")  # fmt: skip
TELLING = 2  # of the three marks


def offer(
    unread: list[str],
    state: dict[str, object],
    record: dict[str, object] | None,
    who: str,
    mask: "Callable[[str], str] | None" = None,
    extra: dict[str, object] | None = None,
    most: int = 1,
) -> None:
    """Make the most telling of ``unread`` (sentences no rule read) a finding to judge,
    ``who`` said it ("you said", "the user said"); ``mask``: the sentences are not masked
    yet (read straight from a transcript); ``most``: how many to offer, the most telling
    first."""
    for _ in range(most):
        sentence = most_telling(unread)
        if not sentence:
            return
        unread = [s for s in unread if s is not sentence]
        if mask is not None and known(state, "fact", sentence):
            continue
        if mask is not None:
            sentence = mask(sentence)
        add(state, "fact", sentence.lower(), [f'{who}: "{sentence}"'], record, form="telling",
            **(extra or {}))  # fmt: skip


def most_telling(sentences: list[str]) -> str:
    """The first sentence with the most marks (at least :data:`TELLING`), or ``""``."""
    best, best_marks = "", TELLING - 1
    for sentence in sentences:
        marks = _marks(sentence)
        if marks > best_marks:
            best, best_marks = sentence, marks
    return best


def _marks(sentence: str) -> int:
    words = len(sentence.split())
    if "?" in sentence or not MIN_WORDS <= words <= MAX_WORDS or sentence.endswith(":"):
        return 0
    lowered = sentence.lower()
    if lowered.startswith(_OWN_WORK) or lowered.startswith(("|", "✅", "❌")):
        return 0  # a plan, a table row or a checklist line
    padded = f" {lowered.replace(',', ' ').replace(';', ' ').replace('(', ' ')} "
    marks = (
        int(redirects.concrete(sentence))
        + int(statements.with_reason(sentence))
        + int(any(limit in padded for limit in _LIMITS))
    )
    if marks >= TELLING and phrasing.narration(sentence):
        return 0
    return marks
