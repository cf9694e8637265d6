"""memcli.fastparse.fastre: compiled regex code marshalled under local/, loaded with ``_sre``.

It leans on CPython internals (``re._parser``, ``re._compiler``, ``_sre.compile``), so each
path is tested directly: a cold compile, a warm load from the cache file, and every fallback
to :mod:`re` (a damaged file, another interpreter's file, a bad entry, no ``_sre``, the
private compiler API gone, an unwritable folder).
"""

from __future__ import annotations

import marshal
import re
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memcli.fastparse import fastre

PATTERNS = [
    (r"(?P<key>[A-Z]{4})[-_](\d+)", 0),
    (r"^error: (.*)$", fastre.MULTILINE),
    (r"password\s*=\s*\S+", fastre.IGNORECASE),
    (r"<private>.*?</private>", fastre.DOTALL | fastre.IGNORECASE),
    (r"""\b(?:ghp|gho)_[A-Za-z0-9]{36}\b  # a GitHub token""", fastre.VERBOSE),
    (r"(a|b)*c{2,5}(?=d)", 0),
]
TEXTS = [
    "AKIA-1234 and BBBB_99",
    "ok\nerror: boom\nerror: again",
    "PASSWORD = hunter2; Password=x",
    "a <PRIVATE>secret\nlines</private> b",
    "token ghp_" + "a" * 36 + " end",
    "ababccd acccd",
]


@pytest.fixture(autouse=True)
def fresh_cache(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test starts with fastre's module state empty, and leaves it as it was."""
    monkeypatch.setattr(fastre, "_cache", {})
    monkeypatch.setattr(fastre, "_compiled", {})
    monkeypatch.setattr(fastre, "_cache_path", None)
    monkeypatch.setattr(fastre, "_dirty", False)
    yield


def behaves_like_re(compiled: object, pattern: str, flags: int) -> None:
    reference = re.compile(pattern, flags)
    assert isinstance(compiled, re.Pattern)
    assert compiled.groupindex == reference.groupindex and compiled.groups == reference.groups
    for text in TEXTS:
        assert compiled.findall(text) == reference.findall(text)
        assert compiled.sub(lambda m: "<" + m.group(0) + ">", text) == reference.sub(
            lambda m: "<" + m.group(0) + ">", text
        )


def warm_cache(path: Path) -> None:
    """Compile every pattern cold with the cache at ``path`` and save it."""
    fastre.use_cache(str(path))
    for pattern, flags in PATTERNS:
        fastre.compile(pattern, flags)
    fastre.save()


def reload_state(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fastre, "_cache", {})
    monkeypatch.setattr(fastre, "_dirty", False)


def forbid_re_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(pattern: str, flags: int) -> tuple[object, None]:
        raise AssertionError(f"compiled {pattern!r} with re: the cache was not used")

    monkeypatch.setattr(fastre, "_compile_with_re", refuse)


@pytest.mark.parametrize(("pattern", "flags"), PATTERNS)
def test_a_cold_compile_matches_like_re(pattern: str, flags: int) -> None:
    behaves_like_re(fastre.compile(pattern, flags), pattern, flags)


def test_the_cache_round_trips_and_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "regex.cache"
    warm_cache(path)
    key, entries = marshal.loads(path.read_bytes())
    assert key == fastre._KEY and set(entries) == set(PATTERNS)
    reload_state(monkeypatch)
    fastre.use_cache(str(path))
    forbid_re_compile(monkeypatch)  # from here on only _sre.compile may build patterns
    for pattern, flags in PATTERNS:
        behaves_like_re(fastre.compile(pattern, flags), pattern, flags)
    assert fastre._dirty is False  # nothing new: save() would write nothing
    before = path.stat().st_mtime_ns
    fastre.save()
    assert path.stat().st_mtime_ns == before


def test_cached_compiles_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    first = fastre.cached(r"x+y", 0)
    forbid_re_compile(monkeypatch)
    assert fastre.cached(r"x+y", 0) is first


@pytest.mark.parametrize(
    "content",
    [b"", b"not marshal at all", marshal.dumps(("other-version", {})), marshal.dumps([1, 2])],
    ids=["empty", "garbage", "another-interpreter", "wrong-shape"],
)
def test_a_damaged_or_foreign_cache_file_falls_back_to_re(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "regex.cache"
    path.write_bytes(content)
    fastre.use_cache(str(path))
    assert fastre._cache == {}
    pattern, flags = PATTERNS[0]
    behaves_like_re(fastre.compile(pattern, flags), pattern, flags)
    fastre.save()  # and the file is rewritten with this interpreter's key
    key, entries = marshal.loads(path.read_bytes())
    assert key == fastre._KEY and (pattern, flags) in entries


def test_a_bad_entry_falls_back_to_re(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pattern, flags = PATTERNS[0]
    good = fastre.compile(pattern, flags)
    final_flags, _code, groups, groupindex, indexgroup = fastre._cache[(pattern, flags)]
    bogus = b"\xff\xff\xff\xff" * 3  # not valid _sre code: _sre.compile rejects it
    fastre._cache[(pattern, flags)] = (final_flags, bogus, groups, groupindex, indexgroup)
    again = fastre.compile(pattern, flags)
    behaves_like_re(again, pattern, flags)
    assert again.pattern == good.pattern


def test_without_sre_every_compile_uses_re(monkeypatch: pytest.MonkeyPatch) -> None:
    pattern, flags = PATTERNS[1]
    fastre.compile(pattern, flags)  # an entry exists
    monkeypatch.setattr(fastre, "_sre", None)
    behaves_like_re(fastre.compile(pattern, flags), pattern, flags)


def test_when_the_private_compiler_api_is_gone_nothing_is_cached(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib

    real = importlib.import_module

    def without_private_modules(name: str, *args: object) -> object:
        if name in ("re._compiler", "re._parser"):
            raise ImportError(name)
        return real(name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(importlib, "import_module", without_private_modules)
    pattern, flags = PATTERNS[2]
    behaves_like_re(fastre.compile(pattern, flags), pattern, flags)
    assert fastre._cache == {} and fastre._dirty is False


def test_saving_into_a_missing_folder_is_silent(tmp_path: Path) -> None:
    path = tmp_path / "gone" / "regex.cache"
    fastre.use_cache(str(path))
    fastre.compile(*PATTERNS[0])
    fastre.save()  # no exception: capture must not fail over its cache
    assert not path.exists() and not list(tmp_path.rglob("*.tmp"))


def test_no_cache_path_means_nothing_is_written(tmp_path: Path) -> None:
    fastre.use_cache(None)
    fastre.compile(*PATTERNS[0])
    fastre.save()
    assert list(tmp_path.iterdir()) == []


def test_memo_values_travel_with_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "regex.cache"
    fastre.use_cache(str(path))
    assert fastre.memo_get("rules", ("a", 1)) is None
    fastre.memo_put("rules", ("a", 1), ["compiled", "value"])
    fastre.save()
    reload_state(monkeypatch)
    fastre.use_cache(str(path))
    assert fastre.memo_get("rules", ("a", 1)) == ["compiled", "value"]
    assert fastre.memo_get("rules", ("a", 2)) is None  # other inputs: not this value


@given(st.text(alphabet="ab(|)*+?.[]^$\\{}0123,", max_size=12), st.text("abc012", max_size=20))
def test_any_pattern_re_accepts_matches_the_same_from_the_cache(pattern: str, text: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # "possible nested set": re's own
        try:
            reference = re.compile(pattern)
        except (re.error, RecursionError, OverflowError):
            return
        fastre._cache.clear()
        cold = fastre.compile(pattern)
        warm = fastre.compile(pattern)  # from the entry the cold compile stored, if any
    for compiled in (cold, warm):
        assert compiled.findall(text) == reference.findall(text)
        assert [m.span() for m in compiled.finditer(text)] == [
            m.span() for m in reference.finditer(text)
        ]
