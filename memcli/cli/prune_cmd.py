"""`mem prune [--check]`: the CI gate of memory, and the fixes it proposes.

In GitHub Actions (``GITHUB_ACTIONS`` set) each finding is also a workflow annotation on its
file and line, and a Markdown report is appended to ``$GITHUB_STEP_SUMMARY`` when that is set.
"""

from __future__ import annotations

import os
from typing import Annotated, Any

import typer

from memcli.cli.common import handle_errors, is_terminal, open_memory, print_json
from memcli.errors import EXIT_PROBLEMS

_STYLE = {"error": "red", "warning": "yellow"}


@handle_errors
def prune(
    check: Annotated[
        bool, typer.Option("--check", help="Change nothing; exit 1 when a check fails (for CI).")
    ] = False,
    archive: Annotated[
        bool | None,
        typer.Option(
            "--archive/--delete",
            help="Move expired items to .memory/archive/ instead of deleting them "
            "(default: prune.archive in config.yaml, else delete; git history keeps them).",
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the report as JSON (every finding).")
    ] = False,
    max_findings: Annotated[
        int,
        typer.Option(
            "--max-findings",
            min=0,
            help="Show at most this many findings of each check (the counts are always "
            "complete); 0: all.",
        ),
    ] = 20,
) -> None:
    """Find expired and stale items, duplicates, leaked secrets and lint problems; without
    --check, fix them in the working tree (remove expired items, tag stale ones, update renamed
    anchors, merge duplicates, mask secrets) for a commit to review."""
    memory = open_memory()
    report = memory.prune_check() if check else memory.prune_apply(archive)
    shown, left_out = report.shown(max_findings or None)
    if as_json:
        from memcli.batchwork import without_cycle_collector

        with without_cycle_collector():  # 57,000 findings: millions of short-lived objects
            print_json(report.to_json())
    else:
        _print(report, shown, left_out, check)
        if os.environ.get("GITHUB_ACTIONS"):
            for finding in shown:
                typer.echo(annotation(finding))
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        from memcli.review.markdown import prune_markdown

        with open(summary, "a", encoding="utf-8") as handle:
            handle.write(prune_markdown(report, checked=check, most=max_findings or None) + "\n")
    if report.errors:
        raise typer.Exit(EXIT_PROBLEMS)


def _print(report: Any, shown: list[Any], left_out: dict[str, int], checked: bool) -> None:
    colour = is_terminal()
    for line in report.applied:
        typer.echo(f"fixed: {line}")
    for finding in shown:
        head = f"{finding.path}:{finding.line}: {finding.severity}: {finding.check}:"
        if colour:
            head = typer.style(head, fg=_STYLE.get(finding.severity))
        action = f" [mem prune: {finding.action}]" if checked and finding.action else ""
        typer.echo(f"{head} {finding.message}{action}")
    for check_name, number in left_out.items():
        typer.echo(
            f"note: {number} more {check_name} finding(s) not shown "
            "(--max-findings N, 0 for all, or --json)"
        )
    for note in report.notes:
        typer.echo(f"note: {note}")
    errors, warnings = len(report.errors), len(report.warnings)
    if not report.findings:
        typer.echo(
            "memory is clean"
            + (f" ({len(report.applied)} fixes applied)" if report.applied else "")
        )
    else:
        counts = ", ".join(f"{n} {name}" for name, n in report.counts().items())
        typer.echo(f"{errors} error(s), {warnings} warning(s) ({counts})")


def _escape(text: str, property_value: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if property_value:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def annotation(finding: Any) -> str:
    """A GitHub Actions workflow command: ``::error file=F,line=N,title=T::message``."""
    command = "error" if finding.severity == "error" else "warning"
    props = ",".join(
        f"{key}={_escape(str(value), True)}"
        for key, value in (
            ("file", finding.path),
            ("line", finding.line),
            ("title", f"mem prune: {finding.check}"),
        )
    )
    return f"::{command} {props}::{_escape(finding.message)}"
