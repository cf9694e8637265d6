"""Recall@k of the store against labelled queries (`mem eval QUERIES.jsonl`).

The queries file holds one JSON object per line::

    {"query": "tests fail to connect to postgres", "relevant": ["3y3bdxx90x"]}

``query`` is what someone would search for, ``relevant`` the ids of the items that answer it.
Blank lines are skipped; other keys (a note, a name) are ignored. Anything else is an error
naming ``file:line``.

Each query runs through :func:`memcli.retrieval.search.search_outcome` exactly as `mem search`
runs it (same scope, same ranking), without writing receipts. For each k:

- **recall@k**: the share of a query's relevant items found in its top k, averaged over the
  queries (each query weighs the same, whatever the number of its relevant items);
- **hit@k**: the share of queries with at least one relevant item in their top k (what
  ``bench/`` calls recall@k; the two are equal when every query has one relevant item).

``--min-recall R`` compares R with recall@k at the **largest** k asked for: the number a
retrieval regression shows up in first without being noise from the exact order at the top.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memcli import progress
from memcli.errors import MemError

DEFAULT_KS = (1, 5, 10)
MAX_K = 100


@dataclass
class LabelledQuery:
    line: int
    query: str
    relevant: list[str]


@dataclass
class QueryResult:
    query: LabelledQuery
    returned: list[str]  # the top max-k ids, best first

    def found(self, k: int) -> list[str]:
        top = set(self.returned[:k])
        return [r for r in self.query.relevant if r in top]

    def recall(self, k: int) -> float:
        return len(self.found(k)) / len(self.query.relevant)

    def first_rank(self) -> int | None:
        """The 1-based rank of the best-placed relevant item, None when none was returned."""
        wanted = set(self.query.relevant)
        return next((n for n, i in enumerate(self.returned, 1) if i in wanted), None)


@dataclass
class RecallReport:
    source: str
    ks: list[int]
    results: list[QueryResult]
    unknown_ids: list[str] = field(default_factory=list)  # relevant ids no item file has
    scope: str | None = None

    def recall(self, k: int) -> float:
        return sum(r.recall(k) for r in self.results) / len(self.results) if self.results else 0.0

    def hits(self, k: int) -> float:
        if not self.results:
            return 0.0
        return sum(1 for r in self.results if r.found(k)) / len(self.results)

    @property
    def gate_k(self) -> int:
        """The k that ``--min-recall`` is checked at: the largest one."""
        return max(self.ks)

    def missed(self, k: int) -> list[QueryResult]:
        """Queries that did not get all of their relevant items in their top k."""
        return [r for r in self.results if r.recall(k) < 1.0]

    def to_dict(self) -> dict[str, Any]:
        return {
            "queries_file": self.source,
            "queries": len(self.results),
            "scope": self.scope,
            "k": self.ks,
            "recall": {str(k): round(self.recall(k), 4) for k in self.ks},
            "hit": {str(k): round(self.hits(k), 4) for k in self.ks},
            "gate_k": self.gate_k,
            "unknown_ids": self.unknown_ids,
            "results": [
                {
                    "line": r.query.line,
                    "query": r.query.query,
                    "relevant": r.query.relevant,
                    "returned": r.returned,
                    "first_rank": r.first_rank(),
                    "recall": {str(k): round(r.recall(k), 4) for k in self.ks},
                }
                for r in self.results
            ],
        }


def parse_ks(text: str) -> list[int]:
    """``"1,5,10"`` -> ``[1, 5, 10]``: distinct whole numbers from 1 to :data:`MAX_K`, sorted."""
    ks: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        if not part.isdigit() or not 1 <= int(part) <= MAX_K:
            raise MemError(f"{text!r} is not a list of whole numbers from 1 to {MAX_K}", field="k")
        ks.add(int(part))
    if not ks:
        raise MemError("give at least one k, such as 1,5,10", field="k")
    return sorted(ks)


def load_queries(path: Path) -> list[LabelledQuery]:
    """The labelled queries of a JSONL file; a bad line raises ``MemError`` naming file:line."""
    shown = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MemError(f"{shown}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise MemError(f"{shown}: cannot read: {exc}") from None
    queries: list[LabelledQuery] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{shown}:{number}"
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise MemError(f"{where}: invalid JSON: {exc}") from None
        if not isinstance(record, dict):
            raise MemError(f'{where}: expected an object {{"query": ..., "relevant": [ids]}}')
        query = record.get("query")
        if not isinstance(query, str) or not query.strip():
            raise MemError(f"{where}: query: must be a non-empty string")
        relevant = record.get("relevant")
        if (
            not isinstance(relevant, list)
            or not relevant
            or not all(isinstance(r, str) and r.strip() for r in relevant)
        ):
            raise MemError(f"{where}: relevant: must be a non-empty list of item ids")
        queries.append(
            LabelledQuery(number, query, list(dict.fromkeys(r.strip() for r in relevant)))
        )
    if not queries:
        raise MemError(f"{shown}: no queries in the file")
    return queries


def evaluate(
    root: Path,
    queries: list[LabelledQuery],
    ks: list[int],
    *,
    source: str = "",
    all_projects: bool = False,
) -> RecallReport:
    """Run every query through search's ranking (no receipts) and score the top ``max(ks)``.

    The ranking is :func:`memcli.retrieval.search.rank`, what `mem search` runs, with one
    query context and the index opened once for all the queries.
    """
    from memcli.paths import StorePaths
    from memcli.retrieval import context, loader, search, tokenize

    paths = StorePaths(root)
    ctx = context.QueryContext.load(paths, all_projects=all_projects)
    depth = max(ks)

    def run_all(index: loader.LoadedIndex) -> list[list[str]]:
        ranked = []
        for number, labelled in enumerate(queries):
            progress.report("running queries", number, len(queries))
            outcome = search.rank(index, ctx, tokenize.Query(labelled.query), depth)
            ranked.append([r.id for r in outcome.results])
        return ranked

    ranked = loader.using_index(paths, "auto", run_all)
    results = [QueryResult(q, ids) for q, ids in zip(queries, ranked, strict=True)]
    names, _mtimes, _sizes = loader.scan_items(str(paths.items))
    known = {name.rsplit(".", 1)[0] for name in names}
    unknown = sorted({r for q in queries for r in q.relevant if r not in known})
    return RecallReport(source, ks, results, unknown, ctx.project)
