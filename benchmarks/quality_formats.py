"""Sessions of other agents rewritten as Claude Code transcript records, so the replay drives
the Claude Code hooks with them: an OpenHands event list (`trajectory.json`) and a pi coding
agent session (`pi-session.jsonl`). Tool calls become the Claude Code tools they correspond to
(Bash, Read, Edit, Write); what the user typed and what the assistant said stay as written; a
turn the user aborted ends as Claude Code marks an interrupted one.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

INTERRUPTED = "[Request interrupted by user]"


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


# --- pi -------------------------------------------------------------------------------------

# pi's tools and argument names -> Claude Code's.
_PI_TOOLS = {
    "bash": ("Bash", {"command": "command", "timeout": "timeout"}),
    "read": ("Read", {"path": "file_path", "offset": "offset", "limit": "limit"}),
    "edit": ("Edit", {"path": "file_path", "oldText": "old_string", "newText": "new_string"}),
    "write": ("Write", {"path": "file_path", "content": "content"}),
}


def from_pi(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A pi session (`message` lines with roles user, assistant, toolResult) as Claude Code
    transcript records; session headers, model and thinking-level changes, compactions and the
    user's own shell commands (`bashExecution`) fire no hook and are left out."""
    out: list[dict[str, Any]] = []
    for record in records:
        message = record.get("message") if record.get("type") == "message" else None
        if not isinstance(message, dict):
            continue
        role, blocks = message.get("role"), message.get("content") or []
        blocks = [b for b in blocks if isinstance(b, dict)] if isinstance(blocks, list) else []
        if role == "user":
            said = "\n".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
            out.append(_line("user", said))
        elif role == "assistant":
            content = [_pi_block(b) for b in blocks if b.get("type") in ("text", "toolCall")]
            if content:
                out.append(_line("assistant", content))
            if message.get("stopReason") in ("aborted", "error"):
                out.append(_line("user", [{"type": "text", "text": INTERRUPTED}]))
        elif role == "toolResult":
            out.append(_pi_result(message, blocks))
    return out


def _pi_block(block: dict[str, Any]) -> dict[str, Any]:
    if block.get("type") == "text":
        return {"type": "text", "text": str(block.get("text", ""))}
    name = str(block.get("name", ""))
    tool, renames = _PI_TOOLS.get(name, (name, {}))
    args = block.get("arguments") if isinstance(block.get("arguments"), dict) else {}
    tool_input = {renames.get(key, key): value for key, value in args.items()}
    return {"type": "tool_use", "id": str(block.get("id", "")), "name": tool, "input": tool_input}


def _pi_result(message: dict[str, Any], blocks: list[dict[str, Any]]) -> dict[str, Any]:
    said = "\n".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
    failed = bool(message.get("isError"))
    block = {"type": "tool_result", "tool_use_id": str(message.get("toolCallId", ""))}
    result = {"stdout": said, "stderr": "", "interrupted": False, "isImage": False}
    extra = {"toolUseResult": result} if message.get("toolName") == "bash" else {}
    return _line("user", [{**block, "content": said, "is_error": failed}], **extra)
