"""Commands that act only on their second run: the first run asks to be run again.

SWE-agent's `submit` answers its first call with a review checklist ("Remove your
reproduction script ... 4. Run the submit command again to confirm"); a release or cleanup
script prints what it would do and "re-run with --yes to apply". A session that does not know
takes the first run's output for the result, or the agent answers the checklist instead of
running the command again. When the session ran the same program again and that run no
longer asked, the shape is proven: a verified ``env`` fact, with what the first run asked
for and what the session did between the runs.
"""

from __future__ import annotations

import re

from memcli.compact import commands, text
from memcli.compact.drafts import Draft, body_lines, evidence_of, importance
from memcli.compact.observations import Obs

# "Run the submit command again to confirm", "run `deploy` again to proceed", "re-run with
# --yes to apply", "To confirm, run this command again". A request about this very command,
# not advice ("you may want to run the tests again").
_AGAIN = re.compile(
    r"\b(?:run|re-?run|execute|call|invoke|issue)\s+(?:the\s+|this\s+|it\s+)?"
    r"(?:`[^`\n]{1,60}`\s+|[\w-]+\s+)?(?:command\s+)?again\b[^\n]{0,60}?"
    r"\bto\s+(?:confirm|proceed|continue|apply|submit|finish)\b"
    r"|\bre-?run\s+(?:it\s+|this\s+|the command\s+)?with\s+`?--?[\w-]+`?[^\n]{0,30}?"
    r"\bto\s+(?:confirm|proceed|continue|apply)\b"
    r"|\bto\s+confirm,?\s+(?:run|re-?run|execute)\b[^\n]{0,60}?\bagain\b",
    re.I,
)
# Programs that print files or search results: a document that says "run again to confirm"
# is not a request of the command that printed it.
_PRINTERS = frozenset(
    ("cat", "less", "more", "head", "tail", "grep", "egrep", "rg", "ag", "sed", "awk", "find",
     "open", "str_replace_editor", "search_file", "search_dir", "goto", "scroll_up", "scroll_down")
)  # fmt: skip
_ASKED_LINES = 4  # lines of the first run's output that say what it asked for
_BETWEEN = 2  # commands shown from between the two runs


def drafts(obs: list[Obs], session: str) -> list[Draft]:
    """An ``env`` fact for each program whose first run only asked to be run again."""
    out: list[Draft] = []
    seen: set[str] = set()
    for number, first in enumerate(obs):
        if not first.is_command:
            continue
        program = commands.parse(first.input).program
        if not program or program in _PRINTERS or program in seen:
            continue
        asked = _AGAIN.search(first.excerpt)
        if asked is None:
            continue
        again = next(
            (
                o
                for o in obs[number + 1 :]
                if o.is_command and commands.parse(o.input).program == program
            ),
            None,
        )
        if again is None or _AGAIN.search(again.excerpt):
            continue  # never run again, or it asked again: nothing proven
        seen.add(program)
        between = [o for o in obs[number + 1 : again.index] if o.is_command or o.is_edit]
        out.append(_draft(first, again, asked, between, program, session))
    return out


def _draft(
    first: Obs, again: Obs, asked: re.Match[str], between: list[Obs], program: str, session: str
) -> Draft:
    request = _line_at(first.excerpt, asked.start())
    shown = commands.shown(first.input)
    title = text.title_of(
        f"`{shown}` acts only when run a second time: its first run asks for it ({request})"
    )
    did = [
        f"`{commands.shown(o.input)}`" if o.is_command else "edited " + ", ".join(o.files[:2])
        for o in between[:_BETWEEN]
    ]
    return Draft(
        rule="confirm",
        key=program,
        kind="env",
        title=title,
        body=body_lines(
            f"The first `{shown}` did not act; its output asked for this first:",
            *_asked_for(first.excerpt, asked.start()),
            f"Between the runs: {', '.join(did)}" if did else "",
            f"Run again, `{commands.shown(again.input)}` did what was asked.",
        ),
        ts=again.ts or first.ts,
        session=session,
        tags=text.tags_from([request], extra=[program, "confirm"]),
        confidence="verified",
        importance=importance("env", True),
        evidence=evidence_of(session, (request, first.raw), (again.summary, again.raw)),
    )


def _line_at(output: str, offset: int) -> str:
    start = output.rfind("\n", 0, offset) + 1
    end = output.find("\n", offset)
    return text.one_line(output[start : end if end >= 0 else None].strip(" \t#*-0123456789."), 160)


_STEP = re.compile(r"^(?:\d+[.)]|[-*\u2022])\s+\S")  # "2. Remove your ...", "- revert ..."


def _asked_for(output: str, offset: int) -> list[str]:
    """What the first run asked to be done: its opening line and the steps it listed before
    the request, then the request."""
    lines = [line.strip() for line in output[: output.rfind("\n", 0, offset) + 1].splitlines()]
    lines = [line for line in lines if line]
    steps = [line for line in lines[1:] if _STEP.match(line)]
    kept = (lines[:1] + steps)[:_ASKED_LINES]
    return [text.one_line(line, 200) for line in kept] + [_line_at(output, offset)]
