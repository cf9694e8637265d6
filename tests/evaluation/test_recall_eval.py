"""`mem eval QUERIES.jsonl`: recall@k and hit@k reproduced by hand on a small labelled set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from memcli import api
from memcli.cli import eval_cmd
from memcli.errors import MemError
from memcli.evaluation import recall_eval

runner = CliRunner()


def make_app() -> typer.Typer:
    app = typer.Typer(pretty_exceptions_enable=False, rich_markup_mode=None)

    @app.callback()
    def main() -> None:
        """Test app."""

    app.command("eval")(eval_cmd.eval_)
    return app


def mem_eval(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(make_app(), ["eval", *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def labelled(repo: Path) -> Path:
    """Four queries with hand-computed ranks:

    q1 'postgres 5433' -> postgres item first             recall@1 1,   @5 1
    q2 'ruff flake8'   -> [ruff item, an unknown id]      recall@1 0.5, @5 0.5
    q3 'kubernetes helm chart' -> its item shares no word recall@1 0,   @5 0
    q4 'redis cache'   -> the pip-cache item comes second recall@1 0,   @5 1
    """
    memory = api.Memory.open(repo)
    postgres = memory.add("pitfall", "Tests need Postgres on port 5433", "Set PGPORT=5433.")
    ruff = memory.add("decision", "Lint with ruff, not flake8", "ruff covers isort too.")
    deploy = memory.add("convention", "Deploy blue-green on Fridays", "Never on Mondays.")
    memory.add("env", "Redis cache keys expire after one hour", "Redis TTL is 3600 s.")
    pip_cache = memory.add("pitfall", "Clear the pip cache when wheels are stale", "pip purge.")
    lines = [
        {"query": "postgres 5433", "relevant": [postgres.id]},
        {"query": "ruff flake8", "relevant": [ruff.id, "nosuchitem"], "note": "ignored"},
        {"query": "kubernetes helm chart", "relevant": [deploy.id]},
        {"query": "redis cache", "relevant": [pip_cache.id]},
    ]
    path = repo / "queries.jsonl"
    path.write_text(
        "\n".join(json.dumps(x) for x in lines[:2])
        + "\n\n"
        + "\n".join(json.dumps(x) for x in lines[2:])
        + "\n"
    )
    return path


def test_the_report_matches_the_hand_computed_numbers(repo: Path, labelled: Path) -> None:
    queries = recall_eval.load_queries(labelled)
    assert [q.line for q in queries] == [1, 2, 4, 5]  # the blank line is skipped, not renumbered
    report = recall_eval.evaluate(repo, queries, [1, 5], source="queries.jsonl")
    assert report.recall(1) == pytest.approx((1 + 0.5 + 0 + 0) / 4)
    assert report.recall(5) == pytest.approx((1 + 0.5 + 0 + 1) / 4)
    assert report.hits(1) == pytest.approx(2 / 4)
    assert report.hits(5) == pytest.approx(3 / 4)
    assert report.unknown_ids == ["nosuchitem"]
    assert [r.first_rank() for r in report.results] == [1, 1, None, 2]


def test_cli_json_and_min_recall_gate_at_the_largest_k(labelled: Path) -> None:
    code, out, err = mem_eval(str(labelled), "--k", "5,1", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["k"] == [1, 5] and data["gate_k"] == 5
    assert data["recall"] == {"1": 0.375, "5": 0.625}
    assert data["hit"] == {"1": 0.5, "5": 0.75}
    assert "relevant id 'nosuchitem' has no item file" in err

    code, out, err = mem_eval(str(labelled), "--k", "1,5", "--min-recall", "0.6")
    assert code == 0, err
    assert "recall@5 0.625 vs --min-recall 0.6: ok" in out

    code, out, err = mem_eval(str(labelled), "--k", "1,5", "--min-recall", "0.7")
    assert code == 1
    assert "mem: recall@5 0.625 is below --min-recall 0.7" in err
    assert "FAILED" in out

    code, _out, _err = mem_eval(str(labelled), "--k", "1", "--min-recall", "0.6")
    assert code == 1  # at k=1 recall is 0.375


def test_plain_table_lists_the_misses(labelled: Path) -> None:
    code, out, _err = mem_eval(str(labelled), "--k", "1,5")
    assert code == 0
    assert "   1     0.375   0.500" in out and "   5     0.625   0.750" in out
    assert "queries.jsonl:2: 'ruff flake8' (first relevant at 1)" in out
    assert "queries.jsonl:4: 'kubernetes helm chart' (none in the top 5)" in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"query": "a", "relevant": ["x"]}\n{"query": "b"', "queries.jsonl:2: invalid JSON"),
        ('{"query": "", "relevant": ["x"]}\n', "queries.jsonl:1: query: must be a non-empty"),
        ('{"query": "a", "relevant": []}\n', "queries.jsonl:1: relevant: must be a non-empty"),
        ('{"query": "a", "relevant": "x"}\n', "queries.jsonl:1: relevant: must be a non-empty"),
        ('["a", "b"]\n', "queries.jsonl:1: expected an object"),
        ("\n\n", "queries.jsonl: no queries in the file"),
    ],
)
def test_bad_lines_name_file_and_line_and_exit_2(
    repo: Path, monkeypatch: pytest.MonkeyPatch, content: str, message: str
) -> None:
    (repo / "queries.jsonl").write_text(content)
    code, out, err = mem_eval("queries.jsonl")
    assert code == 2 and out == ""
    assert err.startswith(f"mem: {message}") and err.count("\n") == 1


def test_usage_errors_exit_2(repo: Path, labelled: Path) -> None:
    assert mem_eval()[0] == 2
    assert mem_eval(str(labelled), "--sessions")[0] == 2
    assert mem_eval("missing.jsonl")[2].startswith("mem: missing.jsonl: no such file")
    code, _out, err = mem_eval(str(labelled), "--k", "0,5")
    assert code == 2 and "--k" in err
    assert mem_eval(str(labelled), "--min-recall", "1.5")[0] == 2
    assert mem_eval("--sessions", "--min-recall", "0.5")[0] == 2


def test_parse_ks() -> None:
    assert recall_eval.parse_ks("10, 1,5,5") == [1, 5, 10]
    with pytest.raises(MemError):
        recall_eval.parse_ks("1,x")
    with pytest.raises(MemError):
        recall_eval.parse_ks(str(recall_eval.MAX_K + 1))


def test_eval_writes_no_receipts(repo: Path, labelled: Path) -> None:
    receipts = repo / ".memory" / "local" / "receipts.jsonl"
    before = receipts.read_text() if receipts.exists() else ""
    assert mem_eval(str(labelled))[0] == 0
    assert (receipts.read_text() if receipts.exists() else "") == before
