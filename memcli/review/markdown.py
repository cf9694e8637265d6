"""Markdown for pull requests: the memory diff as a PR comment, the prune report as a CI
step summary. Plain strings, so that the core can produce them and tests can pin them with
golden files."""

from __future__ import annotations

from memcli.review.diff import ItemEntry, MemoryDiff
from memcli.review.findings import Report

_SPECIAL = str.maketrans({c: f"\\{c}" for c in "\\`*_[]<|"})


def escape(text: str) -> str:
    return " ".join(text.split()).translate(_SPECIAL)


def _fence(lines: list[str]) -> str:
    ticks = "```"
    while any(ticks in line for line in lines):
        ticks += "`"
    return ticks


def _summary(diff: MemoryDiff) -> str:
    counts = diff.counts()
    parts = [f"{counts[k]} {k}" for k in ("added", "changed", "removed") if counts[k]]
    parts += [f"{counts[k]} {k}" for k in ("superseded", "expired") if counts[k]]
    if counts["files"]:
        parts.append(f"{counts['files']} other file{'s' if counts['files'] > 1 else ''}")
    return ", ".join(parts) or "no changes"


def _item_line(entry: ItemEntry) -> str:
    tags = entry.data.get("tags") or []
    extra = f" ({entry.note})" if entry.note else ""
    tagged = (
        f" _tags: {escape(', '.join(str(t) for t in tags))}_" if tags and not entry.changes else ""
    )
    return f"- **{entry.kind}** `{entry.id}` {escape(entry.title)}{extra}{tagged}"


def diff_markdown(diff: MemoryDiff) -> str:
    head = f"### Memory changes: `{diff.base.label}` → `{diff.head.label}`"
    if diff.empty:
        return f"{head}\n\nNo memory changes.\n"
    out = [head, "", _summary(diff)]
    for title, entries in (
        ("Added", diff.added),
        ("Changed", diff.changed),
        ("Removed", diff.removed),
    ):
        if not entries:
            continue
        out += ["", f"#### {title}", ""]
        for entry in entries:
            out.append(_item_line(entry))
            for change in entry.changes:
                out.append(f"  - `{change.field}`: {escape(change.summary())}")
            if entry.body_diff:
                fence = _fence(entry.body_diff)
                out += [
                    "",
                    f"  {fence}diff",
                    *[f"  {line}" for line in entry.body_diff],
                    f"  {fence}",
                    "",
                ]
    if diff.superseded:
        out += ["", "#### Superseded", ""]
        for s in diff.superseded:
            gone = " (removed)" if s.removed else ""
            out.append(
                f"- `{s.id}` {escape(s.title)}{gone}: superseded by `{s.by}` {escape(s.by_title)}"
            )
    if diff.expired:
        out += ["", "#### Expired", ""]
        out += [f"- `{e.id}` {escape(e.title)}: expired {e.expires}" for e in diff.expired]
    if diff.files:
        out += ["", "#### Other files", ""]
        out += [f"- `{f.path}` {f.status}" for f in diff.files]
    if diff.contradictions or diff.warnings:
        out += ["", "#### Warnings", ""]
        out += [f"- possible contradiction: {escape(c.message())}" for c in diff.contradictions]
        out += [f"- {escape(w)}" for w in diff.warnings]
    return "\n".join(_tidy(out)) + "\n"


def _tidy(lines: list[str]) -> list[str]:
    """No doubled blank lines, none at the end."""
    out: list[str] = []
    for line in lines:
        if line == "" and (not out or out[-1] == ""):
            continue
        out.append(line.rstrip() if line.strip() else "")
    while out and out[-1] == "":
        out.pop()
    return out


def prune_markdown(report: Report, checked: bool = True, most: int | None = None) -> str:
    """The report as a Markdown summary; with ``most``, that many findings of each check."""
    errors, warnings = len(report.errors), len(report.warnings)
    shown, left_out = report.shown(most)
    title = "mem prune --check" if checked else "mem prune"
    verdict = f"{_count(errors, 'error')}, {_count(warnings, 'warning')}"
    out = [f"### {title}: {verdict}", ""]
    if report.applied:
        out += ["Applied:", "", *[f"- {escape(line)}" for line in report.applied], ""]
    if report.findings:
        out += ["| severity | check | where | finding |", "|---|---|---|---|"]
        for f in shown:
            where = f"`{f.path}:{f.line}`"
            out.append(f"| {f.severity} | {f.check} | {where} | {escape(f.message)} |")
        out.append("")
        for check_name, number in left_out.items():
            out += [f"_{number} more {check_name} findings: run `mem prune --check` locally._", ""]
        if checked and any(f.action for f in report.findings):
            out += ["Run `mem prune` to apply the fixes, then commit the result for review.", ""]
    else:
        out += ["Memory is clean.", ""]
    out += [f"_{escape(note)}_" for note in report.notes]
    return "\n".join(_tidy(out)) + "\n"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
