"""Candidates from what the user typed: corrections and conventions, questions that challenge
a choice, terse norms typed after a turn, and what a long pasted context states.

- A *correction* or *convention* (:mod:`memcli.signals`): "no, use pnpm", "always run the
  linter", "we use ruff".
- A *challenge* (:func:`memcli.redirects.challenge`): "why does `unsubscribe()` clear the
  listeners?", "`AppMessage` not `Message`?"; asked as a ``correction`` (the model knows
  whether it changed the work).
- A *fragment* (:func:`memcli.redirects.fragment`): "only e2e tests", "keep the old code
  around", typed after the session's first prompt; asked as a ``convention``.
- A *cause*, a *decision* with its reason or an *environment fact* the user states, read as
  a note's sentence would be (:func:`memcli.checkpoint.sayings.kind_said`).
- A *manner* of work asked for in a second prompt (:func:`memcli.redirects.manner`: "read
  it in full" once more): how the user wants the work done; asked as a ``convention``.
- *Pasted context*: a long prompt (a log of an earlier session, a document) is not talked to
  the assistant sentence by sentence, but the causes, decisions with their reasons and
  environment facts it states are read as a note's would be, the first few only.

A terse prompt (a few words) that follows a closing message ending in a question answers it:
its candidate names the question too ("keep it" | answering your question: "Delete
`legacy/build.sh` as well, or keep it?"), which is what the answer is about.

Challenges and fragments are weaker evidence than a correction in so many words: they carry
``form`` (``question``, ``fragment``, ``pasted``), which :func:`memcli.checkpoint.sayings.strength`
ranks below it.
"""

from memcli import pasted, phrasing, redirects
from memcli.checkpoint import reported, salient, sayings
from memcli.checkpoint.entries import add, text_of

MAX_SENTENCES = 40  # of a prompt talked to the assistant
MAX_PASTED_SENTENCES = 600  # of a long pasted context: its first ones
MAX_PASTED = 6  # candidates from one pasted context (the first distinct ones)
PASTED_LINES = 25  # a prompt of more lines than this is pasted context
PASTED_CHARS = 3_000  # ... or of more characters

_INSTRUCTIONS = ("<system-reminder>", "<command-name>", "<command-message>", "claude.md",
                 "agents.md")  # fmt: skip


# A prompt of at most this many words that answers the closing message's question: the
# question is its subject ("leave it" after "Remove kmod-x as well, or leave it?").
TERSE_ANSWER = 14


def prompt(record: dict[str, object], state: dict[str, object]) -> None:
    question = state.pop(sayings.QUESTION, None)  # a prompt answers it, or moves on
    text = text_of(record, "excerpt")
    if not text or text.startswith("/"):
        return
    lowered = text.lower()
    if any(marker in lowered for marker in _INSTRUCTIONS):
        return
    after_turn = _count_prompt(state) > 0
    long_text = text.count("\n") > PASTED_LINES
    reported.prompt(record, state, read=not long_text)  # a failure pasted with a few lines
    if long_text or len(text) > PASTED_CHARS:
        _pasted(text, state, record)
        return
    seen = state.setdefault("_seen", set())
    assert isinstance(seen, set)
    text = _without_ide_notes(text)
    tagged = text.startswith("<")  # a notification, not typed
    answering = (
        [f'answering your question: "{question}"']
        if isinstance(question, str) and question and len(text.split()) <= TERSE_ANSWER
        else []
    )
    unread: list[str] = []  # typed sentences no rule reads: read for the most telling
    for sentence in sayings.sentences(text)[:MAX_SENTENCES]:
        if sentence in seen:
            continue
        seen.add(sentence)
        words = len(sentence.split())
        if not 2 <= words <= 40:
            continue
        said = [f'the user said: "{sentence}"', *answering]
        if not tagged:
            _manner(sentence, state, record)
        if "?" in sentence or sentence[:4].lower() == "why ":
            if not tagged and redirects.challenge(sentence):
                said = [f'the user asked: "{sentence}"', *answering]
                add(state, "correction", sentence.lower(), said, record, form="question")
            continue
        if words >= 3 and phrasing.correction(sentence):
            add(state, "correction", sentence.lower(), said, record)
        elif words >= 3 and phrasing.convention(sentence):
            add(state, "convention", sentence.lower(), said, record)
        elif after_turn and not tagged and redirects.fragment(sentence):
            add(state, "convention", sentence.lower(), said, record, form="fragment")
        elif not tagged and words >= 6 and not _explained(sentence, said, state, record):
            unread.append(sentence)
    # a pasted error line is `reported`'s evidence, no finding
    unread = [sentence for sentence in unread if not pasted.signature(sentence)[1]]
    salient.offer(unread, state, record, "the user said")


def _explained(
    sentence: str, said: list[str], state: dict[str, object], record: dict[str, object]
) -> bool:
    """A cause, a choice with its reason or an environment fact the user states ("the hook
    never actually worked, so let's remove it", "reason being that we injected the message
    between the tool call and its result"): the user knows what the session only guesses.
    Read as a note's sentence (a choice needs its reason); findings and plans are not."""
    kind = sayings.kind_said(sentence, mid_turn=True)
    if kind == "env":
        add(state, "env", sentence.lower(), said, record, env="stated")
    elif kind in ("cause", "decision"):
        add(state, kind, sentence.lower(), said, record)
    return kind in ("env", "cause", "decision")


MAX_MANNERS = 20  # manners of work remembered in a session's state


def _manner(sentence: str, state: dict[str, object], record: dict[str, object]) -> None:
    """A manner of work ("read it in full") the user asks for in a second prompt: no longer
    one task's detail but how the user wants the work done, asked as a ``convention``."""
    how = redirects.manner(sentence)
    if not how:
        return
    manners = state.setdefault("manners", {})
    assert isinstance(manners, dict)
    prompt_number = state.get("prompts")
    first = manners.get(how)
    if not isinstance(first, list) or len(first) != 2:
        if len(manners) < MAX_MANNERS:
            manners[how] = [prompt_number, sentence]
        return
    if first[0] == prompt_number:
        return  # said twice in one prompt: still one task's detail
    said = [f'the user asked again: "{sentence}"', f'earlier: "{first[1]}"']
    add(state, "convention", f"manner:{how}", said, record)


def _without_ide_notes(text: str) -> str:
    """The prompt after the notes an IDE puts before it ("<ide_opened_file>The user opened
    ...</ide_opened_file> only e2e tests" is "only e2e tests")."""
    text = text.lstrip()
    while text.startswith("<ide_"):
        name = text[1 : text.find(">")] if ">" in text else ""
        end = text.find(f"</{name}>")
        if not name or end < 0:
            return text
        text = text[end + len(name) + 3 :].lstrip()
    return text


def _count_prompt(state: dict[str, object]) -> int:
    """How many prompts the session had before this one (kept in the state)."""
    before = state.get("prompts")
    before = before if isinstance(before, int) else 0
    state["prompts"] = before + 1
    return before


def _pasted(text: str, state: dict[str, object], record: dict[str, object]) -> None:
    """The first few causes, decisions and facts a long pasted context states."""
    seen = state.setdefault("_seen", set())
    assert isinstance(seen, set)
    taken = 0
    for sentence in sayings.sentences(text)[:MAX_PASTED_SENTENCES]:
        if sentence in seen:
            continue
        seen.add(sentence)
        if "**" in sentence or "__" in sentence:
            sentence = sentence.replace("**", "").replace("__", "")
        kind = sayings.kind_said(sentence, mid_turn=True)
        if not kind and _norm(sentence):
            kind = "convention"
        if not kind:
            continue
        said = [f'pasted in a prompt: "{sentence}"']
        extra: dict[str, object] = {"form": "pasted", "origin": "pasted"}
        if kind == "env":
            extra["env"] = "stated"
        add(state, kind, sentence.lower(), said, record, **extra)
        taken += 1
        if taken >= MAX_PASTED:
            return


def _norm(sentence: str) -> bool:
    """A correction or a norm in so many words, in a pasted context."""
    if "?" in sentence or not 3 <= len(sentence.split()) <= 40:
        return False
    return phrasing.correction(sentence) or phrasing.convention(sentence)
