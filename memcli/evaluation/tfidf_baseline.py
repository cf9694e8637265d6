"""The reference retriever of `mem eval QUERIES --baseline tfidf`: scikit-learn's plain TF-IDF.

It ranks the same items `mem search` would consider (this project's, or every project's with
``--all-projects``; expired ones left out) by the cosine of sublinear TF-IDF vectors of title,
body and tags, with scikit-learn's defaults otherwise: the retriever ``bench/baselines.py``
calls ``sklearn-tfidf``. scikit-learn is an optional extra (``pip install 'memcli[eval]'``);
the index itself does not use it (docs/retrieval.md says why, with numbers).

This is the only module that imports scikit-learn or numpy, and only inside its functions.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from memcli.errors import MemError
from memcli.evaluation.recall_eval import LabelledQuery, QueryResult, RecallReport

INSTALL_HINT = "--baseline tfidf needs scikit-learn: pip install 'memcli[eval]'"
BASELINES = ("tfidf",)


def require_scikit_learn() -> None:
    """Fail with the install command when the ``eval`` extra is missing (before any work)."""
    if importlib.util.find_spec("sklearn") is None:
        raise MemError(INSTALL_HINT)


def rank(documents: list[tuple[str, str]], queries: list[str], depth: int) -> list[list[str]]:
    """For each query, the ids of the ``depth`` best ``(id, text)`` documents, best first."""
    require_scikit_learn()
    import numpy
    from sklearn.feature_extraction.text import TfidfVectorizer

    if not documents:
        return [[] for _ in queries]
    vectorizer = TfidfVectorizer(sublinear_tf=True)
    try:
        matrix = vectorizer.fit_transform([text for _id, text in documents])
    except ValueError:  # no word in any document: nothing can match
        return [[] for _ in queries]
    ids = [item_id for item_id, _text in documents]
    ranked: list[list[str]] = []
    for query in queries:
        scores = (vectorizer.transform([query]) @ matrix.T).toarray()[0]
        order = numpy.argsort(-scores, kind="stable")[:depth]
        ranked.append([ids[n] for n in order if scores[n] > 0])
    return ranked


def evaluate(
    root: Path,
    queries: list[LabelledQuery],
    ks: list[int],
    *,
    source: str = "",
    all_projects: bool = False,
) -> RecallReport:
    """Recall@k of the TF-IDF baseline on the same queries, items and scope as the index."""
    require_scikit_learn()
    from memcli import timeutil
    from memcli.api import Memory
    from memcli.paths import StorePaths
    from memcli.retrieval import context

    ctx = context.QueryContext.load(StorePaths(root), all_projects=all_projects)
    now = timeutil.now()
    items = Memory(root).items()
    documents = [
        (item.id, "\n".join([item.title, item.body, " ".join(item.tags)]))
        for item in items
        if (ctx.projects is None or item.scope.get("project", "") in ctx.projects)
        and not (item.expires and item.expires <= now)
    ]
    ranked = rank(documents, [q.query for q in queries], max(ks))
    results = [QueryResult(q, ids) for q, ids in zip(queries, ranked, strict=True)]
    known = {item.id for item in items}
    unknown = sorted({r for q in queries for r in q.relevant if r not in known})
    return RecallReport(source, ks, results, unknown, ctx.project)
