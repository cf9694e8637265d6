"""The user's own settings, outside every repository: the only place a command may come from.

A repository's ``.memory/config.yaml`` is committed, so it arrives from strangers in every
clone and pull request (see docs/security.md). Settings that name a command to run (the
optional summarizer) are therefore read from here only: ``$MEM_CONFIG`` when set, else
``$XDG_CONFIG_HOME/mem/config.yaml``, else ``~/.config/mem/config.yaml``. A missing file means
the defaults.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

from memcli import config
from memcli.errors import MemError

USER_DEFAULTS: dict[str, dict[str, Any]] = {
    "compact": {"summarizer": None, "timeout_seconds": 120, "summarizer_max_chars": 60_000},
}


def path() -> Path:
    configured = os.environ.get("MEM_CONFIG")
    if configured:
        return Path(configured).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "mem" / "config.yaml"


def load() -> dict[str, Any]:
    """The user's settings over :data:`USER_DEFAULTS`; a broken file is a MemError naming it."""
    from memcli import yamlread

    file = path()
    if not file.is_file():
        return copy.deepcopy(USER_DEFAULTS)
    doc, problem = yamlread.read(file)
    if problem is not None:
        raise MemError(str(problem))
    assert doc is not None
    data = doc.plain() or {}
    if not isinstance(data, dict):
        raise MemError(f"{file}:1: expected a mapping of settings")
    return config.merge(USER_DEFAULTS, data, str(file), doc.line_of_path)
