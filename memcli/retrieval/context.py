"""What a query knows besides the index: settings, scope, use counts, and how items are weighed.

Shared by search and the Layer-1 index. Settings come from ``local/config.json`` (the plain
JSON copy that :mod:`memcli.config` refreshes) while it is newer than ``config.yaml``, so the
query path does not import the YAML library; an edited ``config.yaml`` is read properly once.

How strongly age counts differs by use. A search ranks by relevance first: age, importance,
confidence and use only nudge it (at most about +/-25 %), since an old root cause is still
the answer to the question it answers. The Layer-1 index has no query, so there they decide
the order on their own.
"""

from __future__ import annotations

import math
import os
import time

from memcli.paths import StorePaths
from memcli.retrieval import usage

# Names for the type checker only: `typing` and `dataclasses` cost milliseconds to import on
# the query path, which runs as its own process on every search and session start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any

    from memcli.retrieval.loader import LoadedIndex

DAY = 86400.0
SEARCH_RECENCY_WEIGHT = 0.1  # a brand-new item scores 10 % above an equally relevant old one
BRANCH_MATCH = 1.25  # an item filed under the current branch
BRANCH_OTHER = 0.5  # an item filed under another branch: shown, but after the rest
VERIFIED = 1.1
MAX_USE_BONUS = 0.25
MAX_STANDING = 1.2 * VERIFIED * (1 + MAX_USE_BONUS) * BRANCH_MATCH
INDEX_RECENCY_FLOOR = 0.2  # in the Layer-1 index an old item keeps a fifth of a new one's pull


def load_settings(paths: StorePaths) -> dict[str, Any]:
    """The effective settings, from the JSON copy when it is up to date."""
    try:
        config_mtime = os.stat(paths.config).st_mtime_ns
    except OSError:
        config_mtime = -1
    try:
        cache_mtime = os.stat(paths.config_cache).st_mtime_ns
    except OSError:
        cache_mtime = -2
    if config_mtime < 0 or cache_mtime >= config_mtime:
        import json

        from memcli import untrusted

        raw = untrusted.read_private(paths.config_cache)
        try:
            data = json.loads(raw) if raw else None
            if isinstance(data, dict):
                return data
        except ValueError:
            pass
        if config_mtime < 0:
            import copy

            from memcli.defaults import DEFAULTS

            return copy.deepcopy(DEFAULTS)
    from memcli import config

    settings = config.load(paths)
    try:
        os.utime(paths.config_cache)  # same content, so not rewritten: mark it current
    except OSError:
        pass
    return settings


def half_life_days(settings: dict[str, Any]) -> float:
    try:
        value = float(settings.get("decay", {}).get("half_life_days", 90))
    except (TypeError, ValueError):
        return 90.0
    return value if value > 0 else 90.0


class QueryContext:
    """Scope and weights for one query."""

    def __init__(
        self,
        paths: StorePaths,
        project: str | None,
        branch: str | None,
        half_life: float,
        now: float,
        hits: dict[str, int] | None = None,
        aliases: frozenset[str] = frozenset(),
    ) -> None:
        self.paths = paths
        self.project = project  # None: every project
        # Other names of the same project (its first commit, its folder, its remote), under
        # which older items were written; they count as the project.
        self.projects = frozenset({project, *aliases}) if project is not None else None
        self.branch = branch
        self.half_life = half_life
        self.now = now
        self.hits = hits or {}

    @classmethod
    def load(
        cls,
        paths: StorePaths,
        *,
        project: str | None = None,
        all_projects: bool = False,
        branch: str | None = None,
        now: float | None = None,
        settings: dict[str, Any] | None = None,
    ) -> QueryContext:
        from memcli import scope

        if settings is None:
            settings = load_settings(paths)
        resolved = scope.resolve(paths.root, paths.scope_cache)
        configured = settings.get("scope") or {}
        override = configured.get("project")
        current = str(override) if override else resolved["project"]
        wanted = None if all_projects else (project if project is not None else current or "")
        same: frozenset[str] = frozenset()
        if project is None and not all_projects:
            # The committed identity, the ones it replaced (scope.aliases) and this clone's own
            # (remote URL, root commit): items written under any of them are this project's.
            others = [str(a) for a in configured.get("aliases") or [] if a]
            if resolved["project"]:
                others.append(str(resolved["project"]))
            same = scope.aliases(paths.root, paths.scope_cache).union(others)
        return cls(
            paths=paths,
            project=wanted,
            branch=branch if branch is not None else resolved.get("branch"),
            half_life=half_life_days(settings),
            now=time.time() if now is None else now,
            hits=usage.hit_counts(paths),
            aliases=same,
        )

    def keep_visible(
        self, index: LoadedIndex, scores: dict[int, float], kind: str | None = None
    ) -> dict[int, float]:
        """The entries of ``scores`` whose items are in scope, of ``kind``, not expired."""
        docs = index.docs
        kept = scores
        if self.projects is not None:
            projects, wanted = docs["projects"], self.projects
            kept = {d: s for d, s in kept.items() if projects[d] in wanted}
        if kind is not None:
            kinds = docs["kinds"]
            kept = {d: s for d, s in kept.items() if kinds[d] == kind}
        if index.header.get("expiring", True):
            expires, now = index.numbers["expires_ts"], self.now
            kept = {d: s for d, s in kept.items() if not 0 < expires[d] <= now}
        return kept

    def recency(self, updated_ts: float) -> float:
        """1 for an item updated now, 0.5 one half-life ago (a future date counts as now)."""
        age = max(0.0, (self.now - updated_ts) / DAY) if updated_ts else 10 * self.half_life
        return float(0.5 ** (age / self.half_life))

    def weigh(
        self, index: LoadedIndex, doc_numbers: Iterable[int], base: float, recency_weight: float
    ) -> Iterator[tuple[int, float, float]]:
        """``(doc, recency, value)`` with ``value = (base + recency_weight * recency) * standing``.

        Standing is importance (0.8 to 1.2), verified confidence (x1.1), use (up to x1.25,
        logarithmic in the hit count) and branch (x1.25 for the current one, x0.5 for
        another), so never above :data:`MAX_STANDING`. One loop with everything in locals:
        the Layer-1 index may weigh every item.
        """
        docs, numbers = index.docs, index.numbers
        ids, confidence, branches = docs["ids"], docs["confidence"], docs["branches"]
        importance, updated = numbers["importance"], numbers["updated_ts"]
        now, half_life, hits, current = self.now, self.half_life, self.hits, self.branch
        for doc in doc_numbers:
            stamp = updated[doc]
            age = (now - stamp) / DAY if stamp else 10 * half_life
            recency = 0.5 ** (max(age, 0.0) / half_life)
            value = (base + recency_weight * recency) * (0.8 + 0.4 * importance[doc])
            if confidence[doc] == "verified":
                value *= VERIFIED
            if hits:
                count = hits.get(ids[doc], 0)
                if count > 0:
                    value *= 1.0 + min(0.05 * math.log2(1 + count), MAX_USE_BONUS)
            branch = branches[doc]
            if branch:
                value *= BRANCH_MATCH if branch == current else BRANCH_OTHER
            yield doc, recency, value

    def search_factors(self, index: LoadedIndex, doc_numbers: list[int]) -> list[float]:
        weighed = self.weigh(index, doc_numbers, 1.0, SEARCH_RECENCY_WEIGHT)
        return [value for _doc, _recency, value in weighed]

    def index_values(
        self, index: LoadedIndex, doc_numbers: Iterable[int]
    ) -> Iterator[tuple[int, float, float]]:
        """The order of the Layer-1 index: recency and standing alone decide it."""
        return self.weigh(index, doc_numbers, INDEX_RECENCY_FLOOR, 1.0)


def age_days(now: float, stamp: float) -> float:
    return max(0.0, (now - stamp) / DAY) if stamp else 0.0


def age_text(days: float) -> str:
    """A short age such as ``5h``, ``3d``, ``4mo`` or ``2y``."""
    if days < 1 / 24:
        return f"{max(int(days * 1440), 0)}m"
    if days < 1:
        return f"{int(days * 24)}h"
    if days < 60:
        return f"{int(days)}d"
    if days < 730:
        return f"{int(days / 30)}mo"
    return f"{int(days / 365)}y"


def iso(stamp: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(stamp)) if stamp else ""


def estimate_tokens(text: str) -> int:
    """Tokens as characters / 4, rounded up: close for English and code in common tokenizers."""
    return (len(text) + 3) // 4
