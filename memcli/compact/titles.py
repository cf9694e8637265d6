"""Titles of episode items: what a reader learns first (the cause, else the fix).

A title names the cause when the assistant stated one, else the failing command, its
decisive line and where the fix went. A long error line is cut, never the fix; a path
outside the repository (`C:\\Users\\...\\src\\x.py`) shows as its file name.
"""

from __future__ import annotations

import re

from memcli.compact import commands, text

TITLE_LIMIT = 200
_SHOWN_FILES = 3
_PATHS_WIDTH = 80  # wider than this, the fix names files, not paths


def of_episode(
    cause: str,
    command: str,
    line: str,
    files: list[str],
    edited: list[str],
    setup: str,
    refused: str = "",
) -> str:
    """The title of a fail-then-pass episode. ``files``: the repository's edited paths;
    ``edited``: every edited path; ``setup``: the last setup command run (no edits);
    ``refused``: the message of a hook that refused the first run (its words lead)."""
    shown = commands.shown(command)
    if refused:
        fixed = fixed_in(files, edited) if edited else f"it passed after `{commands.shown(setup)}`"
        return with_fix(f"`{shown}` is refused by a hook here:", refused, fixed)
    if cause:
        return text.title_of(cause)
    if edited:
        return with_fix(f"`{shown}` fails with", line, fixed_in(files, edited))
    return text.title_of(
        f"Run `{commands.shown(setup)}` before `{shown}`, else: " + (line or "it fails")
    )


def fixed_in(files: list[str], edited: list[str]) -> str:
    """Where the fix went: the repository's paths when short, else the file names; at most
    three."""
    names = files if files and len(", ".join(files[:_SHOWN_FILES])) <= _PATHS_WIDTH else []
    if not names:
        names = [re.split(r"[/\\]", path)[-1] for path in edited]
    names = list(dict.fromkeys(name for name in names if name))
    if not names:
        return "fixed by an edit"
    more = f" and {len(names) - _SHOWN_FILES} more" if len(names) > _SHOWN_FILES else ""
    return "fixed in " + ", ".join(names[:_SHOWN_FILES]) + more


def with_fix(head: str, line: str, fixed: str) -> str:
    """head, error line, fix within the title limit: a long error line is cut, never the fix."""
    room = TITLE_LIMIT - len(head) - len(fixed) - 4
    said = text.one_line(line.rstrip(" .:"), max(room, 40)) if line else "an error"
    return text.title_of(f"{head} {said}: {fixed}", TITLE_LIMIT)
