"""The one module that talks to git through gitpython, imported lazily by its callers.

`mem --help` and the hook commands never import it (tests assert that).
"""

from __future__ import annotations

from pathlib import Path


def _repo(root: Path):  # type: ignore[no-untyped-def]
    import git

    return git.Repo(root)


def root_commit(root: Path) -> str | None:
    """The sha of the root commit (the smallest if there are several); None without commits."""
    import git

    try:
        repo = _repo(root)
        shas = repo.git.rev_list("--max-parents=0", "HEAD").split()
    except (git.GitCommandError, git.InvalidGitRepositoryError, ValueError):
        return None
    return sorted(shas)[0] if shas else None


def is_tracked(root: Path, path: Path) -> bool:
    """Whether git history holds ``path`` (so deleting the file does not erase its text)."""
    import git

    try:
        repo = _repo(root)
        out = repo.git.log("--all", "--format=%H", "-1", "--", str(path.relative_to(root)))
    except (git.GitCommandError, git.InvalidGitRepositoryError, ValueError):
        return False
    return bool(out.strip())


def tracked_under(root: Path, folder: Path) -> list[str]:
    """The files git tracks under ``folder`` (repo-relative paths); [] when git cannot say."""
    import git

    try:
        repo = _repo(root)
        out = repo.git.ls_files("-z", "--", str(folder.relative_to(root)))
    except (git.GitCommandError, git.InvalidGitRepositoryError, ValueError):
        return []
    return [name for name in out.split("\0") if name]
