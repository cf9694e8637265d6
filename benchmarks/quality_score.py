"""Gold lessons and how memory items are scored against them.

A lesson is a list of keyword groups; it matches a text when every group has at least one
alternative in it, case-insensitive, at word boundaries (so `gh` does not match `github`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML


@dataclass(frozen=True)
class Lesson:
    id: str
    kind: str
    keywords: tuple[tuple[str, ...], ...]


@dataclass
class Score:
    """One session's numbers for one mem version."""

    lessons: int
    items: int = 0
    from_items: int = 0  # lessons matched by some item
    with_checkpoint: int = 0  # lessons matched by an item or by what the Stop hook showed
    unmatched_items: int = 0  # items that match no lesson
    imported_items: int = 0
    from_import: int | None = None  # None: no import format for this session
    matched: tuple[str, ...] = ()
    matched_with_checkpoint: tuple[str, ...] = ()
    kinds: tuple[tuple[str, str], ...] = ()  # (lesson id, kind) of every lesson

    def as_json(self) -> dict[str, Any]:
        return {
            key: list(v) if isinstance(v, tuple) else v
            for key, v in self.__dict__.items()
            if key != "kinds"
        }


def load_gold(path: Path) -> list[Lesson]:
    data = YAML(typ="safe").load(path.read_text(encoding="utf-8")) or {}
    return [
        Lesson(
            str(entry["id"]),
            str(entry.get("kind", "")),
            tuple(tuple(str(word) for word in group) for group in entry["keywords"]),
        )
        for entry in data.get("lessons", [])
    ]


@cache
def _pattern(word: str) -> re.Pattern[str]:
    start = r"(?<!\w)" if word[:1].isalnum() or word[:1] == "_" else ""
    end = r"(?!\w)" if word[-1:].isalnum() or word[-1:] == "_" else ""
    return re.compile(start + re.escape(word) + end, re.IGNORECASE)


def matches(lesson: Lesson, text: str) -> bool:
    return all(any(_pattern(word).search(text) for word in group) for group in lesson.keywords)


def item_text(item: dict[str, Any]) -> str:
    tags = item.get("tags") or []
    words = " ".join(str(t) for t in tags) if isinstance(tags, list) else str(tags)
    return f"{item.get('title', '')}\n{item.get('body', '')}\n{words}"


def read_items(store: Path) -> list[dict[str, Any]]:
    """Every item file under `.memory/items/` (unreadable files are skipped)."""
    yaml = YAML(typ="safe")
    items = []
    for path in sorted((store / "items").glob("**/*.yaml")):
        try:
            data = yaml.load(path.read_text(encoding="utf-8"))
        except Exception:  # noqa: BLE001 - a broken item counts as no item
            continue
        if isinstance(data, dict):
            items.append(data)
    return items


def unmatched_titles(lessons: list[Lesson], items: list[dict[str, Any]]) -> list[str]:
    """The titles of the items that match no lesson (what the junk share counts)."""
    return [
        str(item.get("title", ""))
        for item in items
        if not any(matches(lesson, item_text(item)) for lesson in lessons)
    ]


# The line of a checkpoint request after which its candidates follow, one a line: the words
# above it are the request's own, the same in every session ("You will not be asked about
# these again"), and must not complete a lesson's keywords.
CANDIDATES_LINE = "Candidates (evidence captured from this session"


def evidence_shown(text: str) -> list[str]:
    """What a hook showed the model that came from the session, as texts a lesson must match
    one at a time: each candidate line of a checkpoint request (a lesson's keywords found
    across two candidates are no lesson shown), or any other text whole."""
    head, found, rest = text.partition(CANDIDATES_LINE)
    if not found:
        return [head]
    return [line for line in rest.split("\n")[1:] if line.strip()]


def score(lessons: list[Lesson], items: list[str], shown: list[str]) -> Score:
    """Score item texts, and item texts plus the texts the hooks showed the model."""
    shown = [line for text in shown for line in evidence_shown(text)]
    from_items = [lesson.id for lesson in lessons if any(matches(lesson, t) for t in items)]
    with_shown = [
        lesson.id for lesson in lessons if any(matches(lesson, t) for t in [*items, *shown])
    ]
    unmatched = sum(1 for t in items if not any(matches(lesson, t) for lesson in lessons))
    return Score(
        lessons=len(lessons),
        items=len(items),
        from_items=len(from_items),
        with_checkpoint=len(with_shown),
        unmatched_items=unmatched,
        matched=tuple(from_items),
        matched_with_checkpoint=tuple(with_shown),
        kinds=tuple((lesson.id, lesson.kind) for lesson in lessons),
    )
