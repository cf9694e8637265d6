"""A long prompt that pastes context, read as notes: the first lessons it states.

A user who continues an earlier session pastes its log (or a design note) as the first
prompt; the causes, the decisions with their reasons, the environment facts and the norms in
it are that work's lessons, and nothing else in the new session repeats them. The Stop
checkpoint offers them to the model (`memcli/checkpoint/prompted.py`, same thresholds); when
no model answers, the rules keep them as they keep an assistant's mid-turn notes: guesses and
narration are none, and only the first ``MAX_PASTED`` count (a long log states many things,
and its first ones set out what the work was). Pasted *instructions* (an instruction file, a
slash command's text, a system reminder) are never read: they are rules already written down.
"""

from __future__ import annotations

from dataclasses import replace

from memcli.compact import prose, text
from memcli.compact.drafts import Draft
from memcli.compact.observations import Obs

PASTED_LINES = 25  # a prompt of more lines than this is pasted context
PASTED_CHARS = 3_000  # ... or of more characters
MAX_PASTED = 6  # lessons from one pasted context
MAX_SENTENCES = 600  # of a pasted context: its first ones
_INSTRUCTIONS = ("claude.md", "agents.md", "<system-reminder>", "<command-name>",
                 "<command-message>")  # fmt: skip


def is_context(prompt: str) -> bool:
    """A long prompt that pastes a log or a document, not instructions."""
    lowered = prompt.lower()
    if any(marker in lowered for marker in _INSTRUCTIONS):
        return False
    if lowered.lstrip().startswith(("caveat:", "<local-command", "/")):
        return False
    return prompt.count("\n") > PASTED_LINES or len(prompt) > PASTED_CHARS


def drafts(
    prompts: list[Obs],
    session: str,
    used: set[tuple[str, int]],
    ran: list[str],
    known: text.InstructionFiles,
) -> list[Draft]:
    out: list[Draft] = []
    for prompt in prompts:
        if prompt.carried or not is_context(prompt.excerpt):
            continue
        taken = 0
        for number, sentence in enumerate(text.sentences(prompt.excerpt)[:MAX_SENTENCES]):
            # One sentence at a time, so the first lessons are kept in the order stated.
            one = replace(prompt, id=f"{prompt.id}#{number}", excerpt=sentence.replace("**", ""))
            found = prose.decisions([one], session, used, ran, mid_turn=True)
            found = found or prose.conventions([one], session, known)
            if found:
                out.extend(found[:1])
                taken += 1
                if taken >= MAX_PASTED:
                    break
    return out
