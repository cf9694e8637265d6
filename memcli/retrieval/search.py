"""Layer 2: hybrid search over the persisted index.

    from memcli.retrieval.search import search
    for hit in search(repo_root, "psycopg OperationalError port 5433", limit=5):
        print(hit.id, hit.score, hit.snippet)

Scoring, per item in scope:

1. **BM25F** over the query's distinct terms (OR semantics): the sum of
   ``idf(t) * weight(t, item)``, with the weights precomputed by the index builder and
   ``idf = ln(1 + (N - df + 0.5) / (df + 0.5))``.
2. **Exact match**: the share of the query's whole identifiers, error codes, file names and
   versions that the item contains literally, and the share of its double-quoted phrases
   found verbatim in the item's text, fused with the BM25F score normalised by the best one:
   ``relevance = bm25 / best + 0.1 * identifier_share + 0.5 * phrase_share``. Identifiers
   weigh little on top of BM25F, which already gives a rare whole identifier a high IDF
   (more hurt recall on the benchmark, whose queries name options in other spellings); a
   quoted phrase is an explicit wish and weighs more.
3. **Re-ranking**: ``score = relevance * (1 + 0.1 * recency) * standing``, where recency halves
   every ``decay.half_life_days`` and standing (importance, verified confidence, use counts,
   branch) stays within about 0.5 to 1.6 (see :mod:`memcli.retrieval.context`).

Items of other projects are left out unless asked for, expired items always; a superseded
item gives way to its successor, which takes its place with the better of the two scores.

This module and what it imports never load scikit-learn, numpy or the YAML library while the
index is fresh (a test checks it in a fresh interpreter).
"""

from __future__ import annotations

import heapq
import math
import os
import re
from pathlib import Path

from memcli.paths import StorePaths
from memcli.retrieval import context, loader, persisted, receipts, tokenize

# Names for the type checker only: `typing` and `dataclasses` cost milliseconds to import on
# the query path, which runs as its own process on every search and session start.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EXACT_WEIGHT = 0.1
PHRASE_WEIGHT = 0.5  # a phrase the user put in quotes is a stronger wish than an identifier
PHRASE_POOL = 200  # phrases are checked in this many best BM25F candidates
RERANK_POOL = 300
SNIPPET_CHARS = 160


class SearchResult:
    """One hit: what `mem search` shows, and :meth:`to_dict` for ``--json``."""

    FIELDS = (
        "id",
        "title",
        "kind",
        "tags",
        "score",
        "age_days",
        "age",
        "updated",
        "project",
        "branch",
        "confidence",
        "importance",
        "snippet",
        "matched",
    )
    __slots__ = FIELDS

    def __init__(
        self,
        *,
        id: str,  # noqa: A002 - the field is called id everywhere else
        title: str,
        kind: str,
        tags: list[str],
        score: float,
        age_days: float,
        age: str,
        updated: str,
        project: str,
        branch: str,
        confidence: str,
        importance: float,
        snippet: str,
        matched: list[str],
    ) -> None:
        self.id = id
        self.title = title
        self.kind = kind
        self.tags = tags
        self.score = score
        self.age_days = age_days
        self.age = age
        self.updated = updated
        self.project = project
        self.branch = branch
        self.confidence = confidence
        self.importance = importance
        self.snippet = snippet
        self.matched = matched

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.FIELDS}

    def __repr__(self) -> str:
        return f"SearchResult(id={self.id!r}, score={self.score!r}, title={self.title!r})"


class SearchOutcome:
    """Results plus what the receipt records: candidates considered, problems met."""

    def __init__(
        self,
        results: list[SearchResult],
        candidates: int,
        problems: list[str],
        scope: str | None = None,
    ) -> None:
        self.results = results
        self.candidates = candidates
        self.problems = problems
        self.scope = scope  # the project searched, None for all


def search(
    root: Path | str,
    query: str,
    limit: int = 10,
    *,
    kind: str | None = None,
    project: str | None = None,
    all_projects: bool = False,
    record: bool = True,
    check: str = "auto",
) -> list[SearchResult]:
    """The ``limit`` best items for ``query`` in the store of the repository at ``root``."""
    return search_outcome(
        root,
        query,
        limit,
        kind=kind,
        project=project,
        all_projects=all_projects,
        record=record,
        check=check,
    ).results


def search_outcome(
    root: Path | str,
    query: str,
    limit: int = 10,
    *,
    kind: str | None = None,
    project: str | None = None,
    all_projects: bool = False,
    record: bool = True,
    check: str = "auto",
    now: float | None = None,
) -> SearchOutcome:
    """:func:`search`, with the candidate count and unreadable files reported too."""
    paths = StorePaths(Path(root))
    ctx = context.QueryContext.load(paths, project=project, all_projects=all_projects, now=now)
    parsed = tokenize.Query(query)
    outcome = loader.using_index(
        paths, check, lambda index: rank(index, ctx, parsed, max(limit, 0), kind)
    )
    outcome.scope = ctx.project
    if record:
        returned = [(r.id, r.score) for r in outcome.results]
        receipts.append(
            paths,
            "search",
            query=query,
            candidates=outcome.candidates,
            returned=returned,
            tokens=0,
            scope=ctx.project,
        )
    return outcome


def rank(
    index: loader.LoadedIndex,
    ctx: context.QueryContext,
    query: tokenize.Query,
    limit: int,
    kind: str | None = None,
) -> SearchOutcome:
    """Score, filter and order the items for one query (no side effects)."""
    docs = index.docs
    total = index.count
    scores: dict[int, float] = {}
    exact_hits: dict[int, int] = {}
    for term in query.terms:
        found = index.postings(term)
        if found is None:
            continue
        doc_numbers, weights = found
        idf = math.log(1.0 + (total - len(doc_numbers) + 0.5) / (len(doc_numbers) + 0.5))
        get = scores.get
        for doc, weight in zip(doc_numbers, weights, strict=True):
            scores[doc] = get(doc, 0.0) + idf * weight
        if term in query.exact:
            for doc in doc_numbers:
                exact_hits[doc] = exact_hits.get(doc, 0) + 1
    visible = ctx.keep_visible(index, scores, kind)
    if not visible or limit == 0:
        return SearchOutcome([], len(visible), index.problems)
    best = max(visible.values())
    phrase_hits: dict[int, int] = {}
    if query.phrases:
        for doc in heapq.nlargest(PHRASE_POOL, visible, key=visible.__getitem__):
            text = " ".join(index.text(doc).lower().split())
            found_phrases = sum(1 for phrase in query.phrases if phrase in text)
            if found_phrases:
                phrase_hits[doc] = found_phrases
    exact_share = EXACT_WEIGHT / len(query.exact) if query.exact else 0.0
    phrase_share = PHRASE_WEIGHT / len(query.phrases) if query.phrases else 0.0
    relevance = {
        doc: value / best
        + exact_share * exact_hits.get(doc, 0)
        + phrase_share * phrase_hits.get(doc, 0)
        for doc, value in visible.items()
    }
    # Re-ranking moves a score by a bounded factor, so only the best few hundred by
    # relevance can reach the top; weighing every candidate would cost more than scoring.
    pool = heapq.nlargest(max(RERANK_POOL, 20 * limit), relevance.items(), key=_by_score)
    factors = ctx.search_factors(index, [doc for doc, _ in pool])
    final = {doc: value * factor for (doc, value), factor in zip(pool, factors, strict=True)}
    successors: dict[int, list[int]] = docs["successors"]
    if successors:
        _give_way(final, successors, lambda d: bool(ctx.keep_visible(index, {d: 0.0}, kind)))
    top = heapq.nlargest(limit, final.items(), key=_by_score)
    results = [_result(index, ctx, doc, score, query) for doc, score in top]
    return SearchOutcome(results, len(visible), index.problems)


def _by_score(pair: tuple[int, float]) -> tuple[float, int]:
    return pair[1], -pair[0]  # ties: the earlier file name first, so results are stable


def _give_way(final: dict[int, float], successors: dict[int, list[int]], visible: Any) -> None:
    """A superseded item drops out; its visible successor gets at least its score."""
    for doc in [d for d in final if d in successors]:
        heirs = [s for s in successors[doc] if visible(s)]
        if not heirs:
            continue
        score = final.pop(doc)
        for heir in heirs:
            final[heir] = max(final.get(heir, 0.0), score)


def _result(
    index: loader.LoadedIndex,
    ctx: context.QueryContext,
    doc: int,
    score: float,
    query: tokenize.Query,
) -> SearchResult:
    docs = index.docs
    updated_ts = float(index.numbers["updated_ts"][doc])
    days = context.age_days(ctx.now, updated_ts)
    tags = docs["tags"][doc]
    text = index.text(doc)
    snippet, matched = make_snippet(text, query)
    return SearchResult(
        id=docs["ids"][doc],
        title=text.partition("\n")[0],
        kind=docs["kinds"][doc],
        tags=tags.split(persisted.TAG_SEPARATOR) if tags else [],
        score=round(score, 4),
        age_days=round(days, 2),
        age=context.age_text(days),
        updated=context.iso(updated_ts),
        project=docs["projects"][doc],
        branch=docs["branches"][doc],
        confidence=docs["confidence"][doc],
        importance=float(index.numbers["importance"][doc]),
        snippet=snippet,
        matched=matched,
    )


_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"\w(?:[\w]|[./:@+#-](?=\w))*")


def make_snippet(text: str, query: tokenize.Query) -> tuple[str, list[str]]:
    """The body sentence with the most query terms (the title line when none has any), cut to
    about :data:`SNIPPET_CHARS` around its first match, and the words in it that matched."""
    title, _, body = text.partition("\n")
    wanted = set(query.terms)
    best, best_count = "", 0
    for sentence in _SENTENCE.split(body):
        sentence = sentence.strip()
        if not sentence:
            continue
        count = len(wanted.intersection(tokenize.tokens(sentence)))
        if count > best_count:
            best, best_count = sentence, count
    if not best:
        best = next((s.strip() for s in body.split("\n") if s.strip()), title.strip())
    best = " ".join(best.split())
    matched: list[str] = []
    first = -1
    for word in _WORD.finditer(best):
        if wanted.intersection(tokenize.tokens(word.group())):
            if first < 0:
                first = word.start()
            if word.group() not in matched:
                matched.append(word.group())
    return _cut(best, first), matched


def _cut(flat: str, first: int) -> str:
    if len(flat) <= SNIPPET_CHARS:
        return flat
    start = max(0, min(first - SNIPPET_CHARS // 4, len(flat) - SNIPPET_CHARS)) if first > 0 else 0
    piece = flat[start : start + SNIPPET_CHARS].strip()
    return ("..." if start > 0 else "") + piece + "..."


def reindex(root: Path | str, *, force: bool = True) -> Any:
    """Rebuild the index (`mem reindex`); returns the builder's report."""
    from memcli.retrieval import index_builder

    return index_builder.build(StorePaths(Path(root)), force=force)


def index_path(root: Path | str) -> str:
    return os.path.join(loader.index_dir(StorePaths(Path(root))), persisted.INDEX_NAME)
