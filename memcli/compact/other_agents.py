"""Sessions of agents mem has no hooks for, as Claude Code transcript records: an OpenHands
event list (``openhands``, a ``trajectory.json``), a pi coding agent session (``pi``,
``~/.pi/agent/sessions/.../*.jsonl``) and a SWE-agent trajectory (``swe-agent``, a ``.traj``,
SWE-agent's or mini-swe-agent's). Tool calls become the Claude Code tools they correspond to
(Bash, Read, Edit, Write); what the user typed and what the assistant said stay as written; a
turn the user aborted ends as Claude Code marks an interrupted one.

`mem import --format pi|swe-agent|openhands` reads the records of :func:`read_session` as a
Claude Code transcript (:mod:`memcli.compact.claude_transcript`) into the events the Claude
Code hooks capture; the quality benchmark replays the same records through the installed
hooks, so an import and a replay of one session see the same events.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

INTERRUPTED = "[Request interrupted by user]"
FORMATS = ("pi", "swe-agent", "openhands")
SUFFIXES = {"pi": ".jsonl", "swe-agent": ".traj", "openhands": ".json"}  # in a folder


def read_session(fmt: str, path: Path) -> tuple[list[dict[str, Any]], int, int]:
    """The session file at ``path`` (of ``fmt``, one of :data:`FORMATS`) as Claude Code
    transcript records, each with the session's id, a key unique in it (``uuid``) and, where
    the file has them, its time and folder; and the lines read and skipped (not JSON). A file
    that is not JSON at all is one skipped line and no records."""
    text = path.read_text(encoding="utf-8", errors="replace")
    lines, skipped = text.count("\n") + (not text.endswith("\n") and bool(text)), 0
    if fmt == "pi":
        rows = []
        for line in text.splitlines():
            try:
                rows.append(json.loads(line))
            except ValueError:
                skipped += bool(line.strip())
        rows = [r for r in rows if isinstance(r, dict)]
        header: dict[str, Any] = next((r for r in rows if r.get("type") == "session"), {})
        records, session, cwd = from_pi(rows), header.get("id"), header.get("cwd")
    else:
        try:
            data = json.loads(text)
        except ValueError:
            return [], lines, 1
        if fmt == "swe-agent" and isinstance(data, dict):
            records = from_swe_agent(data)
        elif fmt == "openhands" and isinstance(data, list):
            records = from_openhands([e for e in data if isinstance(e, dict)])
        else:
            return [], lines, 1
        session, cwd = None, None
    if not isinstance(session, str) or not session:
        # No id of its own: the file's name and content, so the same session imported again
        # (from anywhere) has the same id, and two files of one name do not.
        digest = hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:12]
        session = f"{fmt}-{path.stem}-{digest}"
    where = {"cwd": cwd} if isinstance(cwd, str) and cwd else {}
    keyed = [{**r, "sessionId": session, "uuid": f"{fmt}-{n}", **where}
             for n, r in enumerate(records)]  # fmt: skip
    return keyed, lines, skipped


def from_openhands(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """An OpenHands event list as Claude Code transcript records."""
    records: list[dict[str, Any]] = []
    for event in events:
        source, action = event.get("source"), event.get("action")
        at = event.get("timestamp")
        if source == "user" and action == "message":
            records.append(_line("user", str(event.get("message", "")), timestamp=at))
        elif source == "agent" and action in ("message", "finish"):
            args = event.get("args") or {}
            said = str(args.get("final_thought") or args.get("content") or event.get("message"))
            records.append(_line("assistant", [{"type": "text", "text": said}], timestamp=at))
        elif source == "agent" and action in ("run", "edit", "read"):
            records.append(_line("assistant", list(_openhands_call(event)), timestamp=at))
        elif event.get("observation") in ("run", "edit", "read") and "cause" in event:
            records.append({**_openhands_result(event), **({"timestamp": at} if at else {})})
    return records


def _line(role: str, content: Any, **extra: Any) -> dict[str, Any]:
    extra = {k: v for k, v in extra.items() if v is not None}
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
        at = {"timestamp": record["timestamp"]} if record.get("timestamp") else {}
        if role == "user":
            said = "\n".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
            out.append(_line("user", said, **at))
        elif role == "assistant":
            content = [_pi_block(b) for b in blocks if b.get("type") in ("text", "toolCall")]
            if content:
                out.append(_line("assistant", content, **at))
            if message.get("stopReason") in ("aborted", "error"):
                out.append(_line("user", [{"type": "text", "text": INTERRUPTED}], **at))
        elif role == "toolResult":
            out.append({**_pi_result(message, blocks), **at})
    return out


def _pi_block(block: dict[str, Any]) -> dict[str, Any]:
    if block.get("type") == "text":
        return {"type": "text", "text": str(block.get("text", ""))}
    name = str(block.get("name", ""))
    tool, renames = _PI_TOOLS.get(name, (name, {}))
    given = block.get("arguments")
    args: dict[str, Any] = given if isinstance(given, dict) else {}
    tool_input = {renames.get(key, key): value for key, value in args.items()}
    return {"type": "tool_use", "id": str(block.get("id", "")), "name": tool, "input": tool_input}


def _pi_result(message: dict[str, Any], blocks: list[dict[str, Any]]) -> dict[str, Any]:
    said = "\n".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
    failed = bool(message.get("isError"))
    block = {"type": "tool_result", "tool_use_id": str(message.get("toolCallId", ""))}
    result = {"stdout": said, "stderr": "", "interrupted": False, "isImage": False}
    extra = {"toolUseResult": result} if message.get("toolName") == "bash" else {}
    return _line("user", [{**block, "content": said, "is_error": failed}], **extra)


# --- SWE-agent ------------------------------------------------------------------------------

# What SWE-agent prints after every observation (its shell prompt), not part of the output.
_SWE_PROMPT_LINES = ("(Open file:", "(Current directory:", "bash-$")
_THOUGHT_LABEL = re.compile(r"^\s*THOUGHT:\s*")  # mini-swe-agent's reply format
_BASH_BLOCK = re.compile(r"```bash\s*\n(.*?)\n```", re.DOTALL)  # mini-swe-agent's action
_FENCED = re.compile(r"```[^\n]*\n(.*?)```", re.DOTALL)
_RETURNCODE = re.compile(r"^\s*<returncode>(-?\d+)</returncode>")
_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)\b")
_PR_INTRO = re.compile(r"^Consider the following PR description:\s*")
_ISSUE = (
    re.compile(r"<pr_description>\s*(.*?)\s*</pr_description>", re.DOTALL),
    re.compile(r"ISSUE:\n(.*?)\n+INSTRUCTIONS:", re.DOTALL),
)


def from_swe_agent(data: dict[str, Any]) -> list[dict[str, Any]]:
    """A SWE-agent trajectory (`.traj`: `trajectory` steps with thought / action / observation,
    or only a `history`; mini-swe-agent's `messages` too) as Claude Code transcript records: the
    issue as the one prompt, then per step the thought as assistant text, the action as a `Bash`
    call (SWE-agent's own commands, `open`, `edit`, `create`, `submit`, as they were typed) and
    the observation as its result; one turn, ending with the last step."""
    history = data.get("history") or data.get("messages") or []
    history = [m for m in history if isinstance(m, dict) and not m.get("is_demo")]
    records: list[dict[str, Any]] = []
    issue = _swe_issue(history)
    if issue:
        records.append(_line("user", issue))
    steps = data.get("trajectory")
    if isinstance(steps, list) and steps:
        pairs = [
            (
                str(step.get("thought") or ""),
                str(step.get("action") or ""),
                _swe_text(step.get("observation")),
            )
            for step in steps
            if isinstance(step, dict)
        ]
    else:
        pairs = list(_swe_history_steps(history))
    for number, (thought, action, observation) in enumerate(pairs):
        records.extend(_swe_step(number, thought, action, observation))
    return records


def _swe_text(content: Any) -> str:
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return "" if content is None else str(content)


def _swe_issue(history: list[dict[str, Any]]) -> str:
    """The issue text of the first user message (the instance prompt), else that message."""
    for message in history:
        if message.get("role") == "user":
            said = _swe_text(message.get("content"))
            for pattern in _ISSUE:
                found = pattern.search(said)
                if found:
                    return _PR_INTRO.sub("", found.group(1).strip(), count=1)
            return said.strip()
    return ""


def _swe_history_steps(history: list[dict[str, Any]]) -> Iterator[tuple[str, str, str]]:
    """(thought, action, observation) from a history: each assistant message with one action,
    and the message that answers it. Harness feedback to a reply without exactly one action (no
    command ran) is left out."""
    first_user = next((i for i, m in enumerate(history) if m.get("role") == "user"), len(history))
    rest = history[first_user + 1 :]
    for index, message in enumerate(rest):
        if message.get("role") != "assistant":
            continue
        said = _swe_text(message.get("content"))
        action = str(message.get("action") or "")
        thought = str(message.get("thought") or "")
        if not action:
            pattern = _BASH_BLOCK if _BASH_BLOCK.search(said) else _FENCED
            blocks = list(pattern.finditer(said))
            if len(blocks) != 1:
                continue
            action = blocks[0].group(1).strip()
            thought = said[: blocks[0].start()].strip()
        answer = rest[index + 1] if index + 1 < len(rest) else {}
        observation = "" if answer.get("role") == "assistant" else _swe_text(answer.get("content"))
        yield _THOUGHT_LABEL.sub("", thought or said, count=1), action, observation


def _swe_failure_code(observation: str) -> int | None:
    """The exit code of a failed action: mini-swe-agent's `<returncode>`, else (no exit codes in
    a SWE-agent trajectory) 127 for a missing command and 1 for a Python traceback that ends the
    output; None for a success."""
    code = _RETURNCODE.match(observation)
    if code:
        return int(code.group(1)) or None
    lines = [line.strip() for line in observation.splitlines() if line.strip()]
    while lines and lines[-1].startswith(_SWE_PROMPT_LINES):
        lines.pop()
    if any("command not found" in line for line in lines[-3:]):
        return 127
    traceback = "Traceback (most recent call last)" in observation
    if traceback and lines and _EXCEPTION_LINE.match(lines[-1]):
        return 1
    return None


def _swe_step(number: int, thought: str, action: str, observation: str) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = [{"type": "text", "text": thought}] if thought.strip() else []
    if not action.strip():
        return [_line("assistant", blocks)] if blocks else []
    tool_id = f"swe-{number}"
    call = {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": action}}
    code = _swe_failure_code(observation)
    output = observation if code is None else f"Exit code {code}\n{observation}"
    block = {"type": "tool_result", "tool_use_id": tool_id, "content": output}
    result = {"stdout": output, "stderr": "", "interrupted": False, "isImage": False}
    answer = _line("user", [{**block, "is_error": code is not None}], toolUseResult=result)
    return [_line("assistant", [*blocks, call]), answer]
