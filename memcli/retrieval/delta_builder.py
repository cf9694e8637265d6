"""Write the delta of a few changed item files over the full index (see
:mod:`memcli.retrieval.delta`): read, hash and parse only the files whose stat changed since
the last verification, and never touch the postings of the others.

The first search after an edit runs this (from :mod:`memcli.retrieval.loader`, without the
full builder), so it imports no more than that search needs: the item's own layout reader
and validation, no YAML library, no ``hashlib``, no item store.
"""

from __future__ import annotations

import os
import time

from memcli import filestamps, itemfile, untrusted
from memcli.paths import StorePaths
from memcli.retrieval import delta, index_files, persisted
from memcli.retrieval.index_records import BuildReport, record_of_data

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

Scan = tuple[list[str], list[int], list[int]]


def update(
    paths: StorePaths,
    folder: str,
    base: persisted.IndexFile,
    scanned: Scan,
    scan_ns: int,
    recorded: index_files.Recorded | None = None,
) -> Any:
    """A BuildReport after writing the delta for what changed; None when a full build is
    due instead (no verified state to compare with, or too many changes). ``scan_ns``: a
    time before any item file is read (an mtime older by the racy window is trusted);
    ``recorded``: ``files.bin``, if the caller read it."""
    started = time.perf_counter()
    base_generation = int(base.header["generation"])
    previous = delta.read(folder, base_generation)
    generation = int(previous["generation"]) if previous else base_generation
    if recorded is None:
        recorded = index_files.recorded_files(folder)
    if recorded is None or recorded[0] != generation:
        return None
    names, mtimes, sizes = scanned
    touched = index_files.touched_files(scanned, recorded)
    present = set(names) if touched else set()
    changes: dict[str, list[Any]] = dict(previous["changes"]) if previous else {}
    base_names, base_hashes, base_problems = base.load("names")
    base_hash = dict(zip(base_names, base_hashes, strict=True))
    broken_in_base = {delta.problem_file(p) for p in base_problems}
    limit = max(delta.MIN_CHANGES, int(delta.MAX_SHARE * int(base.header["documents"])))
    if len(set(touched) | set(changes)) > limit:
        return None
    shown_dir = itemfile.shown(paths, paths.items) + os.sep
    items_dir = os.fspath(paths.items)
    report = BuildReport(scanned=len(names))
    for name in touched:
        if name not in present:
            if name in base_hash or name in broken_in_base:
                changes[name] = ["", None]
            else:
                changes.pop(name, None)
            report.removed += 1
            continue
        try:
            data = untrusted.read_bytes(os.path.join(items_dir, name))
        except untrusted.Unreadable as exc:
            changes[name] = ["", [None, f"{shown_dir}{name}:1: (file): {exc}"]]
            continue
        report.hashed += 1
        digest = filestamps.content_hash(data)
        if base_hash.get(name) == digest:
            changes.pop(name, None)  # back to what the full index holds
            continue
        if name in changes and changes[name][0] == digest:
            continue
        item_data, found = itemfile.parse_named(shown_dir + name, name, data)
        report.parsed += 1
        if item_data is None:
            record: list[Any] = [None, str(found[0]) if found else f"{name}: unreadable"]
        else:
            record = record_of_data(item_data)
        report.changed += name in base_hash
        report.added += name not in base_hash
        changes[name] = [digest, record]
    problems = [p for p in base_problems if delta.problem_file(p) not in changes]
    problems += [r[1] for _, r in changes.values() if r is not None and r[0] is None]
    new_generation = time.time_ns()
    dropped = sorted(base_names.index(n) for n in changes if n in base_hash)
    content = {"changes": changes, "problems": problems, "dropped": dropped}
    delta.write(folder, {"base": base_generation, "generation": new_generation, **content})
    racy = scan_ns - filestamps.racy_window(mtimes)
    kept = [m if m < racy else -1 for m in mtimes]
    index_files.write_files(folder, new_generation, (names, kept, sizes))
    report.documents = (
        int(base.header["documents"])
        + sum(1 for n, (_, r) in changes.items() if r is not None and r[0] is not None)
        - sum(1 for n in changes if n in base_hash)
    )
    report.problems = problems
    report.rewritten = True
    report.generation = new_generation
    report.seconds = time.perf_counter() - started
    return report
