"""Candidates from what the assistant said: root causes, decisions with reasons, changes
explained by what they replaced, and environment facts (the turn's last message and the notes
it wrote in the middle of the turn), and what a sub-agent reported. What the user typed is
read by :mod:`memcli.checkpoint.prompted`.

:func:`strength` ranks what was said when a turn holds more than a request may name: a lesson
states its cause or its choice and reason in so many words and names something concrete (a
file, a command, an error, a version); narration does neither.
"""

from memcli import phrasing, redirects, signals, statements
from memcli.checkpoint import reported, salient
from memcli.checkpoint.entries import add, known, one_line, text_of
from memcli.fastparse import fastre

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing on the hook path
if TYPE_CHECKING:
    from collections.abc import Callable

SUBAGENT_TOOLS = frozenset(("task", "agent", "spawn_agent", "subagent", "dispatch_agent"))


# Abbreviations a sentence goes on after (as :data:`memcli.compact.text._ABBREVIATION`).
_ABBREVIATIONS = (" e.g.", " i.e.", " etc.", " vs.", " cf.", " approx.", " incl.", "(e.g.",
                  "(i.e.")  # fmt: skip


def sentences(text: str) -> list[str]:
    """Prose sentences, cheaply: code blocks dropped, split at line ends and full stops;
    typographic apostrophes made plain (the phrasing patterns spell "I've", not "I’ve")."""
    out: list[str] = []
    text = text.replace("\u2019", "'")
    in_code = False
    for raw in text.split("\n"):
        if raw.lstrip().startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        line = raw.strip().lstrip("-*#>0123456789. ⏺•●◦▪⎿").strip().strip("*").strip()
        pending = ""
        for part in line.replace("? ", "?\n").replace("! ", "!\n").replace(". ", ".\n").split("\n"):
            part = f"{pending} {part.strip()}" if pending else part.strip()
            if part.endswith(".") and part.lower().endswith(_ABBREVIATIONS):
                pending = part  # "runs in a command substitution, i.e. a subshell": one sentence
                continue
            pending = ""
            if len(part) >= 3:
                out.append(part)
        if len(pending) >= 3:
            out.append(pending)
    return out


def message(
    text: str,
    state: dict[str, object],
    record: dict[str, object] | None,
    mid_turn: bool = False,
    mask: "Callable[[str], str] | None" = None,
) -> None:
    """Decisions and root causes in an assistant message (captured, or from the Stop event);
    ``mid_turn``: a note, where a decision counts only with its reason (a plan says "X instead
    of Y" as often as a decision does) and candidates are marked ``origin: note``. ``mask``:
    the text is not masked yet (read straight from a transcript): each sentence that becomes
    a candidate is masked before it is kept, and its id comes from the masked words."""
    extra: dict[str, object] = {"origin": "note"} if mid_turn else {}
    # The cause of a pasted failure is said once, in its `fix` candidate.
    split = sentences(text)
    if not mid_turn and mask is None:  # masked already: a closing message
        _remember_question(split, state)
    taken = reported.said(split, state, mask) if not mid_turn else frozenset()
    seen = state.setdefault("_seen", set())  # this run's sentences: a repeat costs nothing
    assert isinstance(seen, set)
    unread: list[str] = []  # sentences no rule reads a lesson in: read for the most telling
    for sentence in split[:80]:
        if sentence in seen or sentence in taken:
            continue
        seen.add(sentence)
        if "**" in sentence or "__" in sentence:  # emphasis splits the words the rules read
            sentence = sentence.replace("**", "").replace("__", "")
        kind = kind_said(sentence, mid_turn)
        if not kind:
            unread.append(sentence)
            continue
        if mask is not None:
            if known(state, kind, sentence):
                continue  # asked about before, and it held nothing to mask: nothing to do
            sentence = mask(sentence)
        said = [f'you said: "{sentence}"']
        if kind == "env":
            add(state, "env", sentence.lower(), said, record, env="stated", **extra)
        elif kind == "fact":
            add(state, "fact", sentence.lower(), said, record, form="finding", **extra)
        elif kind == "approach":
            add(state, "decision", sentence.lower(), said, record, form="approach", **extra)
        else:
            add(state, kind, sentence.lower(), said, record, **extra)
    salient.offer(unread, state, record, "you said", mask, extra, 1 if mid_turn else 2)


QUESTION = "question"  # the state's key: the closing message's last question
MAX_QUESTION = 200


def _remember_question(split: list[str], state: dict[str, object]) -> None:
    """Keep the last question of a closing message (masked), or forget the one before: the
    user's next prompt may answer it in a few words ("leave it", "only the tests"), which say
    nothing without it (see :func:`memcli.checkpoint.prompted.prompt`)."""
    for sentence in reversed(split):
        if sentence.rstrip("*_)").endswith("?") and len(sentence.split()) >= 4:
            state[QUESTION] = one_line(sentence.replace("**", ""), MAX_QUESTION)
            return
    state.pop(QUESTION, None)


def kind_said(sentence: str, mid_turn: bool) -> str:
    """The kind of candidate a sentence of the assistant's is, or ``""``: a question, a
    sentence too short or too long, and narration are none; plain string tests come first,
    so most sentences never reach a pattern."""
    words = len(sentence.split())
    if "?" in sentence or not 6 <= words <= 60:
        return ""
    lesson = _may_state_lesson(sentence)  # else only a change of approach or a finding
    if not lesson and not statements.may_state(sentence):
        return ""
    if phrasing.narration(sentence):
        return ""
    if lesson:
        kind = _lesson_said(sentence, mid_turn)
        if kind:
            return kind
    # Said without a cause's or a choice's words: a change of approach in the closing
    # message ("Switched the parser to streaming to bound memory"), a finding anywhere.
    if statements.convention(sentence):  # "the existing tests use `Mox` ..."
        return "convention"
    if not mid_turn and statements.approach(sentence):
        return "approach"
    return "fact" if statements.finding(sentence) else ""


def _lesson_said(sentence: str, mid_turn: bool) -> str:
    if phrasing.root_cause(sentence):
        return "cause"
    if phrasing.decision(sentence):
        return "decision" if not mid_turn or _has(_REASON, sentence) else ""
    if learned(sentence) or _has(_CAUSE_SAID, sentence):
        return "cause"
    if environment_fact(sentence) or _quoted_environment(sentence) or _has(_FAILS_ANYWAY, sentence):
        return "env"
    how = redirects.explained(sentence)
    return ("decision" if how == "needed" else "cause") if how else ""


# What the assistant learned, in the shape of a finding: a lead that reports one ("I see",
# "it turns out", "apparently", "note:") followed by what something does not do, cannot do,
# needs or requires; or a reason ("since") that is such a limitation.
_LEARNED = (
    r"^(?:i see(?: now)?|(?:it )?turns out|apparently|it seems|it looks like|looks like"
    r"|note|important|the catch is|the trick is)\b[,:]?\s.{0,160}?\b(?:doesn't|does not"
    r"|don't|do not|can't|cannot|can not|isn't|is not|aren't|are not|won't|will not|never"
    r"|needs?|requires?|must|only)\b"
    r"|\bsince\s(?:the |its |this |these |my |your |our )?[\w .`'/-]{1,60}?"
    r"(?:doesn't|does not|don't|do not|can't|cannot|isn't|is not|aren't|are not|won't|lacks?"
    r"|has no|have no)\b"
)
_LEARNED_HINTS = ("i see", "turns out", "apparently", "it seems", "looks like", "note",
                  "important", "the catch", "the trick", "since ")  # fmt: skip
# Words one of which an environment failure's message holds (see signals.ENVIRONMENT): a
# quote without any is not read as output.
_QUOTED_ENV_HINTS = ("not found", "module", "package", "unreachable", "denied", "permission",
                     "not permitted", "in use", "eaddrinuse", "eacces", "timed out", "resolve",
                     "tty", "terminal", "rejected", "unauthorized", "forbidden", "limit",
                     "usage", "version", "requires", "not a git", "no route")  # fmt: skip


def learned(sentence: str) -> bool:
    """A finding stated as one: "I see the agent names don't need the prefix", "... myself
    since background agents can't get interactive permission"."""
    lowered = sentence.lower()
    for hint in _LEARNED_HINTS:
        if hint in lowered:
            break
    else:
        return False
    return fastre.cached(_LEARNED, fastre.IGNORECASE).search(sentence) is not None


def _quoted_environment(sentence: str) -> bool:
    """A sentence quoting a failure's message whose signature is an environment one
    ('failed with "Network is unreachable"'): the quote is read as output would be."""
    if sentence.count('"') < 2 and sentence.count("`") < 2:
        return False
    lowered = sentence.lower()
    if not any(hint in lowered for hint in _QUOTED_ENV_HINTS):
        return False
    for mark in ('"', "`"):
        parts = sentence.split(mark)
        for quoted in parts[1::2]:
            if len(quoted.split()) >= 2 and signals.environment(quoted):
                return True
    return False


# What the environment is or lacks, said in a sentence: a tool or package that is not
# installed or not on PATH, a version a thing requires, where or how a thing must run, a busy
# port, no network, a read-only or sandboxed file system, a missing terminal or variable.
_ENV_FACT = (
    r"\b(?:is|are|was|were)(?:n't| not)(?: \w+)? (?:installed|available|on (?:the )?path)\b"
    r"|\bnot (?:installed|available) (?:in|on|here|locally)\b"
    r"|\b(?:requires?|needs?|only (?:works|runs) (?:on|with)) (?:python|node(?:\.js)?|go|java|ruby"
    r"|rust|npm|pnpm|yarn|gcc|clang|docker|bash|zsh)\b ?[<>=~^v]*\d"
    r"|\b(?:must|has to|needs to|can only) (?:be )?(?:run|ran|invoked|started|executed|built"
    r"|installed) (?:from|with|as|in|inside|under|via|through|before|after)\b"
    r"|\bport \d+ (?:is )?(?:already )?(?:in use|taken|busy|occupied)\b"
    r"|\bno (?:network|internet|outbound) (?:access|connection)\b"
    r"|\b(?:read-only|readonly) (?:file ?system|mount|directory)\b"
    r"|\b(?:sandbox|sandboxed)\b.{0,60}"
    r"\b(?:blocks|prevents|denies|forbids|does(?:n't| not) allow)\b"
    r"|\b(?:needs|requires|without) an? (?:tty|terminal|interactive (?:shell|terminal))\b"
    r"|\b(?:environment variable|env var) `?\w+`? (?:is not|isn't|must be|needs to be|has to be)"
    r" set\b"
)
_ENV_HINTS = ("install", "available", "path", "require", "need", "only works", "only runs",
              "must ", "has to", "needs to", "can only", "port ", "network", "internet",
              "outbound", "read-only", "readonly", "sandbox", "tty", "terminal", "variable",
              "env var")  # fmt: skip


def environment_fact(sentence: str) -> bool:
    """A sentence stating what the environment is or lacks (not a failure's output line)."""
    lowered = sentence.lower()
    for hint in _ENV_HINTS:  # the cheap test first: most sentences hold none of these
        if hint in lowered:
            break
    else:
        return False
    return fastre.cached(_ENV_FACT, fastre.IGNORECASE).search(sentence) is not None


# A cause said in other words than phrasing.root_cause reads (the checkpoint only: the model
# judges it, so no item is made of it): what a failure is ("the E2E failure is a wrong CSS
# selector"), what caused it in the active voice ("..., which caused the OOM we hit"), a cause
# ruled out ("the worktree location isn't the cause", "a red herring", "expected noise"), a
# tool that does not understand the code ("staticcheck doesn't recognize that `t.Fatal`
# terminates execution") and a labelled explanation ("AirPods issue: `AudioRecorder` never
# listens for ...").
_CAUSE_SAID = (
    r"\bthe (?:[\w-]+ )?(?:failure|error|crash|hang|breakage|regression|timeout) (?:is|was)"
    r" (?:a|an|due to|from|that)\b"
    r"|\b(?:which|that|this|what) (?:is what |was what )?caused\b"
    r"|\b(?:is|was|are|were)(?:n't| not) (?:the |a )?(?:root )?(?:cause|culprit)\b"
    r"|\bred herring\b|\b(?:expected|harmless|benign) (?:noise|warnings?|errors?)\b"
    r"|\b(?:is|are) (?:just |only |all )?(?:harmless|benign|noise)\b"
    r"|\b(?:does(?:n't| not)|can(?:'t|not)) (?:recogni[sz]e|understand) that\b"
    r"|^[\w`'./ -]{1,40}\b(?:issue|problem|bug|gotcha|catch|pitfall)\s*(?::|\u2014|\u2013| - )"
    r".{0,200}\b(?:never|not|doesn't|does not|don't|isn't|can't|cannot|without|instead"
    r"|wasn't|weren't|didn't|won't|aren't|has no|have no|no longer)\b"
    # "the console logs were causing the rendering artifacts": a cause in its verb
    r"|\b(?:was|were|is|are) (?:what was |what is )?causing\b|\breason being\b"
    # a reviewer's "this will cause build failures for non-Unix targets because ..."
    r"|\bwill cause\b[^.;]{0,100}\bbecause\b"
    # "the 404s are just lookups for new accounts - expected": output explained as no fault
    r"|(?:\s?[\u2014\u2013]\s?| - |, )(?:this is |that's |which is |all |both )?(?:expected|normal)"
    r"[.)]*$|\b(?:is|are) (?:just |all |perfectly )?(?:expected|normal)(?: here| behaviou?r)?[.)]*$"
)
# Failures that are not the session's: tests failing before any change, or for a reason of
# the environment ("the 4 failures are all pre-existing", "the failure is unrelated to my
# changes"): the next session should not chase them.
_FAILS_ANYWAY = (
    r"\b(?:pre-?existing|unrelated to (?:my|our|the|this|these) changes?|not caused by (?:my|our"
    r"|the|this) changes?|already fail(?:s|ed|ing)?\b.{0,40}\b(?:before|on main|without)"
    r"|fail(?:s|ed)? (?:on main|without (?:my|our|the|this) changes?))"
)
# Beside phrasing's own lesson words ("cause", "issue", "problem", "bug", "culprit"), which
# :func:`_may_state_lesson` tries first.
_CAUSE_HINTS = ("failure", "error", "crash", "hang", "breakage", "regression", "timeout",
                "red herring", "harmless", "benign", "noise", "gotcha", "catch", "pitfall",
                "pre-existing", "preexisting", "unrelated", "already fail", "recogni",
                "understand", "causing", "expected", "normal", "reason being",
                "will cause")  # fmt: skip
_LESSON_HINTS = (*_ENV_HINTS, *_LEARNED_HINTS, *_CAUSE_HINTS)


def may_state_fact(text: str) -> bool:
    """False only when no sentence of ``text`` can be a cause, a decision, an environment
    fact, a change of approach or a finding (a cheap test that lets a caller skip masking
    the text)."""
    # Pure tests in any order: the few string tests first, the seventy hint words after.
    return (
        statements.may_state_at_a_glance(text)
        or _may_state_lesson(text)
        or statements.may_state_by_names_or_reasons(text)
    )


def _may_state_lesson(text: str) -> bool:
    """False only when no sentence of ``text`` can be a cause, a decision or an environment
    fact: the patterns of those run only on a sentence that passes."""
    if phrasing.may_state_lesson(text):
        return True
    lowered = text.lower()
    for hint in _LESSON_HINTS:  # noqa: SIM110 - not any(): every note and sentence passes here
        if hint in lowered:
            return True
    if redirects.may_explain(text):
        return True
    quoted = text.count('"') >= 2 or text.count("`") >= 2
    return quoted and any(hint in lowered for hint in _QUOTED_ENV_HINTS)


def strength(candidate: dict[str, object]) -> int:
    """How strongly a candidate's evidence reads as a lesson (higher first). A user's
    correction or norm in so many words, a cause stated as one, a choice with its reason and
    an environment failure seen in output come first; a sentence of pasted context, a
    challenging question and a terse fragment last; naming something concrete adds one."""
    lines = candidate.get("lines")
    said = str(lines[0]) if isinstance(lines, list) and lines else ""
    kind = candidate.get("kind")
    score = 1
    form = candidate.get("form")
    if form in ("finding", "telling"):  # said without a cause's words: behind what says why
        score = 1 if statements.reasoned(said) else 0
    elif form == "fragment":  # one that says what has to be is a norm short of its subject
        score = 1 if redirects.obliging(said.partition('"')[2].rstrip('"')) else 0
    elif form in ("question", "pasted"):
        score = 0
    elif form == "commit":
        score = 2 if isinstance(lines, list) and len(lines) > 1 else 1  # with its reason: 2
    elif kind in ("correction", "convention"):
        score = 2  # the user said it in so many words
    elif kind in ("cause", "subagent") and phrasing.root_cause(said, stated=True):
        score = 2  # "the root cause was", "is caused by", "because X does not ..."
    elif kind == "decision" and _has(_CHOICE_AND_REASON, said):
        score = 2  # a choice over an alternative, and why
    elif kind == "env" and candidate.get("env") != "stated":
        score = 2  # seen in a command's output, not only said
    return score + (1 if redirects.concrete(said) else 0)


_REASON = r"\b(?:because|since|so that|as it|as they|to avoid|which avoids)\b"
_CHOICE_AND_REASON = (
    r"\b(?:instead of|rather than|over|chose|opted|decided|went with|in favou?r of)\b"
    r".{0,200}\b(?:because|since|so that|as it|as they|to avoid|which avoids)\b"
    r"|\b(?:because|since|so that|to avoid)\b.{0,200}\b(?:instead of|rather than)\b"
)


def note(
    text: str,
    state: dict[str, object],
    record: dict[str, object] | None,
    mask: "Callable[[str], str] | None" = None,
) -> None:
    """A mid-turn assistant note: read as an assistant message, with the bar of a note."""
    message(text, state, record, mid_turn=True, mask=mask)


def _has(pattern: str, text: str) -> bool:
    return fastre.cached(pattern, fastre.IGNORECASE).search(text) is not None


def subagent(record: dict[str, object], state: dict[str, object]) -> None:
    report = text_of(record, "excerpt")
    found = next(
        (
            s
            for s in sentences(report)[:120]
            if 6 <= len(s.split()) <= 60
            and not phrasing.narration(s)
            and (phrasing.root_cause(s) or phrasing.decision(s))
        ),
        "",
    )
    if not found:
        _kind, found = signals.failure(report)
    if found:
        add(state, "subagent", found.lower(), [f'a sub-agent reported: "{found}"'], record)


def commit(
    command: str,
    state: dict[str, object],
    record: dict[str, object] | None,
    mask: "Callable[[str], str] | None" = None,
) -> None:
    """A ``git commit`` whose message says what changed: its subject and the first line of
    its body that gives a reason ("to avoid ...", "This reduces ...", "Instead of ...").
    ``mask``: the command is not masked yet (read from a transcript)."""
    from memcli import commit_messages  # only a session that commits: not on every Stop

    lines = commit_messages.commit_message(command)
    if not lines or not commit_messages.commit_worth(lines[0]):
        return
    subject = lines[0]
    why = next((line.rstrip(":") for line in lines[1:] if statements.with_reason(line)), "")
    if mask is not None:
        subject, why = mask(subject), mask(why) if why else ""
    said = [f'commit message: "{subject}"'] + ([f'"{why}"'] if why else [])
    add(state, "decision", subject.lower(), said, record, form="commit")
