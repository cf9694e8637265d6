"""The contradiction hint: two decisions about the same thing that say different things.

A decision is flagged when another decision of the same scope is very similar to it (the
compactor's similarity, at least :data:`SIMILAR`) and yet differs in what it asserts: other
concrete values (Postgres 14 against Postgres 16), the opposite polarity (use X against do not
use X), each naming something the other does not (Redis against Postgres), or the same words
in another order (X over Y against Y over X). A pair linked by ``supersedes`` is a recorded
change of mind, not a contradiction. It is a hint for a reviewer, never a failure.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from memcli.compact import text
from memcli.model import Item
from memcli.review import similar

SIMILAR = 0.5
_NEGATIONS = "not no never don't dont doesn't doesnt avoid stop instead without disable disabled"
NEGATIONS = frozenset(f"{_NEGATIONS} drop dropped remove removed deprecated forbid".split())


@dataclass
class Contradiction:
    item: Item  # the newer decision (the one a pull request adds or changes)
    other: Item
    score: float
    reason: str

    def message(self) -> str:
        return (
            f"decision {self.item.id} ({self.item.title!r}) may contradict {self.other.id} "
            f"({self.other.title!r}): {self.reason}; if it replaces it, set "
            f"supersedes: {self.other.id}, else reconcile the two"
        )

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.item.id,
            "title": self.item.title,
            "other_id": self.other.id,
            "other_title": self.other.title,
            "similarity": round(self.score, 3),
            "reason": self.reason,
        }


def _statement(item: Item) -> str:
    first = item.body.strip().split("\n", 1)[0] if item.body else ""
    return f"{item.title}\n{first}"


def _negated(item: Item) -> bool:
    words = _statement(item).lower().replace("’", "'").split()
    return any(word.strip('.,;:!?()`"') in NEGATIONS for word in words)


@dataclass(frozen=True)
class Statement:
    """What :func:`verdict` reads of a decision, computed once per decision."""

    values: frozenset[str]
    negated: bool
    words: frozenset[str]
    order: tuple[str, ...]


def statement(item: Item) -> Statement:
    words = text.words(item.title)
    order = tuple(w for w in text.normalized(item.title).split() if w in words)
    return Statement(frozenset(text.values(item.title)), _negated(item), frozenset(words), order)


def verdict(a: Item, b: Item) -> str | None:
    """Why two alike decisions disagree; None when they say the same thing."""
    return compare(statement(a), statement(b))


def compare(a: Statement, b: Statement) -> str | None:
    mine, theirs = a.values, b.values
    if mine and theirs and mine != theirs:
        return f"different values ({', '.join(sorted(mine))} / {', '.join(sorted(theirs))})"
    if a.negated != b.negated:
        return "one of them says not to"
    only_a, only_b = a.words - b.words, b.words - a.words
    if only_a and only_b:
        return f"{', '.join(sorted(only_a))} where the other says {', '.join(sorted(only_b))}"
    if not only_a and not only_b and a.order != b.order:
        return "the same words in another order"
    return None


def among(
    items: Iterable[Item],
    new_ids: set[str] | None = None,
    shaped: similar.Shapes | None = None,
    statements: dict[int, Statement] | None = None,
    alike: list[similar.Pair] | None = None,
) -> list[Contradiction]:
    """Contradicting pairs of decisions; with ``new_ids``, only pairs that involve one of them
    (the newer of the two reported first), and every such pair (the caller passes few
    decisions); without, each decision meets at most :data:`similar.MAX_PARTNERS` alike ones
    through one word, which keeps a whole store's pairing linear. ``shaped`` and
    ``statements`` keep what was computed of each item (by ``id``) for a caller that has
    paired the same items before (prune's duplicate check); ``alike``: the pairs of
    decisions at :data:`SIMILAR`, when the caller has them already (:func:`similar.pairs_at`)."""
    decisions = [i for i in items if i.kind == "decision"]
    statements = {} if statements is None else statements
    found: list[Contradiction] = []
    partners = None if new_ids is not None else similar.MAX_PARTNERS
    if alike is None:
        alike = list(similar.pairs(decisions, SIMILAR, partners, shaped))
    for a, b, score in alike:
        if similar.linked(a, b):
            continue
        if new_ids is not None and a.id not in new_ids and b.id not in new_ids:
            continue
        for item in (a, b):
            if id(item) not in statements:
                statements[id(item)] = statement(item)
        reason = compare(statements[id(a)], statements[id(b)])
        if reason is None:
            continue
        newer, older = _order(a, b, new_ids)
        found.append(Contradiction(newer, older, score, reason))
    return sorted(found, key=lambda c: (c.item.id, c.other.id))


def _order(a: Item, b: Item, new_ids: set[str] | None) -> tuple[Item, Item]:
    if new_ids is not None and (a.id in new_ids) != (b.id in new_ids):
        return (a, b) if a.id in new_ids else (b, a)
    return (a, b) if (a.created, a.id) >= (b.created, b.id) else (b, a)
