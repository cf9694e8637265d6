"""`mem eval QUERIES --baseline tfidf`: the index beside scikit-learn's plain TF-IDF.

scikit-learn is the ``eval`` extra; `make test` installs it. The missing-extra path is
exercised by hiding the module (``sys.modules["sklearn"] = None`` makes it unimportable).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from memcli import api
from memcli.errors import MemError
from memcli.evaluation import recall_eval, tfidf_baseline
from tests.evaluation.test_recall_eval import mem_eval


@pytest.fixture
def queries(repo: Path) -> Path:
    memory = api.Memory.open(repo)
    postgres = memory.add("pitfall", "Tests need Postgres on port 5433", "Set PGPORT=5433.")
    ruff = memory.add("decision", "Lint with ruff, not flake8", "ruff covers isort too.")
    memory.add("env", "Redis cache keys expire after one hour", "Redis TTL is 3600 s.")
    memory.add("task", "Old task", "Gone by now.", expires="2020-01-01")
    lines = [
        {"query": "postgres port", "relevant": [postgres.id]},
        {"query": "which linter: ruff", "relevant": [ruff.id]},
        {"query": "kubernetes helm", "relevant": [postgres.id]},
    ]
    path = repo / "queries.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return path


def test_rank_orders_documents_by_tfidf_cosine() -> None:
    documents = [("a", "postgres port 5433"), ("b", "ruff lint"), ("c", "postgres")]
    assert tfidf_baseline.rank(documents, ["postgres 5433", "ruff", "helm"], 5) == [
        ["a", "c"],
        ["b"],
        [],  # no shared word: nothing, rather than every document at score 0
    ]
    assert tfidf_baseline.rank([], ["x"], 5) == [[]]
    assert tfidf_baseline.rank([("a", "a")], ["a"], 5) == [[]]  # no word of 2+ letters


def test_baseline_report_scores_the_same_queries_in_the_same_scope(
    repo: Path, queries: Path
) -> None:
    labelled = recall_eval.load_queries(queries)
    report = tfidf_baseline.evaluate(repo, labelled, [1, 5], source=str(queries))
    assert [r.returned[:1] for r in report.results][:2] == [
        [labelled[0].relevant[0]],
        [labelled[1].relevant[0]],
    ]
    assert report.recall(1) == pytest.approx(2 / 3)
    assert all("Old task" not in i for r in report.results for i in r.returned)


def test_cli_prints_both_retrievers_side_by_side(queries: Path) -> None:
    code, out, _err = mem_eval(str(queries), "--baseline", "tfidf", "--k", "1,5")
    assert code == 0, out
    header = next(line for line in out.splitlines() if "mem index" in line)
    assert "tfidf" in header
    row = next(line for line in out.splitlines() if line.split()[:1] == ["1"])
    ours, theirs, difference = (float(x) for x in row.split()[1:])
    assert theirs == pytest.approx(0.667, abs=0.001)
    assert difference == pytest.approx(ours - theirs, abs=0.002)


def test_cli_json_holds_the_baseline_report(queries: Path) -> None:
    code, out, _err = mem_eval(str(queries), "--baseline", "tfidf", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["baseline"]["name"] == "tfidf"
    assert data["baseline"]["recall"]["1"] == pytest.approx(0.6667, abs=0.001)
    assert set(data["recall"]) == set(data["baseline"]["recall"])


def test_without_the_extra_one_line_says_what_to_install(
    queries: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "sklearn", None)  # as if scikit-learn were not installed
    with pytest.raises(MemError, match=r"pip install 'memcli\[eval\]'"):
        tfidf_baseline.require_scikit_learn()
    code, out, err = mem_eval(str(queries), "--baseline", "tfidf")
    assert code == 2 and out == ""
    assert err.strip() == "mem: --baseline tfidf needs scikit-learn: pip install 'memcli[eval]'"


def test_an_unknown_baseline_is_a_usage_error(queries: Path) -> None:
    code, _out, err = mem_eval(str(queries), "--baseline", "bm25")
    assert code == 2 and "--baseline" in err and "tfidf" in err
