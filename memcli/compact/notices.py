"""Notices a program prints on every run: the noise of this environment, not the change's.

A warning that comes back on run after run of one program (ssh's key-exchange warning, a
build's report of a dependency a future compiler will reject, a push's list of open security
alerts, a test run's warning about a plugin) is something the next session will see too and
should not chase: it was there before the change and stays after it. Warnings the session
acted on are pitfalls of their own (`events.acted_on_warnings`); a warning that shows once is
no pattern. A notice counts when its line (numbers blanked) is in the output of at least
``MIN_RUNS`` runs of the program and of at least half of that program's runs in the session,
so "every run" is what the session showed, not a guess.
"""

from __future__ import annotations

import re
from collections import Counter

from memcli import programs
from memcli.compact import commands, text
from memcli.compact.drafts import Draft, body_lines, evidence_of, importance
from memcli.compact.observations import Obs

MIN_RUNS = 2  # runs that printed it, when that is at least half of the programs' runs
MANY_RUNS = 3  # runs that printed it, whatever share of the runs that is
_SHAPE_CHARS = 40
MAX_NOTICES = 3  # a session's noisiest few; more would crowd out its lessons
_LINE_CHARS = 300  # longer lines are data (a minified file, a JSON blob), not a notice
# What a notice line is: a warning marker, a deprecation, a security advisory count, a
# compiler's "future version" report. Upper-case WARN is a log level; in lower case the word
# must be a label ("warning:") so prose ("no warnings") is not one.
_NOTICE = re.compile(
    r"\b(?:WARN(?:ING)?\b|[Ww]arning(?:\[[\w-]+\])?:|\w+Warning:)"
    r"|(?i:(?<![/_.-])\bdeprecat(?:ed|ion)\b(?![\w-]*(?:/|\.\w))"  # not a path's word
    r"|\b\d+ (?:[a-z]+ ){0,2}vulnerabilit(?:y|ies)\b|\bfuture (?:version|release)s?\b)"
)
_DEPRECATION = re.compile(r"\bdeprecat(?:ed|ion)\b|\bvulnerabilit", re.I)
_NUMBER = re.compile(r"\d+(?:\.\d+)*")
_PREFIX = re.compile(r"^(?:remote:|\*+|[;#>|]+)\s*")  # git's `remote:`, ssh's `**`, dig's `;;`


def drafts(obs: list[Obs], session: str) -> list[Draft]:
    """An ``env`` fact for each notice that came back on run after run."""
    runs: Counter[str] = Counter()  # program -> its runs
    seen: dict[str, list[tuple[Obs, str, str]]] = {}  # notice shape -> (run, line, program)
    for o in obs:
        if not o.is_command or commands.parse(o.input).looking:
            continue  # `grep -r warning src/` prints code, not what a run warns about
        program = _program(o.input)
        if not program:
            continue
        runs[program] += 1
        for shape, line in _notices(o.excerpt).items():
            seen.setdefault(shape, []).append((o, line, program))
    found = []
    for hits in seen.values():
        programs = dict.fromkeys(program for _, _, program in hits)
        total = sum(runs[p] for p in programs)
        if len(hits) >= MANY_RUNS or (len(hits) >= MIN_RUNS and 2 * len(hits) >= total):
            found.append((hits, list(programs), total))
    found.sort(key=lambda entry: -len(entry[0]))
    return [_draft(hits, programs, total, session) for hits, programs, total in found[:MAX_NOTICES]]


def _notices(output: str) -> dict[str, str]:
    """The notice lines of an output by their shape: from the notice's marker on (a log's
    timestamp, git's `remote:`, a test report's `E +` are not the notice), its numbers
    blanked ("found 19 vulnerabilities" and "found 21 ..." agree), its first
    ``_SHAPE_CHARS`` characters (a tool that cut a long line cut the same notice)."""
    out: dict[str, str] = {}
    for raw in output.splitlines():
        line = _PREFIX.sub("", raw.strip()).strip()
        found = _NOTICE.search(line) if 12 <= len(line) <= _LINE_CHARS else None
        # "testing: warning: no tests to run": the run's own filter matched nothing there
        if found is not None and not any(marker in line for marker in commands.NO_TESTS):
            shape = " ".join(_NUMBER.sub("#", line[found.start() :].lower()).split())
            out.setdefault(shape[:_SHAPE_CHARS], line)
    return out


def _program(command: str) -> str:
    """The program the shell ran first (`ssh host "..."` is `ssh`: its own warnings are
    ssh's, whatever it runs on the other side), without its path or a leading `VAR=x`."""
    for word in commands.shown(programs.without_comments(command)).split():
        if "=" in word and not word.startswith(("-", "'", '"')):
            continue
        return word.rsplit("/", 1)[-1].rsplit("\\", 1)[-1].strip("\"'")
    return ""


def _draft(
    hits: list[tuple[Obs, str, str]], programs: list[str], total: int, session: str
) -> Draft:
    # Shown as printed where the notice opens its line (not after a test report's `E +`).
    first, line, _ = next((h for h in hits if _NOTICE.match(h[1])), hits[0])
    last = hits[-1][0]
    who = " and ".join(f"`{p}`" for p in programs[:2])
    verb = "print" if len(programs) > 1 else "prints"
    every = "every run" if len(hits) == total else f"{len(hits)} of {total} runs"
    what = "notice" if _DEPRECATION.search(line) else "warning"
    title = text.title_of(f"{who} {verb} this on {every} here: {line}")
    return Draft(
        rule="notice",
        key=_NUMBER.sub("#", line.lower())[:_SHAPE_CHARS],
        kind="env",
        title=title,
        body=body_lines(
            f"{who} printed this {what} on {every} in this session, whatever the run did: it "
            "comes from the environment, not from the change at hand.",
            f"Seen with: `{commands.shown(first.input)}`",
        ),
        ts=last.ts or first.ts,
        session=session,
        tags=text.tags_from([line], extra=[*programs[:2], what]),
        importance=importance("env", False),
        evidence=evidence_of(session, (line, first.raw), (last.summary, last.raw)),
    )
