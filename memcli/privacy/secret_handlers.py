"""The handlers of `memcli.privacy.masking` for triggers that are not token prefixes: a name of
a secret followed by a value (``password = ...``, ``--token X``), a password in a URL, an
e-mail address, a private key block, an ``Authorization`` scheme, ``curl -u user:pw`` and the
short password flags of a few commands (``docker login -p X``, ``mysql -pX``).

Each appends ``(start, end, replacement, rule)`` spans to ``out``; the rule names what was
found, for reports (`mem prune --check`) and the log.
"""

from __future__ import annotations

from memcli.privacy.secret_rules import EMAIL, REDACTED, SCHEMES, rule
from memcli.privacy.secret_values import digits, dummy, looks_random, secret_value, tier

Span = tuple[int, int, str, str]  # start, end, replacement, rule

ASSIGNMENT = "password or secret assignment"
URL_PASSWORD = "password in a URL"
ADDRESS = "e-mail address"
PRIVATE_KEY = "private key"
AUTH_HEADER = "authorization header"
COMMAND_PASSWORD = "password on a command line"

_IDENT = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_LOCAL = _IDENT | {"%", "+"}


def keyword(text: str, i: int, j: int, out: list[Span], seen: set[int]) -> None:
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
    if group == "u" and text[ve : ve + 1] == "&" and text[start - 1 : start] not in ("?", "&"):
        ve = rule("after_ampersand").match(text, ve).end()  # type: ignore[union-attr]
        value = text[vs:ve]  # DB_PASSWORD=abc&def in an env file; not ?token=abc&user=x
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
        # f(token=tok2), private_key: Ed25519PrivateKey | None: code, not a value; but
        # (API_TOKEN=k3Y9...) in a failure summary or a generated value is one
        env = key.lstrip("-") == key.lstrip("-").upper() and digits(value) and len(value) >= 8
        if not env and not looks_random(value):
            return
    if op in ("==", "!=", "===", "!=="):  # token == "with": a parser, not a credential
        quote, loose = "", False
    elif op == "=":
        loose = key == key.upper()  # API_TOKEN=abc in an env file
    else:  # "password: abc" alone on its line: YAML, ini, a header; not "x: Type"
        bol = text.rfind("\n", max(0, start - 200), start)
        head = text[bol + 1 : start].strip(" \t-\"'") if bol >= 0 or start < 200 else "x"
        loose = op == ":" and not head and rest[:1] in ("", "#") and not value.istitle()
    if secret_value(value, level, quote, loose, key.lower()):
        out.append((vs, ve, REDACTED, ASSIGNMENT))


def url(text: str, i: int, out: list[Span]) -> None:
    m = rule("url").match(text, i + 3)
    if m is not None:
        pw = m.group("p")
        if pw[0] not in "$<[{" and not dummy(pw) and any(c.isalnum() for c in pw):
            out.append((m.start("p"), m.end("p"), REDACTED, URL_PASSWORD))


def email(text: str, i: int, out: list[Span]) -> None:
    start, stop = i, max(0, i - 64)
    while start > stop and text[start - 1] in _LOCAL:
        start -= 1
    while start < i and text[start] in "._%+-":
        start += 1
    m = rule("domain").match(text, i + 1) if start < i else None
    if m is not None:
        out.append((start, m.end(), EMAIL, ADDRESS))


def pem(text: str, i: int, out: list[Span], state: dict[str, int]) -> None:
    m = rule("pem").match(text, i)
    if m is None or i < state.get("done", 0):
        return
    if state.get("end", -1) < m.end():  # the next END after this header, searched for once
        found = rule("pem_end").search(text, m.end())
        state["end"], state["end_to"] = (found.start(), found.end()) if found else (len(text), -1)
    end = -1
    if state["end_to"] >= 0 and state["end"] - m.end() < 65536:
        body = text[m.end() : state["end"]].replace("\\n", "\n").replace("\\r", "")
        if body.strip(" \t\r\n\"'") and rule("pem_body").fullmatch(body):
            end = state["end_to"]
    if end < 0:  # a key cut short (no END, an ellipsis, a summary's cut): its base64 lines
        end = _base64_run(text, m.end())
    if end > 0:
        out.append((i, end, REDACTED, PRIVATE_KEY))
        state["done"] = end


def _base64_run(text: str, pos: int) -> int:
    """The end of the base64 lines from `pos` (separated by blanks, quotes, real or escaped
    line breaks, ended by an ellipsis), or -1 when no line of 16 such characters follows."""
    end, stop, least = -1, min(len(text), pos + 65536), 16
    while pos < stop:
        gap = rule("pem_gap").match(text, pos, stop)
        pos = gap.end() if gap is not None else pos
        chunk = rule("pem_chunk").match(text, pos, stop)
        if chunk is None or chunk.end() - pos < least:
            break
        end = pos = chunk.end()
        least = 2  # the last line of a key is short: "Q=="
    return end


def scheme(text: str, i: int, j: int, out: list[Span]) -> None:
    """A token after ``Bearer`` or ``Basic`` outside an Authorization header."""
    m = None if i and text[i - 1].isalnum() else rule("scheme").match(text, j)
    if m is None or dummy(m.group(1)):
        return
    value = m.group(1)
    generated = looks_random(value)
    basic = text[i + 1] in "aA" and any(c in "0123456789+/=" for c in value)  # base64
    if generated or basic or (digits(value) and text[i + 1] in "eE"):  # not "Basic Auth"
        out.append((m.start(1), m.end(1), REDACTED, AUTH_HEADER))


def curl(text: str, i: int, out: list[Span]) -> None:
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
                out.append((base + a, base + b, REDACTED, COMMAND_PASSWORD))
            return


def short_flag(text: str, i: int, out: list[Span]) -> None:
    """``docker login -p X`` (and podman, helm, ...), ``mysql -pX``, ``sshpass -p X``: a
    password given to a one-letter flag, only after a command known to take one there (``-p``
    is a port or a parent folder everywhere else)."""
    if text[i + 1] != "p" or (i and text[i - 1] not in " \t'\""):
        return  # mysql -P 3306 is a port
    bol = max(text.rfind("\n", max(0, i - 300), i), text.rfind(";", max(0, i - 300), i))
    command = rule("password_command").search(text, bol + 1, i)
    if command is None:
        return
    spaced = command.group("login") is not None or command.group("sshpass") is not None
    m = rule("flag_value").match(text, i + 2)
    if m is None or (m.group("gap") and not spaced):
        return  # mysql -p db: asks for the password, then opens the database db
    value = m.group("v")
    start, stop = m.start("v"), m.end("v")
    if value[:1] in "\"'" and len(value) > 1 and value[-1] == value[0]:
        value, start, stop = value[1:-1], start + 1, stop - 1
    if len(value) >= 3 and value[0] not in "$<[{%-" and not dummy(value):
        out.append((start, stop, REDACTED, COMMAND_PASSWORD))
