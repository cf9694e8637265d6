"""Install and remove mem's lifecycle hooks in each assistant's settings file.

Every assistant keeps its hooks in a JSON file it shares with other tools and with the user's
own settings, so mem merges into that file and takes out exactly what it put in: a handler is
mem's when its command's first word is `mem`. Nothing else in the file moves; writes are atomic.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memcli import atomic
from memcli.errors import MemError
from memcli.hookspecs import (
    AGENTS as AGENTS,
)
from memcli.hookspecs import (
    FILES,
    FLAT_AGENTS,
    HookSpec,
    check_agent,
    entry_of,
    recall_events,
)
from memcli.hookspecs import (
    SCOPES as SCOPES,
)
from memcli.hookspecs import (
    AgentName as AgentName,
)
from memcli.hookspecs import (
    ScopeName as ScopeName,
)
from memcli.hookspecs import (
    hook_specs as hook_specs,
)
from memcli.hookspecs import (
    mem_hooks as mem_hooks,
)


@dataclass(frozen=True)
class InstallResult:
    """What install or uninstall did to one settings file."""

    path: Path
    added: int
    removed: int
    changed: bool
    deleted: bool = False


@dataclass(frozen=True)
class HookStatus:
    """How far mem's hooks are installed in one settings file."""

    path: Path
    exists: bool
    wanted: int  # handlers mem installs for this agent
    present: int  # of those, how many the file holds exactly
    other: int  # mem handlers in the file that mem would not install (edited or older)

    @property
    def installed(self) -> bool:
        return self.present == self.wanted and self.other == 0


# --- what mem installs ------------------------------------------------------------------


def settings_path(agent: str, scope: str, root: Path, home: Path) -> Path:
    """The settings file holding `agent`'s hooks for `scope` (project: under root)."""
    name = check_agent(agent)
    if scope == "project":
        return root / FILES[name][0]
    if scope == "user":
        return home / FILES[name][1]
    raise MemError(f"unknown scope {scope!r}: choose project or user")


# --- recognising mem's handlers ---------------------------------------------------------


def _handler_commands(handler: object) -> list[str]:
    if not isinstance(handler, dict):
        return []
    values = (handler.get(key) for key in ("command", "bash", "powershell"))
    return [value for value in values if isinstance(value, str)]


def is_mem_command(command: str) -> bool:
    """Whether a hook command runs mem (`mem-hook capture`, `/opt/bin/mem index ...`)."""
    words = command.split()
    if not words:
        return False
    program = words[0].replace("\\", "/").rsplit("/", 1)[-1]
    return program.removesuffix(".exe") in ("mem", "mem-hook")


def is_mem_handler(handler: object) -> bool:
    return any(is_mem_command(command) for command in _handler_commands(handler))


def _subcommand(handler: object) -> str | None:
    for command in _handler_commands(handler):
        if is_mem_command(command):
            return [*command.split(), ""][1]
    return None


# --- reading and writing settings files -------------------------------------------------


def _read(path: Path) -> tuple[dict[str, Any] | None, str]:
    """The parsed file (None when missing) and its text."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None, ""
    except OSError as exc:
        raise MemError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise MemError(f"{path}: not UTF-8 text") from exc
    if not text.strip():
        return {}, text
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MemError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg}") from exc
    if not isinstance(doc, dict):
        raise MemError(f"{path}:1: expected a JSON object at the top level")
    return doc, text


def _indent(text: str) -> int | str:
    """The indentation unit the file already uses (2 spaces when it shows none)."""
    for line in text.splitlines()[1:]:
        body = line.lstrip(" \t")
        if body and len(body) < len(line):
            lead = line[: len(line) - len(body)]
            if lead.startswith("\t"):
                return "\t"
            return min(len(lead), 8)
    return 2


def _write(path: Path, doc: dict[str, Any], indent: int | str) -> None:
    text = json.dumps(doc, indent=indent, ensure_ascii=False) + "\n"
    # A settings file is often a symlink into a dotfiles repository: replace its target.
    target = Path(os.path.realpath(path))
    try:
        mode = target.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o644
    try:
        atomic.write_text(target, text)
        os.chmod(target, mode)
    except OSError as exc:
        raise MemError(f"{path}: cannot write: {exc.strerror or exc}") from exc


def _hooks_table(path: Path, doc: dict[str, Any], create: bool) -> dict[str, Any] | None:
    table = doc.get("hooks")
    if table is None and create:
        table = doc["hooks"] = {}
    if table is not None and not isinstance(table, dict):
        raise MemError(f'{path}: "hooks" is not a JSON object')
    return table


def _walk(agent: str, entries: list[Any]) -> Iterator[tuple[object, object]]:
    """Every handler under one event as (matcher of its group, handler)."""
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        if agent in FLAT_AGENTS:
            yield None, entry
        elif isinstance(entry.get("hooks"), list):
            for handler in entry["hooks"]:
                yield entry.get("matcher"), handler


def _prune(agent: str, entries: list[Any], drop: Callable[[object, object], bool]) -> int:
    """Remove handlers for which `drop(matcher, handler)` is true; groups left empty go too."""
    removed = 0
    kept: list[Any] = []
    for entry in entries:
        if isinstance(entry, dict) and agent in FLAT_AGENTS:
            if drop(None, entry):
                removed += 1
                continue
        elif isinstance(entry, dict) and isinstance(entry.get("hooks"), list):
            handlers = entry["hooks"]
            keep = [handler for handler in handlers if not drop(entry.get("matcher"), handler)]
            if len(keep) < len(handlers):
                removed += len(handlers) - len(keep)
                if not keep:
                    continue
                handlers[:] = keep
        kept.append(entry)
    entries[:] = kept
    return removed


def _sync(agent: str, entries: list[Any], spec: HookSpec) -> tuple[int, int]:
    """Make `entries` hold `spec` once, dropping older forms of the same mem handler."""
    kept = False

    def drop(matcher: object, handler: object) -> bool:
        nonlocal kept
        if not is_mem_handler(handler) or _subcommand(handler) != _subcommand(spec.handler):
            return False
        if not kept and handler == spec.handler and matcher == spec.matcher:
            kept = True
            return False
        return True

    removed = _prune(agent, entries, drop)
    if kept:
        return 0, removed
    entries.append(entry_of(agent, spec))
    return 1, removed


# --- the operations ---------------------------------------------------------------------


def install(
    agent: str, scope: str, root: Path, home: Path, recall: bool = False, program: str = "mem"
) -> InstallResult:
    """Merge mem's hooks into the agent's settings file; a second run changes nothing.

    ``recall`` (the repository's ``recall.enabled``) adds prompt-time recall; without it a
    recall handler mem installed earlier is taken out."""
    path = settings_path(agent, scope, root, home)
    doc, text = _read(path)
    before = copy.deepcopy(doc)
    if doc is None:
        doc = {}
    if agent in FLAT_AGENTS and "version" not in doc:
        doc = {"version": 1, **doc}
    table = _hooks_table(path, doc, create=True)
    assert table is not None
    added = removed = 0
    specs = hook_specs(agent, recall, program)
    wanted = {(spec.event, _subcommand(spec.handler)) for spec in specs}
    for event, entries in list(table.items()):
        if not isinstance(entries, list) or event not in recall_events(agent):
            continue
        gone = _prune(agent, entries, lambda _matcher, handler: _unwanted(handler, wanted))
        removed += gone
        if gone and not entries:
            del table[event]
    for spec in specs:
        entries = table.setdefault(spec.event, [])
        if not isinstance(entries, list):
            raise MemError(f'{path}: "hooks.{spec.event}" is not a JSON list')
        plus, minus = _sync(agent, entries, spec)
        added += plus
        removed += minus
    if doc == before:
        return InstallResult(path, 0, 0, changed=False)
    _write(path, doc, _indent(text))
    return InstallResult(path, added, removed, changed=True)


def uninstall(agent: str, scope: str, root: Path, home: Path) -> InstallResult:
    """Remove mem's own handlers (and the groups and events they leave empty)."""
    path = settings_path(agent, scope, root, home)
    doc, text = _read(path)
    table = _hooks_table(path, doc, create=False) if doc is not None else None
    if doc is None or table is None:
        return InstallResult(path, 0, 0, changed=False)
    removed = 0
    for event, entries in list(table.items()):
        if not isinstance(entries, list) or not entries:
            continue
        gone = _prune(agent, entries, lambda _matcher, handler: is_mem_handler(handler))
        removed += gone
        if gone and not entries:
            del table[event]
    if not removed:
        return InstallResult(path, 0, 0, changed=False)
    if not table:
        del doc["hooks"]
    husk = not doc or (agent in FLAT_AGENTS and set(doc) <= {"version"})
    if husk and not path.is_symlink():
        # Nothing but mem's hooks was in the file: remove it rather than leave a husk.
        try:
            path.unlink()
        except OSError as exc:
            raise MemError(f"{path}: cannot remove: {exc.strerror or exc}") from exc
        _remove_empty_folders(path.parent)
        return InstallResult(path, 0, removed, changed=True, deleted=True)
    _write(path, doc, _indent(text))
    return InstallResult(path, 0, removed, changed=True)


def _unwanted(handler: object, wanted: set[tuple[str, str | None]]) -> bool:
    """A recall handler on a recall event when recall is turned off."""
    return _subcommand(handler) == "recall" and not any(sub == "recall" for _, sub in wanted)


def status(
    agent: str, scope: str, root: Path, home: Path, recall: bool = False, program: str = "mem"
) -> HookStatus:
    """Which of mem's hooks the agent's settings file holds."""
    path = settings_path(agent, scope, root, home)
    specs = hook_specs(agent, recall, program)
    doc, _ = _read(path)
    table = _hooks_table(path, doc, create=False) if doc is not None else None
    found = [
        (event, matcher, handler)
        for event, entries in (table or {}).items()
        if isinstance(entries, list)
        for matcher, handler in _walk(agent, entries)
        if is_mem_handler(handler)
    ]
    wanted = [(spec.event, spec.matcher, spec.handler) for spec in specs]
    present = sum(1 for item in wanted if item in found)
    other = sum(1 for item in found if item not in wanted)
    return HookStatus(path, doc is not None, len(specs), present, other)


def _remove_empty_folders(folder: Path) -> None:
    """The settings folders install created (``.gemini/``, ``.github/hooks/``), once empty."""
    for candidate in (folder, folder.parent):
        if not (candidate.name.startswith(".") or candidate.name == "hooks"):
            return
        try:
            candidate.rmdir()  # only ever removes an empty folder
        except OSError:
            return
