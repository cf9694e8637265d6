from __future__ import annotations

import pytest

from memcli import ids, model


def line_one(_field: str) -> int:
    return 1


def valid() -> dict[str, object]:
    return {
        "id": "abcdef1234",
        "kind": "pitfall",
        "title": "Postgres listens on 5433 in tests",
        "body": "Root cause: conftest pinned 5432.\n",
        "scope": {"project": "github.com/org/shop"},
        "created": "2026-11-29T10:00:00Z",
        "updated": "2026-11-29T10:00:00Z",
    }


def test_a_valid_item_has_no_problems() -> None:
    assert model.validate(valid(), "x.yaml", line_one) == []


@pytest.mark.parametrize(
    ("change", "field", "fragment"),
    [
        ({"kind": "rumour"}, "kind", "not one of"),
        ({"title": "two\nlines"}, "title", "one line"),
        ({"title": 42}, "title", "must be text"),
        ({"importance": 2}, "importance", "0 to 1"),
        ({"importance": True}, "importance", "0 to 1"),
        ({"created": "yesterday"}, "created", "ISO 8601"),
        ({"id": "../../x"}, "id", "invalid id"),
        ({"id": "ABC"}, "id", "invalid id"),
        ({"tags": "db"}, "tags", "list"),
        ({"scope": {"branch": "main"}}, "scope", "project is missing"),
        ({"anchors": [{"symbol": "f"}]}, "anchors", "no path"),
        ({"colour": "red"}, "colour", "unknown key"),
        ({"confidence": "sure"}, "confidence", "not one of"),
    ],
)
def test_validation_names_the_field(change: dict[str, object], field: str, fragment: str) -> None:
    data = {**valid(), **change}
    problems = model.validate(data, "items/x.yaml", lambda name: 7)
    assert problems, f"{change} should be rejected"
    assert any(p.field == field and fragment in p.message for p in problems), problems
    assert str(problems[0]).startswith("items/x.yaml:7: ")


def test_missing_required_fields_are_each_reported() -> None:
    problems = model.validate({"id": "abc"}, "f.yaml", line_one)
    missing = {p.field for p in problems if p.message == "missing"}
    assert missing == {"kind", "title", "body", "scope", "created", "updated"}


def test_new_ids_are_valid_unique_and_safe_file_names() -> None:
    made = {ids.new_id() for _ in range(2000)}
    assert len(made) == 2000
    assert all(ids.is_valid(i) and "/" not in i and "." not in i for i in made)


def test_item_round_trips_through_dict() -> None:
    item = model.Item.from_dict(valid())
    assert model.Item.from_dict(item.to_dict()) == item
    assert list(item.to_dict())[:4] == ["id", "kind", "title", "body"]


def test_the_kind_type_lists_exactly_the_kinds() -> None:
    from typing import get_args

    from memcli import model

    assert get_args(model.Kind) == model.KINDS


def test_a_file_with_very_many_problems_reports_the_first_and_counts_the_rest() -> None:
    data = {"id": "abcdefgh12", "kind": "fact", "title": "t", "anchors": [{"p": "x"}] * 5000}
    looked_up: list[str] = []

    def line_of(name: str) -> int:
        looked_up.append(name)
        return 1

    problems = model.validate(data, "a.yaml", line_of)
    assert len(problems) == model.MAX_PROBLEMS + 1 and len(looked_up) == model.MAX_PROBLEMS
    assert problems[-1].message.endswith("more problems not shown")


def test_a_problem_is_a_frozen_value_with_its_fields() -> None:
    """Problem is written out (no dataclasses on the path of a search after an edit); it keeps
    what the frozen dataclass gave: equality, hash, repr, vars() for JSON, no assignment."""
    import pickle

    problem = model.Problem("a.yaml", 3, "title", "must be text")
    same = model.Problem("a.yaml", 3, "title", "must be text")
    assert problem == same and hash(problem) == hash(same) and len({problem, same}) == 1
    assert problem != model.Problem("a.yaml", 4, "title", "must be text")
    assert str(problem) == "a.yaml:3: title: must be text"
    assert repr(problem) == (
        "Problem(path='a.yaml', line=3, field='title', message='must be text')"
    )
    assert vars(problem) == {
        "path": "a.yaml",
        "line": 3,
        "field": "title",
        "message": "must be text",
    }
    assert pickle.loads(pickle.dumps(problem)) == problem
    with pytest.raises(AttributeError):
        problem.line = 4  # type: ignore[misc]
