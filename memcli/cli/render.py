"""How items look on a terminal (rich) and in a pipe (plain text)."""

from __future__ import annotations

from typing import Any

from memcli import timeutil
from memcli.model import Item


def age(stamp: str) -> str:
    """A short age such as ``3d`` or ``5h``."""
    try:
        days = timeutil.age_days(stamp)
    except ValueError:
        return "?"
    from memcli.retrieval.context import age_text

    return age_text(days)


def plain_line(item: Item) -> str:
    """id, kind, title, tags (comma-separated), age: tab-separated."""
    from memcli.cli import tsv

    return tsv.row((item.id, item.kind, item.title, item.tags, age(item.updated)))


def items_table(items: list[Item]) -> Any:
    from rich.table import Table

    table = Table(box=None, header_style="bold")
    for name in ("id", "kind", "title", "tags", "age"):
        table.add_column(name, overflow="fold" if name == "title" else "ellipsis")
    for item in items:
        table.add_row(item.id, item.kind, item.title, ", ".join(item.tags), age(item.updated))
    return table


def plain_item(item: Item) -> str:
    lines = [
        f"{item.id}  {item.kind}  {item.title}",
        f"scope: {item.scope.get('project', '')}"
        + (f" @ {item.scope['branch']}" if item.scope.get("branch") else ""),
        f"confidence: {item.confidence}  importance: {item.importance}",
        f"created: {item.created}  updated: {item.updated}"
        + (f"  expires: {item.expires}" if item.expires else ""),
    ]
    if item.tags:
        lines.append(f"tags: {', '.join(item.tags)}")
    if item.anchors:
        lines.append("anchors: " + ", ".join(_anchor(a) for a in item.anchors))
    if item.supersedes:
        lines.append(f"supersedes: {item.supersedes}")
    lines += ["", item.body.rstrip()]
    return "\n".join(lines)


def rich_item(item: Item) -> Any:
    from rich.console import Group
    from rich.panel import Panel
    from rich.text import Text

    meta = Text()
    meta.append(f"{item.kind}", style="bold cyan")
    meta.append(f"  {item.confidence}  importance {item.importance}  ")
    meta.append(f"updated {age(item.updated)} ago", style="dim")
    if item.tags:
        meta.append("\n" + "  ".join(f"#{t}" for t in item.tags), style="magenta")
    if item.anchors:
        meta.append("\nanchors: " + ", ".join(_anchor(a) for a in item.anchors), style="dim")
    if item.expires:
        meta.append(f"\nexpires {item.expires}", style="yellow")
    return Panel(
        Group(meta, Text(""), Text(item.body.rstrip())),
        title=f"[bold]{item.title}[/bold]",
        subtitle=item.id,
        expand=False,
    )


def _anchor(anchor: dict[str, str]) -> str:
    return anchor["path"] + (f"::{anchor['symbol']}" if anchor.get("symbol") else "")


def print_search(query: str, results: list[Any], candidates: int) -> None:
    """A rich table of search results, the matched words highlighted in the snippet."""
    from rich.table import Table
    from rich.text import Text

    out = console()
    if not results:
        out.print(f"no items match {query!r} ({candidates} searched)")
        return
    table = Table(box=None, header_style="bold")
    for name in ("id", "kind", "title", "age", "score", "snippet"):
        table.add_column(name, overflow="fold" if name in ("title", "snippet") else "ellipsis")
    for result in results:
        snippet = Text(result.snippet)
        for word in result.matched:
            snippet.highlight_words([word], style="bold yellow", case_sensitive=False)
        table.add_row(
            result.id, result.kind, result.title, result.age, f"{result.score:.2f}", snippet
        )
    out.print(table)
    out.print(f"[dim]{len(results)} of {candidates} candidates; `mem show ID` for one[/dim]")


def console() -> Any:
    """A Rich console on stdout. A closed pipe raises BrokenPipeError, which the commands turn
    into a quiet exit 0 (Rich's own handling exits 1)."""
    from rich.console import Console

    class PipeConsole(Console):
        def on_broken_pipe(self) -> None:
            raise BrokenPipeError

    return PipeConsole(highlight=False)
