"""Settings from ``.memory/config.yaml``, merged over the defaults.

Every setting is documented in the template's ``config.yaml``. Loading also refreshes
``local/config.json``, a plain-JSON copy that `mem capture` reads so that the hook path never
imports the YAML library. The copy is refreshed by any other mem command, including the
SessionStart hook (`mem index`), so an edit reaches capture by the next session at the latest.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from memcli.defaults import DEFAULTS
from memcli.errors import MemError
from memcli.paths import StorePaths


def merge(defaults: dict[str, Any], overrides: dict[str, Any], where: str) -> dict[str, Any]:
    merged = copy.deepcopy(defaults)
    for key, value in overrides.items():
        if key not in defaults:
            raise MemError(f"{where}: unknown setting {key!r}")
        if isinstance(defaults[key], dict):
            if value is None:
                continue
            if not isinstance(value, dict):
                raise MemError(f"{where}: {key} must be a mapping")
            merged[key] = merge(defaults[key], value, f"{where}: {key}")
        else:
            merged[key] = value
    return merged


def load(paths: StorePaths) -> dict[str, Any]:
    """The effective settings; a broken config.yaml is a MemError naming file and line."""
    if not paths.config.is_file():
        settings = copy.deepcopy(DEFAULTS)
    else:
        from memcli import yamlio

        doc, problem = yamlio.read(paths.config)
        if problem is not None:
            raise MemError(str(problem))
        assert doc is not None
        data = doc.plain() or {}
        if not isinstance(data, dict):
            raise MemError(f"{paths.config}:1: expected a mapping of settings")
        settings = merge(DEFAULTS, data, str(paths.config))
    _refresh_cache(paths, settings)
    return settings


def _refresh_cache(paths: StorePaths, settings: dict[str, Any]) -> None:
    if not paths.memory.is_dir():
        return
    text = json.dumps(settings, sort_keys=True) + "\n"
    try:
        if paths.config_cache.read_text(encoding="utf-8") == text:
            return
    except OSError:
        pass
    from memcli.atomic import write_text

    try:
        write_text(paths.config_cache, text)
    except OSError:
        pass  # a read-only checkout still works; capture falls back to the defaults
