"""The YAML layer: the one module that imports ruamel.yaml.

Round-trip mode keeps what a reviewer cares about: keys stay in their order, multi-line text
is written as literal blocks, long lines are never re-wrapped, and comments someone added to
an item file survive when mem rewrites it.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.composer import Composer, ComposerError
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import AliasEvent
from ruamel.yaml.scalarstring import DoubleQuotedScalarString, LiteralScalarString

from memcli import timeutil, untrusted
from memcli.itemcheck import Problem

MAX_DEPTH = untrusted.MAX_YAML_DEPTH


class _NoAliasComposer(Composer):
    """Refuses anchors and aliases: mem's files never need them, and an alias bomb of a
    kilobyte expands to gigabytes in whoever walks the tree (untrusted input)."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.parser.peek_event()
        if isinstance(event, AliasEvent) or getattr(event, "anchor", None) is not None:
            raise ComposerError(
                None, None, "anchors and aliases (& and *) are not allowed", event.start_mark
            )
        return super().compose_node(parent, index)


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.width = 1_000_000  # never re-wrap a long line
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.preserve_quotes = True
    yaml.Composer = _NoAliasComposer
    yaml.max_depth = MAX_DEPTH
    return yaml


class Document:
    """A parsed YAML file: its round-trip tree, and the line each key sits on."""

    def __init__(self, tree: Any) -> None:
        self.tree = tree

    def line_of(self, key: str) -> int:
        """1-based line of a top-level key; line 1 when the key is absent."""
        tree = self.tree
        if isinstance(tree, CommentedMap) and key in tree:
            try:
                return int(tree.lc.key(key)[0]) + 1
            except (KeyError, TypeError, AttributeError):
                return 1
        return 1

    def line_of_path(self, keys: tuple[str | int, ...]) -> int:
        """1-based line of a nested key such as ``("capture", "head_lines")`` or of a list
        item (``("capture", "deny_globs", 0)``); else the line of the deepest parent
        found, else 1."""
        node, line = self.tree, 1
        for key in keys:
            listed = isinstance(key, int) and isinstance(node, list) and 0 <= key < len(node)
            if not (listed or (isinstance(node, CommentedMap) and key in node)):
                break
            try:
                line = int((node.lc.item(key) if listed else node.lc.key(key))[0]) + 1
            except (KeyError, TypeError, AttributeError):
                break
            node = node[key]
        return line

    def plain(self) -> Any:
        return to_plain(self.tree)


def parse(text: str, path: str) -> tuple[Document | None, Problem | None]:
    """Parse YAML text; a syntax error, an alias, deep nesting or an oversized text becomes a
    Problem that names its line."""
    if len(text) > untrusted.MAX_FILE_BYTES:
        limit = f"{untrusted.MAX_FILE_BYTES:,}"
        return None, Problem(path, 1, "(file)", f"larger than the {limit}-byte limit")
    try:
        tree = _yaml().load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        reason = (exc.problem or exc.context or "invalid YAML").strip()
        return None, Problem(path, line, "(yaml)", reason)
    except YAMLError as exc:
        return None, Problem(path, 1, "(yaml)", str(exc).splitlines()[0])
    except RecursionError:
        return None, Problem(path, 1, "(yaml)", f"nested deeper than {MAX_DEPTH} levels")
    except (ValueError, IndexError, TypeError, OverflowError) as exc:
        # A scalar the resolver types but the constructor cannot build ("._" as a float,
        # "_" as an int): the reader's own error, never a crash on an untrusted file.
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return None, Problem(path, 1, "(yaml)", f"a value that cannot be read: {reason}")
    return Document(tree), None


def read(path: Path) -> tuple[Document | None, Problem | None]:
    """Parse a file, read as untrusted input (no symlinks, size-capped)."""
    try:
        text = untrusted.read_text(path)
    except untrusted.Unreadable as exc:
        return None, Problem(str(path), 1, "(file)", str(exc))
    return parse(text, str(path))


def to_plain(value: Any) -> Any:
    """Round-trip nodes to plain dicts, lists and strings; timestamps to ISO strings."""
    if isinstance(value, Mapping):
        return {str(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [to_plain(v) for v in value]
    if isinstance(value, str):
        return str(value)
    # ruamel's ScalarFloat, ScalarInt, ScalarBoolean: plain numbers, as the C reader gives
    # (the parse cache marshals them, and marshal refuses subclasses)
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    return timeutil.normalize(value)


def _literal_safe(text: str) -> bool:
    # A literal block cannot carry trailing spaces or control characters faithfully.
    if "\n" not in text.strip("\n"):
        return False
    if any(line != line.rstrip() for line in text.split("\n")):
        return False
    return all(ch.isprintable() or ch == "\n" for ch in text)


def to_node(value: Any) -> Any:
    """Plain data to round-trip nodes, with literal blocks for multi-line text."""
    if isinstance(value, Mapping):
        node = CommentedMap()
        for key, sub in value.items():
            node[key] = to_node(sub)
        return node
    if isinstance(value, list):
        return CommentedSeq([to_node(v) for v in value])
    if isinstance(value, str):
        if _literal_safe(value):
            return LiteralScalarString(value)
        if not _plain_safe(value):
            return DoubleQuotedScalarString(value)
    return value


def _plain_safe(text: str) -> bool:
    # ruamel writes some characters (NEL, line and paragraph separators, controls) raw in
    # plain and single-quoted scalars, where a reader folds them; double quotes escape them.
    return all(ch.isprintable() or ch == " " for ch in text)


def merge_into(tree: CommentedMap, data: Mapping[str, Any], order: tuple[str, ...]) -> None:
    """Update ``tree`` in place to equal ``data``, keeping comments and untouched formatting.

    Unchanged values are left alone (their quoting and comments survive); new keys go to
    their canonical position in ``order``.
    """
    for key in [k for k in tree if k not in data]:
        del tree[key]
    for key, value in data.items():
        if key in tree:
            current = tree[key]
            if to_plain(current) == value:
                continue
            if isinstance(current, CommentedMap) and isinstance(value, Mapping):
                merge_into(current, value, tuple(value))
                continue
            tree[key] = to_node(value)
            continue
        rank = order.index(key) if key in order else len(order)
        position = sum(1 for k in tree if (order.index(k) if k in order else len(order)) < rank)
        tree.insert(position, key, to_node(value))


def dump(tree: Any) -> str:
    stream = io.StringIO()
    _yaml().dump(tree, stream)
    return stream.getvalue()


def render(data: Mapping[str, Any], existing: Document | None, order: tuple[str, ...]) -> str:
    """YAML text for ``data``: a rewrite of ``existing`` when given, else a fresh document."""
    if existing is not None and isinstance(existing.tree, CommentedMap):
        merge_into(existing.tree, data, order)
        return dump(existing.tree)
    return dump(to_node(data))
