"""Compiled regular expressions for the hook path without importing :mod:`re` each time.

Importing :mod:`re` and compiling a few dozen patterns costs more than the whole rest of
`mem capture`. What the compiler produces (the ``_sre`` code of each pattern) depends only on
the pattern and the interpreter, so the first capture in a repository compiles with :mod:`re`
and stores the code with :mod:`marshal` under ``.memory/local/``; later captures hand it to
``_sre.compile`` directly. The objects returned are ordinary ``re.Pattern`` objects. Any
mismatch (another interpreter, a changed pattern, a damaged cache) falls back to :mod:`re`.

Use callables, not template strings with backslashes, as ``sub`` replacements: expanding a
template makes ``_sre`` import :mod:`re` after all.
"""

import marshal
import os
import sys

from memcli import __version__, untrusted

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from typing import Any

_sre: "Any"
try:
    _sre = __import__("_sre")  # the C engine behind re
except ImportError:  # pragma: no cover
    _sre = None

# The values of re.IGNORECASE, re.MULTILINE, re.DOTALL and re.VERBOSE.
IGNORECASE = 2
MULTILINE = 8
DOTALL = 16
VERBOSE = 64

# A new mem version brings new patterns: its cache starts afresh instead of growing stale.
_KEY = (
    __version__,
    tuple(sys.version_info[:2]),
    getattr(_sre, "MAGIC", 0),
    getattr(_sre, "CODESIZE", 0),
)
_cache: dict[tuple[str | bytes, object], tuple[object, ...]] = {}
_cache_path: str | None = None
_dirty = False


def use_cache(path: str | None) -> None:
    """Load compiled code from ``path`` (a file under ``local/``); None disables the cache."""
    global _cache_path, _cache
    _cache_path = path
    if path is None:
        return
    try:
        # Compiled regex code is handed to the regex engine as is: only a file mem wrote.
        data = untrusted.read_private(path)
        key, entries = marshal.loads(data) if data else (None, None)
        if key == _KEY and isinstance(entries, dict):
            _cache = entries
    except (OSError, EOFError, ValueError, TypeError):
        _cache = {}


def cache_file() -> str | None:
    """The cache file in use, or None."""
    return _cache_path


def compile(pattern: str | bytes, flags: int = 0):  # type: ignore[no-untyped-def]  # noqa: A001
    """A compiled pattern, from the cache when it holds this pattern's code."""
    global _dirty
    key = (pattern, flags)
    entry = _cache.get(key)
    if entry is not None and _sre is not None:
        final_flags, code, groups, groupindex, indexgroup = entry
        try:
            # Code is stored as bytes: marshal loads bytes far faster than a list of ints, and
            # tolist() converts them in C (list() iterates the view: 5x the instructions).
            ops = memoryview(code).cast("I").tolist() if isinstance(code, bytes) else code
            return _sre.compile(pattern, final_flags, ops, groups, groupindex, indexgroup)
        except (TypeError, ValueError, RuntimeError):
            pass
    compiled, entry = _compile_with_re(pattern, flags)
    if entry is not None:
        _cache[key] = entry
        _dirty = True
    return compiled


_compiled: dict[tuple[str | bytes, int], object] = {}


def cached(pattern: str | bytes, flags: int = 0):  # type: ignore[no-untyped-def]
    """:func:`compile`, once per process for each pattern."""
    key = (pattern, flags)
    found = _compiled.get(key)
    if found is None:
        found = _compiled[key] = compile(pattern, flags)
    return found


def has(pattern: str, text: str, flags: int = IGNORECASE) -> bool:
    """Whether ``pattern`` (compiled once per process) occurs in ``text``; case-insensitive
    unless ``flags`` say otherwise, as the rules read what people write."""
    return cached(pattern, flags).search(text) is not None


def memo_get(name: str, inputs: object) -> object:
    """A value derived from ``inputs`` and stored by :func:`memo_put`, or None."""
    entry = _cache.get(("memo", name))
    if isinstance(entry, tuple) and len(entry) == 2 and entry[0] == inputs:
        return entry[1]
    return None


def memo_put(name: str, inputs: object, value: object) -> None:
    """Store a value (marshallable) derived from ``inputs``, saved with the compiled code."""
    global _dirty
    _cache[("memo", name)] = (inputs, value)
    _dirty = True


def _compile_with_re(pattern: str | bytes, flags: int) -> tuple[object, tuple[object, ...] | None]:
    import re

    compiled = re.compile(pattern, flags)
    try:
        import importlib

        _compiler = importlib.import_module("re._compiler")
        _parser = importlib.import_module("re._parser")

        parsed = _parser.parse(pattern, flags)
        code = [int(op) for op in _compiler._code(parsed, flags)]
        groupindex = dict(parsed.state.groupdict)
        indexgroup: list[str | None] = [None] * parsed.state.groups
        for name, index in groupindex.items():
            indexgroup[index] = name
        final_flags = flags | parsed.state.flags
        groups = parsed.state.groups - 1
        assert _sre is not None
        # Proves the entry loads before it is trusted.
        _sre.compile(pattern, final_flags, code, groups, groupindex, tuple(indexgroup))
        import array

        packed = array.array("I", code).tobytes()
        entry: tuple[object, ...] = (final_flags, packed, groups, groupindex, tuple(indexgroup))
    except Exception:  # private compiler API moved: no cache, still correct
        return compiled, None
    return compiled, entry


def save() -> None:
    """Write the cache file (atomically) if anything was compiled anew in this process."""
    global _dirty
    if not _dirty or _cache_path is None:
        return
    tmp = f"{_cache_path}.{os.getpid()}.tmp"
    try:
        with os.fdopen(untrusted.open_private(tmp), "wb") as handle:
            marshal.dump((_KEY, _cache), handle)
        os.replace(tmp, _cache_path)
        _dirty = False
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
