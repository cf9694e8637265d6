"""Adapters: each assistant's hook payload becomes one neutral event dict.

This layer knows the assistants; the core's observation model knows only the neutral event.
Every event has exactly the keys in `EVENT_KEYS`:

- `agent` (str), `session` (str|None), `event` (the hook event name as sent), `tool` (str|None)
- `kind`: one of `KINDS`; `error` when a command or tool failed
- `summary`: one line of at most 200 characters; `ok` (bool|None); `exit_code` (int|None)
- `files`: paths touched, relative to `cwd` where they are under it
- `text`: the body worth keeping (command output, prompt, final message, a short description of
  an edit; never file contents), with private spans, mem fences and terminal escapes removed
  but not trimmed: the caller runs `filters.clean` with its configured limits
- `cwd` (str|None), `hashes` (path -> sha256 of the file content), `input` (short str)
- `secs` (float|None): how long a shell call took, when the payload says

Detection (`detect`), first rule that matches:

1. Cursor: a `conversation_id`, `generation_id`, `workspace_roots` or `cursor_version` key, or a
   Cursor-only event name (`afterShellExecution`, `beforeSubmitPrompt`, `stop`, ...).
2. Copilot: camelCase keys (`toolName`, `toolArgs`, `toolResult`, `sessionId`, `hookEventName`,
   `initialPrompt`), a Copilot-only event (`userPromptSubmitted`, `errorOccurred`, ...), a
   camelCase lifecycle event (`sessionStart`, `postToolUse`, ...) that rule 1 did not claim,
   or a numeric `timestamp` (epoch milliseconds) and no event name at all.
3. Gemini: a Gemini-only event (`BeforeAgent`, `AfterTool`, `AfterAgent`, `PreCompress`, ...) or
   a transcript under `.gemini/`.
4. Codex: a transcript under `.codex/` (its rollout files), a `turn_id` key, or the
   `apply_patch` tool; Claude Code sends none of these.
5. Gemini again for its tool names (`run_shell_command`, `read_file`, ...) or a `timestamp`
   string beside the event name (Claude Code sends no timestamp).
6. Otherwise claude-code. A Codex payload that matches none of rule 4 is handled as Claude
   Code, which is harmless: both share one shape and one code path, only `agent` differs.

Copilot's camelCase payloads carry no event name: it is inferred from the shape (`toolResult`:
`postToolUse`, `toolName` alone: `preToolUse`, `error`: `errorOccurred`, `prompt`:
`userPromptSubmitted`, `source`/`initialPrompt`: `sessionStart`, `reason`: `sessionEnd`), and
the Claude Code names likewise for snake_case payloads without one.

This module's one job is the payload-to-event mapping above, plus the noise test on its result.
Tool calls (arguments, responses, exit codes, files and hashes) are read in `tools`; the small
value helpers both share are in `values`.
"""

from __future__ import annotations

import os

from memcli.capture import tools, values
from memcli.observed import filters, transcript_tail

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

AGENTS = ("claude-code", "codex", "gemini", "cursor", "copilot")
KINDS = ("command", "edit", "read", "prompt", "error", "conclusion", "session", "other")
EVENT_KEYS = (
    "agent", "session", "event", "tool", "kind", "summary", "ok", "exit_code", "files", "text",
    "cwd", "hashes", "input", "secs",
)  # fmt: skip
TEXT_AGENT = "pipe"  # the `agent` of events made from plain piped text
MAX_TEXT = values.MAX_TEXT  # raw text beyond this keeps its head and tail only
MAX_HASH_BYTES = tools.MAX_HASH_BYTES  # larger files are not hashed

NOISE_TOOLS = {
    "todowrite", "todoread", "write_todos", "todo_write", "update_plan", "manage_todo_list",
    "ls", "glob", "list_directory", "list_dir", "file_search",
}  # fmt: skip
_LISTING = {"ls", "ll", "la", "dir", "tree", "pwd", "exa", "eza", "cd"}
_GEMINI_TOOLS = {
    "run_shell_command", "read_file", "read_many_files", "write_file", "replace", "glob",
    "list_directory", "search_file_content", "google_web_search", "web_fetch", "save_memory",
    "write_todos",
}  # fmt: skip
_CURSOR_EVENTS = {
    "beforeSubmitPrompt", "beforeShellExecution", "afterShellExecution", "beforeMCPExecution",
    "afterMCPExecution", "beforeReadFile", "afterFileEdit", "afterAgentResponse",
    "afterAgentThought", "stop", "beforeTabFileRead", "afterTabFileEdit",
}  # fmt: skip
_COPILOT_EVENTS = {
    "userPromptSubmitted", "errorOccurred", "agentStop", "subagentStop", "sessionStart",
    "sessionEnd", "preToolUse", "postToolUse", "preCompact",
}  # fmt: skip
_GEMINI_EVENTS = {
    "BeforeAgent", "AfterAgent", "BeforeTool", "AfterTool", "BeforeModel", "AfterModel",
    "BeforeToolSelection", "PreCompress",
}  # fmt: skip
# Event name -> what it carries. Names absent here (PreToolUse, BeforeTool, Notification, ...)
# carry nothing worth recording: for tools the after-event has it all.
_ACTIONS = {
    "UserPromptSubmit": "prompt", "BeforeAgent": "prompt", "beforeSubmitPrompt": "prompt",
    "userPromptSubmitted": "prompt", "PostToolUse": "tool", "AfterTool": "tool",
    "postToolUse": "tool", "afterMCPExecution": "tool", "PostToolUseFailure": "failure",
    "afterShellExecution": "shell", "afterFileEdit": "file_edit", "beforeReadFile": "file_read",
    "Stop": "stop", "AfterAgent": "stop", "afterAgentResponse": "stop", "stop": "stop",
    "agentStop": "stop", "SubagentStop": "subagent", "subagentStop": "subagent",
    "SessionStart": "start", "sessionStart": "start", "SessionEnd": "end", "sessionEnd": "end",
    "PreCompact": "compact", "PreCompress": "compact", "preCompact": "compact",
    "errorOccurred": "error", "StopFailure": "stop_failure",
}  # fmt: skip
_SESSION_LABELS = {"start": "session start", "end": "session end", "compact": "compact"}
_COMMAND_SPLIT = r"&&|\|\||[;|\n]"


def detect(payload: dict[str, object]) -> str:
    """Which assistant sent `payload`, from its shape (rules in the module docstring)."""
    if not isinstance(payload, dict):
        return "claude-code"
    event = values.first(payload, "hook_event_name", "hookEventName") or ""
    cursor_keys = ("conversation_id", "generation_id", "workspace_roots", "cursor_version")
    if event in _CURSOR_EVENTS or any(key in payload for key in cursor_keys):
        return "cursor"
    copilot_keys = ("toolName", "toolArgs", "toolResult", "sessionId", "hookEventName")
    if event in _COPILOT_EVENTS or any(k in payload for k in (*copilot_keys, "initialPrompt")):
        return "copilot"
    if not event and isinstance(payload.get("timestamp"), int | float):  # epoch milliseconds
        return "copilot"
    transcript = (values.as_str(payload.get("transcript_path")) or "").replace("\\", "/")
    if event in _GEMINI_EVENTS or "/.gemini/" in transcript:
        return "gemini"
    tool = (values.as_str(payload.get("tool_name")) or "").lower()
    if "/.codex/" in transcript or "turn_id" in payload or tool == "apply_patch":
        return "codex"
    if tool in _GEMINI_TOOLS or (event and isinstance(payload.get("timestamp"), str)):
        return "gemini"
    return "claude-code"


def is_turn_end(payload: dict[str, object], agent: str) -> bool:
    """Whether ``payload`` is the main agent's end of turn (Stop) of an assistant whose
    transcript mem reads; never raises."""
    try:
        return agent in transcript_tail.AGENTS and _ACTIONS.get(_event_name(payload, agent)) in (
            "stop",
            "stop_failure",
        )
    except Exception:  # noqa: BLE001 - odd input is no turn end
        return False


def _event_name(payload: dict[str, object], agent: str) -> str:
    name = values.first(payload, "hook_event_name", "hookEventName")
    if name:
        return name
    camel = agent == "copilot" or "toolName" in payload

    def pick(snake: str, camel_name: str) -> str:
        return camel_name if camel else snake

    if "toolResult" in payload or "tool_response" in payload:
        return pick("PostToolUse", "postToolUse")
    if "toolName" in payload or "tool_name" in payload:
        return pick("PreToolUse", "preToolUse")
    if isinstance(payload.get("error"), dict):
        return "errorOccurred"
    if "prompt" in payload:
        return pick("UserPromptSubmit", "userPromptSubmitted")
    if "last_assistant_message" in payload:
        return "Stop"
    if "source" in payload or "initialPrompt" in payload:
        return pick("SessionStart", "sessionStart")
    return pick("SessionEnd", "sessionEnd") if "reason" in payload else ""


def to_event(payload: dict[str, object], agent: str) -> dict[str, object] | None:
    """The neutral event for one hook payload, or None when it carries nothing worth keeping.

    `agent` is one of `AGENTS` (empty: detected). Never raises: odd input gives None or a
    best-effort event.
    """
    try:
        return _to_event(payload, agent)
    except Exception:  # a hook fails open; the Hypothesis tests call _to_event directly
        return None


def _to_event(payload: dict[str, object], agent: str) -> dict[str, object] | None:
    if not isinstance(payload, dict):
        return None
    agent = agent if isinstance(agent, str) and agent else detect(payload)
    event = _event_name(payload, agent)
    action = _ACTIONS.get(event)
    if action is None:
        return None
    cwd = values.first(payload, "cwd")
    roots = payload.get("workspace_roots")
    if cwd is None and isinstance(roots, list) and roots:
        cwd = values.as_str(roots[0]) or None
    ev: dict[str, object] = {
        "agent": agent,
        "session": values.first(payload, "session_id", "sessionId", "conversation_id"),
        "event": event, "tool": None, "kind": "other", "summary": "", "ok": None,
        "exit_code": None, "files": [], "text": "", "cwd": cwd, "hashes": {}, "input": "",
        "secs": None,
    }  # fmt: skip
    if action in ("tool", "failure", "shell", "file_edit", "file_read"):
        return tools.tool_event(ev, payload, action)
    if action == "prompt":
        body = values.body(values.first(payload, "prompt", "user_prompt") or "").strip()
        ev.update(kind="prompt", text=body, summary=values.line("prompt: " + body))
        return ev if body else None
    if action in ("stop", "subagent"):
        keys = ("last_assistant_message", "prompt_response", "text", "response")
        body = values.body(values.first(payload, *keys) or "").strip()
        if body:
            kind, label = ("conclusion",) * 2 if action == "stop" else ("other", "subagent")
            ev.update(kind=kind, text=body, summary=values.line(f"{label}: {body}"))
            return ev
        if payload.get("status") != "error":  # Cursor's stop hook reports a broken agent loop
            return None
        ev.update(kind="error", ok=False, summary="agent stopped with an error")
        return ev
    if action == "stop_failure":
        # Claude Code ends a turn on an API error (a rate or usage limit, billing, an
        # overloaded service) with StopFailure instead of Stop: the turn's work is unfinished.
        api_error = values.first(payload, "error") or "unknown"
        said = values.first(payload, "error_details", "last_assistant_message") or ""
        body = values.body(f"{api_error}: {said}" if said else api_error).strip()
        stopped = f"turn stopped by an API error ({api_error})"
        summary = values.line(f"{stopped}: {said}" if said else stopped)
        ev.update(kind="error", ok=False, text=body, summary=summary)
        return ev
    if action == "error":
        error = values.as_dict(payload.get("error"))
        name = values.first(error, "name") or "error"
        message = values.first(error, "message") or values.as_str(payload.get("error")) or ""
        body = values.body(f"{name}: {message}\n{values.first(error, 'stack') or ''}".strip())
        ev.update(
            kind="error", ok=False, text=body, summary=values.line(f"error: {name}: {message}")
        )
        return ev
    detail = values.first(payload, "source", "trigger", "reason")
    summary = _SESSION_LABELS[action] + (f" ({detail})" if detail else "")
    initial = values.body(values.first(payload, "initialPrompt") or "").strip()
    summary += f": {initial}" if initial else ""
    ev.update(kind="session", text=initial, summary=values.line(summary))
    return ev


_HINT_KINDS = {
    "command": "command", "cmd": "command", "shell": "command", "test": "command",
    "tests": "command", "build": "command", "lint": "command", "check": "command",
    "typecheck": "command", "run": "command", "install": "command", "ci": "command",
    "error": "error", "prompt": "prompt", "conclusion": "conclusion", "note": "conclusion",
    "decision": "conclusion", "summary": "conclusion", "edit": "edit", "read": "read",
    "session": "session", "other": "other",
}  # fmt: skip


def text_event(text: str, kind_hint: str | None) -> dict[str, object]:
    """The neutral event for plain piped text (`pytest 2>&1 | mem capture --kind test`).

    No hint, or a hint naming a command (test, build, lint, command, ...): the text is command
    output judged by `filters.outcome`: kind `error` when it shows a failure, `ok` None when it
    shows neither (a pipe loses the exit status). note/decision/summary give a conclusion; the
    other kinds in `KINDS` are taken as given; an unknown hint gives `other` (judged too).
    """
    hint = kind_hint.strip().lower() if isinstance(kind_hint, str) else ""
    body = values.body(text if isinstance(text, str) else "").strip("\n")
    kind = _HINT_KINDS.get(hint, "other") if hint else "command"
    label = hint or "output"
    ok: bool | None = None
    first = next((line for line in body.split("\n") if line.strip()), "(empty)")
    summary = f"{label}: {first}"
    if kind in ("command", "other"):
        ok, detail = filters.outcome(body)
        if ok is not None:
            summary = f"{label} -> {'ok' if ok else 'failed'}" + (f" ({detail})" if detail else "")
            kind = kind if ok else "error"
    elif kind == "error":
        ok = False
    elif kind in ("conclusion", "prompt"):
        summary = f"{label}: {body}"
    try:
        cwd: str | None = os.getcwd()
    except OSError:
        cwd = None
    return {
        "agent": TEXT_AGENT, "session": None, "event": "text", "tool": hint or None,
        "kind": kind, "summary": values.line(summary), "ok": ok, "exit_code": None,
        "files": [], "text": body, "cwd": cwd, "hashes": {}, "input": "", "secs": None,
    }  # fmt: skip


def _is_listing(command: str) -> bool:
    """True when every part of a shell command only lists directories or changes to one."""
    seen = False
    for segment in filters.compiled(_COMMAND_SPLIT).split(command):
        words = segment.split()
        while words and "=" in words[0]:  # leading VAR=value assignments
            words.pop(0)
        if not words:
            continue
        if os.path.basename(words[0]) not in _LISTING:
            return False
        seen = True
    return seen


def is_noise(event: dict[str, object], noise_tools: Sequence[str]) -> bool:
    """True for events not worth keeping: todo-list tools, directory listings (tools and `ls`
    commands), and tools named in config (exact names in any case, or fnmatch patterns such
    as `mcp__browser__*`), and the Stop checkpoint's own request handed back as a prompt
    (Gemini CLI's and Cursor's way of making the agent go on)."""
    if event.get("kind") == "prompt":
        from memcli.observed.checkpoint_request import is_checkpoint_request

        if is_checkpoint_request(str(event.get("text"))):
            return True
    tool = event.get("tool")
    name = tool.lower() if isinstance(tool, str) else ""
    if name in NOISE_TOOLS:
        return True
    for pattern in noise_tools if name else ():
        wanted = pattern.lower() if isinstance(pattern, str) else ""
        if wanted == name:
            return True
        if wanted and any(c in wanted for c in "*?["):
            import fnmatch

            if fnmatch.fnmatchcase(name, wanted):
                return True
    command = event.get("input")
    shell = name in tools.SHELL or event.get("kind") == "command"
    return shell and isinstance(command, str) and _is_listing(command)
