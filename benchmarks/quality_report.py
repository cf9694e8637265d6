"""How the knowledge-quality numbers are added up and printed: per session, per set of sessions
("tuned": the sessions the rules were written against; "fresh": held-out sessions, since read
while their misses were analysed; "blind": held-out sessions nobody on the project has looked
at, for measurement only) and over all of them.

The sets are listed in `sessions/sets.yaml`; a session folder it does not list is fresh.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from quality_score import Score
from ruamel.yaml import YAML

SETS = ("tuned", "fresh", "blind")


def session_sets(sessions: Path, names: list[str]) -> dict[str, str]:
    """Each session's set: as `sets.yaml` lists it, else fresh."""
    listed = YAML(typ="safe").load((sessions / "sets.yaml").read_text(encoding="utf-8")) or {}
    where = {str(name): str(kind) for kind in SETS for name in listed.get(kind) or []}
    return {name: where.get(name, "fresh") for name in names}


def by_kind(scores: list[Score]) -> dict[str, list[int]]:
    """Per lesson kind: [lessons, matched by items, matched with the checkpoint]."""
    counts: dict[str, list[int]] = {}
    for s in scores:
        for lesson, kind in s.kinds:
            row = counts.setdefault(kind, [0, 0, 0])
            row[0] += 1
            row[1] += lesson in s.matched
            row[2] += lesson in s.matched_with_checkpoint
    return dict(sorted(counts.items()))


def totals(scores: list[Score]) -> dict[str, Any]:
    items = sum(s.items for s in scores)
    unmatched = sum(s.unmatched_items for s in scores)
    importable = [s for s in scores if s.from_import is not None]
    return {
        "sessions": len(scores),
        "lessons": sum(s.lessons for s in scores),
        "from_items": sum(s.from_items for s in scores),
        "with_checkpoint": sum(s.with_checkpoint for s in scores),
        "items": items,
        "unmatched_items": unmatched,
        "unmatched_share": round(unmatched / items, 3) if items else None,
        "import_lessons": sum(s.lessons for s in importable),
        "from_import": sum(s.from_import or 0 for s in importable) if importable else None,
        "imported_items": sum(s.imported_items for s in importable),
        "by_kind": by_kind(scores),
    }


def totals_by_set(scores: list[Score], sets: list[str]) -> dict[str, dict[str, Any]]:
    """Totals of each set that has sessions, then of all of them (`all`)."""
    grouped = {kind: [s for s, k in zip(scores, sets, strict=True) if k == kind] for kind in SETS}
    out = {kind: totals(group) for kind, group in grouped.items() if group}
    return {**out, "all": totals(scores)}


def _cells(s: Score | dict[str, Any]) -> str:
    get = s.get if isinstance(s, dict) else lambda key: getattr(s, key)
    imported = "n/a" if get("from_import") is None else f"{get('from_import')}"
    return (
        f"{get('items')} / {get('from_items')} / {get('with_checkpoint')} / "
        f"{get('unmatched_items')} / {imported}"
    )


def table(names: list[str], sets: list[str], runs: dict[str, list[Score]]) -> str:
    """A markdown table: sessions grouped by set, each set's total, then all of them."""
    labels = list(runs)
    head = "| session | set | lessons | " + " | ".join(
        f"{label}: items / recall / +checkpoint / unmatched / import" for label in labels
    )
    lines = [head + " |", "|---|---|---|" + "---|" * len(labels)]
    summed = {label: totals_by_set(runs[label], sets) for label in labels}

    def line(first: list[str], cells: list[str]) -> None:
        lines.append("| " + " | ".join(first + cells) + " |")

    for kind in SETS:
        rows = [i for i, k in enumerate(sets) if k == kind]
        for i in rows:
            line([names[i], kind, str(runs[labels[0]][i].lessons)],
                 [_cells(runs[lb][i]) for lb in labels])  # fmt: skip
        if rows:
            line([f"**{kind}**", "", str(summed[labels[0]][kind]["lessons"])],
                 [_cells(summed[lb][kind]) for lb in labels])  # fmt: skip
    line(["**all**", "", str(summed[labels[0]]["all"]["lessons"])],
         [_cells(summed[lb]["all"]) for lb in labels])  # fmt: skip
    return "\n".join(lines)


def summary(label: str, name: str, t: dict[str, Any]) -> str:
    share = "n/a" if t["unmatched_share"] is None else f"{t['unmatched_share']:.0%}"
    kinds = ", ".join(f"{k} {r[1]}/{r[0]} ({r[2]})" for k, r in t["by_kind"].items())
    imported = "n/a" if t["from_import"] is None else f"{t['from_import']}/{t['import_lessons']}"
    return (
        f"{label}, {name} ({t['sessions']} sessions): recall from items "
        f"{t['from_items']}/{t['lessons']}, with checkpoint {t['with_checkpoint']}/{t['lessons']}, "
        f"items matching no lesson {t['unmatched_items']}/{t['items']} ({share}), import "
        f"{imported} ({t['imported_items']} items)\n"
        f"  by kind, items (with checkpoint): {kinds}"
    )
