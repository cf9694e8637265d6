"""The identity of the project and branch a memory belongs to.

The project comes from the normalised URL of the git remote (``origin`` first) or, without a
remote, from the repository's root commit; never from a folder's base name, which two
unrelated checkouts can share. Git's files are read directly (:mod:`memcli.gitfiles`), so
`mem capture` resolves scope without starting git; only the root-commit fallback runs git, through
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
        # No git here: this runs on every query. Items written before the remote was added
        # carry the root identity, which was cached when it was computed (see aliases()).
        return normalize_remote(url)
    first = root_identity(root_text, cache, allow_git=allow_git)
    if first:
        return first
    if not allow_git:
        return None
    # No commit yet: nothing stable to name the project by except where it is, which at
    # least never merges two checkouts that merely share a folder name.
    return f"path:{os.path.realpath(root_text)}"


def root_identity(
    root: str | os.PathLike[str], cache: str | os.PathLike[str], *, allow_git: bool = True
) -> str | None:
    """``root:<sha>`` of the first commit, from the cache under ``local/`` or from git."""
    cached = _read_cache(os.fspath(cache))
    if cached or not allow_git:
        return cached
    from pathlib import Path

    from memcli import gitlayer

    first = gitlayer.root_commit(Path(os.fspath(root)))
    if first is None:
        return None
    identity = f"root:{first[:12]}"
    if os.path.isdir(os.path.dirname(os.fspath(cache))):
        from memcli.atomic import write_text

        try:
            write_text(Path(os.fspath(cache)), f'{{"root": "{identity}"}}\n')
        except OSError:
            pass  # a read-only local/: asked again next time
    return identity


def aliases(root: str | os.PathLike[str], cache: str | os.PathLike[str]) -> frozenset[str]:
    """Every identity this repository has had: its remote, its first commit, its folder.

    Items keep the identity they were written under; a repository that gets its first commit
    or a remote later must still find them. No git call: the root commit comes from the cache.
    """
    root_text = os.fspath(root)
    names = {f"path:{os.path.realpath(root_text)}"}
    url = remote_url(root_text)
    if url:
        names.add(normalize_remote(url))
    first = _read_cache(os.fspath(cache))
    if first:
        names.add(first)
    return frozenset(names)


def _read_cache(path: str) -> str | None:
    from memcli import untrusted
    from memcli.fastparse import fastjson

    raw = untrusted.read_private(path)
    try:
        data = fastjson.loads(raw.decode("utf-8")) if raw else None
    except ValueError:
        return None
    if isinstance(data, dict):
        for key in ("root", "project"):  # "project": the name of the key before 0.1.0
            if isinstance(data.get(key), str) and str(data[key]).startswith("root:"):
                return str(data[key])
    return None


def resolve(
    root: str | os.PathLike[str], cache: str | os.PathLike[str], *, allow_git: bool = True
) -> dict[str, str | None]:
    """``{"project": ..., "branch": ...}`` for the repository at ``root``."""
    return {
        "project": project_id(root, cache, allow_git=allow_git),
        "branch": current_branch(os.fspath(root)),
    }
