"""The secret gate's verdict on each item file, kept by the file's content hash.

`mem prune --check` runs the secret gate (:mod:`memcli.privacy.secret_gate`) over every
committed file under ``.memory/``; on 16,000 items that is most of a second of regular
expressions over text that has not changed since the last run. The parse cache
(:mod:`memcli.itemcache`) already knows each item file's content hash without reading it, so
the leaks found in a file (line, rule, personal) are kept in ``.memory/local/secret-scan.json``
under that hash, and a file whose hash is known is not scanned again.

A verdict is only as good as the rules that gave it: the file is keyed by a signature of mem's
version, the source of the rules (:mod:`memcli.privacy`) and whether e-mail addresses are
masked, and not used at all when the store has patterns of its own (they run under a time
bound, so their verdict can differ from one run to the next). The file is derived and never
committed, and trusted only as this user's owner-only file (a copy committed with
``git add -f`` is not); anything in it that is not exactly as written is ignored and rebuilt.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memcli import untrusted
from memcli.privacy import secret_gate

if TYPE_CHECKING:
    from memcli.api import Memory

CACHE = "secret-scan.json"
ITEMS = ".memory/items/"


def scan(memory: Memory, paths: Sequence[str], hashes: dict[str, str]) -> list[secret_gate.Leak]:
    """:func:`secret_gate.scan_files` of ``paths`` (relative to the repository), with the
    verdict on an item file whose content hash is in ``hashes`` (by file name) taken from the
    kept file when it is there."""
    redactor = memory.redactor()
    sign = signature(memory)
    if sign is None:
        return secret_gate.scan_files(memory.root, paths, redactor)
    where = memory.paths.local / CACHE
    kept = _read(where, sign)
    seen: dict[str, list[list[Any]]] = {}
    leaks: list[secret_gate.Leak] = []
    for path in paths:
        name = path[len(ITEMS) :] if path.startswith(ITEMS) else ""
        digest = hashes.get(name) if name and "/" not in name else None
        if digest is not None and digest in kept:
            seen[digest] = kept[digest]
            leaks += [
                secret_gate.Leak(path, line, kind, personal)
                for line, kind, personal in kept[digest]
            ]
            continue
        try:
            text = untrusted.read_text(memory.root / path)
        except untrusted.Unreadable:
            continue  # not text: nothing mem wrote
        found = secret_gate.scan_text(text, path, redactor)
        leaks += found
        if digest is not None and _hash_of(text) == digest:  # the text the hash was taken of
            seen[digest] = [[leak.line, leak.kind, leak.personal] for leak in found]
    if seen.keys() != kept.keys():
        _write(where, sign, seen)
    return leaks


def signature(memory: Memory) -> str | None:
    """What a kept verdict depends on; None when verdicts must not be kept."""
    import memcli
    from memcli import privacy

    redactor = memory.redactor()
    if redactor.keeps_no_verdicts:
        return None
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{memcli.__version__}\0{redactor.mask_emails!r}\0".encode())
    for source in sorted(Path(privacy.__file__).parent.glob("*.py")):
        digest.update(source.name.encode() + b"\0" + source.read_bytes() + b"\0")
    return digest.hexdigest()


def _hash_of(text: str) -> str:
    from memcli.itemcache import content_hash

    return content_hash(text.encode("utf-8"))


def _read(where: Path, sign: str) -> dict[str, list[list[Any]]]:
    raw = untrusted.read_private(where)  # this user's own file, as mem wrote it, or nothing
    try:
        data = json.loads(raw) if raw is not None else {}
        if data["signature"] != sign:
            return {}
        files = data["files"]
        for digest, rows in files.items():
            for line, kind, personal in rows:
                if not (type(line) is int and type(kind) is str and type(personal) is bool):
                    raise ValueError(digest)
        return dict(files)
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return {}  # absent, unreadable or not as written: every file scanned again


def _write(where: Path, sign: str, files: dict[str, list[list[Any]]]) -> None:
    from memcli import atomic

    try:
        atomic.write_text(where, json.dumps({"signature": sign, "files": files}))
    except OSError:
        pass  # a read-only clone: scanned again next time
