"""The one tokenizer of the index: the builder and the query path both call :func:`tokens`.

Code-aware: a compound such as ``req_install.py``, ``parseHTTPHeader``, ``pip._internal`` or
``--use-pep517`` is kept whole *and* split into its parts (on ``_ . / - :`` and camelCase), so
``req_install`` matches a query for ``install`` while a query for the exact identifier still
finds the one item naming it (the whole token is rare, so its IDF is high). Error codes
(``E501``, ``TS2345``), version numbers (``21.0.1``), file names and paths are one token each.
Plain words are lower-cased, stop words dropped and reduced to their Porter stem
(:mod:`memcli.retrieval.stem`): on the benchmark that lifts recall@5 from 0.748 to 0.783, as a
changelog says "installing" where the commit said "install". Whole compounds are never
stemmed: an identifier matches only itself.

Only :mod:`re` is imported. The terms of each chunk (a word, an identifier) are memoised,
since the same few thousand chunks make up most text: a cold build of a 16,000-item store
tokenizes about 900,000 chunks, and a dictionary hit costs a fraction of deciding a chunk's
shape and stemming it again.
"""

from __future__ import annotations

import re

from memcli.retrieval.stem import stem

# Bump when the output of `tokens` changes: a persisted index made by another version is stale.
VERSION = 3

STOP_WORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing done down during each
    either else etc few for from further had has have having he her here hers him his how i if
    in into is it its itself just may me might more most must my myself no nor not now of off
    on once one only or other our ours out over own per same shall she should so some such than
    that the their theirs them then there these they this those through thus to too under
    until up upon us very via was we were what when where whether which while who whom whose
    why will with would yet you your e.g i.e""".split()  # noqa: SIM905 - a word list reads better
)

# A run of word characters joined by the punctuation that code uses inside names and paths.
_CHUNK = re.compile(r"\w(?:[\w]|[./:@+#-](?=\w))*")
_VERSION = re.compile(r"v?\d+(?:\.\d+)+[a-z0-9]*")
_SPLIT = re.compile(r"[./:@+#_-]+")
# Within one segment: camelCase humps, ALLCAPS runs before a hump, and digits stay with the
# letters they follow (``pep517``, ``utf8``, ``py3`` are one word each).
_HUMPS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+\d*|[A-Z]+\d*|\d+[a-zA-Z]*|[^\W\d_]+")

_stems: dict[str, str] = {}
# chunk -> its terms; bounded, as the stems are, so a huge text cannot grow it without end
_chunk_terms: dict[str, tuple[str, ...]] = {}
MEMO_LIMIT = 200_000


def tokens(text: str) -> list[str]:
    """The index terms of ``text``, in order, repeats kept (term frequency counts them)."""
    out: list[str] = []
    known = _chunk_terms
    for chunk in _CHUNK.findall(text):
        terms = known.get(chunk)
        if terms is None:
            terms = _terms_of(chunk)
            if len(known) < MEMO_LIMIT:
                known[chunk] = terms
        out += terms
    return out


def _terms_of(chunk: str) -> tuple[str, ...]:
    """The terms of one chunk, as :func:`tokens` adds them."""
    if chunk.isalpha() and (chunk.islower() or chunk[1:].islower() or chunk.isupper()):
        word = chunk.lower()  # the common case first: a plain word
        if len(word) > 1 and word not in STOP_WORDS:
            return (_stem_cached(word),)
        return ()
    out: list[str] = []
    _compound(chunk, out)
    return tuple(out)


def _compound(chunk: str, out: list[str]) -> None:
    lower = chunk.lower()
    if chunk.isalnum() and not _has_camel(chunk):
        # Letters and digits: an error code (E501, TS2345), a name such as pep517 or utf8.
        if len(lower) > 1 and lower not in STOP_WORDS:
            out.append(lower)
        return
    if lower in STOP_WORDS or not any(ch.isalnum() for ch in lower):
        return
    out.append(lower)
    if _VERSION.fullmatch(lower):
        return
    if "/" in chunk:
        base = lower.rsplit("/", 1)[1]
        if base and not base.isalnum():
            out.append(base)  # a file name, as a query names it without its folder
    for segment in _SPLIT.split(chunk):
        for part in _HUMPS.findall(segment):
            word = part.lower()
            if len(word) > 1 and word not in STOP_WORDS and word != lower:
                out.append(_stem_cached(word) if word.isalpha() else word)


def _has_camel(chunk: str) -> bool:
    """Mixed case past the first letter: ``parseHeader``, ``HTTPError``, not ``Python3``."""
    rest = chunk[1:]
    return any(ch.isupper() for ch in rest) and any(ch.islower() for ch in chunk)


class Query:
    """A search query as the scorer sees it.

    ``terms``: the distinct index terms. ``exact``: the whole compounds among them
    (identifiers, error codes, file names, versions), which an item must contain literally
    for the exact-match signal. ``phrases``: the lower-cased text of double-quoted spans of
    two or more words, matched as substrings of an item's text.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.terms: list[str] = list(dict.fromkeys(tokens(text)))
        self.exact: set[str] = set()
        for match in _CHUNK.finditer(text):
            chunk = match.group()
            plain = chunk.isalpha() and not _has_camel(chunk)
            lower = chunk.lower()
            if not plain and len(lower) > 1 and lower in self.terms:
                self.exact.add(lower)
        self.phrases: list[str] = []
        for quoted in _QUOTED.findall(text):
            words = " ".join(quoted.lower().split())
            if " " in words:
                self.phrases.append(words)
            else:
                self.exact.update(t for t in tokens(quoted)[:1])


_QUOTED = re.compile(r'["\u201c]([^"\u201c\u201d]+)["\u201d]')


def _stem_cached(word: str) -> str:
    found = _stems.get(word)
    if found is None:
        found = stem(word)
        if len(_stems) < MEMO_LIMIT:
            _stems[word] = found
    return found
