"""Candidate lessons: where in a session the rules see something worth remembering.

Read incrementally: :func:`scan` takes the observations captured since the last checkpoint
and a running state (failing commands not yet passed, files changed since), and adds
candidates to ``state["candidates"]``. A candidate is a dict::

    {"id": "c1a2b3c4d", "kind": "fix", "suggest": "pitfall", "lines": ["..."],
     "obs": ["o..."], "refs": ["raw/<session>.jsonl#o..."], "files": [...],
     "verified": true, "session": "...", "ts": "..."}

Kinds: ``fix`` (a failing command passing again after changes), ``env`` (a missing tool or
package, a wrong version, a busy port, a permission, an interactive prompt, shell state),
``correction`` and ``convention`` (the user's), ``decision`` and ``cause`` (sentences of the
assistant's messages), ``unresolved`` (a check still failing when the turn ends), ``denied``
(a tool call the user refused), ``interrupted`` (a command stopped before it ended) and
``subagent`` (a sub-agent's report naming a cause or a decision), ``failed`` (a command,
not a check, still failing with a telling line when the turn ends, or a tool's failure with
its error line), ``warning`` (a passing command's warning the next edit acted on),
``workflow`` (a command the session ran again and again, or after its edits, to test or build
the project), ``unverified`` (code changed, then only tried with scripts, see
:mod:`memcli.checkpoint.unverified`) and ``branch`` (commits left ahead of the remote, see
:mod:`memcli.checkpoint.told` for that and what else output tells in passing); see
:mod:`memcli.checkpoint.events` for tools, warnings and background jobs and
:mod:`memcli.checkpoint.workflow` for workflows and slow runs.

Ids come from the session, the kind and what the candidate is about, so the same lesson seen
twice (in the buffer and in the Stop payload) is one candidate. Hook path: no :mod:`re`, no
:mod:`json`, no dataclasses.
"""

from memcli.checkpoint import (
    commands,
    events,
    prompted,
    reruns,
    sayings,
    told,
    unverified,
    workflow,
)
from memcli.checkpoint.commands import added_flags, added_steps, command_key, looking, looks_around
from memcli.checkpoint.entries import PRIORITY, SUGGEST, candidate_id, crc32, strings_of, text_of
from memcli.checkpoint.sayings import message, sentences

__all__ = ["PRIORITY", "SUGGEST", "added_flags", "added_steps", "candidate_id", "command_key",
           "crc32", "looking", "message", "scan", "sentences", "turn_end"]  # fmt: skip


def scan(records: list[dict[str, object]], state: dict[str, object]) -> None:
    """Add the candidates ``records`` (newly captured observations, in order) show."""
    work = state.get("turn_work")
    state["turn_work"] = (work if isinstance(work, int) else 0) + len(records)
    for record in records:
        if not isinstance(record, dict) or "note" in record or not record.get("id"):
            continue
        # text_of() inline for the fields every observation is read for: a first stop reads
        # hundreds, and each call is a frame of its own
        kind, summary, line = record.get("kind"), record.get("summary"), record.get("input")
        kind = kind if isinstance(kind, str) else ""
        summary = summary if isinstance(summary, str) else ""
        line = line if isinstance(line, str) else ""
        if "session" not in state:
            state["session"] = text_of(record, "session")
        if not state.get("agent") and text_of(record, "agent"):
            state["agent"] = text_of(record, "agent")
        if summary.startswith("$ ") and line:
            _command(record, state, summary, line)
        elif kind == "edit" or (kind == "error" and record.get("files")):
            commands.edit(record, state)
            if record.get("ok") is False:
                events.tool_failed(record, state)  # a read over its size limit
            else:
                events.edited(strings_of(record.get("files")), record, state)
                workflow.edited(state)
                unverified.edited(strings_of(record.get("files")), record, state)
        elif kind == "prompt" and (record.get("event") != "Stop" or "transcript" not in state):
            # (a Stop's prompt was typed into the turn: read from the transcript, as notes are)
            prompted.prompt(record, state)
        elif kind == "conclusion":
            message(text_of(record, "excerpt"), state, record)
        elif kind == "note" and "transcript" not in state:  # else read from the transcript
            sayings.note(text_of(record, "excerpt"), state, record)
        elif kind == "other" and text_of(record, "tool").lower() in sayings.SUBAGENT_TOOLS:
            sayings.subagent(record, state)
        elif kind == "other" and events.poll(record, state):
            continue
        elif record.get("ok") is False and text_of(record, "tool"):
            commands.refused_tool(record, state)
            events.tool_failed(record, state)


def turn_end(state: dict[str, object]) -> None:
    """At the end of a turn: checks still failing, pasted failures fixed, workflows."""
    commands.turn_end(state)
    workflow.turn_end(state)
    unverified.turn_end(state)
    told.turn_end(state)


def _read_whole(line: str, record: dict[str, object], state: dict[str, object]) -> bool:
    """Whether this `git commit` is read whole from the session's Claude Code transcript
    (:func:`memcli.observed.transcript_tail.turn_said`), once a read of it has succeeded:
    capture keeps a command as one line, which runs a message's subject into its body (a
    heredoc's, or a ``-m`` on several lines), so the same commit read from both would be
    two candidates."""
    mark = state.get("transcript")
    return (
        isinstance(mark, dict)
        and "offset" in mark
        and "git commit" in line
        and text_of(record, "agent") == "claude-code"
    )


def _command(record: dict[str, object], state: dict[str, object], summary: str, line: str) -> None:
    if summary.endswith("-> background") or (line.rstrip().endswith("&") and "&&" not in line[-3:]):
        events.background(record, state)
        workflow.moved(record, state)
        return
    if events.sleep(line):
        events.waited(record, state)
    told.ran(record, state, line)
    changed = reruns.shell_edit(record, state)  # SWE-agent's `edit`, `sed -i`, ...
    if changed:
        commands.edit({**record, "files": changed}, state)
        events.edited(changed, record, state)
        workflow.edited(state)
        unverified.edited(changed, record, state)
        return
    if "commit" in line and not _read_whole(line, record, state):
        sayings.commit(line, state, record)  # what the commit message says changed, and why
    commands.command(record, state)
    workflow.ran(record, state)
    key, check = command_key(line)
    if key and not looks_around(key):  # a file viewed: no warning, no check
        unverified.ran(line, key, check, state, record.get("ok") is True)
        if record.get("ok") is True:
            events.warned(record, state, key)
