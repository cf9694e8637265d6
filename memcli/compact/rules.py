"""The rule-based compactor: a session's observations become drafts, with no model.

Episodes first: a failing command, then edits, then the same (or an equivalent, wider)
command passing makes a *verified pitfall*: what failed, the decisive error line, what fixed
it, which files (anchors). The same with no edits but a setup command in between (an
install, a service started) makes a verified *env* item. The assistant's closing message,
when it speaks about the episode, supplies the conclusion (root cause first); its other
sentences feed the prose rules in :mod:`memcli.compact.prose`.

Junk guards: a failure never resolved is not memory (at most it marks the session
unfinished); a pass with nothing in between is flakiness, not a fix; the assistant's own
typos (a SyntaxError after its own edit), a failure about a file it had just created, "no
tests ran", and lint or type errors fixed without an explanation are dropped; commands that
only look around never count as fixes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memcli import signals
from memcli.compact import (
    chains,
    commands,
    commits,
    confirmations,
    events,
    explain,
    facts,
    manners,
    notices,
    prose,
    rejections,
    reported,
    reruns,
    tasks,
    text,
    titles,
    workflow,
)
from memcli.compact.commands import Command
from memcli.compact.drafts import Draft, body_lines, evidence, importance
from memcli.compact.observations import Obs


@dataclass
class Episode:
    command: Command
    failures: list[Obs]
    passed: Obs | None
    edits: list[Obs]
    fixes: list[Obs]
    line: str
    # A failure of one command with another signature after edits: the run got past this
    # episode's failure (see :mod:`memcli.compact.chains`); ``verified`` when a pass closed
    # the chain.
    moved: Obs | None = None
    verified: bool = False

    @property
    def first(self) -> Obs:
        return self.failures[0]

    @property
    def closed(self) -> Obs | None:
        """The run that ended the episode: its passing run, else the next failure."""
        return self.passed or self.moved


@dataclass
class Analysis:
    obs: list[Obs]
    episodes: list[Episode] = field(default_factory=list)
    unresolved: list[Episode] = field(default_factory=list)
    prompts: list[Obs] = field(default_factory=list)
    conclusions: list[Obs] = field(default_factory=list)
    notes: list[Obs] = field(default_factory=list)  # mid-turn assistant texts: never a status
    refused: list[Obs] = field(default_factory=list)
    interrupted: list[Obs] = field(default_factory=list)
    intent: str = ""
    ended: str = ""


@dataclass
class Context:
    """What the rules need beyond the observations."""

    session: str
    instructions: text.InstructionFiles
    edit_hints: dict[str, str] = field(default_factory=dict)  # edit obs id -> "`a` -> `b`"
    commits: dict[str, str] = field(default_factory=dict)  # commit obs id -> its whole command
    used: set[tuple[str, int]] = field(default_factory=set)  # (conclusion id, sentence no.)


def analyse(obs: list[Obs]) -> Analysis:
    result = Analysis(obs)
    parsed = {o.index: commands.parse(o.input) for o in obs if o.is_command}
    grouped: set[int] = set()
    for o in obs:
        if o.kind == "prompt" and o.excerpt.strip():
            result.prompts.append(o)
        elif (o.kind == "conclusion" and o.excerpt.strip()) or facts.is_subagent_report(o):
            result.conclusions.append(o)  # a sub-agent's report is read like a closing message
        elif o.kind == "note" and o.excerpt.strip():
            result.notes.append(o)
        elif o.is_end:
            result.ended = o.ts
        if facts.refused(o):
            result.refused.append(o)
            if not (o.is_command and signals.hook_refusal(o.excerpt)):
                continue  # a hook's refusal, then a remedy and a passing rerun, is an episode
        if facts.interrupted(o):
            result.interrupted.append(o)
        if not o.failed or o.index in grouped or not parsed[o.index].key:
            continue
        if parsed[o.index].looking and signals.failure(o.excerpt)[0] not in signals.EVEN_A_LOOK:
            continue  # `cat missing.txt` failing is not a lesson; `rg: command not found` is
        for episode in _episodes(obs, parsed, o, grouped):
            (result.episodes if episode.closed else result.unresolved).append(episode)
    result.intent = next(
        (
            text.one_line(p.excerpt, 200)
            for p in result.prompts
            if not text.looks_like_instructions(p.excerpt) and not p.excerpt.startswith("/")
        ),
        "",
    )
    return result


def _episodes(
    obs: list[Obs], parsed: dict[int, Command], fail: Obs, grouped: set[int]
) -> list[Episode]:
    """The episodes of one failing command: one per error signature it showed in turn."""
    command = parsed[fail.index]
    failures, passed = [fail], None
    for later in obs[fail.index + 1 :]:
        other = parsed.get(later.index)
        if other is None or not commands.equivalent(other, command):
            continue
        if later.failed:
            failures.append(later)
            grouped.add(later.index)
        elif later.passed and commands.covers(other, command):
            passed = later
            break
    parts = chains.groups(obs, failures)
    out = []
    for number, part in enumerate(parts[:-1]):
        moved = parts[number + 1][0]
        out.append(_episode(obs, parsed, command, part, None, moved))
        out[-1].verified = passed is not None
    # Unresolved, the last episode keeps every failure: how often the check failed counts.
    out.append(_episode(obs, parsed, command, parts[-1] if passed else failures, passed, None))
    out[-1].verified = passed is not None
    return out


def _episode(
    obs: list[Obs],
    parsed: dict[int, Command],
    command: Command,
    failures: list[Obs],
    passed: Obs | None,
    moved: Obs | None,
) -> Episode:
    fail = failures[0]
    end = passed.index if passed else moved.index if moved else len(obs)
    between = obs[fail.index + 1 : end]
    edits = [o for o in between if o.is_edit]
    fixes = [
        o
        for o in between
        if o.passed
        and not parsed[o.index].looking
        and not commands.equivalent(parsed[o.index], command)
    ]
    line = signals.hook_refusal(fail.excerpt) or commands.decisive_line(fail.excerpt, fail.summary)
    return Episode(command, failures, passed, edits, fixes, line, moved)


def compact(analysis: Analysis, ctx: Context) -> list[Draft]:
    drafts: list[Draft] = []
    for episode in analysis.episodes:
        draft = _from_episode(analysis, episode, ctx)
        if draft is not None:
            drafts.append(draft)
    drafts.extend(reruns.drafts(analysis, ctx))  # fixes proven by output, workarounds
    # A failure the user pasted: its turn's explanation is read before the prose rules.
    known = {d.signature for d in drafts if d.signature}
    known |= {signature_of(f) for e in analysis.unresolved for f in e.failures} - {""}
    task = tasks.unfinished(analysis, ctx.session) or tasks.stopped(analysis, ctx.session)
    drafts.extend(reported.drafts(analysis, ctx, known, task is not None))
    drafts.extend(prose.conventions(analysis.prompts, ctx.session, ctx.instructions))
    drafts.extend(prose.redirected(analysis.prompts, analysis.obs, ctx.session, ctx.instructions))
    drafts.extend(manners.drafts(analysis.prompts, ctx.session, ctx.instructions))
    ran = [o.input for o in analysis.obs if o.is_command]
    rejected = rejections.rejected(analysis.conclusions, analysis.prompts)
    concluded = [c for c in analysis.conclusions if c.id not in rejected]
    drafts.extend(prose.decisions(concluded, ctx.session, ctx.used, ran))
    rejected |= rejections.rejected_notes(analysis.notes, analysis.conclusions, rejected)
    # An earlier batch read the carried notes; a rejected turn's notes went with its message.
    notes = [n for n in analysis.notes if not n.carried and n.id not in rejected]
    drafts.extend(prose.decisions(notes, ctx.session, ctx.used, ran, mid_turn=True))
    drafts.extend(commits.drafts(analysis.obs, ctx.commits, ctx.session))
    for episode in analysis.unresolved:
        between = [o for o in episode.fixes if facts.is_setup(o.input)]
        progress = facts.setup_progress(episode.command, episode.failures, between, ctx.session)
        if progress is not None:
            drafts.append(progress)
    drafts.extend(facts.missing_tools(analysis.obs, ctx.session))
    drafts.extend(events.tool_failures(analysis.obs, ctx.session))
    drafts.extend(events.acted_on_warnings(analysis.obs, ctx.session))
    drafts.extend(notices.drafts(analysis.obs, ctx.session))  # printed on run after run
    drafts.extend(confirmations.drafts(analysis.obs, ctx.session))  # acts on its second run
    said = [o for o in [*analysis.conclusions, *analysis.notes] if not o.carried]
    drafts.extend(events.slow_runs(analysis.obs, said, ctx.session))
    drafts.extend(workflow.drafts(analysis.obs, ctx.session))  # checks run again, slow runs
    # One item per lesson: a failure an episode explains is not an environment fact too.
    solved = {d.signature for d in drafts if d.signature}
    last_failures = [
        e.failures[-1]
        for e in analysis.unresolved
        if not solved & {signature_of(f) for f in e.failures}
    ]
    explained = frozenset(f.id for e in analysis.episodes for f in e.failures)
    drafts.extend(facts.drafts(analysis.obs, last_failures, ctx.session, explained))
    if task is not None:
        drafts.append(task)
    said_open = tasks.left_open(analysis, ctx.session)
    if said_open is not None:
        drafts.append(said_open)
    return drafts


def _junk(analysis: Analysis, episode: Episode, explained: bool) -> bool:
    line, first = episode.line, episode.first
    if any(marker in first.excerpt for marker in commands.NO_TESTS):
        return True
    if signals.failure(first.excerpt)[0] in signals.ENVIRONMENT:
        return False  # a missing package or tool is a lesson whatever the fix touched
    edited_before = any(o.is_edit for o in analysis.obs[: first.index])
    if edited_before and any(marker in line for marker in commands.SELF_INFLICTED):
        return True
    writes = [o for o in analysis.obs if o.is_edit and o.summary.startswith("write ")]
    created = {f for o in writes for f in o.files}
    if any(explain.stem(path) and explain.stem(path) in line for path in created):
        return True  # an error about a file the assistant had just created
    fixed = {f for o in episode.edits for f in o.files}
    if fixed and fixed <= created:
        return True  # the fix only touched code born in this session: not a lasting lesson
    if episode.command.program in commands.LINTERS and not explained:
        return True
    return not line and not explained


def signature_of(o: Obs) -> str:
    """The failure signature of an observation (what decides that two failures are one)."""
    return commands.signature(commands.decisive_line(o.excerpt, o.summary))


def _from_episode(analysis: Analysis, episode: Episode, ctx: Context) -> Draft | None:
    closed = episode.closed
    assert closed is not None
    if signals.failure(episode.first.excerpt)[0] == "shell":
        # The shell failed before the command ran: whatever came next did not fix it.
        return facts.shell_failure(episode.line, episode.first, episode.passed, ctx.session)
    if episode.passed is not None and not episode.edits and not episode.fixes:
        return _workaround(episode, ctx)  # else passed with nothing done between: flaky
    if episode.passed is not None and not episode.edits:  # options the failing run had not
        workaround = _workaround(episode, ctx)
        if workaround is not None:
            return workaround
    conclusion, cause, fixes = explain.explanation(analysis, episode, ctx)
    refused = signals.hook_refusal(episode.first.excerpt)
    if not refused and _junk(analysis, episode, bool(cause)):
        for key in conclusion:
            ctx.used.discard(key)
        return None
    cmd, line = episode.command, episode.line
    files = list(dict.fromkeys(f for o in episode.edits for f in o.files if tasks.relative(f)))[:5]
    kind = "pitfall" if episode.edits else "env"
    title = titles.of_episode(
        cause, cmd.text, line, files, [f for o in episode.edits for f in o.files],
        episode.fixes[-1].input if episode.fixes else "", refused,
    )  # fmt: skip
    changed = [f"{f} ({ctx.edit_hints[o.id]})" for o in episode.edits for f in o.files[:1]
               if o.id in ctx.edit_hints]  # fmt: skip
    shown = changed or files or list(dict.fromkeys(f for o in episode.edits for f in o.files))[:3]
    changed_line = "Changed: " + "; ".join(shown) if shown else ""  # paths outside: as they are
    setup_line = ""
    if episode.fixes:
        setup_line = "Setup: " + "; ".join(f"`{o.input}`" for o in episode.fixes[-2:])
    also = {commands.decisive_line(f.excerpt, f.summary) for f in episode.failures[1:]}
    also -= {line, ""}
    body = body_lines(
        f"Cause: {cause}" if cause and text.title_of(cause) != title else "",
        "Fix: " + " ".join(fixes) if fixes else "",
        changed_line,
        setup_line,
        f"Symptom: `{cmd.text}` failed with: {line}" if line else f"Symptom: `{cmd.text}` failed",
        "Then also: " + "; ".join(sorted(also)) if also else "",
        _closing_line(episode, closed),
    )
    session = ctx.session
    proof = [evidence(line or episode.first.summary, episode.first.raw, session)]
    proof += [
        evidence(f"{o.summary}: {ctx.edit_hints[o.id]}" if o.id in ctx.edit_hints else o.summary,
                 o.raw, session)
        for o in (episode.edits or episode.fixes)[:3]
    ]  # fmt: skip
    proof.append(evidence(closed.summary, closed.raw, session))
    if conclusion:
        said = cause or " ".join(fixes)
        proof.append(
            evidence(said, explain.ref_of(analysis, conclusion, cause or fixes[0]), session)
        )
    tags = text.tags_from(
        [cmd.text, line, title],
        extra=[
            cmd.program,
            _tag_of_error(line),
            "port" if re.search(r"\bport\b", line, re.I) else "",
        ],
    )
    return Draft(
        rule=kind,
        key="\0".join([cmd.key, *sorted(cmd.targets), commands.signature(line)]),
        kind=kind,
        title=title,
        body=body,
        ts=closed.ts or episode.first.ts,
        session=session,
        tags=tags,
        confidence="verified" if episode.verified else "assumed",
        importance=importance(kind, episode.verified, len(episode.failures) - 1),
        anchors=[{"path": f} for f in files],
        evidence=[e for e in proof if e],
        signature=commands.signature(line) if line else "",
    )


def _closing_line(episode: Episode, closed: Obs) -> str:
    if episode.passed is not None:
        return f"Verified: `{closed.input}` passed afterwards{_detail(closed.summary)}."
    then = commands.decisive_line(closed.excerpt, closed.summary)
    ended = " (it passed in the end)" if episode.verified else ""
    return f"Then: `{closed.input}` got past it and failed with: {then}{ended}."


def _workaround(episode: Episode, ctx: Context) -> Draft | None:
    """The same command passing with other options: an env fact, else flakiness."""
    assert episode.passed is not None
    return facts.workaround(
        episode.command, episode.line, episode.first, episode.passed, len(episode.failures),
        ctx.session,
    )  # fmt: skip


def _detail(summary: str) -> str:
    found = re.search(r"\(([^()]*)\)\s*$", summary)
    return f" ({found.group(1)})" if found else ""


def _tag_of_error(line: str) -> str:
    name = commands.error_class(line)
    return name.split(".", 1)[0] if "." in name else name
