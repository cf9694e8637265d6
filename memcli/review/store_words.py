"""What `mem diff` reads of every item of one side without parsing it: kind, title and
first-line words, ``expires`` lines; built once per items tree and then kept up to date.

A diff of three new decisions must not read 15,000 items to find the few alike ones. The words
of every item (:class:`StoreWords`) are read from ``git grep`` output (``kind:``, ``title:``,
``body:`` and ``expires:`` lines, each with the line after it) and kept in
``.memory/local/diff-words.json`` under the object id of the items folder's tree: a git tree id
names its content exactly, so a kept entry is never stale. Another revision's tree is reached
from a kept one by ``git diff-tree`` (only the files that differ are read), and the working
tree from its ``HEAD`` by the files ``git diff`` reports. The file is derived and never
committed, and trusted only as this user's owner-only file: anything else in its place, or
in it that does not look exactly as written, is ignored and rebuilt.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from memcli.compact import text as text_words

if TYPE_CHECKING:
    from memcli.review.gitrepo import GitRepo


class Side(Protocol):
    """One side of a diff as :class:`memcli.review.sides.SideReader` reads it."""

    repo: GitRepo
    sha: str | None
    words: StoreWords | None

    def prefetch(self, paths: list[str]) -> None: ...
    def text(self, path: str) -> str | None: ...
    def files(self, under: str) -> list[str]: ...
    def grep(
        self, patterns: list[str], under: str, *, after: int = 0
    ) -> Iterator[tuple[str, str]]: ...
    def at_revision(self, sha: str, label: str) -> Side: ...


CACHE = ".memory/local/diff-words.json"
VERSION = 1
KEEP_TREES = 2  # the base and the head of the last diff
# one alternation: git runs each pattern over every line, so one regex is about a third faster
PATTERNS = ["^(kind|title|body|expires):"]
# Reached from a kept tree when at most this many files differ (and at most half of them),
# else read whole: a pathspec per changed file goes on git's command line.
MOST_CHANGED = 2000


@dataclass
class StoreWords:
    """What a diff needs of every item file of one side, without parsing one."""

    # files whose kind or title is not on a line of its own: always a candidate
    odd: set[str] = field(default_factory=set)
    # decisions: path -> (title words, title and first-line words, each space-joined; whether
    # each is exact, else a superset of the value's words)
    decisions: dict[str, tuple[str, str, bool, bool]] = field(default_factory=dict)
    expires: dict[str, list[str]] = field(default_factory=dict)  # path -> expires lines

    def drop(self, path: str) -> None:
        self.odd.discard(path)
        self.decisions.pop(path, None)
        self.expires.pop(path, None)


def from_lines(found: StoreWords, lines: Iterable[tuple[str, str]], paths: Iterable[str]) -> None:
    """Add ``paths`` to ``found`` from (path, line) of a grep of :data:`PATTERNS` with one
    line of context after each match (paths not in ``paths`` are ignored).

    A kind or title whose value may go on past its line (the next line is indented or a
    comment: a multi-line scalar) makes the file odd, as one with no such line does."""
    kinds: dict[str, str] = {}
    titles: dict[str, tuple[str, bool]] = {}  # the text as written, and whether it is exact
    bodies: dict[str, tuple[str, bool]] = {}
    wanted = dict.fromkeys(paths)
    block: tuple[str, ...] = ()  # the path whose body block starts on the next line, its style
    heading = ""  # the path whose kind or title line was the line before
    for path, line in lines:
        if path not in wanted:
            continue
        key, _, value = line.partition(":")
        if block and block[0] == path:
            bodies[path] = (line, block[1] == "|" and bool(line.strip()))
        if heading == path and line[:1] in (" ", "\t", "#"):
            found.odd.add(path)
        block, heading = (), path if key in ("kind", "title") else ""
        if key == "kind":
            kinds[path] = value.split("#", 1)[0].strip().strip("'\"")
        elif key == "title":
            titles[path] = (value, plain_line(value))
        elif key == "body":
            value = value.strip()
            block = (path, value[:1]) if value[:1] in ("|", ">") else ()
            if not block:
                bodies[path] = first_line(value)
        elif key == "expires":
            found.expires.setdefault(path, []).append(line)
    for path in wanted:
        if path not in kinds or path not in titles or path in found.odd:
            found.odd.add(path)
        elif kinds[path] == "decision":
            title, title_exact = titles[path]
            more, body_exact = bodies.get(path, ("", path not in bodies))
            words = words_as_written(title)
            found.decisions[path] = (
                " ".join(sorted(words)),
                " ".join(sorted(words | words_as_written(more))),
                title_exact,
                title_exact and body_exact,
            )


def grep_text(path: str, text: str) -> list[tuple[str, str]]:
    """What ``git grep -A1`` of :data:`PATTERNS` prints of one file's text."""
    if "\0" in text:
        return []  # binary to grep (-I)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    wanted: dict[int, None] = {}
    for number, line in enumerate(lines):
        if line.startswith(("kind:", "title:", "body:", "expires:")):
            wanted[number] = None
            if number + 1 < len(lines):
                wanted[number + 1] = None
    return [(path, lines[n]) for n in sorted(wanted)]


def of_side(side: Side, under: str) -> StoreWords:
    """What :class:`StoreWords` holds for every ``.yaml``/``.yml`` file directly in ``under``
    at a side (computed once per side)."""
    if side.words is None:
        side.words = _working_tree(side, under) if side.sha is None else _at_revision(side, under)
    return side.words


def _at_revision(side: Side, under: str) -> StoreWords:
    assert side.sha is not None
    tree = side.repo.try_run("rev-parse", "--verify", "-q", f"{side.sha}:{under.rstrip('/')}")
    tree = (tree or "").strip()
    if not tree:
        return StoreWords()
    kept = _read(side.repo.root, under)
    if tree in kept:
        return kept[tree]
    found = _from_kept(side, under, tree, kept)
    if found is None:
        found = StoreWords()
        files = _item_files(side.files(under))
        from_lines(found, side.grep(PATTERNS, under, after=1), files)
    kept[tree] = found
    _write(side.repo.root, under, kept, tree)
    return found


def _item_files(paths: Iterable[str]) -> list[str]:
    return [p for p in paths if p.endswith((".yaml", ".yml"))]


def _from_kept(side: Side, under: str, tree: str, kept: dict[str, StoreWords]) -> StoreWords | None:
    """The words of ``tree`` from a kept tree and the files that differ; None when no kept
    tree is close enough."""
    for old_tree, old in kept.items():
        out = side.repo.try_run(
            "diff-tree", "-r", "-z", "--no-renames", "--name-status", old_tree, tree
        )
        if out is None:
            continue
        parts = [p for p in out.split("\0") if p]
        pairs = [(parts[i][:1], parts[i + 1]) for i in range(0, len(parts) - 1, 2)]
        if len(pairs) > MOST_CHANGED:
            continue
        return _updated(side, under, old, pairs)
    return None


def _updated(side: Side, under: str, old: StoreWords, pairs: list[tuple[str, str]]) -> StoreWords:
    """``old`` with the files in ``pairs`` ((status, path under ``under``)) read again."""
    found = StoreWords(set(old.odd), dict(old.decisions), dict(old.expires))
    read: list[str] = []
    for status, name in pairs:
        path = f"{under}{name}"
        if "/" in name or not name.endswith((".yaml", ".yml")):
            continue
        found.drop(path)
        if status != "D":
            read.append(path)
    side.prefetch(read)
    for path in read:
        text = side.text(path)
        if text is not None:
            from_lines(found, grep_text(path, text), [path])
    return found


def _working_tree(side: Side, under: str) -> StoreWords:
    """The working tree as its ``HEAD`` and the files ``git diff`` and ``git ls-files``
    report as changed or new (read from disk)."""
    head = (side.repo.try_run("rev-parse", "--verify", "-q", "HEAD") or "").strip()
    if not head:
        found = StoreWords()
        files = _item_files(side.files(under))
        from_lines(found, side.grep(PATTERNS, under, after=1), files)
        return found
    at_head = of_side(side.at_revision(head, "HEAD"), under)
    changed = side.repo.changed("HEAD", None, under.rstrip("/"))
    pairs = [(status, path[len(under) :]) for status, path in changed if path.startswith(under)]
    return _updated(side, under, at_head, pairs)


# the kept file: {"version": 1, "under": FOLDER, "trees": {TREE: {"odd": [PATH],
# "decisions": {PATH: [title words, shape words, exact, exact]}, "expires": {PATH: [LINE]}}}},
# the tree used last first


def _read(root: Path, under: str) -> dict[str, StoreWords]:
    from memcli import untrusted

    if not _local_usable(root):
        return {}
    raw = untrusted.read_private(root / CACHE)  # this user's own file, as mem wrote it
    try:
        data = json.loads(raw) if raw is not None else {}
        if data.get("version") != VERSION or data.get("under") != under:
            return {}
        return {tree: _decoded(words, under) for tree, words in data["trees"].items()}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return {}  # absent, unreadable or not as written: rebuilt


def _decoded(data: dict[str, Any], under: str) -> StoreWords:
    odd, decisions, expires = data["odd"], data["decisions"], data["expires"]
    paths = [*odd, *decisions, *expires]
    if not all(isinstance(p, str) and _in_folder(p, under) for p in paths):
        raise ValueError("a path outside the items folder")
    rows: dict[str, tuple[str, str, bool, bool]] = {}
    for path, (title, shape, title_exact, shape_exact) in decisions.items():
        if not (type(title) is type(shape) is str and type(title_exact) is bool):
            raise ValueError("a decision row")
        rows[path] = (title, shape, title_exact, shape_exact is True)
    if not all(isinstance(line, str) for lines in expires.values() for line in lines):
        raise ValueError("an expires line")
    return StoreWords(set(odd), rows, {p: list(lines) for p, lines in expires.items()})


def _local_usable(root: Path) -> bool:
    """``.memory`` is a folder, and neither it nor its local folders is a symlink (a committed
    one would send the file wherever it points)."""
    from memcli import untrusted

    memory = root / ".memory"
    return memory.is_dir() and untrusted.linked_folder(memory) is None


def _in_folder(path: str, under: str) -> bool:
    return path.startswith(under) and "/" not in path[len(under) :] and ".." not in path


def _write(root: Path, under: str, kept: dict[str, StoreWords], used: str) -> None:
    from memcli import atomic

    if not _local_usable(root):
        return
    order = [used] + [t for t in kept if t != used]
    trees = {
        tree: {
            "odd": sorted(kept[tree].odd),
            "decisions": kept[tree].decisions,
            "expires": kept[tree].expires,
        }
        for tree in order[:KEEP_TREES]
    }
    data = {"version": VERSION, "under": under, "trees": trees}
    try:
        atomic.write_text(root / CACHE, json.dumps(data))
    except OSError:
        pass  # a read-only clone: the next diff reads the store again


def plain_line(value: str) -> bool:
    """A one-line scalar whose words are those of its value: no escape, comment or block."""
    stripped = value.strip()
    return "\\" not in value and "#" not in value and stripped[:1] not in ("|", ">", "&", "!")


# A double-quoted scalar up to its first line break (a ``\n`` escape that is not ``\\n``).
_FIRST_QUOTED_LINE = re.compile(r"(?:[^\\]|\\[^n])*")
_ESCAPE = re.compile(r"\\.")


def first_line(value: str) -> tuple[str, bool]:
    """The first line of a one-line or double-quoted scalar as written, and whether its words
    are exactly those of the value's first line."""
    if value[:1] != '"':
        return value, plain_line(value) and bool(value.strip())
    found = _FIRST_QUOTED_LINE.match(value)
    first = found.group(0) if found else value
    ends = first != value or (len(value) > 1 and value.endswith('"'))
    return first, ends and "\\" not in first and "#" not in first and bool(first.strip('" '))


def words_as_written(value: str) -> set[str]:
    """The words of a YAML scalar as written, and of it with its escapes read as spaces: a
    superset of the words of its value however it was quoted."""
    found = text_words.words(value)
    return found | text_words.words(_ESCAPE.sub(" ", value)) if "\\" in value else found
