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


Shapes = dict[int, tuple[set[str], set[str]]]
Pair = tuple[Item, Item, float]


def pairs(
    items: Iterable[Item],
    threshold: float,
    partners: int | None = MAX_PARTNERS,
    shaped: Shapes | None = None,
) -> Iterator[Pair]:
    """Every pair in one kind and scope whose similarity is at least ``threshold``; with
    ``partners``, each item meets at most that many earlier items through one word (None:
    every pair, for a few items such as the ones a diff reads). ``shaped`` keeps each item's
    :func:`shapes` (by ``id``) for a caller that pairs the same items again."""
    return iter(pairs_at(items, [(threshold, None)], partners, shaped)[0])


def pairs_at(
    items: Iterable[Item],
    wanted: list[tuple[float, str | None]],
    partners: int | None = MAX_PARTNERS,
    shaped: Shapes | None = None,
) -> list[list[Pair]]:
    """:func:`pairs` at several thresholds in one pass, each (threshold, kind) of ``wanted``
    over the items of that kind (None: every kind): the same pairs as one call each, with the
    words two items share counted once for all of them."""
    groups: dict[tuple[str, str, str], list[Item]] = defaultdict(list)
    for item in items:
        groups[group_key(item)].append(item)
    memo: Shapes = {} if shaped is None else shaped
    found: list[list[Pair]] = [[] for _ in wanted]
    for key, members in groups.items():
        which = [n for n, (_t, kind) in enumerate(wanted) if kind is None or kind == key[0]]
        if len(members) < 2 or not which:
            continue
        thresholds = [wanted[n][0] for n in which]
        for n, group_found in zip(
            which, _group_pairs(members, thresholds, partners, memo), strict=True
        ):
            found[n] += group_found
    return found


def _group_pairs(
    items: list[Item], thresholds: list[float], partners: int | None, memo: Shapes
) -> list[list[Pair]]:
    titles: list[set[str]] = []
    bodies: list[set[str]] = []
    frequency: Counter[str] = Counter()
    for item in items:
        key = id(item)
        shaped = memo.get(key)
        if shaped is None:
            shaped = memo[key] = shapes(item)
        titles.append(shaped[0])
        bodies.append(shaped[1])
        frequency.update(shaped[0] | shaped[1])
    # each word as its place in one global order, rarest first (ties by the word): a word set
    # becomes a set of small integers, which sort without a key and intersect without
    # comparing strings
    rank = {w: n for n, w in enumerate(sorted(frequency, key=lambda w: (frequency[w], w)))}
    by_rank = rank.__getitem__
    title_ranks = [set(map(by_rank, title)) for title in titles]
    body_ranks = [set(map(by_rank, shape)) for shape in bodies]
    longest = max(map(len, body_ranks + title_ranks))
    # per threshold and set size: how many of the rarest words prefix filtering keeps
    keeps = [
        [max(n - math.ceil(threshold * n - 1e-9) + 1, 0) for n in range(longest + 1)]
        for threshold in thresholds
    ]
    # per threshold: other * len(items) + number -> the higher of the pair's two scores
    found: list[dict[int, float]] = [{} for _ in thresholds]
    # per threshold: word -> the items it was posted for, of the titles and of the shapes
    posts: list[tuple[dict[int, list[int]], dict[int, list[int]]]] = [({}, {}) for _ in thresholds]
    newest = -partners if partners else 0
    lowest = min(thresholds)
    title_sizes = list(map(len, title_ranks))
    body_sizes = list(map(len, body_ranks))
    # true of every shape (the title's words and the body's first line's): kept as a guard
    covered = all(t <= s for t, s in zip(title_ranks, body_ranks, strict=True))
    title_of = title_ranks.__getitem__
    for number, title in enumerate(title_ranks):
        shape = body_ranks[number]
        ordered = (sorted(title), sorted(shape))
        candidates: list[set[int]] = []
        for keep, posted in zip(keeps, posts, strict=True):
            others: set[int] = set()  # earlier items sharing a rare title word or shape word
            for words, posting in zip(ordered, posted, strict=True):
                for word in words[: keep[len(words)]]:
                    earlier: list[int] | None = posting.get(word)
                    if earlier is None:
                        posting[word] = [number]
                        continue
                    others.update(earlier[newest:])
                    earlier.append(number)
            candidates.append(others)
        every = candidates[0] if len(candidates) == 1 else set().union(*candidates)
        if every:
            size = len(title)
            # an index of at least t needs at least t * size shared words (the other set has
            # at least as many words as it shares), and one at least; the margin covers the
            # rounding of the division in _alike
            need = max(lowest * min(size, len(shape)) - 1e-6, 0.5)
            # a shape holds its title's words, so a candidate sharing fewer than ``need`` shape
            # words shares fewer title words too: its title is never intersected
            shapes_shared = [(o, n) for o in every if (n := len(shape & body_ranks[o])) >= need]
            if size:
                if not covered:
                    pool: Iterable[int] = every
                elif size == len(shape):
                    # a title that is its whole shape meets another such title exactly as
                    # the shapes meet: the same score, which the shapes record
                    pool = [o for o, _n in shapes_shared if title_sizes[o] != body_sizes[o]]
                else:
                    pool = [o for o, _n in shapes_shared]
                need = max(lowest * size - 1e-6, 0.5)
                titles_shared = [(o, n) for o in pool if (n := len(title & title_of(o))) >= need]
                _alike(number, titles_shared, size, title_sizes, candidates, thresholds, found)
            if shape:
                need = max(lowest * len(shape) - 1e-6, 0.5)
                shapes_shared = [(o, n) for o, n in shapes_shared if n >= need]
                _alike(number, shapes_shared, len(shape), body_sizes, candidates, thresholds, found)
    return [_in_order(items, best) for best in found]


def _in_order(items: list[Item], best: dict[int, float]) -> list[Pair]:
    """The pairs in the order of the items (a key is other * len(items) + number)."""
    count = len(items)
    return [(items[key // count], items[key % count], best[key]) for key in sorted(best)]


def _alike(
    number: int,
    shared: list[tuple[int, int]],
    size: int,
    sizes: list[int],
    candidates: list[set[int]],
    thresholds: list[float],
    found: list[dict[int, float]],
) -> None:
    """Keep the Jaccard index of (other, number) in ``found[k]`` (the higher where an item is
    alike by both its title and its shape, as merge.similarity) for each of ``candidates[k]``
    whose word set is alike enough to item ``number``'s at ``thresholds[k]``: text.jaccard
    from the words each shares (``shared``: (other, count); ``size``: this item's word count,
    ``sizes``: every item's), and 0.0 where the sizes alone keep it below the threshold (the
    index is at most the smaller size over the larger)."""
    lowest = thresholds[0] if len(thresholds) == 1 else min(thresholds)
    single = len(candidates) == 1
    stride = len(sizes)  # the number of items
    for other, count in shared:
        small, large = sizes[other], size
        if small > large:
            small, large = large, small
        ratio = small / large
        if ratio < lowest:
            continue
        score = count / (small + large - count)
        if score < lowest:
            continue
        key = other * stride + number
        for threshold, others, best in zip(thresholds, candidates, found, strict=True):
            if (
                ratio >= threshold
                and score >= threshold
                and (single or other in others)
                and score > best.get(key, -1.0)
            ):
                best[key] = score
