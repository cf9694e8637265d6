"""Deduplication within a session and merging with the items already in the store."""

from __future__ import annotations

from compact_helpers import Writer, prompt, said

from memcli import api
from memcli.compact import compact_session, merge
from memcli.compact.drafts import Draft


def draft(title: str, body: str = "", session: str = "s1", **fields: object) -> Draft:
    values: dict[str, object] = {
        "rule": "decision",
        "key": title.lower(),
        "kind": "decision",
        "title": title,
        "body": body or title + ".",
        "ts": "2026-11-29T10:00:00Z",
        "session": session,
        "evidence": [{"excerpt": title, "ref": f"raw/{session}.jsonl#o1", "session": session}],
    }
    values.update(fields)
    return Draft(**values)  # type: ignore[arg-type]


def test_near_duplicates_within_a_session_become_one_draft() -> None:
    kept = merge.dedupe(
        [
            draft("Use httpx instead of requests for the async client"),
            draft("Use httpx instead of requests for the async client code", tags=["httpx"]),
            draft("Store sessions in Redis because restarts must keep them"),
        ]
    )
    assert len(kept) == 2
    assert kept[0].tags == ["httpx"]


def test_one_cause_restated_at_two_steps_is_one_draft() -> None:
    """Two causes of the same code in other words are still two."""

    def cause(title: str) -> Draft:
        return draft(title, rule="pitfall", kind="pitfall", restatement=True)

    step = cause(
        "Based on our analysis, the issue is in the `_AnnotationBase.__init__` method "
        "where `self.xy = xy` directly assigns the array without making a copy"
    )
    summary = cause(
        "The issue was in the `_AnnotationBase.__init__` method in "
        "`/testbed/lib/matplotlib/text.py`, where the `xy` parameter was directly assigned "
        "to `self.xy` without making a copy"
    )
    other = cause("`_AnnotationBase.__init__` also ignores `xycoords` when the figure is closed")
    decisions = [draft(step.title), draft(summary.title)]  # not causes: the old bar
    assert len(merge.dedupe(decisions)) == 2
    kept = merge.dedupe([step, summary, other])
    assert [k.title for k in kept] == [summary.title, other.title]  # the longer body wins


def test_a_near_duplicate_of_a_hand_written_item_adds_evidence_not_text(
    memory: api.Memory,
) -> None:
    mine = memory.add(
        "pitfall", "Tests need Postgres on 5433", "Set DB_PORT.", tags=["db"], importance=0.6
    )
    incoming = draft(
        "Tests need Postgres on 5433",
        "Tests need Postgres on 5433: conftest reads DB_PORT, the CI service listens there.",
        rule="pitfall",
        kind="pitfall",
        confidence="verified",
        tags=["postgres"],
        anchors=[{"path": "tests/conftest.py"}],
        ts="2099-01-01T00:00:00Z",
    )
    outcome = merge.apply(memory.store, [incoming], mine.scope["project"])
    assert outcome.updated == [mine.id] and outcome.added == []
    merged = memory.get(mine.id)
    assert merged.body == "Set DB_PORT."  # a human's wording is never replaced
    assert merged.tags == ["db", "postgres"]
    assert merged.confidence == "verified"
    assert merged.anchors == [{"path": "tests/conftest.py"}]
    assert merged.updated == "2099-01-01T00:00:00Z" and merged.created == mine.created
    assert len(merged.evidence) == 1


def test_the_more_complete_body_wins_between_compacted_items(memory: api.Memory) -> None:
    project = str(memory.scope()["project"])
    first = merge.apply(memory.store, [draft("Pin numpy below 2 because scipy breaks")], project)
    longer = draft(
        "Pin numpy below 2 because scipy breaks",
        "Pin numpy below 2 because scipy breaks.\nscipy 1.10 calls a removed numpy API.",
        session="s2",
    )
    second = merge.apply(memory.store, [longer], project)
    assert second.updated == first.added
    item = memory.get(first.added[0])
    assert "removed numpy API" in item.body
    assert {e["session"] for e in item.evidence} == {"s1", "s2"}


def test_known_memory_said_again_is_not_new_evidence(
    memory: api.Memory, write_buffer: Writer
) -> None:
    one = write_buffer([said("We chose Redis instead of Memcached because of persistence.", "a")])
    compact_session(memory, one)
    [item] = memory.items()
    two = write_buffer([said("We chose Redis instead of Memcached because of persistence.", "b")])
    result = compact_session(memory, two)
    assert result.updated == [] and result.added == []
    assert memory.get(item.id) == item


def test_a_new_value_supersedes_and_only_the_newest_is_matched(
    memory: api.Memory, write_buffer: Writer
) -> None:
    names = []
    for session, version in (("a", "16"), ("b", "18"), ("c", "18")):
        names.append(write_buffer([prompt(f"We use Node {version} for every service.", session)]))
    first = compact_session(memory, names[0]).added
    second = compact_session(memory, names[1])
    assert second.superseded == first and len(second.added) == 1
    third = compact_session(memory, names[2])
    assert third.added == [] and third.superseded == []
    newest = memory.get(second.added[0])
    assert newest.supersedes == first[0] and "18" in newest.title
    assert len(memory.items()) == 2 and memory.lint() == []
