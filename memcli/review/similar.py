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
from itertools import chain

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


Shapes = dict[int, tuple[set[str], set[str]]]


def pairs(
    items: Iterable[Item],
    threshold: float,
    partners: int | None = MAX_PARTNERS,
    shaped: Shapes | None = None,
) -> Iterator[tuple[Item, Item, float]]:
    """Every pair in one kind and scope whose similarity is at least ``threshold``; with
    ``partners``, each item meets at most that many earlier items through one word (None:
    every pair, for a few items such as the ones a diff reads). ``shaped`` keeps each item's
    :func:`shapes` (by ``id``) for a caller that pairs the same items again."""
    groups: dict[tuple[str, str, str], list[Item]] = defaultdict(list)
    for item in items:
        groups[group_key(item)].append(item)
    memo: Shapes = {} if shaped is None else shaped
    for members in groups.values():
        if len(members) > 1:
            yield from _group_pairs(members, threshold, partners, memo)


def _group_pairs(
    items: list[Item], threshold: float, partners: int | None, memo: Shapes
) -> Iterator[tuple[Item, Item, float]]:
    titles: list[set[str]] = []
    bodies: list[set[str]] = []
    frequency: Counter[str] = Counter()
    for item in items:
        key = id(item)
        if key not in memo:
            memo[key] = shapes(item)
        title, shape = memo[key]
        titles.append(title)
        bodies.append(shape)
        frequency.update(title | shape)
    # rarest first, ties by the word: one global order, so each item's sort is a C-level lookup
    rank = {w: n for n, w in enumerate(sorted(frequency, key=lambda w: (frequency[w], w)))}
    by_rank = rank.__getitem__
    title_sizes = [len(title) for title in titles]
    body_sizes = [len(shape) for shape in bodies]
    found: list[tuple[int, int, float]] = []
    title_posts: dict[str, list[int]] = {}
    body_posts: dict[str, list[int]] = {}
    title_holders: dict[str, set[int]] = defaultdict(set)  # every earlier item with the word
    body_holders: dict[str, set[int]] = defaultdict(set)
    newest = -partners if partners else 0
    for number, title in enumerate(titles):
        shape = bodies[number]
        others: set[int] = set()  # earlier items sharing a rare title word or shape word
        for words, posted in ((title, title_posts), (shape, body_posts)):
            ordered = sorted(words, key=by_rank)
            keep = len(ordered) - math.ceil(threshold * len(ordered) - 1e-9) + 1
            for word in ordered[: max(keep, 0)]:
                earlier = posted.get(word)
                if earlier is None:
                    posted[word] = [number]
                    continue
                others.update(earlier[newest:])
                earlier.append(number)
        if others:
            found += _alike(number, others, (titles, title_sizes, title_holders), threshold)
            found += _alike(number, others, (bodies, body_sizes, body_holders), threshold)
        for word in title:
            title_holders[word].add(number)
        for word in shape:
            body_holders[word].add(number)
    # an item alike by both its title and its shape: the higher score, as merge.similarity
    best: dict[tuple[int, int], float] = {}
    for other, number, score in found:
        if score > best.get((other, number), -1.0):
            best[(other, number)] = score
    for (i, j), score in sorted(best.items()):
        yield items[i], items[j], score


Words = tuple[list[set[str]], list[int], dict[str, set[int]]]


def _alike(
    number: int, others: set[int], words: Words, threshold: float
) -> list[tuple[int, int, float]]:
    """(other, number, Jaccard index) for each of ``others`` whose word set is alike enough to
    item ``number``'s: text.jaccard, counted for all of ``others`` at once (the words each
    shares, one C-level set intersection per word), and 0.0 where the sizes alone keep it below
    the threshold (the index is at most the smaller size over the larger)."""
    sets, sizes, holders = words
    size = sizes[number]
    if not size:
        return []
    empty: set[int] = set()
    shared_counts = Counter(
        chain.from_iterable(others & holders.get(w, empty) for w in sets[number])
    )
    # an index of at least t needs at least t * size shared words (the other set has at least
    # as many words as it shares); the margin covers the rounding of the division below
    need = threshold * size - 1e-6
    out: list[tuple[int, int, float]] = []
    for other, shared in shared_counts.items():
        if shared < need:
            continue
        small, large = sizes[other], size
        if small > large:
            small, large = large, small
        if small / large >= threshold:
            score = shared / (small + large - shared)
            if score >= threshold:
                out.append((other, number, score))
    return out
