"""The `mem stats` dashboard for a terminal: the store at a glance, with small bar charts.

`mem stats` calls :func:`render_dashboard` when stdout is a terminal (and not ``--json``); the
numbers come from :func:`memcli.evaluation.overview.overview`.
"""

from __future__ import annotations

from typing import Any

from memcli.api import Memory
from memcli.cli.common import console

BAR_WIDTH = 24


def bar(value: float, total: float, width: int = BAR_WIDTH) -> str:
    """A bar of ``width`` cells, ``value / total`` of them filled (eighths for the last one)."""
    if total <= 0 or value <= 0:
        return ""
    eighths = round(min(1.0, value / total) * width * 8)
    full, rest = divmod(max(eighths, 1), 8)
    return "█" * full + ("" if rest == 0 else "▏▎▍▌▋▊▉"[rest - 1])


def human_bytes(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def _chart(title: str, counts: dict[str, int]) -> Any:
    from rich.table import Table

    table = Table(title=title, title_justify="left", box=None, show_header=False, pad_edge=False)
    table.add_column(style="bold")
    table.add_column(justify="right")
    table.add_column(style="cyan", no_wrap=True)
    most = max(counts.values(), default=0)
    for label, count in counts.items():
        table.add_row(label, str(count), bar(count, most))
    return table


def summarizer_cost(totals: dict[str, Any]) -> str:
    """One line: calls, characters and tokens in and out, money (when the CLI reported it)."""
    failed = f" ({totals['failed']} failed)" if totals["failed"] else ""
    line = f"{totals['calls']} calls{failed}, {totals['chars_in']:,} chars in, "
    line += f"{totals['chars_out']:,} out"
    if totals["tokens_in"] or totals["tokens_out"]:
        line += f"; {totals['tokens_in']:,} tokens in, {totals['tokens_out']:,} out"
    if totals["cost_usd"]:
        line += f"; ${totals['cost_usd']:.4f}"
    return line


def _facts(data: dict[str, Any]) -> Any:
    from rich.table import Table

    table = Table(title="store", title_justify="left", box=None, show_header=False)
    table.add_column(style="bold")
    table.add_column()
    sizes = data["sizes"]
    share = data["verified_share"]
    verified = f"{data['verified']} of {data['items']} ({_pct(share)})"
    table.add_row("verified", f"{verified}  [green]{bar(share or 0.0, 1.0, 12)}[/green]")
    table.add_row("expired", str(data["expired"]))
    table.add_row("items", f"{sizes['files']} files, {human_bytes(sizes['store_bytes'])}")
    table.add_row("index", human_bytes(sizes["index_bytes"]))
    table.add_row("local", f"{human_bytes(sizes['local_bytes'])} (never committed)")
    table.add_row("sessions", f"{data['sessions']} compacted")
    table.add_row("pending", f"{data['pending_observations']} observations")
    if data["summarizer"]["calls"]:
        table.add_row("summarizer", summarizer_cost(data["summarizer"]))
    if data["broken_files"]:
        table.add_row("broken", f"[red]{data['broken_files']} files (see mem lint)[/red]")
    return table


def _top(data: dict[str, Any]) -> Any:
    from rich.table import Table

    table = Table(title="most retrieved", title_justify="left", box=None)
    table.add_column("id", style="bold")
    table.add_column("title", overflow="ellipsis", max_width=48, no_wrap=True)
    table.add_column("returned", justify="right")
    table.add_column("opened", justify="right")
    for row in data["top_retrieved"]:
        table.add_row(row["id"], row["title"], str(row["retrieved"]), str(row["opened"]))
    return table


def _injection(data: dict[str, Any]) -> str:
    rate = data["injection"]
    if rate is None:
        return "injection rate: not measured here (run `mem eval --sessions`)"
    if not rate["injected_items"]:
        return f"injection rate: nothing injected yet in {rate['sessions']} captured sessions"
    sessions = rate["sessions_with_injections"]
    return (
        f"injection rate: {_pct(rate['injection_rate'])} "
        f"[cyan]{bar(rate['injection_rate'] or 0.0, 1.0, 12)}[/cyan] "
        f"({rate['used_items']} of {rate['injected_items']} injected items used, "
        f"{sessions} session{'' if sessions == 1 else 's'}); context share "
        f"{_pct(rate['context_share'])}, budget used {_pct(rate['budget_share'])}"
    )


def render_dashboard(memory: Memory) -> None:
    """Print the dashboard of ``memory``'s store to the terminal."""
    from rich.columns import Columns

    from memcli.cli.common import show_warnings
    from memcli.evaluation.overview import overview

    data = overview(memory)
    show_warnings(memory)
    out = console()
    out.print(f"[bold]mem stats[/bold]: {data['items']} items")
    if not data["items"]:
        out.print("No items yet: `mem add`, or let the hooks capture a session and compact it.")
    out.print(
        Columns([_chart("by kind", data["by_kind"]), _chart("by age", data["by_age"])], padding=4)
    )
    out.print(_facts(data))
    if data["top_retrieved"]:
        out.print(_top(data))
    out.print(_injection(data))
