"""Codex session files (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``) -> Codex hook payloads.

Each line of a rollout is ``{"timestamp", "type", "payload"}`` (older files: the bare item):

- ``session_meta``: the session's ``id`` and ``cwd``; ``turn_context``: a turn's ``cwd``;
- ``response_item``: ``message`` (role user, assistant, developer), ``function_call``
  (``name``, ``arguments`` as a JSON string, ``call_id``), ``custom_tool_call`` (``input`` as
  text, e.g. an ``apply_patch`` patch), ``local_shell_call`` (``action.command`` argv), and
  their ``function_call_output`` / ``custom_tool_call_output`` (``output``: text, a list of
  content items, or in older files a JSON string ``{"output", "metadata": {"exit_code"}}``);
- ``event_msg``: ``user_message`` (what the user typed), ``agent_message``, ``task_complete``
  (``last_agent_message``), ``turn_aborted``, token counts.

What Codex's hooks see, and so what this yields: ``UserPromptSubmit`` for each prompt (from
``user_message`` events when the file has them, else from user messages that are not the
context Codex injects), ``PostToolUse`` for each tool output with its call (named as Codex's
hooks name tools: see :func:`_call`), and ``Stop`` with the last assistant message of each
turn (none for an aborted turn), after the turn's other assistant messages as notes (as capture
reads them from the rollout at that Stop: :mod:`memcli.observed.transcript_tail`).
"""

from __future__ import annotations

import json
import os
import re
import shlex
from typing import Any

from memcli.compact.hookevents import HookEvent, joined_text, stamp
from memcli.observed.transcript_tail import TurnTexts

# User messages Codex writes itself: instructions, environment and shell context.
_INJECTED = (
    "<environment_context>", "<user_instructions>", "<INSTRUCTIONS>", "# AGENTS.md",
    "<user_shell_command>", "<turn_aborted>", "<permissions", "<collaboration_mode>",
)  # fmt: skip
_CALLS = ("function_call", "custom_tool_call", "local_shell_call")
_SHELL_TOOLS = frozenset(
    {"shell", "shell_command", "exec_command", "container.exec", "local_shell"}
)
_SHELLS = frozenset({"bash", "sh", "zsh"})
_OUTPUTS = ("function_call_output", "custom_tool_call_output")
_ITEM_TYPES = frozenset({"message", *_CALLS, *_OUTPUTS, "reasoning"})
_UUID = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$")


def typed_prompts(path: str) -> bool:
    """Whether the file records what the user typed as ``user_message`` events."""
    try:
        with open(path, "rb") as handle:
            return any(b'"user_message"' in line for line in handle)
    except OSError:
        return False


class CodexRollout:
    """One rollout file's converter: feed records in order, then :meth:`finish`."""

    agent = "codex"

    def __init__(self, path: str = "", typed: bool | None = None) -> None:
        self.path = path
        self.typed = typed_prompts(path) if typed is None else typed
        found = _UUID.search(os.path.basename(path))
        self.session = found.group(1) if found else ""
        self.cwd = ""
        self.turn = ""
        self.calls: dict[str, tuple[str, object]] = {}
        self.pending: tuple[str, str, str] | None = None  # last assistant text, ts, key
        self.last_ts = ""
        self.texts = TurnTexts()  # the assistant's messages since the last Stop

    def feed(self, record: dict[str, Any], number: int) -> list[HookEvent]:
        ts = stamp(record.get("timestamp")) or self.last_ts
        self.last_ts = ts
        self.texts.feed(record)
        kind, payload = record.get("type"), record.get("payload")
        if kind in _ITEM_TYPES:  # an older file: the item itself, no envelope
            kind, payload = "response_item", record
        elif "id" in record and "type" not in record and not self.session:
            kind, payload = "session_meta", record  # an older file's first line
        if not isinstance(payload, dict):
            return []
        key = f"line{number}"
        if kind in ("session_meta", "turn_context"):
            self._context(payload, kind)
            return []
        if not self.session:
            return []
        if kind == "event_msg":
            return self._event(payload, ts, key)
        if kind == "response_item":
            return self._item(payload, ts, key)
        return []

    def finish(self) -> list[HookEvent]:
        return self._stop()

    def _context(self, payload: dict[str, Any], kind: str) -> None:
        if kind == "session_meta" and isinstance(payload.get("id"), str) and payload["id"]:
            self.session = str(payload["id"])
        if isinstance(payload.get("cwd"), str) and payload["cwd"]:
            self.cwd = str(payload["cwd"])
        if isinstance(payload.get("turn_id"), str):
            self.turn = str(payload["turn_id"])

    def _base(self, event: str) -> dict[str, Any]:
        base = {"session_id": self.session, "transcript_path": self.path, "cwd": self.cwd,
                "hook_event_name": event}  # fmt: skip
        if self.turn:
            base["turn_id"] = self.turn
        return base

    def _event(self, payload: dict[str, Any], ts: str, key: str) -> list[HookEvent]:
        kind = payload.get("type")
        if kind == "user_message" and self.typed:
            return self._prompt(str(payload.get("message") or ""), ts, key)
        if kind in ("task_complete", "turn_complete"):
            last = payload.get("last_agent_message")
            if isinstance(last, str) and last.strip():
                self.pending = (last, ts, key)
            return self._stop()
        if kind == "turn_aborted":
            self.pending = None  # an aborted turn fires no Stop
        return []

    def _item(self, item: dict[str, Any], ts: str, key: str) -> list[HookEvent]:
        kind = item.get("type")
        if kind == "message":
            said = joined_text(item.get("content")).strip()
            if item.get("role") == "assistant" and said:
                self.pending = (said, ts, key)
            elif item.get("role") == "user" and not self.typed:
                return self._prompt(said, ts, key)
            return []
        call_id = str(item.get("call_id") or item.get("id") or "")
        if kind in _CALLS:
            self.calls[call_id] = _call(item)
            self.pending = None
            return []
        if kind in _OUTPUTS and call_id in self.calls:
            name, args = self.calls.pop(call_id)
            payload = self._base("PostToolUse")
            payload.update(tool_name=name, tool_input=args, tool_use_id=call_id,
                           tool_response=_output(item.get("output")))  # fmt: skip
            return [HookEvent(payload, ts, f"{key}\0{call_id}")]
        return []

    def _prompt(self, said: str, ts: str, key: str) -> list[HookEvent]:
        said = said.strip()
        if not said or said.startswith(_INJECTED):
            return []
        out = self._stop()
        payload = {**self._base("UserPromptSubmit"), "prompt": said}
        return [*out, HookEvent(payload, ts, f"{key}\0prompt")]

    def _stop(self) -> list[HookEvent]:
        if self.pending is None:
            return []
        said, ts, key = self.pending
        self.pending = None
        payload = {**self._base("Stop"), "last_assistant_message": said, "stop_hook_active": False}
        notes = [
            HookEvent({**payload, "last_assistant_message": text}, ts, f"{key}\0note{n}", note=True)
            for n, text in enumerate(self.texts.notes(said))
        ]
        self.texts.clear()
        return [*notes, HookEvent(payload, ts, f"{key}\0stop")]


def _call(item: dict[str, Any]) -> tuple[str, object]:
    """(tool name, arguments) of a call item, as Codex's hooks name them: shell-like tools
    (``shell``, ``shell_command``, ``exec_command``, ``local_shell_call``) are ``Bash`` with
    ``{"command": "<the command line>"}``; ``apply_patch`` gets ``{"command": "<the patch>"}``;
    any other tool keeps its name and its arguments."""
    if item.get("type") == "local_shell_call":
        found = item.get("action")
        action: dict[str, Any] = found if isinstance(found, dict) else {}
        return "Bash", {"command": _command_line(action.get("command"))}
    name = str(item.get("name") or "")
    raw = item.get("input") if item.get("type") == "custom_tool_call" else item.get("arguments")
    args: dict[str, Any] = {"input": raw}
    if isinstance(raw, str) and item.get("type") != "custom_tool_call":
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = raw
        args = parsed if isinstance(parsed, dict) else {"input": parsed}
    elif isinstance(raw, dict):
        args = raw
    if name in _SHELL_TOOLS:
        return "Bash", {"command": _command_line(args.get("command", args.get("cmd")))}
    if name == "apply_patch":
        return name, {"command": args.get("input", args.get("patch"))}
    return name, args


def _command_line(command: object) -> str:
    """A command line from an argv (``["bash", "-lc", "pytest -q"]`` is ``pytest -q``)."""
    if isinstance(command, str):
        return command
    if not isinstance(command, list):
        return ""
    words = [str(w) for w in command]
    if len(words) == 3 and words[1] in ("-c", "-lc") and words[0].rsplit("/", 1)[-1] in _SHELLS:
        return words[2]
    return shlex.join(words)


def _output(value: object) -> object:
    """A tool output as the hook's ``tool_response``: text, or ``{output, exit_code}``."""
    if isinstance(value, list):
        return joined_text(value)
    if isinstance(value, dict):  # an older failure shape: {content, success}
        text = str(value.get("content") or "")
        return {"output": text, "success": value.get("success")} if "success" in value else text
    if not isinstance(value, str) or not value.startswith("{"):
        return value if isinstance(value, str) else ""
    try:
        parsed = json.loads(value)
    except ValueError:
        return value
    if not isinstance(parsed, dict) or "output" not in parsed:
        return value
    found = parsed.get("metadata")
    metadata: dict[str, Any] = found if isinstance(found, dict) else {}
    return {"output": parsed.get("output"), "exit_code": metadata.get("exit_code")}
