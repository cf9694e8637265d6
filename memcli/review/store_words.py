"""What `mem diff` reads of every item of one side without parsing it: kind, title and
first-line words, ``expires`` lines; built once per items tree and then kept up to date.

A diff of three new decisions must not read 15,000 items to find the few alike ones. The words
of every item (:class:`StoreWords`) are read from ``git grep`` output (``kind:``, ``title:``,
``body:`` and ``expires:`` lines, each with the line after it, read by one regex over the whole
output) and kept in ``.memory/local/diff-words.json`` under the object id of the items folder's
tree: a git tree id names its content exactly, so a kept entry is never stale. Another
revision's tree is reached from a kept one by ``git diff-tree`` (only the files that differ are
read), and the working tree from its ``HEAD`` by the files ``git diff`` reports. With nothing
kept (a fresh clone), ``HEAD``'s tree is read from the checked-out files (no blob for git to
inflate), the few that ``git diff`` reports as changed read again from ``HEAD``, and a
revision near ``HEAD`` reached from it; a checkout that git converts (a filter, ``ident``, an
encoding, line endings) is read from the revision instead. The file is derived
and never committed, and trusted only as this user's owner-only file: anything else in its
place, or in it that does not look exactly as written, is ignored and rebuilt.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from memcli.compact import text as text_words
from memcli.errors import MemError

if TYPE_CHECKING:
    from memcli.review.gitrepo import GitRepo


class Side(Protocol):
    """One side of a diff as :class:`memcli.review.sides.SideReader` reads it."""

    repo: GitRepo
    sha: str | None
    words: StoreWords | None
    on_disk: set[str]

    def prefetch(self, paths: list[str]) -> None: ...
    def text(self, path: str) -> str | None: ...
    def files(self, under: str) -> list[str]: ...
    def grep(self, pattern: str, under: str, *, after: int = 0, checkout: bool = False) -> str: ...
    def at_revision(self, sha: str, label: str) -> Side: ...


CACHE = ".memory/local/diff-words.json"
VERSION = 2
KEEP_TREES = 2  # the base and the head of the last diff
# one alternation: git runs each pattern over every line, so one regex is about a third faster
PATTERN = "^(kind|title|body|expires):"
# Reached from a kept tree when at most this many files differ (and at most half of them),
# else read whole: a pathspec per changed file goes on git's command line.
MOST_CHANGED = 2000


@dataclass
class StoreWords:
    """What a diff needs of every item file of one side, without parsing one."""

    # files whose kind or title is not on a line of its own: always a candidate
    odd: set[str] = field(default_factory=set)
    # decisions: path -> (title words, first-line words, each as :func:`tokens_of` gives them;
    # whether the title's and whether the title's and first line's are exact, else a superset
    # of the value's words)
    decisions: dict[str, tuple[str, str, bool, bool]] = field(default_factory=dict)
    expires: dict[str, list[str]] = field(default_factory=dict)  # path -> expires lines

    def drop(self, path: str) -> None:
        self.odd.discard(path)
        self.decisions.pop(path, None)
        self.expires.pop(path, None)


# ``git grep -z -n --heading -A1`` output: a file's path on a line of its own, then its lines
# as NUMBER\0TEXT, ``--`` between groups that are not adjacent. A match is a path (with, when
# they come next as mem writes them, the kind, title and body lines and the line after the
# body), or a key line (key, the rest of the line) with, when it is printed, the next line
# (with its line break: empty when there is none). The values of the first are after a colon.
_RECORD = re.compile(
    r"^(?:(?!--\n)([^\0\n]+)\n"
    r"(?:[0-9]+\0kind(:[^\n]*)\n[0-9]+\0title(:[^\n]*)\n[0-9]+\0body(:[^\n]*)\n"
    r"(?:(?=[0-9]+\0([^\n]*\n)))?)?"
    r"|[0-9]+\0(kind|title|body|expires):([^\n]*)\n(?:(?=[0-9]+\0([^\n]*\n)))?)",
    re.MULTILINE,
)
_TOKEN_OR_BREAK = re.compile(f"{text_words.WORD.pattern}|\n")


def from_output(found: StoreWords, out: str, paths: Iterable[str], prefix: str = "") -> None:
    """Add ``paths`` to ``found`` from the output of ``git grep -z -n --heading -A1`` of
    :data:`PATTERN`, each path printed after ``prefix`` (``REV:`` for a revision; other paths
    are ignored).

    One regex reads the key lines and the line after each (an item's kind, title and body at
    once when they come in that order); a kind or title whose value may go on past its line
    (the next line is indented or a comment: a multi-line scalar) makes the file odd, as one
    with no such line does. A body block's value is its next line."""
    kinds: dict[str, str] = {}
    titles: dict[str, str] = {}
    # the body's first line as written, and whether exact (None: a one-line value, not read yet)
    bodies: dict[str, tuple[str, bool | None]] = {}
    odd: set[str] = set()
    expires: dict[str, list[str]] = {}
    path = ""
    for heading, kind, title, body, after_body, key, value, after in _RECORD.findall(out):
        if heading:
            path = heading
            if not kind:
                continue
            # kind, title and body on three lines: neither the kind nor the title goes on
            kinds[path], titles[path] = kind[1:], title[1:]
            key, value, after = "body", body[1:], after_body
        if key == "kind" or key == "title":
            (kinds if key == "kind" else titles)[path] = value
            if after[:1] in (" ", "\t", "#"):
                odd.add(path)
        elif key == "body":
            value = value.strip()
            if value[:1] not in ("|", ">"):
                bodies[path] = (value, None)
            elif after:
                line = after[:-1]
                bodies[path] = (line, value[:1] == "|" and bool(line.strip()))
        else:
            expires.setdefault(path, []).append(f"expires:{value}")
    rows: list[tuple[str, str, str, bool, bool]] = []  # path, title, body line, exact, exact
    for path in paths:
        printed = prefix + path
        if printed in expires:
            found.expires.setdefault(path, []).extend(expires[printed])
        kind, title = kinds.get(printed), titles.get(printed)
        if kind is None or title is None or printed in odd or path in found.odd:
            found.odd.add(path)
        elif kind == " decision" or kind.split("#", 1)[0].strip().strip("'\"") == "decision":
            more, body_exact = bodies.get(printed, ("", True))
            if body_exact is None:
                more, body_exact = first_line(more)
            title_exact = plain_line(title)
            rows.append((path, title, more, title_exact, title_exact and body_exact))
    title_words = tokens_of([row[1] for row in rows])
    line_words = tokens_of([row[2] for row in rows])
    for (path, _title, _line, title_exact, exact), title_tokens, line_tokens in zip(
        rows, title_words, line_words, strict=True
    ):
        found.decisions[path] = (title_tokens, line_tokens, title_exact, exact)


def tokens_of(values: list[str]) -> list[str]:
    """The word tokens of each one-line YAML scalar as written and of it with its escapes
    read as spaces, lower-cased and space-joined as found (repeats and stopwords included:
    without the stopwords, a superset of the words of its value however it was quoted),
    found in one pass over all of them."""
    if not values:
        return []
    joined = "\n".join(values).lower()
    if joined.count("\n") != len(values) - 1:  # a line break is no word: a space does as well
        return tokens_of([value.replace("\n", " ") for value in values])
    found = [row.strip() for row in " ".join(_TOKEN_OR_BREAK.findall(joined)).split("\n")]
    if "\\" in joined:
        for n, value in enumerate(values):
            if "\\" in value:
                escaped = text_words.WORD.findall(_ESCAPE.sub(" ", value).lower())
                found[n] = " ".join([found[n], *escaped]).strip()
    return found


def grep_text(path: str, text: str) -> str:
    """What ``git grep -z -n --heading -A1`` of :data:`PATTERN` prints of one file's text
    (without the ``--`` lines between groups)."""
    if "\0" in text:
        return ""  # binary to grep (-I)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    wanted: dict[int, None] = {}
    for number, line in enumerate(lines):
        if line.startswith(("kind:", "title:", "body:", "expires:")):
            wanted[number] = None
            if number + 1 < len(lines):
                wanted[number + 1] = None
    if not wanted:
        return ""
    return f"{path}\n" + "".join(f"{n + 1}\0{lines[n]}\n" for n in sorted(wanted))


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
    head_tree = ""
    if found is None:
        head_tree, found = _from_checkout(side, under, tree, kept)
    if found is None:
        found = _read_whole(side, under)
    kept[tree] = found
    _write(side.repo.root, under, kept, [tree, head_tree])
    return found


def _read_whole(side: Side, under: str) -> StoreWords:
    """Every item file of a side, through one ``git grep`` of the revision (or of the working
    tree, untracked files included)."""
    found = StoreWords()
    files = _item_files(side.files(under))
    from_output(
        found, side.grep(PATTERN, under, after=1), files, f"{side.sha}:" if side.sha else ""
    )
    return found


def _item_files(paths: Iterable[str]) -> list[str]:
    return [p for p in paths if p.endswith((".yaml", ".yml"))]


def _from_kept(side: Side, under: str, tree: str, kept: dict[str, StoreWords]) -> StoreWords | None:
    """The words of ``tree`` from a kept tree and the files that differ; None when no kept
    tree is close enough."""
    for old_tree, old in kept.items():
        pairs = _differ(side, old_tree, tree)
        if pairs is not None:
            return _updated(side, under, old, pairs)
    return None


def _differ(side: Side, old_tree: str, tree: str) -> list[tuple[str, str]] | None:
    """(status, path under the folder) of the files that differ between two trees; None when
    git cannot say or more than :data:`MOST_CHANGED` do."""
    out = side.repo.try_run(
        "diff-tree", "-r", "-z", "--no-renames", "--name-status", old_tree, tree
    )
    if out is None:
        return None
    parts = [p for p in out.split("\0") if p]
    pairs = [(parts[i][:1], parts[i + 1]) for i in range(0, len(parts) - 1, 2)]
    return pairs if len(pairs) <= MOST_CHANGED else None


def _from_checkout(
    side: Side, under: str, tree: str, kept: dict[str, StoreWords]
) -> tuple[str, StoreWords | None]:
    """The words of ``tree`` from the checked-out files: ``HEAD``'s tree from the files on
    disk (those ``git diff`` reports as changed read from ``HEAD``), then ``tree`` from it by
    the files that differ. ``HEAD``'s tree id, and None when this does not hold: no ``HEAD``,
    ``tree`` far from it, too many changed files, or files git converts on checkout (their
    text on disk is not their blob's)."""
    folder = under.rstrip("/")
    repo = side.repo
    found = (repo.try_run("rev-parse", "HEAD", f"HEAD:{folder}") or "").split()
    if len(found) != 2:
        return "", None
    head, head_tree = found
    pairs = [] if tree == head_tree else _differ(side, head_tree, tree)
    try:
        changed = repo.changed("HEAD", None, folder, untracked=False)
    except MemError:
        return "", None
    files = _item_files(repo.folder_names(head, folder))
    if pairs is None or len(changed) > MOST_CHANGED or repo.converts(files):
        return "", None
    out = side.grep(PATTERN, under, after=1, checkout=True)
    if "\r\n" in out:
        return "", None  # line endings converted on checkout (or in the blobs: read those)
    at_head = StoreWords()
    from_output(at_head, out, files)
    # the files that differ on disk, as they are at HEAD (one added since: not at HEAD)
    redo = [("M", path[len(under) :]) for status, path in changed if status != "A"]
    at_head = _updated(side.at_revision(head, "HEAD"), under, at_head, redo)
    kept[head_tree] = at_head
    if tree != head_tree:
        return head_tree, _updated(side, under, at_head, pairs)
    # a file with its kind and title printed, no CR, not changed: its text on disk is HEAD's
    side.on_disk = set(files) - at_head.odd - {path for _status, path in changed}
    return head_tree, at_head


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
    texts = [(path, text) for path in read if (text := side.text(path)) is not None]
    from_output(found, "".join(grep_text(path, text) for path, text in texts), dict(texts))
    return found


def _working_tree(side: Side, under: str) -> StoreWords:
    """The working tree as its ``HEAD`` and the files ``git diff`` and ``git ls-files``
    report as changed or new (read from disk)."""
    head = (side.repo.try_run("rev-parse", "--verify", "-q", "HEAD") or "").strip()
    if not head:
        return _read_whole(side, under)
    at_head = of_side(side.at_revision(head, "HEAD"), under)
    changed = side.repo.changed("HEAD", None, under.rstrip("/"))
    pairs = [(status, path[len(under) :]) for status, path in changed if path.startswith(under)]
    return _updated(side, under, at_head, pairs)


# the kept file: {"version": 1, "under": FOLDER, "trees": {TREE: {"odd": [PATH],
# "decisions": {PATH: [title words, first-line words, exact, exact]}, "expires": {PATH: [LINE]}}}},
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
    for path, (title, line, title_exact, shape_exact) in decisions.items():
        if not (type(title) is type(line) is str and type(title_exact) is bool):
            raise ValueError("a decision row")
        rows[path] = (title, line, title_exact, shape_exact is True)
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


def _write(root: Path, under: str, kept: dict[str, StoreWords], used: list[str]) -> None:
    """Keep the trees in ``used`` (in that order) before the others."""
    from memcli import atomic

    if not _local_usable(root):
        return
    order = list(dict.fromkeys([t for t in used if t in kept] + list(kept)))
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
    if "\\" not in value:  # the whole value, quoted: the regex below matches all of it
        return value, len(value) > 1 and value.endswith('"') and "#" not in value and bool(
            value.strip('" ')
        )
    found = _FIRST_QUOTED_LINE.match(value)
    first = found.group(0) if found else value
    ends = first != value or (len(value) > 1 and value.endswith('"'))
    return first, ends and "\\" not in first and "#" not in first and bool(first.strip('" '))
