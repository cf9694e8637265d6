"""The index of a few changed items, laid over the full index: an edit costs what it changes.

A full build recomputes every posting (BM25's IDF and average lengths are global). After an
edit, an added or a removed item, :mod:`memcli.retrieval.delta_builder` writes ``delta.bin``
beside ``index.bin`` instead: per changed file name its content hash and index record (None
for a removed file). A query opens both and sees one index (:class:`OverlaidIndex`): the full
index's documents minus those changed or removed, renumbered, then the delta's documents,
weighed with the full index's average field lengths (a handful of documents moves those
averages by a negligible amount) and counted in the document frequencies. When the delta
grows past :data:`MAX_SHARE` of the store the next build is a full one, which drops it.

This is the query path: marshal and array only.
"""

from __future__ import annotations

import bisect
import marshal
import os
from array import array

from memcli import untrusted
from memcli.retrieval import bm25, persisted
from memcli.retrieval.index_files import DAMAGE, LoadedIndex, open_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DELTA_NAME = "delta.bin"
MAX_SHARE = 0.05  # of the documents; at least MIN_CHANGES
MIN_CHANGES = 200


def read(folder: str, base_generation: int) -> dict[str, Any] | None:
    """The delta over the index of ``base_generation``; None when there is none for it."""
    data = untrusted.read_private(os.path.join(folder, DELTA_NAME))
    try:
        delta = marshal.loads(data) if data else None
    except (EOFError, ValueError, TypeError):
        return None
    if not isinstance(delta, dict) or delta.get("base") != base_generation:
        return None
    return delta


def write(folder: str, delta: dict[str, Any]) -> None:
    persisted.write_atomic(os.path.join(folder, DELTA_NAME), marshal.dumps(delta))


def remove(folder: str) -> None:
    try:
        os.unlink(os.path.join(folder, DELTA_NAME))
    except OSError:
        pass


def problem_file(problem: str) -> str:
    """The item file name a problem line (``path:line: field: message``) is about."""
    return problem.split(":", 1)[0].rsplit("/", 1)[-1]


class OverlaidIndex(LoadedIndex):
    """A full index with a delta laid over it; the same interface as :class:`LoadedIndex`."""

    def __init__(self, file: persisted.IndexFile, delta: dict[str, Any]) -> None:
        super().__init__(file)
        changes: dict[str, list[Any]] = delta["changes"]
        self._dropped: list[int] = list(delta["dropped"])  # base numbers, sorted
        self._dropped_set = set(self._dropped)
        self._added = [
            (name, entry[0], entry[1])
            for name, entry in sorted(changes.items())
            if entry[1] is not None and entry[1][0] is not None
        ]
        self._kept = self.count - len(self._dropped)
        self.count = self._kept + len(self._added)
        average = list(self.header.get("averages") or [1.0, 1.0, 1.0])
        self._weights = [bm25.weights(record, average) for _, _, record in self._added]
        self._problems = list(delta.get("problems", []))
        self._merged_docs: dict[str, Any] | None = None
        self._merged_display: dict[str, Any] | None = None
        self._merged_numbers: dict[str, array[float]] | None = None
        if any(record[18] for _, _, record in self._added):
            self.header = {**self.header, "expiring": True}

    def _new_of(self, base: int) -> int:
        """A base document's number here; -1 when it was changed or removed."""
        if base in self._dropped_set:
            return -1
        return base - bisect.bisect_left(self._dropped, base)

    def _base_of(self, doc: int) -> int:
        """The base number of a kept document (the inverse of :meth:`_new_of`)."""
        base = doc
        for dropped in self._dropped:  # few: walk them in order
            if dropped <= base:
                base += 1
            else:
                break
        return base

    def _kept_values(self, column: Any) -> Any:
        kept = column[:] if isinstance(column, list) else array(column.typecode, column)
        for base in reversed(self._dropped):
            del kept[base]  # a memmove each: cheaper than rebuilding the column
        return kept

    @property
    def docs(self) -> dict[str, Any]:
        if self._merged_docs is None:
            base = super().docs
            records = [record for _, _, record in self._added]
            sep = persisted.TAG_SEPARATOR
            merged: dict[str, Any] = {
                "ids": self._kept_values(base["ids"]) + [r[0] for r in records],
                "kinds": self._kept_values(base["kinds"]) + [r[1] for r in records],
                "tags": self._kept_values(base["tags"]) + [sep.join(r[3]) for r in records],
                "projects": self._kept_values(base["projects"]) + [r[4] for r in records],
                "branches": self._kept_values(base["branches"]) + [r[5] for r in records],
                "confidence": self._kept_values(base["confidence"]) + [r[9] for r in records],
                "problems": self._problems,
            }
            successors: dict[int, list[int]] = {}
            if base["successors"] or any(r[11] for r in records):  # rare: work it out again
                supersedes = self.display["supersedes"]
                position_of = {doc_id: n for n, doc_id in enumerate(merged["ids"])}
                for n, target in enumerate(supersedes):
                    if target and target in position_of and position_of[target] != n:
                        successors.setdefault(position_of[target], []).append(n)
            merged["successors"] = successors
            self._merged_docs = merged
        return self._merged_docs

    @property
    def display(self) -> dict[str, Any]:
        if self._merged_display is None:
            base = super().display
            records = [record for _, _, record in self._added]
            added = {
                "titles": [r[2] for r in records],
                "created": [r[6] for r in records],
                "updated": [r[7] for r in records],
                "expires": [r[10] for r in records],
                "supersedes": [r[11] for r in records],
                "names": [name for name, _, _ in self._added],
                "hashes": [digest for _, digest, _ in self._added],
            }
            self._merged_display = {
                column: self._kept_values(base[column]) + values for column, values in added.items()
            }
        return self._merged_display

    @property
    def numbers(self) -> dict[str, array[float]]:
        if self._merged_numbers is None:
            base = super().numbers
            records = [record for _, _, record in self._added]
            merged: dict[str, array[float]] = {}
            for column, slot in (
                ("importance", 8),
                ("created_ts", 16),
                ("updated_ts", 17),
                ("expires_ts", 18),
            ):
                merged[column] = self._kept_values(base[column])
                merged[column].extend(float(r[slot]) for r in records)
            self._merged_numbers = merged
        return self._merged_numbers

    def recency_order(self) -> array[int]:
        updated = self.numbers["updated_ts"]
        order = [self._new_of(d) for d in super().recency_order()]
        order = [d for d in order if d >= 0]
        for doc in range(self._kept, self.count):
            bisect.insort(order, doc, key=lambda d: (-updated[d], d))
        return array("I", order)

    def text(self, doc: int) -> str:
        if doc >= self._kept:
            return str(self._added[doc - self._kept][2][12])
        base = self._base_of(doc)
        offsets = super().numbers["text_offsets"]
        start, end = int(offsets[base]), int(offsets[base + 1])
        return self.file.raw("texts", start, end - start).decode("utf-8", "replace")

    def postings(self, term: str) -> tuple[array[int], array[float]] | None:
        found = super().postings(term)
        docs, weights = array("I"), array("f")
        if found is not None and not self._dropped:
            docs, weights = found
            docs, weights = array("I", docs), array("f", weights)
        elif found is not None:
            new_of = self._new_of
            for doc, weight in zip(found[0], found[1], strict=True):
                new = new_of(doc)
                if new >= 0:
                    docs.append(new)
                    weights.append(weight)
        for number, doc_weights in enumerate(self._weights):
            if term in doc_weights:
                docs.append(self._kept + number)
                weights.append(doc_weights[term])
        return (docs, weights) if docs else None

    def document_frequency(self, term: str) -> int:
        found = self.postings(term)
        return 0 if found is None else len(found[0])


def open_loaded(folder: str) -> LoadedIndex | None:
    """The index in ``folder`` with its delta laid over it (if one is current), or None."""
    file = open_file(folder)
    if file is None:
        return None
    found = read(folder, int(file.header["generation"]))
    if found is None:
        return LoadedIndex(file)
    try:
        index: LoadedIndex = OverlaidIndex(file, found)
    except (OSError, *DAMAGE):
        file.close()
        remove(folder)
        return open_loaded(folder)
    index.generation = int(found["generation"])
    return index
