"""What the assistant said about an episode: its cause, its fix, the diagnosis in a note.

The closing message after the episode's end speaks first (its stated root cause, else its
first sentence about the episode that is not about the fix); mid-turn notes explain too, but
only in so many words. Narration never explains anything.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from memcli import phrasing
from memcli.compact import commands, prose, text
from memcli.compact.observations import Obs

if TYPE_CHECKING:
    from memcli.compact.rules import Analysis, Context, Episode

_FIX_WORDS = re.compile(
    r"^(?:fix|fixed|now|changed|replaced|switched|set|made|updated|conftest now|the fix)\b"
    r"|\bnow (?:reads|uses|passes|works)\b",
    re.I,
)


def explanation(
    analysis: Analysis, episode: Episode, ctx: Context
) -> tuple[list[tuple[str, int]], str, list[str]]:
    """What the assistant said about this episode: (keys used, cause, fix sentences).

    The closing message after the passing run speaks first (its root cause, else its first
    sentence about the episode that is not about the fix). Mid-turn notes from the first
    failure up to that message explain too, but only in so many words: a note about the
    episode that names a cause ("the problem is", "because the ...") or a choice. Narration
    never explains anything."""
    passed = episode.closed
    assert passed is not None
    message = next((c for c in analysis.conclusions if c.index > passed.index), None)
    until = message.index if message else len(analysis.obs)
    notes = [n for n in analysis.notes if episode.first.index < n.index < until]
    diagnosis = _diagnosis(analysis, episode, notes, ctx)
    # An episode the run got past shares its files with the next one: only what names its
    # own error speaks about it.
    marks = _marks(episode, files=episode.passed is not None)
    used: list[tuple[str, int]] = []
    said: list[str] = []  # the closing message's sentences about the episode
    noted: list[str] = []  # the notes' causes and choices about the episode
    for source, out in [*([(message, said)] if message else []), *((n, noted) for n in notes)]:
        for number, sentence in enumerate(text.sentences(source.excerpt)):
            key = (source.id, number)
            if key in ctx.used or phrasing.narration(sentence) or text.status_line(sentence):
                continue  # "The script has been successfully removed" is never a cause
            if out is noted:
                if prose.guess(sentence) or "?" in sentence:
                    continue
                names_cause = phrasing.root_cause(sentence)
                if not (names_cause or phrasing.decision(sentence)):
                    continue
                if key != diagnosis and not _about(sentence, marks):
                    continue
            elif not _about(sentence, marks):
                continue
            used.append(key)
            out.append(sentence)
    ctx.used.update(used)
    if not said and not noted:
        return [], "", []
    stated = [s for s in said if phrasing.root_cause(s, True)]
    # Where the fault is ("the problem is in `f` at line 71") is no cause, however it is said.
    causes = (
        stated
        or [s for s in said if not _FIX_WORDS.search(s) and not phrasing.only_where(s)]
        or noted
    )
    cause = causes[0] if causes else ""
    fixes = [s for s in said if s != cause]
    return used, cause, fixes


def _diagnosis(
    analysis: Analysis, episode: Episode, notes: list[Obs], ctx: Context
) -> tuple[str, int] | None:
    """The last note sentence naming a cause said after the episode's last failure, with no
    other episode resolved between its passing run and that note: the diagnosis of this
    failure, whatever words it uses ("the old commit still has the test data"); earlier ones
    were guesses the next failure disproved. Hooks write a turn's notes at its end, so the
    note may come after the passing run."""
    closed = episode.closed
    assert closed is not None
    passes = [e.closed.index for e in analysis.episodes if e.closed and e is not episode]
    found: list[tuple[str, int]] = []
    for note in notes:
        if note.index < episode.failures[-1].index:
            continue
        if note.index > closed.index and any(closed.index < p < note.index for p in passes):
            continue  # another episode was resolved in between: the note may be about that one
        for number, sentence in enumerate(text.sentences(note.excerpt)):
            if (note.id, number) in ctx.used or phrasing.narration(sentence) or "?" in sentence:
                continue
            if phrasing.root_cause(sentence) and not prose.guess(sentence):
                found.append((note.id, number))
    return found[-1] if found else None


def _about(sentence: str, marks: set[str]) -> bool:
    lowered = sentence.lower()
    return any(mark in lowered for mark in marks)


def _marks(episode: Episode, files: bool = True) -> set[str]:
    """Words that tie a sentence to an episode: edited files, values, names in the error."""
    marks = failure_marks(episode.line, episode.edits if files else [])
    for target in episode.command.targets:
        name = stem(target)
        if name:
            marks.add(name.lower())
    for o in episode.fixes:
        marks.add(o.input.lower())
    return {m for m in marks if len(m) >= 3}


def failure_marks(line: str, edits: list[Obs]) -> set[str]:
    """Words that tie a sentence to a failure's decisive line and the edits that fixed it
    (lower case): the edited files and their names, the line's values, environment
    variables and error class."""
    marks: set[str] = set()
    for o in edits:
        for path in o.files:
            marks.add(path.lower())
            name = stem(path)
            if name:
                marks.add(name.lower())
    marks.update(v for v in text.values(line) if len(v) >= 3)
    marks.update(v.lower() for v in text.env_vars(line))
    error = commands.error_class(line).rsplit(".", 1)[-1]
    if error:
        marks.add(error.lower())
    return {m for m in marks if len(m) >= 3}


def ref_of(analysis: Analysis, used: list[tuple[str, int]], sentence: str) -> str:
    """The raw reference of the message (closing or note) that said ``sentence``."""
    ids = {key[0] for key in used}
    sources = [o for o in [*analysis.conclusions, *analysis.notes] if o.id in ids]
    said = next((o for o in sources if sentence and sentence in o.excerpt), None)
    return (said or sources[0]).raw if sources else ""


def stem(path: str) -> str:
    name = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return name if len(name) >= 4 else ""
