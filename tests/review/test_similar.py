"""Pairing of alike items: the fast pairing finds exactly the pairs and scores of a brute force."""

from __future__ import annotations

import itertools
import math
import random

from memcli.compact import text
from memcli.model import Item
from memcli.review import similar

WORDS = [
    "cache",
    "index",
    "port",
    "version",
    "build",
    "test",
    "lint",
    "store",
    "merge",
    "branch",
    "deploy",
    "ruamel",
    "yaml",
]


def _item(number: int, title: str, body: str) -> Item:
    return Item.from_dict(
        {
            "id": f"i{number:04d}",
            "kind": "decision",
            "title": title,
            "body": body,
            "scope": {"project": "p"},
            "created": "2026-01-01T00:00:00Z",
            "updated": "2026-01-01T00:00:00Z",
        }
    )


def test_pairs_match_brute_force_scores() -> None:
    chooser = random.Random(7)
    items = [
        _item(
            n,
            " ".join(chooser.sample(WORDS, chooser.randint(1, 6))),
            " ".join(chooser.sample(WORDS, chooser.randint(0, 5))),
        )
        for n in range(120)
    ]
    threshold = 0.5
    found = {(a.id, b.id): score for a, b, score in similar.pairs(items, threshold, None)}
    expected = {}
    for a, b in itertools.combinations(items, 2):
        (ta, sa), (tb, sb) = similar.shapes(a), similar.shapes(b)
        score = max(text.jaccard(ta, tb), text.jaccard(sa, sb))
        if score >= threshold:
            expected[(a.id, b.id)] = score
    assert found == expected
    assert expected  # the sample has alike pairs


def _capped_reference(
    items: list[Item], threshold: float, partners: int
) -> dict[tuple[str, str], float]:
    """The capped pairing written plainly: each item meets the last ``partners`` earlier items
    posted under each of its rarest words, and every such pair is scored on its own."""
    shaped = [similar.shapes(item) for item in items]
    frequency: dict[str, int] = {}
    for _title, shape in shaped:
        for word in shape:
            frequency[word] = frequency.get(word, 0) + 1
    posts: tuple[dict[str, list[int]], dict[str, list[int]]] = ({}, {})
    found: dict[tuple[str, str], float] = {}
    for number, sets in enumerate(shaped):
        others: set[int] = set()
        for which in (0, 1):
            words = sorted(sets[which], key=lambda w: (frequency[w], w))
            keep = len(words) - math.ceil(threshold * len(words) - 1e-9) + 1
            for word in words[: max(keep, 0)]:
                posted = posts[which].setdefault(word, [])
                others.update(posted[-partners:])
                posted.append(number)
        for other in others:
            score = max(
                text.jaccard(shaped[other][0], sets[0]), text.jaccard(shaped[other][1], sets[1])
            )
            if score >= threshold:
                found[(items[other].id, items[number].id)] = score
    return found


def test_capped_pairs_match_a_plain_reading_of_the_rule() -> None:
    """A cluster far larger than the partner cap (merge-commit titles with a few user names):
    the pairing finds exactly the pairs and scores the rule defines, in path order."""
    chooser = random.Random(11)
    users = ["alice", "bob", "carol", "dave", "erin"]
    items = [
        _item(
            n,
            f"Merge pull request from {chooser.choice(users)}/{chooser.choice(WORDS)}",
            " ".join(chooser.sample(WORDS, chooser.randint(0, 4))),
        )
        for n in range(400)
    ]
    for threshold in (0.5, 0.6):
        found = list(similar.pairs(items, threshold, 3))
        assert {(a.id, b.id): s for a, b, s in found} == _capped_reference(items, threshold, 3)
        assert [(a.id, b.id) for a, b, _s in found] == sorted((a.id, b.id) for a, b, _s in found)
        assert len(found) > 100
