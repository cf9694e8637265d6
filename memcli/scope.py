"""The identity of the project and branch a memory belongs to.

The project comes from the normalised URL of the git remote (``origin`` first) or, without a
remote, from the repository's root commit; never from a folder's base name, which two
unrelated checkouts can share. This module reads git's files directly so that `mem capture`
resolves scope without gitpython; only the root-commit fallback asks git (through
:mod:`memcli.gitlayer`), and its answer is cached under ``local/``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from memcli.paths import StorePaths, git_dir

_SECTION = re.compile(r'^\s*\[\s*remote\s+"([^"]+)"\s*\]')
_URL = re.compile(r"^\s*url\s*=\s*(.+?)\s*$")
_SCP_LIKE = re.compile(r"^(?:[^@/]+@)?([^:/]+):(?!/)(.+)$")  # git@host:org/repo.git


def normalize_remote(url: str) -> str:
    """A stable project name from a remote URL: ``host/path`` in lower case, no user, no ``.git``.

    ``git@github.com:Org/Repo.git``, ``https://tok@github.com/org/repo`` and
    ``ssh://git@github.com:22/org/repo.git/`` all give ``github.com/org/repo``.
    """
    text = url.strip()
    match = re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://", text)
    if match:
        rest = text[match.end() :]
        if match.group(0).lower() == "file://":
            host, path = "", rest
        else:
            authority, _, path = rest.partition("/")
            host = authority.rsplit("@", 1)[-1].split(":", 1)[0]
    else:
        scp = _SCP_LIKE.match(text)
        host, path = (scp.group(1), scp.group(2)) if scp else ("", text)
    path = path.strip("/")
    if path.endswith(".git"):
        path = path[: -len(".git")]
    name = f"{host}/{path}" if host else path
    return name.lower().rstrip("/")


def remote_url(root: Path) -> str | None:
    """The URL of remote ``origin``, or of the first remote listed, from ``.git/config``."""
    gdir = git_dir(root)
    if gdir is None:
        return None
    config = gdir / "config"
    if not config.is_file() and (gdir / "commondir").is_file():
        common = (gdir / (gdir / "commondir").read_text().strip()).resolve()
        config = common / "config"
    try:
        lines = config.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    urls: dict[str, str] = {}
    current: str | None = None
    for line in lines:
        section = _SECTION.match(line)
        if section:
            current = section.group(1)
            continue
        if line.lstrip().startswith("["):
            current = None
            continue
        url = _URL.match(line)
        if current and url and current not in urls:
            urls[current] = url.group(1).strip('"')
    if "origin" in urls:
        return urls["origin"]
    return next(iter(urls.values()), None)


def current_branch(root: Path) -> str | None:
    """The checked-out branch from ``HEAD``, or None when HEAD is detached."""
    gdir = git_dir(root)
    if gdir is None:
        return None
    try:
        head = (gdir / "HEAD").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    prefix = "ref: refs/heads/"
    return head[len(prefix) :] if head.startswith(prefix) else None


def project_id(root: Path, paths: StorePaths, *, allow_git: bool = True) -> str | None:
    """The project's identity; None only when it cannot be found without git and git is barred."""
    url = remote_url(root)
    if url:
        return normalize_remote(url)
    try:
        cached = json.loads(paths.scope_cache.read_text(encoding="utf-8"))
        if isinstance(cached, dict) and isinstance(cached.get("project"), str):
            return str(cached["project"])
    except (OSError, ValueError):
        pass
    if not allow_git:
        return None
    from memcli import gitlayer

    root_commit = gitlayer.root_commit(root)
    # A repository without commits has nothing stable yet: fall back to its absolute path,
    # which at least never merges two checkouts that merely share a folder name.
    project = f"root:{root_commit[:12]}" if root_commit else f"path:{root.resolve()}"
    if root_commit and paths.local.is_dir():
        from memcli.atomic import write_text

        write_text(paths.scope_cache, json.dumps({"project": project}) + "\n")
    return project


def resolve(root: Path, paths: StorePaths, *, allow_git: bool = True) -> dict[str, str | None]:
    """``{"project": ..., "branch": ...}`` for the repository at ``root``."""
    return {
        "project": project_id(root, paths, allow_git=allow_git),
        "branch": current_branch(root),
    }
