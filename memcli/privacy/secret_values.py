"""Is this value a secret? The heuristics `memcli.privacy.masking` asks about a candidate:
whether it looks generated rather than written, whether it is a placeholder, how strongly the
name it is given to says secret (`tier`), and whether a value given to such a name is one.
"""

from __future__ import annotations

from memcli.privacy.secret_rules import (
    EXCL_FIRST,
    EXCL_LAST,
    LITERALS,
    PLACEHOLDERS,
    PROSE,
    SCHEMES,
    STRONG,
    STRONG_EQ,
    STRONG_KEYS,
    WEAK,
    compiled,
    rule,
)

_HEX = frozenset("0123456789abcdefABCDEF")
_tiers: dict[str, int] = {}


def _log2(x: float) -> float:
    from math import log2

    return log2(x)


def _entropy(value: str) -> float:
    counts: dict[str, int] = {}
    for c in value:
        counts[c] = counts.get(c, 0) + 1
    return -sum(k / len(value) * _log2(k / len(value)) for k in counts.values())


def digits(value: str) -> bool:
    return rule("digit").search(value) is not None


def repeats(value: str) -> bool:
    """Six equal characters in a row ("xxxxxx", "000000") hold the place of a secret."""
    return rule("run").search(value) is not None


def alphabet(value: str) -> bool:
    """Mostly runs of ascending characters ("abcdefghij", "1234567890"): typed, not drawn."""
    ascending, run = 0, 1
    for a, b in zip(value, value[1:], strict=False):
        if ord(b) == ord(a) + 1:
            run += 1
        else:
            ascending, run = ascending + (run if run >= 4 else 0), 1
    return 2 * (ascending + (run if run >= 4 else 0)) >= len(value)


def dummy(value: str) -> bool:
    """What documentation writes in place of a secret: ``your_api_key_here``, ``xxxxxxxx``."""
    low = value.lower()
    return low in PLACEHOLDERS or rule("markers").search(low) is not None or repeats(value)


def looks_random(value: str, words: bool = True) -> bool:
    """Generated rather than written: character classes switch often, high entropy for its
    alphabet and, unless `words` is false (a token prefix vouches for it), few vowels and
    word-like runs."""
    if len(value) < 16 or repeats(value) or alphabet(value):
        return False
    kinds = [0 if c.isdigit() else 1 if c.islower() else 2 for c in value if c.isalnum()]
    if len(set(kinds)) < 2:
        return False
    if sum(a != b for a, b in zip(kinds, kinds[1:], strict=False)) < 0.25 * (len(kinds) - 1):
        return False  # CONSTANT_NAME, camelCaseWords, name-1234567
    if all(c in _HEX for c in value):
        size = 16
    else:
        letters = [c for c in value.lower() if c.isalpha()] if words else []
        if sum(c in "aeiou" for c in letters) > 0.4 * len(letters):
            return False
        if words and sum(map(len, rule("word").findall(value))) > 0.6 * len(kinds):
            return False
        size = 26 * (1 in kinds) + 26 * (2 in kinds) + 10 * (0 in kinds)
        size += len({c for c in value if not c.isalnum()})
    return _entropy(value) >= 0.75 * _log2(min(len(value), size))


def tier(key: str) -> int:
    """2 for a name that says secret (password, api_key, client_secret ...), 1 for one that may
    hold one (ending in key or sig, or a plural: tokens), 0 for any other."""
    found = _tiers.get(key)
    if found is None:
        segs = [s.lower() for s in rule("segments").findall(key.rsplit(".", 1)[-1])]
        found = 0
        if segs and segs[-1] not in EXCL_LAST and segs[0] not in EXCL_FIRST:
            tail = segs[-3:]
            for s in (*tail, *(a + b for a, b in zip(tail, tail[1:], strict=False))):
                strong = s.endswith(STRONG) or s.startswith("secret") or s in STRONG_EQ
                if strong and (not s.endswith(WEAK) or s.endswith(STRONG_KEYS)):
                    found = 2
            if not found and any("".join(segs[-n:]).endswith(WEAK) for n in (1, 2, 3)):
                found = 1
            found = 0 if "public" in segs else found
        if len(_tiers) < 4096:
            _tiers[key] = found
    return found


def _symbol_led(value: str) -> bool:
    """A value that starts with ``*``, ``!`` or ``%`` and still reads as a password
    (``*Xk9#pq2``, ``!Zq8wX2mN``, ``%Rt7&pL0q``): not a run of stars, a YAML tag, a template
    or an environment variable."""
    rest = value[1:]
    if not rest or rest[0] in "*!%({$" or value.endswith("%"):
        return False
    if value[0] == "!" and rest.isalpha():
        return False  # !Ref, !Sub, !secret
    if value[0] == "%" and rule("template").fullmatch(value):
        return False  # %s, %(name)s
    return sum(c.isalnum() for c in rest) >= 4 and (digits(rest) or not rest.isalpha())


def secret_value(value: str, tier: int, quote: str, loose: bool, key: str) -> bool:
    """Whether `value`, given to a name of `tier`, is a secret. `quote` is its quote, if any;
    `loose` (an env file, a config line) lets a bare word count as a value."""
    if len(value) < 4 or value[0] in "$<[{(" or value.startswith(("#{", "@{")):
        return False  # a variable, template, placeholder, structure, or masked already
    if value[0] in "*!%" and not _symbol_led(value):
        return False  # ****, **kwargs, !Ref Name, !!str, %(name)s, %APPDATA%: not a value
    if not rule("alnum3").match(value.replace("\\n", "")) or dummy(value) or "://" in value:
        return False
    if rule("not_secret").fullmatch(value) or value.strip().lower() in SCHEMES:
        return False  # 1.2.3, #a0b1c2, AWS_SECRET_ACCESS_KEY, NextToken, X-Api-Key, "Basic "
    if value[0] in "/~." and "/" in value and not looks_random(value.replace("/", "")):
        return False  # the path of a secret, not the secret (base64 may start with a slash)
    if "/" in value and rule("source_path").fullmatch(value) and not looks_random(value):
        return False  # "made to pass: src/theme.ts(443,3)": a source file named in prose
    ref = None if quote else rule("code_ref").fullmatch(value)
    if ref is not None and (ref.group("call") or ("." in value and not digits(value))):
        return False  # get_token(), form.cleaned_data
    if tier == 1:
        return looks_random(value)
    if value.isdigit():
        return "pass" in key or "pw" in key or "pin" in key
    if "{" in value or "%" in value:
        rest = rule("template").sub("", value)
        if rest != value and sum(c.isalnum() for c in rest) < 6:
            return False  # "{token}", "Bearer ${TOKEN}"
    if quote:
        return not (quote == "`" and " " in value)  # `cat secret.txt` runs a command
    return value.lower() not in LITERALS and (loose or digits(value) or ref is None)


def prose_spans(text: str) -> list[tuple[int, int]]:
    """Where a secret stands after "password is" and the like (:data:`PROSE`): only a value
    with a letter and a digit or symbol counts, so "the password is required" stays."""
    if "is" not in text and "was" not in text and "set to" not in text and "re" not in text:
        return []
    found = []
    for match in compiled(PROSE).finditer(text):
        value = match.group("s").rstrip(".")
        has_letter = any(c.isalpha() for c in value)
        has_other = any(c.isdigit() or not c.isalnum() for c in value)
        if has_letter and has_other and "[REDACTED]" not in value and "[EMAIL]" not in value:
            found.append((match.start("s"), match.start("s") + len(value)))
    return found
