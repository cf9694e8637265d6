"""What `mem diff` reads of every item of one side without parsing it: kind, title and
first-line words, ``expires`` lines; built once per items tree and then kept up to date.

A diff of three new decisions must not read 15,000 items to find the few alike ones. The words
of every item (:class:`StoreWords`) are read from ``git grep`` output (``kind:``, ``title:``,
``body:`` and ``expires:`` lines, each with the line after it, read by one regex over the whole
output) and kept in ``.memory/local/diff-words.json`` under the object id of the items folder's
tree: a git tree id names its content exactly, so a kept entry is never stale. Another
revision's tree is reached from a kept one by ``git diff-tree`` (only the files that differ are
read), and the working tree from its ``HEAD`` by the files ``git diff`` reports. With nothing
kept (a fresh clone), ``HEAD``'s tree is read from git by a child process started with the
command (:func:`start_early_read`), and a revision near ``HEAD`` reached from it. Not from
the checked-out files: in a fresh clone every file is as new as git's index, so git cannot
trust its stat data and ``git diff`` reads and hashes every file again to say which changed
(15,000 items: 0.12 to 0.3 s wall, 0.14 s of CPU), more than git takes to inflate and grep
every blob. The file is derived
and never committed, and trusted only as this user's owner-only file: anything else in its
place, or in it that does not look exactly as written, is ignored and rebuilt.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from memcli.review.gitrepo import grep_args
from memcli.review.item_lines import PATTERN, StoreWords, from_output, grep_text

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
    def grep(self, pattern: str, under: str, *, after: int = 0) -> str: ...
    def at_revision(self, sha: str, label: str) -> Side: ...


CACHE = ".memory/local/diff-words.json"
VERSION = 2
KEEP_TREES = 2  # the last trees read whole (one reached from a kept tree is not written)
# Reached from a kept tree when at most this many files differ (and at most half of them),
# else read whole: a pathspec per changed file goes on git's command line.
MOST_CHANGED = 2000


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
    if found is not None:
        return found  # not written: reached again from the kept tree as cheaply
    head_tree, found = _from_early(side, under, tree, kept)
    if found is None:
        found = _read_whole(side, under)
    kept[tree] = found
    _write(side.repo.root, under, kept, [tree, head_tree])
    return found


def _read_whole(side: Side, under: str) -> StoreWords:
    """Every item file of a side, through one ``git grep`` of the revision (or of the working
    tree, untracked files included)."""
    if side.sha is not None:
        return read_revision(side.repo, side.sha, under)
    found = StoreWords()
    from_output(found, side.grep(PATTERN, under, after=1), _item_files(side.files(under)))
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


def _from_early(
    side: Side, under: str, tree: str, kept: dict[str, StoreWords]
) -> tuple[str, StoreWords | None]:
    """The words of ``tree`` from ``HEAD``'s, as the process started with the command read
    them (:func:`start_early_read`; kept in ``kept`` too), then ``tree`` from them by the files
    that differ. ``HEAD``'s tree id, and None when there is no such read or ``tree`` is far
    from ``HEAD``'s."""
    from memcli.review import early_words

    early = early_words.take(_early_key(str(side.repo.root), under))
    try:
        head_tree, plain = early
        at_head = StoreWords(*plain)
    except (TypeError, ValueError):
        return "", None
    kept[head_tree] = at_head
    if tree == head_tree:
        return head_tree, at_head
    pairs = _differ(side, head_tree, tree)
    return head_tree, None if pairs is None else _updated(side, under, at_head, pairs)


def read_revision(repo: GitRepo, rev: str, under: str) -> StoreWords:
    """What :class:`StoreWords` holds for every item file directly in ``under`` at a
    revision: one ``git grep`` of its blobs."""
    found = StoreWords()
    files = _item_files(sorted(repo.folder_names(rev, under.rstrip("/"))))
    from_output(found, repo.grep_output(rev, PATTERN, under, after=1), files, f"{rev}:")
    return found


def start_early_read(root: str, under: str) -> None:
    """With nothing kept in ``root`` (a fresh clone), fork the first diff's read of ``HEAD``'s
    items (:mod:`memcli.review.early_words`): it overlaps the command's imports, and
    :func:`_from_early` takes it."""
    import functools

    from memcli.review import early_words

    if nothing_kept(root, under):
        early_words.start(_early_key(root, under), functools.partial(_early_read, root, under))


def _early_key(root: str, under: str) -> tuple[str, ...]:
    return ("diff-words", root, under)


def _early_read(root: str, under: str) -> tuple[Any, ...] | None:
    """In the child: :func:`read_revision` of ``HEAD`` (its listing and its grep started at
    once: git's reads overlap each other), as ``HEAD``'s items tree id and plain values."""
    from memcli import gitlayer
    from memcli.review.gitrepo import GitRepo

    repo = GitRepo(Path(root))
    folder = under.rstrip("/")
    found = (repo.try_run("rev-parse", "HEAD", f"HEAD:{folder}") or "").split()
    if len(found) != 2:
        return None
    head, head_tree = found
    gitlayer.start_early(
        root, "ls-tree", "-z", "--name-only", "--full-name", head, "--", f"{folder}/"
    )
    gitlayer.start_early(root, *grep_args(head, PATTERN, under, after=1))
    try:
        words = read_revision(repo, head, under)
    finally:
        gitlayer.end_early()  # the reads not needed (PCRE missing: git's own regex instead)
    return head_tree, (words.odd, words.decisions, words.expires)


def nothing_kept(root: str, under: str) -> bool:
    """Whether no words are kept in ``root`` and ``under`` is a folder: a fresh clone's first
    diff, which reads every item."""
    import os

    folder = os.path.join(root, under)
    return not os.path.lexists(os.path.join(root, CACHE)) and os.path.isdir(folder)


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


# the kept file: {"version": 2, "under": FOLDER, "trees": {TREE: {"odd": [PATH],
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
        # not flushed to the disk: a file a crash leaves broken is not read (see _read)
        atomic.write_text(root / CACHE, json.dumps(data), durable=False)
    except OSError:
        pass  # a read-only clone: the next diff reads the store again
