"""What `mem lint` and `mem prune --check` report about the layout of ``.memory/`` itself.

Committed paths are untrusted input (docs/security.md): a symlink where mem expects a file or a
folder is never followed, and a file committed under the git-ignored ``local/`` (with
``git add -f``) is one mem would otherwise take for its own cache, so each is an error that
names the path. (``items/`` and the item files are checked by the item store.)
"""

from __future__ import annotations

from memcli import untrusted
from memcli.itemcheck import Problem
from memcli.paths import StorePaths

_LINK = "a symlink (mem never follows links under .memory/)"
_TRACKED = (
    "committed under the git-ignored local/ (mem ignores it: local/ holds this clone's own "
    "caches); remove it with git rm --cached"
)


def problems(paths: StorePaths) -> list[Problem]:
    found: list[Problem] = []

    def shown(path: object) -> str:
        text = str(path)
        prefix = str(paths.root) + "/"
        return text[len(prefix) :] if text.startswith(prefix) else text

    for path in (paths.config, paths.sessions, paths.memory / ".gitignore"):
        if untrusted.is_link(path):
            found.append(Problem(shown(path), 1, "(file)", _LINK))
    if paths.sessions.is_dir() and not untrusted.is_link(paths.sessions):
        for path in sorted(paths.sessions.iterdir()):
            if untrusted.is_link(path):
                found.append(Problem(shown(path), 1, "(file)", _LINK))
    from memcli import gitlayer

    for name in gitlayer.tracked_under(paths.root, paths.local):
        found.append(Problem(name, 1, "(file)", _TRACKED))
    return found
