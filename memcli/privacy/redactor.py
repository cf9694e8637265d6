"""The one masking step: every byte `mem` writes under ``.memory/`` passes a `Redactor` first.

A redactor is built once from the redaction settings (``redaction.extra_patterns`` and
``redaction.mask_emails``): the built-in rules (:mod:`memcli.privacy.masking`), the user's
patterns, checked and time-bounded (:mod:`memcli.privacy.user_patterns`), and, for capture,
the secrets the session has shown before (:mod:`memcli.privacy.session_secrets`). It masks
text and objects, and says which rule fired where (`findings`), for reports and the log.
"""

from __future__ import annotations

from memcli.privacy import masking
from memcli.privacy.secret_handlers import ADDRESS
from memcli.privacy.secret_rules import REDACTED, compiled
from memcli.privacy.session_secrets import SEEN, SessionSecrets

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Mapping, Sequence

EXPIRED = "redaction.extra_patterns ran past its time bound"
REGEX_CACHE = "regex.cache"
_cached: dict[tuple[tuple[str, ...], bool], Redactor] = {}


class Finding(tuple[int, int, str]):
    """Where a rule fired: ``(start, end, rule)``."""

    __slots__ = ()

    @property
    def rule(self) -> str:
        return self[2]


class Redactor:
    """Masks secrets (``[REDACTED]``) and, if asked, e-mail addresses (``[EMAIL]``)."""

    def __init__(
        self,
        extra_patterns: Sequence[object] = (),
        mask_emails: bool = True,
        session: SessionSecrets | None = None,
    ) -> None:
        self.mask_emails = mask_emails
        self.session = session
        self.problems: list[str] = []  # one line each: a refused or expired user pattern
        self.expired = False
        self._patterns: list[tuple[str, re.Pattern[str]]] = []
        patterns = [p if isinstance(p, str) else repr(p) for p in extra_patterns]
        if patterns:
            from memcli.privacy import user_patterns

            for number, (pattern, problem) in enumerate(
                zip(patterns, user_patterns.problems(patterns), strict=True)
            ):
                name = f"redaction.extra_patterns[{number}]"
                if problem is None:
                    self._patterns.append((name, compiled(pattern)))
                else:
                    self.problems.append(f"{name} {pattern!r} is ignored: {problem}")

    @classmethod
    def from_settings(
        cls, settings: Mapping[str, object], session: SessionSecrets | None = None
    ) -> Redactor:
        """From the settings (with a ``redaction`` section) or the section itself."""
        section = settings.get("redaction")
        found: Mapping[str, object] = section if isinstance(section, dict) else settings
        extra = found.get("extra_patterns")
        patterns = [p for p in extra if p is not None] if isinstance(extra, list) else []
        emails = found.get("mask_emails", True)
        return cls(patterns, emails is not False, session)

    @classmethod
    def cached(cls, extra_patterns: tuple[str, ...] = (), mask_emails: bool = True) -> Redactor:
        """One redactor per setting in this process (no session memory)."""
        key = (extra_patterns, mask_emails)
        found = _cached.get(key)
        if found is None:
            found = _cached[key] = cls(extra_patterns, mask_emails)
        return found

    @property
    def keeps_no_verdicts(self) -> bool:
        """Whether what this redactor finds in a text can change from one run to the next
        (patterns of the store's own, under a time bound; a session's remembered secrets), so
        a verdict must not be kept for the same text later."""
        return bool(self._patterns) or self.session is not None or self.expired

    def findings(self, text: str) -> list[Finding]:
        """Where each rule fires in `text`, in order (one pass; masking repeats until stable)."""
        return sorted(Finding((s, e, r)) for s, e, _, r in self._spans(text))

    def _spans(self, text: str) -> list[masking.Span]:
        found = masking.spans(text, self.mask_emails)
        if self._patterns:
            found += self._user_spans(text)
        if self.session:
            found += [(s, e, REDACTED, SEEN) for s, e in self.session.spans(text)]
        return found

    def _user_spans(self, text: str) -> list[masking.Span]:
        from memcli.privacy import user_patterns

        found: list[masking.Span] = []
        for name, pattern in self._patterns:
            try:
                found += [(s, e, REDACTED, name) for s, e in user_patterns.spans(pattern, text)]
            except user_patterns.Expired:
                self.expired = True
                self.problems.append(f"{name} ran past its time bound and is dropped")
                self._patterns = [p for p in self._patterns if p[0] != name]
                return [(0, len(text), REDACTED, EXPIRED)]
        return found

    def mask(self, text: str) -> str:
        """`text` with every secret masked, the words around it kept. Masking twice changes
        nothing. After a user pattern has run out of time, every text is masked whole."""
        if self.expired:
            return REDACTED if text else text
        for _ in range(4):  # a mask can change what its neighbour looks like: until stable
            found = self._spans(text)
            if not found:
                break
            if self.session is not None:
                for start, end, _, rule in found:
                    if rule not in (ADDRESS, SEEN, EXPIRED, masking.TOO_DENSE):
                        self.session.remember(text[start:end])
            masked = masking.apply(text, found)
            if masked == text:
                break
            text = masked
        return text

    def mask_obj(self, obj: object) -> object:
        """A copy of `obj` with every string in its dicts, lists and tuples masked; keys stay.
        A one-line string under a key that names a secret (``{"password": ...}``) is masked
        whole."""

        def walk(node: object, key: str) -> object:
            if isinstance(node, str):
                if masking.secret_under_key(key, node):
                    if self.session is not None:
                        self.session.remember(node)
                    return REDACTED
                return self.mask(node)
            if isinstance(node, dict):
                return {k: walk(v, k if isinstance(k, str) else "") for k, v in node.items()}
            if isinstance(node, list | tuple):
                items = [walk(v, key) for v in node]
                return items if isinstance(node, list) else tuple(items)
            return node

        return walk(obj, "")

    def mask_seen(self, obj: object) -> object:
        """`obj` (masked already) with the secrets this session has shown masked wherever they
        stand: a value masked in one field of an event, left bare in a field masked before."""
        session = self.session
        if not session:
            return obj
        if isinstance(obj, str):
            found = [(s, e, REDACTED, SEEN) for s, e in session.spans(obj)]
            return masking.apply(obj, found) if found else obj
        if isinstance(obj, dict):
            return {k: self.mask_seen(v) for k, v in obj.items()}
        if isinstance(obj, list | tuple):
            items = [self.mask_seen(v) for v in obj]
            return items if isinstance(obj, list) else tuple(items)
        return obj


def use_store_cache(local: str) -> None:
    """Use the compiled-regex cache of a store's ``local/`` folder (unless this process uses
    one already) and build the rule tables from it: built afresh they cost tens of
    milliseconds, loaded well under one. What was compiled anew is saved for next time."""
    import os

    from memcli.fastparse import fastre

    if fastre.cache_file() is None:
        if not os.path.isdir(local):
            return
        fastre.use_cache(os.path.join(local, REGEX_CACHE))
    masking.prepare()
    fastre.save()


def mask(text: str, extra_patterns: Sequence[str] = (), mask_emails: bool = True) -> str:
    """`text` as a :class:`Redactor` masks it with these settings."""
    return Redactor.cached(tuple(extra_patterns), mask_emails).mask(text)


def mask_obj(obj: object, extra_patterns: Sequence[str] = (), mask_emails: bool = True) -> object:
    """`obj` as a :class:`Redactor` masks it with these settings."""
    return Redactor.cached(tuple(extra_patterns), mask_emails).mask_obj(obj)
