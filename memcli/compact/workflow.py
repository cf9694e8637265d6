"""Lessons from what commands did, not from a failure.

- The project's *check workflow*: a test, build or lint command the session ran again and
  again right after its code edits, that passed more than once and on its last run, is how
  this project checks a change: a ``convention`` ("Test the project with `uv run pytest`").
  Arguments that vary (the test file, `-x`, `| tail`) are dropped, so the same command in
  another session merges into the same item. Scripts, servers and installs run again and
  again are no convention (the checkpoint still asks about them).
- A *slow run*: a command that took :data:`SLOW_SECONDS` or more (the duration the hook
  payload gave) or that hit the assistant's command timeout is an ``env`` fact: run it in
  the background or with a longer timeout. The checkpoint asks from a minute on; an item
  needs two, a build or a test suite's time, not a slow network call's.
"""

from __future__ import annotations

from memcli.checkpoint import workflow as shapes
from memcli.compact import commands, tasks, text
from memcli.compact.drafts import Draft, body_lines, evidence, importance
from memcli.compact.observations import Obs

MIN_CHECKED = 3  # runs right after code edits
MIN_PASSES = 2  # used as the session's regular check, not only to end one fix
MAX_PER_SESSION = 1  # the session's way of checking a change, not every check it ran
SLOW_SECONDS = 120.0
_VERBS = {"tested": "Test", "built": "Build", "linted or type-checked": "Lint and type-check"}


def drafts(obs: list[Obs], session: str) -> list[Draft]:
    return [*conventions(obs, session), *slow_commands(obs, session)]


def conventions(obs: list[Obs], session: str) -> list[Draft]:
    """Check commands run after code edits at least :data:`MIN_CHECKED` times whose last run
    passed, the most used first."""
    runs: dict[str, list[tuple[Obs, bool]]] = {}
    edited = False  # a code edit since the last command of each key: tracked per key below
    since: dict[str, bool] = {}
    for o in obs:
        if o.carried:
            continue
        if tasks.code_edit(o):
            edited = True
            since = dict.fromkeys(since, True)
            continue
        if not o.is_command or o.ok is None:
            continue
        cmd = commands.parse(o.input)
        if not cmd.key or cmd.looking or not cmd.check:
            continue
        after = since.get(cmd.key, edited)
        since[cmd.key] = False
        runs.setdefault(cmd.key, []).append((o, after))
    found = []
    for key, seen in runs.items():
        checked = sum(1 for _o, after in seen if after)
        passes = sum(1 for o, _after in seen if o.passed)
        last = seen[-1][0]
        shown = shapes.normalised(last.input)
        done = shapes.what(key, True, shown)
        if checked < MIN_CHECKED or passes < MIN_PASSES or not last.passed:
            continue  # a failure's loop until one pass is the fix's episode, not a habit
        if not shown or done not in _VERBS:
            continue
        found.append((checked, len(seen), key, shown, done, seen))
    found.sort(key=lambda f: (-f[0], -f[1]))
    return [_convention(*f, session) for f in found[:MAX_PER_SESSION]]


def _convention(
    checked: int, count: int, key: str, shown: str, done: str, seen: list[tuple[Obs, bool]],
    session: str,
) -> Draft:  # fmt: skip
    last = seen[-1][0]
    first = next(o for o, after in seen if after)
    return Draft(
        rule="workflow",
        key=shown,
        kind="convention",
        title=f"{_VERBS[done]} the project with `{shown}`",
        body=body_lines(
            f"The session ran `{shown}` {count} times, {checked} of them right after code "
            "edits, to check its changes; the last run passed.",
            f"Last run: `{text.one_line(last.input, 160)}`",
        ),
        ts=last.ts,
        session=session,
        tags=text.tags_from([shown], extra=["workflow", key.split()[0], done.split()[0]]),
        importance=importance("convention", False),
        evidence=[e for e in (evidence(first.summary, first.raw, session),
                              evidence(last.summary, last.raw, session)) if e],
    )  # fmt: skip


def slow_commands(obs: list[Obs], session: str) -> list[Draft]:
    """Commands that took :data:`SLOW_SECONDS` or more, or hit a timeout: one per command."""
    out: dict[str, Draft] = {}
    for o in obs:
        if o.carried or not o.is_command:
            continue
        stopped = shapes.timed_out(o.excerpt) if o.ok is False else ""
        if not stopped and (o.secs is None or o.secs < SLOW_SECONDS):
            continue
        cmd = commands.parse(o.input)
        if not cmd.key or cmd.looking or cmd.key in out:
            continue
        shown = text.one_line(commands.shown(o.input), 100)
        said = f"hits the command timeout here ({stopped})" if stopped else (
            f"takes {shapes.duration(o.secs or 0)} here")  # fmt: skip
        out[cmd.key] = Draft(
            rule="slow",
            key=cmd.key,
            kind="env",
            title=text.title_of(
                f"`{shown}` {said}: run it in the background or with a longer timeout"
            ),  # fmt: skip
            body=body_lines(
                f"Seen: `{text.one_line(o.input, 160)}` "
                + (f"stopped: {stopped}" if stopped else f"ran for {shapes.duration(o.secs or 0)}")
                + ("" if o.ok is not False else " (it failed)"),
            ),
            ts=o.ts,
            session=session,
            tags=text.tags_from([o.input], extra=["slow", cmd.program]),
            importance=importance("env", False),
            evidence=[e for e in (evidence(o.summary, o.raw, session),) if e],
        )
    return list(out.values())
