"""The persisted index, kept open across the tool calls of one `mem mcp` process.

A one-shot `mem search` opens the index, loads the sections it needs and closes it again. The
server answers many calls, so it keeps one :class:`~memcli.retrieval.loader.LoadedIndex`
open: its sections (columns, numbers, vocabulary buckets) stay loaded between calls.

Before each call the cache decides whether what it holds is still current, with the same two
tiers as :mod:`memcli.retrieval.loader`:

- **held**: the index file's identity (inode, mtime, size, and its delta's) is what it was,
  and every item file's name, mtime and size still match the held index (a ``stat`` of each:
  the check a search someone asks for makes, see :data:`memcli.retrieval.loader.ASKED`).
  Nothing is read.
- **otherwise**: :func:`~memcli.retrieval.loader.open_index` verifies (and rebuilds
  incrementally if needed). When the file it opens is the one already held, the new handle is
  closed and the loaded sections are kept; otherwise the held index is swapped for it.

An item added through ``memory_add``, or edited in place by an editor, is seen by the next call.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import TypeVar

from memcli.paths import StorePaths
from memcli.retrieval import loader, persisted

T = TypeVar("T")

Identity = tuple[int, ...]


def _identity(path: str) -> Identity | None:
    """The index file's identity and its delta's (an edit may rewrite only the delta)."""
    found: list[int] = []
    for name in (path, os.path.join(os.path.dirname(path), "delta.bin")):
        try:
            st = os.stat(name)
        except OSError:
            if name == path:
                return None
            found += [0, 0, 0]
            continue
        found += [st.st_ino, st.st_mtime_ns, st.st_size]
    return tuple(found)


class IndexCache:
    """One store's index, open for reading, refreshed when the store changes."""

    def __init__(self, paths: StorePaths) -> None:
        self.paths = paths
        self._index: loader.LoadedIndex | None = None
        self._identity: Identity | None = None
        self._lock = threading.Lock()
        self.loads = 0  # how many times an index was (re)opened: tests and `--debug` read it

    def _file(self) -> str:
        return os.path.join(loader.index_dir(self.paths), persisted.INDEX_NAME)

    def _current(self) -> loader.LoadedIndex:
        held = self._index
        if (
            held is not None
            and _identity(self._file()) == self._identity
            and loader.files_match(held, loader.scan_items(os.fspath(self.paths.items)))
        ):
            return held
        fresh = loader.open_index(self.paths, check=loader.ASKED)
        identity = _identity(self._file())
        if held is not None and identity is not None and identity == self._identity:
            fresh.close()  # the same file: keep the sections already loaded
        else:
            if held is not None:
                held.close()
            self._index, self._identity = fresh, identity
            self.loads += 1
        assert self._index is not None
        return self._index

    def use(self, action: Callable[[loader.LoadedIndex], T]) -> T:
        """``action(index)`` on a current index; a damaged one is dropped, rebuilt, retried."""
        with self._lock:
            try:
                return action(self._current())
            except loader.DAMAGE:
                self._drop()
                try:
                    os.unlink(self._file())
                except OSError:
                    pass
                return action(self._current())

    def _drop(self) -> None:
        if self._index is not None:
            self._index.close()
        self._index, self._identity = None, None

    def close(self) -> None:
        with self._lock:
            self._drop()
