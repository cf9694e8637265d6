"""`mem diff [BASE[..HEAD]]`: the semantic diff of `.memory/` (rich, text, Markdown, JSON)."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from memcli.cli.common import console, handle_errors, is_terminal, print_json
from memcli.errors import MemError

FORMATS = ("text", "markdown", "json")


@handle_errors
def diff(
    revisions: Annotated[
        str | None,
        typer.Argument(
            metavar="BASE[..HEAD]",
            help="BASE alone: from BASE to the working tree. BASE..HEAD: between two commits; "
            "BASE...HEAD: from their merge-base. Default: from the merge-base with the default "
            "branch (origin/HEAD, else main or master) to the working tree.",
        ),
    ] = None,
    fmt: Annotated[
        str,
        typer.Option(
            "--format", help="text (rich on a terminal), markdown (a PR comment), or json."
        ),
    ] = "text",
    as_json: Annotated[bool, typer.Option("--json", help="Same as --format json.")] = False,
) -> None:
    """Show what changed in memory: items added, changed (field by field), removed,
    superseded, expired; possible contradictions between decisions."""
    from memcli.api import Memory

    if fmt not in FORMATS:
        raise MemError(f"{fmt!r} is not one of {', '.join(FORMATS)}", field="format")
    result = Memory.open_repository().diff(revisions)
    if as_json or fmt == "json":
        print_json(result.to_json())
    elif fmt == "markdown":
        from memcli.review.markdown import diff_markdown

        sys.stdout.write(diff_markdown(result))
    elif is_terminal():
        console().print(rich_diff(result))
    else:
        sys.stdout.write("\n".join(text for text, _style in lines(result)) + "\n")


def lines(result: Any) -> list[tuple[str, str]]:
    """The diff as (line, rich style) pairs: plain text in a pipe, colours on a terminal."""
    counts = result.counts()
    summary = ", ".join(_count(n, k) for k, n in counts.items() if n) or "no changes"
    out = [(f"memory: {result.base.label} -> {result.head.label}: {summary}", "bold")]
    for status, style, entries in (
        ("added", "green", result.added),
        ("changed", "yellow", result.changed),
        ("removed", "red", result.removed),
    ):
        for entry in entries:
            note = f" ({entry.note})" if entry.note else ""
            out.append((f"{status:8} {entry.kind:10} {entry.id}  {entry.title}{note}", style))
            for change in entry.changes:
                out.append((f"{'':19} {change.field}: {change.summary()}", ""))
            if entry.body_diff:
                out.append((f"{'':19} body:", ""))
                for line in entry.body_diff:
                    colour = {"+": "green", "-": "red", "@": "cyan"}.get(line[:1], "dim")
                    out.append((f"{'':21} {line}", colour))
    for s in result.superseded:
        out.append((f"superseded {s.id}  {s.title}  -> by {s.by}  {s.by_title}", "magenta"))
    for e in result.expired:
        out.append((f"expired  {e.id}  {e.title}  (expires {e.expires})", "yellow"))
    for f in result.files:
        out.append((f"file     {f.path} {f.status}", "dim"))
    for c in result.contradictions:
        out.append((f"warning: possible contradiction: {c.message()}", "bold yellow"))
    for w in result.warnings:
        out.append((f"warning: {w}", "yellow"))
    return out


def rich_diff(result: Any) -> Any:
    from rich.text import Text

    text = Text()
    for number, (line, style) in enumerate(lines(result)):
        if number:
            text.append("\n")
        text.append(line, style=style or None)
    return text


def _count(number: int, key: str) -> str:
    """``1 contradiction``, ``2 files``; the status words (added, ...) stay as they are."""
    if key in ("files", "contradictions"):
        return f"{number} {key[:-1] if number == 1 else key}"
    return f"{number} {key}"
