"""Phrasing: what the words of one sentence of a prompt or of the assistant's messages say.

- :func:`convention` and :func:`correction`: a user's norm ("always ...", "we use ...", "I only
  want ...") or a correction of the assistant ("no, use pnpm", "don't mock the database");
- :func:`decision`: a choice with its reason ("X instead of Y", "because" beside a design verb);
- :func:`root_cause`: a sentence that names why something failed;
- :func:`narration`: the assistant telling what it does next, never a lesson;
- :func:`may_state_lesson`: the cheap gate before the patterns of the two above.

Shared by the Stop checkpoint (a hook command: no :mod:`re`, patterns compiled by
:mod:`memcli.fastparse.fastre`) and the compactor; what a line of *output* is lives in
:mod:`memcli.signals`.
"""

from memcli.fastparse import fastre

IGNORECASE = fastre.IGNORECASE


_has = fastre.has


_VERBS = (
    r"use|run|commit|push|edit|touch|call|import|add|merge|write|put|keep|create|delete"
    r"|modify|change|rebase|squash|format|test|mock|pin|install|update|bump|name|prefix"
    r"|store|log|return|raise|catch|check|rely|depend|hard-?code|skip|disable|leave"
    r"|verify|validate|confirm|review|document|sign|lint|rebuild|restart|read"
)
_CONVENTION = (
    r"^(?:please\s+)?(?:always|never|don'?t ever|do not ever|from now on)\b"
    r"|^(?:in this (?:repo|repository|project|codebase),?\s+)?we (?:always|never|use|prefer"
    r"|don'?t use|do not use|don'?t|do not|only use|stick to|standardi[sz]ed on)\b"
    rf"|\b(?:always|never)\s+(?:{_VERBS})\b"
    r"|\b(?:should|must) (?:always|never)\b(?! (?:happen|occur|be (?:the case|possible)))"
    r"|\bour convention\b|\bthe convention (?:here )?is\b|\bby convention\b"
    r"|\b(?:this|the|our) (?:repo|repository|project|codebase|team) (?:uses|prefers|never)\b"
    r"|^(?:i|we) (?:prefer|(?:would|'d) rather)\b|\bprefer \S+(?: \S+)? (?:over|to) \S"
    r"|^(?:please\s+)?(?:only use|use only)\b"
    # The user's own preference in the first person: "i would only want e2e tests for X",
    # "I don't want any mocks", "I never want a force push".
    r"|^(?:(?:and|but|also|btw|ok|okay),?\s+)?i (?:(?:would|'d) )?(?:only|never|always) want\b"
    r"|^(?:(?:and|but|also|btw|ok|okay),?\s+)?i (?:don'?t|do not) (?:ever )?(?:want|like)\b"
    # A standing reminder: "remember to resolve any merge issues on your own" (not "don't
    # forget the changelog": a task's request).
    r"|^(?:(?:and|but|also|btw|ok|okay|please),?\s+)?remember to\b"
    # A norm of the code or the work in so many words: "tests must not hit the network".
    r"|\bmust (?:not|never)\b(?! (?:happen|occur|be (?:the case|possible)))"
    # An order of work: "ask me before pushing", "read a file in full before changing it".
    rf"|^(?:please\s+)?(?:{_VERBS}|ask|read|lint|review)\b[^.;!?]{{0,60}}?\bbefore "
    r"(?:\w+ing|you|we|starting)\b"
    r"|^(?:please\s+)?ask (?:me )?(?:first|before)\b"
    # A recurring order of work: "commit after every step", "I want the branch clean after
    # each work package", "every time you change the schema, run the migrations".
    rf"|^(?:please\s+)?(?:i (?:want|need|'d like|would like)\b|(?:you )?(?:should|must|need to)"
    rf" (?:{_VERBS}|stay|be|keep)\b|(?:{_VERBS}|ask|stay|be)\b)[^.;!?]{{0,80}}?"
    r"\b(?:after|before|at the end of) (?:every|each)\b"
    rf"|^(?:every time|each time|whenever) (?:you|we)\b[^.;!?]{{3,80}}?, (?:please )?"
    rf"(?:{_VERBS}|ask|make sure|always|never|don'?t|do not)\b"
)
_MORE_VERBS = (
    r"block|rename|remove|stop|wait|ask|prompt|throw|fail|print|send|open|close|ignore"
    r"|overwrite|redact|expose|wrap|retry|swallow|suppress|silence|hide|copy|duplicate"
)
# Words a user may open an exasperated or casual sentence with, before what it says.
_INTERJECTIONS = (
    r"(?:omg|omfg|ugh+|argh+|wtf|ffs|jeez|geez|sigh|dude|man|bro|ok|okay|so|and|but|also"
    r"|please|hey|yo|look|listen|again)"
)
_CORRECTION = (
    r"^(?:no|nope|wrong)\b[,.!:; ]+\s*(?:(?:you|we|please)\s+){0,2}?(?:use|run|we|do|don'?t"
    r"|should|instead|put|call|keep)\b"
    r"|^(?:actually|instead)[, ]+\s*(?:use|run|we|do|don'?t|please|you should)\b"
    r"|^(?:no|nope|actually)\b[,.!:; ]+\s*(?:it'?s|that'?s) (?:`[^`]+`|[\w.@/+-]+),? not\b"
    r"|\b(?:use|run|call|put) \S+(?: \S+)? instead(?: of\b|[.!,]|$)"
    r"|^(?:that'?s|this is) (?:wrong|not (?:right|correct|what i))\b"
    rf"|^(?:please\s+)?(?:don'?t|dont|do not) (?:{_VERBS}|{_MORE_VERBS})\b"
    rf"|\b(?:don'?t|dont|do not|never) (?:{_VERBS}|{_MORE_VERBS})\b[^.;!?]{{0,80}}?,?\s+"
    r"(?:but\s+)?instead\b"
    r"|^(?:please\s+)?stop (?:using|doing|adding|running|calling|writing|mocking|creating"
    r"|committing|pushing|editing|changing|installing)\b"
    r"|^(?:please\s+)?use (?:`[^`]+`|[\w.@/+-]+),? (?:not|rather than)\b"
    r"|^(?:please\s+)?use `[^`]+` (?:to|for) \w+"
    # "omfg use rgb values in the themes, no palette indices!": a longer "use X, not Y",
    # after an interjection or two
    rf"|^(?:{_INTERJECTIONS}[,!.]*\s+){{0,2}}use\b[^.;!?]{{1,60}}?,\s*(?:not|no|never|rather than"
    r"|instead of)\s+(?!(?:sure|yet|really|problem|idea|worries|need)\b)\w"
    r"|^you (?:should(?:n'?t| not)|must(?:n'?t| not)) (?:have )?\w+"
    r"|^i (?:said|told you|asked (?:you )?(?:to|not to|for))\b"
)
_CHOICE = (
    # "went with", not "the unused imports went with it" (were removed along with it)
    r"\b(?:instead of|rather than|chose|chosen|opted|decided|went with(?! (?:it|them)\b)"
    r"|in favou?r of"
    r"|prefer(?:red)? \S+ over)\b"
)
_BECAUSE = r"\b(?:because|so that|since)\b"
_DESIGN = (
    r"\b(?:use[sd]?|using|keep|kept|switch(?:ed)?|mov(?:e|ed)|implement(?:ed)?|pinn?(?:ed)?"
    r"|add(?:ed)?|stor(?:e|es|ed)|made|replac(?:e|ed)|wrap(?:ped)?|cach(?:e|ed)|split"
    r"|rewr(?:ote|ite)|introduc(?:e|ed)|avoid(?:ed)?|model(?:led)?|defer(?:red)?)\b"
)
_ROOT_CAUSE = (
    r"\b(?:root cause|the (?:real )?(?:cause|problem|issue|bug) (?:is|was)"
    r"|(?:was|is|were|are) caused by|turned out|because the|the culprit|the reason (?:is|was)"
    r"|fails because"
    r"|failed because|happens because|(?:is|was) a (?:known|confirmed|documented) (?:\w+ )?"
    r"(?:bug|issue|limitation|regression))\b"
)
_NARRATION = (
    r"^(?:let me|let's|i'll|i will|i'm going|i am going|now\b|next\b|first\b|then\b|finally\b"
    r"|i (?:ran|checked|looked|tried|found|read|opened|searched|re-ran|reran|recorded|dismissed"
    r"|saved|noted)|(?:recorded|dismissed|saved)\b|running\b"
    r"|here(?:'s| is| are)\b|great\b|done\b|ok\b|okay\b|sure\b|perfect\b|excellent\b"
    r"|good\b|all set\b|summary\b|to summari[sz]e\b|in summary\b|i(?:'ve| have) (?:now )?"
    r"(?:removed|deleted|cleaned|created|run|updated|added|made|completed|finished|verified|recorded|saved|dismissed"
    r"|implemented|fixed|written|changed))"
    r"|\bhas been (?:successfully )?(?:removed|deleted|cleaned up|created|updated|added"
    r"|completed|run|executed|verified|implemented|fixed|applied|reverted)\b"
    r"|\bhave been (?:successfully )?(?:removed|deleted|cleaned up|created|updated|added"
    r"|completed|run|executed|verified|implemented|fixed|applied|reverted)\b"
    r"|\bsuccessfully\b|\bis (?:now )?complete\b|\ball (?:\d+ )?tests? (?:now )?pass"
)


def convention(sentence: str) -> bool:
    """A user's explicit norm ("always ...", "we use ...", "from now on ...")."""
    return _has(_CONVENTION, sentence)


def correction(sentence: str) -> bool:
    """A user correcting the assistant ("no, use X", "don't mock the database")."""
    return _has(_CORRECTION, sentence.strip())


# "let's implement the fix based on our understanding": a plan being announced, not a choice
# made (the choice, when there is one, is said again once it is done); "Or add it to the
# hook - ...": one of the options offered, not the one taken.
_PLAN = r"\b(?:let's|let us|let me)\b|^(?:or|alternatively|another option|optionally)\b"


def decision(sentence: str) -> bool:
    """A choice with its reason ("X instead of Y", "because" beside a design verb)."""
    chose = _has(_CHOICE, sentence) or (_has(_BECAUSE, sentence) and _has(_DESIGN, sentence))
    return chose and not _has(_PLAN, sentence)


_ROOT_CAUSE_STATED = (
    r"\b(?:root cause|the (?:real |actual )?(?:cause|problem|issue|bug) (?:is|was)"
    r"|(?:was|is|were|are) caused by|turned out (?:to be|that)|the culprit"
    r"|(?:is|was) a (?:known|confirmed|documented) (?:\w+ )?(?:bug|issue|limitation|regression)"
    r"|because (?:the |its |this |my |your |our )?[\w .`'\"/-]{1,60}?(?:doesn't|does not|don't"
    r"|do not|didn't|did not|can't|cannot|couldn't|could not|isn't|is not|wasn't|was not|won't"
    r"|has no|have no|aren't|are not|weren't|were not"
    r"|lacks))\b"
)


# "The issue is in line 1950", "the problem is in the `f` function at line 71": where the
# fault is, not what it is; such a sentence names a cause only when more follows that says it.
_ONLY_WHERE = (
    r"\bthe (?:real |actual |root )?(?:cause|problem|issue|bug)s? (?:is|was|lies|seems to be"
    r"|appears to be|must be|might be|could be)(?: located| likely| probably| somewhere)?"
    r" (?:in|at|on|within|inside|around|near)\b"
)
_SAYS_WHAT = (
    r"\b(?:because|since|which|where|when|that|how|why|what|so|but|not|never|no|only|wrong"
    r"|missing|instead|without|doesn't|don't|didn't|isn't|can't|returns?|returned|raises?"
    r"|raised|ignores?|ignored|treats?|treated|compares?|compared|checks?|checked|calls?"
    r"|called|expects?|assumes?|uses?|used|passes|passed|sets?|fails?|failed|breaks?|skips?"
    r"|skipped)\b|[:;=]| - | -- |\u2014"
)


# "Added the GC issue with its root cause and recovery steps": what was written down, not
# the cause itself.
_WRITE_UP = (
    r"^(?:i(?:'ve| have)? )?(?:added|documented|wrote|written|logged|filed|recorded|noted"
    r"|described|summari[sz]ed|explained)\b"
)


def root_cause(sentence: str, stated: bool = False) -> bool:
    """A sentence that names why something failed; ``stated``: in so many words ("the root
    cause was", "was caused by"), not merely "because". Where the fault is, and no more
    ("the issue is in line 1950"), names no cause."""
    if not _has(_ROOT_CAUSE_STATED if stated else _ROOT_CAUSE, sentence):
        return False
    return not only_where(sentence) and not _has(_WRITE_UP, sentence)


def only_where(sentence: str) -> bool:
    """Whether the sentence says only where a fault is: "the issue is in `x.py` at line 71",
    with nothing after the place that says what is wrong there."""
    found = fastre.cached(_ONLY_WHERE, IGNORECASE).search(sentence)
    if found is None:
        return False
    # a closing colon opens the code shown next, not an explanation
    return not _has(_SAYS_WHAT, sentence[found.end() :].rstrip(" .:;"))


# Words (lower case) one of which a text must hold for :func:`root_cause` or :func:`decision`
# to match any of its sentences. Keep in step with the patterns above (a test checks them).
_LESSON_WORDS = ("cause", "problem", "issue", "bug", "turned out", "culprit", "reason",
                 "instead of", "rather than", "chose", "opted", "decided", "went with", "favo",
                 "prefer", "so that", "since", "limitation", "regression")  # fmt: skip


def may_state_lesson(text: str) -> bool:
    """False only when no sentence of ``text`` can be a root cause or a decision: a cheap test
    that lets a caller skip masking and classifying a message. Non-ASCII text always passes
    (case-insensitive matching folds more than :meth:`str.lower` does)."""
    if not text.isascii():
        return True
    lowered = text.lower()
    for word in _LESSON_WORDS:  # noqa: SIM110 - not any(): every message and note of a turn
        if word in lowered:
            return True
    return False


def narration(sentence: str) -> bool:
    """Step-by-step narration or a status report, never a lesson or a title."""
    return _has(_NARRATION, sentence.strip().lstrip("*#-> ").strip())
