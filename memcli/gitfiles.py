"""Facts read straight from git's own files: the repository root, HEAD, the remotes.

Standard library only, no :mod:`re` and no :mod:`pathlib`: `mem capture` resolves its scope
here on every hook call, where even those imports are a measurable share of the budget.
"""

import os


def find_repo_root(start: str) -> str | None:
    """The nearest folder at or above ``start`` holding ``.git`` (a folder, or a worktree file)."""
    here = os.path.abspath(start)
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def git_dir(root: str) -> str | None:
    """The real git directory of a repository root, following a worktree's ``.git`` file."""
    dot_git = os.path.join(root, ".git")
    if os.path.isdir(dot_git):
        return dot_git
    try:
        with open(dot_git, encoding="utf-8", errors="replace") as handle:
            text = handle.read().strip()
    except OSError:
        return None
    if text.startswith("gitdir:"):
        return os.path.normpath(os.path.join(root, text[len("gitdir:") :].strip()))
    return None


def current_branch(root: str) -> str | None:
    """The checked-out branch from ``HEAD``, or None when HEAD is detached."""
    gdir = git_dir(root)
    if gdir is None:
        return None
    try:
        with open(os.path.join(gdir, "HEAD"), encoding="utf-8", errors="replace") as handle:
            head = handle.read().strip()
    except OSError:
        return None
    prefix = "ref: refs/heads/"
    return head[len(prefix) :] if head.startswith(prefix) else None


def remote_url(root: str) -> str | None:
    """The URL of remote ``origin``, or else of the first remote in the git config."""
    gdir = git_dir(root)
    if gdir is None:
        return None
    config = os.path.join(gdir, "config")
    commondir = os.path.join(gdir, "commondir")
    if not os.path.isfile(config) and os.path.isfile(commondir):
        with open(commondir, encoding="utf-8", errors="replace") as handle:
            config = os.path.join(gdir, handle.read().strip(), "config")
    try:
        with open(config, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    urls: dict[str, str] = {}
    current: str | None = None
    for raw in lines:
        line = raw.strip()
        if line.startswith("["):
            current = _remote_name(line)
        elif current is not None and current not in urls:
            key, sep, value = line.partition("=")
            if sep and key.strip().lower() == "url":
                urls[current] = value.strip().strip('"')
    if "origin" in urls:
        return urls["origin"]
    return next(iter(urls.values()), None)


def _remote_name(header: str) -> str | None:
    """``origin`` from a section header such as ``[remote "origin"]``; None for others."""
    inner = header.strip("[] ")
    kind, _, name = inner.partition(" ")
    if kind.lower() != "remote":
        return None
    return name.strip().strip('"') or None


def normalize_remote(url: str) -> str:
    """A stable project name from a remote URL: ``host/path`` in lower case, no user, no ``.git``.

    ``git@github.com:Org/Repo.git``, ``https://tok@github.com/org/repo`` and
    ``ssh://git@github.com:22/org/repo.git/`` all give ``github.com/org/repo``.
    """
    text = url.strip()
    scheme, sep, rest = text.partition("://")
    if sep and scheme and all(c.isalnum() or c in "+.-" for c in scheme):
        if scheme.lower() == "file":
            host, path = "", rest
        else:
            authority, _, path = rest.partition("/")
            host = authority.rsplit("@", 1)[-1].split(":", 1)[0]
    else:
        before, colon, after = text.partition(":")
        # scp-like syntax (user@host:path) has no slash before its colon; a path has.
        if colon and "/" not in before and not after.startswith("/") and len(before) > 1:
            host, path = before.rsplit("@", 1)[-1], after
        else:
            host, path = "", text
    path = path.strip("/")
    if path.endswith(".git"):
        path = path[: -len(".git")]
    name = f"{host}/{path}" if host else path
    return name.lower().rstrip("/")
