"""What the user's next words reject: the causes and choices the assistant stated in a turn
whose next prompt says they did not hold ("no, that's not it", "still broken"), so they are
no lesson. The turn's closing message and its mid-turn notes go together: a diagnosis said
while working and rejected with the conclusion it led to is no finding either.
"""

from __future__ import annotations

import re

from memcli.compact.observations import Obs

# The user's next words reject what the assistant concluded ("no, that's not it", "still
# broken"): the causes and choices of that closing message are no lesson.
_REJECTION = re.compile(
    r"^(?:no|nope|wrong)\b[,.!:; ]+\s*(?:that'?s not|it'?s not|this is not|that is not"
    r"|not (?:it|that|quite|really)|(?:it'?s |it )?still)\b"
    r"|^(?:that'?s|this is|that is|it'?s) (?:not it|wrong|not (?:right|correct"
    r"|the (?:problem|issue|cause|reason)))\b"
    r"|^(?:still|it'?s still|it still) (?:broken|fail(?:s|ing)?|the same|doesn'?t|does not"
    r"|not work(?:ing)?|wrong)\b"
    r"|^(?:that|this|it) (?:didn'?t|did not|doesn'?t|does not) (?:work|help|fix)\b"
    # "fucking hell, the vs code shit still looks the same": after an exclamation, the thing
    # the assistant explained still misbehaves, so its explanation did not hold.
    r"|^(?:[^,.?!]{1,30}[,.!]\s+)?(?:the |this |it |that )?[\w '-]{0,40}?\bstill (?:looks? the same"
    r"|the same|broken|fails?|failing|crash(?:es|ing)?|hangs?|happens|doesn'?t|does not|not "
    r"work(?:ing)?)\b",
    re.I,
)


def rejected(conclusions: list[Obs], prompts: list[Obs]) -> set[str]:
    """Ids of the closing messages whose next prompt rejects them ("no, that's not it")."""
    out = set()
    for said in conclusions:
        if said.kind != "conclusion":
            continue  # a sub-agent's report is not what the user answers
        after = next((p for p in prompts if p.index > said.index), None)
        if after is not None and _REJECTION.search(after.excerpt.strip()):
            out.add(said.id)
    return out


def rejected_notes(notes: list[Obs], conclusions: list[Obs], rejected_ids: set[str]) -> set[str]:
    """Ids of the mid-turn notes of a turn whose closing message was rejected: the notes
    after the prompt before that message and before the message itself."""
    out: set[str] = set()
    ends = {c.index for c in conclusions if c.id in rejected_ids}
    if not ends:
        return out
    closing = [c.index for c in conclusions if c.kind == "conclusion"]
    for note in notes:
        end = next((i for i in closing if i > note.index), None)
        if end is not None and end in ends:
            out.add(note.id)
    return out
