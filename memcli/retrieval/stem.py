"""The Porter stemmer (M. F. Porter, 1980), the classic algorithm, in plain Python.

It maps ``install``, ``installs``, ``installed``, ``installing`` and ``installation`` to one
stem; a changelog entry says "installing" where the commit said "install". Pure, total and
deterministic: the index builder and the query path must agree on every word.
"""

from __future__ import annotations

_VOWELS = frozenset("aeiou")


def _consonant(word: str, i: int) -> bool:
    ch = word[i]
    if ch in _VOWELS:
        return False
    if ch == "y":
        return i == 0 or not _consonant(word, i - 1)
    return True


def _measure(stem: str) -> int:
    """m in [C](VC)^m[V]: the number of vowel-consonant sequences."""
    count = 0
    previous_vowel = False
    for i in range(len(stem)):
        vowel = not _consonant(stem, i)
        if previous_vowel and not vowel:
            count += 1
        previous_vowel = vowel
    return count


def _has_vowel(stem: str) -> bool:
    return any(not _consonant(stem, i) for i in range(len(stem)))


def _double_consonant(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _consonant(word, len(word) - 1)


def _cvc(word: str) -> bool:
    """Ends consonant-vowel-consonant, the last not w, x or y (``hop``, not ``snow``)."""
    n = len(word)
    if n < 3 or word[-1] in "wxy":
        return False
    return _consonant(word, n - 1) and not _consonant(word, n - 2) and _consonant(word, n - 3)


_STEP2 = (
    ("ational", "ate"),
    ("tional", "tion"),
    ("enci", "ence"),
    ("anci", "ance"),
    ("izer", "ize"),
    ("bli", "ble"),
    ("alli", "al"),
    ("entli", "ent"),
    ("eli", "e"),
    ("ousli", "ous"),
    ("ization", "ize"),
    ("ation", "ate"),
    ("ator", "ate"),
    ("alism", "al"),
    ("iveness", "ive"),
    ("fulness", "ful"),
    ("ousness", "ous"),
    ("aliti", "al"),
    ("iviti", "ive"),
    ("biliti", "ble"),
    ("logi", "log"),
)
_STEP3 = (
    ("icate", "ic"),
    ("ative", ""),
    ("alize", "al"),
    ("iciti", "ic"),
    ("ical", "ic"),
    ("ful", ""),
    ("ness", ""),
)
_STEP4 = (
    "al",
    "ance",
    "ence",
    "er",
    "ic",
    "able",
    "ible",
    "ant",
    "ement",
    "ment",
    "ent",
    "ion",
    "ou",
    "ism",
    "ate",
    "iti",
    "ous",
    "ive",
    "ize",
)
# Longest suffix first, so the first match is the one Porter's rules pick.
_STEP2_SORTED = sorted(_STEP2, key=lambda pair: -len(pair[0]))
_STEP3_SORTED = sorted(_STEP3, key=lambda pair: -len(pair[0]))
_STEP4_SORTED = sorted(_STEP4, key=len, reverse=True)


def _replace(word: str, rules: list[tuple[str, str]], minimum: int) -> str:
    for suffix, replacement in rules:
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            return stem + replacement if _measure(stem) > minimum else word
    return word


def _step1(word: str) -> str:
    if word.endswith("sses") or word.endswith("ies"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    if word.endswith("eed"):
        return word[:-1] if _measure(word[:-3]) > 0 else word
    for suffix in ("ed", "ing"):
        if word.endswith(suffix) and _has_vowel(word[: -len(suffix)]):
            word = word[: -len(suffix)]
            if word.endswith(("at", "bl", "iz")):
                return word + "e"
            if _double_consonant(word) and word[-1] not in "lsz":
                return word[:-1]
            if _measure(word) == 1 and _cvc(word):
                return word + "e"
            return word
    return word


def stem(word: str) -> str:
    """The Porter stem of a lower-case word; words of two letters or fewer are kept."""
    if len(word) <= 2:
        return word
    word = _step1(word)
    if word.endswith("y") and _has_vowel(word[:-1]):
        word = word[:-1] + "i"
    word = _replace(word, _STEP2_SORTED, 0)
    word = _replace(word, _STEP3_SORTED, 0)
    for suffix in _STEP4_SORTED:
        if word.endswith(suffix):
            base = word[: -len(suffix)]
            if _measure(base) > 1 and (suffix != "ion" or base.endswith(("s", "t"))):
                word = base
            break
    if word.endswith("e"):
        base = word[:-1]
        m = _measure(base)
        if m > 1 or (m == 1 and not _cvc(base)):
            word = base
    if _measure(word) > 1 and _double_consonant(word) and word.endswith("l"):
        word = word[:-1]
    return word
