"""Reading one side of a diff (a revision or the working tree) in proportion to the change.

`mem diff` reads only what it needs, in batches: the files git reports as changed, the items
they supersede, the few items whose expiry may have passed, and the decisions that could be
alike enough to a new decision to contradict it. A revision's files come from two
``git cat-file`` processes per batch (not one tree walk per file); the expiry dates and the
candidate decisions are found with ``git grep`` (C speed, no YAML) before anything is parsed.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from itertools import chain, compress
from operator import and_, itemgetter, not_
from typing import Any

from memcli import untrusted
from memcli.compact import text
from memcli.model import Item
from memcli.review import fields, item_lines, similar, store_words
from memcli.review.contradiction import SIMILAR
from memcli.review.gitrepo import GitRepo

SAMPLE = 4  # the word counts that choose the rarest words come from every SAMPLE-th decision


class SideReader:
    """Item files of one side, each read and parsed at most once."""

    def __init__(self, repo: GitRepo, sha: str | None, label: str) -> None:
        self.repo, self.sha, self.label = repo, sha, label
        self._texts: dict[str, str | None] = {}
        self._data: dict[str, tuple[dict[str, Any] | None, str | None]] = {}
        self.words: item_lines.StoreWords | None = None  # what store_words read of every item, once

    def prefetch(self, paths: list[str]) -> None:
        """Read every path not read yet, at once: from git at a revision, else from disk."""
        missing = list(dict.fromkeys(p for p in paths if p not in self._texts))
        if not missing:
            return
        if self.sha is not None:
            texts = self.repo.blobs([(self.sha, path) for path in missing])
            self._texts.update(zip(missing, texts, strict=True))
            return
        for path in missing:
            try:
                self._texts[path] = untrusted.read_text(self.repo.root / path)
            except untrusted.Unreadable:
                self._texts[path] = None

    def at_revision(self, sha: str, label: str) -> SideReader:
        """Another side of the same repository."""
        return SideReader(self.repo, sha, label)

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

    def files(self, under: str) -> list[str]:
        """The files directly in the folder ``under``."""
        if self.sha is None:
            folder = self.repo.root / under
            names = (
                sorted(p.name for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []
            )
            return [f"{under}{name}" for name in names]
        return sorted(self.repo.folder_names(self.sha, under.rstrip("/")))

    def grep(self, pattern: str, under: str, *, after: int = 0) -> str:
        """``git grep`` output of this side's files under ``under`` (see
        :meth:`GitRepo.grep_output`)."""
        return self.repo.grep_output(self.sha, pattern, under, after=after)


def expires_value(line: str) -> str | None:
    """The date of an ``expires: DATE`` line as written (quotes and a comment removed)."""
    value = line.partition(":")[2].split(" #", 1)[0].strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        value = value[1:-1]
    return value or None


def decision_candidates(side: SideReader, new: list[Item], under: str) -> list[str]:
    """The decision files that could be alike enough to one of ``new`` to contradict it.

    Alike means a Jaccard index of at least t between the title words, or between the words of
    the title and the body's first line (:func:`memcli.review.similar.shapes`). Those words
    (with stopwords, dropped here) are read from every item's ``kind:``, ``title:`` and
    ``body:`` line and the line after it (mem writes a title on one line, a body on one line or
    as a block that starts on the next), without parsing YAML
    (:mod:`memcli.review.store_words`, kept per items tree): exactly when the text has no
    escape or comment (then the index itself decides), else a superset of them (then a file
    must hold at least ceil(t * n) of the n words of the new decision). A file
    whose kind or title is not written that way is always a candidate. Files are looked at
    through the rarest words only (prefix filtering), and only those that hold at least
    ceil(t * n) of the words have their words counted.
    """
    kept = store_words.of_side(side, under)
    found: set[str] = set(kept.odd)
    shapes = [similar.shapes(item) for item in new]
    rows = kept.decisions
    paths = list(rows)
    # the words of each decision's title and first line, as written (stopwords included)
    titles = list(map(str.split, map(itemgetter(0), rows.values())))
    lines = list(map(str.split, map(itemgetter(1), rows.values())))
    # how often each word is written, in every SAMPLE-th decision: it only picks the rarest
    # words of each new decision, and prefix filtering is exact whichever words it picks (a
    # file alike enough holds one of them); a fourth of the counting, the same candidates
    title_counts = Counter(chain.from_iterable(titles[::SAMPLE]))
    for which in (0, 1):
        if which == 1:
            frequency = Counter(title_counts)
            frequency.update(chain.from_iterable(lines[::SAMPLE]))  # in C (not Counter's +)
        else:
            frequency = title_counts
        looked_at: list[tuple[set[str], int, list[str]]] = []
        for shape in (pair[which] for pair in shapes):
            need = math.ceil(SIMILAR * len(shape) - 1e-9)
            keep = len(shape) - need + 1
            rare = sorted(shape, key=lambda w: (frequency[w], w))[:keep]
            looked_at.append((shape, need, rare))
        rarest = set(chain.from_iterable(rare for _shape, _need, rare in looked_at))
        # most decisions hold none: one C call per line, no set built
        lacking = map(rarest.isdisjoint, titles)
        if which == 1:
            lacking = map(and_, lacking, map(rarest.isdisjoint, lines))
        words_of = {
            number: titles[number] if which == 0 else titles[number] + lines[number]
            for number in compress(range(len(paths)), map(not_, lacking))
        }
        files: dict[str, list[int]] = defaultdict(list)  # the decisions with each rare word
        for number, words in words_of.items():
            for word in rarest.intersection(words):
                files[word].append(number)
        sizes: dict[int, int] = {}  # the number of distinct words of each decision looked at
        for shape, need, rare in looked_at:
            numbers = list(set(chain.from_iterable(files.get(word, ()) for word in rare)))
            # the words each shares with the shape, counted in C: an index of t or more needs
            # ceil(t * n) shared words, which few of them have (15,000 items: 677 of 21,026)
            counts = list(map(len, map(shape.intersection, map(words_of.__getitem__, numbers))))
            shared = zip(numbers, counts, strict=True)
            for number, count in compress(shared, map(need.__le__, counts)):
                path = paths[number]
                if path in found:
                    continue
                if not rows[path][2 + which]:
                    found.add(path)
                    continue
                size = sizes.get(number)
                if size is None:
                    size = sizes[number] = len(set(words_of[number]) - text.STOPWORDS)
                if count / (len(shape) + size - count) >= SIMILAR:
                    found.add(path)
    return sorted(found)
