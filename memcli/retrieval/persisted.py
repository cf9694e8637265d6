"""The persisted index: one file, ``.memory/local/index/index.bin``, read without any heavy import.

Layout: 8 bytes of magic, a 4-byte little-endian header length, the header (a :mod:`marshal`
dict), then sections at the offsets the header gives. Every section is either a marshal blob
of plain lists and dicts of strings (fast to load: no tuples, which are slow to unmarshal)
or the raw bytes of an :class:`array.array`. One file, replaced atomically, so a reader never
sees a half-written index. Beside it: ``files.bin`` (the names, mtimes and sizes the full
freshness check compares), ``state.bin`` (the last verification) and ``items.bin`` (the parse
cache with the builder's records, :mod:`memcli.itemcache`).

Sections (``N`` documents, ``V`` terms):

- ``docs``: what every query reads, as columns of ``N`` values: ``ids``, ``kinds``, ``tags``
  (joined by ``\\x1f``), ``projects``, ``branches``, ``confidence``; plus ``successors`` (doc
  number -> doc numbers of the items superseding it) and ``problems`` (files that could not
  be read, as ``path:line: field: message``).
- ``display``: columns only some callers need: ``titles``, ``created``, ``updated``,
  ``expires``, ``supersedes`` (ISO times and ids as written), ``names`` (file names) and
  ``hashes`` (content hash of each file).
- ``numbers``: arrays of ``N`` doubles: importance, created/updated/expires as Unix seconds
  (expires 0 when none), and ``N + 1`` text offsets into ``texts``.
- ``vocab``: term -> term number, split into :data:`VOCAB_BUCKETS` dicts by a CRC-32 of the
  term, so that a query unmarshals only the buckets of its own terms (loading the whole
  vocabulary of the benchmark store took 5 ms, a third of a query); then the ``df`` and
  ``offsets`` (``V + 1`` byte offsets into ``postings``) arrays.
- ``postings``: for term ``t``, ``df[t]`` document numbers (uint32) then ``df[t]`` BM25F
  weights (float32), at ``offsets[t]`` entries into the section.
- ``order``: the ``N`` document numbers as uint32, the most recently updated first, which
  lets the Layer-1 index stop early.
- ``texts``: the UTF-8 text of every document (title, body), for snippets and phrases.
"""

from __future__ import annotations

import marshal
import os
import zlib
from array import array

from memcli import untrusted

# Names for the type checker only: `typing` and `dataclasses` cost milliseconds to import on
# the query path, which runs as its own process on every search and session start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, BinaryIO

MAGIC = b"MEMIDX07"
FORMAT = 7  # bump on any change of layout or of what the builder caches
INDEX_NAME = "index.bin"
TAG_SEPARATOR = "\x1f"
VOCAB_BUCKETS = 256
NUMBER_COLUMNS = ("importance", "created_ts", "updated_ts", "expires_ts", "text_offsets")


def pack(header: dict[str, Any], sections: dict[str, bytes]) -> bytes:
    """The bytes of an index file: magic, header length, header, then the sections."""
    offsets: dict[str, list[int]] = {}
    position = 0
    for name, blob in sections.items():
        offsets[name] = [position, len(blob)]
        position += len(blob)
    head = marshal.dumps({**header, "sections": offsets})
    return b"".join([MAGIC, len(head).to_bytes(4, "little"), head, *sections.values()])


class IndexFile:
    """An open index file: the header at once, each section when first asked for."""

    def __init__(self, path: str) -> None:
        """Raises OSError, or ValueError (EOFError, TypeError, KeyError) on a damaged file."""
        self.path = path
        self._handle: BinaryIO | None = open(path, "rb")  # noqa: SIM115 - kept open for reads
        try:
            if not untrusted.is_private(os.fstat(self._handle.fileno())):
                raise ValueError("not written by mem (a committed or foreign file): rebuilt")
            start = self._handle.read(12)
            if len(start) != 12 or start[:8] != MAGIC:
                raise ValueError("not a mem index file")
            size = int.from_bytes(start[8:], "little")
            self.header: dict[str, Any] = marshal.loads(self._handle.read(size))
            self._base = 12 + size
            end = max((o + n for o, n in self.header["sections"].values()), default=0)
            if os.fstat(self._handle.fileno()).st_size != self._base + end:
                raise ValueError("index file is truncated")
        except BaseException:
            self.close()
            raise

    @classmethod
    def from_bytes(cls, data: bytes) -> IndexFile:
        """An index held in memory (a partial one, answered from before it is written)."""
        import io

        file = cls.__new__(cls)
        file.path = ""
        file._handle = io.BytesIO(data)
        size = int.from_bytes(data[8:12], "little")
        file.header = marshal.loads(data[12 : 12 + size])
        file._base = 12 + size
        return file

    def raw(self, name: str, start: int = 0, length: int | None = None) -> bytes:
        """``length`` bytes of section ``name`` from ``start`` (the whole section by default)."""
        offset, size = self.header["sections"][name]
        if length is None:
            length = size - start
        if self._handle is None:
            raise ValueError("index file is closed")
        self._handle.seek(self._base + offset + start)
        data = self._handle.read(length)
        if len(data) != length:
            raise ValueError(f"index file is truncated in section {name}")
        return data

    def load(self, name: str) -> Any:
        return marshal.loads(self.raw(name))

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


def numbers_blob(columns: dict[str, list[float]]) -> bytes:
    """The ``numbers`` section: each column as doubles, lengths in a small prefix."""
    parts = [array("d", columns[name]).tobytes() for name in NUMBER_COLUMNS]
    lengths = marshal.dumps([len(p) for p in parts])
    return len(lengths).to_bytes(4, "little") + lengths + b"".join(parts)


def read_numbers(blob: bytes) -> dict[str, array[float]]:
    size = int.from_bytes(blob[:4], "little")
    lengths: list[int] = marshal.loads(blob[4 : 4 + size])
    out: dict[str, array[float]] = {}
    position = 4 + size
    for name, length in zip(NUMBER_COLUMNS, lengths, strict=True):
        column = array("d")
        column.frombytes(blob[position : position + length])
        out[name] = column
        position += length
    return out


def bucket_of(term: str) -> int:
    return zlib.crc32(term.encode("utf-8")) % VOCAB_BUCKETS


def vocab_blob(buckets: list[dict[str, int]], df: array[int], offsets: array[int]) -> bytes:
    """The ``vocab`` section: a table of bucket positions, the buckets, then the two arrays."""
    blobs = [marshal.dumps(bucket) for bucket in buckets]
    blobs.append(df.tobytes())
    blobs.append(offsets.tobytes())
    positions = [0]
    for blob in blobs:
        positions.append(positions[-1] + len(blob))
    table = marshal.dumps(positions)
    return len(table).to_bytes(4, "little") + table + b"".join(blobs)


class Vocabulary:
    """The ``vocab`` section of an open index, read one bucket at a time."""

    def __init__(self, file: IndexFile) -> None:
        self.file = file
        size = int.from_bytes(file.raw("vocab", 0, 4), "little")
        self.positions: list[int] = marshal.loads(file.raw("vocab", 4, size))
        self.base = 4 + size
        self.buckets: dict[int, dict[str, int]] = {}
        self.df = array("I")
        self.df.frombytes(self._part(VOCAB_BUCKETS))
        self.offsets = array("q")
        self.offsets.frombytes(self._part(VOCAB_BUCKETS + 1))

    def _part(self, number: int) -> bytes:
        start, end = self.positions[number], self.positions[number + 1]
        return self.file.raw("vocab", self.base + start, end - start)

    def number(self, term: str) -> int | None:
        """The term number of ``term``, None when no document has it."""
        bucket = bucket_of(term)
        found = self.buckets.get(bucket)
        if found is None:
            found = self.buckets[bucket] = marshal.loads(self._part(bucket))
        return found.get(term)


def write_atomic(path: str, data: bytes) -> None:
    """Temporary file in the same folder, then rename; owner-only, like all of ``local/``."""
    from memcli.privacy import owner_only

    owner_only.write_atomic(path, data)
