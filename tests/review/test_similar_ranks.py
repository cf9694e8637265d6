"""The rank-based pairing equals the string-based one it replaced (similar_reference.py), pair
for pair, score for score and in the same order, for any items, thresholds and caps."""

from __future__ import annotations

from unittest import mock

from hypothesis import given
from hypothesis import strategies as st

from memcli.model import Item
from memcli.review import similar
from tests.review import similar_reference

# few words, so that many items are alike and the partner cap bites
WORDS = ["cache", "index", "port", "version", "build", "store", "merge", "yaml", "the", "5433"]
phrases = st.lists(st.sampled_from(WORDS), max_size=7).map(" ".join)
wanted_lists = st.lists(
    st.tuples(
        st.sampled_from([0.0, 0.3, 0.5, 0.6, 0.75, 1.0]),
        st.sampled_from([None, "decision", "pitfall"]),
    ),
    min_size=1,
    max_size=3,
)
partner_caps = st.sampled_from([None, 1, 2, 3, similar.MAX_PARTNERS])


def _item(number: int, kind: str, project: str, title: str, body: str) -> Item:
    return Item.from_dict(
        {
            "id": f"i{number:04d}",
            "kind": kind,
            "title": title or "x",
            "body": body,
            "scope": {"project": project},
            "created": "2026-01-01T00:00:00Z",
            "updated": "2026-01-01T00:00:00Z",
        }
    )


items_lists = st.lists(
    st.tuples(
        st.sampled_from(["decision", "pitfall"]),
        st.sampled_from(["p", "q"]),
        phrases,
        st.tuples(phrases, phrases).map("\n".join),
    ),
    max_size=60,
).map(lambda rows: [_item(n, *row) for n, row in enumerate(rows)])


def _reference(
    items: list[Item],
    wanted: list[tuple[float, str | None]],
    partners: int | None,
    shaped: similar.Shapes | None = None,
) -> list[list[similar.Pair]]:
    with mock.patch.object(similar, "_group_pairs", similar_reference._group_pairs):
        return similar.pairs_at(items, wanted, partners, shaped)


def _named(found: list[list[similar.Pair]]) -> list[list[tuple[str, str, float]]]:
    return [[(a.id, b.id, score) for a, b, score in pairs] for pairs in found]


@given(items_lists, wanted_lists, partner_caps)
def test_pairs_at_equals_the_string_pairing(
    items: list[Item], wanted: list[tuple[float, str | None]], partners: int | None
) -> None:
    got = similar.pairs_at(items, wanted, partners)
    assert _named(got) == _named(_reference(items, wanted, partners))


word_sets = st.sets(st.sampled_from(WORDS), max_size=6)


@given(
    st.lists(st.tuples(word_sets, word_sets), min_size=2, max_size=40),
    wanted_lists,
    partner_caps,
)
def test_a_title_outside_its_shape_is_still_scored(
    sets: list[tuple[set[str], set[str]]],
    wanted: list[tuple[float, str | None]],
    partners: int | None,
) -> None:
    """A caller's kept shapes (``shaped``) whose title words are not all among the shape's:
    the shortcut that skips a title when its shape shares too few words must not apply."""
    items = [_item(n, "decision", "p", "t", "") for n in range(len(sets))]
    kept = {id(item): shape for item, shape in zip(items, sets, strict=True)}
    got = similar.pairs_at(items, wanted, partners, dict(kept))
    expected = _reference(items, wanted, partners, dict(kept))
    assert _named(got) == _named(expected)
