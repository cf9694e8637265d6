"""The index on disk, for reading: its folder, its files' stat record, its state, and the
open index (:class:`LoadedIndex`). Both the query path (:mod:`memcli.retrieval.loader`) and the
builders (:mod:`memcli.retrieval.index_builder`, :mod:`memcli.retrieval.delta_builder`) use it;
it imports nothing heavier than :mod:`marshal` and :mod:`array`.
"""

from __future__ import annotations

import marshal
import os
import stat
import sys
from array import array

from memcli import untrusted
from memcli.paths import StorePaths
from memcli.retrieval import persisted, tokenize

# Names for the type checker only: `typing` costs milliseconds to import on the query path.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

RACY_NS = 2_000_000_000
FULL_CHECK_NS = 60_000_000_000
STATE_NAME = "state.bin"
FILES_NAME = "files.bin"
ITEM_SUFFIXES = (".yaml", ".yml")
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # the items folder itself must not be a link


def index_dir(paths: StorePaths) -> str:
    return os.path.join(os.fspath(paths.local), "index")


def scan_items(items_dir: str) -> tuple[list[str], list[int], list[int]]:
    """Names, mtimes (ns) and sizes of the item files, sorted by name (as the store lists them).

    Every search that someone asks for runs this over the whole store, so it is lean: the
    names are listed, then each is ``lstat``-ed relative to the open folder (the kernel looks
    up one name, not the whole path) and kept only when it is a regular file, as a
    ``scandir`` entry's ``is_file(follow_symlinks=False)`` would. Measured at 16,000 items:
    66 ms of CPU against 94 ms for ``scandir`` and ``DirEntry.stat()`` (medians of 21)."""
    if os.path.islink(items_dir):
        return [], [], []  # never followed out of the repository; `mem lint` reports it
    if os.stat not in os.supports_dir_fd or os.listdir not in os.supports_fd:
        return _scan_by_path(items_dir)  # Windows: no stat relative to an open folder
    try:
        folder = os.open(items_dir, os.O_RDONLY | _DIRECTORY | _NOFOLLOW)
    except (FileNotFoundError, NotADirectoryError):
        return [], [], []
    names: list[str] = []
    mtimes: list[int] = []
    sizes: list[int] = []
    try:
        listed = [n for n in os.listdir(folder) if n.endswith(ITEM_SUFFIXES)]
        listed.sort()
        lstat, regular = os.stat, stat.S_ISREG
        for name in listed:
            if name.startswith("."):
                continue
            try:
                st = lstat(name, dir_fd=folder, follow_symlinks=False)
            except OSError:
                continue  # gone since it was listed
            if regular(st.st_mode):
                names.append(name)
                mtimes.append(st.st_mtime_ns)
                sizes.append(st.st_size)
    finally:
        os.close(folder)
    return names, mtimes, sizes


def _scan_by_path(items_dir: str) -> tuple[list[str], list[int], list[int]]:
    found: list[tuple[str, int, int]] = []
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


def read_state(folder: str) -> dict[str, Any]:
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


# What files.bin holds: the generation it was verified for, the names, and the mtimes and
# sizes as the bytes of int64 arrays (compared as bytes: no 16,000 ints made to compare).
Recorded = tuple[int, list[str], bytes, bytes]


def recorded_files(folder: str) -> Recorded | None:
    """What ``files.bin`` holds; None when it is missing or damaged."""
    data = untrusted.read_private(os.path.join(folder, FILES_NAME))
    try:
        generation, names, mtimes, sizes = marshal.loads(data or b"")
    except DAMAGE:
        return None
    if not (isinstance(names, list) and isinstance(mtimes, bytes) and isinstance(sizes, bytes)):
        return None
    return generation, names, mtimes, sizes


def read_files(folder: str, generation: int) -> tuple[list[str], list[int], list[int]] | None:
    """The names, mtimes and sizes last verified for ``generation``; None if not recorded."""
    recorded = recorded_files(folder)
    if recorded is None or recorded[0] != generation:
        return None
    return recorded[1], list(_int64s(recorded[2])), list(_int64s(recorded[3]))


def _int64s(blob: bytes) -> array[int]:
    values = array("q")
    values.frombytes(blob)
    return values


def files_match(
    index: LoadedIndex,
    scanned: tuple[list[str], list[int], list[int]],
    recorded: Recorded | None = None,
) -> bool:
    """Whether the scan is what was last verified for ``index`` (``recorded``: ``files.bin``
    already read by the caller)."""
    if recorded is None:
        recorded = recorded_files(os.path.dirname(index.file.path))
    if recorded is None:
        return False
    generation, names, mtimes, sizes = recorded
    return bool(
        generation == index.generation
        and names == scanned[0]
        and mtimes == array("q", scanned[1]).tobytes()
        and sizes == array("q", scanned[2]).tobytes()
    )


BLOCK = 512  # files compared at once, as bytes, before looking at each one of a block


def touched_files(scanned: tuple[list[str], list[int], list[int]], recorded: Recorded) -> list[str]:
    """The names whose stat differs from ``recorded`` (added and removed ones too), and those
    recorded with an unknown mtime (-1: too recent to trust when recorded), in name order for
    the files present, then the removed ones."""
    names, mtimes, sizes = scanned
    _, old_names, old_mtime_bytes, old_size_bytes = recorded
    old_mtimes, old_sizes = _int64s(old_mtime_bytes), _int64s(old_size_bytes)
    if old_names != names or len(old_mtimes) != len(names) or len(old_sizes) != len(names):
        old = dict(zip(old_names, zip(old_mtimes, old_sizes, strict=False), strict=False))
        touched = []
        for name, mtime, size in zip(names, mtimes, sizes, strict=True):
            before = old.get(name)
            if before is None or before[0] != mtime or before[1] != size or before[0] < 0:
                touched.append(name)
        present = set(names)
        return touched + [n for n in old if n not in present]
    new_mtimes, new_sizes = array("q", mtimes), array("q", sizes)
    positions: set[int] = set()
    for start in range(0, len(names), BLOCK):
        end = start + BLOCK
        if new_mtimes[start:end] != old_mtimes[start:end] or (
            new_sizes[start:end] != old_sizes[start:end]
        ):
            positions.update(
                n
                for n in range(start, min(end, len(names)))
                if new_mtimes[n] != old_mtimes[n] or new_sizes[n] != old_sizes[n]
            )
    if old_mtimes and min(old_mtimes) < 0:
        positions.update(n for n, mtime in enumerate(old_mtimes) if mtime < 0)
    return [names[n] for n in sorted(positions)]
