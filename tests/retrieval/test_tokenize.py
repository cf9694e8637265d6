from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memcli.retrieval import stem
from memcli.retrieval.tokenize import Query, tokens


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("parseHTTPHeader", ["parsehttpheader", "pars", "http", "header"]),
        ("req_install", ["req_install", "req", "instal"]),
        ("pip._internal.utils", ["pip._internal.utils", "pip", "intern", "util"]),
        ("--use-pep517", ["use-pep517", "us", "pep517"]),
        (
            "src/app/db_pool.py",
            ["src/app/db_pool.py", "db_pool.py", "src", "app", "db", "pool", "py"],
        ),
    ],
)
def test_identifiers_are_kept_whole_and_split(text: str, expected: list[str]) -> None:
    assert tokens(text) == expected


@pytest.mark.parametrize("code", ["E501", "TS2345", "ERR_SSL_PROTOCOL_ERROR", "v21.0.1", "3.12"])
def test_error_codes_and_versions_stay_whole(code: str) -> None:
    assert tokens(code)[0] == code.lower()


def test_versions_are_not_split_into_numbers() -> None:
    assert tokens("upgrade to 21.0.1") == ["upgrad", "21.0.1"]


def test_words_are_lower_cased_stemmed_and_stop_words_dropped() -> None:
    assert tokens("The Installing of caches") == ["instal", "cach"]
    assert tokens("installs installed installation") == ["instal"] * 3


def test_trailing_punctuation_is_not_part_of_a_name() -> None:
    assert tokens("see setup.py.")[1:2] == ["setup.py"]
    assert tokens("(config.yaml),")[0] == "config.yaml"


def test_fence_like_and_symbol_noise_yields_no_terms() -> None:
    assert tokens("--- ___ ... <> !!") == []


def test_query_marks_exact_terms_and_phrases() -> None:
    query = Query('psycopg "connection refused" on port 5433 in conftest.py, E501 HTTPError')
    assert query.phrases == ["connection refused"]
    assert {"5433", "conftest.py", "e501", "httperror"} <= query.exact
    assert "psycopg" not in query.exact
    assert len(query.terms) == len(set(query.terms))


def test_a_single_quoted_word_is_an_exact_term() -> None:
    assert tokens("Postgres")[0] in Query('"Postgres" port').exact


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("caresses", "caress"),
        ("ponies", "poni"),
        ("hopping", "hop"),
        ("relational", "relat"),
        ("generalization", "gener"),
        ("sized", "size"),
        ("failing", "fail"),
        ("happy", "happi"),
    ],
)
def test_porter_stemmer_matches_the_reference_outputs(word: str, expected: str) -> None:
    assert stem.stem(word) == expected


@given(st.text(max_size=300))
def test_tokenizing_never_fails_and_terms_are_lower_case_and_non_empty(text: str) -> None:
    for term in tokens(text):
        assert term and term == term.lower() and " " not in term
    Query(text)


@given(st.text(max_size=60))
def test_the_memoised_terms_are_the_terms(text: str) -> None:
    from memcli.retrieval import tokenize

    first = tokens(text)  # memoised now, if it was not
    tokenize._chunk_terms.clear()
    assert tokens(text) == first  # computed afresh
    assert tokens(text) == first  # from the memo


def test_the_memo_stops_growing_at_its_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    from memcli.retrieval import tokenize

    monkeypatch.setattr(tokenize, "_chunk_terms", {})
    monkeypatch.setattr(tokenize, "MEMO_LIMIT", 3)
    words = "alpha bravo charlie delta echo foxtrot parseHTTPHeader"
    assert tokens(words) == tokens(words)
    assert len(tokenize._chunk_terms) == 3
    assert tokens("foxtrot parseHTTPHeader")[-4:] == ["parsehttpheader", "pars", "http", "header"]
