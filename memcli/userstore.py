"""The opt-in user-level store: conventions that hold across all of a person's projects.

It lives outside every repository (``$MEM_USER_HOME``, else ``$XDG_DATA_HOME/mem``, else
``~/.local/share/mem``) with the same layout as a project's ``.memory/``, and its items are
filed under the project ``user``. A repository sees it only when its ``config.yaml`` says
``scope.user_store: true``: memory never crosses projects unless the user opts in.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from memcli.paths import StorePaths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memcli.retrieval.search import SearchOutcome

PROJECT = "user"


def home() -> Path:
    configured = os.environ.get("MEM_USER_HOME")
    if configured:
        return Path(configured).expanduser()
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "share"
    )
    return Path(data) / "mem"


def exists() -> bool:
    return StorePaths(home()).memory.is_dir()


def init() -> list[Path]:
    """Create the user store (idempotent); its config files everything under ``user``."""
    from memcli import atomic, template

    paths = StorePaths(home())
    created = template.copy_missing(paths.memory)
    paths.local.mkdir(mode=0o700, parents=True, exist_ok=True)
    if paths.config in created:
        text = paths.config.read_text(encoding="utf-8")
        atomic.write_text(paths.config, text.replace("  project: null", f"  project: {PROJECT}", 1))
    if not paths.scope_cache.exists():
        # Not a git repository: name it here so that nothing ever asks git about it.
        atomic.write_text(paths.scope_cache, json.dumps({"root": f"root:{PROJECT}"}) + "\n")
    return created


def enabled(settings: dict[str, object]) -> bool:
    scope = settings.get("scope")
    return isinstance(scope, dict) and bool(scope.get("user_store")) and exists()


def merge_hits(
    root: Path,
    outcome: SearchOutcome,
    query: str,
    limit: int,
    *,
    kind: str | None = None,
    project: str | None = None,
    record: bool = True,
) -> None:
    """Fold the user-level store's hits into ``outcome`` (a search of the repository at
    ``root``) when that repository opted in and no other project was asked for.

    One home for the merge: `mem search`, :meth:`memcli.api.Memory.search` and the MCP
    server's ``memory_search`` all call it, so the three see the same items.
    """
    from memcli.retrieval import context
    from memcli.retrieval.search import search_outcome

    if project is not None or not enabled(context.load_settings(StorePaths(root))):
        return
    extra = search_outcome(home(), query, limit, kind=kind, all_projects=True, record=record)
    merged = sorted([*outcome.results, *extra.results], key=lambda r: -r.score)
    outcome.results = merged[:limit]
    outcome.candidates += extra.candidates
