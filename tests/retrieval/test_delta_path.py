"""The first search after an edit: the query path lays a delta over the index itself, reading
only the changed files, and never serves a stale answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import AddItem, age_files

from memcli.paths import StorePaths
from memcli.retrieval import delta, index_builder, index_files, loader
from memcli.retrieval.search import search


def replace(path: Path, old: str, new: str) -> None:
    """Rewrite a file as mem, git and most editors do: a new file renamed over it."""
    temporary = path.with_name(".tmp-edit")
    temporary.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    os.replace(temporary, path)


def recorded(names: list[str], mtimes: list[int], sizes: list[int]) -> index_files.Recorded:
    from array import array

    return 7, names, array("q", mtimes).tobytes(), array("q", sizes).tobytes()


def test_touched_files_finds_every_changed_stat_in_any_block() -> None:
    count = 3 * index_files.BLOCK + 5
    names = [f"{n:05d}.yaml" for n in range(count)]
    mtimes = [1_000 + n for n in range(count)]
    sizes = [300 + n % 7 for n in range(count)]
    before = recorded(names, mtimes, sizes)
    assert index_files.touched_files((names, mtimes, sizes), before) == []
    new_mtimes, new_sizes = list(mtimes), list(sizes)
    block = index_files.BLOCK
    for n in (0, block - 1, block, 2 * block + 3, count - 1):
        new_mtimes[n] += 1
    new_sizes[block + 7] += 1
    found = index_files.touched_files((names, new_mtimes, new_sizes), before)
    changed = sorted({0, block - 1, block, block + 7, 2 * block + 3, count - 1})
    assert found == [names[n] for n in changed]
    racy = list(mtimes)
    racy[5] = -1  # recorded as too recent to trust: read again whatever its stat says
    assert index_files.touched_files((names, mtimes, sizes), recorded(names, racy, sizes)) == [
        names[5]
    ]
    # another set of names: added, removed and changed files by name
    scanned = (["a.yaml", "b.yaml", "d.yaml"], [1, 2, 4], [10, 20, 40])
    old = recorded(["a.yaml", "b.yaml", "c.yaml"], [1, 3, 3], [10, 20, 30])
    assert index_files.touched_files(scanned, old) == ["b.yaml", "d.yaml", "c.yaml"]


def test_a_search_after_one_edit_reads_one_file_and_imports_no_builder(
    repo: Path, add_item: AddItem
) -> None:
    # ids that start with a letter: ruamel writes these files in mem's own layout, which one
    # edited file is read in without the YAML library (others take the full reader)
    items = [add_item(f"Kafka consumer lag number {n}", item_id=f"lag{n:03d}") for n in range(12)]
    age_files(repo)
    paths = StorePaths(repo)
    index_builder.build(paths)
    replace(paths.item_file(items[4].id), "Kafka consumer lag", "Memcached slab size")
    script = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from memcli.paths import StorePaths\n"
        "from memcli.retrieval import loader\n"
        "index = loader.open_index(StorePaths(Path(sys.argv[1])), check=loader.ASKED)\n"
        "found = [n for n in range(index.count) if 'Memcached' in index.title(n)]\n"
        "print(json.dumps({'found': [index.docs['ids'][n] for n in found],"
        " 'kind': type(index).__name__, 'modules': sorted(sys.modules)}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(repo)], capture_output=True, text=True, check=True
    ).stdout
    answer = json.loads(out)
    assert answer["found"] == [items[4].id] and answer["kind"] == "OverlaidIndex"
    heavy = {"memcli.retrieval.index_builder", "memcli.itemcache", "memcli.store", "hashlib"}
    heavy |= {"tempfile", "yaml", "ruamel", "dataclasses"}
    assert sorted(heavy & set(answer["modules"])) == []
    assert [r.id for r in search(repo, "memcached")] == [items[4].id]


def test_an_edit_within_the_racy_window_is_read_again(repo: Path, add_item: AddItem) -> None:
    """A file just written may be written again within the same clock tick, same size and
    same mtime: the delta records its mtime as unknown, so the next query reads it again."""
    items = [add_item(f"Redis timeout number {n}") for n in range(6)]
    age_files(repo)
    paths = StorePaths(repo)
    index_builder.build(paths)
    path = paths.item_file(items[2].id)
    replace(path, "Redis timeout", "Memcached evict")
    stat = path.stat()  # stamped a second ahead: surely inside the window at the next query
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert [r.id for r in search(repo, "memcached")] == [items[2].id]
    stat = path.stat()
    with open(path, "r+", encoding="utf-8") as handle:  # same inode, same size, same mtime
        text = handle.read().replace("Memcached evict", "Postgres vacuu")
        handle.seek(0)
        handle.write(text)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size
    assert search(repo, "memcached") == []
    assert [r.id for r in search(repo, "postgres")] == [items[2].id]


def test_a_delta_that_cannot_be_written_still_answers(
    repo: Path, add_item: AddItem, monkeypatch: pytest.MonkeyPatch
) -> None:
    items = [add_item(f"Flaky test number {n}") for n in range(6)]
    age_files(repo)
    paths = StorePaths(repo)
    index_builder.build(paths)
    replace(paths.item_file(items[1].id), "Flaky test", "Docker layer")

    def refuse(folder: str, content: object) -> None:
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(delta, "write", refuse)
    assert [r.id for r in search(repo, "docker")] == [items[1].id]
    assert not Path(loader.index_dir(paths), delta.DELTA_NAME).exists()


def test_the_scan_keeps_regular_item_files_only_by_either_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    items = tmp_path / "items"
    items.mkdir()
    for name in ("b.yaml", "a.yml", "c.yaml"):
        (items / name).write_text(f"id: {name}\n")
    (items / ".hidden.yaml").write_text("id: hidden\n")
    (items / "notes.txt").write_text("not an item\n")
    (items / "folder.yaml").mkdir()
    (items / "link.yaml").symlink_to(items / "b.yaml")
    os.mkfifo(items / "pipe.yaml")
    scanned = index_files.scan_items(str(items))
    assert scanned[0] == ["a.yml", "b.yaml", "c.yaml"]
    assert scanned[1] == [(items / n).stat().st_mtime_ns for n in scanned[0]]
    assert scanned[2] == [(items / n).stat().st_size for n in scanned[0]]
    monkeypatch.setattr(os, "supports_dir_fd", set())  # as on Windows
    assert index_files.scan_items(str(items)) == scanned
    monkeypatch.undo()
    (tmp_path / "linked").symlink_to(items)
    assert index_files.scan_items(str(tmp_path / "linked")) == ([], [], [])
    assert index_files.scan_items(str(tmp_path / "missing")) == ([], [], [])
    assert index_files.scan_items(str(items / "c.yaml")) == ([], [], [])
