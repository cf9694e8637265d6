"""Decisions stated in commit messages: a ``git commit`` whose message says what changed and
why ("Configure the test workflow to run only on PRs" with "Changed the triggers to prevent
running on every push") is a **decision** (assumed), even when no decision word is in it.

Only with a reason in the subject or the body's first line ("to avoid", "instead of", "This
reduces ..."), or a subject naming the old and the new shape ("replace X with Y", "split X
into Y"): a subject alone says what changed, not why (the checkpoint still asks about it; the
model knows). Routine commits ("WIP", "Merge ...", "Bump version") never. The message is read
from the command's raw record, where it is whole and its line ends survive (capture keeps a
command as one line of 200 characters); a subject that cannot be told from its body (a
one-line heredoc, with no raw record) makes nothing.
"""

from __future__ import annotations

import re

from memcli import commit_messages, statements
from memcli.compact import text
from memcli.compact.drafts import Draft, evidence, importance
from memcli.compact.observations import Obs

MAX_SUBJECT = 150  # longer: a one-line heredoc whose subject and body run together
# A subject that names the shape a change gave the code, old and new ("replace show/hide pairs
# with one helper", "split main.ts into modules: a, b", "move from npm to pnpm", "reorganize
# the layout: core/, utils/"): the design is in the subject even without a "because".
_RESHAPED = re.compile(
    r"\breplac(?:e|es|ed|ing)\b.{1,80}?\bwith\b"
    r"|\b(?:split|extract(?:ed|s)?|merg(?:e|ed|es)|consolidat(?:e|ed|es)|fold(?:ed|s)?)\b"
    r".{1,80}?\binto\b"
    r"|\b(?:mov(?:e|ed|es)|migrat(?:e|ed|es)|switch(?:ed|es)?|port(?:ed|s)?)\b.{0,60}?"
    r"\bfrom\b.{1,60}?\bto\b"
    r"|\b(?:reorganiz|restructur|reorganis)(?:e|ed|es)\b[^:]{0,60}:.*,",
    re.I,
)


def reshaped(subject: str) -> bool:
    """Whether a commit subject names the old and the new shape of what it changed."""
    return _RESHAPED.search(subject) is not None


def is_commit(o: Obs) -> bool:
    return o.is_command and "commit" in o.input and "git" in o.input


def drafts(obs: list[Obs], whole: dict[str, str], session: str) -> list[Draft]:
    """The decisions of the session's commit messages; ``whole``: observation id -> the
    command as the agent ran it (from its raw record), where capture's line would lose the
    message's line ends."""
    out: list[Draft] = []
    seen: set[str] = set()
    for o in obs:
        if not is_commit(o) or o.carried:
            continue
        lines = commit_messages.commit_message(whole.get(o.id) or o.input)
        if not lines or not commit_messages.commit_worth(lines[0]) or len(lines[0]) > MAX_SUBJECT:
            continue
        subject = lines[0]
        # The why of the subject: the subject itself or the body's first line. A reason
        # further down belongs to one bullet of a many-part commit, not to its subject.
        why = lines[1].rstrip(":") if len(lines) > 1 and statements.with_reason(lines[1]) else ""
        if not why and not statements.with_reason(subject) and not reshaped(subject):
            continue
        key = text.normalized(subject)
        if key in seen:
            continue  # the same commit again (a retry after a failed signing)
        seen.add(key)
        title = text.title_of(subject)
        out.append(
            Draft(
                rule="commit",
                key=key,
                kind="decision",
                title=title,
                body=f"{title}.\n{text.one_line(why, 300)}\n" if why else f"{title}.",
                ts=o.ts,
                session=session,
                tags=text.tags_from([subject, why]),
                importance=importance("decision", False),
                evidence=[evidence(f"git commit: {subject} | {why}".rstrip(" |"), o.raw, session)],
                restatement=True,
            )
        )
    return out
