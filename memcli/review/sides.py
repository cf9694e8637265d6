"""Reading one side of a diff (a revision or the working tree) in proportion to the change.

`mem diff` reads only what it needs, in batches: the files git reports as changed, the items
they supersede, the few items whose expiry may have passed, and the decisions that could be
alike enough to a new decision to contradict it. A revision's files come from two
``git cat-file`` processes per batch (not one tree walk per file); the expiry dates and the
candidate decisions are found with ``git grep`` (C speed, no YAML) before anything is parsed.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from memcli import untrusted
from memcli.model import Item
from memcli.review import fields, similar
from memcli.review.contradiction import SIMILAR
from memcli.review.gitrepo import GitRepo


class SideReader:
    """Item files of one side, each read and parsed at most once."""

    def __init__(self, repo: GitRepo, sha: str | None, label: str) -> None:
        self.repo, self.sha, self.label = repo, sha, label
        self._texts: dict[str, str | None] = {}
        self._data: dict[str, tuple[dict[str, Any] | None, str | None]] = {}

    def prefetch(self, paths: list[str]) -> None:
        """Read every path not read yet, at once."""
        missing = list(dict.fromkeys(p for p in paths if p not in self._texts))
        if not missing:
            return
        if self.sha is None:
            for path in missing:
                try:
                    self._texts[path] = untrusted.read_text(self.repo.root / path)
                except untrusted.Unreadable:
                    self._texts[path] = None
            return
        texts = self.repo.blobs([(self.sha, path) for path in missing])
        self._texts.update(zip(missing, texts, strict=True))

    def text(self, path: str) -> str | None:
        self.prefetch([path])
        return self._texts[path]

    def data(self, path: str) -> tuple[dict[str, Any] | None, str | None]:
        """The file as a mapping, or None and why it is not one (None, None: not there)."""
        if path not in self._data:
            text = self.text(path)
            self._data[path] = fields.parse(text, path) if text is not None else (None, None)
        return self._data[path]

    def item(self, path: str) -> Item | None:
        data = self.data(path)[0]
        return fields.to_item(data, path) if data is not None else None

    def grep(self, patterns: list[str], under: str, *, words: bool = False) -> list[Any]:
        return self.repo.grep_lines(self.sha, patterns, under, words=words)


def expires_value(line: str) -> str | None:
    """The date of an ``expires: DATE`` line as written (quotes and a comment removed)."""
    value = line.partition(":")[2].split(" #", 1)[0].strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        value = value[1:-1]
    return value or None


def decision_candidates(
    side: SideReader, new: list[Item], under: str, decision_paths: list[str]
) -> list[str]:
    """The decision files that could be alike enough to one of ``new`` to contradict it.

    Two word sets with a Jaccard index of at least t share at least ceil(t * n) of the n words
    of either, so a decision alike to a new one contains one of any n - ceil(t * n) + 1 of its
    words. Those are chosen rarest first (by how many decision files contain them, from one
    ``git grep -o``); only files containing one of the chosen words are returned.
    """
    threshold = SIMILAR
    shapes = [shape for item in new for shape in similar.shapes(item) if shape]
    vocabulary = sorted({word for shape in shapes for word in shape})
    decisions = set(decision_paths)
    files: dict[str, set[str]] = defaultdict(set)
    for path, match in side.grep(vocabulary, under, words=True):
        if path in decisions:
            files[match.lower()].add(path)
    found: set[str] = set()
    for shape in shapes:
        keep = len(shape) - math.ceil(threshold * len(shape) - 1e-9) + 1
        for word in sorted(shape, key=lambda w: (len(files.get(w, ())), w))[: max(keep, 0)]:
            found |= files.get(word, set())
    return sorted(found)
