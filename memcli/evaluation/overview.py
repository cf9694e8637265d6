"""The numbers behind the `mem stats` dashboard, as plain data (JSON-ready).

Items by kind and by age, the verified share, the items retrieved most (from the receipts log
and the use counts), the effective injection rate (:mod:`memcli.evaluation.sessions_eval`),
and the sizes of the store, the index and the local state.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from typing import Any

from memcli import timeutil
from memcli.api import Memory
from memcli.retrieval import loader, receipts, usage

# Age buckets by the time an item was last updated: (label, upper bound in days).
AGE_BUCKETS = (
    ("< 1 day", 1.0),
    ("< 1 week", 7.0),
    ("< 1 month", 30.0),
    ("< 3 months", 91.0),
    ("< 1 year", 365.0),
    ("older", float("inf")),
)
TOP = 5
# Reading every captured session costs time on a store with a long history; past this many
# bytes of raw captures the dashboard leaves the rate to `mem eval --sessions`.
SESSIONS_SCAN_BYTES = 50_000_000


def _age_bucket(days: float) -> str:
    return next(label for label, bound in AGE_BUCKETS if days < bound)


def _folder_bytes(folder: str) -> int:
    total = 0
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                try:
                    if entry.is_file():
                        total += entry.stat().st_size
                except OSError:
                    continue
    except OSError:
        return 0
    return total


def overview(memory: Memory, *, with_sessions: bool = True) -> dict[str, Any]:
    """Everything the dashboard shows; unreadable parts are left out, never raised."""
    items = memory.items()
    now = time.time()
    by_kind = Counter(i.kind for i in items)
    by_age: Counter[str] = Counter()
    expired = 0
    for item in items:
        try:
            days = max(0.0, (now - timeutil.parse_time(item.updated).timestamp()) / 86400)
        except ValueError:
            continue
        by_age[_age_bucket(days)] += 1
        if item.expires:
            try:
                expired += timeutil.parse_time(item.expires).timestamp() <= now
            except ValueError:
                pass
    verified = sum(1 for i in items if i.confidence == "verified")
    stats = memory.stats()
    data: dict[str, Any] = {
        "items": len(items),
        "by_kind": dict(sorted(by_kind.items(), key=lambda kv: (-kv[1], kv[0]))),
        "by_age": {label: by_age.get(label, 0) for label, _ in AGE_BUCKETS},
        "verified": verified,
        "verified_share": round(verified / len(items), 4) if items else None,
        "expired": expired,
        "top_retrieved": top_retrieved(memory, {i.id: i.title for i in items}),
        "sizes": {
            "store_bytes": stats["store_bytes"],
            "files": stats["files"],
            "index_bytes": _folder_bytes(loader.index_dir(memory.paths)),
            "local_bytes": stats["local_bytes"],
        },
        "sessions": stats["sessions"],
        "pending_observations": sum(stats["pending_observations"].values()),
        "broken_files": stats["broken_files"],
        "summarizer": stats["summarizer"],
        "injection": None,
    }
    raw_bytes = _folder_bytes(os.fspath(memory.paths.raw))
    if with_sessions and raw_bytes <= SESSIONS_SCAN_BYTES:
        try:
            from memcli.evaluation.sessions_eval import evaluate_sessions

            data["injection"] = evaluate_sessions(memory).overall()
        except Exception:  # noqa: BLE001 - a dashboard shows what it can
            data["injection"] = None
    return data


def top_retrieved(memory: Memory, titles: dict[str, str]) -> list[dict[str, Any]]:
    """The items returned most often by retrievals (receipts), with how often each was opened."""
    returned: Counter[str] = Counter()
    for receipt in receipts.read(memory.paths, limit=10**9):
        for entry in receipt.get("returned") or []:
            item_id = entry[0] if isinstance(entry, list) and entry else entry
            if isinstance(item_id, str):
                returned[item_id] += 1
    opened = usage.hit_counts(memory.paths)
    ranked = sorted(set(returned) | set(opened), key=lambda i: (-returned[i], -opened.get(i, 0), i))
    return [
        {
            "id": item_id,
            "title": titles.get(item_id, "(no longer in the store)"),
            "retrieved": returned[item_id],
            "opened": opened.get(item_id, 0),
        }
        for item_id in ranked[:TOP]
    ]
