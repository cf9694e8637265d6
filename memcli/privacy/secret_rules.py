"""The rule tables of the masker: which token families, trigger words, regexes and word
lists `memcli.privacy.masking` works from, and each regex compiled once, on first use.

Everything here is data (strings, dicts, frozensets), so importing the module imports nothing;
a regex is compiled only when `rule` or `compiled` first asks for it, through
`memcli.fastparse.fastre` (compiled code cached on disk, no `import re`), else :mod:`re`.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

REDACTED = "[REDACTED]"
EMAIL = "[EMAIL]"


# Token families, one a line: (NAME, "TRIGGERS [+back=N] [+random] :: RULE"); NAME is what a
# report calls what the rule found. A trigger is a literal
# (lower-case: matched in any case; with capitals: exactly), optionally followed by a regex tail
# (from its first "(") that must match too. RULE runs on the text at the trigger, or up to N
# characters before it, and the token must follow a non-word character. Group "s", if any, is
# the part masked; group "b" (else the match) must not be a placeholder (xxxx, 123456, example)
# and with +random must look generated (+words: and not be made of words, "makeKubeConfig").
# fmt: off
FAMILIES = (
    ("AWS access key",
     r"AKIA ASIA ABIA ACCA A3T :: (?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])"),
    ("Google API key",
     r"AIza :: AIza[\w-]{35}(?![\w-])"),
    ("GitHub token",
     r"ghp_ gho_ ghu_ ghs_ ghr_ :: gh[pousr]_[A-Za-z0-9]{36,255}(?![\w-])"),
    ("GitHub token",
     r"github_pat_ :: github_pat_[A-Za-z0-9_]{22,255}(?![\w-])"),
    ("GitLab token",
     r"glpat- gldt- glcbt- glptt- glrt- gloas- glimt- glagent- glsoat- glft- glffct- glso- gltst- "
     r":: gl(?:pat|dt|cbt|ptt|rt|oas|imt|agent|soat|ft|ffct|so|tst)-[\w-]{20,}"),
    ("GitLab token",
     r"GR1348941 :: GR1348941[\w-]{20,}"),
    ("Grafana token",
     r"glc_ glsa_ :: gl(?:c_[A-Za-z0-9+/]{32,400}={0,2}"
     r"|sa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}(?![\w-]))"),
    ("Slack token",
     r"xox :: xox(?:[abposr]-(?:[0-9]+-){1,6}|e(?:\.xox[bp])?-[0-9]-(?=\w{100}))"
     r"(?P<b>[A-Za-z0-9]{10,})(?![\w-])"),
    ("Slack webhook",
     r"hooks.slack.com/ :: hooks\.slack\.com/(?:services|workflows|triggers)/(?P<s>[\w/-]{20,})"),
    ("Stripe key",
     r"sk_ rk_ :: [sr]k_(?:live|test)_[A-Za-z0-9]{10,}(?![\w-])"),
    ("Stripe webhook secret",
     r"whsec_ :: whsec_[A-Za-z0-9+/=]{24,}"),
    ("Anthropic API key",
     r"sk- :: sk-ant-[a-z]{2,10}[0-9]{0,3}-[\w-]{20,}(?![\w-])"),
    ("API key",
     r"sk- +random :: sk-(?:proj-|svcacct-|admin-)?(?P<b>[\w-]{20,})(?![\w-])"),
    ("npm token",
     r"npm_ :: npm_[A-Za-z0-9]{36}(?![\w-])"),
    ("PyPI token",
     r"pypi- :: pypi-AgE[\w-]{50,}"),
    ("SendGrid key",
     r"sg. :: SG\.[\w-]{22}\.[\w-]{43}(?![\w-])"),
    ("Mailgun key",
     r"key- :: key-[0-9a-f]{32}(?![\w-])"),
    ("Twilio key",
     r"AC(?=[0-9a-f]{32}) SK(?=[0-9a-f]{32}) :: (?:AC|SK)[0-9a-f]{32}(?![\w-])"),
    ("Discord token",
     r".(?=[\w-]{6}\.[\w-]{27})(?:(?<=[mno][\w-]{23}\.)|(?<=[mno][\w-]{24}\.)"
     r"|(?<=[mno][\w-]{25}\.)) +back=26 :: [MNO][\w-]{23,25}\.[\w-]{6}\.[\w-]{27,100}(?![\w-])"),
    ("Telegram bot token",
     r":aa(?<=[0-9]{8}:aa)(?=[\w-]{32}) +back=10 "
     r":: (?:(?<=bot)|(?<![\w.-]))[0-9]{8,10}:AA[\w-]{32,33}(?![\w-])"),
    ("Azure client secret",
     r"q~(?<=[0-9]q~)(?=[\w~.-]{31}) +back=4 "
     r":: (?<![\w~.-])[\w~.]{3}[0-9]Q~[\w~.-]{31,34}(?![\w~.-])"),
    ("Facebook token",
     r"EAA :: EAA[\w-]{60,}(?![\w+/=-])"),  # not a run inside base64
    ("Facebook app token",
     r"|(?<=[0-9]{15}\|)(?=[\w-]{27}) +back=16 :: (?<![0-9])[0-9]{15,16}\|[\w-]{27}(?![\w-])"),
    ("Mailchimp key",
     r"-us(?<=[0-9a-f]{32}-us)(?=[0-9]) +back=32 "
     r":: (?<![A-Za-z0-9])[0-9a-f]{32}-us[0-9]{1,2}(?![\w-])"),
    ("Square token",
     r"sq0 :: sq0(?:atp|csp|idp)-[\w-]{22,}"),
    ("Vault token",
     r"hvs. hvb. hvr. :: hv[sbr]\.[\w-]{24,}(?![\w-])"),
    ("Vault token",
     r"s.(?=[a-z0-9]{24}(?![a-z0-9])) +random +words :: s\.(?P<b>[A-Za-z0-9]{24})(?![\w-])"),
    ("Notion token",
     r"ntn_ :: ntn_[0-9]{11}[A-Za-z0-9]{35}(?![\w-])"),
    ("Sourcegraph token",
     r"sgp_ :: sgp_(?:[A-Fa-f0-9]{16}_|local_)?[A-Fa-f0-9]{40}(?![\w-])"),
    ("Hugging Face token",
     r"hf_ api_org_ +random :: (?:hf|api_org)_(?P<b>[A-Za-z]{34})(?![\w-])"),
    ("DigitalOcean token",
     r"dop_v1_ doo_v1_ dor_v1_ :: do[opr]_v1_[a-f0-9]{64}(?![\w-])"),
    ("Shopify token",
     r"shpat_ shpca_ shppa_ shpss_ :: shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}(?![\w-])"),
    ("Linear key",
     r"lin_api_ :: lin_api_[A-Za-z0-9]{40}(?![\w-])"),
    ("Doppler token",
     r"dp. :: dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}(?![\w-])"),
    ("Postman key",
     r"pmak- :: PMAK-[a-f0-9]{24}-[a-f0-9]{34}(?![\w-])"),
    ("age secret key",
     r"age-secret-key-1 :: AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}(?![\w-])"),
    ("API key",
     r"pplx- gsk_ xai- +random :: (?:pplx-|gsk_|xai-)(?P<b>[A-Za-z0-9]{40,})(?![\w-])"),
    ("Replicate token",
     r"r8_ :: r8_[A-Za-z0-9]{37}(?![\w-])"),
    ("Databricks token",
     r"dapi(?=[0-9a-f]{32}) :: dapi[a-f0-9]{32}(?:-[0-9])?(?![\w-])"),
    ("Pulumi token",
     r"pul- :: pul-[a-f0-9]{40}(?![\w-])"),
    ("API key",
     r"ico- pnu_ +random :: (?:ico-|pnu_)(?P<b>[A-Za-z0-9]{32,36})(?![\w-])"),
    ("ReadMe key",
     r"rdme_ :: rdme_[a-z0-9]{70}(?![\w-])"),
    ("Fly.io token",
     r"fo1_ fm1_ fm2_ fm1a_ fm1r_ fm2a_ fm2r_ "
     r":: (?:fo1_[\w-]{43}(?![\w-])|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3})"),
    ("Terraform token",
     r"atlasv1. +back=15 :: [A-Za-z0-9]{14}\.atlasv1\.[\w=-]{60,70}(?![\w-])"),
    ("Sentry token",
     r"sntrys_ sntryu_ :: sntry(?:s_eyJ[\w+/=-]{50,}|u_[a-f0-9]{64}(?![\w-]))"),
    ("Supabase token",
     r"sbp_ :: sbp_[a-f0-9]{40}(?![\w-])"),
    ("Docker token",
     r"dckr_pat_ :: dckr_pat_[\w-]{27,}"),
    ("API key",
     r"hrku- nrak- :: (?:HRKU-[\w-]{60}|NRAK-[A-Z0-9]{27})(?![\w-])"),
    ("Alibaba key",
     r"LTAI :: LTAI[A-Za-z0-9]{20}(?![\w-])"),
    ("Tailscale key",
     r"tskey- :: tskey-[a-z]+-[A-Za-z0-9]{10,}-[A-Za-z0-9]{10,}(?![\w-])"),
    ("Artifactory token",
     r"AKCp cmVmdGtu :: (?:AKCp[A-Za-z0-9]{69}|cmVmdGtu[A-Za-z0-9]{56})(?![\w-])"),
    ("1Password token",
     r"ops_ :: ops_eyJ[\w+/=-]{100,}"),
    ("AWS Bedrock key",
     r"ABSK bedrock-api-key- :: (?:ABSKQmVkcm9ja0FQSUtleS[A-Za-z0-9+/]{50,}={0,2}"
     r"|bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[\w+/=%-]{50,})"),
    ("API key",
     r"api- :: API-[A-Z0-9]{26}(?![\w-])"),
    ("Intra42 secret",
     r"s-s4t2 :: s-s4t2(?:ud|af)-[a-f0-9]{64}(?![\w-])"),
    ("Google OAuth token",
     r"ya29. :: ya29\.(?P<b>[\w-]{20,})(?![\w-])"),
    ("Google OAuth token",
     r"1//0 :: 1//0[\w-]{30,}(?![\w-])"),
    ("JWT",
     r"eyJ :: eyJ[\w-]{10,}\.[\w-]{10,}(?:\.[\w-]*)?"),
)
# fmt: on
# Other triggers and their handlers; "kw" is a name of a secret, "flag" a short flag ("-p"; the
# trigger is the dash alone, so that "--password" is still seen as "pass"). A tail the text
# must match before Python runs keeps dense text cheap: a name of a secret needs an assignment
# after it.
OP = r"(?=[\w.-]{0,64}?(?:\\?[\"'`])?\]?[ \t]*(?:[:=]|!=))"
SPECIAL = {
    "pass": "kw", "pw": "kw", "secret": "kw", "token": "kw", "key": "kw", "auth": "kw",
    "cred": "kw", "sig": "kw", "bearer": "scheme", "basic": "scheme", "://": "url", "@": "email",
    "-----begin": "pem", "-u": "curl", "--user": "curl", "-": "flag",
}  # fmt: skip
_USER = r"(?=[ \t=]+[\"']?[^\s\"':]{0,128}[\"']?:)"
TAILS = {
    "bearer": r"(?=[ \t]+[\w.~+/-]{8})", "basic": r"(?=[ \t]+[\w.~+/-]{8})", "-u": _USER,
    "--user": _USER, "-": r"(?=p[ \t]*[^\s-])", "://": r"(?<=[a-z0-9]://)(?=[^\s/@'\"<>]{0,128}:[^\s/'\"<>?]{1,256}@)",
    "@": r"(?<=[\w%+.-]@)(?=[a-z0-9-]{1,63}\.[a-z0-9])",
}  # fmt: skip
# A trigger is anchored at the character of it that comes first here: separators, then rare
# letters. The scan stops only at anchors.
ANCHORS = "~|@:/_-.qxzjkpbgvwyfucdmhlrsnioate0123456789"
ESCAPES = {ord(c): "\\" + c for c in "\\.^$*+?{}[]|()"}
# A part of a snake_case or CONSTANT_NAME identifier: a word, an upper-case run, camelCase.
_SEGMENT = r"(?:[a-z]+(?:[A-Z][a-z]+)*|[A-Z]+(?![a-z])|[A-Z][a-z]+(?:[A-Z][a-z]+)*)"
RULES = {
    "ident": r"[\w.-]{0,64}",
    "assign": r"(?:\\?[\"'`])?\]?(?:\[[0-9]{0,4}\])?"  # a quoted key, a subscript, a C array
    r"(?P<op>[ \t]*(?:=>|:=|[!=]==?|=|:(?![:/]))[ \t]*|[ \t]+)(?:@|[rbuf]{1,2}(?=[\"']))?"
    r"(?:\"(?P<c>[^\"\\\n]{0,300}(?:\\.[^\"\\\n]{0,300}){0,9})\""
    r"|'(?P<d>[^'\\\n]{0,300}(?:\\.[^'\\\n]{0,300}){0,9})'"
    r"|(?P<u>[^\s\"'`,;&\\=][^\s\"'`,;&=]{0,299}=*)|\\\"(?P<a>[^\n]{0,300}?)\\\""
    r"|\\'(?P<b>[^\n]{0,300}?)\\'|`(?P<e>[^`\n]{0,300})`)",
    "url": r"[^\s:/@'\"<>]{0,128}:(?P<p>[^\s/'\"<>?]{1,256})@(?=[A-Za-z0-9\[])",
    "domain": r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,8}[A-Za-z]{2,24}"
    r"(?![A-Za-z0-9-]|\.[A-Za-z0-9]|:[\w~/])",  # not git@github.com:org/repo
    "pem": r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----",
    "pem_end": r"-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----",
    "after_ampersand": r"[^\s\"'`,;=]{0,300}",
    "word_run": r"[^\s\"'`,;()\[\]{}<>|=]{6,512}",
    "pem_gap": r"(?:[ \t\"']|\\[rn]|\r|\n)+",
    "pem_chunk": r"[A-Za-z0-9+/=]+(?:\.{2,}|\u2026)?",
    "password_command": r"(?<![\w-])(?:(?P<login>(?:docker|podman|buildah|nerdctl|skopeo|helm|oras"
    r"|crane|regctl)\b[^\n;&|]{0,200}?\blogin\b)|(?P<sshpass>sshpass\b)|(?:mysql|mysqladmin"
    r"|mysqldump|mysqlimport|mysqlshow|mysqlcheck|mariadb|mariadb-dump)\b)",
    "flag_value": r"(?P<gap>[ \t]+)?(?P<v>\"[^\"\n]{1,200}\"|'[^'\n]{1,200}'|[^\s\"'`;&|]{1,200})",
    "pem_body": r"[\w\s+/=:,.\"'-]*[A-Za-z0-9+/=]{20}[\w\s+/=:,.\"'-]*",  # base64 and headers
    "arg": r"[ \t]*=?[ \t]*((?:\"[^\"\n]{0,200}\"|'[^'\n]{0,200}'|[^\s\"']{1,200}){1,6})",
    "scheme": r"[ \t]+([\w.~+/-]{8,400}=*)",
    "digest": r"[ \t]+((?:[^\n\"'`]|\"[^\"\n]{0,200}\"){8,400})",  # username="u", nonce="n"
    "segments": r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+",
    "code_ref": r"[A-Za-z_$][\w$]*(?:(?:\.|->|::)[A-Za-z_$][\w$]*)*(?P<call>[(\[].*)?",
    # src/app/theme.ts(443,3), tests/test_x.py::test_y, lib/a.rb:12: a source file, maybe a place
    "source_path": r"[\w.-]+(?:/[\w.-]+)*/[\w-]+\.[a-z][a-z0-9]{0,5}"
    r"(?:\(\d+(?:,\d+)?|(?::\d+)+|::\w+)?",
    "template": r"\$?\{\{?\s*[A-Za-z_][\w.]*\s*\}\}?|%\(\w*\)[sd]|%[sd](?![A-Za-z0-9])",
    "run": r"(.)\1{5}",
    "digit": r"[0-9]",
    "alnum3": r"(?:[^A-Za-z0-9]*[A-Za-z0-9]){3}",
    "markers": r"fake|dummy|example|sample|placeholder|change_?me|redacted|your[_-]|yourpass"
    r"|[_-]here\b|insert_",  # what documentation writes in place of a secret
    "not_secret": r"[0-9]+(?:\.[0-9]+)+|#[0-9a-fA-F]{3,8}|" + _SEGMENT + "(?:_" + _SEGMENT + ")+"
    r"|[A-Za-z][a-z]+(?:[A-Z][a-z]+)+|[A-Z]{2,}(?:[A-Z][a-z]+)+|[A-Z][a-z]*(?:-[A-Z][a-z]*)+",
    "word": r"[A-Z][a-z]{2,}|[a-z]{4,}",
}


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


PLACEHOLDERS = _words(
    "password passwd pass pwd secret token apikey api_key key changeme example sample dummy "
    "test testing foo bar baz placeholder redacted hidden masked value string none null xxx yyy "
    "username user"
)
LITERALS = _words(
    "none null nil true false undefined nan yes no on off str string int bool bytes number any "
    "object secretstr"
)
EXCL_LAST = _words(  # the name of something about a secret, not the secret
    "id ids name names file files path paths dir url urls uri endpoint field fields type types "
    "length len size count prefix suffix header headers env var vars format policy hint label "
    "ttl timeout expiry expires expiration mode index pattern regex stdin placeholder version "
    "arn ref enabled required source provider class method kind location param params position "
    "min max status error errors input text message msg help description title store manager "
    "service schema handler profile number"
)
EXCL_FIRST = _words("max min num total no is has use enable show should can")
STRONG = ("password", "passwd", "passphrase", "token", "apikey", "accesskey", "privatekey",
          "secretkey", "credential", "credentials", "authorization", "secret")  # fmt: skip
STRONG_EQ = frozenset(("pass", "pwd", "pw", "auth", "bearer"))
STRONG_KEYS = ("apikey", "accesskey", "secretkey", "privatekey")
WEAK = ("key", "keys", "tokens", "secrets", "passwords", "apikeys", "sig")
SCHEMES = _words("bearer basic token digest negotiate ntlm api-token apikey key")
BUDGET = 50_000  # triggers handled per text: about a second of work at worst
# "the password is hunter2", "token was s3cr3t-x": prose around a secret, no = or : to anchor
# the keyword rules (see secret_values.prose_spans).
PROSE = (
    r"(?i)\b(?:pass(?:word|phrase|wd)?|secret|token|api[ _-]?key|credentials?)"
    r"[ \t]+(?:is|was|are|were|reads|set to)[ \t]+[\"'`]?(?P<s>[^\s\"'`,;]{6,128})"
)

_by_name: "dict[str, re.Pattern[str]]" = {}
TRIGGERS_MEMO = "masking.triggers"  # fastre's memo of the trigger tables derived from these


def trigger_inputs() -> tuple[object, ...]:
    """The tables the trigger regexes are derived from: their memo is valid for these only."""
    return (FAMILIES, tuple(SPECIAL.items()), tuple(TAILS.items()), OP)


def compiled(pattern: str) -> "re.Pattern[str]":
    """`pattern` compiled once per process, from fastre's cached code when it has it."""
    from memcli.fastparse import fastre

    found: re.Pattern[str] = fastre.cached(pattern)
    return found


def rule(name: str) -> "re.Pattern[str]":
    found = _by_name.get(name)
    if found is None:
        found = _by_name[name] = compiled(RULES[name])
    return found
