"""Prompt sentences that redirect the work without the words of a correction or a norm, and
assistant sentences that explain a change by what it replaced.

Shared by the Stop checkpoint (a hook command: no :mod:`re`, patterns from
:mod:`memcli.fastparse.fastre`, and a plain string test before each pattern) and the
compactor's rules.

- :func:`challenge`: a question that questions a choice the assistant made ("why does
  `unsubscribe()` clear the listeners?", "`AppMessage` not `Message`?", "isn't that already
  in the session?", "why not reuse the parser?"), not one asking for information ("what are
  guest passes?", "how do we enable sudo?", "can you test it?").
- :func:`fragment`: a terse norm typed after a turn ("only e2e tests", "keep the old code
  around", "no console logs", "needs to be fully clean", "use rgb values", "that's not the
  system prompt, see main.ts"), not an acknowledgement ("yes", "continue", "do it",
  "commit!") or a plain task ("push to github").
- :func:`explained`: a sentence that explains a change by what the old code did or what
  happens without it ("the old cache ignored theme changes", "it used to re-render on every
  key", "without the lock, two writers interleave"), with the kind of lesson it is.
- :func:`concrete`: whether a sentence names something a later session can find.
"""

from memcli.fastparse import fastre

IGNORECASE = fastre.IGNORECASE


def _has(pattern: str, text: str) -> bool:
    return fastre.cached(pattern, IGNORECASE).search(text) is not None


# --- questions that challenge a choice ---------------------------------------------------

_CHALLENGE_OPENERS = ("why", "isn't", "isnt", "aren't", "wasn't", "doesn't", "doesnt", "don't",
                      "dont", "didn't", "shouldn't", "shouldnt", "wouldn't", "couldn't",
                      "can't", "cant", "won't", "what about", "how about", "how come",
                      "are you sure", "but ", "so ", "and ", "hmm", "wait", "also")  # fmt: skip
_CHALLENGE = (
    r"^(?:(?:but|so|and|hmm+|wait|also)[,.!]?\s+)?(?:"
    # "why does X clear Y?", "why do you go 100 lines at a time", "why not X?"
    r"why (?:not\b|do|does|did|are|is|was|were|would|should|can'?t|don'?t|doesn'?t|didn'?t"
    r"|isn'?t|aren'?t|won'?t|wouldn'?t|shouldn'?t|the|this|that|it|we|you)\b"
    # "isn't that in the session already?", "shouldn't we use X?", "doesn't this break Y?"
    r"|(?:isn'?t|aren'?t|wasn'?t|doesn'?t|don'?t|didn'?t|shouldn'?t|wouldn'?t|couldn'?t|can'?t"
    r"|won'?t) \S"
    # "what about X instead?", "how about reusing X?", "how come X?", "are you sure X?"
    r"|(?:what|how) about\b|how come\b|are you sure\b"
    r")"
)
# Words of a question that asks why something fails rather than why it was done so.
_DIAGNOSIS = ("fail", "error", "crash", "broke", "wrong", "hang", "freez", "stuck", "slow",
              "not work", "n't work", "not run", "n't run", "exception", "timeout",
              "timed out")  # fmt: skip
# "`AppMessage` not `Message`?", "pnpm, not npm?", "X instead of Y?": a short question
# setting one name against another.
_NAME_AGAINST_NAME = (
    r"^[\w`'\"./@:()-]+(?: [\w`'\"./@:()-]+){0,2},? (?:not|instead of|rather than|over|vs\.?)"
    r" [\w`'\"./@:()-]+(?: [\w`'\"./@:()-]+){0,2}\s*\?+$"
)


def challenge(sentence: str) -> bool:
    """A question that questions a choice (see the module's doc)."""
    text = sentence.strip()
    lowered = text.lower()
    if not 3 <= len(text.split()) <= 30 or ("?" not in text and not lowered.startswith("why ")):
        return False
    if lowered.startswith(_CHALLENGE_OPENERS) and _has(_CHALLENGE, text):
        # "Why does the build fail?" asks for a diagnosis, not about a choice.
        return not any(word in lowered for word in _DIAGNOSIS)
    return name_against_name(text)


def name_against_name(sentence: str) -> bool:
    """A short question setting one name against another ("`AppMessage` not `Message`?")."""
    text = sentence.strip()
    lowered = text.lower()
    if not text.endswith("?"):
        return False
    if any(word in lowered for word in (" not ", " instead of ", " rather than ", " over ", " vs")):
        return _has(_NAME_AGAINST_NAME, text) and not _has(_STATE_QUESTIONED, text)
    return False


# "`userText` is not used?", "the footer does not refresh?": a verb before the "not" makes
# it a statement about a state put as a question (a doubt), not one name set against another.
_STATE_QUESTIONED = (
    r"^\S+(?: \S+){0,2}? (?:is|are|was|were|isn'?t|aren'?t|does|do|did|has|have|had|seems?"
    r"|should|can|could|will|would|gets?|got) (?:not|instead of|rather than|over|vs)\b"
)


# --- terse norms after a turn ------------------------------------------------------------

_FRAGMENT_OPENERS = ("only ", "no ", "not ", "keep ", "without ", "avoid ", "need ", "needs ",
                     "must ", "should ", "make sure", "ensure ", "leave ", "never ", "always ",
                     "prefer ", "rather ", "stick ", "nothing ", "don't need", "no need",
                     "use ", "that's not ", "thats not ", "that is not ", "it's not ",
                     "its not ", "this isn't ", "this is not ", "i don't think that",
                     "i dont think that", "i do not think that", "it's a different",
                     "its a different", "that's a different", "that's the wrong", "wrong ",
                     "the wrong ")  # fmt: skip
_FRAGMENT = (
    r"^(?:only|no|not|keep|without|avoid|needs?(?: to)?|must|should|make sure|ensure|leave"
    r"|never|always|prefer|rather|stick (?:to|with)|nothing|(?:we )?don'?t need|no need|use"
    # "that's not the system prompt, see main.ts": the assistant looked at the wrong thing
    r"|(?:that'?s|that is|it'?s|this is|this isn'?t) not (?:the|a|an|what|where|how|it|in)"
    r"|this isn'?t (?:the|a|an|what|where|how|it|in)"
    # "I don't think that's it", "it's a different program", "wrong service": the work went
    # to the wrong thing, and the model now knows which is the right one
    r"|i (?:don'?t|do not) think (?:that'?s|this is|it'?s) (?:it|right|the (?:one|right|problem"
    r"|issue|cause|program|app|file|service))"
    r"|(?:it'?s|that'?s) (?:a )?different (?:program|app|application|file|one|thing|service"
    r"|process|tool|repo|repository|branch|server|machine|folder|directory)"
    r"|(?:that'?s )?(?:the )?wrong (?:one|program|app|application|file|service|process|tool"
    r"|repo|repository|branch|server|machine|folder|directory))\b"
)
# Openers that are an acknowledgement or small talk, not a norm.
_NOT_A_NORM = (
    r"^(?:no (?:thanks|thank|worries|problem|prob|idea|clue|luck|way|rush|need to (?:apologi|"
    r"worry|hurry)|more questions|changes?(?: needed)?$)|not (?:yet|sure|now|really|bad|quite"
    r"|exactly|at all)|keep (?:going|it up|at it|on|up)|only (?:if you|when you)|never ?mind"
    r"|use (?:it|this|that|them|those|these|your|the same)\b|ok\b|okay\b)"
)


_LEADS = ("ok,", "okay,", "ok ", "okay ", "yes,", "yeah,", "yep,", "sure,", "right,", "also,",
          "also ", "and ", "but ", "hmm,", "great,", "thanks,", "nice,", "good,", "cool,",
          "perfect,", "wait,", "wait ",
          # "yes need to be fully clean" answers a question and sets the norm in one breath
          "yes ", "yeah ", "yep ", "alright,", "alright ")  # fmt: skip


def _without_lead(sentence: str) -> tuple[str, str]:
    """The sentence after an acknowledgement ("ok, only e2e tests"), and it in lower case."""
    text = sentence.strip().rstrip(".!")
    lowered = text.lower()
    for lead in _LEADS:  # "ok, only e2e tests", "also keep the old code around"
        if lowered.startswith(lead):
            text = text[len(lead) :].lstrip(" ,")
            return text, text.lower()
    return text, lowered


_OBLIGING = ("need ", "needs ", "must ", "should ", "always ", "never ", "make sure", "ensure ")


def obliging(sentence: str) -> bool:
    """A fragment that says what has to be ("need to be fully clean", "must stay green"): a
    norm short only of its subject, stronger evidence than one that restricts ("only e2e")."""
    return _without_lead(sentence)[1].startswith(_OBLIGING)


def fragment(sentence: str) -> bool:
    """A terse norm typed after a turn (see the module's doc): short, no question, opening
    with a word that restricts or keeps ("only", "no", "keep", "without", "must", ...)."""
    text, lowered = _without_lead(sentence)
    words = len(text.split())
    if "?" in text or not 2 <= words <= 14:
        return False
    if not lowered.startswith(_FRAGMENT_OPENERS):
        return False
    return _has(_FRAGMENT, text) and not _has(_NOT_A_NORM, text)


# --- a change explained by what it replaced ----------------------------------------------

_EXPLAINED_HINTS = ("old ", "previous", "original ", "former ", "earlier ", "existing ",
                    "used to ", "so now", "now that", "without ", "otherwise", "which caused",
                    "which meant", "which made", "which broke", "which led", "that caused",
                    "that meant", "that broke", "because")  # fmt: skip
# The old code and what it did (a cause): "the old cache ignored theme changes", "previously
# every render re-measured", "it used to re-read the file", "..., which meant X was stale".
_REPLACED = (
    r"\b(?:the|its|their|our|your) (?:old|previous|original|former|earlier|existing) "
    r"[\w`.()/:-]+(?: [\w`.()/:-]+){0,3}? (?:was|were|did|didn'?t|does(?:n'?t| not)|had"
    r"|used|ignored|only|never|always|would|could(?:n'?t| not)|kept|missed|broke|assumed"
    r"|checked|compared|read|called|returned|treated|re-?\w+ed|skipped|dropped|lost|leaked"
    r"|overwrote|cleared|reset|swallowed|relied|depended|matched)\b"
    r"|^previously,? (?:the |it |we |every |each |a |an |\w+ )"
    r"|\b(?:it|this|that|[\w`.()/-]+) used to (?!be able\b)\w+"
    r"|,? (?:which|that) (?:caused|meant|made|broke|led to)\b"
)
# Why the change is needed (a decision): "without the lock, two writers interleave",
# "..., otherwise the cache goes stale", "X was slow, so now Y".
_WHY_NEEDED = (
    r"^without [^,;]{3,80}[,;] \w+ \w+"
    r"|\botherwise\b,? .{0,80}?\b(?:would|will|could|can'?t|cannot|won'?t|breaks?|fails?"
    r"|crash(?:es)?|hangs?|loses?|leaks?|goes|stays?|gets?|is|are)\b"
    r"|\b(?:was|were|did|didn'?t|wasn'?t|weren'?t)\b.{3,120}?,? so (?:it |that |we |the |this )?"
    r"(?:now|it now)\b"
    r"|\bnow that\b.{3,120}?,"
)

# What behaved how, and why, said by what it did: "the footer flickered because ...", "the
# list was re-rendering because ...", not by the one who did it ("I added X because ...").
_BEHAVED_BECAUSE = (
    r"^(?!(?:i|we|you|let'?s|so|and|then|now)\b)[\w`'\".()/:-]+(?: [\w`'\".()/:-]+){0,6}? "
    r"(?:(?:was|were|kept|is|are) )?(?:[\w-]+ed|[\w-]+ing|broke|froze|hung|ran|showed|shown|went"
    r"|came|stuck|empty|blank|missing|wrong|stale|slow)\b[^.;]{0,80}?\bbecause\b"
)


def explained(sentence: str) -> str:
    """How a sentence explains a change: ``"replaced"`` when it says what the replaced code
    did, ``"needed"`` when it says why the change is needed, ``"because"`` when it says why
    something behaved as it did without a root cause's words ("the footer flickered because
    each render re-measured the width"), else ``""``."""
    lowered = sentence.lower()
    for hint in _EXPLAINED_HINTS:  # the cheap test first: most sentences hold none
        if hint in lowered:
            break
    else:
        return ""
    if _has(_REPLACED, sentence):
        return "replaced"
    if _has(_WHY_NEEDED, sentence):
        return "needed"
    if "because" in lowered and _has(_BEHAVED_BECAUSE, sentence):
        return "because"
    return ""


def may_explain(text: str) -> bool:
    """False only when no sentence of ``text`` can be :func:`explained` (a cheap gate)."""
    lowered = text.lower()
    for hint in _EXPLAINED_HINTS:  # noqa: SIM110 - not any(): every sentence of a turn
        if hint in lowered:
            return True
    return False


def concrete(sentence: str) -> bool:
    """Whether a sentence names something a later session can find: code in backticks, a
    path or a file name, a flag, an error's name, a version number, a CamelCase or
    snake_case name."""
    if "`" in sentence or "Error" in sentence or "Exception" in sentence:
        return True
    for word in sentence.split():
        word = word.strip("\"'.,;:!?()[]")
        if len(word) < 2:
            continue  # no name, no flag; a version needs a dot and a digit
        if word.islower() and "/" not in word and "." not in word and "_" not in word:
            # A plain word, most of them (what _named decides in its first test): only a flag.
            if word[0] == "-" and (word[1] == "-" or word[1].isalpha()):
                return True
            continue
        if _named(word) or (word[0] == "-" and word[1].isalpha()):
            return True  # a name, or a short flag ("-p")
        if "." in word and any(c.isdigit() for c in word):
            return True  # a version
    return False


def names(sentence: str) -> list[str]:
    """The concrete names a sentence gives, in order: code spans, paths and file names,
    flags, CamelCase and snake_case names (each at least three characters)."""
    parts = sentence.split("`")
    found = [span.strip() for span in parts[1::2] if len(span.strip()) >= 3]
    for word in " ".join(parts[0::2]).split():
        word = word.strip("\"'.,;:!?()[]")
        if len(word) >= 3 and _named(word):
            found.append(word)
    return found


def _named(word: str) -> bool:
    """A path or file name, a long flag, a snake_case, camelCase or CamelCase name."""
    if word.islower() and "/" not in word and "." not in word and "_" not in word:
        return word[:2] == "--"  # a plain word, the most common case, in a few string tests
    return (
        "/" in word[1:]
        or ("." in word[1:-1] and any(c.isalpha() for c in word))
        or word[:2] == "--"
        or "_" in word[1:-1]
        or (word[0].islower() and any(c.isupper() for c in word[1:]))
        or (word[0].isupper() and any(c.isupper() for c in word[1:]) and not word.isupper())
    )


# --- a manner of working asked for again and again ---------------------------------------

_MANNER_HINTS = ("full", "whole", "entire", "entirety", "complete", "one at a time", "one by one",
                 "step by step", "by file", "carefully", "thorough")  # fmt: skip
# A verb of working on something and how it is to be done: "read tui-renderer.ts in full",
# "read the whole file", "go through them one at a time", "review it carefully".
_MANNER = (
    r"\b(?P<verb>re-?read|read|review|go through|look through|check|test|analy[sz]e|inspect)\b"
    r"(?:[^.;!?]|[.](?=\S)){0,100}?\b(?:(?P<whole>in full|in (?:its|their) entirety|completely"
    r"|fully"
    r"|(?:the|a|each|every) (?:full|whole|entire|complete) (?:file|files|thing|module|source)s?)"
    r"|(?P<piecewise>one (?:at a time|by one)|step by step|file by file)"
    r"|(?P<careful>carefully|thoroughly))\b"
)
_MANNER_NAMES = {"whole": "in full", "piecewise": "one at a time", "careful": "carefully"}


def manner(sentence: str) -> str:
    """How the user asks for a piece of work to be done, as a key (``"read in full"``,
    ``"review carefully"``), or ``""``: said in one prompt it is the task's detail, asked
    for in several it is how the user wants the work done (a norm)."""
    lowered = sentence.lower()
    for hint in _MANNER_HINTS:  # the cheap test first: most sentences hold none
        if hint in lowered:
            break
    else:
        return ""
    found = fastre.cached(_MANNER, IGNORECASE).search(sentence)
    if found is None:
        return ""
    how_at = next(found.start(group) for group in _MANNER_NAMES if found.group(group))
    before = sentence[max(0, found.start() - 16) : how_at].lower()
    if any(word in before for word in ("n't ", "dont ", "not ", "never ", "no need to ")):
        return ""  # "don't read the full file!": the opposite manner, one task's detail
    verb = found.group("verb").lower().replace("-", "")
    verb = "read" if verb == "reread" else verb
    how = next(name for group, name in _MANNER_NAMES.items() if found.group(group))
    return f"{verb} {how}"
