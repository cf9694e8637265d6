"""Mask secrets and e-mail addresses in captured text before anything touches disk.

`mem capture` runs this on every tool call, so it is built for a cold process:

- importing the module imports only its own parts, which import nothing else: the
  rule tables (`memcli.privacy.secret_rules`), the tests of a value
  (`memcli.privacy.secret_values`) and the path deny list (`memcli.privacy.denylist`). Its
  regexes are strings compiled on first use through `memcli.fastparse.fastre` (compiled code
  cached on disk, no `import re`), else :mod:`re`;
- two regexes of short trigger literals ("ghp_", "AKIA", "pass", "://", "@" ...) scan the text
  and a lower-cased copy once each. Each trigger is anchored at its rarest character, so the
  scan skips most text without entering the regex; only where a trigger occurs is the rule of
  its family tried, anchored there. Quantifiers are bounded, so the work stays linear.

A secret becomes ``[REDACTED]`` and an address ``[EMAIL]``; the words around them stay, so
``password = "hunter2"`` reads ``password = "[REDACTED]"``. Masking twice changes nothing.
"""

from __future__ import annotations

from memcli.privacy import secret_handlers as handlers
from memcli.privacy.denylist import DEFAULT_DENY_GLOBS as DEFAULT_DENY_GLOBS
from memcli.privacy.denylist import is_denied_path as is_denied_path
from memcli.privacy.secret_handlers import Span as Span
from memcli.privacy.secret_rules import (
    ANCHORS,
    BUDGET,
    ESCAPES,
    FAMILIES,
    OP,
    RULES,
    SPECIAL,
    TAILS,
    TRIGGERS_MEMO,
    compiled,
    rule,
    trigger_inputs,
)
from memcli.privacy.secret_rules import EMAIL as EMAIL
from memcli.privacy.secret_rules import REDACTED as REDACTED
from memcli.privacy.secret_values import (
    alphabet,
    dummy,
    looks_random,
    prose_spans,
    repeats,
    secret_value,
    tier,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Iterator, Sequence

TOO_DENSE = "text too dense in triggers"
PROSE = "password in prose"
CUT_TOKEN = "token cut short"
_HEXISH = frozenset("0123456789abcdefABCDEF-:")
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/=.~")

_families: list[tuple[int, int, str, str]] = []  # look-back, randomness (0, 1, 2), rule, name
_handlers: dict[str, tuple[tuple[int, ...], str]] = {}  # literal: families, special handler
_literals: dict[str, tuple[str, int]] = {}  # regex group: literal, offset of its anchor


def _alternation(items: list[tuple[str, str]]) -> str:
    """One regex for all (literal, tail) `items`, each branch starting with its anchor; an
    empty named group tells which literal matched."""
    branches: dict[str, list[tuple[int, str]]] = {}
    for literal, tail in items:
        if literal != literal.lower():  # matched on the text as it is: anchor at a capital
            k = next(n for n, c in enumerate(literal) if c.isupper())
        else:
            k = next(k for k in map(literal.find, ANCHORS) if k >= 0)
        group = f"t{len(_literals)}"
        _literals[group] = (literal, k)
        before = "(?<=" + literal[: k + 1].translate(ESCAPES) + ")" if k else ""
        branch = f"{before}{literal[k + 1 :].translate(ESCAPES)}{tail}(?P<{group}>)"
        branches.setdefault(literal[k], []).append((-len(literal), branch))
    alts = ["(?:" + "|".join(b for _, b in sorted(bs)) + ")" for bs in branches.values()]
    heads = [c.translate(ESCAPES) + a for c, a in zip(branches, alts, strict=True)]
    return "(?:" + "|".join(heads) + ")"


def _triggers() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The trigger regexes for the lower-cased text and, for literals with capitals, the text."""
    if "low" not in RULES and not _load_triggers():
        _build_triggers()
        _save_triggers()
    return rule("low"), rule("exact")


def prepare() -> None:
    """Build (or load from fastre's cache) the trigger tables now rather than on first use."""
    _triggers()


def _load_triggers() -> bool:
    """The derived tables from fastre's cache, when they were derived from these same tables:
    deriving them takes longer than the rest of a capture."""
    from memcli.fastparse import fastre

    saved = fastre.memo_get(TRIGGERS_MEMO, trigger_inputs())
    if not isinstance(saved, tuple) or len(saved) != 5:
        return False
    families, handlers, literals, RULES["low"], RULES["exact"] = saved
    _families[:] = families
    _handlers.update(handlers)
    _literals.update(literals)
    return True


def _save_triggers() -> None:
    from memcli.fastparse import fastre

    derived = (list(_families), dict(_handlers), dict(_literals), RULES["low"], RULES["exact"])
    fastre.memo_put(TRIGGERS_MEMO, trigger_inputs(), derived)


def _build_triggers() -> None:
    """Derive the trigger alternations and the family tables from the rule tables."""
    lower: list[tuple[str, str]] = []
    exact: list[tuple[str, str]] = []
    owners: dict[str, list[int]] = {}
    for index, (name, line) in enumerate(FAMILIES):
        head, source = line.split(" :: ", 1)
        words = head.split()
        back = next((int(w[6:]) for w in words if w.startswith("+back=")), 0)
        random = ("+random" in words) + ("+words" in words)
        _families.append((back, random, source if back else r"(?<![\w.-])" + source, name))
        for word in words:
            if not word.startswith("+"):
                cut = word.find("(", 1)
                literal, tail = (word, "") if cut < 0 else (word[:cut], word[cut:])
                if literal not in owners:
                    (lower if literal == literal.lower() else exact).append((literal, tail))
                owners.setdefault(literal, []).append(index)
    for literal, kind in SPECIAL.items():
        tail = TAILS.get(literal, "")
        if kind == "kw":  # a name followed by = or :, or a command-line flag and its value
            tail = f"(?:{OP}|(?<=-{literal})(?=[\\w.-]{{0,64}}[ \\t]+[^\\s-]))"
        lower.append((literal, tail))
    for literal in {*owners, *SPECIAL}:
        _handlers[literal] = (tuple(owners.get(literal, ())), SPECIAL.get(literal, ""))
    RULES["low"], RULES["exact"] = _alternation(lower), _alternation(exact)


def _both(*runs: Iterator[re.Match[str]]) -> Iterator[re.Match[str]]:
    for run in runs:
        yield from run


def _scan(text: str, out: list[Span], emails: bool) -> None:
    low = text.lower() if text.isascii() else text.encode("ascii", "replace").lower().decode()
    seen: set[int] = set()
    pem: dict[str, int] = {}
    low_rule, exact_rule = _triggers()
    for budget, m in enumerate(_both(low_rule.finditer(low), exact_rule.finditer(text))):
        literal, k = _literals[m.lastgroup]  # type: ignore[index]
        i = m.start() - k
        if budget == BUDGET:  # text this dense in triggers is hostile: mask the rest, stay fast
            out.append((i, len(text), REDACTED, TOO_DENSE))
            return
        owners, special = _handlers[literal]
        for index in owners:
            back, random, source, name = _families[index]
            family = compiled(source)
            found = family.search(text, max(0, i - back), i + len(literal) + 200) if back else None
            found = family.match(text, i) if not back else found
            if found is None or found.start() > i:
                continue
            body = found.group("b" if "b" in family.groupindex else 0)
            if repeats(body) or alphabet(body) or rule("markers").search(body.lower()):
                continue  # ghp_xxxxxxxx, AKIA...EXAMPLE: a placeholder
            if not random or looks_random(body, words=random > 1):
                part = "s" if "s" in family.groupindex else 0
                out.append((found.start(part), found.end(part), REDACTED, name))
                break
        if special == "kw":
            handlers.keyword(text, i, i + len(literal), out, seen)
        elif special == "url":
            handlers.url(text, i, out)
        elif special == "email" and emails:
            handlers.email(text, i, out)
        elif special == "pem":
            handlers.pem(text, i, out, pem)
        elif special == "scheme":
            handlers.scheme(text, i, i + len(literal), out)
        elif special == "curl":
            handlers.curl(text, i, out)
        elif special == "flag":
            handlers.short_flag(text, i, out)


def spans(text: str, mask_emails: bool = True) -> list[Span]:
    """Where the built-in rules find a secret (and, if `mask_emails`, an address) in `text`:
    ``(start, end, replacement, rule)``, unsorted, possibly overlapping. Three sources only:
    the triggers, a password in prose, a cut token; a new one must be added to
    :mod:`memcli.privacy.prescreen` too, which says when none of them can fire."""
    out: list[Span] = []
    if text:
        _scan(text, out, mask_emails)
        out += [(start, end, REDACTED, PROSE) for start, end in prose_spans(text)]
        if "\u2026" in text:
            _cut_tokens(text, out)
    return out


def _cut_tokens(text: str, out: list[Span]) -> None:
    """A secret cut short by a one-line summary's ``…`` escapes the rules that need its end (a
    token's length, the ``@`` after a URL's password, a closing quote). Mask what stands before
    the ellipsis when it is a token (a prefix starts it, or it looks generated), a URL's
    password, or the value given to a name of a secret."""
    at = text.find("\u2026")
    while at > 0:
        start = at
        while start > max(0, at - 400) and text[start - 1] in _TOKEN_CHARS:
            start -= 1
        word = text[start:at]
        if not (len(word) >= 16 and _generated(word)):
            start += _trigger_at(word)
            word = text[start:at]
        placeholder = repeats(word) or alphabet(word) or rule("markers").search(word.lower())
        if len(word) >= 8 and not placeholder and (_generated(word) or _trigger_at(word) == 0):
            out.append((start, at + 1, REDACTED, CUT_TOKEN))
        else:
            _cut_value(text, at, out)
        at = text.find("\u2026", at + 1)


def _generated(word: str) -> bool:
    hexish = all(c in _HEXISH for c in word)  # a commit id or digest, cut: keep it
    return not hexish and looks_random(word, words=False)


def _cut_value(text: str, at: int, out: list[Span]) -> None:
    """``scheme://user:pass…`` or ``PASSWORD="abc…``: the value before the ellipsis."""
    run = at
    while run > max(0, at - 400) and not text[run - 1].isspace():
        run -= 1
    chunk = text[run:at]
    scheme = chunk.find("://")
    colon = chunk.rfind(":")
    if scheme >= 0 and colon > scheme + 3:
        rest = chunk[colon + 1 :]
        if "@" in rest or "/" in rest or rest.isdigit():
            return  # past the password, or a host's port
        value_at = run + colon + 1
    else:
        op = max(chunk.rfind("="), colon)
        key = chunk[:op].strip("\"'`-[]{}(),;").rsplit("(", 1)[-1]
        if op <= 0 or not key or tier(key) < 1:
            return
        value_at = run + op + 1
    value = text[value_at:at].strip("\"' ")
    if len(value) >= 4 and not dummy(value) and value[:1] not in "$<{[%":
        out.append((value_at, at + 1, REDACTED, CUT_TOKEN))


def _trigger_at(word: str) -> int:
    """Where the first token prefix in `word` starts (a family's trigger, not a name's), or
    the length of `word` when it holds none."""
    low_rule, exact_rule = _triggers()
    found = len(word)
    for run in (low_rule.finditer(word.lower()), exact_rule.finditer(word)):
        for m in run:
            literal, k = _literals[m.lastgroup]  # type: ignore[index]
            if _handlers[literal][0] and m.start() - k < found:
                found = max(0, m.start() - k)
                break
    return found


def apply(text: str, found: Sequence[Span]) -> str:
    """Replace the spans, merged where they touch; what is masked already stays as it is."""
    cuts = [(s, e, r) for s, e, r, _ in found]
    for mark in (REDACTED, EMAIL):
        at = text.find(mark)
        while at >= 0:
            ks, ke = at, at + len(mark)
            kept: list[tuple[int, int, str]] = []
            for s, e, r in cuts:
                if ks < e and s < ke:
                    kept += [x for x in ((s, ks, r), (ke, e, r)) if x[0] < x[1]]
                else:
                    kept.append((s, e, r))
            cuts = kept
            at = text.find(mark, ke)
    pieces: list[str] = []
    pos, cur_s, cur_e, cur_r = 0, -1, -1, ""
    for s, e, r in sorted(cuts):
        if s <= cur_e:
            cur_e, cur_r = max(cur_e, e), REDACTED if REDACTED in (cur_r, r) else cur_r
            continue
        if cur_e >= 0:
            pieces += [text[pos:cur_s], cur_r]
            pos = cur_e
        cur_s, cur_e, cur_r = s, e, r
    if cur_e >= 0:
        pieces += [text[pos:cur_s], cur_r]
        pos = cur_e
    pieces.append(text[pos:])
    return "".join(pieces)


def secret_under_key(key: str, value: str) -> bool:
    """A one-line string under a key that names a secret (``{"password": "..."}``)."""
    level = tier(key) if 0 < len(key) <= 64 else 0
    return bool(level) and "\n" not in value and secret_value(value, level, '"', True, key.lower())
