"""Lessons from what commands did, not from a failure.

A *slow run*: a command that took :data:`SLOW_SECONDS` or more (the duration the hook payload
gave) or that hit the assistant's command timeout is an ``env`` fact: run it in the background
or with a longer timeout. The checkpoint asks from a minute on; an item needs two, a build or a
test suite's time, not a slow network call's.

The project's *check workflow* (a test, build or lint command run again and again after edits)
is the Stop checkpoint's question only (:mod:`memcli.checkpoint.workflow`): the model, which
knows whether the command is worth telling a later session, records it. As an item of the
rules' own ("Lint and type-check the project with `npm run check`") it matched no gold lesson
in the 20 benchmark sessions and was 3 of the fresh set's 9 items matching none
(docs/benchmarks.md).
"""

from __future__ import annotations

from memcli.checkpoint import workflow as shapes
from memcli.compact import commands, text
from memcli.compact.drafts import Draft, body_lines, evidence, importance
from memcli.compact.observations import Obs

SLOW_SECONDS = 120.0


def drafts(obs: list[Obs], session: str) -> list[Draft]:
    return slow_commands(obs, session)


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
