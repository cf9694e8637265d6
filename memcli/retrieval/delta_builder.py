"""Write the delta of a few changed item files over the full index (see
:mod:`memcli.retrieval.delta`): read, hash and parse only the files whose stat changed since
the last verification, and never touch the postings of the others."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from memcli import itemcache, untrusted
from memcli.paths import StorePaths
from memcli.retrieval import delta, index_files, persisted
from memcli.retrieval.index_records import BuildReport, record_of

Scan = tuple[list[str], list[int], list[int]]


def update(
    paths: StorePaths, folder: str, base: persisted.IndexFile, scanned: Scan, scan_ns: int
) -> Any:
    """A BuildReport after writing the delta for what changed; None when a full build is
    due instead (no verified state to compare with, or too many changes)."""
    from memcli.store import ItemStore

    started = time.perf_counter()
    base_generation = int(base.header["generation"])
    previous = delta.read(folder, base_generation)
    generation = int(previous["generation"]) if previous else base_generation
    verified = index_files.read_files(folder, generation)
    if verified is None:
        return None
    names, mtimes, sizes = scanned
    if verified[0] == names:  # the usual case: the same files, compare stats in place
        touched = [
            n
            for n, m, s, m0, s0 in zip(names, mtimes, sizes, verified[1], verified[2], strict=True)
            if m != m0 or s != s0 or m0 < 0
        ]
    else:
        old = {n: (m, s) for n, m, s in zip(*verified, strict=True)}
        current = {n: (m, s) for n, m, s in zip(names, mtimes, sizes, strict=True)}
        touched = [n for n in names if old.get(n) != current[n] or current[n][0] < 0]
        touched += [n for n in old if n not in current]
    present = set(names) if touched else set()
    changes: dict[str, list[Any]] = dict(previous["changes"]) if previous else {}
    base_names, base_hashes, base_problems = base.load("names")
    base_hash = dict(zip(base_names, base_hashes, strict=True))
    broken_in_base = {delta.problem_file(p) for p in base_problems}
    limit = max(delta.MIN_CHANGES, int(delta.MAX_SHARE * int(base.header["documents"])))
    if len(set(touched) | set(changes)) > limit:
        return None
    store = ItemStore(paths)
    report = BuildReport(scanned=len(names))
    for name in touched:
        if name not in present:
            if name in base_hash or name in broken_in_base:
                changes[name] = ["", None]
            else:
                changes.pop(name, None)
            report.removed += 1
            continue
        path = Path(paths.items, name)
        try:
            data = untrusted.read_bytes(path)
        except untrusted.Unreadable as exc:
            changes[name] = ["", [None, f"{store.display(path)}:1: (file): {exc}"]]
            continue
        report.hashed += 1
        digest = itemcache.content_hash(data)
        if base_hash.get(name) == digest:
            changes.pop(name, None)  # back to what the full index holds
            continue
        if name in changes and changes[name][0] == digest:
            continue
        item_data, found = store.parse_bytes(path, data)
        report.parsed += 1
        if item_data is None:
            record: list[Any] = [None, str(found[0]) if found else f"{name}: unreadable"]
        else:
            from memcli.model import Item

            record = record_of(Item.from_dict(item_data))
        report.changed += name in base_hash
        report.added += name not in base_hash
        changes[name] = [digest, record]
    problems = [p for p in base_problems if delta.problem_file(p) not in changes]
    problems += [r[1] for _, r in changes.values() if r is not None and r[0] is None]
    new_generation = time.time_ns()
    dropped = sorted(base_names.index(n) for n in changes if n in base_hash)
    content = {"changes": changes, "problems": problems, "dropped": dropped}
    delta.write(folder, {"base": base_generation, "generation": new_generation, **content})
    racy = scan_ns - itemcache.racy_window({"": (mtimes[0], 0, 0)} if mtimes else {})
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
