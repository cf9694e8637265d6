"""The one redactor: which rule fired, the user's patterns (checked, time-bounded), the gaps of
issue 12 finding 5, and the session memory of secrets."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from memcli.fastparse import fastre
from memcli.privacy import user_patterns
from memcli.privacy.redactor import EXPIRED, Redactor
from memcli.privacy.session_secrets import SessionSecrets

RNG = random.Random(20261130)
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def drawn(n: int) -> str:
    while True:
        value = "".join(RNG.choice(ALNUM) for _ in range(n))
        if any(c.isdigit() for c in value) and any(c.isupper() for c in value):
            return value


def test_findings_name_the_rule_that_fired() -> None:
    token = "gh" + "p_" + drawn(36)
    text = f"push with {token} to https://ci:{drawn(12)}@ci.example.io; mail me@example.org"
    rules = list(dict.fromkeys(f.rule for f in Redactor().findings(text)))
    assert rules == ["GitHub token", "password in a URL", "e-mail address"]
    assert "e-mail address" not in [f.rule for f in Redactor(mask_emails=False).findings(text)]


def test_from_settings_takes_the_settings_or_the_section() -> None:
    secret = "ACME-" + drawn(10)
    section = {"extra_patterns": [r"ACME-\w{10}"], "mask_emails": False}
    for settings in (section, {"redaction": section}):
        redactor = Redactor.from_settings(settings)
        assert redactor.mask(f"id {secret} a@example.org") == "id [REDACTED] a@example.org"
    assert Redactor.from_settings({}).mask("a@example.org") == "[EMAIL]"


@pytest.mark.parametrize(
    "pattern",
    [r"(a+)+$", r"(\w*)*x", r"(?:a|ab)+c", r"(a)\1", r"(?P<x>a)(?P=x)", "(", "x" * 501],
)
def test_a_pattern_that_could_run_without_bound_is_refused(pattern: str) -> None:
    assert user_patterns.problem(pattern) is not None
    redactor = Redactor([pattern, "SAFE-[0-9]{4}"])
    assert redactor.problems and "extra_patterns[0]" in redactor.problems[0]
    assert redactor.mask("a" * 30 + "! SAFE-1234") == "a" * 30 + "! [REDACTED]"


@pytest.mark.parametrize(
    "pattern", [r"ACME-[A-Z0-9]{16}", r"(?:foo|bar)+-\d+", r"(?:a++)+b", r"internal\.corp"]
)
def test_ordinary_patterns_pass_the_check(pattern: str) -> None:
    assert user_patterns.problem(pattern) is None


def test_a_pattern_past_its_time_bound_masks_the_text_whole_and_is_dropped() -> None:
    slow = r"(?:a*){16}!x"  # bounded repeats pass the static check, but backtrack for ages
    assert user_patterns.problem(slow) is None
    redactor = Redactor([slow])
    assert redactor.mask("a" * 40) == "[REDACTED]"
    assert redactor.expired and any("time bound" in p for p in redactor.problems)
    assert redactor.mask("anything else") == "[REDACTED]"  # fails closed from then on
    assert [f.rule for f in Redactor([slow]).findings("a" * 40)] == [EXPIRED]


def test_the_time_bound_leaves_a_pending_alarm_in_place() -> None:
    import signal

    signal.setitimer(signal.ITIMER_REAL, 30)
    try:
        Redactor([r"x+y"]).mask("xxxx")
        assert signal.getitimer(signal.ITIMER_REAL)[0] > 20
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def test_the_check_is_kept_in_the_regex_cache(tmp_path: Path) -> None:
    cache = tmp_path / "regex.cache"
    code = (
        "import sys; from memcli.fastparse import fastre; fastre.use_cache(sys.argv[1]);"
        "from memcli.privacy.redactor import Redactor;"
        "print(Redactor(['ACME-[0-9]{4}']).mask('ACME-1234'), 're' in sys.modules);"
        "fastre.save()"
    )
    first = subprocess.run([sys.executable, "-c", code, str(cache)], capture_output=True, text=True)
    second = subprocess.run(
        [sys.executable, "-c", code, str(cache)], capture_output=True, text=True
    )
    assert first.stdout.split() == ["[REDACTED]", "True"], first.stderr
    assert second.stdout.split() == ["[REDACTED]", "False"], second.stderr


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("(API_TOKEN={v})", "(API_TOKEN=)"),
        ("connect(SECRET_KEY={v}, debug=True)", "connect(SECRET_KEY=, debug=True)"),
        ("DB_PASSWORD=*{v}", "DB_PASSWORD="),
        ("DB_PASSWORD=!{v}", "DB_PASSWORD="),
        ("DB_PASSWORD=%{v}", "DB_PASSWORD="),
        ("docker login -p {v} registry.io", "docker login -p  registry.io"),
        ("podman login --username u -p '{v}' quay.io", "podman login --username u -p '' quay.io"),
        ("mysql -uroot -p{v} shop", "mysql -uroot -p shop"),
        ("sshpass -p {v} ssh host", "sshpass -p  ssh host"),
        ("token: ya" + "29.{v}", "token: "),
        ("-----BEGIN RSA " + "PRIVATE KEY-----\nMIIE{v}{v}\n{v}...", ""),
        ("-----BEGIN OPENSSH " + "PRIVATE KEY-----\\nb3Bl{v}{v}…", ""),
    ],
)
def test_the_gaps_of_finding_5_are_closed(text: str, kept: str) -> None:
    secret = drawn(24)
    masked = Redactor().mask(text.format(v=secret))
    assert secret not in masked
    assert masked.replace("[REDACTED]", "") == kept


@pytest.mark.parametrize(
    "text",
    [
        "docker run -p 8080:80 nginx",
        "mkdir -p build/out",
        "mysql -u root -p shop",  # asks for the password, opens shop
        "mysql -P 3306 -h db",
        "password: !Ref DbPassword",
        "password = %(password)s",
        "PASSWORD=****",
        "def f(*args, **kwargs): token=tok2)",
        'if line.startswith("-----BEGIN PRIVATE ' + 'KEY-----"):',
        "f(token=get_token(), retries=3)",
    ],
)
def test_look_alikes_of_the_new_rules_stay(text: str) -> None:
    assert Redactor().mask(text) == text


def test_a_session_remembers_hashes_not_values(tmp_path: Path) -> None:
    path = tmp_path / "secrets" / "s1"
    secret = drawn(20)
    first = Redactor(session=SessionSecrets(str(path)))
    assert first.mask(f"export API_TOKEN={secret}") == "export API_TOKEN=[REDACTED]"
    assert first.mask_seen({"summary": f"ran {secret}"}) == {"summary": "ran [REDACTED]"}
    first.session.save()  # type: ignore[union-attr]
    stored = path.read_text()
    assert secret not in stored and len(stored.split("\n")) == 3
    assert path.stat().st_mode & 0o777 == 0o600 and path.parent.stat().st_mode & 0o777 == 0o700
    later = Redactor(session=SessionSecrets(str(path)))
    for text in (f"echo {secret}", f"url https://x.io/{secret}/y", f'"{secret}".', f"k={secret}"):
        assert secret not in later.mask(text), text
    assert later.mask(f"export API_TOKEN={secret}") == "export API_TOKEN=[REDACTED]"
    later.session.save()  # type: ignore[union-attr]
    assert path.read_text() == stored  # known already: written once
    assert Redactor(session=SessionSecrets(str(tmp_path / "other"))).mask(f"echo {secret}") == (
        f"echo {secret}"
    )


def test_module_fastre_still_serves_cached_code(tmp_path: Path) -> None:
    fastre.use_cache(str(tmp_path / "c"))
    try:
        assert Redactor().mask("token " + "gh" + "p_" + drawn(36)) == "token [REDACTED]"
    finally:
        fastre.use_cache(None)


PACKAGE = Path(__file__).resolve().parents[2] / "memcli"


def test_privacy_imports_nothing_above_it() -> None:
    import ast

    allowed = ("memcli.privacy", "memcli.fastparse.fastre", "memcli.capture", "memcli.untrusted")
    allowed += ("memcli.atomic", "memcli.yamlio")  # the secret gate rewrites committed files
    offenders = []
    for path in (PACKAGE / "privacy").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for name in names:
                if name.startswith("memcli") and not name.startswith(allowed):
                    offenders.append(f"{path.name}:{node.lineno}: {name}")
                if name.startswith("memcli.capture.") and name != "memcli.fastparse.fastre":
                    offenders.append(f"{path.name}:{node.lineno}: {name}")
    assert offenders == []


def test_redaction_settings_become_a_mask_in_one_place() -> None:
    """Only the redactor reads redaction settings; no other module builds its own mask."""
    offenders = [
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if "privacy" not in path.parts
        and path.name != "defaults.py"
        and ("extra_patterns" in (text := path.read_text(encoding="utf-8")) or "masking." in text)
        and path.name != "config.py"  # lint names a refused pattern by its line
    ]
    assert offenders == []


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("$ git push with " + "gh" + "p_Zq8wX2mN4vB6kL9pR3sT\u2026", "$ git push with [REDACTED]"),
        ("prompt: deploy with Zq8wX2mN4vB6kL9pR3sT7uV\u2026", "prompt: deploy with [REDACTED]"),
        ("prompt: please refactor the loader so that it reads\u2026", None),
        ("ran pytest tests/test_configuration_loader_module\u2026", None),
        ("commit 3f2a9c1e5b7d8f0a1c2e\u2026", None),
        ("uuid 123e4567-e89b-12d3-a456-4266\u2026", None),
        ("see " + "gh" + "p_xxxxxxxxxxxx\u2026", None),
        (
            "posting to https://hooks." + "slack.com/services/T0QWZ/B0X\u2026",
            "posting to https://[REDACTED]",
        ),
        ("$ psql postgres://app:V5jRvFodQS\u2026", "$ psql postgres://app:[REDACTED]"),
        ('use DB_PASSWORD="V5jRvFodQS\u2026', "use DB_PASSWORD=[REDACTED]"),
        ("see https://example.com:8080/some/pa\u2026", None),
        ("git@github.com:org/re\u2026", None),
        ("the timeout=30 and retries\u2026", None),
    ],
)
def test_a_token_cut_by_a_summary_ellipsis_is_masked(text: str, masked: str | None) -> None:
    assert Redactor().mask(text) == (text if masked is None else masked)


def test_a_secret_at_the_cut_of_a_long_summary_leaves_no_prefix() -> None:
    """A one-line summary is cut at 200 characters; a token straddling the cut is masked."""
    from memcli.observed.filters import one_line

    token = "gh" + "p_" + drawn(36)
    command = "x" * 180 + " " + token
    summary = one_line(f"$ {command}")
    assert summary.endswith("\u2026") and token[:12] in summary
    assert token[:12] not in Redactor().mask(summary)
