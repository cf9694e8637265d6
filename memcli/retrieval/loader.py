"""Open the persisted index for a query, rebuilding it first when it is stale.

This is the query path: it imports nothing heavier than :mod:`marshal` and :mod:`array`. Only a
stale index pulls in :mod:`memcli.retrieval.index_builder` (and, through the item store, the
YAML library).

Freshness is stat-based, in two tiers (``state.bin`` records what was last verified):

- **quick** (every query, one ``stat``): the ``items/`` folder's mtime is the one recorded at the
  last verification. Adding, removing or renaming a file changes it, and so does every write by
  mem itself (atomic writes rename) and by git (checkout replaces files). A folder mtime that
  was less than :data:`RACY_NS` old at verification time is not trusted, as git does for its
  index, since a change in the same clock tick would leave it equal.
- **full** (when the quick check fails, when the last full check is older than
  :data:`FULL_CHECK_NS`, or on request): ``stat`` every item file and compare name, mtime and
  size with the index. About 4 µs per file here: 60 ms for 15,000 items. It catches an editor
  that rewrites a file in place, which leaves the folder's mtime alone; such an edit therefore
  reaches search within a minute, or at once with ``check="full"`` (``mem reindex``).
"""

from __future__ import annotations

import marshal
import os
import sys
import time
from array import array

from memcli import untrusted
from memcli.paths import StorePaths
from memcli.retrieval import persisted, tokenize

# Names for the type checker only: `typing` and `dataclasses` cost milliseconds to import on
# the query path, which runs as its own process on every search and session start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    T = TypeVar("T")

RACY_NS = 2_000_000_000
FULL_CHECK_NS = 60_000_000_000
STATE_NAME = "state.bin"
FILES_NAME = "files.bin"
ITEM_SUFFIXES = (".yaml", ".yml")


def index_dir(paths: StorePaths) -> str:
    return os.path.join(os.fspath(paths.local), "index")


def scan_items(items_dir: str) -> tuple[list[str], list[int], list[int]]:
    """Names, mtimes (ns) and sizes of the item files, sorted by name (as the store lists them)."""
    found: list[tuple[str, int, int]] = []
    if os.path.islink(items_dir):
        return [], [], []  # never followed out of the repository; `mem lint` reports it
    try:
        with os.scandir(items_dir) as entries:
            for entry in entries:
                name = entry.name
                if name.startswith(".") or not name.endswith(ITEM_SUFFIXES):
                    continue
                try:
                    if not entry.is_file(follow_symlinks=False):
                        continue
                    st = entry.stat()
                except OSError:
                    continue
                found.append((name, st.st_mtime_ns, st.st_size))
    except (FileNotFoundError, NotADirectoryError):
        pass
    found.sort()
    return [f[0] for f in found], [f[1] for f in found], [f[2] for f in found]


def dir_mtime(items_dir: str) -> int:
    try:
        return os.stat(items_dir).st_mtime_ns
    except OSError:
        return -1


def compatible(header: dict[str, Any]) -> bool:
    return (
        header.get("format") == persisted.FORMAT
        and header.get("tokenizer") == tokenize.VERSION
        and header.get("byteorder") == sys.byteorder
    )


class LoadedIndex:
    """A fresh index, open for reading; sections load on first use."""

    def __init__(self, file: persisted.IndexFile) -> None:
        self.file = file
        self.header = file.header
        self.count: int = int(self.header["documents"])
        self.generation: int = int(self.header["generation"])  # with a delta: the delta's
        self.pending = 0  # item files not read yet: a partial index, answered from in a hurry
        self._docs: dict[str, Any] | None = None
        self._display: dict[str, Any] | None = None
        self._numbers: dict[str, array[float]] | None = None
        self._vocabulary: persisted.Vocabulary | None = None

    @property
    def docs(self) -> dict[str, Any]:
        if self._docs is None:
            self._docs = self.file.load("docs")
        return self._docs

    @property
    def display(self) -> dict[str, Any]:
        """Columns only results need: titles, ISO times, supersedes, file names and hashes."""
        if self._display is None:
            self._display = self.file.load("display")
        return self._display

    def recency_order(self) -> array[int]:
        """Document numbers, the most recently updated first (ties: file name order)."""
        order = array("I")
        order.frombytes(self.file.raw("order"))
        return order

    def title(self, doc: int) -> str:
        """One title without loading the display columns (a text starts with its title)."""
        return self.text(doc).partition("\n")[0]

    @property
    def numbers(self) -> dict[str, array[float]]:
        if self._numbers is None:
            self._numbers = persisted.read_numbers(self.file.raw("numbers"))
        return self._numbers

    @property
    def problems(self) -> list[str]:
        return list(self.docs.get("problems", []))

    @property
    def vocabulary(self) -> persisted.Vocabulary:
        if self._vocabulary is None:
            self._vocabulary = persisted.Vocabulary(self.file)
        return self._vocabulary

    def postings(self, term: str) -> tuple[array[int], array[float]] | None:
        """Document numbers and BM25F weights of one term; None when no document has it."""
        vocabulary = self.vocabulary
        number = vocabulary.number(term)
        if number is None:
            return None
        df = vocabulary.df[number]
        blob = self.file.raw("postings", vocabulary.offsets[number], 8 * df)
        docs = array("I")
        docs.frombytes(blob[: 4 * df])
        weights = array("f")
        weights.frombytes(blob[4 * df :])
        return docs, weights

    def document_frequency(self, term: str) -> int:
        number = self.vocabulary.number(term)
        return 0 if number is None else self.vocabulary.df[number]

    def text(self, doc: int) -> str:
        offsets = self.numbers["text_offsets"]
        start, end = int(offsets[doc]), int(offsets[doc + 1])
        return self.file.raw("texts", start, end - start).decode("utf-8", "replace")

    def close(self) -> None:
        self.file.close()


def _read_state(folder: str) -> dict[str, Any]:
    data = untrusted.read_private(os.path.join(folder, STATE_NAME))
    try:
        state = marshal.loads(data) if data else {}
    except (EOFError, ValueError, TypeError):
        return {}
    return state if isinstance(state, dict) else {}


def write_state(folder: str, generation: int, stamp: int, verified_ns: int) -> None:
    data = {"generation": generation, "dir_mtime_ns": stamp, "verified_ns": verified_ns}
    try:
        persisted.write_atomic(os.path.join(folder, STATE_NAME), marshal.dumps(data))
    except OSError:
        pass  # a read-only checkout: every query does the full check, still correct


DAMAGE = (ValueError, EOFError, TypeError, KeyError, IndexError, AttributeError)


def open_file(folder: str) -> persisted.IndexFile | None:
    try:
        file = persisted.IndexFile(os.path.join(folder, persisted.INDEX_NAME))
    except (OSError, *DAMAGE):
        return None
    if not compatible(file.header):
        file.close()
        return None
    return file


def write_files(
    folder: str, generation: int, scanned: tuple[list[str], list[int], list[int]]
) -> None:
    """What the full check compares (names, mtimes, sizes), beside the index: a file whose
    stat alone changed rewrites this, not the index."""
    names, mtimes, sizes = scanned
    data = [generation, names, array("q", mtimes).tobytes(), array("q", sizes).tobytes()]
    persisted.write_atomic(os.path.join(folder, FILES_NAME), marshal.dumps(data))


def read_files(folder: str, generation: int) -> tuple[list[str], list[int], list[int]] | None:
    """The names, mtimes and sizes last verified for ``generation``; None if not recorded."""
    data = untrusted.read_private(os.path.join(folder, FILES_NAME))
    try:
        recorded, names, mtimes, sizes = marshal.loads(data or b"")
    except DAMAGE:
        return None
    if recorded != generation:
        return None
    return names, list(array("q", mtimes)), list(array("q", sizes))


def files_match(index: LoadedIndex, scanned: tuple[list[str], list[int], list[int]]) -> bool:
    data = untrusted.read_private(os.path.join(os.path.dirname(index.file.path), FILES_NAME))
    try:
        generation, names, mtimes, sizes = marshal.loads(data or b"")
    except DAMAGE:
        return False
    return bool(
        generation == index.generation
        and names == scanned[0]
        and mtimes == array("q", scanned[1]).tobytes()
        and sizes == array("q", scanned[2]).tobytes()
    )


def open_loaded(folder: str) -> LoadedIndex | None:
    """The index in ``folder`` with its delta laid over it (if one is current), or None."""
    file = open_file(folder)
    if file is None:
        return None
    from memcli.retrieval import delta

    found = delta.read(folder, int(file.header["generation"]))
    if found is None:
        return LoadedIndex(file)
    try:
        index: LoadedIndex = delta.OverlaidIndex(file, found)
    except (OSError, *DAMAGE):
        file.close()
        delta.remove(folder)
        return open_loaded(folder)
    index.generation = int(found["generation"])
    return index


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
        state = _read_state(folder)
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
            if files_match(index, scanned):
                write_state(folder, index.generation, stamp, now)
            else:
                index.close()
                index = None
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
