"""One item file: its bytes parsed and validated into an item's mapping, its path as shown.

The piece both the item store (:mod:`memcli.store`, one file at a time) and the parse cache
(:mod:`memcli.itemcache`, the whole store) build on; it knows neither of them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from memcli import itemcheck, itemlayout
from memcli.itemcheck import Problem
from memcli.paths import StorePaths


def shown(paths: StorePaths, path: Path) -> str:
    """A path relative to the repository root, as messages show it."""
    text, root = str(path), str(paths.root)
    if text.startswith(root + os.sep):
        return text[len(root) + 1 :]
    try:
        return str(path.relative_to(paths.root))
    except ValueError:
        return str(path)


def parse_bytes(
    paths: StorePaths, path: Path, data: bytes
) -> tuple[dict[str, Any] | None, list[Problem]]:
    """An item file's validated mapping from its bytes, or the problems with it."""
    return parse_named(shown(paths, path), path.name, data)


def parse_named(
    where: str, name: str, data: bytes, bulk: bool = False
) -> tuple[dict[str, Any] | None, list[Problem]]:
    """:func:`parse_bytes` of the file ``name`` shown in messages as ``where``: what a
    whole-store read calls per file (``bulk``), without a path object for each."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, [Problem(where, 1, "(file)", f"not UTF-8 text ({exc.reason})")]
    # One file in mem's own layout is read without the YAML stack (a search after one edit
    # then imports nothing more; reading many, libyaml is the faster of the two); any other
    # file, or one with a problem, takes the full reader, which names the line at fault.
    fast = None if bulk else itemlayout.read(text)
    if (
        fast is not None
        and fast.get("id") == _stem(name)
        and not itemcheck.validate(fast, where, _no_line)
    ):
        return fast, []
    from memcli import yamlread

    doc, problem = yamlread.parse(text, where)
    if problem is not None:
        return None, [problem]
    assert doc is not None
    plain = doc.plain()
    problems = itemcheck.validate(plain, where, doc.line_of)
    if not problems and plain.get("id") != _stem(name):
        problems.append(
            Problem(where, doc.line_of("id"), "id", f"does not match the file name {name}")
        )
    if problems:
        return None, problems
    return plain, []


def _no_line(_key: str) -> int:
    return 1  # only asked for a problem's message, and a problem sends the file to yamlread


def _stem(name: str) -> str:
    """``Path(name).stem``, without making a path."""
    dot = name.rfind(".")
    return name[:dot] if 0 < dot < len(name) - 1 else name
