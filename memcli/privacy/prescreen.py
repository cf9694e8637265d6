"""Whether the built-in rules can find anything in a text, without loading the masker.

The masker (:mod:`memcli.privacy.masking` and the modules it imports) costs about a tenth of a
bare interpreter start to load, more than the rest of a Stop checkpoint's turn. What it can
find in a text comes from three places only (see :func:`memcli.privacy.masking.spans`):

- a match of one of the two trigger regexes (every family's trigger literals and every
  handler's: names of secrets followed by an assignment, ``://``, ``@``, ``-----begin``,
  ``bearer``, short flags ...), on the lower-cased text and on the text;
- a password in prose (:data:`memcli.privacy.secret_rules.PROSE`);
- a token cut short by ``…``.

:func:`holds_nothing_to_mask` runs exactly those tests, with the trigger regexes the masker
derived and left in fastre's cache, so a True answer means the built-in rules leave the text
as it is. It answers False (the caller masks, as before) whenever it is unsure: the trigger
tables not derived yet, or derived from other tables. User patterns and a session's remembered
secrets are not seen here: :func:`leaves_unchanged` answers for the redactor the redaction
settings would build (no session), False whenever they name patterns of the store's own.
"""

from memcli.fastparse import fastre
from memcli.privacy.secret_rules import PROSE, TRIGGERS_MEMO, compiled, trigger_inputs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping


def leaves_unchanged(settings: "Mapping[str, object]", text: str) -> bool:
    """True only when ``Redactor.from_settings(settings)`` would leave ``text`` as it is."""
    section = settings.get("redaction")
    found: Mapping[str, object] = section if isinstance(section, dict) else settings
    extra = found.get("extra_patterns")
    if isinstance(extra, list) and any(p is not None for p in extra):
        return False  # the store's own patterns: only the redactor runs them
    return holds_nothing_to_mask(text)


def holds_nothing_to_mask(text: str) -> bool:
    """True only when no built-in rule can find a secret or an address in ``text``."""
    if "\u2026" in text:
        return False
    saved = fastre.memo_get(TRIGGERS_MEMO, trigger_inputs())
    if not isinstance(saved, tuple) or len(saved) != 5:
        return False  # the masker has not derived its triggers here yet
    low_rule, exact_rule = saved[3], saved[4]
    if not isinstance(low_rule, str) or not isinstance(exact_rule, str):
        return False
    low = text.lower() if text.isascii() else text.encode("ascii", "replace").lower().decode()
    if compiled(low_rule).search(low) is not None or compiled(exact_rule).search(text):
        return False
    return compiled(PROSE).search(text) is None
