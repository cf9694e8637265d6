"""The identity of the project and branch a memory belongs to.

The project comes from the normalised URL of the git remote (``origin`` first) or, without a
remote, from the repository's root commit; never from a folder's base name, which two
unrelated checkouts can share. Git's files are read directly (:mod:`memcli.gitfiles`), so
`mem capture` resolves scope without gitpython; only the root-commit fallback asks git, through
:mod:`memcli.gitlayer`, and its answer is cached under ``local/``.
"""

from __future__ import annotations

import os

from memcli.gitfiles import current_branch, normalize_remote, remote_url


def project_id(
    root: str | os.PathLike[str], cache: str | os.PathLike[str], *, allow_git: bool = True
) -> str | None:
    """The project's identity; None only when finding it would need git and git is barred."""
    root_text = os.fspath(root)
    url = remote_url(root_text)
    if url:
        return normalize_remote(url)
    cached = _read_cache(os.fspath(cache))
    if cached:
        return cached
    if not allow_git:
        return None
    from pathlib import Path

    from memcli import gitlayer

    first = gitlayer.root_commit(Path(root_text))
    if first is None:
        # No commit yet: nothing stable to name the project by except where it is, which at
        # least never merges two checkouts that merely share a folder name. Not cached.
        return f"path:{os.path.realpath(root_text)}"
    project = f"root:{first[:12]}"
    if os.path.isdir(os.path.dirname(os.fspath(cache))):
        from memcli.atomic import write_text

        write_text(Path(os.fspath(cache)), f'{{"project": "{project}"}}\n')
    return project


def _read_cache(path: str) -> str | None:
    from memcli.capture import fastjson

    try:
        with open(path, encoding="utf-8") as handle:
            data = fastjson.loads(handle.read())
    except (OSError, ValueError):
        return None
    if isinstance(data, dict) and isinstance(data.get("project"), str):
        return str(data["project"])
    return None


def resolve(
    root: str | os.PathLike[str], cache: str | os.PathLike[str], *, allow_git: bool = True
) -> dict[str, str | None]:
    """``{"project": ..., "branch": ...}`` for the repository at ``root``."""
    return {
        "project": project_id(root, cache, allow_git=allow_git),
        "branch": current_branch(os.fspath(root)),
    }
