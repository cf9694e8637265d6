"""Lessons no failing exit code marks (see :mod:`memcli.reruns` for the shapes).

- A fix proven by output: a reproduction passes but prints the wrong result, a source file is
  edited (not the reproduction itself, not a file the session created), the same
  reproduction runs again and prints something else. A pitfall titled by the cause the
  assistant stated in the turn (mid-turn notes, else the closing message), else, when the
  first output itself says something is wrong ("expected", an error line, a warning), by the
  command and the two outputs; its evidence is the line before, the edit and the line after.
- A workaround: a command fails with a telling line and the next command, doing the same job
  another way, passes (nothing edited in between). "Use B, not A": a pitfall, an env item
  when A's failure is an environment one.

Junk guards: commands that only look around never count; output that differs only in
timestamps, timings, sizes, paths, addresses or ids is the same output; editing the
reproduction (or, for a test run, a test file) starts it afresh; a failing run of the
reproduction leaves it to the fail-then-pass episodes; narration, guesses and questions
never title anything; a typo of the assistant's (`SyntaxError`) is no workaround.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from memcli import phrasing, reruns, signals
from memcli.compact import commands, prose, tasks, text, titles
from memcli.compact.drafts import Draft, body_lines, evidence, evidence_of, importance
from memcli.compact.observations import Obs

if TYPE_CHECKING:
    from memcli.compact.rules import Analysis, Context

OUTPUT_RULE = "output-fix"
INSTEAD_RULE = "instead"
_SHOWN = 90  # characters of a command or an output line in a title
_WRONG = ("expected", "wrong", "incorrect", "mismatch", "should be", "warning", "error",
          "fail", "traceback", "exception")  # fmt: skip


@dataclass
class _Runs:
    """The passing runs of one reproduction since it was last changed, and the edits since."""

    command: str
    scripts: list[str]
    runs: list[Obs] = field(default_factory=list)
    edits: list[Obs] = field(default_factory=list)


def drafts(analysis: Analysis, ctx: Context) -> list[Draft]:
    created = _created(analysis.obs)
    found = [d for d in _output_fixes(analysis, ctx, created) if d is not None]
    return found + _workarounds(analysis, ctx)


def _created(obs: list[Obs]) -> set[str]:
    """Files whose first change in the session wrote them whole: born in this session."""
    seen: set[str] = set()
    born: set[str] = set()
    for o in obs:
        if not o.is_edit:
            continue
        for path in o.files:
            if path not in seen and (o.summary.startswith("write ") or "wrote " in o.excerpt):
                born.add(path)
            seen.add(path)
    return born


def _output_fixes(analysis: Analysis, ctx: Context, created: set[str]) -> list[Draft | None]:
    tracked: dict[str, _Runs] = {}
    out: list[Draft | None] = []
    for o in analysis.obs:
        if o.is_edit:
            for key, runs in list(tracked.items()):
                if _changes_reproduction(o, runs):
                    out.append(_finish(analysis, ctx, tracked.pop(key), created))
                else:
                    runs.edits.append(o)
        elif o.is_command and reruns.reproduction(o.input):
            key = " ".join(reruns.words_of(o.input))
            if o.failed:  # a failing run: the fail-then-pass episodes take it from here
                if key in tracked:
                    out.append(_finish(analysis, ctx, tracked.pop(key), created))
            elif o.passed:
                runs = tracked.setdefault(key, _Runs(o.input, reruns.scripts_of(o.input)))
                runs.runs.append(o)
    out.extend(_finish(analysis, ctx, runs, created) for runs in tracked.values())
    return out


def _changes_reproduction(edit: Obs, runs: _Runs) -> bool:
    test_run = commands.parse(runs.command).program in commands.CHECKS
    return any(
        any(reruns.same_file(path, script) for script in runs.scripts)
        or (test_run and reruns.test_or_reproduction(path))
        for path in edit.files
    )


def _finish(analysis: Analysis, ctx: Context, runs: _Runs, created: set[str]) -> Draft | None:
    if len(runs.runs) < 2:
        return None
    first, last = runs.runs[0], runs.runs[-1]
    edits = [e for e in runs.edits if first.index < e.index < last.index]
    fixes = [
        e
        for e in edits
        if any(f not in created and not reruns.test_or_reproduction(f) for f in e.files)
    ]
    if not fixes:
        return None
    changed = reruns.differing(first.excerpt, last.excerpt)
    if changed is None:
        return None
    before, after = changed
    files = list(dict.fromkeys(f for e in fixes for f in e.files if f not in created))
    cause, said = _cause(analysis, ctx, first, last, files, changed)
    if not cause and not _looks_wrong(first.excerpt):
        return None  # a changed output nobody called wrong: maybe a feature, not a fix
    shown = text.one_line(commands.shown(runs.command), _SHOWN)
    fixed = titles.fixed_in([f for f in files if tasks.relative(f)], files)
    title = text.title_of(cause) if cause else text.title_of(
        f"`{shown}` printed {_quoted(before)} until {fixed.replace('fixed in', 'a fix in')}; "
        f"now {_quoted(after)}"
    )  # fmt: skip
    hints = [f"{e.files[0]} ({ctx.edit_hints[e.id]})" for e in fixes if e.id in ctx.edit_hints]
    body = body_lines(
        f"Cause: {cause}" if cause and text.title_of(cause) != title else "",
        "Changed: " + "; ".join(hints or files[:5]),
        f"Before: `{shown}` printed: {before}",
        f"After: {after}",
    )
    proof = [evidence(f"before: {before}", first.raw, ctx.session)]
    proof += [evidence(e.summary, e.raw, ctx.session) for e in fixes[:2]]
    proof.append(evidence(f"after: {after}", last.raw, ctx.session))
    if said is not None:
        proof.append(evidence(cause, said.raw, ctx.session))
    return Draft(
        rule=OUTPUT_RULE,
        key="\0".join(["output", " ".join(reruns.words_of(runs.command)), files[0]]),
        kind="pitfall",
        title=title,
        body=body,
        ts=last.ts or first.ts,
        session=ctx.session,
        tags=text.tags_from(
            [runs.command, before, after, title], extra=[commands.parse(runs.command).program]
        ),  # fmt: skip
        importance=importance("pitfall", False),
        anchors=[{"path": f} for f in files if tasks.relative(f)][:5],
        evidence=[e for e in proof if e],
    )


def _looks_wrong(output: str) -> bool:
    """Whether an output says something is wrong (an error signature, "expected", "wrong",
    a warning): then a changed output is a fix even when nobody stated its cause."""
    lowered = output.lower()
    return bool(signals.failure(output)[1]) or any(word in lowered for word in _WRONG)


def _quoted(line: str) -> str:
    return f"`{text.one_line(line, _SHOWN).replace('`', '')}`"


def _cause(
    analysis: Analysis, ctx: Context, first: Obs, last: Obs, files: list[str],
    changed: tuple[str, str],
) -> tuple[str, Obs | None]:  # fmt: skip
    """The cause the assistant stated between the first run and the end of the last run's
    turn (a turn's notes reach the buffer at its end): a sentence naming a cause, about the
    edited files or the output first. Narration, guesses, checklists and questions never."""
    end = next((c.index for c in analysis.conclusions if c.index > last.index), len(analysis.obs))
    sources = [n for n in analysis.notes if first.index < n.index <= end and not n.carried]
    sources += [c for c in analysis.conclusions if c.index == end]
    marks = {m for path in files for m in _marks_of(path)}
    marks |= {w.lower() for line in changed for w in text.values(line) if len(w) >= 3}
    found: list[tuple[bool, str, Obs, int]] = []
    for source in sources:
        for number, sentence in enumerate(text.sentences(source.excerpt)):
            if (
                (source.id, number) in ctx.used
                or "?" in sentence
                or not phrasing.root_cause(sentence)
            ):
                continue
            if phrasing.narration(sentence) or text.status_line(sentence) or prose.guess(sentence):
                continue
            if not 5 <= len(sentence.split()) <= 60:
                continue
            about = any(mark in sentence.lower() for mark in marks)
            found.append((about, sentence, source, number))
    if not found:
        return "", None
    about, sentence, source, number = next((f for f in found if f[0]), found[0])
    ctx.used.add((source.id, number))
    return sentence, source


def _marks_of(path: str) -> list[str]:
    name = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    stem = name.rsplit(".", 1)[0]
    return [m for m in (name, stem) if len(m) >= 4]


def _workarounds(analysis: Analysis, ctx: Context) -> list[Draft]:
    out: dict[str, Draft] = {}
    obs = analysis.obs
    for o in obs:
        if not o.failed or reruns.looking(o.input) or commands.parse(o.input).looking:
            continue
        line = commands.decisive_line(o.excerpt, o.summary)
        if not line or any(marker in line for marker in commands.SELF_INFLICTED):
            continue
        if any(marker in o.excerpt for marker in commands.NO_TESTS):
            continue
        if signals.failure(o.excerpt)[0] == "shell":
            continue  # the shell failed before the command ran: no other command fixed it
        instead = _next_command(obs, o)
        if instead is None or not instead.passed or not reruns.same_job(o.input, instead.input):
            continue
        words = reruns.words_of(o.input)
        if any(x.passed and reruns.words_of(x.input) == words for x in obs[instead.index + 1 :]
               if x.is_command):  # fmt: skip
            continue  # the failing command itself passed later: a fix, not a workaround
        draft = _workaround(o, instead, line, ctx.session)
        out.setdefault(draft.key, draft)
    return list(out.values())


def _next_command(obs: list[Obs], failed: Obs) -> Obs | None:
    """The next command after ``failed`` that does more than look around, unless a file was
    edited first (then it is a fix, not another way)."""
    for later in obs[failed.index + 1 :]:
        if later.is_edit:
            return None
        if later.is_command and not (
            reruns.looking(later.input) or commands.parse(later.input).looking
        ):
            return later
    return None


def _workaround(failed: Obs, instead: Obs, line: str, session: str) -> Draft:
    kind = "env" if signals.failure(failed.excerpt)[0] in signals.ENVIRONMENT else "pitfall"
    bad = text.one_line(commands.shown(failed.input), _SHOWN)
    good = text.one_line(commands.shown(instead.input), _SHOWN)
    title = text.title_of(f"Use `{good}`, not `{bad}`: it fails with {line.rstrip(':')}")
    sig = commands.signature(line)
    return Draft(
        rule=INSTEAD_RULE,
        key="\0".join(
            [
                commands.parse(failed.input).key,
                "instead",
                " ".join(reruns.words_of(instead.input))[:80],
                sig,
            ]
        ),  # fmt: skip
        kind=kind,
        title=title,
        body=body_lines(
            f"Symptom: `{failed.input}` failed with: {line}",
            f"Workaround: `{instead.input}` passed instead{_detail(instead)}.",
        ),
        ts=instead.ts or failed.ts,
        session=session,
        tags=text.tags_from(
            [failed.input, instead.input, line], extra=[commands.parse(instead.input).program]
        ),  # fmt: skip
        confidence="verified",
        importance=importance(kind, True),
        evidence=evidence_of(session, (line, failed.raw), (instead.summary, instead.raw)),
        signature=sig,
    )


def _detail(o: Obs) -> str:
    summary = o.summary
    return f" ({summary.rsplit('(', 1)[-1]}" if summary.endswith(")") and "(" in summary else ""
