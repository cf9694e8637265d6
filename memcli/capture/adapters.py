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
"""

from __future__ import annotations

import os

from memcli.capture import filters

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

AGENTS = ("claude-code", "codex", "gemini", "cursor", "copilot")
KINDS = ("command", "edit", "read", "prompt", "error", "conclusion", "session", "other")
EVENT_KEYS = (
    "agent", "session", "event", "tool", "kind", "summary", "ok", "exit_code", "files", "text",
    "cwd", "hashes", "input",
)  # fmt: skip
TEXT_AGENT = "pipe"  # the `agent` of events made from plain piped text
MAX_TEXT = 1_000_000  # raw text beyond this keeps its head and tail only
MAX_HASH_BYTES = 2_000_000  # larger files are not hashed

_SHELL = {
    "bash", "shell", "local_shell", "exec_command", "run_shell_command", "powershell",
    "run_terminal_cmd", "run_in_terminal", "terminal", "container.exec",
}  # fmt: skip
_WRITE = {"write", "write_file", "create", "create_file"}
_EDIT = _WRITE | {
    "edit", "multiedit", "notebookedit", "apply_patch", "replace", "str_replace_editor",
    "search_replace", "str_replace_based_edit_tool", "edit_file", "insert_edit_into_file",
    "replace_string_in_file", "multi_replace_string_in_file",
}  # fmt: skip
_READ = {"read", "read_file", "view", "read_many_files", "notebookread"}
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
    "errorOccurred": "error",
}  # fmt: skip
_SESSION_LABELS = {"start": "session start", "end": "session end", "compact": "compact"}
_EXIT_LINE = r"(?im)^[ \t]*(?:exit code|exit status|process exited with code)[: \t]+(-?\d+)\s*$"
# Gemini (`Command: ... Exit Code: 1`) and Codex (`Exit code: 1 / Wall time: ...`) frame shell
# output with metadata lines; they are dropped once the exit code has been read.
_SHELL_META = (
    r"(?m)^(?:(?:Command|Directory|Exit Code|Exit code|Signal|Background PIDs"
    r"|Process Group PGID|Wall time|Original token count|Chunk ID): .*"
    r"|Error: \(none\)|Output:[ \t]*)$\n?"
)
_OUTPUT_PREFIX = r"(?m)^Output: "
_COMMAND_SPLIT = r"&&|\|\||[;|\n]"
_PATCH_FILE = r"(?m)^\*\*\* (Add|Update|Delete) File: (.+?)[ \t]*$|^\*\*\* Move to: (.+?)[ \t]*$"
_PATH_KEYS = ("file_path", "path", "filePath", "notebook_path", "absolute_path", "target_file")
_ARG_KEYS = ("command", "pattern", "query", "url", "description", "prompt", *_PATH_KEYS)
_RESPONSE_KEYS = ("tool_response", "toolResult", "tool_output", "result_json", "tool_result")
_OUTPUT_KEYS = ("output", "llmContent", "textResultForLlm", "result", "content", "text")
_EXIT_KEYS = ("exit_code", "exitCode", "returncode", "return_code", "exit_status")


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _dict(value: object) -> dict[str, object]:
    return value if isinstance(value, dict) else {}


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _first(mapping: dict[str, object], *keys: str) -> str | None:
    """The first non-empty string value among `keys`."""
    for key in keys:
        value = mapping.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _body(text: str) -> str:
    """Text made safe to keep: private spans, mem fences and escapes removed, size bounded."""
    text = filters.strip_ansi(filters.drop_mem_fence(filters.drop_private(text)))
    if len(text) > MAX_TEXT:
        cut, head, tail = len(text) - MAX_TEXT, MAX_TEXT // 4, MAX_TEXT * 3 // 4
        text = f"{text[:head]}\n[... {cut} chars cut ...]\n{text[-tail:]}"
    return text


def _line(text: str, limit: int = 200) -> str:
    return filters.one_line(filters.drop_mem_fence(filters.drop_private(text)), limit)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _text_of(value: object) -> str:
    """Text of a string, a `{text: ...}` object, or a list of those (MCP content blocks)."""
    if isinstance(value, list):
        return "\n".join(t for t in map(_text_of_item, value[:500]) if t)
    return _text_of_item(value)


def _text_of_item(value: object) -> str:
    if isinstance(value, dict):
        return _first(value, "text", "content", "message") or ""
    return value if isinstance(value, str) else ""


def _loads(value: str) -> object:
    """Parse JSON that some assistants nest inside the payload as a string; the string if not."""
    if value[:1] not in ("{", "["):
        return value
    try:
        try:
            from memcli.capture import fastjson
        except ImportError:  # pragma: no cover - fastjson ships with the package
            import json

            return json.loads(value)
        return fastjson.loads(value)
    except (ValueError, RecursionError):
        return value


def detect(payload: dict[str, object]) -> str:
    """Which assistant sent `payload`, from its shape (rules in the module docstring)."""
    if not isinstance(payload, dict):
        return "claude-code"
    event = _first(payload, "hook_event_name", "hookEventName") or ""
    cursor_keys = ("conversation_id", "generation_id", "workspace_roots", "cursor_version")
    if event in _CURSOR_EVENTS or any(key in payload for key in cursor_keys):
        return "cursor"
    copilot_keys = ("toolName", "toolArgs", "toolResult", "sessionId", "hookEventName")
    if event in _COPILOT_EVENTS or any(k in payload for k in (*copilot_keys, "initialPrompt")):
        return "copilot"
    if not event and isinstance(payload.get("timestamp"), int | float):  # epoch milliseconds
        return "copilot"
    transcript = (_str(payload.get("transcript_path")) or "").replace("\\", "/")
    if event in _GEMINI_EVENTS or "/.gemini/" in transcript:
        return "gemini"
    tool = (_str(payload.get("tool_name")) or "").lower()
    if "/.codex/" in transcript or "turn_id" in payload or tool == "apply_patch":
        return "codex"
    if tool in _GEMINI_TOOLS or (event and isinstance(payload.get("timestamp"), str)):
        return "gemini"
    return "claude-code"


def _event_name(payload: dict[str, object], agent: str) -> str:
    name = _first(payload, "hook_event_name", "hookEventName")
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
    cwd = _first(payload, "cwd")
    roots = payload.get("workspace_roots")
    if cwd is None and isinstance(roots, list) and roots:
        cwd = _str(roots[0]) or None
    ev: dict[str, object] = {
        "agent": agent, "session": _first(payload, "session_id", "sessionId", "conversation_id"),
        "event": event, "tool": None, "kind": "other", "summary": "", "ok": None,
        "exit_code": None, "files": [], "text": "", "cwd": cwd, "hashes": {}, "input": "",
    }  # fmt: skip
    if action in ("tool", "failure", "shell", "file_edit", "file_read"):
        return _tool_event(ev, payload, action)
    if action == "prompt":
        body = _body(_first(payload, "prompt", "user_prompt") or "").strip()
        ev.update(kind="prompt", text=body, summary=_line("prompt: " + body))
        return ev if body else None
    if action in ("stop", "subagent"):
        keys = ("last_assistant_message", "prompt_response", "text", "response")
        body = _body(_first(payload, *keys) or "").strip()
        if body:
            kind, label = ("conclusion",) * 2 if action == "stop" else ("other", "subagent")
            ev.update(kind=kind, text=body, summary=_line(f"{label}: {body}"))
            return ev
        if payload.get("status") != "error":  # Cursor's stop hook reports a broken agent loop
            return None
        ev.update(kind="error", ok=False, summary="agent stopped with an error")
        return ev
    if action == "error":
        error = _dict(payload.get("error"))
        name = _first(error, "name") or "error"
        message = _first(error, "message") or _str(payload.get("error")) or ""
        body = _body(f"{name}: {message}\n{_first(error, 'stack') or ''}".strip())
        ev.update(kind="error", ok=False, text=body, summary=_line(f"error: {name}: {message}"))
        return ev
    detail = _first(payload, "source", "trigger", "reason")
    summary = _SESSION_LABELS[action] + (f" ({detail})" if detail else "")
    initial = _body(_first(payload, "initialPrompt") or "").strip()
    summary += f": {initial}" if initial else ""
    ev.update(kind="session", text=initial, summary=_line(summary))
    return ev


def _args(payload: dict[str, object]) -> dict[str, object]:
    for key in ("tool_input", "toolArgs", "arguments", "input"):
        value = payload.get(key)
        value = _loads(value) if isinstance(value, str) else value
        if isinstance(value, dict):
            return value
    return {}


def _response(value: object) -> tuple[str, int | None, bool, bool, str]:
    """(output, exit code, failed, interrupted, error text) of any assistant's tool result."""
    value = _loads(value) if isinstance(value, str) else value
    if not isinstance(value, dict):
        return _text_of(value), None, False, False, ""
    stdout, stderr = _text_of(value.get("stdout")), _text_of(value.get("stderr"))
    output = "\n".join(t for t in (stdout, stderr) if t)
    if not output:
        output = next((t for t in (_text_of(value.get(k)) for k in _OUTPUT_KEYS) if t), "")
    code = next((c for c in (_int(value.get(k)) for k in _EXIT_KEYS) if c is not None), None)
    error_text = _text_of(value.get("error"))
    failed = bool(
        error_text
        or value.get("is_error") is True
        or value.get("isError") is True
        or value.get("success") is False
        or value.get("resultType") in ("failure", "error", "denied")
    )
    return output, code, failed, value.get("interrupted") is True, error_text


def _rel(path: str, cwd: str | None) -> str:
    path = os.path.normpath(path)
    if cwd and os.path.isabs(path):
        base = os.path.normpath(cwd)
        prefix = base.rstrip(os.sep) + os.sep
        if path == base:
            return "."
        if path.startswith(prefix):
            return path[len(prefix) :]
    return path


def _sha256(data: bytes) -> str:
    if len(data) < 1 << 18:  # CPython's own sha256 imports in a fifth of hashlib's time
        try:
            from _sha256 import sha256  # type: ignore[import-not-found]  # Python 3.11
        except ImportError:
            try:
                from _sha2 import sha256  # type: ignore[import-not-found]  # Python 3.12+
            except ImportError:
                sha256 = None
        if sha256 is not None:
            return str(sha256(data).hexdigest())
    import hashlib

    return hashlib.sha256(data).hexdigest()


def _hash_file(path: str, cwd: str | None) -> str | None:
    """sha256 of a regular file of at most MAX_HASH_BYTES; None when that cannot be had."""
    full = path if os.path.isabs(path) or not cwd else os.path.join(cwd, path)
    try:
        if not os.path.isfile(full) or os.path.getsize(full) > MAX_HASH_BYTES:
            return None
        with open(full, "rb") as handle:
            return _sha256(handle.read(MAX_HASH_BYTES + 1))
    except (OSError, ValueError):
        return None


def _describe_edit(tool: str, args: dict[str, object]) -> tuple[str, list[str]]:
    """A short description of an edit (never its new text), and the paths a patch names."""
    patch = args.get("patch") or args.get("input") or args.get("command")
    if tool == "apply_patch" or isinstance(args.get("patch"), str):
        if isinstance(patch, list):  # argv form: ["apply_patch", "*** Begin Patch ..."]
            patch = next((p for p in reversed(patch) if isinstance(p, str)), "")
        text = patch if isinstance(patch, str) else ""
        found = [(m.group(1) or "move to", m.group(2) or m.group(3))
                 for m in filters.compiled(_PATCH_FILE).finditer(text)]  # fmt: skip
        ops = ", ".join(f"{op.lower()} {path}" for op, path in found)
        return f"patch: {ops}" if ops else "patch", [path for _, path in found]
    content = _first(args, "content", "file_text", "new_source")
    if tool in _WRITE or content is not None:
        return "wrote " + _plural(_count_lines(content), "line"), []
    edits = args.get("edits")
    if isinstance(edits, list):
        return _plural(len(edits), "edit"), []
    old = args.get("old_string", args.get("old_str"))
    new = args.get("new_string", args.get("new_str"))
    if isinstance(old, str) or isinstance(new, str):
        lines = (_plural(_count_lines(old), "line"), _plural(_count_lines(new), "line"))
        return "replaced {} with {}".format(*lines), []
    return "", []


def _count_lines(value: object) -> int:
    return value.count("\n") + 1 if isinstance(value, str) and value else 0


def _paths(args: dict[str, object], response: object) -> list[str]:
    found = [p for p in (_first(args, key) for key in _PATH_KEYS) if p]
    paths = args.get("paths")
    if isinstance(paths, list):
        found.extend(p for p in paths[:50] if isinstance(p, str) and p)
    path = _first(_dict(response), "filePath", "file_path")
    return found or ([path] if path else [])


def _read_content(response: object) -> str | None:
    """The whole content a read returned; None when it is absent or only part of the file."""
    file = _dict(_dict(response).get("file"))
    content = _str(file.get("content"))
    lines, total = _int(file.get("numLines")), _int(file.get("totalLines"))
    if content is None or _int(file.get("startLine")) not in (None, 1) or lines != total:
        return None
    return content


def _tool_event(
    ev: dict[str, object], payload: dict[str, object], action: str
) -> dict[str, object] | None:
    args = _args(payload)
    tool = _first(payload, "tool_name", "toolName") or ""
    response: object
    if action == "shell":  # Cursor: command and output at the top level
        tool, args = tool or "shell", {"command": payload.get("command")}
        response = {"output": payload.get("output"), "exit_code": payload.get("exit_code")}
    elif action in ("file_edit", "file_read"):  # Cursor: file_path (and edits) at the top level
        tool = tool or ("edit" if action == "file_edit" else "read")
        args = {**args, "file_path": payload.get("file_path"), "edits": payload.get("edits")}
        response = {"file": {"content": payload.get("content")}}
    else:
        response = next((payload[k] for k in _RESPONSE_KEYS if k in payload), None)
    output, code, failed, interrupted, error_text = _response(response)
    if action == "failure":
        failed, error_text = True, _text_of(payload.get("error")) or error_text
        interrupted = interrupted or payload.get("is_interrupt") is True
    name = tool.lower()
    ev["tool"] = tool or None
    if name in _SHELL or action == "shell":
        return _command_event(ev, args, output, code, (failed, interrupted), error_text)
    if name in _EDIT or action == "file_edit":
        kind, verb = "edit", "write" if name in _WRITE else "edit"
        description, patch_paths = _describe_edit(name, args)
    elif name in _READ or action == "file_read":
        kind, verb, description, patch_paths = "read", "read", "", []
    else:
        kind, verb, description, patch_paths = "other", tool or "tool", "", []
    cwd = _str(ev["cwd"])
    raw_paths = list(dict.fromkeys(_paths(args, response) + patch_paths))
    raw_paths = raw_paths if kind != "other" else []
    files = list(dict.fromkeys(_rel(p, cwd) for p in raw_paths))
    argument = ", ".join(files) if kind != "other" else _line(_first(args, *_ARG_KEYS) or "")
    summary = f"{verb} {argument or (tool if kind != 'other' else '')}".rstrip()
    ev.update(kind=kind, files=files, input=_line(files[0] if files else argument))
    if kind != "other" and _dict(response).keys() & {"content", "file", "originalFile"}:
        output = ""  # a file tool's output may be the file itself: only its error is kept
    if failed or interrupted:
        detail = filters.one_line(_body(error_text or output), 100)
        state = "interrupted" if interrupted else "failed"
        summary += f" -> {state}" + (f" ({detail})" if detail else "")
        text = _body(error_text or output)
        failed_kind = kind if interrupted else "error"
        ev.update(kind=failed_kind, ok=None if interrupted else False, text=text)
        ev.update(summary=_line(summary))
        return ev
    content = _first(args, "content", "file_text") if verb == "write" else None
    content = _read_content(response) if kind == "read" else content
    hashes: dict[str, str] = {}
    for raw in raw_paths:
        whole = content if len(raw_paths) == 1 else None
        digest = _sha256(whole.encode("utf-8", "surrogatepass")) if whole is not None else None
        digest = digest or _hash_file(raw, cwd)
        if digest:
            hashes[_rel(raw, cwd)] = digest
    text = _body(output) if kind == "other" else description
    ev.update(ok=True, hashes=hashes, text=text, summary=_line(summary))
    return ev


def _command_line(args: dict[str, object]) -> str:
    command = args.get("command", args.get("cmd"))
    if isinstance(command, list):  # Codex may send argv, often ["bash", "-lc", "the command"]
        parts = [p for p in command if isinstance(p, str)]
        command = parts[-1] if len(parts) >= 3 and parts[-2] in ("-c", "-lc") else " ".join(parts)
    return command if isinstance(command, str) else ""


def _command_event(
    ev: dict[str, object],
    args: dict[str, object],
    output: str,
    code: int | None,
    status: tuple[bool, bool],
    error_text: str,
) -> dict[str, object]:
    failed, interrupted = status
    body = output
    if error_text and error_text.strip() not in body:
        body = f"{body}\n{error_text}" if body else error_text
    body = _body(body)
    if code is None:
        found = filters.compiled(_EXIT_LINE).search(body)
        code = int(found.group(1)) if found and len(found.group(1)) < 10 else None
    if body.startswith(("Command: ", "Exit code: ")):
        body = filters.compiled(_SHELL_META).sub("", body)
        body = filters.compiled(_OUTPUT_PREFIX).sub("", body).strip("\n")
    verdict, detail = filters.outcome(body)
    ok: bool | None
    if interrupted:
        ok = None
    elif failed or code is not None:
        ok = not failed and code == 0
    else:
        ok = verdict is not False
    if ok is False and verdict is not False:
        detail = f"exit {code}" if code else filters.one_line(_body(error_text), 70)
    elif ok is True and verdict is not True:
        detail = ""
    state = "interrupted" if interrupted else "ok" if ok else "failed"
    command = _line(_command_line(args))
    detail = f" ({filters.one_line(detail, 70)})" if detail else ""
    summary = filters.one_line(f"$ {filters.one_line(command, 120)} -> {state}{detail}")
    kind = "error" if ok is False else "command"
    ev.update(kind=kind, ok=ok, exit_code=code, text=body, input=command, summary=summary)
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
    body = _body(text if isinstance(text, str) else "").strip("\n")
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
        "kind": kind, "summary": _line(summary), "ok": ok, "exit_code": None, "files": [],
        "text": body, "cwd": cwd, "hashes": {}, "input": "",
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
    as `mcp__browser__*`)."""
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
    shell = name in _SHELL or event.get("kind") == "command"
    return shell and isinstance(command, str) and _is_listing(command)
