"""The pairing of one kind and scope as it was before word sets became integer ranks (string word
sets, shared words counted through per-word holder sets): kept verbatim as the oracle that the
faster :func:`memcli.review.similar._group_pairs` must equal, pair for pair and score for
score (``pairs_at``, which groups the items, is unchanged)."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from itertools import chain

from memcli.model import Item
from memcli.review.similar import Pair, Shapes, shapes


def _group_pairs(
    items: list[Item], thresholds: list[float], partners: int | None, memo: Shapes
) -> list[list[Pair]]:
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
    found: list[list[tuple[int, int, float]]] = [[] for _ in thresholds]
    # per threshold: word -> the items it was posted for, of the titles and of the shapes
    posts: list[tuple[dict[str, list[int]], dict[str, list[int]]]] = [({}, {}) for _ in thresholds]
    title_holders: dict[str, set[int]] = defaultdict(set)  # every earlier item with the word
    body_holders: dict[str, set[int]] = defaultdict(set)
    newest = -partners if partners else 0
    empty: set[int] = set()
    for number, title in enumerate(titles):
        shape = bodies[number]
        ordered = (sorted(title, key=by_rank), sorted(shape, key=by_rank))
        candidates: list[set[int]] = []
        for threshold, posted in zip(thresholds, posts, strict=True):
            others: set[int] = set()  # earlier items sharing a rare title word or shape word
            for words, posting in zip(ordered, posted, strict=True):
                keep = len(words) - math.ceil(threshold * len(words) - 1e-9) + 1
                for word in words[: max(keep, 0)]:
                    earlier: list[int] | None = posting.get(word)
                    if earlier is None:
                        posting[word] = [number]
                        continue
                    others.update(earlier[newest:])
                    earlier.append(number)
            candidates.append(others)
        every = candidates[0] if len(candidates) == 1 else set().union(*candidates)
        if every:
            # the words each candidate shares with this item, one C-level intersection per word
            title_shared = Counter(
                chain.from_iterable(every & title_holders.get(w, empty) for w in title)
            )
            body_shared = Counter(
                chain.from_iterable(every & body_holders.get(w, empty) for w in shape)
            )
            for counted in (
                (title_sizes, title_shared, title_sizes[number]),
                (body_sizes, body_shared, body_sizes[number]),
            ):
                _alike(number, candidates, counted, thresholds, found)
        for word in title:
            title_holders[word].add(number)
        for word in shape:
            body_holders[word].add(number)
    return [_best(items, pairs_found) for pairs_found in found]


def _best(items: list[Item], found: list[tuple[int, int, float]]) -> list[Pair]:
    """An item alike by both its title and its shape: the higher score, as
    merge.similarity; in the order of the items."""
    best: dict[tuple[int, int], float] = {}
    for other, number, score in found:
        if score > best.get((other, number), -1.0):
            best[(other, number)] = score
    return [(items[i], items[j], score) for (i, j), score in sorted(best.items())]


Shared = tuple[list[int], Counter[int], int]


def _alike(
    number: int,
    candidates: list[set[int]],
    shared: Shared,
    thresholds: list[float],
    found: list[list[tuple[int, int, float]]],
) -> None:
    """Add (other, number, Jaccard index) to ``found[k]`` for each of ``candidates[k]`` whose
    word set is alike enough to item ``number``'s at ``thresholds[k]``: text.jaccard from the
    words each shares (``shared``: every item's size, the shared counts, this item's size), and
    0.0 where the sizes alone keep it below the threshold (the index is at most the smaller
    size over the larger)."""
    sizes, shared_counts, size = shared
    if not size:
        return
    lowest = min(thresholds)
    # an index of at least t needs at least t * size shared words (the other set has at least
    # as many words as it shares); the margin covers the rounding of the division below
    need = lowest * size - 1e-6
    single = len(candidates) == 1
    for other, count in shared_counts.items():
        if count < need:
            continue
        small, large = sizes[other], size
        if small > large:
            small, large = large, small
        ratio = small / large
        if ratio < lowest:
            continue
        score = count / (small + large - count)
        if score < lowest:
            continue
        for threshold, others, out in zip(thresholds, candidates, found, strict=True):
            if ratio >= threshold and score >= threshold and (single or other in others):
                out.append((other, number, score))
