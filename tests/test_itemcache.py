"""The parse cache: never stale after an edit, a rename, a deletion or a `git checkout`;
rebuilt when damaged; equal to reading every file again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memcli import api, itemcache
from memcli.model import Item
from memcli.paths import StorePaths
from memcli.store import ItemStore
from tests.conftest import git


def add(memory: api.Memory, title: str, body: str = "Details.") -> Item:
    return memory.add("pitfall", title, body)


def age(paths: StorePaths, seconds: int = 10) -> None:
    """Every item file's mtime in the past: out of the racy window, so the stat is trusted."""
    for path in paths.items.iterdir():
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns - seconds * 1_000_000_000))


def titles(memory: api.Memory) -> dict[str, str]:
    return {item.id: item.title for item in memory.items()}


def fresh_read(paths: StorePaths) -> dict[str, str]:
    """What reading every file without any cache gives."""
    store = ItemStore(paths)
    found = {}
    for path in store.files():
        item, _problems = store.read(path)
        if item is not None:
            found[item.id] = item.title
    return found


def test_a_second_read_parses_nothing(memory: api.Memory, parsed: list[str]) -> None:
    add(memory, "One")
    add(memory, "Two")
    age(memory.paths)
    assert len(memory.items()) == 2
    parsed.clear()
    assert sorted(titles(memory).values()) == ["One", "Two"]
    assert parsed == []
    assert Path(itemcache.cache_path(memory.paths)).is_file()


def test_an_in_place_edit_of_the_same_size_is_seen(memory: api.Memory) -> None:
    item = add(memory, "Alpha wording")
    path = memory.paths.item_file(item.id)
    age(memory.paths)
    assert titles(memory) == {item.id: "Alpha wording"}
    stat = path.stat()
    with open(path, "r+", encoding="utf-8") as handle:  # in place: same inode, same size
        text = handle.read().replace("Alpha", "Gamma")
        handle.seek(0)
        handle.write(text)
    assert (path.stat().st_ino, path.stat().st_size) == (stat.st_ino, stat.st_size)
    assert titles(memory) == {item.id: "Gamma wording"}


def test_an_edit_right_after_a_read_is_seen(memory: api.Memory) -> None:
    """Within the racy window the stat is not trusted: the file is hashed again."""
    item = add(memory, "Before edit")
    path = memory.paths.item_file(item.id)
    assert titles(memory) == {item.id: "Before edit"}  # cached with a racy mtime
    stat = path.stat()
    path.write_text(path.read_text().replace("Before", "Latter"))  # same size
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same mtime: a same-tick edit
    assert titles(memory) == {item.id: "Latter edit"}


def test_a_rename_and_a_deletion_are_seen(memory: api.Memory) -> None:
    first, second = add(memory, "First"), add(memory, "Second")
    age(memory.paths)
    assert len(titles(memory)) == 2
    memory.paths.item_file(second.id).unlink()
    assert titles(memory) == {first.id: "First"}
    old = memory.paths.item_file(first.id)
    old.rename(old.with_name("renamed0001.yaml"))
    assert titles(memory) == {}  # the id no longer matches the file name: a problem
    problems = [str(p) for p in memory.warnings]
    assert any("renamed0001.yaml" in p and "does not match" in p for p in problems)


def test_a_git_checkout_is_seen(memory: api.Memory) -> None:
    root = memory.paths.root
    kept = add(memory, "On main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "main items")
    git(root, "checkout", "-q", "-b", "topic")
    extra = add(memory, "On topic")
    path = memory.paths.item_file(kept.id)
    path.write_text(path.read_text().replace("On main", "Changed on topic"))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "topic items")
    assert titles(memory) == {kept.id: "Changed on topic", extra.id: "On topic"}
    git(root, "checkout", "-q", "main")
    assert titles(memory) == {kept.id: "On main"}
    assert titles(memory) == fresh_read(memory.paths)


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: b"garbage",
        lambda data: data[: len(data) // 2],
        lambda data: data[:-40] + bytes(40),  # same size, a section no longer matches
        lambda data: b"",
    ],
)
def test_a_damaged_cache_is_ignored_and_rebuilt(
    memory: api.Memory, parsed: list[str], damage
) -> None:  # type: ignore[no-untyped-def]
    item = add(memory, "Survives damage")
    age(memory.paths)
    memory.items()
    cache = Path(itemcache.cache_path(memory.paths))
    cache.write_bytes(damage(cache.read_bytes()))
    parsed.clear()
    assert titles(memory) == {item.id: "Survives damage"}
    assert parsed == [memory.paths.item_file(item.id).name]  # read again, not trusted
    parsed.clear()
    assert titles(memory) == {item.id: "Survives damage"}
    assert parsed == []  # and the cache was rewritten


def test_a_broken_file_is_reported_every_time(memory: api.Memory) -> None:
    broken = memory.paths.items / "brokenitem.yaml"
    broken.write_text("id: brokenitem\ntitle: [unclosed\n")
    age(memory.paths)
    for _ in range(2):
        assert ItemStore(memory.paths).lint() == ItemStore(memory.paths).lint()
        problems = [str(p) for p in ItemStore(memory.paths).lint()]
        assert len(problems) == 1 and problems[0].startswith(".memory/items/brokenitem.yaml:")


def test_a_symlink_is_never_cached(memory: api.Memory, tmp_path: Path) -> None:
    target = tmp_path / "outside.yaml"
    target.write_text("id: linked\n")
    (memory.paths.items / "linked.yaml").symlink_to(target)
    for _ in range(2):
        problems = [str(p) for p in ItemStore(memory.paths).lint()]
        reason = "a symlink (mem never follows links under .memory/)"
        assert problems == [f".memory/items/linked.yaml:1: (file): {reason}"]


def test_a_deadline_leaves_files_pending_and_keeps_the_work_done(memory: api.Memory) -> None:
    for n in range(3):
        add(memory, f"Item {n}")
    age(memory.paths)
    snapshot = itemcache.load(memory.paths, deadline=0.0)  # already past
    assert snapshot.pending == 3 and snapshot.items() == []
    snapshot.save()
    snapshot = itemcache.load(memory.paths)
    assert snapshot.pending == 0 and len(snapshot.items()) == 3


def test_a_cold_read_reports_what_reading_each_file_reports(memory: api.Memory) -> None:
    """Problems name the file as a read of that one file does (the cold read names them from
    the folder it opened once)."""
    add(memory, "Fine")
    (memory.paths.items / "brokenitem.yaml").write_text("id: brokenitem\ntitle: [unclosed\n")
    other = add(memory, "Misnamed")
    misnamed = memory.paths.items / "misnamed1.yaml"
    memory.paths.item_file(other.id).rename(misnamed)
    store = ItemStore(memory.paths)
    one_by_one = sorted(str(p) for path in store.files() for p in store.read(path)[1])
    snapshot = itemcache.load(memory.paths, trust=False)
    assert sorted(str(p) for p in snapshot.problems()) == one_by_one
    assert any(p.startswith(".memory/items/misnamed1.yaml:") for p in one_by_one)
    assert any(p.startswith(".memory/items/brokenitem.yaml:") for p in one_by_one)


def test_without_a_folder_descriptor_the_read_is_the_same(
    memory: api.Memory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    add(memory, "One")
    (memory.paths.items / "linked.yaml").symlink_to(tmp_path)
    by_name = itemcache.load(memory.paths, trust=False)
    monkeypatch.setattr(itemcache, "_open_folder", lambda path: None)
    by_path = itemcache.load(memory.paths, trust=False)
    assert [i.title for i in by_path.items()] == [i.title for i in by_name.items()] == ["One"]
    assert by_path.problems() == by_name.problems() and len(by_name.problems()) == 1


def test_a_file_swapped_for_a_link_after_the_scan_is_not_followed(
    memory: api.Memory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    item = add(memory, "Swapped")
    path = memory.paths.item_file(item.id)
    outside = tmp_path / "outside.yaml"
    outside.write_text(path.read_text())
    scan = itemcache.scan

    def scan_then_swap(items_dir: str):  # type: ignore[no-untyped-def]
        found = scan(items_dir)
        path.unlink()
        path.symlink_to(outside)
        return found

    monkeypatch.setattr(itemcache, "scan", scan_then_swap)
    snapshot = itemcache.load(memory.paths, trust=False)
    assert snapshot.items() == []
    assert [p.message for p in snapshot.problems()] == [
        "a symlink (mem never follows links under .memory/)"
    ]


def test_the_cycle_collector_runs_again_after_a_read_or_a_failed_one(
    memory: api.Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gc

    from memcli import itemfile
    from memcli.retrieval import index_builder

    add(memory, "One")
    assert gc.isenabled()
    itemcache.load(memory.paths, trust=False).close()
    index_builder.build(memory.paths, force=True)
    assert gc.isenabled()

    def failing(where: str, name: str, data: bytes, bulk: bool = False) -> None:
        raise RuntimeError("parse failed")

    monkeypatch.setattr(itemfile, "parse_named", failing)
    with pytest.raises(RuntimeError):
        index_builder.build(memory.paths, force=True)
    assert gc.isenabled()
