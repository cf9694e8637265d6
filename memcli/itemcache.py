"""The parse cache: every item file's parsed, validated data, kept under ``.memory/local/``.

One derived file, ``.memory/local/index/items.bin``, never committed and rebuilt from the item
files whenever it is missing, damaged or from another version. It is shared: `mem list`,
`stats`, `lint`, `prune` and everything else that reads the whole store go through
:func:`load`, and the index builder keeps its tokenized records in the same file (section
``records``), so a file is read, hashed and parsed once for all of them.

When an entry is trusted. Per file the cache keeps the stat (mtime in ns, size, inode) and a
content hash; an entry is keyed by file name and hash. A file whose stat matches is not read
at all; any other file is read and hashed, and parsed only when that hash is new. A file
written within :data:`RACY_NS` of the scan that cached it may change again within the same
clock tick without its stat changing, so its mtime is recorded as unknown and it is hashed
again next time (git does the same for its index). The window is 2 s on a file system that
keeps whole seconds, 100 ms on one whose times have sub-second parts (the kernel stamps a
write with its clock tick, at most 10 ms old): right after a `git clone` most files are
otherwise "racy" for the next command. So an edit, a rename, a deletion or a
`git checkout` is always seen.

Crash-safe: the file is replaced atomically (temporary file, rename), its sections carry a
BLAKE2 digest in the header, and a file that does not match them is ignored and rewritten.
"""

from __future__ import annotations

import marshal
import os
import time
from typing import Any

from memcli import filestamps, itemfile, untrusted
from memcli.batchwork import without_cycle_collector
from memcli.filestamps import FINE_RACY_NS as FINE_RACY_NS
from memcli.filestamps import RACY_NS as RACY_NS
from memcli.filestamps import content_hash as content_hash
from memcli.model import Item, Problem
from memcli.paths import StorePaths
from memcli.progress import report as report_progress
from memcli.retrieval import persisted

CACHE_NAME = "items.bin"
FORMAT = 1  # bump when what an entry holds changes
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # the items folder itself must not be a link
ITEM_SUFFIXES = (".yaml", ".yml")

# A parsed entry: [data, problems]. ``data`` is the validated item mapping (None when the
# file is not an item), ``problems`` a list of [path, line, field, message].
Entry = list[Any]
Stat = tuple[int, int, int]  # mtime_ns, size, inode


def cache_path(paths: StorePaths) -> str:
    return os.path.join(os.fspath(paths.local), "index", CACHE_NAME)


def scan(items_dir: str) -> tuple[list[str], dict[str, Stat | None]]:
    """Item file names, sorted, as the store lists them, with the stat of each regular file
    (None for anything else: a symlink, a folder, a FIFO; never cached, always re-read)."""
    found: dict[str, Stat | None] = {}
    if os.path.islink(items_dir):
        return [], {}
    try:
        with os.scandir(items_dir) as entries:
            for entry in entries:
                name = entry.name
                if name.startswith(".") or not name.endswith(ITEM_SUFFIXES):
                    continue
                try:
                    if entry.is_file(follow_symlinks=False):
                        st = entry.stat(follow_symlinks=False)
                        found[name] = (st.st_mtime_ns, st.st_size, st.st_ino)
                    else:
                        found[name] = None
                except OSError:
                    found[name] = None
    except (FileNotFoundError, NotADirectoryError):
        pass
    return sorted(found), found


def racy_window(stats: dict[str, Stat | None]) -> int:
    """How recent an mtime must be to be distrusted: see the module's docstring."""
    mtimes = [s[0] for s in stats.values() if s is not None]
    return filestamps.racy_window(mtimes)


class _Stored:
    """What the cache file holds, checked section by section; empty when damaged."""

    def __init__(self, path: str) -> None:
        self.files: dict[str, list[Any]] = {}
        self.parsed: dict[str, Entry] = {}
        self._file: persisted.IndexFile | None = None
        try:
            file = persisted.IndexFile(path)
        except (OSError, ValueError, EOFError, TypeError, KeyError):
            return
        try:
            header = file.header
            if header.get("kind") != "items" or header.get("format") != FORMAT:
                raise ValueError("another version")
            files, parsed = self._section(file, "files"), self._section(file, "parsed")
            if not (isinstance(files, dict) and isinstance(parsed, dict)):
                raise ValueError("damaged")
            self.files, self.parsed, self._file = files, parsed, file
        except (OSError, ValueError, EOFError, TypeError, KeyError):
            file.close()

    @staticmethod
    def _section(file: persisted.IndexFile, name: str) -> Any:
        blob = file.raw(name)
        if content_hash(blob) != file.header["digests"][name]:
            raise ValueError(f"section {name} does not match its digest")
        return marshal.loads(blob)

    def records(self) -> dict[str, Any]:
        if self._file is None:
            return {}
        try:
            records = self._section(self._file, "records")
        except (OSError, ValueError, EOFError, TypeError, KeyError):
            return {}
        return records if isinstance(records, dict) else {}

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


class Snapshot:
    """Every item file of a store as of one scan: its hash and its parsed entry."""

    def __init__(self, paths: StorePaths) -> None:
        self.paths = paths
        self.names: list[str] = []
        self.hashes: dict[str, str] = {}
        self.entries: dict[str, Entry] = {}
        self.pending = 0  # files left unread at the deadline
        self.read = 0  # files read and hashed (their stat was not known)
        self.parsed = 0  # files parsed (their content was new)
        self.changed = False  # something differs from what the cache held
        self.stats: dict[str, Stat | None] = {}
        self._files: dict[str, list[Any]] = {}
        self._stored: _Stored | None = None

    def key(self, name: str) -> str:
        return name + "\0" + self.hashes.get(name, "")

    def items(self) -> list[Item]:
        entries = [self.entries.get(n) for n in self.names]
        return [Item.from_dict(e[0]) for e in entries if e is not None and e[0] is not None]

    def problems(self) -> list[Problem]:
        entries = [self.entries.get(n) for n in self.names]
        return [Problem(*p) for e in entries if e is not None for p in e[1]]

    def old_records(self) -> dict[str, Any]:
        """The index builder's records from the cache file (only it asks: they are large)."""
        return self._stored.records() if self._stored is not None else {}

    def save(self, records: dict[str, Any] | None = None) -> None:
        """Write the cache when it changed (or ``records`` are given); never fails a command:
        a read-only checkout simply reads every file again next time."""
        if not self.changed and records is None:
            self.close()
            return
        read = [n for n in self.names if n in self.hashes]
        keys = {self.key(n) for n in read}
        sections = {
            "files": marshal.dumps(self._files),
            "parsed": marshal.dumps({self.key(n): self.entries[n] for n in read}),
        }
        if records is None:
            old = self.old_records()
            records = {k: v for k, v in old.items() if k in keys}
        sections["records"] = marshal.dumps(records)
        header = {
            "kind": "items",
            "format": FORMAT,
            "digests": {name: content_hash(blob) for name, blob in sections.items()},
        }
        self.close()
        try:
            persisted.write_atomic(cache_path(self.paths), persisted.pack(header, sections))
        except OSError:
            pass
        self.changed = False

    def close(self) -> None:
        if self._stored is not None:
            self._stored.close()
            self._stored = None


def load(
    paths: StorePaths,
    *,
    trust: bool = True,
    deadline: float | None = None,
) -> Snapshot:
    """The store as it is now: unchanged files from the cache, the rest read and parsed;
    ``trust=False`` ignores the cache (every file read and parsed again).

    ``deadline`` (a :func:`time.monotonic` value): stop reading files then; the snapshot is
    then partial (``pending`` files not read) and saving it keeps the work done so far.
    The caller saves the snapshot (:meth:`Snapshot.save`) once done with it."""
    with without_cycle_collector():  # every entry stays alive; none holds a cycle
        return _load(paths, trust, deadline)


def _load(paths: StorePaths, trust: bool, deadline: float | None) -> Snapshot:
    snapshot = Snapshot(paths)
    scan_ns = time.time_ns()
    items_dir = os.fspath(paths.items)
    names, stats = scan(items_dir)
    stored = snapshot._stored = _Stored(cache_path(paths) if trust else "")
    snapshot.names, snapshot.stats = names, stats
    snapshot.changed = set(stored.files) != {n for n in names if stats[n] is not None}
    racy = scan_ns - racy_window(stats)
    shown_dir = itemfile.shown(paths, paths.items) + os.sep
    folder = _open_folder(items_dir) if names else None
    try:
        for number, name in enumerate(names):
            stat = stats[name]
            old = stored.files.get(name)
            if (
                stat is not None
                and old is not None
                and old[0] == stat[0]
                and old[0] >= 0
                and old[1] == stat[1]
                and old[2] == stat[2]
            ):
                digest = old[3]
                entry = stored.parsed.get(name + "\0" + digest)
                if entry is not None:
                    snapshot.hashes[name] = digest
                    snapshot.entries[name] = entry
                    snapshot._files[name] = old
                    continue
            snapshot.changed = True
            if deadline is not None and time.monotonic() > deadline:
                snapshot.pending += 1
                continue
            if number % 256 == 0:
                report_progress("reading item files", number, len(names))
            try:
                if folder is None:
                    data = untrusted.read_bytes(os.path.join(items_dir, name))
                else:
                    data = untrusted.read_bytes(name, dir_fd=folder)
            except untrusted.Unreadable as exc:  # never cached: reported on every read
                snapshot.entries[name] = [None, [[shown_dir + name, 1, "(file)", str(exc)]]]
                continue
            snapshot.read += 1
            digest = content_hash(data)
            snapshot.hashes[name] = digest
            entry = stored.parsed.get(name + "\0" + digest)
            if entry is None:
                snapshot.parsed += 1
                item_data, problems = itemfile.parse_named(shown_dir + name, name, data, True)
                entry = [item_data, [list(_fields(p)) for p in problems]]
            snapshot.entries[name] = entry
            if stat is not None:
                mtime = stat[0] if stat[0] < racy else -1
                snapshot._files[name] = [mtime, stat[1], stat[2], digest]
    finally:
        if folder is not None:
            os.close(folder)
    return snapshot


def _open_folder(path: str) -> int | None:
    """The items folder, opened to read its files by name (None where that is not offered:
    each file is then opened by its whole path)."""
    if os.open not in os.supports_dir_fd:
        return None
    try:
        return os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW)
    except OSError:
        return None


def _fields(problem: Problem) -> tuple[str, int, str, str]:
    return problem.path, problem.line, problem.field, problem.message
