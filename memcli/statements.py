"""Lessons said without a failing command near them: why a change was made (a commit message's
reason, see :mod:`memcli.commit_messages` for its lines), a change of approach stated in a
closing summary, and a finding about the project or its environment said while working.

Shared by the Stop checkpoint (a hook command: no :mod:`re`, patterns from
:mod:`memcli.fastparse.fastre`, plain string tests before each pattern) and the compactor.

- :func:`with_reason`: a line that gives a reason or a purpose ("to avoid ...", "This reduces
  ...", "instead of ...").
- :func:`approach`: a change of approach ("Switched the parser to streaming mode to bound
  memory", "Moved from npm to pnpm"), not a list of files edited.
- :func:`finding`: a finding stated as one ("`X` is configured in `Y`", "`Z` returns ...",
  "it turns out ...", "it looks like X because ..."), not a plan, a guess or a test outcome.
"""

from memcli import redirects
from memcli.fastparse import fastre

IGNORECASE = fastre.IGNORECASE


_has = fastre.has


_REASON_WORDS = ("because", "so ", "since", "instead", "until ",
                 "rather than", "to avoid", "to prevent", "to keep", "to reduce", "to bound",
                 "to limit", "to allow", "to support", "to fix", "to speed", "to ensure",
                 "to stop", "to save", "to match", "in order to", "otherwise", "avoids",
                 "prevents", "reduces", "keeps ", "ensures", "allows", "needed for",
                 "required by", "required for", "caused", "broke", "to work around",
                 "workaround", "to cut", "to lower", "to improve", "to simplify", "to decouple",
                 "to isolate", "to unblock", "to handle", "to guarantee", "to preserve",
                 "to protect", "to satisfy", "to comply", "to catch", "to detect", "to survive",
                 "to tolerate", "to free", "to shrink", "to trim", "to bypass", "to let",
                 "to stay", "to get rid", "to make sure")  # fmt: skip
_REASON = (
    r"\b(?:because|so that|so (?:the|it|we|they)\b|so \S+ (?:is|are|stays?|can|won'?t|doesn'?t"
    r"|does not|never|always|only)|since|instead of|instead"
    r"|rather than|in order to|otherwise|needed for|required (?:by|for)|caused|broke"
    r"|to (?:avoid|prevent|keep|reduce|bound|limit|allow|support|fix|speed|ensure|stop|save"
    r"|match|work around|cut|lower|improve|simplify|decouple|isolate|unblock|handle|guarantee"
    r"|preserve|protect|satisfy|comply|catch|detect|survive|tolerate|free|shrink|trim|bypass"
    r"|let|stay|get rid|make sure)|until (?:the |a |an |it |we |\S+ (?:is|are|gets?|lands?))"
    r"|(?:avoids|prevents|reduces|keeps|ensures|allows)\b|workaround)\b"
)


def with_reason(line: str) -> bool:
    """A line that gives a reason or a purpose for a change."""
    lowered = line.lower()
    for word in _REASON_WORDS:
        if word in lowered:
            break
    else:
        return False
    return _has(_REASON, line)


# --- a change of approach ------------------------------------------------------------------

_APPROACH_VERBS = (
    r"switch(?:ed|es)?|mov(?:e|ed|es)|migrat(?:e|ed|es)|replac(?:e|ed|es)|chang(?:e|ed|es)"
    r"|convert(?:ed|s)?|swap(?:ped|s)?|port(?:ed|s)?|adopt(?:ed|s)?|pinn?(?:ed|s)?"
    r"|disabl(?:e|ed|es)|enabl(?:e|ed|es)|restrict(?:ed|s)?|limit(?:ed|s)?|capp?(?:ed|s)?"
    r"|defer(?:red|s)?|dropp?(?:ed|s)?|revert(?:ed|s)?|rout(?:e|ed|es)|delegat(?:e|ed|es)"
    r"|consolidat(?:e|ed|es)|unif(?:y|ied|ies)|split(?:s)?|inlin(?:e|ed|es)|cach(?:e|ed|es)"
    r"|batch(?:ed|es)?|debounc(?:e|ed|es)|throttl(?:e|ed|es)|stream(?:ed|s)?|made|make[s]?"
    r"|kept|keep[s]?|us(?:e|ed|es)|configur(?:e|ed|es)|set|default(?:ed|s)?|run[s]?|ran"
    r"|stor(?:e|ed|es)|load(?:ed|s)?|read[s]?|redact(?:ed|s)?|skipp?(?:ed|s)?|ignor(?:e|ed|es)"
)
_APPROACH = (
    rf"^(?:(?:now|also)\s+)?(?:{_APPROACH_VERBS})\b"
    r"|^(?:the |an? )?[\w`\"'#.()/@:-]+(?: [\w`\"'#.()/@:-]+){0,3} (?:now )?"
    rf"(?:{_APPROACH_VERBS})\b"
)
# A change between two named things ("from npm to pnpm").
_FROM_TO = r"\bfrom \S+(?: \S+){0,3} to \S"


def approach(sentence: str) -> bool:
    """A change of approach stated in a summary: a verb of changing how something is done
    ("switched", "moved", "pinned", "disabled", "uses") with a reason or purpose, or from one
    named thing to another. A plain report of files edited ("Updated `x.py`", "Added tests")
    is none."""
    text = _label_dropped(sentence)
    lowered = text.lower()
    if lowered.startswith(("i ", "i'", "we ", "let", "you ")):
        return False
    # The cheap tests first: a reason word, or a change "from" one thing "to" another.
    changed = " from " in lowered and " to " in lowered and _has(_FROM_TO, text)
    if not changed and not with_reason(text):
        return False
    return _has(_APPROACH, text)


def _label_dropped(sentence: str) -> str:
    """ "Parser: switched to streaming" -> "switched to streaming" (a bullet's topic label)."""
    head, colon, rest = sentence.partition(": ")
    if colon and rest and len(head.split()) <= 4:
        return rest.strip()
    return sentence.strip()


# --- findings about the project or its environment -----------------------------------------

_LEADS = ("i found that ", "i noticed that ", "i see that ", "i learned that ",
          "i discovered that ", "i realized that ", "i realised that ", "i confirmed that ",
          "found that ", "noticed that ", "confirmed that ")  # fmt: skip
# A verb of state after a short subject: what something is, holds, needs or does.
_STATE = (
    r"(?:is|are|isn'?t|aren'?t|uses|requires|needs|expects|returns|reads|loads|writes|stores"
    r"|lives|runs|calls|depends on|relies on|defaults to|points to|comes from|handles"
    r"|accepts|only|never|always|has no|have no|doesn'?t|does not|don'?t|do not|can'?t|cannot"
    r"|won'?t|must|wraps|extends|overrides|imports|exports|registers|sets|checks|ignores"
    r"|skips|supports|treats|parses|resolves|spawns|invokes|sends|emits|creates|generates"
    r"|installs|copies|caches|triggers|blocks|rejects|strips|escapes|limits)\b"
)
_CLAIM = (
    r"^(?:the |this |that |its |our |a |an )?"
    r"(?P<subject>[\w`\"'#.()/@:$~*-]+(?: [\w`\"'#.()/@:$~*-]+){0,5}?)"
    rf" (?:(?:also|still|already|actually|itself) )?{_STATE}"
)
# Where something is set or kept: "is configured in `x`", "lives in", "is read from".
_WHERE = (
    r"\b(?:is|are)(?: \w+)? (?:configured|defined|set|declared|registered|stored|kept|loaded"
    r"|read|generated|built|installed|cached|mounted|served|hosted|pinned|hard-?coded"
    r"|specified|listed|located|handled|copied|exported|imported) (?:in|at|from|by|via|under"
    r"|inside|through|with)\b|\b(?:lives?|comes?|resides?) (?:in|at|from|under)\b"
)
_LOOKS_BECAUSE = r"\b(?:it |this |that )?looks like\b.{3,160}\bbecause\b"
_TURNS_OUT = r"\b(?:it )?turns out\b"
_NOT_A_FINDING = (
    r"\b(?:might|may|maybe|perhaps|possibly|probably|likely|should|could|would|seems?"
    r"|appears?|guess|suspect|not sure|wonder|let'?s|let me|i'?ll|we'?ll|i will|i need"
    r"|we need|going to|next|todo|now)\b"
    r"|\b(?:pass(?:es|ed|ing)?|fail(?:s|ed|ing|ure|ures)?|succeed(?:s|ed)?|green|red)\b"
)
# Openers of an instruction or a step ("Ensure `gh` is authenticated", "Run `x` ..."): what
# to do, not what is.
_IMPERATIVES = ("ensure ", "make sure ", "run ", "install ", "use ", "add ", "set ", "check ",
                "try ", "open ", "see ", "remember ", "please ", "call ", "create ", "update ",
                "go ", "click ", "type ", "enter ", "copy ", "paste ", "verify ", "confirm ",
                "restart ", "reload ", "wait ", "note ", "keep ", "avoid ", "do ", "don't ",
                "never ", "always ", "if ", "when ", "once ", "after ", "before ",
                "to ")  # fmt: skip
_PRONOUNS = ("it ", "it's ", "its ", "this ", "that ", "these ", "those ", "they ", "there ",
             "here ", "we ", "i ", "you ", "he ", "she ", "which ", "what ", "who ", "now ",
             "then ", "so ", "and ", "but ", "also ", "all ", "both ", "each ", "everything ",
             "nothing ", "something ")  # fmt: skip


def finding(sentence: str) -> bool:
    """A finding about the project or its environment (see the module's doc): a short
    subject naming something concrete and a verb of state, a place where something is set,
    "it turns out ...", "it looks like X because ..."; never a plan, a guess, a change just
    made ("X now uses Y") or a test outcome."""
    text = sentence.strip()
    lowered = text.lower()
    for lead in _LEADS:
        if lowered.startswith(lead):
            text = text[len(lead) :]
            lowered = text.lower()
            break
    if not 6 <= len(text.split()) <= 50 or text.endswith(":"):
        return False
    led = ("turns out" in lowered and _has(_TURNS_OUT, text)) or (
        "looks like" in lowered and "because" in lowered and _has(_LOOKS_BECAUSE, text)
    )
    # "The API returns dates in UTC, so ...": a claim with its consequence, named or not.
    consequence = ", so " in lowered
    named = redirects.concrete(text) or _number(text)
    if not led and not consequence and not named:
        return False  # the cheap test most sentences stop at
    if _has(_NOT_A_FINDING, text):
        return False
    if led:
        return True
    if lowered.startswith(_PRONOUNS) or lowered.startswith(_IMPERATIVES) or "!" in text:
        return False  # a pronoun's claim, an instruction, or a cheer ("... features! 🎉")
    if consequence and _has(_CLAIM, text.split(", so ", 1)[0]):
        return True
    if not named:
        return False
    if _has(_WHERE, text):
        return True
    found = fastre.cached(_CLAIM, IGNORECASE).search(text)
    if found is None:
        return False
    if redirects.concrete(found.group("subject")):
        return True
    # "The dev server runs on port 5173": where or how a thing runs, with a value.
    rest = text[found.end() :]
    return _has(_WHERE_HOW, text) and (redirects.concrete(rest) or _number(rest))


# --- a norm of the project, as the assistant reads it --------------------------------------

_NORM_WORDS = ("convention", "pattern", "style", "project", "repo", "codebase", "existing",
               "claude.md", "agents.md", "contributing", "readme")  # fmt: skip
_NORM_SUBJECT = (
    r"^(?:(?:following|per|as per|matching|consistent with) (?:the )?(?:existing|project'?s?"
    r"|repo(?:sitory)?'?s?|codebase'?s?|same) (?:convention|pattern|style)s?\b"
    r"|(?:the|this) (?:project|repo|repository|codebase|team|existing (?:code|tests?|components?"
    r"|modules?|files?|handlers?|migrations?))(?:'s)? (?:(?:already|consistently) )?"
    r"(?:uses?|prefers?|follows?|keeps?|puts?|runs?|expects?|requires?|relies on|names?"
    r"|organi[sz]es|is organi[sz]ed|always|never|only)\b"
    r"|(?:the )?convention (?:here |in this \w+ )?is\b)"
    r"|\b(?:claude|agents|contributing|readme)\.md (?:says|requires|asks|wants|tells|specifies"
    r"|states|documents)\b"
)
_PLAN_TAIL = (", so i", ", and i", "; i", " so i'll", ", which i")


def convention(sentence: str) -> bool:
    """A norm of the project the assistant states ("The existing tests use `Mox` for the HTTP
    client", "Following the existing pattern, handlers live in `lib/x/`", "CLAUDE.md says to
    run `mix precommit` before committing"): a subject that is the project or its existing
    code, a verb of habit, and something concrete; a plan that follows it is cut off, a guess
    is none."""
    lowered = sentence.lower()
    if not any(word in lowered for word in _NORM_WORDS):
        return False  # the cheap test most sentences stop at
    for tail in _PLAN_TAIL:
        cut = lowered.find(tail)
        if cut > 0:
            sentence, lowered = sentence[:cut], lowered[:cut]
    if not 6 <= len(sentence.split()) <= 50 or not redirects.concrete(sentence):
        return False
    return _has(_NORM_SUBJECT, sentence) and not _has(_NOT_A_FINDING, sentence)


_WHERE_HOW = (
    r"\b(?:runs on|listens on|is served on|uses port|requires|needs|defaults to|points to"
    r"|is pinned to|expects)\b"
)


# ASCII digits to "0", every other ASCII character to " ": two digits in a row are "00" (the
# only ASCII characters str.isdigit() knows are 0-9: tests/test_statements.py checks it).
_DIGITS = str.maketrans(bytes(range(128)).decode(), " " * 48 + "0" * 10 + " " * 70)


def _number(text: str) -> bool:
    """A value of two digits or more (a port, a version, a limit)."""
    if text.isascii():  # the only digits str.isdigit() knows there are 0-9: mapped in C
        return "00" in text.translate(_DIGITS)
    run = 0
    for char in text:
        run = run + 1 if char.isdigit() else 0
        if run >= 2:
            return True
    return False


def may_state(text: str) -> bool:
    """False only when no sentence of ``text`` can be :func:`approach` or :func:`finding`
    (a cheap gate: both need a reason word, a lead or something concrete)."""
    return may_state_at_a_glance(text) or may_state_by_names_or_reasons(text)


def may_state_at_a_glance(text: str) -> bool:
    """The part of :func:`may_state` that costs a few string tests: a lead ("turns out", "looks
    like", " from ") or a value of two digits. True means :func:`may_state` is True; a gate
    that combines it with costlier tests asks it first."""
    lowered = text.lower()
    return (
        "turns out" in lowered or "looks like" in lowered or " from " in lowered or (_number(text))
    )


def may_state_by_names_or_reasons(text: str) -> bool:
    """The rest of :func:`may_state`: something concrete named, or one of the reason words."""
    if redirects.concrete(text):
        return True
    lowered = text.lower()
    for word in _REASON_WORDS:  # noqa: SIM110 - not any(): every note of a turn passes here
        if word in lowered:
            return True
    return False


def reasoned(sentence: str) -> bool:
    """A finding that says why or what follows ("it turns out", "because", ", so ")."""
    lowered = sentence.lower()
    return any(word in lowered for word in ("turns out", "because", ", so ", "which means"))
