"""Secrets seen earlier in a session, remembered by a keyed hash, never by value.

When capture masks a value (``API_TOKEN=k3Y9...``), the same literal may come back later in
the session without the name that gave it away: echoed by a command, inside a URL, in the
next prompt. The value's length and BLAKE2 hash, keyed with a random salt of the session, are
appended to ``local/secrets/<session>`` (mode 0600); later captures of the session hash each
word of what they capture that has one of those lengths, and mask the words whose hash is
known. Within one process the values are kept in memory, so a value masked in one field is
masked in the others of the same event.

Hashing costs a little, so it runs only when the session has remembered something, and only
on words of a remembered length.
"""

from __future__ import annotations

import os

from memcli.privacy.secret_rules import REDACTED, rule

MIN_CHARS = 6  # shorter values are too likely to be ordinary words
MAX_CHARS = 512
SEEN = "secret seen earlier in the session"


def _digest(salt: bytes, value: str) -> str:
    from _blake2 import blake2b

    return blake2b(value.encode("utf-8", "replace"), key=salt, digest_size=12).hexdigest()


class SessionSecrets:
    """The secrets one session has shown; `path` None keeps them for this process only."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.values: dict[str, None] = {}  # this process: plain values, never written
        self.digests: set[str] = set()
        self.lengths: set[int] = set()  # of the values remembered: most words need no hash
        self.salt = b""
        self.new: list[str] = []
        if path is not None:
            self._load(path)

    def _load(self, path: str) -> None:
        try:
            with open(path, "rb") as handle:  # bytes: no codec module to import
                lines = handle.read().decode("utf-8", "replace").split("\n")
        except OSError:
            return
        if lines and lines[0].startswith("salt "):
            try:
                self.salt = bytes.fromhex(lines[0][5:])
            except ValueError:
                return
            for line in lines[1:]:
                size, _, digest = line.partition(" ")
                if size.isdigit() and len(digest) == 24:
                    self.digests.add(digest)
                    self.lengths.add(int(size))

    def __bool__(self) -> bool:
        return bool(self.values or self.digests)

    def remember(self, value: str) -> None:
        value = value.strip()
        fits = MIN_CHARS <= len(value) <= MAX_CHARS and value not in self.values
        if fits and REDACTED not in value and "[EMAIL]" not in value:
            self.values[value] = None
            if not (self.salt and _digest(self.salt, value) in self.digests):
                self.new.append(value)  # known already: nothing to write

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where a remembered secret stands in `text`."""
        found: list[tuple[int, int]] = []
        for value in self.values:
            at = text.find(value)
            while at >= 0:
                found.append((at, at + len(value)))
                at = text.find(value, at + len(value))
        if self.digests and self.salt:
            for m in rule("word_run").finditer(text):
                for start, end in _pieces(m.group(), m.start()):
                    if end - start not in self.lengths:
                        continue
                    if _digest(self.salt, text[start:end]) in self.digests:
                        found.append((start, end))
        return found

    def save(self) -> None:
        """Append the hashes of the values first seen in this process."""
        if self.path is None or not self.new:
            return
        from memcli.privacy import owner_only

        try:
            fd, created = owner_only.open_append(self.path, exclusive_first=True)
        except OSError:
            return
        try:
            if created:
                salt = os.urandom(16)
                header = f"salt {salt.hex()}\n"
            else:
                self._load(self.path)
                salt, header = self.salt, ""
            if salt:
                lines = "".join(f"{len(v)} {_digest(salt, v)}\n" for v in self.new)
                os.write(fd, (header + lines).encode("ascii"))
            self.new = []
        finally:
            os.close(fd)


def _pieces(word: str, base: int) -> list[tuple[int, int]]:
    """The word and, if it holds separators (user:pw@host, a/b), its parts."""
    out = [(base, base + len(word))] if MIN_CHARS <= len(word) <= MAX_CHARS else []
    if any(c in word for c in ":@/."):
        start = 0
        for n, c in enumerate(word + ":"):
            if c in ":@/.":
                if MIN_CHARS <= n - start <= MAX_CHARS and n - start < len(word):
                    out.append((base + start, base + n))
                start = n + 1
    stripped = word.rstrip(".")
    if stripped != word and len(stripped) >= MIN_CHARS:
        out.append((base, base + len(stripped)))
    return out
