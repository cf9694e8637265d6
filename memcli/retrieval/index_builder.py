"""Build the search index from the item files, incrementally; the only heavy module of retrieval.

What it computes is BM25F, the field-weighted form of TF-IDF with BM25's saturation and length
normalisation: per document and term, ``tf = sum(w_f * tf_f / (1 - b_f + b_f * len_f / avg_f))``
over the fields title, body and meta (tags, kind, anchors), and the stored weight is
``tf * (K1 + 1) / (K1 + tf)``. The IDF is computed at query time from the stored document
frequencies. Everything a query needs goes into one file (:mod:`memcli.retrieval.persisted`)
that loads with :mod:`marshal` and :mod:`array` alone.

Incremental: ``cache.bin`` keeps, per item file, its stat (mtime, size), its content hash and
its tokenized record. A rebuild stats every file, reads and hashes only those whose stat
changed, and parses YAML (about 2 ms a file) only for those whose hash changed. The postings
are then recomputed from the cached records: BM25's IDF and average lengths are global, and
recomputing them from counts in memory is cheaper than any bookkeeping that would patch them.
A cold build of many files parses them in worker processes.

Why not scikit-learn. The design names it for the index, so it was measured against plain
Python on the 13,655-item benchmark store (numbers in docs/retrieval.md): from the cached term
counts, this module computes all postings in 0.35 s; ``DictVectorizer`` plus numpy for the
same BM25F weights and postings bytes takes 0.38 s, after 1.4 to 2 s to import scikit-learn.
A cold build is dominated by YAML parsing (about 2 ms a file) and by our tokenizer, a Python
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
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memcli import timeutil, untrusted
from memcli.errors import MemError
from memcli.model import Item
from memcli.paths import StorePaths
from memcli.retrieval import loader, persisted, tokenize

# BM25F parameters. Measured on the pip benchmark the results are flat around these values
# (recall@5 moves by less than 0.01 for K1 in 0.9..2, title weight in 1.5..4), so these are
# the textbook ones rather than tuned ones.
K1 = 1.2
FIELDS = {"title": (2.0, 0.5), "body": (1.0, 0.75), "meta": (1.5, 0.0)}  # weight, b
PARALLEL_MIN_FILES = 1000
TEXT_MAX_CHARS = 4000

# What the cache keeps per item file, as a plain list (marshal loads lists fast): id, kind,
# title, tags, project, branch, created, updated, importance, confidence, expires,
# supersedes, text, then the term counts of title, body and meta (13, 14, 15), then created,
# updated and expires as Unix seconds (16, 17, 18). A file that could not be read is
# [None, problem].
Record = list[Any]


@dataclass
class BuildReport:
    documents: int = 0
    scanned: int = 0
    hashed: int = 0  # files read and hashed because their stat changed
    parsed: int = 0  # files parsed as YAML because their content changed
    added: int = 0
    changed: int = 0
    removed: int = 0
    rewritten: bool = False
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def record_of(item: Item) -> Record:
    """What the index keeps of an item: its table columns and the term counts of each field."""
    meta_text = " ".join(
        [
            *item.tags,
            item.kind,
            *(a.get("path", "") + " " + a.get("symbol", "") for a in item.anchors),
        ]
    )
    text = (item.title + "\n" + item.body)[:TEXT_MAX_CHARS]
    return [
        item.id,
        item.kind,
        item.title,
        list(item.tags),
        item.scope.get("project", ""),
        item.scope.get("branch", ""),
        item.created,
        item.updated,
        float(item.importance),
        item.confidence,
        item.expires or "",
        item.supersedes or "",
        text,
        dict(Counter(tokenize.tokens(item.title))),
        dict(Counter(tokenize.tokens(item.body))),
        dict(Counter(tokenize.tokens(meta_text))),
        _timestamp(item.created),
        _timestamp(item.updated),
        _timestamp(item.expires or ""),
    ]


def _parse(root: str, name: str) -> Record:
    """Read one item file through the store (validation included) into a record."""
    from memcli.store import ItemStore

    store = ItemStore(StorePaths(Path(root)))
    item, problems = store.read(store.paths.items / name)
    if item is None:
        return [None, str(problems[0]) if problems else f"{name}: unreadable"]
    return record_of(item)


def _parse_chunk(job: tuple[str, list[str]]) -> list[Record]:
    root, names = job
    return [_parse(root, name) for name in names]


def _parse_all(root: str, names: list[str]) -> list[Record]:
    workers = min(os.cpu_count() or 1, 8)
    if len(names) < PARALLEL_MIN_FILES or workers < 2:
        return [_parse(root, name) for name in names]
    from concurrent.futures import ProcessPoolExecutor

    size = max(50, len(names) // (workers * 8))
    jobs = [(root, names[i : i + size]) for i in range(0, len(names), size)]
    try:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            return [record for chunk in pool.map(_parse_chunk, jobs) for record in chunk]
    except (OSError, RuntimeError):  # no process support here (a sandbox): do it inline
        return [_parse(root, name) for name in names]


def _load_cache(folder: str) -> dict[str, Any]:
    data = untrusted.read_private(os.path.join(folder, persisted.CACHE_NAME))
    try:
        cache = marshal.loads(data) if data else {}
    except (EOFError, ValueError, TypeError):
        return {}
    if not isinstance(cache, dict) or not loader.compatible(cache):
        return {}
    return cache


class IndexNotWritable(MemError):
    """The index folder cannot be written (a read-only ``local/``, a full disk)."""


def build(paths: StorePaths, *, force: bool = False, folder: str | None = None) -> BuildReport:
    """Bring the index of ``paths`` up to date; ``force`` re-reads every file (`mem reindex`).
    ``folder``: where the index goes (default ``local/index``)."""
    started = time.perf_counter()
    report = BuildReport()
    folder = folder or loader.index_dir(paths)
    items_dir = os.fspath(paths.items)
    scan_ns = time.time_ns()
    stamp = loader.dir_mtime(items_dir)
    names, mtimes, sizes = loader.scan_items(items_dir)
    report.scanned = len(names)
    if not force:
        current = loader.open_file(folder)
        if current is not None:
            try:
                unchanged = loader.files_match(current, (names, mtimes, sizes))
                generation = int(current.header["generation"])
                report.documents = int(current.header["documents"])
                report.problems = list(current.load("docs").get("problems", []))
            finally:
                current.close()
            if unchanged:
                loader.write_state(folder, generation, stamp, scan_ns)
                report.seconds = time.perf_counter() - started
                return report
    cache = {} if force else _load_cache(folder)
    old_files: dict[str, list[Any]] = cache.get("files", {})
    old_records: dict[str, Record] = cache.get("records", {})

    hashes: list[str] = []
    for name, mtime, size in zip(names, mtimes, sizes, strict=True):
        old = old_files.get(name)
        if old is not None and old[0] == mtime and old[1] == size and mtime >= 0:
            hashes.append(old[2])
            continue
        try:
            data = untrusted.read_bytes(Path(items_dir, name))
        except untrusted.Unreadable:
            data = b""
        report.hashed += 1
        hashes.append(content_hash(data))

    records: dict[str, Record] = {}
    to_parse: list[str] = []
    for name, digest in zip(names, hashes, strict=True):
        key = name + "\0" + digest
        if key in old_records:
            records[key] = old_records[key]
        else:
            to_parse.append(name)
    parsed = _parse_all(os.fspath(paths.root), to_parse)
    by_name = dict(zip(names, hashes, strict=True))
    for name, record in zip(to_parse, parsed, strict=True):
        records[name + "\0" + by_name[name]] = record
    report.parsed = len(to_parse)
    report.added = sum(1 for n in names if n not in old_files)
    report.removed = sum(1 for n in old_files if n not in by_name)
    report.changed = sum(1 for n in to_parse if n in old_files)

    # A file written less than RACY_NS before this scan may change again within the same
    # mtime tick; record no mtime for it so that the next check hashes it again.
    racy = scan_ns - loader.RACY_NS
    kept_mtimes = [m if m < racy else -1 for m in mtimes]
    files_blob = marshal.dumps(
        [names, array("q", kept_mtimes).tobytes(), array("q", sizes).tobytes()]
    )
    ordered = [records[n + "\0" + h] for n, h in zip(names, hashes, strict=True)]
    report.problems = [r[1] for r in ordered if r[0] is None]
    report.documents = len(ordered) - len(report.problems)
    same_content = (
        not force
        and report.parsed == 0
        and report.removed == 0
        and list(old_files) == names
        and all(old_files[n][2] == h for n, h in zip(names, hashes, strict=True))
    )
    generation = time.time_ns()
    existing = loader.open_file(folder) if same_content else None
    if existing is not None:
        # Only stats changed (a touch, a racy mtime now settled): keep every other section.
        sections = {
            name: existing.raw(name) for name in existing.header["sections"] if name != "files"
        }
        header = {k: v for k, v in existing.header.items() if k != "sections"}
        existing.close()
        sections["files"] = files_blob
    else:
        header, sections = _index_sections(ordered, names, hashes, paths)
        sections["files"] = files_blob
    header["generation"] = generation
    cache_files = {
        n: [m, s, h] for n, m, s, h in zip(names, kept_mtimes, sizes, hashes, strict=True)
    }
    try:
        persisted.write_atomic(
            os.path.join(folder, persisted.INDEX_NAME), persisted.pack(header, sections)
        )
        persisted.write_atomic(
            os.path.join(folder, persisted.CACHE_NAME),
            marshal.dumps({**_versions(), "files": cache_files, "records": records}),
        )
    except OSError as exc:
        raise IndexNotWritable(
            f"cannot write the search index in {folder}: {exc.strerror or exc}"
        ) from exc
    loader.write_state(folder, generation, stamp, scan_ns)
    report.rewritten = True
    report.seconds = time.perf_counter() - started
    return report


def _versions() -> dict[str, Any]:
    return {
        "format": persisted.FORMAT,
        "tokenizer": tokenize.VERSION,
        "byteorder": sys.byteorder,
    }


def _timestamp(text: str) -> float:
    if not text:
        return 0.0
    try:
        return timeutil.parse_time(text).timestamp()
    except ValueError:
        return 0.0


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
    vocab_blob, postings_blob = _postings([g[0] for g in good])
    header = {
        **_versions(),
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
        "numbers": persisted.numbers_blob(numbers),
        "vocab": vocab_blob,
        "postings": postings_blob,
        "texts": b"".join(texts),
    }
    return header, sections


def _postings(good: list[Record]) -> tuple[bytes, bytes]:
    """BM25F weights per term and document, as the vocab and postings sections."""
    count = len(good) or 1
    averages = [max(sum(sum(r[13 + f].values()) for r in good) / count, 1e-9) for f in range(3)]
    (wt, bt), (wb, bb), (wm, bm) = FIELDS["title"], FIELDS["body"], FIELDS["meta"]
    docs: dict[str, list[int]] = {}
    weights: dict[str, list[float]] = {}
    for doc, r in enumerate(good):
        title, body, meta = r[13], r[14], r[15]
        nt = wt / (1 - bt + bt * sum(title.values()) / averages[0])
        nb = wb / (1 - bb + bb * sum(body.values()) / averages[1])
        nm = wm / (1 - bm + bm * sum(meta.values()) / averages[2])
        tf: dict[str, float] = {t: c * nt for t, c in title.items()}
        for t, c in body.items():
            tf[t] = tf.get(t, 0.0) + c * nb
        for t, c in meta.items():
            tf[t] = tf.get(t, 0.0) + c * nm
        for t, value in tf.items():
            weight = value * (K1 + 1) / (K1 + value)
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
