"""Build the search index from the item files, incrementally; the only heavy module of retrieval.

What it computes is BM25F, the field-weighted form of TF-IDF with BM25's saturation and length
normalisation: per document and term, ``tf = sum(w_f * tf_f / (1 - b_f + b_f * len_f / avg_f))``
over the fields title, body and meta (tags, kind, anchors), and the stored weight is
``tf * (K1 + 1) / (K1 + tf)``. The IDF is computed at query time from the stored document
frequencies. Everything a query needs goes into one file (:mod:`memcli.retrieval.persisted`)
that loads with :mod:`marshal` and :mod:`array` alone.

Incremental: the parse cache (:mod:`memcli.itemcache`, shared with every command that reads
the store) knows each item file's stat, content hash and parsed data, and keeps this module's
tokenized record per file beside them. A rebuild tokenizes only files whose content is new;
the postings are then recomputed from the cached records (BM25's IDF and average lengths are
global, and recomputing them from counts in memory is cheaper than any bookkeeping that would
patch them). A file whose stat alone changed (a touch, a racy mtime that settled) rewrites
only ``files.bin``, never the index. A few changed files go to a delta instead
(:mod:`memcli.retrieval.delta_builder`).

Why not scikit-learn. The design names it for the index, so it was measured against plain
Python on the 13,655-item benchmark store (numbers in docs/retrieval.md): from the cached term
counts, this module computes all postings in 0.35 s; ``DictVectorizer`` plus numpy for the
same BM25F weights and postings bytes takes 0.38 s, after 1.4 to 2 s to import scikit-learn.
A cold build is dominated by reading the item files and by our tokenizer, a Python
callable either way (``TfidfVectorizer(analyzer=tokens)`` spends 0.33 s of its 0.74 s in it),
and TfidfVectorizer has no field weights and no BM25 saturation. So the build is plain
Python and neither scikit-learn nor numpy is imported; this module stays their one
designated owner should that change.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
import time
from array import array
from collections.abc import Iterable
from typing import Any

from memcli import itemcache, progress
from memcli.batchwork import without_cycle_collector
from memcli.errors import MemError
from memcli.paths import StorePaths
from memcli.retrieval import bm25, delta, delta_builder, index_files, persisted, tokenize
from memcli.retrieval.index_records import BuildReport, Record, record_of_data


def _record(entry: list[Any]) -> Record:
    """The index record of a parse-cache entry (see :mod:`memcli.itemcache`)."""
    data, problems = entry
    if data is None:
        return [None, "{}:{}: {}: {}".format(*problems[0]) if problems else "unreadable"]
    return record_of_data(data)


def _records_chunk(entries: list[list[Any]]) -> list[Record]:
    return [_record(entry) for entry in entries]


def _records_all(entries: list[list[Any]]) -> list[Record]:
    """Records of many entries, inline. Worker processes were measured here (2 cores shared
    with other work): tokenizing 16,000 items in a pool took 13.2 s against 9.4 s inline,
    the pickling costing more than the parallel tokenizing saved."""
    size = 256
    jobs = [entries[i : i + size] for i in range(0, len(entries), size)]
    return _reported(map(_records_chunk, jobs), len(entries))


class IndexNotWritable(MemError):
    """The index folder cannot be written (a read-only ``local/``, a full disk)."""


def _reported(chunks: Iterable[list[Record]], total: int) -> list[Record]:
    records: list[Record] = []
    for chunk in chunks:
        records.extend(chunk)
        progress.report("indexing item files", len(records), total)
    return records


def build(
    paths: StorePaths,
    *,
    force: bool = False,
    deadline: float | None = None,
    scanned: tuple[list[str], list[int], list[int]] | None = None,
    folder: str | None = None,
) -> BuildReport:
    """Bring the index of ``paths`` up to date; ``force`` re-reads and re-parses every file
    (`mem reindex`), trusting no cache.

    ``deadline`` (a :func:`time.monotonic` value) stops reading item files then: the report
    says how many are ``pending`` and carries a ``partial`` index of the rest, the work done
    is kept in the parse cache, and the index file is left as it was
    (:mod:`memcli.retrieval.background` finishes it). ``scanned``: the caller's scan of the files
    (names, mtimes, sizes), taken just before. ``folder``: where the index goes (default
    ``local/index``)."""
    # A cold build keeps every file's parsed data, records and postings alive at once and
    # creates no cycles; the collector's passes over them were a tenth of a 16,000-item build.
    with without_cycle_collector():
        return _build(paths, force=force, deadline=deadline, scanned=scanned, folder=folder)


def _build(
    paths: StorePaths,
    *,
    force: bool,
    deadline: float | None,
    scanned: tuple[list[str], list[int], list[int]] | None,
    folder: str | None,
) -> BuildReport:
    started = time.perf_counter()
    report = BuildReport()
    folder = folder or index_files.index_dir(paths)
    items_dir = os.fspath(paths.items)
    scan_ns = time.time_ns()
    stamp = index_files.dir_mtime(items_dir)
    if not force:
        current = delta.open_loaded(folder)
        if current is not None:
            try:
                # Only an index to compare with needs this scan (with none, as in a fresh
                # clone, the parse cache's own scan below is the one that counts).
                if scanned is None:
                    scanned = index_files.scan_items(items_dir)
                report.scanned = len(scanned[0])
                if index_files.files_match(current, scanned):
                    index_files.write_state(folder, current.generation, stamp, scan_ns)
                    report.documents, report.problems = current.count, current.problems
                    report.seconds = time.perf_counter() - started
                    return report
                small = delta_builder.update(paths, folder, current.file, scanned, scan_ns)
            except OSError as exc:
                reason = exc.strerror or exc
                raise IndexNotWritable(
                    f"cannot write the search index in {folder}: {reason}"
                ) from exc
            finally:
                current.close()
            if small is not None:
                index_files.write_state(folder, small.generation, stamp, scan_ns)
                return small  # type: ignore[no-any-return]
    snapshot = itemcache.load(paths, trust=not force, deadline=deadline)
    try:
        names = [n for n in snapshot.names if n in snapshot.hashes]
        report.scanned = len(snapshot.names)
        report.hashed, report.parsed = snapshot.read, snapshot.parsed
        old_records = {} if force else snapshot.old_records()
        records: dict[str, Record] = {}
        missing: list[str] = []
        for name in names:
            key = snapshot.key(name)
            if key in old_records:
                records[key] = old_records[key]
            else:
                missing.append(key)
        by_key = {snapshot.key(n): n for n in names}
        computed = _records_all([snapshot.entries[by_key[k]] for k in missing])
        records.update(zip(missing, computed, strict=True))
        old_names = {k.partition("\0")[0] for k in old_records}
        report.added = sum(1 for n in names if n not in old_names)
        present = set(names)
        report.removed = sum(1 for n in old_names if n not in present)
        report.changed = sum(1 for k in missing if k.partition("\0")[0] in old_names)
        snapshot.save(records if (missing or len(records) != len(old_records)) else None)
    finally:
        snapshot.close()

    stats = snapshot.stats
    racy = scan_ns - itemcache.racy_window(stats)
    kept = [n for n in names if stats.get(n) is not None]
    files = (
        kept,
        [stats[n][0] if stats[n][0] < racy else -1 for n in kept],  # type: ignore[index]
        [stats[n][1] for n in kept],  # type: ignore[index]
    )
    hashes = [snapshot.hashes[n] for n in names]
    ordered = [records[snapshot.key(n)] for n in names]
    report.problems = [r[1] for r in ordered if r[0] is None]
    report.problems += [
        "{}:{}: {}: {}".format(*entry[1][0])
        for n in snapshot.names
        if n not in snapshot.hashes and (entry := snapshot.entries.get(n)) and entry[1]
    ]
    report.documents = len(ordered) - sum(1 for r in ordered if r[0] is None)
    generation = time.time_ns()
    if snapshot.pending:
        header, sections = _index_sections(ordered, names, hashes, paths)
        header["generation"] = generation
        report.pending, report.partial = snapshot.pending, persisted.pack(header, sections)
        report.seconds = time.perf_counter() - started
        return report
    existing = index_files.open_file(folder) if not force and not missing else None
    same_content = existing is not None and existing.header.get("content") == _content_key(
        names, hashes
    )
    try:
        if same_content:
            # Only stats changed (a touch, a racy mtime now settled): the index stands.
            assert existing is not None
            generation = int(existing.header["generation"])
        else:
            header, sections = _index_sections(ordered, names, hashes, paths)
            header["generation"] = generation
            header["content"] = _content_key(names, hashes)
            persisted.write_atomic(
                os.path.join(folder, persisted.INDEX_NAME), persisted.pack(header, sections)
            )
            report.rewritten = True
        delta.remove(folder)
        index_files.write_files(folder, generation, files)
    except OSError as exc:
        raise IndexNotWritable(
            f"cannot write the search index in {folder}: {exc.strerror or exc}"
        ) from exc
    finally:
        if existing is not None:
            existing.close()
    index_files.write_state(folder, generation, stamp, scan_ns)
    report.generation = generation
    report.seconds = time.perf_counter() - started
    return report


def _content_key(names: list[str], hashes: list[str]) -> str:
    digest = hashlib.blake2b(digest_size=16)
    for name, value in zip(names, hashes, strict=True):
        digest.update(f"{name}\0{value}\n".encode())
    return digest.hexdigest()


def _versions() -> dict[str, Any]:
    return {
        "format": persisted.FORMAT,
        "tokenizer": tokenize.VERSION,
        "byteorder": sys.byteorder,
    }


def _index_sections(
    ordered: list[Record], names: list[str], hashes: list[str], paths: StorePaths
) -> tuple[dict[str, Any], dict[str, bytes]]:
    good = [(r, n, h) for r, n, h in zip(ordered, names, hashes, strict=True) if r[0] is not None]
    shared: dict[str, str] = {}  # one object per repeated value: marshal then writes references
    docs: dict[str, Any] = {c: [] for c in ("ids", "kinds", "tags", "projects", "branches")}
    docs["confidence"] = []
    display: dict[str, list[str]] = {
        c: [] for c in ("titles", "created", "updated", "expires", "supersedes", "names", "hashes")
    }
    numbers: dict[str, list[float]] = {name: [] for name in persisted.NUMBER_COLUMNS}
    texts: list[bytes] = []
    position = 0
    for r, name, digest in good:
        docs["ids"].append(r[0])
        docs["kinds"].append(shared.setdefault(r[1], r[1]))
        tags = persisted.TAG_SEPARATOR.join(r[3])
        docs["tags"].append(shared.setdefault(tags, tags))
        docs["projects"].append(shared.setdefault(r[4], r[4]))
        docs["branches"].append(shared.setdefault(r[5], r[5]))
        docs["confidence"].append(shared.setdefault(r[9], r[9]))
        for column, value in (
            ("titles", r[2]),
            ("created", r[6]),
            ("updated", r[7]),
            ("expires", r[10]),
            ("supersedes", r[11]),
            ("names", name),
            ("hashes", digest),
        ):
            display[column].append(value)
        numbers["importance"].append(r[8])
        numbers["created_ts"].append(r[16])
        numbers["updated_ts"].append(r[17])
        numbers["expires_ts"].append(r[18])
        numbers["text_offsets"].append(float(position))
        encoded = r[12].encode("utf-8")
        texts.append(encoded)
        position += len(encoded)
    numbers["text_offsets"].append(float(position))
    position_of = {doc_id: n for n, doc_id in enumerate(docs["ids"])}
    successors: dict[int, list[int]] = {}
    for n, target in enumerate(display["supersedes"]):
        if target and target in position_of and position_of[target] != n:
            successors.setdefault(position_of[target], []).append(n)
    docs["successors"] = successors
    docs["problems"] = [r[1] for r in ordered if r[0] is None]
    average = bm25.averages([g[0] for g in good])
    vocab_blob, postings_blob = _postings([g[0] for g in good], average)
    header = {
        **_versions(),
        "averages": average,
        "documents": len(good),
        "expiring": any(numbers["expires_ts"]),
        "root": os.fspath(paths.root),
    }
    updated = numbers["updated_ts"]
    order = sorted(range(len(good)), key=lambda d: (-updated[d], d))
    sections = {
        "order": array("I", order).tobytes(),
        "docs": marshal.dumps(docs),
        "display": marshal.dumps(display),
        "names": marshal.dumps([display["names"], display["hashes"], docs["problems"]]),
        "numbers": persisted.numbers_blob(numbers),
        "vocab": vocab_blob,
        "postings": postings_blob,
        "texts": b"".join(texts),
    }
    return header, sections


def _postings(good: list[Record], average: list[float]) -> tuple[bytes, bytes]:
    """BM25F weights per term and document, as the vocab and postings sections."""
    docs: dict[str, list[int]] = {}
    weights: dict[str, list[float]] = {}
    for doc, r in enumerate(good):
        for t, weight in bm25.weights(r, average).items():
            if t in docs:
                docs[t].append(doc)
                weights[t].append(weight)
            else:
                docs[t] = [doc]
                weights[t] = [weight]
    buckets: list[dict[str, int]] = [{} for _ in range(persisted.VOCAB_BUCKETS)]
    df = array("I")
    offsets = array("q", [0])
    parts: list[bytes] = []
    position = 0
    for number, (term, postings) in enumerate(docs.items()):
        buckets[persisted.bucket_of(term)][term] = number
        df.append(len(postings))
        blob = array("I", postings).tobytes() + array("f", weights[term]).tobytes()
        parts.append(blob)
        position += len(blob)
        offsets.append(position)
    return persisted.vocab_blob(buckets, df, offsets), b"".join(parts)
