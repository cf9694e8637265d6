"""Local state, never committed: use counts (``usage.json``).

Use counts weigh retrieval. A use is an item opened in full (`mem show`, the MCP server's
``memory_get``), not an item merely listed by a search: counting search results would
feed back into the ranking that produced them (measured: recall@10 on the benchmark fell
from 0.840 to 0.827 over its 531 queries). They live under ``local/`` so that reading memory
never dirties the working tree and two branches never conflict over counters.
``usage.json`` maps an item id to ``{"hits": N, "last": ISO time}`` (keyed by id, so
`mem forget` can scrub it). What each retrieval returned is kept apart, in
:mod:`memcli.retrieval.receipts`.
"""

from __future__ import annotations

import json
import os
import time

from memcli.paths import StorePaths
from memcli.privacy import owner_only

# Names for the type checker only: `typing` and `dataclasses` cost milliseconds to import on
# the query path, which runs as its own process on every search and session start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any


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
