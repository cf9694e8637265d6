"""Work a closing message says is left open: what the next session should pick up.

A session's last message often says what it did not do: a list under "Remaining:" or
"Next steps", a sentence that something is not committed, pushed or tested yet, that the
user still has to do a thing, or an offer the user never answered ("Want me to also set
`gc.auto 0` on your repo now?"). Those are the session's unfinished state, in its own words;
:func:`statements` finds them, cheaply and without judging them (the task item that holds
them expires, and the next session's model reads them as what was said, not as fact).
"""

from __future__ import annotations

import re

from memcli import phrasing

# A heading or a label over a list of what is left ("**Remaining:**", "## Next steps",
# "Still to do:", "📋 Remaining TODO Items").
_OPEN_HEADING = re.compile(
    r"\b(?:remaining|still (?:to do|open|pending|needed)|to ?do|next steps?|not (?:yet )?done"
    r"|left to do|what'?s left|open (?:items|questions|issues|points)|outstanding|pending"
    r"|follow[- ]?ups?|known (?:issues|limitations|gaps)|on your plate|left for you"
    r"|not (?:yet )?(?:implemented|covered|included|tested|verified))\b",
    re.I,
)
# A heading of what *was* done, however it is worded ("Completed", "What's done").
_DONE_HEADING = re.compile(r"\b(?:completed?|done|finished|fixed|verified|summary)\b", re.I)
# A sentence saying a thing is not done yet: not committed, pushed, run, tested; still to do;
# left for the user; blocked on something.
_OPEN_SENTENCE = re.compile(
    r"\b(?:not|never) (?:yet |been |yet been )?(?:committed|pushed|merged|released|published"
    r"|deployed|tested|run|verified|implemented|fixed|applied|persisted|removed|reverted)\b"
    r"|\b(?:has|have)(?:n't| not) (?:yet )?(?:been )?(?:committed|pushed|merged|released"
    r"|published|deployed|tested|run|verified|implemented|fixed|applied)\b"
    r"|\b(?:is|are|remains?) (?:still )?(?:unresolved|unfixed|uncommitted|unpushed|untested"
    r"|unverified|open|pending|blocked|to be done|to be run|to be tested)\b"
    r"|\bstill (?:needs? to|has to|have to|to be|fails|failing|broken|on your plate)\b"
    r"|\bleft (?:uncommitted|unstaged|unpushed|in (?:the|your) working tree|for you|to you)\b"
    # changes handed over uncommitted: "the working tree is ready for you to review and
    # commit", "It won't commit anything: the changes will land uncommitted"
    r"|\bready (?:for you to (?:review and )?commit|to be committed|for (?:your )?"
    r"(?:review and )?commit)\b"
    r"|\b(?:lands?|stays?|sits?|remains?|will land|will stay) uncommitted\b"
    r"|\buncommitted in (?:the|your) working tree\b|\b(?:won't|will not|didn't|did not) commit\b"
    r"|\b(?:you(?:'ll| will)|you) (?:still )?(?:need|have) to\b"
    r"|\b(?:i|we) (?:can't|cannot|couldn't|could not|wasn't able to|was unable to)\b.{0,80}"
    r"\byet\b"
    r"|\b(?:ahead of|diverged from) `?origin\b",
    re.I,
)
# An offer of work not done, as the message's last question: the user never answered it.
_OFFER = re.compile(
    r"\b(?:want me to|would you like me to|shall i|should i|do you want me to"
    r"|if you(?:'d)? like,? i can)\b",
    re.I,
)
# An offer of nothing in particular: more help, an explanation, "any adjustments".
_VAGUE_OFFER = re.compile(
    r"\b(?:anything else|what else|something else|else you|explain|elaborate|walk you through"
    r"|any (?:specific |other |further |additional )?(?:parts?|adjustments?|changes?|questions?"
    r"|modifications?|help|details?|clarifications?|tweaks?))\b",
    re.I,
)
_LIST_ITEM = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+(?:\[[ xX]\]\s*)?")
_HEADING = re.compile(r"^\s*(?:#{1,6}\s+|\*\*[^*]+\*\*:?\s*$|[^\s].{0,60}:\s*$)")
_DECORATION = re.compile(r"\*\*|^#{1,6}\s|[\u2600-\u27bf\U0001f300-\U0001faff\ufe0f]")
_DONE_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[[xX]\]|✅|✔")

MAX_STATEMENTS = 5
MAX_ITEMS = 4  # list items kept under one heading
MIN_WORDS, MAX_WORDS = 3, 60


def statements(message: str) -> list[str]:
    """The open work ``message`` (an assistant's closing message) states, in order: the items
    of its lists under a heading of what is left, its sentences saying a thing is not done
    yet, and its last question when that offers work; at most :data:`MAX_STATEMENTS`."""
    found: list[str] = []
    heading, items, in_code = "", 0, False
    for line in message.splitlines():
        if line.lstrip().startswith("```"):
            in_code = not in_code
            continue
        if in_code or not line.strip():
            continue
        item = _LIST_ITEM.match(line)
        if item and heading:
            if items < MAX_ITEMS and not _DONE_ITEM.search(line):
                found.append(f"{heading}: {_plain(line[item.end() :])}")
                items += 1
            continue
        if not item and _HEADING.match(line):
            label = _plain(line).rstrip(":").strip()
            opens = _OPEN_HEADING.search(label) and not _DONE_HEADING.search(label)
            heading, items = (label, 0) if opens and len(label.split()) <= 8 else ("", 0)
            if heading:
                continue
        elif not item and items:
            heading = ""  # a paragraph after the list ends it
        found.extend(_open_sentences(line[item.end() :] if item else line))
    offer = _last_offer(message)
    if offer:
        found.append(f"Offered at the end, not done: {offer}")
    return list(dict.fromkeys(s for s in found if s))[:MAX_STATEMENTS]


def _open_sentences(line: str) -> list[str]:
    out = []
    for sentence in re.split(r"(?<=[.!;])\s+", _plain(line)):
        words = len(sentence.split())
        if "?" in sentence or not MIN_WORDS <= words <= MAX_WORDS:
            continue
        if _OPEN_SENTENCE.search(sentence) and not phrasing.narration(sentence):
            out.append(sentence)
    return out


def _last_offer(message: str) -> str:
    """The message's last question, when it offers to do a named thing."""
    prose = re.sub(r"```.*?(?:```|$)", "", message, flags=re.S)
    questions = [q for q in re.split(r"(?<=[.!?])\s+|\n", prose) if q.rstrip("*_ )").endswith("?")]
    if not questions:
        return ""
    last = _plain(questions[-1])
    if not _OFFER.search(last) or _VAGUE_OFFER.search(last) or len(last.split()) < 6:
        return ""
    return last


def _plain(text: str) -> str:
    """``text`` without markdown emphasis, emoji and surrounding space, on one line."""
    return " ".join(_DECORATION.sub("", text.strip()).split()).strip(" -")
