"""What says an item file changed: the hash of its content, and how recent an mtime must be
before it is trusted.

Shared by the parse cache (:mod:`memcli.itemcache`) and the index's delta
(:mod:`memcli.retrieval.delta_builder`), which the first search after an edit runs: this
module imports BLAKE2 and nothing else.
"""

from __future__ import annotations

try:
    # hashlib.blake2b is this very type (hashlib never takes BLAKE2 from OpenSSL), but
    # importing hashlib first loads OpenSSL's module for its other algorithms: 2 to 5 ms of a
    # search after an edit, measured. The digest is the same either way.
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python built without the module
    from hashlib import blake2b

RACY_NS = 2_000_000_000  # a file system that keeps whole seconds (or FAT's two)
FINE_RACY_NS = 100_000_000  # one with sub-second times: ten times a 100 Hz kernel tick


def content_hash(data: bytes) -> str:
    return blake2b(data, digest_size=16).hexdigest()


def racy_window(mtimes: list[int]) -> int:
    """How recent an mtime (ns) must be to be distrusted, judged from some of the store's
    mtimes: a file system whose times have sub-second parts stamps a write with its clock
    tick, at most 10 ms old; one that keeps whole seconds may leave a second write within the
    same second with the same mtime (see :mod:`memcli.itemcache`)."""
    return FINE_RACY_NS if any(m % 1_000_000_000 for m in mtimes[:64]) else RACY_NS
