"""Turn a recorded session into the Claude Code hook events that would have fired during it.

A Claude Code transcript (one JSON object a line) is walked in order: a prompt the user typed
gives `UserPromptSubmit`, every tool call whose result comes back gives `PostToolUse` (or
`PostToolUseFailure` when the result is an error; sub-agent calls included, as Claude Code fires
hooks for them too; nothing for a call the user turned down, which never ran), the end of every
turn that was not interrupted gives `Stop` with the last thing the assistant said (a turn ends
at the next prompt, slash command or task notification), and `SessionStart` and `SessionEnd`
frame the session. Each event carries how many transcript lines exist when it fires, so the
replay can grow the transcript file as Claude Code does. An OpenHands trajectory is first
rewritten as Claude-Code-shaped transcript lines (Bash, Write, Edit, Read), then walked the
same way.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SYSTEM_PREFIXES = (
    "<local-command-",
    "<task-notification>",
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


def load_session(path: Path) -> list[dict[str, Any]]:
    """The session as Claude Code transcript records (an OpenHands trajectory is converted)."""
    if path.suffix == ".json":
        return from_openhands(json.loads(path.read_text(encoding="utf-8")))
    records = []
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line.strip():
            records.append(json.loads(line))
    return records


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
    last_said, in_turn = "", False

    def stop(lines: int) -> None:
        payload = {**base, "hook_event_name": "Stop", "stop_hook_active": False}
        steps.append(Step(lines, {**payload, "last_assistant_message": last_said}))

    for number, record in enumerate(records):
        content = (record.get("message") or {}).get("content")
        blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
        if record.get("type") == "assistant":
            for block in blocks:
                if block.get("type") == "tool_use":
                    calls[str(block.get("id"))] = (str(block.get("name")), block.get("input"))
                elif block.get("type") == "text" and not record.get("isSidechain"):
                    last_said, in_turn = str(block.get("text", "")), True
            continue
        if record.get("type") != "user":
            continue
        said = _text(content).strip()
        if said.startswith(INTERRUPTED):
            in_turn = False  # Claude Code runs no Stop hook for an interrupted turn
            continue
        prompt = _typed_prompt(record)
        new_turn = said.startswith(("<task-notification>", "<command-"))
        if prompt is not None or (new_turn and not record.get("isSidechain")):
            if in_turn:
                stop(number)
            last_said, in_turn = "", True
        if prompt is not None:
            payload = {**base, "hook_event_name": "UserPromptSubmit", "prompt": prompt}
            steps.append(Step(number + 1, {**payload, "permission_mode": "default"}))
        for block in blocks:
            if block.get("type") == "tool_result" and str(block.get("tool_use_id")) in calls:
                tool = _tool_payload(base, record, block, calls)
                if tool is not None:
                    steps.append(Step(number + 1, tool))
    if in_turn:
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


# --- OpenHands ----------------------------------------------------------------------------


def from_openhands(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """An OpenHands event list as Claude Code transcript records."""
    records: list[dict[str, Any]] = []
    for event in events:
        source, action = event.get("source"), event.get("action")
        if source == "user" and action == "message":
            records.append(_line("user", str(event.get("message", ""))))
        elif source == "agent" and action in ("message", "finish"):
            args = event.get("args") or {}
            said = str(args.get("final_thought") or args.get("content") or event.get("message"))
            records.append(_line("assistant", [{"type": "text", "text": said}]))
        elif source == "agent" and action in ("run", "edit", "read"):
            records.append(_line("assistant", list(_openhands_call(event))))
        elif event.get("observation") in ("run", "edit", "read") and "cause" in event:
            records.append(_openhands_result(event))
    return records


def _line(role: str, content: Any, **extra: Any) -> dict[str, Any]:
    return {
        "type": role,
        "isSidechain": False,
        "message": {"role": role, "content": content},
        **extra,
    }


def _openhands_call(event: dict[str, Any]) -> Iterator[dict[str, Any]]:
    args = event.get("args") or {}
    if args.get("thought"):
        yield {"type": "text", "text": str(args["thought"])}
    action, path = event.get("action"), str(args.get("path", ""))
    if action == "run":
        name, tool_input = "Bash", {"command": args.get("command", "")}
    elif action == "read":
        name, tool_input = "Read", {"file_path": path}
    elif args.get("command") == "create":
        name, tool_input = "Write", {"file_path": path, "content": args.get("file_text", "")}
    else:
        name = "Edit"
        tool_input = {
            "file_path": path,
            "old_string": args.get("old_str") or "",
            "new_string": args.get("new_str") or "",
        }
    yield {"type": "tool_use", "id": f"oh-{event.get('id')}", "name": name, "input": tool_input}


def _openhands_result(event: dict[str, Any]) -> dict[str, Any]:
    extras = event.get("extras") or {}
    code = (extras.get("metadata") or {}).get("exit_code", 0)
    output = str(event.get("content", ""))
    failed = event.get("observation") == "run" and code not in (0, None)
    if failed:
        suffix = str((extras.get("metadata") or {}).get("suffix", ""))
        output = f"Exit code {code}\n{output}{suffix}"
    block = {"type": "tool_result", "tool_use_id": f"oh-{event.get('cause')}", "content": output}
    result = {"stdout": output, "stderr": "", "interrupted": code == -1, "isImage": False}
    return _line("user", [{**block, "is_error": failed}], toolUseResult=result)
