"""Item ids: random, short, safe as file names, and collision-free across branches and clones.

A new id is 10 characters of Crockford base32 from ``secrets`` (50 bits): two people adding
items on two branches never pick the same name (reno and beads do the same). Ids given from
outside (``mem import``) are kept when they pass :func:`is_valid`.
"""

from __future__ import annotations

import re

_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"  # Crockford: no i, l, o, u
ID_LENGTH = 10
# Lower case only (case-insensitive file systems), no dots or slashes (no path traversal).
_VALID = re.compile(r"[a-z0-9][a-z0-9_-]{2,63}")
_PREFIX = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")


def new_id() -> str:
    # secrets imports hmac, and with it hashlib and OpenSSL's module: only a new item needs it,
    # and validating one (the first search after an edit does) should not pay for it.
    import secrets

    return "".join(secrets.choice(_ALPHABET) for _ in range(ID_LENGTH))


def is_valid(item_id: str) -> bool:
    return _VALID.fullmatch(item_id) is not None


def is_valid_prefix(text: str) -> bool:
    """Whether ``text`` could start an id (it is safe to look up by prefix)."""
    return _PREFIX.fullmatch(text) is not None


ID_RULE = "3 to 64 characters of a-z, 0-9, '-' and '_', starting with a letter or digit"
