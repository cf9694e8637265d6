"""Typer faces of the retrieval commands; the work is in :mod:`memcli.cli.retrieval_cmds`.

A real `mem index|recall|search` process with plain arguments never reaches Typer (see
:mod:`memcli.cli.fastpath`); these definitions give `--help`, usage errors and CliRunner.
"""

from __future__ import annotations

from typing import Annotated

import typer

from memcli.cli import retrieval_cmds as cmds
from memcli.cli.common import handle_errors
from memcli.model import Kind

Project = Annotated[
    str | None, typer.Option(help="Another project's memory (its normalised remote URL).")
]
AllProjects = Annotated[bool, typer.Option(help="Search every project in this store.")]


@handle_errors
def search(
    query: Annotated[
        str,
        typer.Argument(metavar="QUERY", help='Words, identifiers, error codes, "phrases".'),
    ],
    limit: Annotated[int, typer.Option(min=1, help="How many results.")] = 10,
    kind: Annotated[Kind | None, typer.Option(help="Only items of this kind.")] = None,
    project: Project = None,
    all_projects: AllProjects = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list.")] = False,
) -> None:
    """Search memory (Layer 2): exact matches and TF-IDF, re-ranked by age, importance, use."""
    raise typer.Exit(cmds.run_search(query, limit, kind, project, all_projects, as_json))


def index(
    budget: Annotated[
        int | None, typer.Option(min=1, help="Token budget (default: budgets.index_tokens).")
    ] = None,
    fmt: Annotated[
        str, typer.Option("--format", help="text, json, or claude (SessionStart hook JSON).")
    ] = "text",
    agent: Annotated[
        str | None, typer.Option(help="Answer in this assistant's hook format.")
    ] = None,
    project: Project = None,
    all_projects: AllProjects = False,
    strict: Annotated[bool, typer.Option(help="Report errors instead of failing open.")] = False,
) -> None:
    """Print the Layer-1 index: one line per item, most valuable first, under a token budget."""
    raise typer.Exit(cmds.run_index(budget, fmt, agent, project, all_projects, strict))


def recall(
    budget: Annotated[
        int | None, typer.Option(min=1, help="Token budget (default: budgets.recall_tokens).")
    ] = None,
    agent: Annotated[str | None, typer.Option(help="Answer in this assistant's format.")] = None,
    strict: Annotated[bool, typer.Option(help="Report errors instead of failing open.")] = False,
) -> None:
    """UserPromptSubmit hook: the few items relevant to the prompt (needs recall.enabled)."""
    raise typer.Exit(cmds.run_recall(budget, agent, strict))


@handle_errors
def reindex() -> None:
    """Rebuild the search index from every item file."""
    raise typer.Exit(cmds.run_reindex())


@handle_errors
def log(
    item_id: Annotated[
        str | None,
        typer.Argument(metavar="ID", help="An item: its history across commits."),
    ] = None,
    limit: Annotated[int, typer.Option(min=1, help="How many receipts.")] = 20,
    as_json: Annotated[bool, typer.Option("--json", help="JSON list.")] = False,
) -> None:
    """Recent retrievals (query, candidates, returned ids, tokens), or one item's history."""
    if item_id is not None:
        from memcli.cli.history_cmd import run_history

        raise typer.Exit(run_history(item_id, as_json))
    raise typer.Exit(cmds.run_log(limit, as_json))
