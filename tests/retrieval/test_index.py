"""The persisted index: incremental rebuilds, staleness, damage, broken item files."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import AddItem, age_files

from memcli import api
from memcli.paths import StorePaths
from memcli.retrieval import index_builder, index_files, loader, persisted
from memcli.retrieval.search import search


def test_a_rebuild_parses_only_added_and_changed_files(
    repo: Path, add_item: AddItem, parsed: list[str]
) -> None:
    items = [add_item(f"Pitfall number {n}", f"Body {n}.") for n in range(5)]
    age_files(repo)
    paths = StorePaths(repo)
    first = index_builder.build(paths)
    assert first.parsed == 5 and first.documents == 5
    parsed.clear()

    assert index_builder.build(paths).parsed == 0
    assert parsed == []

    changed = paths.item_file(items[2].id)
    changed.write_text(changed.read_text().replace("Body 2.", "Body two, rewritten."))
    new = add_item("A brand new item")
    paths.item_file(items[4].id).unlink()
    report = index_builder.build(paths)
    assert sorted(parsed) == sorted([changed.name, paths.item_file(new.id).name])
    assert (report.parsed, report.added, report.changed, report.removed) == (2, 1, 1, 1)
    assert report.documents == 5


def test_a_first_build_scans_the_files_once_and_a_later_one_sees_an_edit(
    repo: Path, add_item: AddItem, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no index yet (a fresh clone) only the parse cache's scan runs; with one, the
    builder's own scan still compares it with the files."""
    items = [add_item(f"Pitfall number {n}") for n in range(3)]
    age_files(repo)
    paths = StorePaths(repo)
    scans: list[str] = []
    scan = index_files.scan_items

    def counting(items_dir: str) -> tuple[list[str], list[int], list[int]]:
        scans.append(items_dir)
        return scan(items_dir)

    monkeypatch.setattr(index_files, "scan_items", counting)
    assert index_builder.build(paths).documents == 3
    assert scans == []
    changed = paths.item_file(items[1].id)
    changed.write_text(changed.read_text().replace("Pitfall number 1", "Renamed pitfall"))
    report = index_builder.build(paths)
    assert len(scans) == 1 and report.changed + report.parsed >= 1
    assert [r.title for r in search(repo, "renamed", limit=5)] == ["Renamed pitfall"]


def test_a_touched_file_is_hashed_but_not_parsed(
    repo: Path, add_item: AddItem, parsed: list[str]
) -> None:
    item = add_item("Touch me")
    age_files(repo)
    paths = StorePaths(repo)
    index_builder.build(paths)
    parsed.clear()
    os.utime(paths.item_file(item.id))
    report = index_builder.build(paths)
    assert (report.hashed, report.parsed) == (1, 0)
    assert parsed == []


def test_a_no_op_build_rewrites_nothing(repo: Path, add_item: AddItem) -> None:
    add_item("Stable item")
    age_files(repo)
    paths = StorePaths(repo)
    index_builder.build(paths)
    index_file = Path(loader.index_dir(paths), persisted.INDEX_NAME)
    before = index_file.stat().st_mtime_ns
    report = index_builder.build(paths)
    assert not report.rewritten
    assert index_file.stat().st_mtime_ns == before


def test_search_sees_an_in_place_edit_added_and_removed_files(
    repo: Path, add_item: AddItem
) -> None:
    item = add_item("Redis times out in CI", "Use the service container.")
    assert [r.id for r in search(repo, "redis")] == [item.id]
    path = StorePaths(repo).item_file(item.id)
    with open(path, "r+", encoding="utf-8") as handle:  # in place: the folder mtime stays
        text = handle.read().replace("Redis", "Memcached")
        handle.seek(0)
        handle.write(text)
        handle.truncate()
    assert search(repo, "redis") == []
    assert [r.id for r in search(repo, "memcached")] == [item.id]
    other = add_item("Memcached needs a bigger slab")
    assert {r.id for r in search(repo, "memcached")} == {item.id, other.id}
    path.unlink()
    assert [r.id for r in search(repo, "memcached")] == [other.id]


def test_an_in_place_edit_is_found_by_the_full_check(repo: Path, add_item: AddItem) -> None:
    item = add_item("Old wording")
    age_files(repo)
    paths = StorePaths(repo)
    index_builder.build(paths)
    folder = loader.index_dir(paths)
    # A verified state: the quick check alone would now call the index fresh.
    index_files.write_state(folder, _generation(paths), loader.dir_mtime(str(paths.items)), 1 << 62)
    path = paths.item_file(item.id)
    stat = path.stat()
    path.write_text(path.read_text().replace("Old wording", "Fresh wording"))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    assert search(repo, "fresh", check="auto") == []  # within the minute: not seen yet
    assert [r.id for r in search(repo, "fresh", check="full")] == [item.id]


def test_a_search_someone_asks_for_sees_an_in_place_edit_at_once(
    repo: Path, add_item: AddItem
) -> None:
    """`mem search` (the console script) and `Memory.search` check every file; only the hooks
    (index, recall) trust a verified folder mtime for a minute."""
    item = add_item("Old wording")
    age_files(repo)
    paths = StorePaths(repo)
    index_builder.build(paths)
    folder = loader.index_dir(paths)
    index_files.write_state(folder, _generation(paths), loader.dir_mtime(str(paths.items)), 1 << 62)
    path = paths.item_file(item.id)
    stat = path.stat()
    with open(path, "r+", encoding="utf-8") as handle:  # in place: same inode, folder untouched
        text = handle.read().replace("Old wording", "Fresh wording")
        handle.seek(0)
        handle.write(text)
        handle.truncate()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    assert path.stat().st_ino == stat.st_ino
    assert search(repo, "fresh", check="auto") == []  # what a hook sees within the minute
    mem = shutil.which("mem", path=os.path.dirname(sys.executable))
    assert mem is not None
    out = subprocess.run(
        [mem, "search", "--json", "fresh"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout
    assert [hit["id"] for hit in json.loads(out)] == [item.id]
    assert [r.id for r in api.Memory.open(repo).search("fresh").results] == [item.id]


def _generation(paths: StorePaths) -> int:
    file = index_files.open_file(loader.index_dir(paths))
    assert file is not None
    try:
        return int(file.header["generation"])
    finally:
        file.close()


def test_the_quick_check_is_stat_based_and_the_index_is_reused(
    repo: Path, add_item: AddItem, parsed: list[str]
) -> None:
    add_item("Quick check item")
    age_files(repo)
    search(repo, "quick")
    search(repo, "quick")
    parsed.clear()
    for _ in range(3):
        assert len(search(repo, "quick")) == 1
    assert parsed == []


def test_a_damaged_or_foreign_index_is_rebuilt(repo: Path, add_item: AddItem) -> None:
    item = add_item("Survives damage")
    search(repo, "damage")
    index_file = Path(loader.index_dir(StorePaths(repo)), persisted.INDEX_NAME)
    index_file.write_bytes(b"garbage")
    assert [r.id for r in search(repo, "damage")] == [item.id]
    data = index_file.read_bytes()
    index_file.write_bytes(data[: len(data) // 2])  # truncated sections
    (Path(loader.index_dir(StorePaths(repo))) / index_files.STATE_NAME).unlink()
    assert [r.id for r in search(repo, "damage")] == [item.id]


def test_a_broken_item_file_is_skipped_and_reported(repo: Path, add_item: AddItem) -> None:
    good = add_item("Readable item about kafka")
    broken = StorePaths(repo).items / "brokenitem.yaml"
    broken.write_text("id: brokenitem\ntitle: [unclosed kafka\n")
    report = index_builder.build(StorePaths(repo))
    assert report.documents == 1
    assert len(report.problems) == 1 and "brokenitem.yaml" in report.problems[0]
    assert [r.id for r in search(repo, "kafka")] == [good.id]


def test_an_empty_or_missing_items_folder_gives_an_empty_index(repo: Path) -> None:
    assert search(repo, "anything") == []
    shutil.rmtree(StorePaths(repo).items)
    assert search(repo, "anything") == []


def test_force_reparses_every_file(repo: Path, add_item: AddItem, parsed: list[str]) -> None:
    add_item("One")
    add_item("Two")
    index_builder.build(StorePaths(repo))
    parsed.clear()
    assert index_builder.build(StorePaths(repo), force=True).parsed == 2
    assert len(parsed) == 2


def test_a_repository_without_a_store_is_a_clear_error(bare_repo: Path) -> None:
    from memcli.errors import MemError

    with pytest.raises(MemError, match="mem init"):
        search(bare_repo, "anything")
    assert not (bare_repo / ".memory").exists()


def test_an_unwritable_index_folder_still_answers_queries(repo: Path, add_item: AddItem) -> None:
    """A read-only local/ (trust finding 8): the query is served from a private temporary
    index; `mem reindex`, which exists to write the index, says why it cannot."""
    from memcli.errors import MemError

    item = add_item("Read-only checkout")
    folder = Path(loader.index_dir(StorePaths(repo)))
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.write_text("not a folder")  # writes below it fail like a read-only disk
    assert [hit.id for hit in search(repo, "checkout")] == [item.id]
    with pytest.raises(MemError, match="cannot write the search index"):
        index_builder.build(StorePaths(repo))
