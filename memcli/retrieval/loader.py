"""Open the persisted index for a query, rebuilding it first when it is stale.

This is the query path: it imports nothing heavier than :mod:`marshal` and :mod:`array`. A few
changed item files (an edit, an added or removed item) are laid over the index as a delta by
:mod:`memcli.retrieval.delta_builder`, which reads only those files; anything more pulls in
:mod:`memcli.retrieval.index_builder` (and, through the item store, the YAML library).

Freshness is stat-based, in two tiers (``state.bin`` records what was last verified):

- **quick** (every query, one ``stat``): the ``items/`` folder's mtime is the one recorded at the
  last verification. Adding, removing or renaming a file changes it, and so does every write by
  mem itself (atomic writes rename) and by git (checkout replaces files). A folder mtime that
  was less than :data:`RACY_NS` old at verification time is not trusted, as git does for its
  index, since a change in the same clock tick would leave it equal.
- **full** (when the quick check fails, when the last full check is older than
  :data:`FULL_CHECK_NS`, or on request): ``stat`` every item file and compare name, mtime and
  size with the index. 2 to 4 µs per file here: 35 to 60 ms for 16,000 items. It catches an
  editor that rewrites a file in place, which leaves the folder's mtime alone.

Who asks for which: a search a person or a model asks for (`mem search`, `Memory.search`, the
MCP server) passes :data:`ASKED`, the full check, so an item just edited in place is found as
edited; the hooks (`mem index` at session start, `mem recall` on every prompt) keep "auto",
where such an edit arrives within a minute, to keep their per-call cost flat.
"""

from __future__ import annotations

import os
import time

from memcli.paths import StorePaths
from memcli.retrieval import index_files, persisted
from memcli.retrieval.delta import open_loaded
from memcli.retrieval.index_files import (
    DAMAGE,
    FULL_CHECK_NS,
    RACY_NS,
    LoadedIndex,
    dir_mtime,
    files_match,
    index_dir,
    open_file,
    scan_items,
    write_state,
)

ASKED = "full"  # the check of a search someone asked for (see the module docstring)

# Names for the type checker only: `typing` and `dataclasses` cost milliseconds to import on
# the query path, which runs as its own process on every search and session start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    T = TypeVar("T")

# The query path's names, most of them from the index's files (index_files) and its delta.
__all__ = [
    "ASKED",
    "DAMAGE",
    "FULL_CHECK_NS",
    "RACY_NS",
    "LoadedIndex",
    "dir_mtime",
    "files_match",
    "index_dir",
    "open_index",
    "open_loaded",
    "scan_items",
    "using_index",
]


def using_index(
    paths: StorePaths,
    check: str,
    action: Callable[[LoadedIndex], T],
    deadline: float | None = None,
) -> T:
    """``action(index)`` on a fresh index; an index that turns out damaged while it is read
    (a section that does not unmarshal) is thrown away, rebuilt and read once more."""
    index = open_index(paths, check=check, deadline=deadline)
    try:
        return action(index)
    except DAMAGE:
        index.close()
        for name in (persisted.INDEX_NAME, "delta.bin"):
            try:
                os.unlink(os.path.join(index_dir(paths), name))
            except OSError:
                pass
        index = open_index(paths, check=check)
        return action(index)
    finally:
        index.close()


def open_index(
    paths: StorePaths, *, check: str = "auto", deadline: float | None = None
) -> LoadedIndex:
    """The index of ``paths``, verified fresh (``check``: "auto", "full" or "none").

    A missing, damaged, incompatible or stale index is rebuilt (incrementally) first. With a
    ``deadline`` (:func:`time.monotonic`) a rebuild that cannot read every item file by then
    answers with an index of the files read so far (``pending`` says how many are left).
    """
    if not paths.memory.is_dir():
        from memcli.errors import MemError

        raise MemError(f"no .memory/ in {paths.root} (run `mem init` first)")
    folder = index_dir(paths)
    items_dir = os.fspath(paths.items)
    index = open_loaded(folder)
    scanned = None
    if index is not None and check != "none":
        now = time.time_ns()
        state = index_files.read_state(folder)
        stamp = dir_mtime(items_dir)
        quick = (
            check == "auto"
            and state.get("generation") == index.generation
            and state.get("dir_mtime_ns") == stamp
            and stamp < int(state.get("verified_ns", 0)) - RACY_NS
            and now - int(state.get("verified_ns", 0)) < FULL_CHECK_NS
        )
        if not quick:
            scanned = scan_items(items_dir)
            recorded = index_files.recorded_files(folder)
            if files_match(index, scanned, recorded):
                write_state(folder, index.generation, stamp, now)
            else:
                index = _with_delta(paths, folder, index, scanned, recorded, stamp, now)
    if index is None:
        from memcli.retrieval import index_builder

        try:
            report = index_builder.build(paths, deadline=deadline, scanned=scanned)
        except index_builder.IndexNotWritable:
            return _private_index(paths)
        if report.pending:
            partial = LoadedIndex(persisted.IndexFile.from_bytes(report.partial))
            partial.pending = report.pending
            return partial
        index = open_loaded(folder)
        if index is None:
            from memcli.errors import MemError

            raise MemError(f"could not read the search index in {folder} after rebuilding it")
    return index


def _with_delta(
    paths: StorePaths,
    folder: str,
    index: LoadedIndex,
    scanned: tuple[list[str], list[int], list[int]],
    recorded: index_files.Recorded | None,
    stamp: int,
    now: int,
) -> LoadedIndex | None:
    """The index with a delta for the files the scan found changed (the usual first search
    after an edit), or None (``index`` closed) when a build must decide: too many changes, no
    record to compare with, or a folder it cannot write. The delta is what
    :func:`index_builder.build` would write given the same scan, without importing the full
    builder and the whole-store reader behind it. ``stamp`` and ``now`` were taken before the
    scan, so anything that changed during it is looked at again by the next query."""
    from memcli.retrieval import delta_builder

    # An mtime is trusted once it is older than the racy window at a time before the files
    # are read (any later write then stamps another mtime): now, after the scan, as a build.
    read_ns = time.time_ns()
    try:
        report = delta_builder.update(paths, folder, index.file, scanned, read_ns, recorded)
    except OSError:
        report = None  # the build names what it cannot write, or makes a private index
    finally:
        index.close()
    if report is None:
        return None
    write_state(folder, report.generation, stamp, now)
    return open_loaded(folder)


def _private_index(paths: StorePaths) -> LoadedIndex:
    """An index built in a private temporary folder, for a ``local/`` mem cannot write (a
    read-only checkout): reading commands keep working, at the cost of a build per query."""
    import shutil
    import tempfile

    from memcli.errors import MemError
    from memcli.retrieval import index_builder

    folder = tempfile.mkdtemp(prefix="mem-index-")
    try:
        index_builder.build(paths, folder=folder)
        file = open_file(folder)  # stays readable once its folder is gone
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if file is None:
        raise MemError(f"could not build a search index for {paths.items}")
    return LoadedIndex(file)
