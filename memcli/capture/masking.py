"""Mask secrets and e-mail addresses in captured text before anything touches disk.

`mem capture` runs this on every tool call, so it is built for a cold process:

- importing the module imports nothing; its regexes are strings compiled on first use through
  `memcli.capture.fastre` (compiled code cached on disk, no `import re`), else :mod:`re`;
- two regexes of short trigger literals ("ghp_", "AKIA", "pass", "://", "@" ...) scan the text
  and a lower-cased copy once each. Each trigger is anchored at its rarest character, so the
  scan skips most text without entering the regex; only where a trigger occurs is the rule of
  its family tried, anchored there. Quantifiers are bounded, so the work stays linear.

A secret becomes ``[REDACTED]`` and an address ``[EMAIL]``; the words around them stay, so
``password = "hunter2"`` reads ``password = "[REDACTED]"``. Masking twice changes nothing.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Iterator, Sequence

REDACTED = "[REDACTED]"
EMAIL = "[EMAIL]"

DEFAULT_DENY_GLOBS: tuple[str, ...] = (
    ".env*", "*.pem", "*.key", "id_rsa*", "id_dsa*", "id_ed25519*", "id_ecdsa*", "*.p12",
    "*.pfx", ".npmrc", ".pypirc", ".netrc", "credentials*", "*.keystore", "*.jks", "secrets.*",
)  # fmt: skip

# Token families, one a line: "TRIGGERS [+back=N] [+random] :: RULE". A trigger is a literal
# (lower-case: matched in any case; with capitals: exactly), optionally followed by a regex tail
# (from its first "(") that must match too. RULE runs on the text at the trigger, or up to N
# characters before it, and the token must follow a non-word character. Group "s", if any, is
# the part masked; group "b" (else the match) must not be a placeholder (xxxx, 123456, example)
# and with +random must look generated (+words: and not be made of words, "makeKubeConfig").
_FAMILIES = (
    r"AKIA ASIA ABIA ACCA A3T :: (?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])",
    r"AIza :: AIza[\w-]{35}(?![\w-])",
    r"ghp_ gho_ ghu_ ghs_ ghr_ :: gh[pousr]_[A-Za-z0-9]{36,255}(?![\w-])",
    r"github_pat_ :: github_pat_[A-Za-z0-9_]{22,255}(?![\w-])",
    r"glpat- gldt- glcbt- glptt- glrt- gloas- glimt- glagent- glsoat- glft- glffct- glso- gltst- "
    r":: gl(?:pat|dt|cbt|ptt|rt|oas|imt|agent|soat|ft|ffct|so|tst)-[\w-]{20,}",
    r"GR1348941 :: GR1348941[\w-]{20,}",
    r"glc_ glsa_ :: gl(?:c_[A-Za-z0-9+/]{32,400}={0,2}|sa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}(?![\w-]))",
    r"xox :: xox(?:[abposr]-(?:[0-9]+-){1,6}|e(?:\.xox[bp])?-[0-9]-(?=\w{100}))"
    r"(?P<b>[A-Za-z0-9]{10,})(?![\w-])",
    r"hooks.slack.com/ :: hooks\.slack\.com/(?:services|workflows|triggers)/(?P<s>[\w/-]{20,})",
    r"sk_ rk_ :: [sr]k_(?:live|test)_[A-Za-z0-9]{10,}(?![\w-])",
    r"whsec_ :: whsec_[A-Za-z0-9+/=]{24,}",
    r"sk- :: sk-ant-[a-z]{2,10}[0-9]{0,3}-[\w-]{20,}(?![\w-])",
    r"sk- +random :: sk-(?:proj-|svcacct-|admin-)?(?P<b>[\w-]{20,})(?![\w-])",
    r"npm_ :: npm_[A-Za-z0-9]{36}(?![\w-])",
    r"pypi- :: pypi-AgE[\w-]{50,}",
    r"sg. :: SG\.[\w-]{22}\.[\w-]{43}(?![\w-])",
    r"key- :: key-[0-9a-f]{32}(?![\w-])",
    r"AC(?=[0-9a-f]{32}) SK(?=[0-9a-f]{32}) :: (?:AC|SK)[0-9a-f]{32}(?![\w-])",
    r".(?=[\w-]{6}\.[\w-]{27})(?:(?<=[mno][\w-]{23}\.)|(?<=[mno][\w-]{24}\.)"
    r"|(?<=[mno][\w-]{25}\.)) +back=26 :: [MNO][\w-]{23,25}\.[\w-]{6}\.[\w-]{27,100}(?![\w-])",
    r":aa(?<=[0-9]{8}:aa)(?=[\w-]{32}) +back=10 "
    r":: (?:(?<=bot)|(?<![\w.-]))[0-9]{8,10}:AA[\w-]{32,33}(?![\w-])",
    r"q~(?<=[0-9]q~)(?=[\w~.-]{31}) +back=4 "
    r":: (?<![\w~.-])[\w~.]{3}[0-9]Q~[\w~.-]{31,34}(?![\w~.-])",
    r"EAA :: EAA[\w-]{60,}(?![\w+/=-])",  # not a run inside base64
    r"|(?<=[0-9]{15}\|)(?=[\w-]{27}) +back=16 :: (?<![0-9])[0-9]{15,16}\|[\w-]{27}(?![\w-])",
    r"-us(?<=[0-9a-f]{32}-us)(?=[0-9]) +back=32 "
    r":: (?<![A-Za-z0-9])[0-9a-f]{32}-us[0-9]{1,2}(?![\w-])",
    r"sq0 :: sq0(?:atp|csp|idp)-[\w-]{22,}",
    r"hvs. hvb. hvr. :: hv[sbr]\.[\w-]{24,}(?![\w-])",
    r"s.(?=[a-z0-9]{24}(?![a-z0-9])) +random +words :: s\.(?P<b>[A-Za-z0-9]{24})(?![\w-])",
    r"ntn_ :: ntn_[0-9]{11}[A-Za-z0-9]{35}(?![\w-])",
    r"sgp_ :: sgp_(?:[A-Fa-f0-9]{16}_|local_)?[A-Fa-f0-9]{40}(?![\w-])",
    r"hf_ api_org_ +random :: (?:hf|api_org)_(?P<b>[A-Za-z]{34})(?![\w-])",
    r"dop_v1_ doo_v1_ dor_v1_ :: do[opr]_v1_[a-f0-9]{64}(?![\w-])",
    r"shpat_ shpca_ shppa_ shpss_ :: shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}(?![\w-])",
    r"lin_api_ :: lin_api_[A-Za-z0-9]{40}(?![\w-])",
    r"dp. :: dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}(?![\w-])",
    r"pmak- :: PMAK-[a-f0-9]{24}-[a-f0-9]{34}(?![\w-])",
    r"age-secret-key-1 :: AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}(?![\w-])",
    r"pplx- gsk_ xai- +random :: (?:pplx-|gsk_|xai-)(?P<b>[A-Za-z0-9]{40,})(?![\w-])",
    r"r8_ :: r8_[A-Za-z0-9]{37}(?![\w-])",
    r"dapi(?=[0-9a-f]{32}) :: dapi[a-f0-9]{32}(?:-[0-9])?(?![\w-])",
    r"pul- :: pul-[a-f0-9]{40}(?![\w-])",
    r"ico- pnu_ +random :: (?:ico-|pnu_)(?P<b>[A-Za-z0-9]{32,36})(?![\w-])",
    r"rdme_ :: rdme_[a-z0-9]{70}(?![\w-])",
    r"fo1_ fm1_ fm2_ fm1a_ fm1r_ fm2a_ fm2r_ "
    r":: (?:fo1_[\w-]{43}(?![\w-])|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3})",
    r"atlasv1. +back=15 :: [A-Za-z0-9]{14}\.atlasv1\.[\w=-]{60,70}(?![\w-])",
    r"sntrys_ sntryu_ :: sntry(?:s_eyJ[\w+/=-]{50,}|u_[a-f0-9]{64}(?![\w-]))",
    r"sbp_ :: sbp_[a-f0-9]{40}(?![\w-])",
    r"dckr_pat_ :: dckr_pat_[\w-]{27,}",
    r"hrku- nrak- :: (?:HRKU-[\w-]{60}|NRAK-[A-Z0-9]{27})(?![\w-])",
    r"LTAI :: LTAI[A-Za-z0-9]{20}(?![\w-])",
    r"tskey- :: tskey-[a-z]+-[A-Za-z0-9]{10,}-[A-Za-z0-9]{10,}(?![\w-])",
    r"AKCp cmVmdGtu :: (?:AKCp[A-Za-z0-9]{69}|cmVmdGtu[A-Za-z0-9]{56})(?![\w-])",
    r"ops_ :: ops_eyJ[\w+/=-]{100,}",
    r"ABSK bedrock-api-key- :: (?:ABSKQmVkcm9ja0FQSUtleS[A-Za-z0-9+/]{50,}={0,2}"
    r"|bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[\w+/=%-]{50,})",
    r"api- :: API-[A-Z0-9]{26}(?![\w-])",
    r"s-s4t2 :: s-s4t2(?:ud|af)-[a-f0-9]{64}(?![\w-])",
    r"eyJ :: eyJ[\w-]{10,}\.[\w-]{10,}(?:\.[\w-]*)?",
)
# Other triggers and their handlers; "kw" is a name of a secret. A tail the text must match
# before Python runs keeps dense text cheap: a name of a secret needs an assignment after it.
_OP = r"(?=[\w.-]{0,64}?(?:\\?[\"'`])?\]?[ \t]*(?:[:=]|!=))"
_SPECIAL = {
    "pass": "kw", "pw": "kw", "secret": "kw", "token": "kw", "key": "kw", "auth": "kw",
    "cred": "kw", "sig": "kw", "bearer": "scheme", "basic": "scheme", "://": "url", "@": "email",
    "-----begin": "pem", "-u": "curl", "--user": "curl",
}  # fmt: skip
_USER = r"(?=[ \t=]+[\"']?[^\s\"':]{0,128}[\"']?:)"
_TAILS = {
    "bearer": r"(?=[ \t]+[\w.~+/-]{8})", "basic": r"(?=[ \t]+[\w.~+/-]{8})", "-u": _USER,
    "--user": _USER, "://": r"(?<=[a-z0-9]://)(?=[^\s/@'\"<>]{0,128}:[^\s/'\"<>?#]{1,256}@)",
    "@": r"(?<=[\w%+.-]@)(?=[a-z0-9-]{1,63}\.[a-z0-9])",
}  # fmt: skip
# A trigger is anchored at the character of it that comes first here: separators, then rare
# letters. The scan stops only at anchors.
_ANCHORS = "~|@:/_-.qxzjkpbgvwyfucdmhlrsnioate0123456789"
_ESCAPES = {ord(c): "\\" + c for c in "\\.^$*+?{}[]|()"}
_RULES = {
    "ident": r"[\w.-]{0,64}",
    "assign": r"(?:\\?[\"'`])?\]?(?:\[[0-9]{0,4}\])?"  # a quoted key, a subscript, a C array
    r"(?P<op>[ \t]*(?:=>|:=|[!=]==?|=|:(?![:/]))[ \t]*|[ \t]+)(?:@|[rbuf]{1,2}(?=[\"']))?"
    r"(?:\"(?P<c>[^\"\\\n]{0,300}(?:\\.[^\"\\\n]{0,300}){0,9})\""
    r"|'(?P<d>[^'\\\n]{0,300}(?:\\.[^'\\\n]{0,300}){0,9})'"
    r"|(?P<u>[^\s\"'`,;&\\=][^\s\"'`,;&=]{0,299}=*)|\\\"(?P<a>[^\n]{0,300}?)\\\""
    r"|\\'(?P<b>[^\n]{0,300}?)\\'|`(?P<e>[^`\n]{0,300})`)",
    "url": r"[^\s:/@'\"<>]{0,128}:(?P<p>[^\s/'\"<>?#]{1,256})@(?=[A-Za-z0-9\[])",
    "domain": r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,8}[A-Za-z]{2,24}"
    r"(?![A-Za-z0-9-]|\.[A-Za-z0-9]|:[\w~/])",  # not git@github.com:org/repo
    "pem": r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----",
    "pem_end": r"-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----",
    "pem_body": r"[\w\s+/=:,.\"'-]*[A-Za-z0-9+/=]{20}[\w\s+/=:,.\"'-]*",  # base64 and headers
    "arg": r"[ \t]*=?[ \t]*((?:\"[^\"\n]{0,200}\"|'[^'\n]{0,200}'|[^\s\"']{1,200}){1,6})",
    "scheme": r"[ \t]+([\w.~+/-]{8,400}=*)",
    "segments": r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+",
    "code_ref": r"[A-Za-z_$][\w$]*(?:(?:\.|->|::)[A-Za-z_$][\w$]*)*(?P<call>[(\[].*)?",
    "template": r"\$?\{\{?\s*[A-Za-z_][\w.]*\s*\}\}?|%\(?\w*\)?[sd]",
    "run": r"(.)\1{5}",
    "digit": r"[0-9]",
    "alnum3": r"(?:[^A-Za-z0-9]*[A-Za-z0-9]){3}",
    "markers": r"fake|dummy|example|sample|placeholder|change_?me|redacted|your[_-]|yourpass"
    r"|[_-]here\b|insert_",  # what documentation writes in place of a secret
    "not_secret": r"[0-9]+(?:\.[0-9]+)+|#[0-9a-fA-F]{3,8}|[A-Za-z]+(?:_[A-Za-z]+)+"
    r"|[A-Za-z][a-z]+(?:[A-Z][a-z]+)+|[A-Z]{2,}(?:[A-Z][a-z]+)+|[A-Z][a-z]*(?:-[A-Z][a-z]*)+",
    "word": r"[A-Z][a-z]{2,}|[a-z]{4,}",
}

_IDENT = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_LOCAL = _IDENT | {"%", "+"}
_HEX = frozenset("0123456789abcdefABCDEF")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_PLACEHOLDERS = _words(
    "password passwd pass pwd secret token apikey api_key key changeme example sample dummy "
    "test testing foo bar baz placeholder redacted hidden masked value string none null xxx yyy "
    "username user"
)
_LITERALS = _words(
    "none null nil true false undefined nan yes no on off str string int bool bytes number any "
    "object secretstr"
)
_EXCL_LAST = _words(  # the name of something about a secret, not the secret
    "id ids name names file files path paths dir url urls uri endpoint field fields type types "
    "length len size count prefix suffix header headers env var vars format policy hint label "
    "ttl timeout expiry expires expiration mode index pattern regex stdin placeholder version "
    "arn ref enabled required source provider class method kind location param params position "
    "min max status error errors input text message msg help description title store manager "
    "service schema handler profile number"
)
_EXCL_FIRST = _words("max min num total no is has use enable show should can")
_STRONG = ("password", "passwd", "passphrase", "token", "apikey", "accesskey", "privatekey",
           "secretkey", "credential", "credentials", "authorization", "secret")  # fmt: skip
_STRONG_EQ = frozenset(("pass", "pwd", "pw", "auth", "bearer"))
_STRONG_KEYS = ("apikey", "accesskey", "secretkey", "privatekey")
_WEAK = ("key", "keys", "tokens", "secrets", "passwords", "apikeys", "sig")
_SCHEMES = _words("bearer basic token digest negotiate ntlm api-token apikey key")
_BUDGET = 50_000  # triggers handled per text: about a second of work at worst

_Span = tuple[int, int, str]
_patterns: dict[str, re.Pattern[str]] = {}
_by_name: dict[str, re.Pattern[str]] = {}
_tiers: dict[str, int] = {}
_families: list[tuple[int, int, str]] = []  # look-back, randomness test (0, 1, 2), rule
_handlers: dict[str, tuple[tuple[int, ...], str]] = {}  # literal: families, special handler
_literals: dict[str, tuple[str, int]] = {}  # regex group: literal, offset of its anchor
_extra: dict[tuple[str, ...], list[re.Pattern[str]]] = {}


def _compiled(pattern: str) -> re.Pattern[str]:
    """`pattern` compiled once per process, from fastre's cached code when it has it."""
    found = _patterns.get(pattern)
    if found is None:
        try:
            from memcli.capture import fastre
        except ImportError:  # pragma: no cover - fastre ships with the package
            import re

            found = re.compile(pattern)
        else:
            found = fastre.compile(pattern)
        _patterns[pattern] = found
    return found


def _rule(name: str) -> re.Pattern[str]:
    found = _by_name.get(name)
    if found is None:
        found = _by_name[name] = _compiled(_RULES[name])
    return found


def _alternation(items: list[tuple[str, str]]) -> str:
    """One regex for all (literal, tail) `items`, each branch starting with its anchor; an
    empty named group tells which literal matched."""
    branches: dict[str, list[tuple[int, str]]] = {}
    for literal, tail in items:
        if literal != literal.lower():  # matched on the text as it is: anchor at a capital
            k = next(n for n, c in enumerate(literal) if c.isupper())
        else:
            k = next(k for k in map(literal.find, _ANCHORS) if k >= 0)
        group = f"t{len(_literals)}"
        _literals[group] = (literal, k)
        before = "(?<=" + literal[: k + 1].translate(_ESCAPES) + ")" if k else ""
        branch = f"{before}{literal[k + 1 :].translate(_ESCAPES)}{tail}(?P<{group}>)"
        branches.setdefault(literal[k], []).append((-len(literal), branch))
    alts = ["(?:" + "|".join(b for _, b in sorted(bs)) + ")" for bs in branches.values()]
    heads = [c.translate(_ESCAPES) + a for c, a in zip(branches, alts, strict=True)]
    return "(?:" + "|".join(heads) + ")"


def _triggers() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The trigger regexes for the lower-cased text and, for literals with capitals, the text."""
    if "low" not in _RULES:
        lower: list[tuple[str, str]] = []
        exact: list[tuple[str, str]] = []
        owners: dict[str, list[int]] = {}
        for index, line in enumerate(_FAMILIES):
            head, rule = line.split(" :: ", 1)
            words = head.split()
            back = next((int(w[6:]) for w in words if w.startswith("+back=")), 0)
            random = ("+random" in words) + ("+words" in words)
            _families.append((back, random, rule if back else r"(?<![\w.-])" + rule))
            for word in words:
                if not word.startswith("+"):
                    cut = word.find("(", 1)
                    literal, tail = (word, "") if cut < 0 else (word[:cut], word[cut:])
                    if literal not in owners:
                        (lower if literal == literal.lower() else exact).append((literal, tail))
                    owners.setdefault(literal, []).append(index)
        for literal, kind in _SPECIAL.items():
            tail = _TAILS.get(literal, "")
            if kind == "kw":  # a name followed by = or :, or a command-line flag and its value
                tail = f"(?:{_OP}|(?<=-{literal})(?=[\\w.-]{{0,64}}[ \\t]+[^\\s-]))"
            lower.append((literal, tail))
        for literal in {*owners, *_SPECIAL}:
            _handlers[literal] = (tuple(owners.get(literal, ())), _SPECIAL.get(literal, ""))
        _RULES["low"], _RULES["exact"] = _alternation(lower), _alternation(exact)
    return _rule("low"), _rule("exact")


def _log2(x: float) -> float:
    from math import log2

    return log2(x)


def _entropy(value: str) -> float:
    counts: dict[str, int] = {}
    for c in value:
        counts[c] = counts.get(c, 0) + 1
    return -sum(k / len(value) * _log2(k / len(value)) for k in counts.values())


def _digits(value: str) -> bool:
    return _rule("digit").search(value) is not None


def _repeats(value: str) -> bool:
    """Six equal characters in a row ("xxxxxx", "000000") hold the place of a secret."""
    return _rule("run").search(value) is not None


def _alphabet(value: str) -> bool:
    """Mostly runs of ascending characters ("abcdefghij", "1234567890"): typed, not drawn."""
    ascending, run = 0, 1
    for a, b in zip(value, value[1:], strict=False):
        if ord(b) == ord(a) + 1:
            run += 1
        else:
            ascending, run = ascending + (run if run >= 4 else 0), 1
    return 2 * (ascending + (run if run >= 4 else 0)) >= len(value)


def _dummy(value: str) -> bool:
    """What documentation writes in place of a secret: ``your_api_key_here``, ``xxxxxxxx``."""
    low = value.lower()
    return low in _PLACEHOLDERS or _rule("markers").search(low) is not None or _repeats(value)


def _looks_random(value: str, words: bool = True) -> bool:
    """Generated rather than written: character classes switch often, high entropy for its
    alphabet and, unless `words` is false (a token prefix vouches for it), few vowels and
    word-like runs."""
    if len(value) < 16 or _repeats(value) or _alphabet(value):
        return False
    kinds = [0 if c.isdigit() else 1 if c.islower() else 2 for c in value if c.isalnum()]
    if len(set(kinds)) < 2:
        return False
    if sum(a != b for a, b in zip(kinds, kinds[1:], strict=False)) < 0.25 * (len(kinds) - 1):
        return False  # CONSTANT_NAME, camelCaseWords, name-1234567
    if all(c in _HEX for c in value):
        alphabet = 16
    else:
        letters = [c for c in value.lower() if c.isalpha()] if words else []
        if sum(c in "aeiou" for c in letters) > 0.4 * len(letters):
            return False
        if words and sum(map(len, _rule("word").findall(value))) > 0.6 * len(kinds):
            return False
        alphabet = 26 * (1 in kinds) + 26 * (2 in kinds) + 10 * (0 in kinds)
        alphabet += len({c for c in value if not c.isalnum()})
    return _entropy(value) >= 0.75 * _log2(min(len(value), alphabet))


def _tier(key: str) -> int:
    """2 for a name that says secret (password, api_key, client_secret ...), 1 for one that may
    hold one (ending in key or sig, or a plural: tokens), 0 for any other."""
    found = _tiers.get(key)
    if found is None:
        segs = [s.lower() for s in _rule("segments").findall(key.rsplit(".", 1)[-1])]
        found = 0
        if segs and segs[-1] not in _EXCL_LAST and segs[0] not in _EXCL_FIRST:
            tail = segs[-3:]
            for s in (*tail, *(a + b for a, b in zip(tail, tail[1:], strict=False))):
                strong = s.endswith(_STRONG) or s.startswith("secret") or s in _STRONG_EQ
                if strong and (not s.endswith(_WEAK) or s.endswith(_STRONG_KEYS)):
                    found = 2
            if not found and any("".join(segs[-n:]).endswith(_WEAK) for n in (1, 2, 3)):
                found = 1
            found = 0 if "public" in segs else found
        if len(_tiers) < 4096:
            _tiers[key] = found
    return found


def _secret_value(value: str, tier: int, quote: str, loose: bool, key: str) -> bool:
    """Whether `value`, given to a name of `tier`, is a secret. `quote` is its quote, if any;
    `loose` (an env file, a config line) lets a bare word count as a value."""
    if len(value) < 4 or value[0] in "$%<[{(!*" or value.startswith(("#{", "@{")):
        return False  # a variable, template, placeholder, structure, or masked already
    if not _rule("alnum3").match(value.replace("\\n", "")) or _dummy(value) or "://" in value:
        return False
    if _rule("not_secret").fullmatch(value) or value.strip().lower() in _SCHEMES:
        return False  # 1.2.3, #a0b1c2, AWS_SECRET_ACCESS_KEY, NextToken, X-Api-Key, "Basic "
    if value[0] in "/~." and "/" in value:
        return False  # the path of a secret, not the secret
    ref = None if quote else _rule("code_ref").fullmatch(value)
    if ref is not None and (ref.group("call") or ("." in value and not _digits(value))):
        return False  # get_token(), form.cleaned_data
    if tier == 1:
        return _looks_random(value)
    if value.isdigit():
        return "pass" in key or "pw" in key or "pin" in key
    if "{" in value or "%" in value:
        rest = _rule("template").sub("", value)
        if rest != value and sum(c.isalnum() for c in rest) < 6:
            return False  # "{token}", "Bearer ${TOKEN}"
    if quote:
        return not (quote == "`" and " " in value)  # `cat secret.txt` runs a command
    return value.lower() not in _LITERALS and (loose or _digits(value) or ref is None)


def _keyword(text: str, i: int, j: int, out: list[_Span], seen: set[int]) -> None:
    end = _rule("ident").match(text, j).end()  # type: ignore[union-attr]  # always matches
    m = _rule("assign").match(text, end) if end - j < 64 else None  # 64: not a name
    start, stop = i, max(0, i - 64)
    while start > stop and text[start - 1] in _IDENT:
        start -= 1
    if m is None or start in seen:
        return
    seen.add(start)
    key = text[start:end]
    tier = _tier(key)
    op, group = m.group("op").strip(), m.lastgroup or "u"
    value, vs, ve = m.group(group), m.start(group), m.end(group)
    quote = "" if group == "u" else "`" if group == "e" else '"'
    if not tier or not (op or key.startswith("-") and value[:1] not in ("", "-")):
        return  # "password combination", "pass `x` to": words; "--token -v": two flags
    parts = value.split(None, 1)
    if "auth" in key.lower() and parts and parts[0].lower() in _SCHEMES:
        if len(parts) > 1:  # "Bearer abc" inside quotes: keep the scheme
            vs += value.index(parts[1], len(parts[0]))
            value = text[vs:ve]
        elif not quote:  # Authorization: Bearer abc
            nxt = _rule("scheme").match(text, ve)
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
    if not quote and rest[:1] in ("|", ",", ")", ";", "}") and _rule("code_ref").fullmatch(value):
        return  # f(token=tok2), private_key: Ed25519PrivateKey | None: code, not a value
    if op in ("==", "!=", "===", "!=="):  # token == "with": a parser, not a credential
        quote, loose = "", False
    elif op == "=":
        loose = key == key.upper()  # API_TOKEN=abc in an env file
    else:  # "password: abc" alone on its line: YAML, ini, a header; not "x: Type"
        bol = text.rfind("\n", max(0, start - 200), start)
        head = text[bol + 1 : start].strip(" \t-\"'") if bol >= 0 or start < 200 else "x"
        loose = op == ":" and not head and rest[:1] in ("", "#") and not value.istitle()
    if _secret_value(value, tier, quote, loose, key.lower()):
        out.append((vs, ve, REDACTED))


def _url(text: str, i: int, out: list[_Span]) -> None:
    m = _rule("url").match(text, i + 3)
    if m is not None:
        pw = m.group("p")
        if pw[0] not in "$<[{" and not _dummy(pw) and any(c.isalnum() for c in pw):
            out.append((m.start("p"), m.end("p"), REDACTED))


def _email(text: str, i: int, out: list[_Span]) -> None:
    start, stop = i, max(0, i - 64)
    while start > stop and text[start - 1] in _LOCAL:
        start -= 1
    while start < i and text[start] in "._%+-":
        start += 1
    m = _rule("domain").match(text, i + 1) if start < i else None
    if m is not None:
        out.append((start, m.end(), EMAIL))


def _pem(text: str, i: int, out: list[_Span], state: dict[str, int]) -> None:
    m = _rule("pem").match(text, i)
    if m is None or i < state.get("done", 0):
        return
    if state.get("end", -1) < m.end():  # the next END after this header, searched for once
        found = _rule("pem_end").search(text, m.end())
        state["end"], state["end_to"] = (found.start(), found.end()) if found else (len(text), -1)
    if state["end_to"] >= 0 and state["end"] - m.end() < 65536:
        body, end = text[m.end() : state["end"]], state["end_to"]
    else:  # a key cut short: mask to the next blank line
        end = text.find("\n\n", m.end(), m.end() + 65536)
        end = min(len(text), m.end() + 65536) if end < 0 else end
        body = text[m.end() : end]
    body = body.replace("\\n", "\n").replace("\\r", "")
    if body.strip(" \t\r\n\"'") and _rule("pem_body").fullmatch(body):
        out.append((i, end, REDACTED))
        state["done"] = end


def _scheme(text: str, i: int, j: int, out: list[_Span]) -> None:
    """A token after ``Bearer`` or ``Basic`` outside an Authorization header."""
    m = None if i and text[i - 1].isalnum() else _rule("scheme").match(text, j)
    if m is None or _dummy(m.group(1)):
        return
    value = m.group(1)
    generated = _looks_random(value)
    basic = text[i + 1] in "aA" and any(c in "0123456789+/=" for c in value)  # base64
    if generated or basic or (_digits(value) and text[i + 1] in "eE"):  # not "Basic Auth"
        out.append((m.start(1), m.end(1), REDACTED))


def _curl(text: str, i: int, out: list[_Span]) -> None:
    """``curl -u user:password``: the password, or the user when it is a lone token."""
    after = i + (6 if text[i + 1] == "-" else 2)
    m = None if i and text[i - 1] not in " \t\n'\"" else _rule("arg").match(text, after)
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
            if part[0] not in "$<[{%(" and not part.isdigit() and not _dummy(part) and not example:
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
        if budget == _BUDGET:  # text this dense in triggers is hostile: mask the rest, stay fast
            out.append((i, len(text), REDACTED))
            return
        owners, special = _handlers[literal]
        for index in owners:
            back, random, source = _families[index]
            rule = _compiled(source)
            found = rule.search(text, max(0, i - back), i + len(literal) + 200) if back else None
            found = rule.match(text, i) if not back else found
            if found is None or found.start() > i:
                continue
            body = found.group("b" if "b" in rule.groupindex else 0)
            if _repeats(body) or _alphabet(body) or _rule("markers").search(body.lower()):
                continue  # ghp_xxxxxxxx, AKIA...EXAMPLE: a placeholder
            if not random or _looks_random(body, words=random > 1):
                out.append((found.start("s" if "s" in rule.groupindex else 0),
                            found.end("s" if "s" in rule.groupindex else 0), REDACTED))  # fmt: skip
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
                found.append(_compiled(pattern))
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
        for rule in extra:
            found = rule.finditer(text)
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
            tier = _tier(key) if 0 < len(key) <= 64 else 0
            if tier and "\n" not in node and _secret_value(node, tier, '"', True, key.lower()):
                return REDACTED
            return mask(node, extra_patterns, mask_emails)
        if isinstance(node, dict):
            return {k: walk(v, k if isinstance(k, str) else "") for k, v in node.items()}
        if isinstance(node, list | tuple):
            items = [walk(v, key) for v in node]
            return items if isinstance(node, list) else tuple(items)
        return node

    return walk(obj, "")


def is_denied_path(path: str, globs: Sequence[str]) -> bool:
    """True if the base name of `path`, or the whole path, matches one of the fnmatch-style
    `globs` (``*``, ``?``, ``[seq]``, ``[!seq]``), ignoring case."""
    full = path.replace("\\", "/").lower()
    base = full.rstrip("/").rsplit("/", 1)[-1]
    return any(_glob_match(base, g.lower()) or _glob_match(full, g.lower()) for g in globs)


def _glob_match(name: str, glob: str) -> bool:
    if "?" in glob or "[" in glob:  # rare: a regex, compiled once
        out, i = [], 0
        while i < len(glob):
            c, i = glob[i], i + 1
            if c == "[" and "]" in glob[i + 1 :]:
                close = glob.index("]", i + 1)
                body = glob[i:close].replace("\\", "\\\\")
                out.append("[^" + body[1:] + "]" if body[0] == "!" else "[" + body + "]")
                i = close + 1
            else:
                out.append({"*": "(?s:.*)", "?": "(?s:.)"}.get(c, c.translate(_ESCAPES)))
        return _compiled("".join(out)).fullmatch(name) is not None
    if "*" not in glob:
        return name == glob
    head, *middle, tail = glob.split("*")
    if len(name) < len(head) + len(tail) or not name.startswith(head) or not name.endswith(tail):
        return False
    pos, stop = len(head), len(name) - len(tail)
    for part in middle:
        pos = name.find(part, pos, stop)
        if pos < 0:
            return False
        pos += len(part)
    return True
