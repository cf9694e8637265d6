"""Settings from ``.memory/config.yaml``, merged over the defaults.

Every setting is documented in the template's ``config.yaml``. Loading also refreshes
``local/config.json``, a plain-JSON copy that `mem capture` reads so that the hook path never
imports the YAML library. The copy is refreshed by any other mem command, including the
SessionStart hook (`mem index`), so an edit reaches capture by the next session at the latest.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from memcli.defaults import DEFAULTS
from memcli.errors import MemError
from memcli.itemcheck import Problem
from memcli.paths import StorePaths

# Settings a committed config may not carry: each names a command to run. They are read
# from the user's own config only (memcli.userconfig).
COMMAND_SETTINGS: tuple[tuple[str, str], ...] = (("compact", "summarizer"),)


def merge(
    defaults: dict[str, Any],
    overrides: dict[str, Any],
    where: str,
    line_of: Callable[[tuple[str, ...]], int] = lambda _keys: 1,
    prefix: tuple[str, ...] = (),
) -> dict[str, Any]:
    """``overrides`` over ``defaults``; an unknown key or a value of the wrong type is a
    MemError naming ``where`` (the file), the line and the setting."""
    merged = copy.deepcopy(defaults)
    for key, value in overrides.items():
        keys = (*prefix, str(key))
        name = ".".join(keys)

        def fail(problem: str, keys: tuple[str, ...] = keys, name: str = name) -> MemError:
            return MemError(f"{where}:{line_of(keys)}: {name}: {problem}")

        if key not in defaults:
            raise fail("unknown setting")
        default = defaults[key]
        if isinstance(default, dict):
            if value is None:
                continue
            if not isinstance(value, dict):
                raise fail("must be a mapping")
            merged[key] = merge(default, value, where, line_of, keys)
            continue
        problem = _type_problem(default, value)
        if problem:
            raise fail(problem)
        merged[key] = value
    return merged


def _type_problem(default: Any, value: Any) -> str:
    """Why ``value`` cannot stand where ``default`` stands; empty when it can."""
    if isinstance(default, bool):
        return "" if isinstance(value, bool) else "must be true or false"
    if isinstance(default, int | float):
        ok = isinstance(value, int | float) and not isinstance(value, bool) and value > 0
        return "" if ok else "must be a number above 0"
    if isinstance(default, list):
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        return "" if ok else "must be a list of text"
    if default is None or isinstance(default, str):
        return "" if value is None or isinstance(value, str) else "must be text or null"
    return ""


def load(paths: StorePaths) -> dict[str, Any]:
    """The effective settings; a broken config.yaml is a MemError naming file and line."""
    if not paths.config.is_file():
        settings = copy.deepcopy(DEFAULTS)
    else:
        from memcli import yamlread

        doc, problem = yamlread.read(paths.config)
        if problem is not None:
            raise MemError(str(problem))
        assert doc is not None
        data = doc.plain() or {}
        if not isinstance(data, dict):
            raise MemError(f"{paths.config}:1: expected a mapping of settings")
        settings = merge(DEFAULTS, data, _display(paths), doc.line_of_path)
        if settings["checkpoint"]["mode"] not in (None, "ask", "off"):
            line = doc.line_of_path(("checkpoint", "mode"))
            raise MemError(f"{_display(paths)}:{line}: checkpoint.mode: must be ask, off or null")
        # A committed config never names a command; the user's own config does (userconfig).
        for section, key in COMMAND_SETTINGS:
            settings[section][key] = None
    _refresh_cache(paths, settings)
    return settings


def untrusted_settings(paths: StorePaths) -> list[Problem]:
    """Settings in the committed config.yaml that name a command: mem ignores them, and
    `mem lint` and `mem prune --check` fail on them (a stranger's pull request may add one)."""
    if not paths.config.is_file():
        return []
    from memcli import yamlread

    doc, problem = yamlread.read(paths.config)
    if doc is None or problem is not None:
        return []  # reported by load()
    data = doc.plain()
    if not isinstance(data, dict):
        return []
    problems = []
    for section, key in COMMAND_SETTINGS:
        block = data.get(section)
        if isinstance(block, dict) and block.get(key) not in (None, ""):
            problems.append(
                Problem(
                    _display(paths),
                    doc.line_of_path((section, key)),
                    f"{section}.{key}",
                    "a committed config may not name a command (ignored); set it in your "
                    "user config ($MEM_CONFIG or ~/.config/mem/config.yaml) instead",
                )
            )
    return problems + _pattern_problems(paths, data, doc)


def _pattern_problems(paths: StorePaths, data: dict[str, Any], doc: Any) -> list[Problem]:
    """redaction.extra_patterns that mem refuses to run (no time bound could be kept)."""
    from memcli.privacy import user_patterns

    block = data.get("redaction")
    patterns = block.get("extra_patterns") if isinstance(block, dict) else None
    if not isinstance(patterns, list):
        return []
    found = []
    for number, pattern in enumerate(patterns):
        reason = user_patterns.problem(pattern)
        if reason is not None:
            field = f"redaction.extra_patterns[{number}]"
            line = doc.line_of_path(("redaction", "extra_patterns", number))
            found.append(Problem(_display(paths), line, field, f"ignored: {reason}"))
    return found


def _display(paths: StorePaths) -> str:
    try:
        return str(paths.config.relative_to(paths.root))
    except ValueError:
        return str(paths.config)


def _refresh_cache(paths: StorePaths, settings: dict[str, Any]) -> None:
    if not paths.memory.is_dir():
        return
    text = json.dumps(settings, sort_keys=True) + "\n"
    from memcli import untrusted

    if untrusted.read_private(paths.config_cache) == text.encode("utf-8"):
        return  # unchanged, and written by mem (a committed copy is replaced)
    from memcli.atomic import write_text

    try:
        write_text(paths.config_cache, text)
    except OSError:
        pass  # a read-only checkout still works; capture falls back to the defaults
