"""The prescreen (memcli/privacy/prescreen.py): it says a text holds nothing to mask only when
the built-in rules leave it as it is, and is unsure (False) when it cannot tell.

Secrets are made at run time with split prefixes, as in test_masking.py."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memcli.fastparse import fastre
from memcli.privacy import masking, prescreen
from memcli.privacy.redactor import mask

_rng = random.Random(20261201)
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def drawn(n: int) -> str:
    return "".join(_rng.choice(ALNUM) for _ in range(n))


SECRETS = [
    f"the build read {'gh' + 'p_' + drawn(36)} from the environment",
    f"deploy used {'AK' + 'IA' + 'QX7RT2MK9LWP4SV8'} yesterday",
    f"export DATABASE_PASSWORD={drawn(18)}",
    f"it connects to postgres://shop:{drawn(12)}@db.internal:5432/shop",
    "mail ops@example.org when it breaks",
    f"the password is {drawn(10)}9! and nobody knows",
    f"curl -H 'Authorization: Bearer {drawn(32)}' https://api.example.net",
    "-----BEGIN RSA "
    + "PRIVATE KEY-----\n"
    + "\n".join(drawn(64) for _ in range(3))
    + "\n-----END RSA "
    + "PRIVATE KEY-----",
    f"mysql -u root -p{drawn(12)} shop",
    f"a token cut short: {'gh' + 'p_' + drawn(20)}…",
]
CLEAN = [
    "The failure is caused by the fixture: it has no `price` column since the migration.",
    "I kept the lookup in SQL instead of pandas because the test image has no pandas.",
    "The root cause was a stale lock file in the cache directory.",
    "uv is not installed here, so the tests run with python -m pytest.",
    "The password field is required by the form.",
]


@pytest.fixture(autouse=True)
def _derived_triggers() -> None:
    masking.prepare()  # what a first masking in a store leaves in fastre's cache


@pytest.mark.parametrize("text", SECRETS)
def test_a_text_the_rules_change_is_never_said_to_hold_nothing(text: str) -> None:
    assert mask(text) != text  # the sample holds what the rules find
    assert not prescreen.holds_nothing_to_mask(text)


@pytest.mark.parametrize("text", CLEAN)
def test_plain_sentences_hold_nothing_to_mask(text: str) -> None:
    assert prescreen.holds_nothing_to_mask(text)
    assert mask(text) == text


def test_unsure_until_the_masker_derived_its_triggers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fastre, "_cache", {})
    assert not prescreen.holds_nothing_to_mask(CLEAN[0])


_PIECES = st.sampled_from(
    [" ", "  ", "\n", "=", ":", "/", "@", ".", "-", "-p", "'", '"', "`", "is", "was", "pass",
     "password", "token", "secret", "key", "api_key", "Bearer", "://", "example", "org",
     "AK" + "IA", "gh" + "p_", "sk" + "_live_", "ey" + "J", "user", "x9Q2", "7Hk", "…", "é"]
)  # fmt: skip
_WORDS = st.text(alphabet=ALNUM + "_", min_size=1, max_size=24)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(_PIECES, _WORDS), max_size=30))
def test_holds_nothing_means_the_rules_leave_it_unchanged(parts: list[str]) -> None:
    text = "".join(parts)
    if prescreen.holds_nothing_to_mask(text):
        assert mask(text) == text


def test_the_stores_own_patterns_are_left_to_the_redactor() -> None:
    text = "the build id is ACME-4411 since monday"
    assert prescreen.leaves_unchanged({"redaction": {"extra_patterns": []}}, text)
    assert prescreen.leaves_unchanged({"extra_patterns": [None], "mask_emails": True}, text)
    assert not prescreen.leaves_unchanged({"redaction": {"extra_patterns": [r"ACME-\d+"]}}, text)
