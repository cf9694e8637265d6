"""Pairs of alike items in one scope, without comparing every item with every other.

Similarity is the compactor's (:func:`memcli.compact.merge.similarity`: title words alike, or
title and first body line alike), so that `mem prune` calls duplicates exactly what `mem compact`
would have merged. Candidates come from prefix filtering: two word sets with a Jaccard index of
at least ``t`` share a word among the ``n - ceil(t * n) + 1`` rarest of each, so only items that
share a rare word are ever compared. On a 15,000-item store that is a few thousand comparisons
instead of a hundred million. Where a word is shared by very many items, each is compared with
the :data:`MAX_PARTNERS` items before it through that word, so the work stays linear even in a
cluster of thousands of alike items (a hint may then name fewer of the alike pairs).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator

from memcli.compact import merge, text
from memcli.compact.drafts import Draft
from memcli.model import Item

# Through one word, an item is compared with at most this many earlier items: in a cluster of
# thousands of alike items (merge commits, generated titles) each is compared with its nearest
# MAX_PARTNERS instead of all of them, which keeps pairing linear in the store.
MAX_PARTNERS = 24


def group_key(item: Item) -> tuple[str, str, str]:
    """Items are only alike within one kind and one scope (project and branch)."""
    return item.kind, item.scope.get("project", ""), item.scope.get("branch", "")


def similarity(a: Item, b: Item) -> float:
    return merge.similarity(_as_draft(a), b)


def _as_draft(item: Item) -> Draft:
    return Draft(
        rule="", key="", kind=item.kind, title=item.title, body=item.body, ts="", session=""
    )


def different_values(a: Item, b: Item) -> bool:
    """The titles name different concrete values (a port, a version): a changed fact."""
    return merge.changed_value(_as_draft(a), b)


def linked(a: Item, b: Item) -> bool:
    return a.supersedes == b.id or b.supersedes == a.id


def shapes(item: Item) -> tuple[set[str], set[str]]:
    first = item.body.strip().split("\n", 1)[0] if item.body else ""
    return text.words(item.title), text.words(f"{item.title}\n{first}")


def pairs(
    items: Iterable[Item], threshold: float, partners: int | None = MAX_PARTNERS
) -> Iterator[tuple[Item, Item, float]]:
    """Every pair in one kind and scope whose similarity is at least ``threshold``; with
    ``partners``, each item meets at most that many earlier items through one word (None:
    every pair, for a few items such as the ones a diff reads)."""
    groups: dict[tuple[str, str, str], list[Item]] = defaultdict(list)
    for item in items:
        groups[group_key(item)].append(item)
    for members in groups.values():
        if len(members) > 1:
            yield from _group_pairs(members, threshold, partners)


def _group_pairs(
    items: list[Item], threshold: float, partners: int | None
) -> Iterator[tuple[Item, Item, float]]:
    shaped = [shapes(item) for item in items]
    frequency: Counter[str] = Counter()
    for title, shape in shaped:
        frequency.update(title | shape)
    # rarest first, ties by the word: one global order, so each item's sort is a C-level lookup
    rank = {w: n for n, w in enumerate(sorted(frequency, key=lambda w: (frequency[w], w)))}
    titles = [title for title, _shape in shaped]
    bodies = [shape for _title, shape in shaped]
    found: list[tuple[int, int, float]] = []
    postings: tuple[dict[str, list[int]], ...] = (defaultdict(list), defaultdict(list))
    for number, sets in enumerate(shaped):
        others: set[int] = set()  # earlier items sharing a rare title word or shape word
        for which in (0, 1):
            words = sorted(sets[which], key=rank.__getitem__)
            keep = len(words) - math.ceil(threshold * len(words) - 1e-9) + 1
            posted = postings[which]
            for word in words[: max(keep, 0)]:
                others.update(posted[word][-partners:] if partners else posted[word])
                posted[word].append(number)
        title, shape = sets
        for other in others:
            # merge.similarity over the word sets computed once above, not once per pair
            score = max(
                _jaccard(titles[other], title, threshold),
                _jaccard(bodies[other], shape, threshold),
            )
            if score >= threshold:
                found.append((other, number, score))
    found.sort()
    for i, j, score in found:
        yield items[i], items[j], score


def _jaccard(a: set[str], b: set[str], threshold: float) -> float:
    """:func:`text.jaccard`, or 0.0 when the sizes alone keep it below ``threshold`` (the
    index is at most the smaller size over the larger, and a division rounds monotonically)."""
    small, large = len(a), len(b)
    if small > large:
        small, large = large, small
    if not small or small / large < threshold:
        return 0.0
    shared = len(a & b)
    return shared / (small + large - shared)
