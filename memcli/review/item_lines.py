"""The lines `mem diff` reads of an item file without parsing it, and the words in them.

``git grep -z -n --heading -A1`` of the ``kind:``, ``title:``, ``body:`` and ``expires:``
lines (:data:`PATTERN`) prints them with the line after each; :func:`from_output` reads the
whole output with one regex into :class:`StoreWords`: the files whose kind or title is not on
a line of its own (always a candidate), each decision's title and first-line words (tokenised
in one pass over all of them), each file's ``expires:`` lines. :func:`grep_text` prints one
file's text the way git does, for the few files read one by one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from memcli.compact import text as text_words

# one alternation: git runs each pattern over every line, so one regex is about a third faster
PATTERN = "^(kind|title|body|expires):"


@dataclass
class StoreWords:
    """What a diff needs of every item file of one side, without parsing one."""

    # files whose kind or title is not on a line of its own: always a candidate
    odd: set[str] = field(default_factory=set)
    # decisions: path -> (title words, first-line words, each as :func:`tokens_of` gives them;
    # whether the title's and whether the title's and first line's are exact, else a superset
    # of the value's words)
    decisions: dict[str, tuple[str, str, bool, bool]] = field(default_factory=dict)
    expires: dict[str, list[str]] = field(default_factory=dict)  # path -> expires lines

    def drop(self, path: str) -> None:
        self.odd.discard(path)
        self.decisions.pop(path, None)
        self.expires.pop(path, None)


# ``git grep -z -n --heading -A1`` output: a file's path on a line of its own, then its lines
# as NUMBER\0TEXT, ``--`` between groups that are not adjacent. A match is a path (with, when
# they come next as mem writes them, the kind, title and body lines and the line after the
# body), or a key line (key, the rest of the line) with, when it is printed, the next line
# (with its line break: empty when there is none). The values of the first are after a colon.
_RECORD = re.compile(
    r"^(?:(?!--\n)([^\0\n]+)\n"
    r"(?:[0-9]+\0kind(:[^\n]*)\n[0-9]+\0title(:[^\n]*)\n[0-9]+\0body(:[^\n]*)\n"
    r"(?:(?=[0-9]+\0([^\n]*\n)))?)?"
    r"|[0-9]+\0(kind|title|body|expires):([^\n]*)\n(?:(?=[0-9]+\0([^\n]*\n)))?)",
    re.MULTILINE,
)
_TOKEN_OR_BREAK = re.compile(f"{text_words.WORD.pattern}|\n")


def from_output(found: StoreWords, out: str, paths: Iterable[str], prefix: str = "") -> None:
    """Add ``paths`` to ``found`` from the output of ``git grep -z -n --heading -A1`` of
    :data:`PATTERN`, each path printed after ``prefix`` (``REV:`` for a revision; other paths
    are ignored).

    One regex reads the key lines and the line after each (an item's kind, title and body at
    once when they come in that order); a kind or title whose value may go on past its line
    (the next line is indented or a comment: a multi-line scalar) makes the file odd, as one
    with no such line does. A body block's value is its next line."""
    kinds: dict[str, str] = {}
    titles: dict[str, str] = {}
    # the body's first line as written, and whether exact (None: a one-line value, not read yet)
    bodies: dict[str, tuple[str, bool | None]] = {}
    odd: set[str] = set()
    expires: dict[str, list[str]] = {}
    path = ""
    for heading, kind, title, body, after_body, key, value, after in _RECORD.findall(out):
        if heading:
            path = heading
            if not kind:
                continue
            # kind, title and body on three lines: neither the kind nor the title goes on
            kinds[path], titles[path] = kind[1:], title[1:]
            key, value, after = "body", body[1:], after_body
        if key == "kind" or key == "title":
            (kinds if key == "kind" else titles)[path] = value
            if after[:1] in (" ", "\t", "#"):
                odd.add(path)
        elif key == "body":
            value = value.strip()
            if value[:1] not in ("|", ">"):
                bodies[path] = (value, None)
            elif after:
                line = after[:-1]
                bodies[path] = (line, value[:1] == "|" and bool(line.strip()))
        else:
            expires.setdefault(path, []).append(f"expires:{value}")
    rows: list[tuple[str, str, str, bool, bool]] = []  # path, title, body line, exact, exact
    for path in paths:
        printed = prefix + path
        if printed in expires:
            found.expires.setdefault(path, []).extend(expires[printed])
        kind, title = kinds.get(printed), titles.get(printed)
        if kind is None or title is None or printed in odd or path in found.odd:
            found.odd.add(path)
        elif kind == " decision" or kind.split("#", 1)[0].strip().strip("'\"") == "decision":
            more, body_exact = bodies.get(printed, ("", True))
            if body_exact is None:
                more, body_exact = first_line(more)
            title_exact = plain_line(title)
            rows.append((path, title, more, title_exact, title_exact and body_exact))
    title_words = tokens_of([row[1] for row in rows])
    line_words = tokens_of([row[2] for row in rows])
    for (path, _title, _line, title_exact, exact), title_tokens, line_tokens in zip(
        rows, title_words, line_words, strict=True
    ):
        found.decisions[path] = (title_tokens, line_tokens, title_exact, exact)


def tokens_of(values: list[str]) -> list[str]:
    """The word tokens of each one-line YAML scalar as written and of it with its escapes
    read as spaces, lower-cased and space-joined as found (repeats and stopwords included:
    without the stopwords, a superset of the words of its value however it was quoted),
    found in one pass over all of them."""
    if not values:
        return []
    joined = "\n".join(values).lower()
    if joined.count("\n") != len(values) - 1:  # a line break is no word: a space does as well
        return tokens_of([value.replace("\n", " ") for value in values])
    found = [row.strip() for row in " ".join(_TOKEN_OR_BREAK.findall(joined)).split("\n")]
    if "\\" in joined:
        for n, value in enumerate(values):
            if "\\" in value:
                escaped = text_words.WORD.findall(_ESCAPE.sub(" ", value).lower())
                found[n] = " ".join([found[n], *escaped]).strip()
    return found


def grep_text(path: str, text: str) -> str:
    """What ``git grep -z -n --heading -A1`` of :data:`PATTERN` prints of one file's text
    (without the ``--`` lines between groups)."""
    if "\0" in text:
        return ""  # binary to grep (-I)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    wanted: dict[int, None] = {}
    for number, line in enumerate(lines):
        if line.startswith(("kind:", "title:", "body:", "expires:")):
            wanted[number] = None
            if number + 1 < len(lines):
                wanted[number + 1] = None
    if not wanted:
        return ""
    return f"{path}\n" + "".join(f"{n + 1}\0{lines[n]}\n" for n in sorted(wanted))


def plain_line(value: str) -> bool:
    """A one-line scalar whose words are those of its value: no escape, comment or block."""
    stripped = value.strip()
    return "\\" not in value and "#" not in value and stripped[:1] not in ("|", ">", "&", "!")


# A double-quoted scalar up to its first line break (a ``\n`` escape that is not ``\\n``).
# (unrolled: runs of plain characters in one step, a third of the time of one alternation a
# character)
_FIRST_QUOTED_LINE = re.compile(r"[^\\]*(?:\\[^n][^\\]*)*")
_ESCAPE = re.compile(r"\\.")


def first_line(value: str) -> tuple[str, bool]:
    """The first line of a one-line or double-quoted scalar as written, and whether its words
    are exactly those of the value's first line."""
    if value[:1] != '"':
        return value, plain_line(value) and bool(value.strip())
    if "\\" not in value:  # the whole value, quoted: the regex below matches all of it
        return value, len(value) > 1 and value.endswith('"') and "#" not in value and bool(
            value.strip('" ')
        )
    found = _FIRST_QUOTED_LINE.match(value)
    first = found.group(0) if found else value
    ends = first != value or (len(value) > 1 and value.endswith('"'))
    return first, ends and "\\" not in first and "#" not in first and bool(first.strip('" '))
