"""Secret masking of `mem capture`: each family, readable output, false positives, properties.

The secrets here are made at run time from a seeded generator, so that no secret-shaped string
sits in the repository for scanners to trip on; every prefix is split for the same reason.
"""

from __future__ import annotations

import ast
import base64
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memcli.privacy.masking import DEFAULT_DENY_GLOBS, EMAIL, REDACTED, is_denied_path
from memcli.privacy.redactor import mask, mask_obj

ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
_rng = random.Random(20261129)


def drawn(n: int, alphabet: str = ALNUM, rng: random.Random = _rng) -> str:
    """`n` random characters that look like a real key (no xxxxxx, abcdef or 123456 runs)."""
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(n))
        runs = re.search(r"(.)\1{3}", value) or any(
            ord(value[k + 1]) == ord(value[k]) + 1 == ord(value[k + 2]) - 1 for k in range(n - 2)
        )
        if not runs and not re.search("fake|dummy|example|sample|here", value, re.I):
            return value


def private_key(kind: str = "RSA ") -> str:
    body = "\n".join(drawn(64, B64) for _ in range(4)) + "\n" + drawn(24, B64) + "=="
    return f"-----BEGIN {kind}PRIVATE KEY-----\n{body}\n-----END {kind}PRIVATE KEY-----"


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


GITHUB = "gh" + "p_" + drawn(36)
AWS_ID = "AK" + "IA" + drawn(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
AWS_SECRET = drawn(40, B64)
STRIPE = "sk" + "_live_" + drawn(48)
JWT = ".".join(
    (b64url(b'{"alg":"HS256","typ":"JWT"}'), b64url(b'{"sub":"u-81","exp":1893456000}'), drawn(43))
)

# (family, text with one secret, the secret): the secret goes, the words around it stay.
FAMILIES = [
    ("aws access key", f"deploy used {AWS_ID} yesterday", AWS_ID),
    ("aws secret key", f"aws_secret_access_key = {AWS_SECRET}", AWS_SECRET),
    ("aws secret in ini", f"[default]\naws_secret_access_key={AWS_SECRET}\n", AWS_SECRET),
    ("gcp api key", f"const key = '{'AI' + 'za' + drawn(35)}';", None),
    (
        "azure storage connection string",
        "DefaultEndpointsProtocol=https;AccountName=shopdata;AccountKey="
        + (azure_key := drawn(86, B64) + "==")
        + ";EndpointSuffix=core.windows.net",
        azure_key,
    ),
    (
        "azure ad client secret",
        f"client id ok, secret {(ad := drawn(3) + '8Q' + '~' + drawn(31))} works",
        ad,
    ),
    ("github classic token", f"git clone https://{GITHUB}@github.com/org/repo", GITHUB),
    ("github oauth token", f"token {(t := 'gh' + 'o_' + drawn(36))}", t),
    ("github app token", f"GH_TOKEN={(t2 := 'gh' + 's_' + drawn(36))}", t2),
    ("github user-to-server", f"auth: {(t3 := 'gh' + 'u_' + drawn(36))}", t3),
    ("github refresh token", f"refresh with {(t4 := 'gh' + 'r_' + drawn(36))} now", t4),
    ("github fine-grained", f"uses {(t5 := 'github' + '_pat_' + drawn(22) + '_' + drawn(59))}", t5),
    ("gitlab token", f"export CI_TOKEN={(gl := 'gl' + 'pat-' + drawn(20))}", gl),
    (
        "slack bot token",
        f"bot: {(sl := 'xo' + 'xb-' + drawn(12, '0123456789') + '-' + drawn(24))}",
        sl,
    ),
    (
        "slack webhook",
        "post to https://hooks.slack.com/services/"
        + (hook := "T" + drawn(8) + "/B" + drawn(8) + "/" + drawn(24))
        + " on failure",
        hook,
    ),
    ("stripe live key", f"STRIPE_KEY={STRIPE}", STRIPE),
    ("stripe restricted test key", f"use {(rk := 'rk' + '_test_' + drawn(40))} in CI", rk),
    ("openai key", f"OPENAI_API_KEY={(oa := 'sk' + '-proj-' + drawn(48))}", oa),
    (
        "anthropic key",
        f"client = Anthropic(api_key='{(an := 'sk' + '-ant-api03-' + drawn(93) + 'AA')}')",
        an,
    ),
    ("npm token", f"//registry.npmjs.org/:_authToken={(npm := 'np' + 'm_' + drawn(36))}", npm),
    ("pypi token", f"password = {(pp := 'py' + 'pi-AgEIcHlwaS5vcmc' + drawn(60))}", pp),
    ("sendgrid key", f"key {(sg := 'S' + 'G.' + drawn(22) + '.' + drawn(43))} sent", sg),
    ("twilio api key", f"twilio {(tw := 'S' + 'K' + drawn(32, HEX))} ok", tw),
    (
        "discord bot token",
        f"DISCORD={(dc := 'M' + drawn(23) + '.' + drawn(6) + '.' + drawn(27))}",
        dc,
    ),
    (
        "telegram bot token",
        f"https://api.telegram.org/bot{(tg := '1234567' + '81:AA' + drawn(33))}/getMe",
        tg,
    ),
    ("mailchimp key", f"mc key {(mc := drawn(32, HEX) + '-us' + '14')}", mc),
    ("square token", f"SQUARE={(sq := 'sq' + '0atp-' + drawn(22))}", sq),
    ("huggingface token", f"HF_TOKEN={(hf := 'h' + 'f_' + drawn(34, ALNUM[:52]))}", hf),
    ("jwt", f"cookie session={JWT}; Path=/", JWT),
    ("jwt in a bearer header", f"Authorization: Bearer {JWT}", JWT),
    ("url password", "postgresql://shop:s3cr3t-Passw0rd@localhost:5432/shop", "s3cr3t-Passw0rd"),
    ("url password with @", "redis://:p@ss-W0rd9@cache:6379/0", "p@ss-W0rd9"),
    ("env assignment", "DB_PASSWORD=hunter2-prod", "hunter2-prod"),
    ("env word password", "ADMIN_PASS=letmein", "letmein"),
    ("yaml assignment", "database:\n  password: Tr0ub4dor&3\n  user: shop", "Tr0ub4dor&3"),
    ("yaml bare word", "smtp:\n  password: correcthorse\n", "correcthorse"),
    ("json assignment", '{"user": "shop", "api_key": "k-93jd8s-22kd"}', "k-93jd8s-22kd"),
    ("escaped json", '{\\"client_secret\\": \\"Zx81-pq2-LL0\\"}', "Zx81-pq2-LL0"),
    ("python kwarg", 'connect(user="shop", password="hunter2")', "hunter2"),
    ("go assignment", 'apiToken := "t0k3n-881-xyz"', "t0k3n-881-xyz"),
    ("properties file", "spring.datasource.password=S3cret!", "S3cret!"),
    ("command-line flag", "mysql --password Qw3rty99 -h db", "Qw3rty99"),
    ("flag with equals", "tool --api-key=ab12cd34ef56", "ab12cd34ef56"),
    ("high entropy beside key", f"cache_signing_key = '{(hk := drawn(40))}'", hk),
    ("authorization basic", "Authorization: Basic dXNlcjpodW50ZXIy", "dXNlcjpodW50ZXIy"),
    ("curl header", f'curl -H "Authorization: Bearer {(bt := drawn(32))}" https://api.x.io', bt),
    ("curl user", "curl -u admin:S3cr3tPass! https://api.x.io", "S3cr3tPass!"),
    ("private key", f"key:\n{private_key()}\nend", None),
    ("openssh private key", f"{private_key('OPENSSH ')}", None),
]


@pytest.mark.parametrize(("family", "text", "secret"), FAMILIES, ids=[f[0] for f in FAMILIES])
def test_each_family_is_masked(family: str, text: str, secret: str | None) -> None:
    out = mask(text)
    assert REDACTED in out, family
    if secret is not None:
        assert secret not in out
    assert mask(out) == out


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "postgresql://shop:s3cr3t-Passw0rd@localhost:5432/shop",
            "postgresql://shop:[REDACTED]@localhost:5432/shop",
        ),
        (f"STRIPE_KEY={STRIPE}", "STRIPE_KEY=[REDACTED]"),
        ('password = "hunter2"', 'password = "[REDACTED]"'),
        (f"I pushed with {GITHUB} by mistake.", "I pushed with [REDACTED] by mistake."),
        (f"export AWS_ACCESS_KEY_ID={AWS_ID}", "export AWS_ACCESS_KEY_ID=[REDACTED]"),
        (f"Authorization: Bearer {JWT}", "Authorization: Bearer [REDACTED]"),
        (
            'headers = {"Authorization": "Basic dXNlcjpwYXNz"}',
            'headers = {"Authorization": "Basic [REDACTED]"}',
        ),
        ("curl -u admin:S3cr3tPass! https://x.io", "curl -u admin:[REDACTED] https://x.io"),
        (f"Authorization: Token {drawn(40, HEX)}", "Authorization: Token [REDACTED]"),
        (
            f'Authorization: Digest username="shop", response="{drawn(32, HEX)}"',
            "Authorization: Digest [REDACTED]",
        ),
        ("Mail jane.doe@example.com today.", f"Mail {EMAIL} today."),
        (f"before\n{private_key()}\nafter", "before\n[REDACTED]\nafter"),
        (
            "https://hooks.slack.com/services/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",
            "https://hooks.slack.com/services/[REDACTED]",
        ),
    ],
)
def test_the_sentence_around_a_secret_stays_readable(text: str, expected: str) -> None:
    assert mask(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed the parser",
        "request id 123e4567-e89b-12d3-a456-426614174000 timed out",
        'File "/usr/lib/python3.11/site-packages/requests/sessions.py", line 589, in request',
        "bumped version from 1.2.3 to 1.10.0-rc.1 (see CHANGELOG.md)",
        "password_field = form.cleaned_data",
        "token = get_token()",
        "api_key = os.environ['API_KEY']",
        "secret = settings.SECRET_KEY",
        "tokenizer = AutoTokenizer.from_pretrained(model_name)",
        "def check_password(password: str, token: Optional[str] = None) -> bool:",
        "    token: str",
        '    if token == "with":',
        "for key, value in sorted(mapping.items(), key=lambda kv: kv[0]):",
        '{"prompt_tokens": 1234, "completion_tokens": 567, "max_tokens": 4096}',
        '{"input_token": "next_token", "output_token": "NextToken"}',
        "The API key is read from the environment; rotate the token every month.",
        "Set `api_key` in config.yaml, then pass `--token` to the CLI.",
        "KeyError: 'user_id'",
        "private_key_path = '/home/dev/.ssh/id_ed25519'",
        "SECRET_KEY_FILE=/run/secrets/django",
        "Authorization header missing; basic auth is disabled.",
        "git remote add origin git@github.com:acme/shop.git",
        "pip install requests==2.31.0 && npm i left-pad@1.3.0",
        "see https://docs.python.org/3/library/re.html#re.compile",
        "ssh deploy@10.0.0.5 'systemctl restart shop'",
        "@pytest.mark.parametrize('x', [1, 2])",
        "docker run -u 1000:1000 shop && git push -u origin main",
        "private_key = load_pem_private_key(data, password=None)",
        'START = b"-----BEGIN RSA PRIVATE KEY-----"\nEND = b"-----END RSA PRIVATE KEY-----"',
        "data:image/png;base64," + base64.b64encode(random.Random(7).randbytes(3000)).decode(),
        "Token.Keyword: '#008000',",
        "s.makeKubeConfigController = args",
        "ALLOW_CREDENTIALS = 'Access-Control-Allow-Credentials'",
        "the type check was not made to pass: src/theme/theme.ts(443,3): error TS2345",
        "still failing to pass: tests/test_cli.py::test_list and lib/store.rb:12",
    ],
)
def test_ordinary_code_and_prose_stay(text: str) -> None:
    assert mask(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "AWS example key AKIAIOSFODNN7EXAMPLE from the docs",
        "GITHUB_TOKEN=" + "gh" + "p_" + "x" * 36,
        "API_KEY=your_api_key_here",
        "password: ${DB_PASSWORD}",
        'token = "<YOUR_TOKEN>"',
        "postgres://app:${PGPASSWORD}@db:5432/app",
        'password = "changeme"',
        "curl -u user:pass https://example.com",
    ],
)
def test_documentation_placeholders_stay(text: str) -> None:
    assert mask(text) == text


def test_emails_are_masked_unless_turned_off() -> None:
    text = "Reviewed by Jane Doe <jane.doe+ci@mail.example.co.uk>."
    assert mask(text) == f"Reviewed by Jane Doe <{EMAIL}>."
    assert mask(text, mask_emails=False) == text


def test_extra_patterns_mask_their_whole_match_and_a_bad_one_is_ignored() -> None:
    text = "ticket ACME-12345 and ACME-7 are open"
    assert mask(text, ["ACME-[0-9]+"]) == "ticket [REDACTED] and [REDACTED] are open"
    assert mask(text, ["([", "ACME-[0-9]+"]) == "ticket [REDACTED] and [REDACTED] are open"
    assert mask(text, ["(unclosed"]) == text
    assert mask("RED", ["RED"]) == REDACTED and mask(REDACTED, ["RED"]) == REDACTED


def test_mask_obj_masks_every_string_and_keeps_the_shape() -> None:
    payload = {
        "tool_input": {"command": f"export TOKEN={GITHUB} && make"},
        "env": {"DB_PASSWORD": "hunter22", "HOME": "/home/dev"},
        "password": "letmein99",
        "lines": ["ok", f"key {AWS_ID}", ("tuple", "jane@example.com")],
        "count": 3,
        "ok": True,
        "none": None,
    }
    out = mask_obj(payload)
    assert out == {
        "tool_input": {"command": "export TOKEN=[REDACTED] && make"},
        "env": {"DB_PASSWORD": REDACTED, "HOME": "/home/dev"},
        "password": REDACTED,
        "lines": ["ok", "key [REDACTED]", ("tuple", EMAIL)],
        "count": 3,
        "ok": True,
        "none": None,
    }
    assert payload["password"] == "letmein99"  # a new structure; the input is untouched
    assert mask_obj(out) == out
    assert mask_obj({"prompt_tokens": "123", "token_type": "bearer"}) == {
        "prompt_tokens": "123",
        "token_type": "bearer",
    }


@pytest.mark.parametrize(
    "path",
    [
        ".env",
        "/home/dev/shop/.env.production",
        "C:\\Users\\dev\\.npmrc",
        "config/server.PEM",
        "/home/dev/.ssh/id_rsa",
        "/home/dev/.ssh/id_ed25519.pub",
        "deploy/tls.key",
        "certs/client.p12",
        "secrets.yaml",
        "aws/credentials",
        "android/app/release.keystore",
        "~/.pypirc",
        ".netrc",
    ],
)
def test_default_deny_globs_catch_key_files(path: str) -> None:
    assert is_denied_path(path, DEFAULT_DENY_GLOBS)


@pytest.mark.parametrize(
    "path",
    ["src/main.py", "environment.py", "README.md", "keys.py", "docs/secret-management.md", "env/"],
)
def test_default_deny_globs_leave_source_files(path: str) -> None:
    assert not is_denied_path(path, DEFAULT_DENY_GLOBS)


def test_deny_globs_match_base_name_or_whole_path_with_fnmatch_syntax() -> None:
    assert is_denied_path("a/b/vault/prod.json", ["*/vault/*"])
    assert is_denied_path("keys/key1.pem", ["key?.pem"])
    assert is_denied_path("keys/keyA.pem", ["key[A-C].pem"])
    assert not is_denied_path("keys/keyD.pem", ["key[!D].pem"])
    assert not is_denied_path("anything", [])


def test_huge_inputs_complete() -> None:
    a_run = "a" * 10_000_000
    assert mask(a_run) == a_run
    blob = base64.b64encode(random.Random(1).randbytes(7_500_000)).decode()
    assert mask(blob) == blob
    dense = f"password={GITHUB}\n" * 300_000  # far more triggers than the per-text budget
    out = mask(dense)
    assert GITHUB not in out and mask(out) == out


HOOK_PATH = ("masking", "secret_rules", "secret_values", "secret_handlers", "denylist",
             "redactor", "user_patterns", "session_secrets", "owner_only")  # fmt: skip


def test_the_hook_path_of_privacy_imports_nothing_heavy() -> None:
    folder = Path(__file__).resolve().parents[2] / "memcli" / "privacy"
    names = set()
    for name in HOOK_PATH:
        for node in ast.walk(ast.parse((folder / f"{name}.py").read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
    allowed = {"re", "os", "math", "_signal", "_blake2", "__future__", "memcli.fastparse.fastre"}
    allowed |= {"memcli.fastparse", "collections.abc"} | {f"memcli.privacy.{n}" for n in HOOK_PATH}
    allowed.add("memcli.privacy")
    assert names <= allowed, names - allowed
    code = (
        "import sys, memcli.privacy.redactor, memcli.privacy.masking;"
        "print(sorted({'re', 'math', 'typing', 'signal', 'hashlib'} & set(sys.modules)))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "[]", result.stderr


# Properties, on arbitrary text and on text made of the pieces the rules look for.
PIECES = st.sampled_from(
    [
        "password", "token", "API_KEY", "secret", "auth", "=", ": ", '"', "'", "`", "\\\"",
        " ", "\n", "://", "@", "user:", "-----BEGIN PRIVATE KEY-----", "-----END PRIVATE KEY-----",
        "Bearer ", "Basic ", "curl -u ", "--password ", "eyJ", "AKIA", "gh" + "p_", "sk-", ".",
        "(", ")", "{", "}", "[", "]", "$", "#", REDACTED, EMAIL, "example.com", "x" * 8,
    ]
)  # fmt: skip
TEXTS = st.one_of(
    st.text(),
    st.text(st.characters(exclude_categories=())),  # lone surrogates too
    st.lists(PIECES | st.text(alphabet=ALNUM + "_-.+/=:", max_size=12), max_size=40).map("".join),
)
SEPARATORS = st.sampled_from([" ", "\n", "\t", "=", ": ", '"', "'", "(", ",", "|", "\n\n"])


def planted(kind: str, seed: int) -> str:
    rng = random.Random(seed)
    if kind == "github":
        return "gh" + "p_" + drawn(36, rng=rng)
    if kind == "aws":
        return "AK" + "IA" + drawn(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", rng=rng)
    body = "\n".join(drawn(64, B64, rng=rng) for _ in range(3))
    return f"-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----"


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    TEXTS,
    st.integers(min_value=0),
    st.sampled_from(["github", "aws", "private key"]),
    st.integers(0, 2**32),
    SEPARATORS,
    SEPARATORS,
)
def test_a_planted_secret_never_survives(
    text: str, at: int, kind: str, seed: int, before: str, after: str
) -> None:
    secret = planted(kind, seed)
    at %= len(text) + 1
    out = mask(text[:at] + before + secret + after + text[at:])
    for part in secret.split("\n")[1:-1] or [secret]:
        assert part not in out


@settings(deadline=None)
@given(TEXTS, st.booleans())
def test_mask_never_raises_and_is_idempotent(text: str, emails: bool) -> None:
    once = mask(text, mask_emails=emails)
    assert isinstance(once, str)
    assert mask(once, mask_emails=emails) == once


@settings(deadline=None)
@given(
    st.recursive(
        TEXTS | st.integers() | st.none(),
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(st.sampled_from(["password", "token", "cmd", "key", "id"]), inner)
        ),
        max_leaves=12,
    )
)
def test_mask_obj_is_idempotent_on_nested_payloads(obj: object) -> None:
    once = mask_obj(obj)
    assert mask_obj(once) == once


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The DB password is s3cr3t-Passw0rd and", "The DB password is [REDACTED] and"),
        ("my password was hunter2.", "my password was [REDACTED]."),
        ("the API key is AKIA1234", "the API key is [REDACTED]"),
        ("password is required", "password is required"),
        ("the secret is that it works", "the secret is that it works"),
    ],
)
def test_secrets_in_prose_are_masked(text: str, expected: str) -> None:
    assert mask(text) == expected
