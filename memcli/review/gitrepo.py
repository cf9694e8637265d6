"""Git for review (diff, history, prune, the merge driver), on :func:`memcli.gitlayer.run`.

git runs as a subprocess (no library); every git failure becomes a
:class:`memcli.errors.MemError` with git's own first line of explanation.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from memcli import gitlayer
from memcli.errors import MemError

MEMORY = ".memory"
LIST_FOLDER_FROM = 16  # files of one folder and revision read through one listing of it
LS_TREE_PATHS = 500  # paths named on one ls-tree command line
# attributes that make a checked-out file differ from its blob beyond line endings
CONVERTING = frozenset({"filter", "ident", "working-tree-encoding"})
GIT_DIR = ("rev-parse", "--git-dir")
HAS_COMMITS = ("rev-parse", "--verify", "-q", "HEAD^{commit}")
UNSHALLOW_HINT = (
    "this is a shallow clone, so the history mem diff needs is missing: run "
    "`git fetch --unshallow` (in GitHub Actions: actions/checkout with fetch-depth: 0)"
)


@dataclass
class Commit:
    sha: str
    author: str
    date: str  # ISO 8601 as git prints it (%aI)
    subject: str
    status: str  # A, M, D or R (R: renamed to ``path``)
    path: str


class GitRepo:
    """One repository; use as a context manager so git's helper processes are closed."""

    def __init__(self, root: Path) -> None:
        self.root = root
        if not root.is_dir() or not gitlayer.run(root, *GIT_DIR).ok:
            raise MemError(f"not a git repository: {root}")

    def __enter__(self) -> GitRepo:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Nothing stays open between calls (kept for the context-manager protocol)."""

    def run(self, *args: str) -> str:
        """``git ARGS`` in the repository; its stdout, as git wrote it."""
        result = gitlayer.run(self.root, *args)
        if not result.ok:
            raise MemError(f"git {args[0]}: {result.reason()}")
        return result.stdout

    def try_run(self, *args: str) -> str | None:
        try:
            return self.run(*args)
        except MemError:
            return None

    # revisions

    def is_shallow(self) -> bool:
        return self.try_run("rev-parse", "--is-shallow-repository") == "true\n"

    def has_commits(self) -> bool:
        return self.try_run(*HAS_COMMITS) is not None

    def resolve(self, rev: str) -> str:
        found = self.try_run("rev-parse", "--verify", "-q", "--end-of-options", f"{rev}^{{commit}}")
        if found is None:
            hint = f" ({UNSHALLOW_HINT})" if self.is_shallow() else ""
            raise MemError(f"unknown revision {rev!r}{hint}")
        return found.strip()

    def default_branch(self) -> str | None:
        """origin/HEAD, else the pull request's base branch on CI, else main or master."""
        import os

        head = self.try_run("symbolic-ref", "-q", "--short", "refs/remotes/origin/HEAD")
        names = [head.strip()] if head else []
        base_ref = os.environ.get("GITHUB_BASE_REF")
        if base_ref:
            names.append(f"origin/{base_ref}")
        names += ["origin/main", "origin/master", "main", "master"]
        for name in names:
            if name and self.try_run("rev-parse", "--verify", "-q", f"{name}^{{commit}}"):
                return name
        return None

    def merge_base(self, a: str, b: str) -> str:
        if self.is_shallow():
            raise MemError(UNSHALLOW_HINT)
        found = self.try_run("merge-base", a, b)
        if not found:
            raise MemError(f"{a} and {b} have no common history")
        return found.strip()

    def commit_time(self, sha: str) -> str:
        from memcli import timeutil

        stamp = self.run("show", "-s", "--format=%cI", sha).strip()
        return timeutil.format_time(timeutil.parse_time(stamp))

    def short(self, sha: str) -> str:
        return self.run("rev-parse", "--short", sha).strip()

    # trees and files

    def changed(
        self, base: str, head: str | None, under: str = MEMORY, *, untracked: bool = True
    ) -> list[tuple[str, str]]:
        """(status, path) of files under ``under`` that differ; ``head`` None: the working tree
        (with ``untracked``, untracked files that are not ignored count as added)."""
        args = ["diff", "--no-renames", "--name-status", "-z", base]
        out = self.run(*args, *([head] if head else []), "--", under)
        parts = [p for p in out.split("\0") if p]
        found = [(parts[i][0], parts[i + 1]) for i in range(0, len(parts) - 1, 2)]
        if head is None and untracked:
            found += [("A", path) for path in self.untracked(under)]
        return sorted(set(found), key=lambda pair: pair[1])

    def converts(self, paths: list[str]) -> bool:
        """Whether a file on disk may differ from its blob by more than line endings for any
        of ``paths``: an attribute names a ``filter``, ``ident`` or ``working-tree-encoding``
        (True when git cannot say)."""
        import subprocess

        if not paths:
            return False
        names = "".join(f"{path}\0" for path in paths).encode("utf-8", "surrogateescape")
        try:
            done = subprocess.run(
                ["git", "check-attr", "-z", "--stdin", "-a"], cwd=self.root, input=names,
                env=gitlayer.environment(), capture_output=True, check=False,
            )  # fmt: skip
        except OSError:
            return True
        if done.returncode != 0:
            return True
        if not any(f"\0{name}\0".encode() in done.stdout for name in CONVERTING):
            return False  # the usual case: no such attribute (one C search each)
        parts = done.stdout.decode("utf-8", "replace").split("\0")
        found = set(zip(parts[1::3], parts[2::3], strict=False))  # (attribute, value)
        return any(name in CONVERTING and value != "unset" for name, value in found)

    def index_only(self, under: str = MEMORY) -> set[str] | None:
        """Tracked files under ``under`` that git does not read from disk: skip-worktree
        (sparse checkout) or assume-unchanged; None when git cannot say."""
        out = self.try_run(*index_only_args(under))
        if out is None:
            return None
        return {entry[2:] for entry in out.split("\0") if entry and entry[:2] != "H "}

    def untracked(self, under: str = MEMORY) -> list[str]:
        out = self.run("ls-files", "-z", "--others", "--exclude-standard", "--", under)
        return [p for p in out.split("\0") if p]

    def files(self, under: str = MEMORY) -> list[str]:
        """Files that are or will be committed under ``under``: tracked plus untracked but not
        ignored, as they stand in the working tree."""
        import os

        out = self.run("ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", under)
        root = os.fspath(self.root)
        isfile, join = os.path.isfile, os.path.join  # 16,000 files: no Path object each
        return sorted({p for p in out.split("\0") if p and isfile(join(root, p))})

    def grep_output(
        self, rev: str | None, pattern: str, under: str, *, after: int = 0, untracked: bool = True
    ) -> str:
        """What ``git grep -z -n --heading`` prints of the lines under ``under`` that match
        ``pattern`` (an extended regex) and the ``after`` lines that follow each: each file's
        path on a line (after ``REV:`` for a revision), then its lines as ``NUMBER\\0TEXT``,
        ``--`` lines between groups that are not adjacent. At a revision, or (``rev`` None) in
        the working tree: the files the index tracks as they are on disk, and with
        ``untracked`` the untracked ones too. Empty when git cannot start."""
        return gitlayer.run(self.root, *grep_args(rev, pattern, under, after, untracked)).stdout

    def blob(self, rev: str, path: str) -> str | None:
        """A file's text at a revision; None when it is not there (or not text)."""
        return self.blobs([(rev, path)])[0]

    def blobs(self, wanted: list[tuple[str, str]]) -> list[str | None]:
        """The text of each (revision, path), in order; None where the file is not there, not
        text, or over the untrusted-file size cap.

        A revision's path costs git a walk of its folder's tree, so many files of one folder
        (of 15,000 items) are looked up in one ``ls-tree`` of that folder that names them (the
        tree is read once, and only those entries are printed); the contents then come from
        one ``cat-file --batch`` by object id."""
        from memcli.untrusted import MAX_FILE_BYTES

        objects: dict[tuple[str, str], str] = {}  # (rev, path) -> blob id, for small blobs
        groups: dict[tuple[str, str], list[str]] = {}
        for rev, path in dict.fromkeys(wanted):
            if "\n" not in path and "\r" not in path and "\n" not in rev:
                groups.setdefault((rev, path.rpartition("/")[0]), []).append(path)
        single: list[tuple[str, str]] = []
        for (rev, folder), paths in groups.items():
            if len(paths) < LIST_FOLDER_FROM:
                single += [(rev, path) for path in paths]
                continue
            listing = self.list_folder(rev, folder, paths)
            for path in paths:
                found = listing.get(path)
                if found and found[0] == "blob" and found[2] <= MAX_FILE_BYTES:
                    objects[(rev, path)] = found[1]
        if single:
            checked = self._batch("--batch-check", [f"{r}:{p}" for r, p in single])
            for pair, line in zip(single, checked.split(b"\n")[: len(single)], strict=False):
                fields = line.split()
                if len(fields) == 3 and fields[1] == b"blob" and int(fields[2]) <= MAX_FILE_BYTES:
                    objects[pair] = fields[0].decode()
        ids = list(dict.fromkeys(objects.values()))
        contents = dict(
            zip(ids, _batch_contents(self._batch("--batch", ids), len(ids)), strict=True)
        )
        return [contents.get(objects.get(pair, "")) for pair in wanted]

    def folder_names(self, rev: str, folder: str) -> list[str]:
        """The paths of the entries directly in ``folder`` at a revision (no sizes: git need
        not look at the objects)."""
        out = self.try_run("ls-tree", "-z", "--name-only", "--full-name", rev, "--", f"{folder}/")
        return [path for path in (out or "").split("\0") if path]

    def list_folder(
        self, rev: str, folder: str, paths: list[str] | None = None
    ) -> dict[str, tuple[str, str, int]]:
        """path -> (type, object id, size) of the entries of one folder at a revision; with
        ``paths``, of those entries only (git reads the folder's tree once, and the sizes of
        those files only)."""
        if paths is None:
            return self._ls_tree(rev, [f"{folder}/"])
        listing: dict[str, tuple[str, str, int]] = {}
        for start in range(0, len(paths), LS_TREE_PATHS):
            chunk = paths[start : start + LS_TREE_PATHS]
            listing.update(self._ls_tree(rev, [f":(literal){path}" for path in chunk]))
        return listing

    def _ls_tree(self, rev: str, pathspecs: list[str]) -> dict[str, tuple[str, str, int]]:
        out = self.try_run("ls-tree", "-z", "-l", "--full-name", rev, "--", *pathspecs) or ""
        listing: dict[str, tuple[str, str, int]] = {}
        for entry in out.split("\0"):
            meta, tab, path = entry.partition("\t")
            fields = meta.split()
            if tab and len(fields) == 4:
                size = int(fields[3]) if fields[3].isdigit() else 0
                listing[path] = (fields[1], fields[2], size)
        return listing

    def _batch(self, mode: str, names: list[str]) -> bytes:
        import subprocess

        if not names:
            return b""
        stdin = "".join(f"{name}\n" for name in names).encode("utf-8", "surrogateescape")
        done = subprocess.run(
            ["git", "cat-file", mode], cwd=self.root, input=stdin, capture_output=True, check=False
        )
        if done.returncode != 0:
            line = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise MemError(f"git cat-file: {line[0] if line else 'failed'}")
        return done.stdout

    # history

    def log_file(self, path: str) -> list[Commit]:
        """The commits that touched ``path``, newest first, following renames."""
        fmt = "%x1e%H%x1f%an%x1f%aI%x1f%s"
        out = self.try_run("log", "--follow", "-M", "--name-status", f"--format={fmt}", "--", path)
        commits: list[Commit] = []
        for record in (out or "").split("\x1e"):
            if not record.strip():
                continue
            header, _, rest = record.partition("\n")
            sha, author, date, subject = (header.split("\x1f") + ["", "", "", ""])[:4]
            status, where = "M", path
            for line in rest.splitlines():
                fields = line.split("\t")
                if len(fields) >= 2 and fields[0]:
                    status, where = fields[0][0], fields[-1]
            commits.append(Commit(sha, author, date, subject, status, where))
        return commits

    def last_commit(self, path: str) -> str | None:
        out = self.try_run("log", "-1", "--format=%H", "--", path)
        return out.strip() if out and out.strip() else None

    def changed_since(self, sha: str) -> list[str]:
        """Paths that changed after commit ``sha``: later commits and the working tree."""
        out = self.run("diff", "--no-renames", "--name-only", "-z", sha)
        found = {p for p in out.split("\0") if p}
        untracked = self.run("ls-files", "-z", "--others", "--exclude-standard")
        found.update(p for p in untracked.split("\0") if p)
        return sorted(found)

    def renamed_to(self, path: str) -> str | None:
        """Where a file that is gone went: follows renames forward through history (and a
        rename staged in the index); None when it was deleted or never committed."""
        staged = self.try_run("diff", "--cached", "-M", "--name-status", "-z", "HEAD")
        parts = [p for p in (staged or "").split("\0") if p]
        i = 0
        while i < len(parts):
            step = 3 if parts[i][:1] in ("R", "C") else 2
            if parts[i].startswith("R") and i + 2 < len(parts) and parts[i + 1] == path:
                return parts[i + 2]
            i += step
        current, seen = path, {path}
        while True:
            gone = self.try_run(
                "log", "-1", "--format=%H", "--diff-filter=D", "HEAD", "--", current
            )
            if not gone or not gone.strip():
                return current if current != path else None
            sha = gone.strip()
            out = self.try_run("diff-tree", "-r", "-M", "--name-status", "-z", f"{sha}^", sha)
            parts = [p for p in (out or "").split("\0") if p]
            target = None
            i = 0
            while i < len(parts):
                step = 3 if parts[i][:1] in ("R", "C") else 2
                if parts[i].startswith("R") and i + 2 < len(parts) and parts[i + 1] == current:
                    target = parts[i + 2]
                i += step
            if target is None or target in seen:
                return None
            seen.add(target)
            current = target
            if (self.root / current).exists():
                return current

    # configuration and merging

    def config_get(self, key: str) -> str | None:
        out = self.try_run("config", "--local", "--get", key)
        return out.strip() if out else None

    def config_set(self, key: str, value: str) -> None:
        self.run("config", "--local", key, value)


def index_only_args(under: str) -> list[str]:
    """The arguments of the ``git ls-files`` of :meth:`GitRepo.index_only`."""
    return ["ls-files", "-v", "-z", "--", under]


def grep_args(
    rev: str | None, pattern: str, under: str, after: int = 0, untracked: bool = True
) -> list[str]:
    """The arguments of the ``git grep`` of :meth:`GitRepo.grep_output`."""
    # one thread: a revision's blobs are read one at a time under git's object lock, so
    # more threads only wait for it (15,000 items: 0.13 s with one thread, 0.22 s with
    # git's default); files on disk took 0.09 s of CPU with one thread, 0.10 to 0.12 s
    # with 2 to 8 and no less wall time on a 2-core machine with other work running
    where = [rev] if rev else ["--untracked"] if untracked else []
    context = [f"-A{after}"] if after else []
    # the line format must not follow the user's settings (grep.column, color.ui=always)
    args = ["-c", "grep.column=false", "grep", "--no-color", "-z", "-n"]
    args += ["--heading", "--threads=1", "-I", "-E", *context, "-e", pattern]
    return [*args, *where, "--", under]


def _batch_contents(out: bytes, count: int) -> list[str | None]:
    """The texts of ``git cat-file --batch`` output for ``count`` names (each a header line
    ``SHA TYPE SIZE`` and the content, or ``NAME missing``)."""
    texts: list[str | None] = []
    at = 0
    for _ in range(count):
        end = out.find(b"\n", at)
        if end < 0:
            texts.append(None)
            continue
        fields = out[at:end].split()
        at = end + 1
        if len(fields) != 3 or not fields[2].isdigit():
            texts.append(None)  # missing, ambiguous: a header line only
            continue
        size = int(fields[2])
        data, at = out[at : at + size], at + size + 1
        try:
            texts.append(data.decode("utf-8") if fields[1] == b"blob" else None)
        except UnicodeDecodeError:
            texts.append(None)
    return texts


def merge_file(
    ours: Path, base: Path, theirs: Path, labels: tuple[str, str, str], marker_size: int = 7
) -> tuple[str, bool]:
    """git's own line-based three-way merge of three files: (merged text, had conflicts)."""
    args = ["merge-file", "-p", f"--marker-size={marker_size}"]
    for label in labels:
        args += ["-L", label]
    result = gitlayer.run(ours.parent, *args, str(ours), str(base), str(theirs))
    if result.status < 0 or result.status > 127:
        raise MemError("git merge-file failed")
    return result.stdout, result.status != 0
