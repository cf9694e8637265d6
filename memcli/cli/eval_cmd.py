"""`mem eval`: recall@k against labelled queries, or how sessions used what was injected."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from memcli.cli.common import console, handle_errors, is_terminal, open_memory, print_json
from memcli.errors import EXIT_PROBLEMS, MemError


@handle_errors
def eval_(
    queries: Annotated[
        Path | None,
        typer.Argument(
            metavar="QUERIES.jsonl",
            help='Labelled queries, one JSON object a line: {"query": ..., "relevant": [ids]}.',
            show_default=False,
        ),
    ] = None,
    k: Annotated[
        str, typer.Option("--k", help="The cut-offs to report, comma-separated.")
    ] = "1,5,10",
    min_recall: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            max=1.0,
            help="Exit 1 when recall at the largest k is below this (for CI).",
        ),
    ] = None,
    sessions: Annotated[
        bool,
        typer.Option(
            "--sessions", help="Evaluate captured sessions: injection rate and context share."
        ),
    ] = False,
    session: Annotated[
        str | None, typer.Option(help="With --sessions: only this session id.")
    ] = None,
    all_projects: Annotated[
        bool, typer.Option(help="Search every project in this store (recall only).")
    ] = False,
    baseline: Annotated[
        Literal["tfidf"] | None,
        typer.Option(
            help="Also rank with scikit-learn's plain TF-IDF and show both side by side "
            "(needs pip install 'memcli[eval]').",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Measure memory: recall@k of search against labelled queries, or, with --sessions,
    the share of injected items the model used and the context they took."""
    if sessions == (queries is not None):
        raise MemError("give either a QUERIES.jsonl file or --sessions (see mem eval --help)")
    if sessions:
        if min_recall is not None:
            raise MemError("--min-recall: only with a QUERIES.jsonl file")
        if baseline is not None:
            raise MemError("--baseline: only with a QUERIES.jsonl file")
        _sessions(session, as_json)
        return
    if session is not None:
        raise MemError("--session: only with --sessions")
    assert queries is not None
    _recall(queries, k, min_recall, all_projects, baseline, as_json)


def _recall(
    path: Path,
    k_text: str,
    min_recall: float | None,
    all_projects: bool,
    baseline: str | None,
    as_json: bool,
) -> None:
    from memcli.evaluation import recall_eval, tfidf_baseline

    if baseline is not None:
        if baseline not in tfidf_baseline.BASELINES:
            raise MemError(f"--baseline: {baseline!r} is not one of tfidf")
        tfidf_baseline.require_scikit_learn()
    ks = recall_eval.parse_ks(k_text)
    labelled = recall_eval.load_queries(path)
    memory = open_memory()
    report = recall_eval.evaluate(
        memory.root, labelled, ks, source=str(path), all_projects=all_projects
    )
    reference = None
    if baseline is not None:
        reference = tfidf_baseline.evaluate(
            memory.root, labelled, ks, source=str(path), all_projects=all_projects
        )
    gate = report.recall(report.gate_k)
    failed = min_recall is not None and gate < min_recall
    if as_json:
        data = report.to_dict()
        data["min_recall"] = min_recall
        data["passed"] = not failed
        if reference is not None:
            data["baseline"] = {"name": baseline, **reference.to_dict()}
        print_json(data)
    elif reference is not None:
        _side_by_side(report, reference, min_recall)
    elif is_terminal():
        _rich_recall(report, min_recall)
    else:
        _plain_recall(report, min_recall)
    for unknown in report.unknown_ids:
        typer.echo(f"mem: warning: relevant id {unknown!r} has no item file", err=True)
    if failed:
        assert min_recall is not None
        typer.echo(
            f"mem: recall@{report.gate_k} {gate:.3f} is below --min-recall {min_recall:g}",
            err=True,
        )
        raise typer.Exit(EXIT_PROBLEMS)


def _gate_line(report: Any, min_recall: float | None) -> str | None:
    if min_recall is None:
        return None
    gate = report.recall(report.gate_k)
    verdict = "ok" if gate >= min_recall else "FAILED"
    return f"recall@{report.gate_k} {gate:.3f} vs --min-recall {min_recall:g}: {verdict}"


def _misses(report: Any) -> list[str]:
    lines = []
    for result in report.missed(report.gate_k)[:20]:
        rank = result.first_rank()
        where = f"first relevant at {rank}" if rank else f"none in the top {report.gate_k}"
        lines.append(f"{report.source}:{result.query.line}: {result.query.query[:70]!r} ({where})")
    return lines


def _plain_recall(report: Any, min_recall: float | None) -> None:
    scope = report.scope if report.scope is not None else "all projects"
    typer.echo(f"{len(report.results)} queries from {report.source} (scope: {scope})")
    typer.echo(f"{'k':>4}  {'recall@k':>8}  {'hit@k':>6}")
    for k in report.ks:
        typer.echo(f"{k:>4}  {report.recall(k):>8.3f}  {report.hits(k):>6.3f}")
    misses = _misses(report)
    if misses:
        typer.echo(f"not all relevant items in the top {report.gate_k}:")
        for line in misses:
            typer.echo(f"  {line}")
    gate = _gate_line(report, min_recall)
    if gate:
        typer.echo(gate)


def _side_by_side(report: Any, reference: Any, min_recall: float | None) -> None:
    """The index and the TF-IDF baseline, one row per k (plain text: it is read in CI logs)."""
    scope = report.scope if report.scope is not None else "all projects"
    typer.echo(f"{len(report.results)} queries from {report.source} (scope: {scope})")
    typer.echo(f"{'k':>4}  {'mem index':>10}  {'tfidf':>10}  {'difference':>10}")
    for k in report.ks:
        ours, theirs = report.recall(k), reference.recall(k)
        typer.echo(f"{k:>4}  {ours:>10.3f}  {theirs:>10.3f}  {ours - theirs:>+10.3f}")
    typer.echo("recall@k: mem index = mem search's ranking; tfidf = scikit-learn TfidfVectorizer")
    gate = _gate_line(report, min_recall)
    if gate:
        typer.echo(gate)


def _bar(value: float, width: int = 20) -> str:
    filled = round(max(0.0, min(1.0, value)) * width)
    return "█" * filled + "·" * (width - filled)


def _rich_recall(report: Any, min_recall: float | None) -> None:
    from rich.table import Table

    scope = report.scope if report.scope is not None else "all projects"
    table = Table(
        title=f"mem eval: {len(report.results)} queries from {report.source}",
        caption=f"scope: {scope}",
    )
    table.add_column("k", justify="right")
    table.add_column("recall@k", justify="right")
    table.add_column("")
    table.add_column("hit@k", justify="right")
    for k in report.ks:
        value = report.recall(k)
        table.add_row(str(k), f"{value:.3f}", _bar(value), f"{report.hits(k):.3f}")
    out = console()
    out.print(table)
    misses = _misses(report)
    if misses:
        out.print(f"[bold]not all relevant items in the top {report.gate_k}:[/bold]")
        for line in misses:
            out.print(f"  {line}", markup=False)
    gate = _gate_line(report, min_recall)
    if gate:
        out.print(gate, style="green" if gate.endswith("ok") else "red")


def _sessions(only: str | None, as_json: bool) -> None:
    from memcli.evaluation import sessions_eval

    memory = open_memory()
    report = sessions_eval.evaluate_sessions(memory, only)
    if only is not None and not report.sessions:
        raise MemError(f"--session: no captured session {only!r} under .memory/")
    if as_json:
        print_json(report.to_dict())
        return
    rows = [r.to_dict() for r in report.sessions]
    overall = report.overall()
    if is_terminal():
        _rich_sessions(rows, overall)
    else:
        _plain_sessions(rows, overall)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def _session_cells(row: dict[str, Any]) -> list[str]:
    return [
        str(row["session"])[:24],
        str(row["agent"] or "-"),
        str(row["start"])[:16].replace("T", " "),
        str(row["observations"]),
        f"{row['used_items']}/{row['injected_items']}",
        _pct(row["injection_rate"]),
        f"{row['injected_tokens']}",
        _pct(row["budget_share"]),
        f"{row['pulled_used']}/{row['pulled_items']}",
        _pct(row["context_share"]),
    ]


HEADERS = ["session", "agent", "start", "obs", "used", "rate", "tokens", "budget", "pulled"]
HEADERS.append("context")


def _overall_line(overall: dict[str, Any]) -> str:
    count = overall["sessions"]
    return (
        f"overall: {count} session{'' if count == 1 else 's'}; effective injection rate "
        f"{_pct(overall['injection_rate'])} ({overall['used_items']} of "
        f"{overall['injected_items']} injected items used); pulled through MCP "
        f"{_pct(overall['pull_rate'])} ({overall['pulled_used']} of {overall['pulled_items']}); "
        f"{overall['injected_tokens']:,} tokens injected = {_pct(overall['budget_share'])} of "
        f"budget; memory is {_pct(overall['context_share'])} of "
        f"~{overall['session_tokens']:,} session tokens"
        + (
            f"; {overall['unattributed_receipts']} receipts outside any captured session"
            if overall["unattributed_receipts"]
            else ""
        )
    )


def _plain_sessions(rows: list[dict[str, Any]], overall: dict[str, Any]) -> None:
    if not rows:
        typer.echo("no captured sessions under .memory/local/ or .memory/sessions/")
        return
    typer.echo("\t".join(HEADERS))
    for row in rows:
        typer.echo("\t".join(_session_cells(row)))
    typer.echo(_overall_line(overall))


def _rich_sessions(rows: list[dict[str, Any]], overall: dict[str, Any]) -> None:
    from rich.table import Table

    out = console()
    if not rows:
        out.print("no captured sessions under .memory/local/ or .memory/sessions/")
        return
    table = Table(title="mem eval --sessions")
    for name in HEADERS:
        table.add_column(name, justify="left" if name in ("session", "agent") else "right")
    for row in rows:
        table.add_row(*_session_cells(row))
    out.print(table)
    out.print(_overall_line(overall), markup=False)
