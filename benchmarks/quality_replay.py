"""Turn a recorded session into the Claude Code hook events that would have fired during it.

A Claude Code transcript (one JSON object a line) is walked in order: a prompt the user typed
gives `UserPromptSubmit`, every tool call whose result comes back gives `PostToolUse` (or
`PostToolUseFailure` when the result is an error, or a tool the user interrupted; sub-agent
calls included, as Claude Code fires hooks for them too; nothing for a call the user turned
down, which never ran), the end of every turn the model answered and the user did not
interrupt gives `Stop` with the last thing the assistant said (a turn ends at the next prompt,
slash command or task notification, or with the transcript), and `SessionStart` and
`SessionEnd` frame the session. Each event carries how many transcript lines exist when it
fires, so the replay can grow the transcript file as Claude Code does. An OpenHands
trajectory, a pi session or a SWE-agent trajectory is first rewritten as Claude-Code-shaped
transcript lines by the conversion `mem import` uses (`memcli/compact/other_agents.py`), then
walked the same way; a Codex rollout gives the Codex hook events of mem's own converter
(:func:`codex_steps`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memcli.compact.other_agents import from_openhands, from_pi, from_swe_agent

# Lines Claude Code writes as user lines but submits as no prompt. Not "<task-notification>":
# a background task's notification is a queued command that goes through the same input
# processing as a typed prompt, UserPromptSubmit hooks included (Claude Code 2.1.197's
# queue runner hands each queued command, whatever its mode, to the function that runs them),
# as `mem import` reads it too.
SYSTEM_PREFIXES = (
    "<local-command-",
    "<system-reminder>",
    "<command-",  # a slash command's wrapper: Claude Code submits no prompt for it
    "Caveat: The messages below",
    "Stop hook feedback:",
    "SubagentStop hook feedback:",
)
INTERRUPTED = "[Request interrupted by user"
# A call the user turned down never ran, and no hook fired for it.
REJECTED = (
    "The user doesn't want to proceed with this tool use",
    "The user doesn't want to take this action right now",
)


@dataclass(frozen=True)
class Step:
    """One hook event, fired once the first `lines` transcript lines exist."""

    lines: int
    payload: dict[str, Any]

    @property
    def event(self) -> str:
        return str(self.payload["hook_event_name"])


def session_agent(path: Path) -> str:
    """Whose hooks replay this session file: `codex` for a rollout, else `claude-code`."""
    return "codex" if path.name == "rollout.jsonl" else "claude-code"


def load_session(path: Path) -> list[dict[str, Any]]:
    """The session's records: Claude Code transcript records (an OpenHands trajectory, a pi
    session or a SWE-agent trajectory is converted), or a Codex rollout's own lines."""
    if path.suffix == ".json":
        return from_openhands(json.loads(path.read_text(encoding="utf-8")))
    if path.suffix == ".traj":
        return from_swe_agent(json.loads(path.read_text(encoding="utf-8")))
    records = [
        json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()
    ]
    return from_pi(records) if path.name == "pi-session.jsonl" else records


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [_text(b.get("text", b.get("content"))) for b in content if isinstance(b, dict)]
        return "\n".join(p for p in parts if p)
    return ""


def _typed_prompt(record: dict[str, Any]) -> str | None:
    """What the user typed, if this user line is a prompt (not a tool result, not injected)."""
    if record.get("isMeta") or record.get("isSidechain") or "toolUseResult" in record:
        return None
    content = (record.get("message") or {}).get("content")
    if isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content
    ):
        return None
    said = _text(content).strip()
    if not said or said.startswith(SYSTEM_PREFIXES):
        return None
    return said


def hook_steps(
    records: list[dict[str, Any]], session_id: str, transcript: str, cwd: str
) -> list[Step]:
    """The hook events of one session, in the order Claude Code fires them."""
    base = {"session_id": session_id, "transcript_path": transcript, "cwd": cwd}
    steps = [Step(0, {**base, "hook_event_name": "SessionStart", "source": "startup"})]
    calls: dict[str, tuple[str, Any]] = {}
    # in_turn: a prompt opened a turn; answered: the model said or did something in it. A
    # turn the model answered ends with Stop whatever its last message holds (text, a tool's
    # aftermath, thinking alone); a local slash command's has no answer and no Stop.
    last_said, in_turn, answered = "", False, False

    def stop(lines: int) -> None:
        if not answered:
            return
        payload = {**base, "hook_event_name": "Stop", "stop_hook_active": False}
        steps.append(Step(lines, {**payload, "last_assistant_message": last_said}))

    for number, record in enumerate(records):
        content = (record.get("message") or {}).get("content")
        blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
        side = bool(record.get("isSidechain"))
        if record.get("type") == "assistant" and record.get("isApiErrorMessage"):
            if not side and in_turn:
                # The API refused the turn (a usage limit): Claude Code fires StopFailure.
                said = _text(content).strip()
                error = record.get("error") if isinstance(record.get("error"), str) else "unknown"
                steps.append(Step(number + 1, {**base, "hook_event_name": "StopFailure",
                                               "error": error, "error_details": said,
                                               "last_assistant_message": said}))  # fmt: skip
                last_said, in_turn, answered = "", False, False
            continue
        if record.get("type") == "assistant":
            answered = answered or not side
            for block in blocks:
                if block.get("type") == "tool_use":
                    calls[str(block.get("id"))] = (str(block.get("name")), block.get("input"))
                elif block.get("type") == "text" and not side:
                    last_said = str(block.get("text", ""))
            continue
        if record.get("type") != "user":
            continue
        # Tool results first: a tool the user interrupted still fires PostToolUseFailure
        # (with is_interrupt), and then the turn is over without a Stop.
        for block in blocks:
            if block.get("type") == "tool_result" and str(block.get("tool_use_id")) in calls:
                tool = _tool_payload(base, record, block, calls)
                if tool is not None:
                    steps.append(Step(number + 1, tool))
                    if tool.get("is_interrupt") and not side:
                        in_turn = answered = False
        said = _text(content).strip()
        if said.startswith(INTERRUPTED):
            in_turn = answered = False  # Claude Code runs no Stop for an interrupted turn
            continue
        prompt = _typed_prompt(record)
        new_turn = said.startswith(("<task-notification>", "<command-"))
        if prompt is not None or (new_turn and not side):
            stop(number)
            last_said, in_turn, answered = "", True, False
        if prompt is not None:
            payload = {**base, "hook_event_name": "UserPromptSubmit", "prompt": prompt}
            steps.append(Step(number + 1, {**payload, "permission_mode": "default"}))
    stop(len(records))
    steps.append(Step(len(records), {**base, "hook_event_name": "SessionEnd", "reason": "other"}))
    return steps


def _tool_payload(
    base: dict[str, Any], record: dict[str, Any], block: dict[str, Any], calls: dict[str, Any]
) -> dict[str, Any] | None:
    tool_id = str(block.get("tool_use_id"))
    name, tool_input = calls.pop(tool_id)
    payload = {**base, "tool_name": name, "tool_input": tool_input, "tool_use_id": tool_id}
    said = _text(block.get("content"))
    response = record.get("toolUseResult")
    if block.get("is_error"):
        if said.startswith(REJECTED):
            return None
        interrupted = said.startswith(INTERRUPTED) or (
            isinstance(response, dict) and response.get("interrupted") is True
        )
        failure = {"hook_event_name": "PostToolUseFailure", "error": said}
        return {**payload, **failure, "is_interrupt": interrupted}
    if not isinstance(response, dict):
        response = {"stdout": said} if name.lower() == "bash" else {"content": said}
    return {**payload, "hook_event_name": "PostToolUse", "tool_response": response}


def codex_session_id(records: list[dict[str, Any]]) -> str:
    for record in records:
        payload = record.get("payload")
        if record.get("type") == "session_meta" and isinstance(payload, dict):
            return str(payload.get("id") or "")
    return ""


def codex_steps(records: list[dict[str, Any]], transcript: str, cwd: str) -> list[Step]:
    """The Codex hook events of a rollout, from mem's own converter (the one
    `mem import --format codex` uses), each fired once its line exists."""
    from memcli.compact.codex_rollout import CodexRollout

    typed = any(
        r.get("type") == "event_msg" and (r.get("payload") or {}).get("type") == "user_message"
        for r in records
    )
    rollout = CodexRollout(transcript, typed=typed)
    events = [(n + 1, e) for n, record in enumerate(records) for e in rollout.feed(record, n)]
    events += [(len(records), e) for e in rollout.finish()]
    where = {"transcript_path": transcript, "cwd": cwd}
    start = {"session_id": rollout.session, **where, "hook_event_name": "SessionStart"}
    steps = [Step(0, {**start, "source": "startup"})]
    steps += [Step(lines, {**event.payload, **where}) for lines, event in events]
    return steps
