"""Reading YAML fast: the one module that imports PyYAML (its libyaml C loader).

Two speeds. Every read goes through here: libyaml parses, a small Python constructor builds
plain dicts, lists and scalars. Only a rewrite that must keep a reviewer's comments goes
through the round-trip layer (:mod:`memcli.yamlio`, ruamel.yaml). Measured on 4,000 real item
files (docs/benchmarks.md): PyYAML's ``CSafeLoader`` 0.36 ms a file, ruamel's own C loader
(``typ="safe"``) 0.76 ms, ruamel round-trip 6.6 ms.

The results equal the round-trip reader's, file for file:

- scalars resolve by YAML 1.2 rules, as ruamel does (``yes`` and ``on`` stay text, ``0o17`` is
  an int), not by PyYAML's YAML 1.1 ones;
- anything this reader refuses, or cannot build the same way (a syntax error, a duplicate key,
  a merge key, a tag, a ``%YAML`` directive, a tab), is handed to the round-trip reader, which
  either reads it or names the line at fault. That slow path runs only for a broken file;
- line numbers (for messages about a valid file) come from the round-trip reader too, parsed
  lazily, only when a message needs one.

Committed files are untrusted (see docs/security.md), so the guarantees of the round-trip
reader hold here as well: no anchors or aliases (a file that may define an anchor is checked
event by event before it is composed, so no alias ever expands), nesting capped at
:data:`memcli.untrusted.MAX_YAML_DEPTH` (libyaml itself stops at 1,000 levels without
recursing; the tree is then built with a depth count), the 1 MB cap and no symlinks
(:mod:`memcli.untrusted`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from yaml._yaml import CParser
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from memcli import timeutil, untrusted
from memcli.itemcheck import Problem

MAX_DEPTH = untrusted.MAX_YAML_DEPTH

# A ``&`` or ``!`` that may start an anchor or a tag: at a line start or after a space or flow
# indicator. Inside a scalar such text is harmless, but only
# the parser can tell, so a file that matches is checked event by event (rare in real stores).
_MAY_PROPERTY = re.compile(r"(?:^|[\s\[\]{},])[&!]", re.MULTILINE)
# A block scalar header with a comment glued to it (``|#``): libyaml accepts it, ruamel refuses.
_GLUED_HEADER_COMMENT = re.compile(r"[|>][0-9+-]{0,2}#")


class Fallback(Exception):
    """This reader will not decide: the round-trip reader reads the file (or names the fault)."""


_TAG = "tag:yaml.org,2002:"
_STR, _MAP, _SEQ = _TAG + "str", _TAG + "map", _TAG + "seq"
_INT, _FLOAT, _BOOL, _NULL = _TAG + "int", _TAG + "float", _TAG + "bool", _TAG + "null"
_TIMESTAMP = _TAG + "timestamp"

# YAML 1.2 implicit types, as ruamel.yaml's resolver has them for version 1.2 (its table),
# by the first character of a plain scalar.
_RESOLVERS: dict[str, list[tuple[str, re.Pattern[str]]]] = {}
for _tag, _pattern, _first in (
    ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    (
        "float",
        r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+]?[0-9]+)?
        |[-+]?(?:[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)
        |[-+]?\.[0-9_]+(?:[eE][-+][0-9]+)?
        |[-+]?\.(?:inf|Inf|INF)
        |\.(?:nan|NaN|NAN))$""",
        "-+0123456789.",
    ),
    (
        "int",
        r"""^(?:[-+]?0b[0-1_]+
        |[-+]?0o?[0-7_]+
        |[-+]?[0-9_]+
        |[-+]?0x[0-9a-fA-F_]+)$""",
        "-+0123456789",
    ),
    ("merge", r"^(?:<<)$", "<"),
    ("null", r"^(?: ~ |null|Null|NULL | )$", ["~", "n", "N", ""]),
    (
        "timestamp",
        r"""^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]
        |[0-9][0-9][0-9][0-9] -[0-9][0-9]? -[0-9][0-9]?
        (?:[Tt]|[ \t]+)[0-9][0-9]?
        :[0-9][0-9] :[0-9][0-9] (?:\.[0-9]*)?
        (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$""",
        "0123456789",
    ),
    ("value", r"^(?:=)$", "="),
):
    for _char in _first:
        _RESOLVERS.setdefault(_char, []).append((_TAG + _tag, re.compile(_pattern, re.X)))


class _Composer(CParser):  # type: ignore[misc]
    """libyaml's parser and composer (C); only the tag of a plain scalar is decided here."""

    def descend_resolver(self, parent: Any, index: Any) -> None:
        pass  # no path resolvers

    def ascend_resolver(self) -> None:
        pass

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        if kind is ScalarNode:
            if implicit[0]:
                tag = _plain_tags.get(value)
                if tag is None:
                    tag = _plain_tag(value)
                    if len(value) <= _MEMO_CHARS and len(_plain_tags) < _MEMO_LIMIT:
                        _plain_tags[value] = tag
                return tag
            return _STR
        return _SEQ if kind is SequenceNode else _MAP


# The tag of a plain scalar, memoised: every item file repeats the same keys and many of the
# same values (``kind: pitfall``, ``importance: 0.5``), each otherwise matched against the
# resolver's patterns again. Bounded, so a hostile store cannot grow it without end.
_plain_tags: dict[str, str] = {}
_MEMO_CHARS = 64
_MEMO_LIMIT = 50_000


def _plain_tag(value: str) -> str:
    for tag, pattern in _RESOLVERS.get(value[:1], ()):
        if pattern.match(value):
            return tag
    return _STR


def _int(text: str) -> int:
    digits = text.replace("_", "")
    sign = -1 if digits.startswith("-") else 1
    digits = digits.lstrip("+-")
    if digits.startswith("0b"):
        return sign * int(digits[2:], 2)
    if digits.startswith("0x"):
        return sign * int(digits[2:], 16)
    if digits.startswith("0o"):
        return sign * int(digits[2:], 8)
    if len(digits) > 1 and digits.startswith("0"):
        raise Fallback("a YAML 1.1 octal")  # ruamel's reading of these varies: let it decide
    return sign * int(digits)


def _float(text: str) -> float:
    digits = text.replace("_", "").lower()
    sign = -1.0 if digits.startswith("-") else 1.0
    digits = digits.lstrip("+-")
    if digits == ".inf":
        return sign * float("inf")
    if digits == ".nan":
        return float("nan")
    return sign * float(digits)


def _scalar(node: Any) -> Any:
    tag, text = node.tag, node.value
    if tag == _INT:
        return _int(text)
    if tag == _FLOAT:
        return _float(text)
    if tag == _BOOL:
        return text in ("true", "True", "TRUE")
    if tag == _NULL:
        return None
    if tag == _TIMESTAMP:
        return timeutil.normalize(SafeConstructor().construct_yaml_timestamp(node))
    raise Fallback(f"a {tag} scalar")


def _build(node: Any, depth: int) -> Any:
    """Plain data from a node tree (which holds no alias: see :func:`load_fast`), refusing
    what the round-trip reader would read otherwise or refuse: a merge key, a duplicate or
    non-text key, nesting deeper than MAX_DEPTH collections."""
    tag = node.tag
    if tag == _STR:
        return node.value
    if tag == _MAP:
        if depth >= MAX_DEPTH:
            raise Fallback("too deep")
        mapping: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = key_node.value
            if key_node.tag != _STR or key in mapping:
                raise Fallback("a key the round-trip reader decides")
            # most values are text: no call for them (a whole store has a few hundred thousand)
            if value_node.tag == _STR:
                mapping[key] = value_node.value
            else:
                mapping[key] = _build(value_node, depth + 1)
        return mapping
    if tag == _SEQ:
        if depth >= MAX_DEPTH:
            raise Fallback("too deep")
        if node.flow_style and any(isinstance(child, MappingNode) for child in node.value):
            # A mapping inside ``[...]``: libyaml reads ``[0, 'k':]`` as a one-pair mapping
            # where ruamel refuses it (found by the property test); mem never writes one.
            raise Fallback("a mapping in a flow sequence")
        return [_build(child, depth + 1) for child in node.value]
    if isinstance(node, ScalarNode):
        return _scalar(node)
    raise Fallback(f"a {tag} collection")


def _has_properties(text: str) -> bool:
    """True when an event carries an anchor or an explicit tag (ruamel keeps a tagged scalar
    as a tagged object, and refuses anchors)."""
    for event in yaml.parse(text, Loader=yaml.CSafeLoader):
        if getattr(event, "anchor", None) is not None or getattr(event, "tag", None) is not None:
            return True
    return False


def load_fast(text: str) -> Any:
    """Plain data for ``text``; :class:`Fallback` when only the round-trip reader may decide.

    No alias can reach the node tree: an alias needs an anchor, an anchor needs a ``&`` at
    the start of a token, and any file where one may stand is checked event by event first
    (an alias to an undefined anchor is a composer error)."""
    if text.startswith("%") or "\n%" in text:
        raise Fallback("a directive")
    if "\t" in text:
        raise Fallback("a tab")  # ruamel refuses some tabs libyaml accepts (mem never writes one)
    if "#" in text and _GLUED_HEADER_COMMENT.search(text) is not None:
        raise Fallback("a comment glued to a block scalar header")
    if ("&" in text or "!" in text) and _MAY_PROPERTY.search(text) is not None:
        try:
            if _has_properties(text):
                raise Fallback("an anchor or a tag")
        except yaml.YAMLError:
            raise Fallback("invalid YAML") from None
    composer = _Composer(text)
    try:
        node = composer.get_single_node()
    except (yaml.YAMLError, ValueError, TypeError):
        raise Fallback("invalid YAML") from None
    if node is None:
        return None
    try:
        return _build(node, 0)
    except (ValueError, TypeError, OverflowError):
        raise Fallback("a value the round-trip reader decides") from None


class Document:
    """Plain data read fast; line numbers from the round-trip reader, parsed only if asked."""

    def __init__(self, data: Any, text: str, path: str) -> None:
        self.data = data
        self._text = text
        self._path = path
        self._lines: Any = None

    def plain(self) -> Any:
        return self.data

    def _round_trip(self) -> Any:
        if self._lines is None and len(self._text) > LINES_FOR_AT_MOST:
            self._lines = False  # the round trip of a big file takes seconds: line 1 it is
        if self._lines is None:
            from memcli import yamlio

            doc, _problem = yamlio.parse(self._text, self._path)
            self._lines = doc if doc is not None else False
        return self._lines or None

    def line_of(self, key: str) -> int:
        doc = self._round_trip()
        return doc.line_of(key) if doc is not None else 1

    def line_of_path(self, keys: tuple[str, ...]) -> int:
        doc = self._round_trip()
        return doc.line_of_path(keys) if doc is not None else 1


# Line numbers for a message come from the round-trip reader, about 20 us a character: a
# committed file near the 1 MB cap would cost a problem's message 20 seconds.
LINES_FOR_AT_MOST = 100_000


def parse(text: str, path: str) -> tuple[Any, Problem | None]:
    """A document (``plain()``, ``line_of``, ``line_of_path``) or the Problem naming the line;
    as :func:`memcli.yamlio.parse`, at C speed for every file that parses."""
    if len(text) > untrusted.MAX_FILE_BYTES:
        limit = f"{untrusted.MAX_FILE_BYTES:,}"
        return None, Problem(path, 1, "(file)", f"larger than the {limit}-byte limit")
    try:
        return Document(load_fast(text), text, path), None
    except Fallback:
        from memcli import yamlio

        return yamlio.parse(text, path)


def read(path: Path) -> tuple[Any, Problem | None]:
    """Parse a file, read as untrusted input (no symlinks, size-capped)."""
    try:
        text = untrusted.read_text(path)
    except untrusted.Unreadable as exc:
        return None, Problem(str(path), 1, "(file)", str(exc))
    return parse(text, str(path))
