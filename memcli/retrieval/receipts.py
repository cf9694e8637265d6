"""Receipts, kept under ``local/`` and never committed: one JSON line per retrieval.

A receipt is one line per search, index or recall: the query (masked), how many items were
candidates, the ids and scores returned and the tokens injected. It answers "why was this
(not) retrieved?" (`mem log`). Lines are appended with one ``write`` on an ``O_APPEND``
descriptor, so parallel hooks never interleave them.
"""

from __future__ import annotations

import json
import os
import time

from memcli.fastparse import fastjson
from memcli.paths import StorePaths
from memcli.privacy import owner_only
from memcli.retrieval import context

# Names for the type checker only: `typing` costs milliseconds to import on the query path.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

NAME = "receipts.jsonl"
MAX_BYTES = 5_000_000  # past this the older half is dropped


def path_of(paths: StorePaths) -> str:
    return os.path.join(os.fspath(paths.local), NAME)


def append(
    paths: StorePaths,
    operation: str,
    *,
    query: str | None,
    candidates: int,
    returned: list[tuple[str, float]],
    tokens: int,
    scope: str | None,
) -> None:
    """Append one receipt line, the query masked like everything else written under
    ``.memory/``; a missing or read-only ``local/`` is silently skipped."""
    if not paths.local.is_dir():
        return
    if query:
        from memcli.privacy.redactor import Redactor, use_store_cache

        use_store_cache(os.fspath(paths.local))
        query = Redactor.from_settings(context.load_settings(paths)).mask(query)
    record = {
        "time": context.iso(time.time()),
        "op": operation,
        "query": query,
        "scope": scope,
        "candidates": candidates,
        "returned": [[item_id, round(score, 4)] for item_id, score in returned],
        "tokens": tokens,
    }
    line = (json.dumps(record, ensure_ascii=True, separators=(",", ":")) + "\n").encode("ascii")
    path = path_of(paths)
    try:
        fd, _ = owner_only.open_append(path)
        try:
            os.write(fd, line)
            size = os.fstat(fd).st_size
        finally:
            os.close(fd)
        if size > MAX_BYTES:
            _halve(path)
    except OSError:
        pass


def _halve(path: str) -> None:
    with open(path, "rb") as handle:
        lines = handle.readlines()
    owner_only.write_atomic(path, b"".join(lines[len(lines) // 2 :]))


def read(paths: StorePaths, limit: int = 20) -> list[dict[str, Any]]:
    """The most recent receipts, newest last (what `mem log` shows); bad lines skipped."""
    try:
        with open(path_of(paths), encoding="utf-8", errors="replace") as handle:
            lines = handle.readlines()
    except OSError:
        return []
    return fastjson.records(lines[-limit:] if limit > 0 else [])
