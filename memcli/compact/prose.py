"""Rules over prose: the user's conventions, the assistant's decisions and environment facts.

- A *convention* is a user's explicit norm or correction: a sentence of a prompt that says
  "always", "never", "we use", "from now on" as an instruction (not "the tests always fail"),
  or corrects the assistant ("no, use pnpm", "don't mock the database").
  With its reason ("use uv because the lock file pins ...") it is the user's *decision*.
- A *decision* is a sentence of the assistant's closing message that gives a choice and its
  rationale ("instead of", "rather than", "chose", or "because" next to a design verb).
- The assistant's mid-turn *notes* are read like closing messages, and more strictly: a
  guess ("this might be because ...") is not yet a finding.
- A *stated root cause* is a closing-message sentence that names a cause in so many words
  ("the root cause was", "was caused by") about something concrete (a file, a value, code):
  an assumed pitfall, for failures no command showed (a wrong result with exit 0). So is a
  closing-message sentence saying what the replaced code did ("the old pairing had corrupted
  metadata that caused ...", "the old `cache` ignored theme changes").
- An *environment fact* is a closing-message sentence stating where or how something runs
  ("listens on 5432", "requires Node 18") with a concrete value.

Junk guards: questions, pasted documents and instruction files (a convention already in
CLAUDE.md or AGENTS.md is a restated instruction), step-by-step narration ("Let me", "I ran"),
sentences about test outcomes (pitfall territory, kept only with a validating episode),
too short or too long sentences, sentences that only restate a command the session ran, and
sentences an episode already used. All of these drafts
are *restatements*: when the store already holds the fact from another session they add
nothing (recalled memory said again is not new evidence).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from memcli import phrasing, redirects
from memcli.compact import text
from memcli.compact.drafts import Draft, evidence, importance
from memcli.compact.observations import Obs

_OUTCOME = re.compile(r"\b(?:fail(?:s|ed|ing|ure)?|pass(?:es|ed|ing)?|green|red)\b", re.I)
_ENV_STATEMENT = re.compile(
    r"\b(?:listens on|runs on|is served on|requires|needs|is pinned to|pinned to|expects"
    r"|must be run with|is installed (?:at|in)|lives (?:in|at)|is read from)\b",
    re.I,
)
_FILE = re.compile(
    r"\b[\w./-]+\.(?:py|js|ts|tsx|jsx|go|rs|java|rb|php|c|h|cpp|json|toml|yaml|yml)\b"
)
_CONCRETE = re.compile(r"\d|[A-Z][A-Z0-9]*_[A-Z0-9_]+|\w/\w")
# A name from code or a system: CamelCase (`SessionStart`, `TypeError`) or an acronym (TTY).
_NAMED = re.compile(r"\b[A-Z][a-z]+[A-Z]\w*|\b[A-Z]{2,6}\b")
_CODE_LINE = re.compile(r"^[\"'`]{3}")
_REASON = re.compile(r"\b(?:because|so that|otherwise|, since|in order to)\b", re.I)
_HYPOTHETICAL = re.compile(
    r"^(?:if|in case|when)\b.{0,120}?\byou(?:'d| would| could| might| may)\b", re.I
)
_CODE_SPAN = re.compile(r"`([^`]+)`")
# A report of a change, not a choice: a sentence that opens with the verb of what was done,
# with no subject ("Updated `x()` to use ...", "Uses `Text` components instead of ..."), or
# a short subject and "now" ("Footer now uses ...", "Empty lines are now ..."). With a reason
# ("because", "so that") it is a decision again.
_CHANGE_REPORT = re.compile(
    r"^(?:updated|fixed|added|changed|replaced|removed|deleted|created|moved|renamed"
    r"|refactored|converted|adjusted|tweaked|cleaned|made|set|wired|hooked|extracted"
    r"|uses|adds|handles|renders|shows|displays|supports|provides|returns|calls|includes"
    r"|contains|exports|wraps)\b"
    r"|^(?:the |an? )?[\w`\"'#.()/-]+(?: [\w`\"'#.()/-]+){0,3} (?:(?:is|are) now|now (?:uses?"
    r"|is|are|has|have|shows?|renders?|returns?|reads?|calls?|gets?|takes?))\b",
    re.I,
)
# A plan or a step of one, said while working: "let me ...", "I'll ...", or a bare imperative
# ("Take `AgentSession` instead of ...", "In `run()`, if busy, queue it instead of ..."),
# after any leading clauses ("Instead of fixing each error, let me ..."). Without a reason it
# says what comes next, not why.
_LEADING_CLAUSES = re.compile(
    r"^(?:(?:in|for|when|if|on|after|before|once|instead of|then|so|and)\b[^,]{0,80},\s*)+",
    re.I,
)
_PLAN = re.compile(
    r"^(?:let me|let's|i'll|i will|i need to|i'm going to|i am going to|we need to|we'll)\b"
    r"|^(?:take|use|add|make|move|create|replace|keep|pass|store|queue|call|return|change"
    r"|update|remove|rename|extract|wrap|split|put|turn|switch|drop|delete|expose|export"
    r"|import|inject|accept|convert|implement|refactor)\b",
    re.I,
)
# A decision whose subject is a bare pronoun ("it's not needed since ..."): its referent is in
# another sentence, so alone it teaches nothing.
_PRONOUN_SUBJECT = re.compile(r"^(?:it|it's|that|that's|they|they're|these|those)\b", re.I)
# A short subject and a modal of what ought to be ("the loader should catch ...", "we could
# cache ..."): a wish or a proposal (see :func:`wish`).
_WISH = re.compile(
    r"^(?:[\w`'\".()/-]+ ){1,5}(?:should|could|would|ought to|might|needs? to|has to|have to)"
    r"(?! (?:now|already|then)\b) (?:not |also |just |probably |really )?[a-z]",
    re.I,
)
# A cause whose subject is a bare pronoun ("... couldn't extract data because it simply
# didn't exist"), with no root cause's words: what "it" is was said elsewhere, if at all.
_PRONOUN_CAUSE = re.compile(
    r"^(?!.*\b(?:root cause|caused by|turned out|culprit|known|confirmed|documented)\b)"
    r".*\bbecause (?:it|they|this|that|these|those)\b",
    re.I,
)
# The words after a cause set out to check it ("The issue is X. Let me check the detection:"):
# a hypothesis under test, not yet a finding.
_TO_CHECK = re.compile(
    r"^(?:(?:now|first|so),? )?(?:let me|let's|i'll|i will|i need to|i'm going to) (?:first )?"
    r"(?:check|verify|confirm|look|see|test|investigate|examine|inspect|find out|figure out"
    r"|make sure)\b",
    re.I,
)
# A hedge that opens a sentence: a guess said at the end of a turn is not a finding either.
_HEDGE = re.compile(
    r"^(?:i bet|i guess|i suspect|i think|i believe|my guess|maybe|perhaps|probably"
    r"|possibly|it (?:might|may|could) be)\b",
    re.I,
)
# A user's sentence that opens with a hedge, after an acknowledgement ("ok, i think the list
# doesn't adhere to the invariant that lines must not ..."): a guess at what is wrong, whose
# "must not" restates a rule to check against, not a norm the user sets.
_USER_HEDGE = re.compile(
    r"^(?:(?:ok|okay|so|hmm+|well|and|but|yeah|alright)\b[,.!]?\s+)*(?:i (?:think|guess|suspect"
    r"|believe|feel like|have a feeling|wonder)|maybe|perhaps|probably|possibly|it seems)\b",
    re.I,
)
_WHY = re.compile(r"\b(?:because|so that|since|in order to|otherwise|to avoid|to prevent)\b", re.I)
_ASIDE = re.compile(r"\([^()]*\)")  # a parenthetical: an aside, never the sentence's claim
# A symptom report: what a run showed against what was expected ("We get 344, but the issue
# expects 345"). The result of one run, not how the environment is.
_SYMPTOM = re.compile(
    r"^(?:we|i|it|this|that) (?:get|gets|got|see|saw|print|prints|printed|return|returns"
    r"|returned|output|outputs)\b|\bexpect(?:s|ed)?\b[^.]{0,60}\b(?:but|got|instead)\b"
    r"|\bbut (?:the |an? )?[\w ]{0,30}\bexpects?\b",
    re.I,
)
# A cause stated as a missing behaviour and its consequence, cause first: "`PythonDomain`
# doesn't override it, so implicit xrefs lack the module", "the cache never checks the theme,
# so ...". Not a plan after the "so" ("..., so I'll add it"), and the subject of the missing
# behaviour must be named (code, a CamelCase name, a file, a dotted name), not a pronoun.
_LACK_THEN = re.compile(
    r"\b(?:doesn'?t|does not|don'?t|do not|didn'?t|did not|never|can'?t|cannot|isn'?t|is not"
    r"|wasn'?t|was not|has no|have no|lacks?)\b[^.;:?!]{1,80}?,? so (?!(?:i|we|let|let's|now"
    r"|i'll|we'll|you|the fix|that i|that we)\b)\w",
    re.I,
)
# A symptom and its cause in one clause: "the commit was hanging because of GPG signing",
# "the push was rejected because ...". A verb of what went wrong says the "because" names
# why (a plain "because" beside any verb is too weak a cause). Not "failing because": about
# tests that is a test outcome, pitfall territory only with an episode behind it.
_SYMPTOM_BECAUSE = re.compile(
    r"\b(?:was|were|is|are|kept|keeps)\s+(?:hanging|hung|crashing|freezing|stuck"
    r"|timing out|blocked|rejected|refused)\b[^.;?!]{0,40}?\bbecause\b",
    re.I,
)
_NAMED_SUBJECT = re.compile(r"`[^`]+`|\b[A-Z][a-z]+[A-Z]\w*|\b\w+\.\w+\b")
_RESTATED_WORDS = 6  # fewer words than this beside a command's code span: a restatement
# A guess said while working, before anything confirmed it.
_GUESS = re.compile(
    r"\b(?:might|may|maybe|perhaps|possibly|probably|likely|could be|i think|i suspect"
    r"|i guess|seems?|appears? to|let'?s see|not sure|wonder)\b",
    re.I,
)


def _word_count(sentence: str) -> int:
    return len(sentence.split())


def conventions(prompts: Iterable[Obs], session: str, known: text.InstructionFiles) -> list[Draft]:
    drafts = []
    for prompt in prompts:
        if text.looks_like_instructions(prompt.excerpt):
            continue
        for sentence in text.sentences(prompt.excerpt):
            if "?" in sentence or not 3 <= _word_count(sentence) <= 40:
                continue
            if known.contains(sentence):
                continue
            if not (phrasing.convention(sentence) or phrasing.correction(sentence)):
                continue
            if _USER_HEDGE.search(sentence):
                continue  # the user's guess at a bug: the checkpoint asks, the model knows
            said = sentence[0].upper() + sentence[1:]
            title = text.title_of(said)
            # A norm given with its reason is the user's decision ("use X because Y").
            kind = "decision" if _REASON.search(sentence) else "convention"
            drafts.append(
                Draft(
                    rule="convention",
                    key=text.normalized(sentence),
                    kind=kind,
                    title=title,
                    body=text.said_whole(said),
                    ts=prompt.ts,
                    session=session,
                    tags=text.tags_from([sentence]),
                    importance=importance(kind, False),
                    evidence=[evidence(sentence, prompt.raw, session)],
                    restatement=True,
                )
            )
    return drafts


def redirected(
    prompts: list[Obs], obs: list[Obs], session: str, known: text.InstructionFiles
) -> list[Draft]:
    """The user's norms without a correction's words that the assistant acted on: a terse
    fragment typed after a turn ("keep the old code in `main-new.ts`") or a name set against
    another ("`AppMessage` not `Message`?") that names something concrete, followed in its
    turn by an edit or a passing command that touches that name. Questions asking *why* are
    left to the checkpoint (the model knows what the answer changed)."""
    drafts = []
    for number, prompt in enumerate(prompts):
        if prompt.carried or text.looks_like_instructions(prompt.excerpt):
            continue
        if prompt.excerpt.lstrip().startswith(("<", "/")):
            continue  # a notification, an IDE's note or a slash command: not typed
        end = prompts[number + 1].index if number + 1 < len(prompts) else obs[-1].index + 1
        turn = [o for o in obs if prompt.index < o.index < end and (o.is_edit or o.passed)]
        for sentence in text.sentences(prompt.excerpt):
            norm = (number > 0 and redirects.fragment(sentence)) or redirects.name_against_name(
                sentence
            )
            if not norm or known.contains(sentence) or _said_as_norm(sentence):
                continue
            if sentence.lower().startswith(("that", "it", "this")):
                continue  # "that's not the system prompt": points the way, states no norm
            named = [n.lower() for n in redirects.names(sentence)]
            if not named or not any(_touches(o, named) for o in turn):
                continue
            said = sentence.rstrip("?").strip()
            said = said[0].upper() + said[1:]
            title = text.title_of(said)
            drafts.append(
                Draft(
                    rule="convention",
                    key=text.normalized(sentence),
                    kind="convention",
                    title=title,
                    body=text.said_whole(said),
                    ts=prompt.ts,
                    session=session,
                    tags=text.tags_from([sentence]),
                    importance=importance("convention", False),
                    evidence=[evidence(sentence, prompt.raw, session)],
                    restatement=True,
                )
            )
    return drafts


def _said_as_norm(sentence: str) -> bool:
    """A correction or a norm in so many words: :func:`conventions` keeps it already."""
    return "?" not in sentence and (phrasing.convention(sentence) or phrasing.correction(sentence))


def _touches(o: Obs, named: list[str]) -> bool:
    """Whether an edit or a command names one of ``named`` (its files, input or output)."""
    where = " ".join([*o.files, o.input, o.excerpt]).lower()
    return any(name in where for name in named)


def decisions(
    messages: Iterable[Obs],
    session: str,
    used: set[tuple[str, int]],
    ran: Iterable[str] = (),
    mid_turn: bool = False,
) -> list[Draft]:
    """Decisions, stated root causes and environment facts from the assistant's messages.

    ``ran``: the session's commands (a sentence that only restates one is no lesson);
    ``mid_turn``: the messages are notes said while working, where a guess ("this might be
    because ...") is not yet a finding."""
    drafts = []
    commands_run = {" ".join(c.split()) for c in ran if c.strip()}
    for message in messages:
        said = text.sentences(message.excerpt)
        for number, sentence in enumerate(said):
            if (message.id, number) in used or "?" in sentence:
                continue
            if (
                phrasing.narration(sentence)
                or _CODE_LINE.match(sentence)
                or text.status_line(sentence)
            ):
                continue  # narration, or a line of quoted code (a docstring) is no decision
            if restates_command(sentence, commands_run) or (mid_turn and guess(sentence)):
                continue
            if _HYPOTHETICAL.search(sentence) or _HEDGE.match(sentence):
                continue  # advice for a case that may not be this one, or a guess
            # "Updated `x()` to use y instead of z" reports what was done, not why.
            kind = _cause_of(sentence, mid_turn) or (
                None if _OUTCOME.search(sentence) or change_report(sentence) else _kind_of(sentence)
            )
            if kind is None:
                continue
            if kind == "pitfall" and (
                _PRONOUN_CAUSE.search(sentence)
                or (number + 1 < len(said) and _TO_CHECK.match(said[number + 1]))
            ):
                continue  # a cause of "it", or one the next words set out to check
            used.add((message.id, number))
            title = text.title_of(sentence)
            drafts.append(
                Draft(
                    rule=kind,
                    key=text.normalized(sentence),
                    kind=kind,
                    title=title,
                    body=text.said_whole(sentence),
                    ts=message.ts,
                    session=session,
                    tags=text.tags_from([sentence]),
                    importance=importance(kind, False),
                    evidence=[evidence(sentence, message.raw, session)],
                    restatement=True,
                )
            )
    return drafts


def change_report(sentence: str) -> bool:
    """A sentence that reports a change ("Updated `x()` to use y instead of z", "Footer now
    uses ...") or plans one ("let me ...", "Take `x` instead of ...") without saying why:
    narration of the work, not a decision."""
    if _WHY.search(sentence):
        return False
    return bool(_CHANGE_REPORT.match(sentence) or _PLAN.match(_LEADING_CLAUSES.sub("", sentence)))


def wish(sentence: str) -> bool:
    """What something should do, without a reason ("The loader should catch this error
    instead of crashing", "we could cache it rather than re-read it"): a wish or a proposal,
    not a choice the session made; with its reason it is a decision again."""
    return _WISH.match(sentence) is not None and not _WHY.search(sentence)


def guess(sentence: str) -> bool:
    """A hypothesis said while working ("this might be because ..."), not a finding."""
    return _GUESS.search(sentence) is not None


def restates_command(sentence: str, commands_run: set[str]) -> bool:
    """A sentence that is little more than a command the session ran ("Run `npm test` with
    the `--runInBand` flag"): the command is evidence, not a lesson."""
    spans = _CODE_SPAN.findall(sentence)
    if not spans or not any(" ".join(span.split()) in commands_run for span in spans):
        return False
    return _word_count(_CODE_SPAN.sub(" ", sentence)) < _RESTATED_WORDS


def _cause_of(sentence: str, mid_turn: bool = False) -> str | None:
    """A root cause stated in so many words, about something concrete: an assumed pitfall
    (a wrong result with exit 0 has no failing command, only this sentence). In a closing
    message, what the replaced code did counts too ("the old cache ignored theme changes",
    "..., which meant X"): said while working it may be a guess the session later drops."""
    concrete = (
        _CONCRETE.search(sentence)
        or "`" in sentence
        or _FILE.search(sentence)
        or _NAMED.search(sentence)
    )
    if not 6 <= _word_count(sentence) <= 60 or not concrete:
        return None
    if (
        phrasing.root_cause(sentence, True)
        or _lack_then(sentence)
        or _SYMPTOM_BECAUSE.search(sentence)
    ):
        return "pitfall"
    if not mid_turn and redirects.explained(sentence) == "replaced":
        return "pitfall"
    return None


def _lack_then(sentence: str) -> bool:
    """A named thing's missing behaviour, then what follows from it (see `_LACK_THEN`)."""
    found = _LACK_THEN.search(sentence)
    return found is not None and _NAMED_SUBJECT.search(sentence[: found.start()]) is not None


def _kind_of(sentence: str) -> str | None:
    count = _word_count(sentence)
    if 6 <= count <= 60 and phrasing.decision(sentence):
        return None if _PRONOUN_SUBJECT.match(sentence) or wish(sentence) else "decision"
    claim = _ASIDE.sub(" ", sentence)  # "They get 7 days (requires a card)": no env fact
    if 4 <= count <= 40 and _ENV_STATEMENT.search(claim) and _CONCRETE.search(claim):
        return None if _SYMPTOM.search(claim) else "env"
    return None
