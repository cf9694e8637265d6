"""Paths never captured: whether a file path matches one of the deny globs (``.env*``,
``*.pem``, ``id_rsa*`` ...), matched by hand so that no :mod:`fnmatch` or :mod:`re` is imported.
"""

from __future__ import annotations

from memcli.privacy.secret_rules import ESCAPES, compiled

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

DEFAULT_DENY_GLOBS: tuple[str, ...] = (
    ".env*", "*.pem", "*.key", "id_rsa*", "id_dsa*", "id_ed25519*", "id_ecdsa*", "*.p12",
    "*.pfx", ".npmrc", ".pypirc", ".netrc", "credentials*", "*.keystore", "*.jks", "secrets.*",
)  # fmt: skip


def is_denied_path(path: str, globs: Sequence[str]) -> bool:
    """True if the base name of `path`, or the whole path, matches one of the fnmatch-style
    `globs` (``*``, ``?``, ``[seq]``, ``[!seq]``), ignoring case."""
    full = path.replace("\\", "/").lower()
    base = full.rstrip("/").rsplit("/", 1)[-1]
    return any(_glob_match(base, g.lower()) or _glob_match(full, g.lower()) for g in globs)


def _glob_match(name: str, glob: str) -> bool:
    if "?" in glob or "[" in glob:  # rare: a regex, compiled once
        out, i = [], 0
        while i < len(glob):
            c, i = glob[i], i + 1
            if c == "[" and "]" in glob[i + 1 :]:
                close = glob.index("]", i + 1)
                body = glob[i:close].replace("\\", "\\\\")
                out.append("[^" + body[1:] + "]" if body[0] == "!" else "[" + body + "]")
                i = close + 1
            else:
                out.append({"*": "(?s:.*)", "?": "(?s:.)"}.get(c, c.translate(ESCAPES)))
        return compiled("".join(out)).fullmatch(name) is not None
    if "*" not in glob:
        return name == glob
    head, *middle, tail = glob.split("*")
    if len(name) < len(head) + len(tail) or not name.startswith(head) or not name.endswith(tail):
        return False
    pos, stop = len(head), len(name) - len(tail)
    for part in middle:
        pos = name.find(part, pos, stop)
        if pos < 0:
            return False
        pos += len(part)
    return True
