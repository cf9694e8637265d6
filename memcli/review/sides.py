"""Reading one side of a diff (a revision or the working tree) in proportion to the change.

`mem diff` reads only what it needs, in batches: the files git reports as changed, the items
they supersede, the few items whose expiry may have passed, and the decisions that could be
alike enough to a new decision to contradict it. A revision's files come from two
``git cat-file`` processes per batch (not one tree walk per file); the expiry dates and the
candidate decisions are found with ``git grep`` (C speed, no YAML) before anything is parsed.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from typing import Any

from memcli import untrusted
from memcli.compact import text
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

    def files(self, under: str) -> list[str]:
        """The files directly in the folder ``under``."""
        if self.sha is None:
            folder = self.repo.root / under
            names = (
                sorted(p.name for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []
            )
            return [f"{under}{name}" for name in names]
        return sorted(self.repo.list_folder(self.sha, under.rstrip("/")))

    def grep(self, patterns: list[str], under: str, *, after: int = 0) -> list[Any]:
        return self.repo.grep_lines(self.sha, patterns, under, after=after)


def expires_value(line: str) -> str | None:
    """The date of an ``expires: DATE`` line as written (quotes and a comment removed)."""
    value = line.partition(":")[2].split(" #", 1)[0].strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        value = value[1:-1]
    return value or None


def decision_candidates(side: SideReader, new: list[Item], under: str) -> list[str]:
    """The decision files that could be alike enough to one of ``new`` to contradict it.

    Alike means a Jaccard index of at least t between the title words, or between the words of
    the title and the body's first line (:func:`memcli.review.similar.shapes`). One
    ``git grep`` gives every item's ``kind:``, ``title:`` and ``body:`` line and the line after
    it (mem writes a title on one line, a body on one line or as a block that starts on the
    next), from which those words are read without parsing YAML: exactly when the text has no
    escape or comment (then the index itself decides), else a superset of them (then a file
    must hold at least ceil(t * n) of the n words of the new decision). A file whose kind or
    title is not written that way is always a candidate. Files are looked at through the
    rarest words only (prefix filtering).
    """
    kinds: dict[str, str] = {}
    titles: dict[str, tuple[str, bool]] = {}  # the text as written, and whether it is exact
    bodies: dict[str, tuple[str, bool]] = {}
    block: tuple[str, ...] = ()  # the path whose body block starts on the next line, its style
    for path, line in side.grep(["^kind:", "^title:", "^body:"], under, after=1):
        key, _, value = line.partition(":")
        if block and block[0] == path:
            bodies[path] = (line, block[1] == "|" and bool(line.strip()))
        block = ()
        if key == "kind":
            kinds[path] = value.split("#", 1)[0].strip().strip("'\"")
        elif key == "title":
            titles[path] = (value, _plain_line(value))
        elif key == "body":
            value = value.strip()
            block = (path, value[:1]) if value[:1] in ("|", ">") else ()
            if not block:
                bodies[path] = _first_line(value)
    yaml = [p for p in side.files(under) if p.endswith((".yaml", ".yml"))]
    odd = [p for p in yaml if p not in titles or p not in kinds]
    decisions = [p for p, kind in kinds.items() if kind == "decision" and p in titles]
    found: set[str] = set(odd)
    title_words = {p: _words(titles[p][0]) for p in decisions}
    for which in (0, 1):
        present: dict[str, tuple[set[str], bool]] = {}
        for path in decisions:
            words, exact = title_words[path], titles[path][1]
            if which:
                more, body_exact = bodies.get(path, ("", path not in bodies))
                words, exact = words | _words(more), exact and body_exact
            present[path] = (words, exact)
        files: dict[str, set[str]] = defaultdict(set)
        for path, (words, _exact) in present.items():
            for word in words:
                files[word].add(path)
        for shape in (similar.shapes(item)[which] for item in new):
            need = math.ceil(SIMILAR * len(shape) - 1e-9)
            keep = len(shape) - need + 1
            for word in sorted(shape, key=lambda w: (len(files.get(w, ())), w))[:keep]:
                found.update(p for p in files.get(word, ()) if _alike(shape, present[p], need))
    return sorted(found)


def _alike(shape: set[str], other: tuple[set[str], bool], need: int) -> bool:
    words, exact = other
    if exact:
        return text.jaccard(shape, words) >= SIMILAR
    return len(shape & words) >= need


def _plain_line(value: str) -> bool:
    """A one-line scalar whose words are those of its value: no escape, comment or block."""
    stripped = value.strip()
    return "\\" not in value and "#" not in value and stripped[:1] not in ("|", ">", "&", "!")


# A double-quoted scalar up to its first line break (a ``\n`` escape that is not ``\\n``).
_FIRST_QUOTED_LINE = re.compile(r"(?:[^\\]|\\[^n])*")
_ESCAPE = re.compile(r"\\.")


def _first_line(value: str) -> tuple[str, bool]:
    """The first line of a one-line or double-quoted scalar as written, and whether its words
    are exactly those of the value's first line."""
    if value[:1] != '"':
        return value, _plain_line(value) and bool(value.strip())
    found = _FIRST_QUOTED_LINE.match(value)
    first = found.group(0) if found else value
    ends = first != value or (len(value) > 1 and value.endswith('"'))
    return first, ends and "\\" not in first and "#" not in first and bool(first.strip('" '))


def _words(value: str) -> set[str]:
    """The words of a YAML scalar as written, and of it with its escapes read as spaces: a
    superset of the words of its value however it was quoted."""
    found = text.words(value)
    return found | text.words(_ESCAPE.sub(" ", value)) if "\\" in value else found
