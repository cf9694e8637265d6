"""Tools: one tool call (its arguments and response) becomes the fields of a neutral event.

`tool_event` fills in an event that `adapters` started: the kind (command, edit, read, error,
other), a one-line summary, the exit code and outcome of shell commands, the files touched
(relative to `cwd`) with their sha256, and a short description of an edit (never its new text).
It reads every assistant's argument and response shapes: Claude Code and Codex `tool_input` /
`tool_response`, Gemini `llmContent`, Copilot `toolArgs` / `toolResult`, Cursor's top-level
shell and file fields, MCP content blocks and JSON nested as strings.
"""

from __future__ import annotations

import os

from memcli.capture import values
from memcli.observed import buffer, filters

MAX_HASH_BYTES = 2_000_000  # larger files are not hashed

SHELL = {
    "bash", "shell", "shell_command", "local_shell", "exec_command", "run_shell_command",
    "powershell", "run_terminal_cmd", "run_in_terminal", "terminal", "container.exec",
}  # fmt: skip
_WRITE = {"write", "write_file", "create", "create_file"}
_EDIT = _WRITE | {
    "edit", "multiedit", "notebookedit", "apply_patch", "replace", "str_replace_editor",
    "search_replace", "str_replace_based_edit_tool", "edit_file", "insert_edit_into_file",
    "replace_string_in_file", "multi_replace_string_in_file",
}  # fmt: skip
_READ = {"read", "read_file", "view", "read_many_files", "notebookread"}
_EXIT_LINE = r"(?im)^[ \t]*(?:exit code|exit status|process exited with code)[: \t]+(-?\d+)\s*$"
# Gemini (`Command: ... Exit Code: 1`) and Codex (`Exit code: 1 / Wall time: ...`) frame shell
# output with metadata lines; they are dropped once the exit code has been read.
_SHELL_META = (
    r"(?m)^(?:(?:Command|Directory|Exit Code|Exit code|Signal|Background PIDs"
    r"|Process Group PGID|Wall time|Original token count|Chunk ID): .*"
    r"|Error: \(none\)|Output:[ \t]*)$\n?"
)
_OUTPUT_PREFIX = r"(?m)^Output: "
_PATCH_FILE = r"(?m)^\*\*\* (Add|Update|Delete) File: (.+?)[ \t]*$|^\*\*\* Move to: (.+?)[ \t]*$"
_PATH_KEYS = ("file_path", "path", "filePath", "notebook_path", "absolute_path", "target_file")
_ARG_KEYS = (
    "command",
    "pattern",
    "query",
    "url",
    "description",
    "prompt",
    *_PATH_KEYS,
    "task_id",
    "bash_id",
    "shell_id",
)  # the last three: which background job a poll reads
# Tools that read a background job's output (as `memcli.signals.POLL_TOOLS`, not imported:
# capture stays light).
_POLL_TOOLS = frozenset(("bashoutput", "taskoutput", "bash_output", "task_output"))
MOVED_TO_BACKGROUND = "sent to the background while it ran"  # memcli.checkpoint.workflow too
_BACKGROUND_ID_KEYS = ("backgroundTaskId", "shellId", "bash_id", "task_id")
_RESPONSE_KEYS = ("tool_response", "toolResult", "tool_output", "result_json", "tool_result")
_OUTPUT_KEYS = ("output", "llmContent", "textResultForLlm", "result", "content", "text")
_EXIT_KEYS = ("exit_code", "exitCode", "returncode", "return_code", "exit_status")
# How long a call took, where the assistant says it: a payload's or a result's milliseconds
# (Claude Code's `duration_ms`, its tools' `durationMs`), or Codex's "Wall time: 2.6 seconds".
_MS_KEYS = ("duration_ms", "durationMs")
_WALL_TIME = r"(?m)^Wall time: (\d+(?:\.\d+)?) seconds?\s*$"
_MAX_MS = buffer.MAX_SECS * 1000
# Claude Code's answer for a call of a parallel batch it cancelled because another call of the
# batch failed: the call never ran.
_NOT_RUN = "Sibling tool call errored"


def _args(payload: dict[str, object]) -> dict[str, object]:
    for key in ("tool_input", "toolArgs", "arguments", "input"):
        value = payload.get(key)
        value = values.loads(value) if isinstance(value, str) else value
        if isinstance(value, dict):
            return value
    return {}


def _response(value: object) -> tuple[str, int | None, bool, bool, str]:
    """(output, exit code, failed, interrupted, error text) of any assistant's tool result."""
    value = values.loads(value) if isinstance(value, str) else value
    if not isinstance(value, dict):
        return values.text_of(value), None, False, False, ""
    stdout, stderr = values.text_of(value.get("stdout")), values.text_of(value.get("stderr"))
    output = "\n".join(t for t in (stdout, stderr) if t)
    if not output:
        output = next((t for t in (values.text_of(value.get(k)) for k in _OUTPUT_KEYS) if t), "")
    code = next(
        (c for c in (values.as_int(value.get(k)) for k in _EXIT_KEYS) if c is not None), None
    )
    error_text = values.text_of(value.get("error"))
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
    content = values.first(args, "content", "file_text", "new_source")
    if tool in _WRITE or content is not None:
        return "wrote " + values.plural(_count_lines(content), "line"), []
    edits = args.get("edits")
    if isinstance(edits, list):
        return values.plural(len(edits), "edit"), []
    old = args.get("old_string", args.get("old_str"))
    new = args.get("new_string", args.get("new_str"))
    if isinstance(old, str) or isinstance(new, str):
        lines = (values.plural(_count_lines(old), "line"), values.plural(_count_lines(new), "line"))
        return "replaced {} with {}".format(*lines), []
    return "", []


def _count_lines(value: object) -> int:
    return value.count("\n") + 1 if isinstance(value, str) and value else 0


def _paths(args: dict[str, object], response: object) -> list[str]:
    found = [p for p in (values.first(args, key) for key in _PATH_KEYS) if p]
    paths = args.get("paths")
    if isinstance(paths, list):
        found.extend(p for p in paths[:50] if isinstance(p, str) and p)
    path = values.first(values.as_dict(response), "filePath", "file_path")
    return found or ([path] if path else [])


def _read_content(response: object) -> str | None:
    """The whole content a read returned; None when it is absent or only part of the file."""
    file = values.as_dict(values.as_dict(response).get("file"))
    content = values.as_str(file.get("content"))
    lines, total = values.as_int(file.get("numLines")), values.as_int(file.get("totalLines"))
    if content is None or values.as_int(file.get("startLine")) not in (None, 1) or lines != total:
        return None
    return content


def tool_event(
    ev: dict[str, object], payload: dict[str, object], action: str
) -> dict[str, object] | None:
    args = _args(payload)
    tool = values.first(payload, "tool_name", "toolName") or ""
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
        failed, error_text = True, values.text_of(payload.get("error")) or error_text
        interrupted = interrupted or payload.get("is_interrupt") is True
    if _NOT_RUN in error_text or _NOT_RUN in output[:200]:
        return None  # cancelled with a sibling call that failed: it never ran, nothing to learn
    name = tool.lower()
    ev["tool"] = tool or None
    if name in SHELL or action == "shell":
        secs = _duration(payload, response, output)
        if secs is not None:
            ev["secs"] = secs
        return _command_event(ev, args, output, code, (failed, interrupted), error_text, response)
    if name in _EDIT or action == "file_edit":
        kind, verb = "edit", "write" if name in _WRITE else "edit"
        description, patch_paths = _describe_edit(name, args)
    elif name in _READ or action == "file_read":
        kind, verb, description, patch_paths = "read", "read", "", []
    else:
        kind, verb, description, patch_paths = "other", tool or "tool", "", []
        if name in _POLL_TOOLS:  # "status: running" first: the poll found the job not done
            output = _poll_status(response) + output
    cwd = values.as_str(ev["cwd"])
    raw_paths = list(dict.fromkeys(_paths(args, response) + patch_paths))
    raw_paths = raw_paths if kind != "other" else []
    files = list(dict.fromkeys(_rel(p, cwd) for p in raw_paths))
    argument = (
        ", ".join(files) if kind != "other" else values.line(values.first(args, *_ARG_KEYS) or "")
    )
    summary = f"{verb} {argument or (tool if kind != 'other' else '')}".rstrip()
    if kind == "read":  # a read of a part: how it was called matters when a whole read failed
        part = [f"{k} {args[k]}" for k in ("offset", "limit") if values.as_int(args.get(k))]
        summary += f" ({', '.join(part)})" if part else ""
    ev.update(kind=kind, files=files, input=values.line(files[0] if files else argument))
    if kind != "other" and values.as_dict(response).keys() & {"content", "file", "originalFile"}:
        output = ""  # a file tool's output may be the file itself: only its error is kept
    if failed or interrupted:
        detail = filters.one_line(values.body(error_text or output), 100)
        state = "interrupted" if interrupted else "failed"
        summary += f" -> {state}" + (f" ({detail})" if detail else "")
        text = values.body(error_text or output)
        failed_kind = kind if interrupted else "error"
        ev.update(kind=failed_kind, ok=None if interrupted else False, text=text)
        ev.update(summary=values.line(summary))
        return ev
    content = values.first(args, "content", "file_text") if verb == "write" else None
    content = _read_content(response) if kind == "read" else content
    hashes: dict[str, str] = {}
    for raw in raw_paths:
        whole = content if len(raw_paths) == 1 else None
        digest = _sha256(whole.encode("utf-8", "surrogatepass")) if whole is not None else None
        digest = digest or _hash_file(raw, cwd)
        if digest:
            hashes[_rel(raw, cwd)] = digest
    text = values.body(output) if kind == "other" else description
    ev.update(ok=True, hashes=hashes, text=text, summary=values.line(summary))
    return ev


def _duration(payload: dict[str, object], response: object, output: str) -> float | None:
    """Seconds a shell call took, when the payload says (see ``_MS_KEYS``, ``_WALL_TIME``)."""
    for source in (payload, values.as_dict(response)):
        for key in _MS_KEYS:
            value = source.get(key)
            if isinstance(value, bool) or not isinstance(value, int | float):
                continue
            if 0 <= value <= _MAX_MS:  # not NaN, an infinity (`1e999` in JSON), nor absurd
                return round(value / 1000, 1)
    if "Wall time: " in output:
        found = filters.compiled(_WALL_TIME).search(output)
        if found is not None and len(found.group(1)) < 12:
            return buffer.seconds(round(float(found.group(1)), 1))
    return None


def _poll_status(response: object) -> str:
    """ "status: running\n" of a poll's result (Claude Code's TaskOutput and BashOutput)."""
    found = values.as_dict(response)
    task = values.as_dict(found.get("task"))
    status = values.first(task, "status") or values.first(found, "status", "retrieval_status")
    return f"status: {status}\n" if status else ""


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
    response: object = None,
) -> dict[str, object]:
    failed, interrupted = status
    body = output
    if error_text and error_text.strip() not in body:
        body = f"{body}\n{error_text}" if body else error_text
    body = values.body(body)
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
        detail = f"exit {code}" if code else filters.one_line(values.body(error_text), 70)
    elif ok is True and verdict is not True:
        detail = ""
    state = "interrupted" if interrupted else "ok" if ok else "failed"
    command = values.line(_command_line(args))
    detail = f" ({filters.one_line(detail, 70)})" if detail else ""
    summary = filters.one_line(f"$ {filters.one_line(command, 120)} -> {state}{detail}")
    kind = "error" if ok is False else "command"
    job = values.first(values.as_dict(response), *_BACKGROUND_ID_KEYS)
    if args.get("run_in_background") is True and ok is not False:
        # Started, not finished: neither a pass nor a failure; polls tell how long it took.
        ok, body = None, f"running in the background (id {job})" if job else body
        summary = filters.one_line(f"$ {filters.one_line(command, 120)} -> background")
    elif job and ok is not False and not body.strip():
        # Not asked to run in the background, yet it went there (the user's Ctrl+B, or Claude
        # Code moving a call past its timeout): it did not finish in time.
        limit = values.as_int(args.get("timeout"))
        past = f", past its {limit // 1000}s timeout" if limit and limit >= 1000 else ""
        ok, body = None, f"{MOVED_TO_BACKGROUND}{past} (id {job})"
        summary = filters.one_line(f"$ {filters.one_line(command, 120)} -> background")
    ev.update(kind=kind, ok=ok, exit_code=code, text=body, input=command, summary=summary)
    return ev
