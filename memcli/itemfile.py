"""One item file: its bytes parsed and validated into an item's mapping, its path as shown.

The piece both the item store (:mod:`memcli.store`, one file at a time) and the parse cache
(:mod:`memcli.itemcache`, the whole store) build on; it knows neither of them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from memcli import model
from memcli.model import Problem
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
    from memcli import yamlread

    where = shown(paths, path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, [Problem(where, 1, "(file)", f"not UTF-8 text ({exc.reason})")]
    doc, problem = yamlread.parse(text, where)
    if problem is not None:
        return None, [problem]
    assert doc is not None
    plain = doc.plain()
    problems = model.validate(plain, where, doc.line_of)
    if not problems and plain.get("id") != path.stem:
        problems.append(
            Problem(where, doc.line_of("id"), "id", f"does not match the file name {path.name}")
        )
    if problems:
        return None, problems
    return plain, []
