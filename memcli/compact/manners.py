"""A manner of work the user asks for in prompt after prompt: a norm said by repetition.

"Read tui-renderer.ts in full" in one prompt is that task's detail; "read it in full" again in
a later prompt, about another file, is how the user wants the work done, even when no
sentence says "always" (:func:`memcli.redirects.manner` reads the manner). One convention
item per manner asked for in two prompts or more, titled by the manner and the number of
prompts, the user's sentences as its evidence. The Stop checkpoint offers the same
(:mod:`memcli.checkpoint.prompted`), as soon as the second prompt asks.
"""

from __future__ import annotations

from collections.abc import Iterable

from memcli import redirects
from memcli.compact import text
from memcli.compact.drafts import Draft, evidence, importance
from memcli.compact.observations import Obs

MIN_PROMPTS = 2  # asked for in this many prompts: a norm
MAX_EVIDENCE = 3  # of the user's sentences


def drafts(prompts: Iterable[Obs], session: str, known: text.InstructionFiles) -> list[Draft]:
    asked: dict[str, list[tuple[Obs, str]]] = {}
    for prompt in prompts:
        if prompt.carried or text.looks_like_instructions(prompt.excerpt):
            continue
        if prompt.excerpt.lstrip().startswith(("<", "/")):
            continue  # a notification, an IDE's note or a slash command: not typed
        for sentence in text.sentences(prompt.excerpt):
            how = redirects.manner(sentence)
            if not how or known.contains(sentence):
                continue
            said = asked.setdefault(how, [])
            if not said or said[-1][0].id != prompt.id:
                said.append((prompt, sentence))  # one a prompt: twice in one is one task
    out = []
    for how, said in asked.items():
        if len(said) < MIN_PROMPTS:
            continue
        first, sentence = said[0]
        title = text.title_of(
            f"{how[0].upper()}{how[1:]}: the user asked for it in {len(said)} prompts"
            f' ("{sentence}")'
        )
        out.append(
            Draft(
                rule="convention",
                key=f"manner\0{how}",
                kind="convention",
                title=title,
                body="\n".join([f"{title}.", *(f'- "{s}"' for _, s in said[1:MAX_EVIDENCE])]),
                ts=said[-1][0].ts,
                session=session,
                tags=text.tags_from([how]),
                importance=importance("convention", False),
                evidence=[evidence(s, p.raw, session) for p, s in said[:MAX_EVIDENCE]],
                restatement=True,
            )
        )
    return out
