"""Mask secrets and e-mail addresses in captured text before anything touches disk.

`mem capture` runs this on every tool call, so it is built for a cold process:

- importing the module imports only its own parts, which import nothing else: the
  rule tables (`memcli.capture.secret_rules`), the tests of a value
  (`memcli.capture.secret_values`) and the path deny list (`memcli.capture.denylist`). Its
  regexes are strings compiled on first use through `memcli.capture.fastre` (compiled code
  cached on disk, no `import re`), else :mod:`re`;
- two regexes of short trigger literals ("ghp_", "AKIA", "pass", "://", "@" ...) scan the text
  and a lower-cased copy once each. Each trigger is anchored at its rarest character, so the
  scan skips most text without entering the regex; only where a trigger occurs is the rule of
  its family tried, anchored there. Quantifiers are bounded, so the work stays linear.

A secret becomes ``[REDACTED]`` and an address ``[EMAIL]``; the words around them stay, so
``password = "hunter2"`` reads ``password = "[REDACTED]"``. Masking twice changes nothing.
"""

from __future__ import annotations

from memcli.capture.denylist import DEFAULT_DENY_GLOBS as DEFAULT_DENY_GLOBS
from memcli.capture.denylist import is_denied_path as is_denied_path
from memcli.capture.secret_rules import (
    ANCHORS,
    BUDGET,
    ESCAPES,
    FAMILIES,
    OP,
    RULES,
    SCHEMES,
    SPECIAL,
    TAILS,
    compiled,
    rule,
)
from memcli.capture.secret_rules import EMAIL as EMAIL
from memcli.capture.secret_rules import REDACTED as REDACTED
from memcli.capture.secret_values import (
    alphabet,
    digits,
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

_IDENT = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_LOCAL = _IDENT | {"%", "+"}

_Span = tuple[int, int, str]
_families: list[tuple[int, int, str]] = []  # look-back, randomness test (0, 1, 2), rule
_handlers: dict[str, tuple[tuple[int, ...], str]] = {}  # literal: families, special handler
_literals: dict[str, tuple[str, int]] = {}  # regex group: literal, offset of its anchor
_extra: dict[tuple[str, ...], list[re.Pattern[str]]] = {}


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


def _inputs() -> tuple[object, ...]:
    return (FAMILIES, tuple(SPECIAL.items()), tuple(TAILS.items()), OP)


def _load_triggers() -> bool:
    """The derived tables from fastre's cache, when they were derived from these same tables:
    deriving them takes longer than the rest of a capture."""
    from memcli.capture import fastre

    saved = fastre.memo_get("masking.triggers", _inputs())
    if not isinstance(saved, tuple) or len(saved) != 5:
        return False
    families, handlers, literals, RULES["low"], RULES["exact"] = saved
    _families[:] = families
    _handlers.update(handlers)
    _literals.update(literals)
    return True


def _save_triggers() -> None:
    from memcli.capture import fastre

    derived = (list(_families), dict(_handlers), dict(_literals), RULES["low"], RULES["exact"])
    fastre.memo_put("masking.triggers", _inputs(), derived)


def _build_triggers() -> None:
    """Derive the trigger alternations and the family tables from the rule tables."""
    lower: list[tuple[str, str]] = []
    exact: list[tuple[str, str]] = []
    owners: dict[str, list[int]] = {}
    for index, line in enumerate(FAMILIES):
        head, source = line.split(" :: ", 1)
        words = head.split()
        back = next((int(w[6:]) for w in words if w.startswith("+back=")), 0)
        random = ("+random" in words) + ("+words" in words)
        _families.append((back, random, source if back else r"(?<![\w.-])" + source))
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


def _keyword(text: str, i: int, j: int, out: list[_Span], seen: set[int]) -> None:
    end = rule("ident").match(text, j).end()  # type: ignore[union-attr]  # always matches
    m = rule("assign").match(text, end) if end - j < 64 else None  # 64: not a name
    start, stop = i, max(0, i - 64)
    while start > stop and text[start - 1] in _IDENT:
        start -= 1
    if m is None or start in seen:
        return
    seen.add(start)
    key = text[start:end]
    level = tier(key)
    op, group = m.group("op").strip(), m.lastgroup or "u"
    value, vs, ve = m.group(group), m.start(group), m.end(group)
    quote = "" if group == "u" else "`" if group == "e" else '"'
    if not level or not (op or key.startswith("-") and value[:1] not in ("", "-")):
        return  # "password combination", "pass `x` to": words; "--token -v": two flags
    parts = value.split(None, 1)
    if "auth" in key.lower() and parts and parts[0].lower() in SCHEMES:
        if len(parts) > 1:  # "Bearer abc" inside quotes: keep the scheme
            vs += value.index(parts[1], len(parts[0]))
            value = text[vs:ve]
        elif not quote:  # Authorization: Bearer abc; Digest username="u", response="..."
            nxt = rule("digest" if value.lower() == "digest" else "scheme").match(text, ve)
            if nxt is None:
                return
            value, vs, ve = nxt.group(1), nxt.start(1), nxt.end(1)
    if not quote and ("]" in value or ")" in value or "}" in value):
        depth = 0  # cut at a closer that belongs to the code around: f(token=abc), {k: v}
        for n, c in enumerate(value):
            depth += (c in "([{") - (c in ")]}")
            if depth < 0:
                value, ve = value[:n], vs + n
                break
    while not quote and value.endswith(":"):  # if token == other:
        value, ve = value[:-1], ve - 1
    eol = text.find("\n", ve, ve + 200)
    rest = text[ve : ve + 200 if eol < 0 else eol].strip(" \t\r")
    if not quote and rest[:1] in ("|", ",", ")", ";", "}") and rule("code_ref").fullmatch(value):
        return  # f(token=tok2), private_key: Ed25519PrivateKey | None: code, not a value
    if op in ("==", "!=", "===", "!=="):  # token == "with": a parser, not a credential
        quote, loose = "", False
    elif op == "=":
        loose = key == key.upper()  # API_TOKEN=abc in an env file
    else:  # "password: abc" alone on its line: YAML, ini, a header; not "x: Type"
        bol = text.rfind("\n", max(0, start - 200), start)
        head = text[bol + 1 : start].strip(" \t-\"'") if bol >= 0 or start < 200 else "x"
        loose = op == ":" and not head and rest[:1] in ("", "#") and not value.istitle()
    if secret_value(value, level, quote, loose, key.lower()):
        out.append((vs, ve, REDACTED))


def _url(text: str, i: int, out: list[_Span]) -> None:
    m = rule("url").match(text, i + 3)
    if m is not None:
        pw = m.group("p")
        if pw[0] not in "$<[{" and not dummy(pw) and any(c.isalnum() for c in pw):
            out.append((m.start("p"), m.end("p"), REDACTED))


def _email(text: str, i: int, out: list[_Span]) -> None:
    start, stop = i, max(0, i - 64)
    while start > stop and text[start - 1] in _LOCAL:
        start -= 1
    while start < i and text[start] in "._%+-":
        start += 1
    m = rule("domain").match(text, i + 1) if start < i else None
    if m is not None:
        out.append((start, m.end(), EMAIL))


def _pem(text: str, i: int, out: list[_Span], state: dict[str, int]) -> None:
    m = rule("pem").match(text, i)
    if m is None or i < state.get("done", 0):
        return
    if state.get("end", -1) < m.end():  # the next END after this header, searched for once
        found = rule("pem_end").search(text, m.end())
        state["end"], state["end_to"] = (found.start(), found.end()) if found else (len(text), -1)
    if state["end_to"] >= 0 and state["end"] - m.end() < 65536:
        body, end = text[m.end() : state["end"]], state["end_to"]
    else:  # a key cut short: mask to the next blank line
        end = text.find("\n\n", m.end(), m.end() + 65536)
        end = min(len(text), m.end() + 65536) if end < 0 else end
        body = text[m.end() : end]
    body = body.replace("\\n", "\n").replace("\\r", "")
    if body.strip(" \t\r\n\"'") and rule("pem_body").fullmatch(body):
        out.append((i, end, REDACTED))
        state["done"] = end


def _scheme(text: str, i: int, j: int, out: list[_Span]) -> None:
    """A token after ``Bearer`` or ``Basic`` outside an Authorization header."""
    m = None if i and text[i - 1].isalnum() else rule("scheme").match(text, j)
    if m is None or dummy(m.group(1)):
        return
    value = m.group(1)
    generated = looks_random(value)
    basic = text[i + 1] in "aA" and any(c in "0123456789+/=" for c in value)  # base64
    if generated or basic or (digits(value) and text[i + 1] in "eE"):  # not "Basic Auth"
        out.append((m.start(1), m.end(1), REDACTED))


def _curl(text: str, i: int, out: list[_Span]) -> None:
    """``curl -u user:password``: the password, or the user when it is a lone token."""
    after = i + (6 if text[i + 1] == "-" else 2)
    m = None if i and text[i - 1] not in " \t\n'\"" else rule("arg").match(text, after)
    if m is None:
        return
    arg, base = m.group(1), m.start(1)
    colon = arg.find(":")
    if colon < 0 or arg.lstrip("\"'").startswith(("$", "<", "[", "%", "(", "{{", "{$", "{ ")):
        return
    for a, b in ((colon + 1, len(arg)), (0, colon)):
        while a < b and arg[a] in "\"'{ ":
            a += 1
        while b > a and arg[b - 1] in "\"'} ":
            b -= 1
        part = arg[a:b]
        if part:
            example = part.isalpha() and part.islower()  # "-u user:pass", "-u test:test"
            if part[0] not in "$<[{%(" and not part.isdigit() and not dummy(part) and not example:
                out.append((base + a, base + b, REDACTED))
            return


def _both(*runs: Iterator[re.Match[str]]) -> Iterator[re.Match[str]]:
    for run in runs:
        yield from run


def _scan(text: str, out: list[_Span], emails: bool) -> None:
    low = text.lower() if text.isascii() else text.encode("ascii", "replace").lower().decode()
    seen: set[int] = set()
    pem: dict[str, int] = {}
    low_rule, exact_rule = _triggers()
    for budget, m in enumerate(_both(low_rule.finditer(low), exact_rule.finditer(text))):
        literal, k = _literals[m.lastgroup]  # type: ignore[index]
        i = m.start() - k
        if budget == BUDGET:  # text this dense in triggers is hostile: mask the rest, stay fast
            out.append((i, len(text), REDACTED))
            return
        owners, special = _handlers[literal]
        for index in owners:
            back, random, source = _families[index]
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
                out.append((found.start(part), found.end(part), REDACTED))
                break
        if special == "kw":
            _keyword(text, i, i + len(literal), out, seen)
        elif special == "url":
            _url(text, i, out)
        elif special == "email" and emails:
            _email(text, i, out)
        elif special == "pem":
            _pem(text, i, out, pem)
        elif special == "scheme":
            _scheme(text, i, i + len(literal), out)
        elif special == "curl":
            _curl(text, i, out)


def _apply(text: str, spans: list[_Span]) -> str:
    """Replace the spans, merged where they touch; what is masked already stays as it is."""
    for mark in (REDACTED, EMAIL):
        at = text.find(mark)
        while at >= 0:
            ks, ke = at, at + len(mark)
            cut: list[_Span] = []
            for s, e, r in spans:
                if ks < e and s < ke:
                    cut += [x for x in ((s, ks, r), (ke, e, r)) if x[0] < x[1]]
                else:
                    cut.append((s, e, r))
            spans = cut
            at = text.find(mark, ke)
    pieces: list[str] = []
    pos, cur_s, cur_e, cur_r = 0, -1, -1, ""
    for s, e, r in sorted(spans):
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


def _extra_rules(patterns: tuple[str, ...]) -> list[re.Pattern[str]]:
    found = _extra.get(patterns)
    if found is None:
        found = []
        for pattern in patterns:
            try:
                found.append(compiled(pattern))
            except Exception:  # an invalid pattern from config is skipped, never fatal
                continue
        _extra[patterns] = found
    return found


def mask(text: str, extra_patterns: Sequence[str] = (), mask_emails: bool = True) -> str:
    """`text` with secrets replaced by ``[REDACTED]`` and, if `mask_emails`, e-mail addresses
    by ``[EMAIL]``. Each regex in `extra_patterns` masks every match whole; an invalid one is
    ignored."""
    extra = _extra_rules(tuple(extra_patterns)) if extra_patterns else []
    for _ in range(4):  # a mask can change what its neighbour looks like: repeat until stable
        spans: list[_Span] = []
        if text:
            _scan(text, spans, mask_emails)
            spans += [(start, end, REDACTED) for start, end in prose_spans(text)]
        for pattern in extra:
            found = pattern.finditer(text)
            spans += [(m.start(), m.end(), REDACTED) for m in found if m.end() > m.start()]
        masked = _apply(text, spans) if spans else text
        if masked == text:
            break
        text = masked
    return text


def mask_obj(obj: object, extra_patterns: Sequence[str] = (), mask_emails: bool = True) -> object:
    """A copy of `obj` with every string in its dicts, lists and tuples masked; keys stay. A
    one-line string under a key that names a secret (``{"password": "..."}``) is masked whole."""

    def walk(node: object, key: str) -> object:
        if isinstance(node, str):
            level = tier(key) if 0 < len(key) <= 64 else 0
            if level and "\n" not in node and secret_value(node, level, '"', True, key.lower()):
                return REDACTED
            return mask(node, extra_patterns, mask_emails)
        if isinstance(node, dict):
            return {k: walk(v, k if isinstance(k, str) else "") for k, v in node.items()}
        if isinstance(node, list | tuple):
            items = [walk(v, key) for v in node]
            return items if isinstance(node, list) else tuple(items)
        return node

    return walk(obj, "")
