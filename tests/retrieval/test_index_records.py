"""The record a cold build makes straight from a file's mapping equals the item's record."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from memcli import model
from memcli.model import Item
from memcli.retrieval.index_records import record_of, record_of_data

BASE: dict[str, Any] = {
    "id": "abc123def456",
    "kind": "pitfall",
    "title": "Resolver backtracking on `req_install.py` (E501)",
    "body": "The resolver retried parseHTTPHeader too often;\ncap retries at 3.",
    "scope": {"project": "github.com/acme/app"},
    "created": "2025-01-02T03:04:05Z",
    "updated": "2025-02-03T04:05:06Z",
}

text = st.text(min_size=1, max_size=30).filter(lambda t: t.strip() != "")
optional: dict[str, Any] = {
    "tags": st.lists(text, max_size=4),
    "importance": st.one_of(st.none(), st.integers(0, 1), st.floats(0, 1)),
    "confidence": st.sampled_from([None, "assumed", "verified"]),
    "expires": st.sampled_from([None, "", "2030-01-01", "2030-01-01T00:00:00Z"]),
    "supersedes": st.sampled_from([None, "", "0123456789ab"]),
    "scope": st.fixed_dictionaries(
        {"project": st.sampled_from(["github.com/acme/app", "p"])},
        optional={"branch": st.sampled_from([None, "", "main", "topic/x"])},
    ),
    "anchors": st.lists(
        st.fixed_dictionaries(
            {"path": st.sampled_from(["src/a.py", "docs/x.md"])},
            optional={"symbol": st.one_of(st.none(), st.integers(0, 9), text)},
        ),
        max_size=3,
    ),
    "evidence": st.lists(st.fixed_dictionaries({"excerpt": text}), max_size=2),
    "source": st.fixed_dictionaries({"compactor": st.just("import")}),
}


def test_the_plain_item_has_the_same_record() -> None:
    assert model.validate(BASE, "x", lambda _key: 1) == []
    assert record_of_data(BASE) == record_of(Item.from_dict(BASE))


@given(st.fixed_dictionaries({}, optional=optional))
def test_any_valid_item_has_the_same_record(extra: dict[str, Any]) -> None:
    data = {**BASE, **extra}
    if model.validate(data, "x", lambda _key: 1):
        return  # only validated mappings reach the builder
    assert record_of_data(data) == record_of(Item.from_dict(data))
