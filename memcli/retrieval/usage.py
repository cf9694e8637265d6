"""Local state, never committed: use counts (``usage.json``) and receipts (``receipts.jsonl``).

Use counts weigh retrieval. A use is an item opened in full (`mem show`, the MCP server's
``memory_get``), not an item merely listed by a search: counting search results would
feed back into the ranking that produced them (measured: recall@10 on the benchmark fell
from 0.840 to 0.827 over its 531 queries). They live under ``local/`` so that reading memory
never dirties the working tree and two branches never conflict over counters.
``usage.json`` maps an item id to ``{"hits": N, "last": ISO time}`` (keyed by id, so
`mem forget` can scrub it).

A receipt is one JSON line per retrieval (search, index, recall): the query, how many items
were candidates, the ids and scores returned and the tokens injected. It answers "why was this
(not) retrieved?". Lines are appended with one ``write`` on an ``O_APPEND`` descriptor, so
parallel hooks never interleave them.
"""

from __future__ import annotations

import json
import os
import time

from memcli.capture import fastjson
from memcli.paths import StorePaths
from memcli.privacy import owner_only

# Names for the type checker only: `typing` and `dataclasses` cost milliseconds to import on
# the query path, which runs as its own process on every search and session start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

RECEIPTS_NAME = "receipts.jsonl"
RECEIPTS_MAX_BYTES = 5_000_000  # past this the older half is dropped


def receipts_path(paths: StorePaths) -> str:
    return os.path.join(os.fspath(paths.local), RECEIPTS_NAME)


def _stamp(now: float | None = None) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() if now is None else now))


def load_usage(paths: StorePaths) -> dict[str, dict[str, Any]]:
    try:
        with open(paths.usage, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): v for k, v in data.items() if isinstance(v, dict)}


def hit_counts(paths: StorePaths) -> dict[str, int]:
    counts: dict[str, int] = {}
    for key, value in load_usage(paths).items():
        hits = value.get("hits", 0)
        if isinstance(hits, int) and hits > 0:
            counts[key] = hits
    return counts


def record_use(paths: StorePaths, item_ids: Iterable[str]) -> None:
    """Count one use of each item (shown in full, fetched by a tool). Never raises."""
    ids = list(dict.fromkeys(item_ids))
    if not ids or not paths.local.is_dir():
        return
    data = load_usage(paths)
    stamp = _stamp()
    for item_id in ids:
        entry = data.setdefault(item_id, {})
        hits = entry.get("hits", 0)
        entry["hits"] = (hits if isinstance(hits, int) else 0) + 1
        entry["last"] = stamp
    text = json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n"
    try:
        owner_only.write_atomic(os.fspath(paths.usage), text.encode("utf-8"))
    except OSError:
        pass


def append_receipt(
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
        from memcli.retrieval.context import load_settings

        use_store_cache(os.fspath(paths.local))
        query = Redactor.from_settings(load_settings(paths)).mask(query)
    record = {
        "time": _stamp(),
        "op": operation,
        "query": query,
        "scope": scope,
        "candidates": candidates,
        "returned": [[item_id, round(score, 4)] for item_id, score in returned],
        "tokens": tokens,
    }
    line = (json.dumps(record, ensure_ascii=True, separators=(",", ":")) + "\n").encode("ascii")
    path = receipts_path(paths)
    try:
        fd, _ = owner_only.open_append(path)
        try:
            os.write(fd, line)
            size = os.fstat(fd).st_size
        finally:
            os.close(fd)
        if size > RECEIPTS_MAX_BYTES:
            _halve(path)
    except OSError:
        pass


def _halve(path: str) -> None:
    with open(path, "rb") as handle:
        lines = handle.readlines()
    owner_only.write_atomic(path, b"".join(lines[len(lines) // 2 :]))


def read_receipts(paths: StorePaths, limit: int = 20) -> list[dict[str, Any]]:
    """The most recent receipts, newest last (what `mem log` shows); bad lines skipped."""
    try:
        with open(receipts_path(paths), encoding="utf-8", errors="replace") as handle:
            lines = handle.readlines()
    except OSError:
        return []
    return fastjson.records(lines[-limit:] if limit > 0 else [])
