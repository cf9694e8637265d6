"""Unfinished work: a check the session left failing becomes an open ``task`` item, and so
does the work the session's last message says is left open (:mod:`memcli.compact.open_work`).

The task leads the next session's Layer-1 index (importance above every unverified item)
and expires after ``TASK_DAYS``. A later compaction batch of the same session that makes the
check pass retires it (see :mod:`memcli.compact.carry`).
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from memcli import timeutil
from memcli.compact import commands, open_work, text
from memcli.compact.drafts import Draft, body_lines, evidence
from memcli.compact.observations import Obs

if TYPE_CHECKING:
    from memcli.compact.rules import Analysis

TASK_DAYS = 30  # an unfinished-work item expires after this many days
# Above every unverified item: the next session's index shows the unfinished work first.
UNFINISHED_IMPORTANCE = 0.8
RULE, KEY = "task", "unfinished"  # one open task per session: its id is derived from these
SAID_KEY = "left-open"  # and one for the open work its last message states


PERSISTENT = 3  # a check failing this many times is unfinished whatever was edited after


def code_edit(o: Obs) -> bool:
    """An edit that could fix a check: not notes, docs or assistant instruction files."""
    return o.is_edit and any(
        not f.endswith((".md", ".txt", ".rst")) and f not in text.INSTRUCTION_FILES for f in o.files
    )


def unfinished(analysis: Analysis, session: str) -> Draft | None:
    """A task item when the session left a check failing after work on it; else None.

    An edit after the last failure leaves the outcome unknown (no run verified it), unless
    it touched only notes or instruction files (a CLAUDE.md written after four failed builds
    does not fix the build), or the check kept failing (``PERSISTENT`` times)."""
    if not any(o.is_edit for o in analysis.obs):
        return None
    code_edits = [o.index for o in analysis.obs if code_edit(o)]
    last_edit = max(code_edits, default=-1)
    open_checks = [
        e
        for e in analysis.unresolved
        if e.command.check and (e.failures[-1].index > last_edit or len(e.failures) >= PERSISTENT)
    ]
    if not open_checks:
        return None
    episode = open_checks[-1]
    last = episode.failures[-1]
    line = commands.decisive_line(last.excerpt, last.summary)
    files = changed(analysis)
    # What still fails leads the title: the session's first prompt may be a passing request
    # ("ok, make the diff a little less intense") that says nothing about the check.
    failing = f"`{commands.shown(episode.command.text)}` still fails"
    title = text.title_of(f"Unfinished: {failing}" + (f": {line}" if line else ""))
    body = body_lines(
        f"Goal: {analysis.intent}" if analysis.intent else "",
        f"`{episode.command.text}` still fails" + (f": {line}" if line else "."),
        "Last changed: " + ", ".join(files) if files else "",
        "The session ended without a passing run.",
    )
    tags = text.tags_from([episode.command.text], extra=[episode.command.program])
    return _open_task(title, body, last, session, tags, files, line or last.summary)


STOP_FAILURE = "StopFailure"  # Claude Code's end of a turn that an API error cut short


def cut_short(analysis: Analysis) -> Obs | None:
    """The StopFailure that ended the session: its last turn end, when an API error (a rate
    or usage limit, billing, an overloaded service) cut that turn short and nothing ran
    after it."""
    ends = [o for o in analysis.obs if o.kind == "conclusion" or o.event == STOP_FAILURE]
    if not ends or ends[-1].event != STOP_FAILURE:
        return None
    last = ends[-1]
    if any(o.index > last.index and (o.is_command or o.is_edit) for o in analysis.obs):
        return None  # the session went on after the error
    return last


def stopped(analysis: Analysis, session: str) -> Draft | None:
    """A task item when the session ended cut short (:func:`cut_short`): the work its last
    turn was doing is unfinished, whatever its last message says."""
    last = cut_short(analysis)
    if last is None:
        return None
    error, _, said = last.excerpt.partition(": ")
    why = f"{error}: {text.one_line(said, 120)}" if said else error
    files = changed(analysis)
    title = text.title_of(f"Unfinished: the session stopped on an API error ({why})")
    body = body_lines(
        f"Goal: {analysis.intent}" if analysis.intent else "",
        f"The last turn ended with an API error instead of an answer: {why}.",
        "Last changed: " + ", ".join(files) if files else "",
        "Pick the work up where it stopped.",
    )
    tags = ["stopped", error.replace("_", "-")] if error else ["stopped"]
    return _open_task(title, body, last, session, tags, files, last.summary)


def last_message(analysis: Analysis) -> Obs | None:
    """The session's last closing message, when the session ended with it (no prompt after
    it: a later prompt started work the message did not see)."""
    if not analysis.conclusions:
        return None
    last = analysis.conclusions[-1]
    if last.kind != "conclusion" or any(p.index > last.index for p in analysis.prompts):
        return None
    return last


def left_open(analysis: Analysis, session: str) -> Draft | None:
    """A task item holding the open work the session's last message states (a list under
    "Remaining:", "not committed yet", an offer the user never answered), or None."""
    last = last_message(analysis)
    if last is None:
        return None
    said = open_work.statements(last.excerpt)
    if not said:
        return None
    files = changed(analysis)
    title = text.title_of(f"Unfinished, as the session's last message says: {said[0]}")
    body = body_lines(
        f"Goal: {analysis.intent}" if analysis.intent else "",
        "Left open when the session ended (its last message):",
        *(f"- {s}" for s in said),
        "Last changed: " + ", ".join(files) if files else "",
    )
    return _open_task(title, body, last, session, ["unfinished"], files, said[0], SAID_KEY)


MAX_FILES = 5  # files a task names as last changed


def changed(analysis: Analysis) -> list[str]:
    """The first :data:`MAX_FILES` files the session edited, in order."""
    return list(dict.fromkeys(f for o in analysis.obs if o.is_edit for f in o.files))[:MAX_FILES]


def _open_task(
    title: str,
    body: str,
    last: Obs,
    session: str,
    tags: list[str],
    files: list[str],
    said: str,
    key: str = KEY,
) -> Draft:
    """The session's one open task (its id from :data:`RULE` and :data:`KEY`), shown first in
    the next session's index, expiring :data:`TASK_DAYS` after ``last``."""
    return Draft(
        rule=RULE,
        key=key,
        kind="task",
        title=title,
        body=body,
        ts=last.ts,
        session=session,
        tags=tags,
        importance=UNFINISHED_IMPORTANCE,
        anchors=[{"path": f} for f in files if relative(f)],
        evidence=[evidence(said, last.raw, session)],
        expires=timeutil.format_time(_time(last.ts) + dt.timedelta(days=TASK_DAYS)),
    )


def _time(stamp: str) -> dt.datetime:
    try:
        return timeutil.parse_time(stamp)
    except ValueError:
        return dt.datetime.now(dt.UTC)


def relative(path: str) -> bool:
    """A path inside the repository (an anchor), not an absolute or parent one."""
    return bool(path) and not path.startswith(("/", "..", "~")) and ":" not in path[:3]
