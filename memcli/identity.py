"""The project identity that travels with the repository.

Items are filed under ``scope.project``. Taken from the remote URL, the identity differed
between a repository and its forks, and between clones made before and after a remote was
added, so their memory was invisible to each other. Instead `mem init` writes a generated
identity once into the committed ``.memory/config.yaml``; every clone and fork reads the same
one. A store made before this adopts an identity on its next write (with a note saying to
commit the config) and records the identities its items were written under as
``scope.aliases``, so they stay visible. The remote URL remains only a hint: an alias, and the
way the user-level store tells projects apart.
"""

from __future__ import annotations

import json
import secrets
from typing import TYPE_CHECKING, Any

from memcli import atomic, scope

if TYPE_CHECKING:
    from memcli.api import Memory

PREFIX = "proj-"
_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"


def new_identity() -> str:
    """A fresh identity such as ``proj-k3m9x2c8q7wd``: random, so no two projects share one."""
    return PREFIX + "".join(secrets.choice(_ALPHABET) for _ in range(12))


def configured(settings: dict[str, Any]) -> str | None:
    value = (settings.get("scope") or {}).get("project")
    return str(value) if value else None


def adopt(memory: Memory) -> str | None:
    """Give a store without an identity one, in its committed config; None when it has one.

    The identities the store's items were written under (the remote URL, the root commit, a
    folder before the first commit) become ``scope.aliases``, so they stay this project's.
    Returns the note to show.
    """
    if configured(memory.settings()):
        return None
    paths = memory.paths
    if not paths.config.is_file() or paths.config.is_symlink():
        return None
    identity = new_identity()
    old = set(scope.aliases(paths.root, paths.scope_cache))
    resolved = scope.project_id(paths.root, paths.scope_cache)
    if resolved:
        old.add(resolved)
    items, _problems = memory.store.load_all()
    old.update(str(i.scope.get("project")) for i in items if i.scope.get("project"))
    aliases = sorted(a for a in old if a and not a.startswith("path:") or _used(a, items))
    write(memory, identity, aliases)
    shown = memory.store.display(paths.config)
    return (
        f"this store now has a project identity, {identity} (scope.project in {shown}); "
        f"commit {shown} so that every clone and fork finds the same memory"
    )


def _used(alias: str, items: list[Any]) -> bool:
    return any(i.scope.get("project") == alias for i in items)


def write(memory: Memory, identity: str, aliases: list[str]) -> None:
    """Set ``scope.project`` (and ``scope.aliases``) in config.yaml. Only those lines change:
    the file is the team's, with their comments and spelling (a YAML dump would rewrite
    ``null`` as an empty value, say)."""
    from memcli import untrusted, yamlio
    from memcli.errors import MemError

    paths = memory.paths
    doc, problem = yamlio.read(paths.config)
    if problem is not None or doc is None:
        raise MemError(str(problem))
    lines = untrusted.read_text(paths.config).splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    data = doc.plain() if isinstance(doc.plain(), dict) else {}
    block = data.get("scope")
    listed = "[" + ", ".join(json.dumps(a) for a in aliases) + "]"
    if not isinstance(block, dict):
        if "scope" in data:  # `scope:` with nothing under it
            del lines[doc.line_of("scope") - 1]
        lines.append(f"scope:\n  project: {identity}\n")
        if aliases:
            lines.append(f"  aliases: {listed}\n")
    else:
        start = doc.line_of("scope")
        indent = "  "
        if "project" in block:
            at = doc.line_of_path(("scope", "project")) - 1
            indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
            lines[at] = f"{indent}project: {identity}\n"
        else:
            at = start - 1
            lines.insert(at + 1, f"{indent}project: {identity}\n")
            at += 1
        if aliases:
            if "aliases" in block and _one_line(block.get("aliases")):
                where = doc.line_of_path(("scope", "aliases")) - 1
                lines[where] = f"{indent}aliases: {listed}\n"
            elif "aliases" not in block:
                lines.insert(at + 1, f"{indent}aliases: {listed}\n")
    text = "".join(lines)
    check, problem = yamlio.parse(text, str(paths.config))
    written = (check.plain() or {}).get("scope") if check is not None and not problem else None
    if not isinstance(written, dict) or written.get("project") != identity:
        raise MemError(f"{memory.store.display(paths.config)}: cannot set scope.project here")
    atomic.write_text(paths.config, text)
    memory.forget_settings()


def _one_line(value: Any) -> bool:
    """An aliases value written on its key's line (``[]``, ``[a, b]`` or null)."""
    return value is None or (isinstance(value, list) and not value)
