"""Lessons from events other than a failing shell command and its fix.

- A *tool's failure* (a file read over its size limit, a web fetch error, an MCP or skill
  command error) followed by the same tool succeeding: an ``env`` fact on how to call it
  ("Read fails with: File content exceeds maximum allowed tokens ...: it worked as `read x
  (offset 1, limit 200)`"). A failure the session never got past is a checkpoint candidate
  only.
- A *warning* in the output of a command that passed (a compiler's `warning:` line, a
  deprecation) that the session then acted on (the next edit touches the file the warning
  names): a ``pitfall``. Warnings the session ignored are not memory.
- A *slow run*: a command run in the background and polled (Claude Code's
  `run_in_background` with `TaskOutput`/`BashOutput` polls, or repeated `sleep` waits) is an
  ``env`` fact only when the assistant says why it takes long (a build, a compile, a
  dependency fetch); else the checkpoint offers it.
"""

from __future__ import annotations

import re

from memcli import signals
from memcli.checkpoint import events as checkpoint_events
from memcli.compact import commands, text, titles
from memcli.compact.drafts import Draft, body_lines, evidence, evidence_of, importance
from memcli.compact.observations import Obs

_FILE_TOOL_VERBS = ("edit ", "write ", "patch")  # an edit's failure is the edit's business
# A wrong path or name the next call corrected: a guess, not how to call the tool.
_MISSING = re.compile(r"does not exist|no such file|ENOENT", re.I)
_WARNING = re.compile(
    r"^.*(?:\bwarning\b(?:\[[\w-]+\])?:|\bWARN(?:ING)?\b|\w+Warning: |\bdeprecated\b).*$",
    re.I | re.M,
)
_PATH = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.[A-Za-z]\w{0,5})(?::\d+)?")
_SLEEP = re.compile(r"^\s*sleep\s+\d+(?:\.\d+)?[smh]?\s*(?:$|&&|;)")
_JOB = re.compile(r"\(id ([\w-]+)\)")
_WHY_SLOW = re.compile(
    r"\b(?:build|compil|download|fetch|install|dependenc|crate|package|index|link|image)\w*",
    re.I,
)
_SLOW = re.compile(r"\b(?:takes?|taking|took|slow|long|a while|minutes?|hours?)\b", re.I)
MIN_POLLS = 2


def tool_failure(o: Obs) -> bool:
    """A failure of a tool that is neither the shell nor an edit, nor a refusal."""
    return (
        o.kind == "error"
        and o.ok is False
        and bool(o.tool)
        and not o.summary.startswith(("$ ", *_FILE_TOOL_VERBS))
        and not signals.denied(o.excerpt or o.summary)
    )


def tool_failures(obs: list[Obs], session: str) -> list[Draft]:
    """A tool failing, then the same tool succeeding: how to call it."""
    out: list[Draft] = []
    for o in obs:
        if not tool_failure(o):
            continue
        line = checkpoint_events.tool_error_line(o.excerpt, o.summary)
        later = next((x for x in obs[o.index + 1 :] if x.tool == o.tool and x.ok is not None), None)
        if not line or later is None or later.ok is not True:
            continue
        if _MISSING.search(line) and later.input != o.input:
            continue  # it read another path: the first one was a guess
        if o.files and later.files and not set(o.files) & set(later.files):
            continue  # it went on to another file: nothing shows how the first call works
        call = later.summary.split(" -> ", 1)[0]
        title = titles.with_fix(f"{o.tool} fails with", line, f"it worked as `{call}`")
        out.append(
            Draft(
                rule="tool",
                key=f"{o.tool}\0{commands.signature(line)}",
                kind="env",
                title=title,
                body=body_lines(
                    f"Symptom: `{o.summary.split(' -> ', 1)[0]}` failed with: {line}",
                    f"Then `{call}` worked.",
                ),
                ts=later.ts or o.ts,
                session=session,
                tags=text.tags_from([o.tool, line], extra=["tool"]),
                confidence="verified",
                importance=importance("env", True),
                evidence=evidence_of(session, (line, o.raw), (later.summary, later.raw)),
                signature=commands.signature(line),
            )
        )
    return out


def warning_line(output: str) -> tuple[str, str]:
    """The first warning line of an output (a compiler's `warning:`, a deprecation) and the two
    lines after it (where rustc and others name the file), or ("", "")."""
    if "warn" not in output.lower() and "deprecat" not in output.lower():
        return "", ""
    found = _WARNING.search(output[:20_000])
    if found is None:
        return "", ""
    after = output[found.end() : found.end() + 400].split("\n")[1:3]
    return text.one_line(found.group(0).strip(), 200), "\n".join([found.group(0), *after])


def named_files(line: str) -> set[str]:
    """The file names a line mentions (`src/a.py:3`, `lib/cart.ex`)."""
    return {m.group(1).rsplit("/", 1)[-1] for m in _PATH.finditer(line) if "/" in m.group(1)
            or "." in m.group(1)[1:]}  # fmt: skip


def acted_on_warnings(obs: list[Obs], session: str) -> list[Draft]:
    """A passing command's warning the next edits acted on (they touch the file it names)."""
    out: list[Draft] = []
    for o in obs:
        if not o.passed:
            continue
        line, around = warning_line(o.excerpt)
        names = named_files(around) if line else set()
        if not names:
            continue
        key = commands.parse(o.input).key
        edits: list[Obs] = []
        for later in obs[o.index + 1 :]:
            if later.is_command and commands.parse(later.input).key == key:
                break
            if later.is_edit:
                edits.append(later)
        touched = [e for e in edits if any(f.rsplit("/", 1)[-1] in names for f in e.files)]
        if not touched:
            continue  # the session ignored it
        files = list(dict.fromkeys(f for e in touched for f in e.files))[:3]
        shown = commands.shown(o.input)
        title = titles.with_fix(f"`{shown}` warns:", line, titles.fixed_in(files, files))
        out.append(
            Draft(
                rule="warning",
                key=f"{key}\0{commands.signature(line)}",
                kind="pitfall",
                title=title,
                body=body_lines(f"Symptom: `{o.input}` passed but warned: {line}",
                                "Changed: " + ", ".join(files)),  # fmt: skip
                ts=touched[-1].ts or o.ts,
                session=session,
                tags=text.tags_from([o.input, line], extra=["warning"]),
                importance=importance("pitfall", False),
                anchors=[{"path": f} for f in files if not f.startswith(("/", ".."))],
                evidence=[e for e in (evidence(line, o.raw, session),
                                      evidence(touched[0].summary, touched[0].raw, session)) if e],
                signature=commands.signature(line),
            )
        )  # fmt: skip
    return out


def background_start(o: Obs) -> bool:
    """A command started in the background: Claude Code's `run_in_background`, or `&`."""
    if not o.summary.startswith("$ ") or not o.input:
        return False
    line = o.input.rstrip()
    return o.summary.endswith("-> background") or (line.endswith("&") and not line.endswith("&&"))


def waits(obs: list[Obs], start: Obs) -> list[Obs]:
    """The polls of a background job and the `sleep` waits after it, up to the next start."""
    job = _JOB.search(start.excerpt)
    out: list[Obs] = []
    for o in obs[start.index + 1 :]:
        if background_start(o):
            break
        polled = o.tool.lower() in signals.POLL_TOOLS and (job is None or o.input == job.group(1))
        if polled or (o.summary.startswith("$ ") and _SLEEP.match(o.input)):
            out.append(o)
    return out


def slow_runs(obs: list[Obs], said: list[Obs], session: str) -> list[Draft]:
    """A background job waited for at least ``MIN_POLLS`` times, when the assistant said why
    it takes long (a build, a compile, a dependency fetch)."""
    out: list[Draft] = []
    for start in obs:
        if not background_start(start):
            continue
        polled = waits(obs, start)
        if len(polled) < MIN_POLLS:
            continue
        cmd = commands.parse(start.input)
        reason = _why_slow(said, start, cmd)
        if not reason:
            continue
        shown = commands.shown(start.input)
        title = text.title_of(f"`{shown}` takes long here: {len(polled)} polls in the background")
        out.append(
            Draft(
                rule="slow",
                key=cmd.key or start.input,
                kind="env",
                title=title,
                body=body_lines(f"Why: {reason}",
                                "Run it in the background and poll; do not wait on it in the "
                                "foreground."),  # fmt: skip
                ts=polled[-1].ts or start.ts,
                session=session,
                tags=text.tags_from([start.input], extra=["slow", cmd.program]),
                importance=importance("env", False),
                evidence=[e for e in (evidence(start.summary, start.raw, session),
                                      evidence(reason, polled[-1].raw, session)) if e],
            )
        )  # fmt: skip
    return out


def _why_slow(said: list[Obs], start: Obs, cmd: commands.Command) -> str:
    """An assistant sentence after the start saying why it is slow, about this command."""
    names = {w.lower() for w in (cmd.program, *cmd.key.split()[1:]) if len(w) >= 3}
    for o in said:
        if o.index <= start.index:
            continue
        for sentence in text.sentences(o.excerpt):
            lowered = sentence.lower()
            if "?" in sentence or not (_WHY_SLOW.search(sentence) and _SLOW.search(sentence)):
                continue
            if not names or any(n in lowered for n in names) or "build" in lowered:
                return text.one_line(sentence, 240)
    return ""
