"""Failures the user reported: an error signature pasted into a prompt (see
:mod:`memcli.pasted`), not seen in a tool result.

The turn a prompt opens (up to the next prompt) is the episode: the assistant's code edits in
it are the fix, its passing checks the verification, its closing message (else a note naming
a cause) the explanation. A fixed report becomes a pitfall titled by the signature and the
cause. A report whose turn ends with no edit, or that the user pastes again, stays
unresolved: at most the session's task, and only when nothing later fixed it and the session
has no task already.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from memcli import pasted, phrasing, timeutil
from memcli.compact import commands, explain, prose, tasks, text
from memcli.compact.drafts import Draft, body_lines, evidence, importance
from memcli.compact.observations import Obs

if TYPE_CHECKING:
    from memcli.compact.rules import Analysis, Context

RULE = "reported"


def drafts(analysis: Analysis, ctx: Context, known: set[str], has_task: bool) -> list[Draft]:
    """Pitfalls for reports fixed in their turn; a task for the last report left open.
    ``known``: signatures other drafts already hold (a report of one is not said twice)."""
    reports = [(p, pasted.signature(p.excerpt)[1]) for p in analysis.prompts if not p.carried]
    reports = [(p, line) for p, line in reports if line and commands.signature(line)]
    out: list[Draft] = []
    open_report: tuple[Obs, str] | None = None
    for number, (prompt, line) in enumerate(reports):
        sig = commands.signature(line)
        if sig in known:
            continue
        if any(commands.signature(later) == sig for _p, later in reports[number + 1 :]):
            continue  # pasted again: this turn did not fix it
        turn = _turn(analysis, prompt)
        if not any(tasks.code_edit(o) for o in turn):
            if not _edited_after(analysis, turn, prompt):
                open_report = (prompt, line)
            continue
        draft = _pitfall(analysis, ctx, prompt, line, turn)
        if draft is not None:
            known.add(sig)
            out.append(draft)
    if open_report is not None and not has_task:
        out.append(_task(analysis, ctx, *open_report))
    return out


def _turn(analysis: Analysis, prompt: Obs) -> list[Obs]:
    later = [p.index for p in analysis.prompts if p.index > prompt.index]
    end = later[0] if later else len(analysis.obs)
    return analysis.obs[prompt.index + 1 : end]


def _edited_after(analysis: Analysis, turn: list[Obs], prompt: Obs) -> bool:
    end = turn[-1].index if turn else prompt.index
    return any(tasks.code_edit(o) for o in analysis.obs[end + 1 :])


def _cause(
    analysis: Analysis, ctx: Context, turn: list[Obs], line: str
) -> tuple[str, Obs | None, list[str]]:
    """(cause, the message that said it, fix sentences) from the turn's closing message, else
    from a note naming a cause of this failure (a long turn's notes explain other failures
    too: "The issue is that `hooks` is None" says nothing of a reported UnicodeDecodeError).
    Narration, checklists, guesses and questions never explain."""
    marks = _marks(line, [o for o in turn if o.is_edit])
    ids = {o.id for o in turn}
    closing = [c for c in analysis.conclusions if c.id in ids][-1:]
    notes = [n for n in analysis.notes if n.id in ids]
    for source in [*closing, *reversed(notes)]:
        said: list[tuple[int, str]] = []
        for number, sentence in enumerate(text.sentences(source.excerpt)):
            if (source.id, number) in ctx.used or phrasing.narration(sentence):
                continue
            if text.status_line(sentence) or "?" in sentence or prose.guess(sentence):
                continue
            said.append((number, sentence))
        causes = [s for s in said if phrasing.root_cause(s[1], True)]
        causes = causes or [s for s in said if phrasing.root_cause(s[1])]
        if source not in closing:
            causes = [s for s in causes if any(m in s[1].lower() for m in marks)]
            if not causes:
                continue  # a note explains only when it names a cause of this failure
        chosen = (causes or said[:1])[:1]
        if not chosen:
            continue
        ctx.used.update((source.id, n) for n, _s in chosen)
        fixes = [s for n, s in said if (n, s) not in chosen][:2] if source in closing else []
        return chosen[0][1], source, fixes
    return "", None, []


def _marks(line: str, edits: list[Obs]) -> set[str]:
    """Words that tie a sentence to a reported failure: an episode's marks
    (:func:`memcli.compact.explain.failure_marks`) and the names the line quotes."""
    quoted = {w.strip("`'\"").lower() for w in line.split()
              if w[:1] in "`'\"" and len(w.strip("`'\":,.")) >= 4}  # fmt: skip
    return explain.failure_marks(line, edits) | quoted


def _pitfall(
    analysis: Analysis, ctx: Context, prompt: Obs, line: str, turn: list[Obs]
) -> Draft | None:
    edits = [o for o in turn if tasks.code_edit(o)]
    checks = [o for o in turn if o.passed and commands.parse(o.input).check]
    cause, said, fixes = _cause(analysis, ctx, turn, line)
    if not cause and not checks:
        return None  # an edit nobody explained or verified: not yet a lesson
    files = list(dict.fromkeys(f for o in edits for f in o.files if tasks.relative(f)))[:5]
    shown = text.one_line(line.rstrip(" .:"), 120)
    title = text.title_of(f"{shown}: {cause}" if cause else f"{shown}: fixed in " + ", ".join(
        files[:3] or [f.rsplit("/", 1)[-1] for o in edits for f in o.files][:3]))  # fmt: skip
    verified = checks[-1] if checks else None
    body = body_lines(
        f"Cause: {cause}" if cause else "",
        "Fix: " + " ".join(fixes) if fixes else "",
        "Changed: " + ", ".join(files) if files else "",
        f"Symptom: the user reported: {line}",
        f"Verified: `{verified.input}` passed afterwards." if verified else "",
    )
    proof = [evidence(line, prompt.raw, ctx.session)]
    proof += [evidence(o.summary, o.raw, ctx.session) for o in edits[:3]]
    if verified is not None:
        proof.append(evidence(verified.summary, verified.raw, ctx.session))
    if said is not None:
        proof.append(evidence(cause, said.raw, ctx.session))
    sig = commands.signature(line)
    return Draft(
        rule=RULE,
        key=sig,
        kind="pitfall",
        title=title,
        body=body,
        ts=(verified or edits[-1]).ts or prompt.ts,
        session=ctx.session,
        tags=text.tags_from([line, title], extra=[commands.error_class(line).rsplit(".", 1)[-1]]),
        confidence="verified" if verified else "assumed",
        importance=importance("pitfall", verified is not None),
        anchors=[{"path": f} for f in files],
        evidence=[e for e in proof if e],
        signature=sig,
    )


def _task(analysis: Analysis, ctx: Context, prompt: Obs, line: str) -> Draft:
    title = text.title_of(f"Unfinished: the reported failure is not fixed: {line}")
    body = body_lines(
        f"Goal: {analysis.intent}" if analysis.intent else "",
        f"The user reported: {line}",
        "No change in the session fixed it.",
    )
    try:
        start = timeutil.parse_time(prompt.ts)
    except ValueError:
        start = dt.datetime.now(dt.UTC)
    return Draft(
        rule=tasks.RULE,
        key=tasks.KEY,
        kind="task",
        title=title,
        body=body,
        ts=prompt.ts,
        session=ctx.session,
        tags=text.tags_from([line], extra=[commands.error_class(line).rsplit(".", 1)[-1]]),
        importance=tasks.UNFINISHED_IMPORTANCE,
        evidence=[evidence(line, prompt.raw, ctx.session)],
        expires=timeutil.format_time(start + dt.timedelta(days=tasks.TASK_DAYS)),
    )
