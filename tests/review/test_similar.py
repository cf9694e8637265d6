"""Pairing of alike items: the fast pairing finds exactly the pairs and scores of a brute force."""

from __future__ import annotations

import itertools
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
