"""A few changed items update the index through a delta: the same answers as a full rebuild,
without recomputing every posting."""

from __future__ import annotations

import os
from pathlib import Path

from conftest import AddItem, age_files

from memcli.paths import StorePaths
from memcli.retrieval import delta, index_builder, loader, persisted
from memcli.retrieval.search import search

QUERIES = ["kafka", "redis timeout", "postgres port", "flaky", "cache", "edited wording"]
TOPICS = ["kafka consumer lag", "redis timeout in CI", "postgres port 5433", "flaky test"]


def replace(path: Path, old: str, new: str) -> None:
    """Rewrite a file as mem, git and most editors do: a new file renamed over it."""
    temporary = path.with_name(".tmp-edit")
    temporary.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    os.replace(temporary, path)


def answers(repo: Path) -> dict[str, list[str]]:
    return {q: sorted(r.id for r in search(repo, q, limit=50)) for q in QUERIES}


def test_edits_additions_and_removals_answer_as_a_full_rebuild(
    repo: Path, add_item: AddItem
) -> None:
    items = [add_item(f"{TOPICS[n % 4]} number {n}", f"Body {n} about cache.") for n in range(24)]
    age_files(repo)
    paths = StorePaths(repo)
    index_builder.build(paths)
    index_file = Path(loader.index_dir(paths), persisted.INDEX_NAME)
    before = index_file.stat().st_mtime_ns
    replace(paths.item_file(items[3].id), "number 3", "edited wording 3")
    paths.item_file(items[5].id).unlink()
    added = add_item("A fresh kafka partition pitfall")
    (paths.items / "brokenitem.yaml").write_text("id: brokenitem\ntitle: [unclosed\n")
    report = index_builder.build(paths)
    assert (report.parsed, report.added, report.changed, report.removed) == (3, 2, 1, 1)
    assert index_file.stat().st_mtime_ns == before  # the full index was not rewritten
    assert Path(loader.index_dir(paths), delta.DELTA_NAME).exists()
    assert report.documents == 24 and len(report.problems) == 1
    overlaid = answers(repo)
    index = loader.open_loaded(loader.index_dir(paths))
    assert isinstance(index, delta.OverlaidIndex)
    try:
        assert index.count == 24
        titles = index.display["titles"]
        assert [index.title(d) for d in range(index.count)] == titles
        assert sorted(index.docs["ids"]) == sorted(
            {i.id for i in items} - {items[5].id} | {added.id}
        )
        updated = index.numbers["updated_ts"]
        order = list(index.recency_order())
        assert sorted(order) == list(range(index.count))
        assert order == sorted(order, key=lambda d: (-updated[d], d))
    finally:
        index.close()
    assert added.id in overlaid["kafka"] and items[5].id not in overlaid["cache"]
    assert items[3].id in overlaid["edited wording"]
    index_builder.build(paths, force=True)
    assert not Path(loader.index_dir(paths), delta.DELTA_NAME).exists()
    assert answers(repo) == overlaid


def test_a_second_edit_and_an_undo_stack_on_the_delta(repo: Path, add_item: AddItem) -> None:
    items = [add_item(f"{TOPICS[n % 4]} number {n}") for n in range(8)]
    age_files(repo)
    paths = StorePaths(repo)
    index_builder.build(paths)
    path = paths.item_file(items[0].id)
    original = path.read_text(encoding="utf-8")
    replace(path, "kafka consumer lag", "memcached slab size")
    assert [r.id for r in search(repo, "memcached")] == [items[0].id]
    replace(paths.item_file(items[1].id), "redis timeout", "memcached eviction")
    assert {r.id for r in search(repo, "memcached")} == {items[0].id, items[1].id}
    temporary = path.with_name(".tmp-undo")
    temporary.write_text(original, encoding="utf-8")
    os.replace(temporary, path)  # back to what the full index holds
    assert [r.id for r in search(repo, "memcached")] == [items[1].id]
    assert items[0].id in {r.id for r in search(repo, "kafka")}


def test_many_changes_make_a_full_build(repo: Path, add_item: AddItem, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(delta, "MIN_CHANGES", 2)
    items = [add_item(f"{TOPICS[n % 4]} number {n}") for n in range(6)]
    age_files(repo)
    paths = StorePaths(repo)
    index_builder.build(paths)
    for item in items[:4]:
        replace(paths.item_file(item.id), "number", "changed number")
    report = index_builder.build(paths)
    assert report.rewritten and report.parsed == 4
    assert not Path(loader.index_dir(paths), delta.DELTA_NAME).exists()


def test_a_damaged_delta_is_ignored_and_rebuilt(repo: Path, add_item: AddItem) -> None:
    items = [add_item(f"{TOPICS[n % 4]} number {n}") for n in range(4)]
    age_files(repo)
    paths = StorePaths(repo)
    index_builder.build(paths)
    replace(paths.item_file(items[0].id), "kafka consumer lag", "memcached slab size")
    assert [r.id for r in search(repo, "memcached")] == [items[0].id]
    Path(loader.index_dir(paths), delta.DELTA_NAME).write_bytes(b"garbage")
    assert [r.id for r in search(repo, "memcached")] == [items[0].id]


def test_a_superseding_item_added_through_the_delta_ranks_as_in_a_full_build(
    repo: Path, add_item: AddItem
) -> None:
    old = add_item("Kafka retries need a cap")
    others = [add_item(f"{TOPICS[n % 4]} number {n}") for n in range(4)]
    age_files(repo)
    paths = StorePaths(repo)
    index_builder.build(paths)
    new = add_item("Kafka retries need a cap of five", supersedes=old.id)
    replace(paths.item_file(others[0].id), "number", "renamed number")
    overlaid = [r.id for r in search(repo, "kafka retries")]
    assert Path(loader.index_dir(paths), delta.DELTA_NAME).exists()
    index_builder.build(paths, force=True)
    assert overlaid == [r.id for r in search(repo, "kafka retries")]
    assert overlaid[0] == new.id
