"""Claude Code transcript records -> the hook payloads Claude Code sent while writing them.

A transcript (``~/.claude/projects/<slug>/<session>.jsonl``, with sub-agents inline as
``isSidechain`` lines or in ``<session>/subagents/agent-*.jsonl``) is read one record at a
time. What the hooks saw, and so what this yields:

- a user's prompt: ``UserPromptSubmit`` (not for slash-command wrappers, caveats, meta lines,
  interrupts or hook feedback, which Claude Code writes as user lines but never submits);
- every tool result, the main session's and each sub-agent's (whose hooks carry the parent's
  ``session_id``): ``PostToolUse``, or ``PostToolUseFailure`` with the error text when the
  result is an error; nothing for a call the user denied, which never ran;
- the end of a turn: ``Stop`` with its last assistant text, when the next user line arrives
  (a prompt, a slash command, or the feedback of a Stop hook that blocked: the turn had ended
  and the hooks had run, so that turn end is kept and the next one is ``stop_hook_active``)
  or the transcript ends. Claude Code runs Stop whenever a turn ends uninterrupted, also
  when its last message was a tool call's aftermath or thinking alone (the message is then
  the turn's last text, or empty); an interrupted turn (an interrupt line, or a tool result
  the user interrupted) fires no Stop. A sub-agent's last text: ``SubagentStop``;
- before each ``Stop``, the turn's other assistant texts and sub-agent reports as notes, and
  the messages the user typed into the turn as prompts
  (:class:`memcli.observed.transcript_tail.TurnTexts`, which capture reads from the transcript
  at that Stop), in the main transcript only: capture does not read sub-agents' own files.

Each payload comes with the record's time and a key unique in the session (the line's uuid),
from which the importer derives stable observation ids.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memcli.compact.hookevents import HookEvent, joined_text, stamp
from memcli.observed.transcript_tail import QUEUED, TurnTexts

_NOT_PROMPTS = ("<command-", "<local-command-", "Caveat:", "<system-reminder>")
_HOOK_FEEDBACK = ("Stop hook feedback:", "SubagentStop hook feedback:")
_INTERRUPTED = "[Request interrupted by user"
# A tool call the user (or a permission rule) denied never ran, and no hook fired for it.
_REJECTED = ("The user doesn't want to proceed with this tool use",
             "The user doesn't want to take this action right now")  # fmt: skip
_MAIN = "main"


class ClaudeTranscript:
    """One transcript file's converter: feed records in order, then :meth:`finish`."""

    agent = "claude-code"

    def __init__(self, path: str = "") -> None:
        self.path = path
        # A sub-agent's own file (<session>/subagents/agent-<id>.jsonl): every line is the
        # sub-agent's, and its hooks carry the parent session's id (the folder's name).
        parts = Path(path).parts
        self.parent = parts[-3] if len(parts) >= 3 and parts[-2] == "subagents" else ""
        self.tools: dict[str, tuple[str, object]] = {}
        # chain ("main" or a sub-agent) -> its last assistant text not yet followed by a tool
        self.pending: dict[tuple[str, str], tuple[str, str, dict[str, Any], str]] = {}
        # main chain -> its open turn's last text (even with tool calls after it) and the
        # time, base and key of its last assistant line: where the turn ends if no text does
        self.turns: dict[tuple[str, str], tuple[str, str, dict[str, Any], str]] = {}
        self.blocked: set[str] = set()  # sessions whose last Stop was blocked by a hook
        self.cwd: dict[str, str] = {}  # later lines may leave cwd out
        self.last_ts = ""
        self.texts = TurnTexts()  # the main chain's texts since the last Stop

    def feed(self, record: dict[str, Any], number: int) -> list[HookEvent]:
        kind = record.get("type")
        if kind == "queue-operation" and not self.parent:
            self.texts.feed(record)  # a message typed into the turn (no prompt hook for it)
        if kind not in ("user", "assistant"):
            return []
        session = self.parent or record.get("sessionId")
        message = record.get("message")
        if not isinstance(session, str) or not session or not isinstance(message, dict):
            return []
        cwd = record.get("cwd")
        if isinstance(cwd, str) and cwd:
            self.cwd[session] = cwd
        base = {
            "session_id": session,
            "transcript_path": self.path,
            "cwd": self.cwd.get(session, ""),
        }
        ts = stamp(record.get("timestamp")) or self.last_ts
        self.last_ts = ts
        if not self.parent:
            self.texts.feed(record)
        uid = str(record.get("uuid") or f"line{number}")
        side = bool(record.get("isSidechain") or self.parent)
        chain = (session, f"agent:{record.get('agentId') or ''}" if side else _MAIN)
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        blocks = [b for b in blocks if isinstance(b, dict)]
        if record.get("isApiErrorMessage"):
            # The API refused the turn (a usage limit, billing, an overload): Claude Code ends
            # it with StopFailure instead of Stop, its message the error's text.
            if kind != "assistant" or side:
                return []
            return self._stop_failure(record, chain, base, joined_text(blocks).strip(), ts, uid)
        if kind == "assistant":
            said_last = self.turns.get(chain, ("",))[0]
            for block in blocks:
                if block.get("type") == "tool_use" and isinstance(block.get("id"), str):
                    self.tools[str(block["id"])] = (
                        str(block.get("name") or ""),
                        block.get("input"),
                    )
                    self.pending.pop(chain, None)
                elif block.get("type") == "text" and str(block.get("text") or "").strip():
                    said_last = str(block["text"])
                    self.pending[chain] = (said_last, ts, base, uid)
            if chain[1] == _MAIN:
                self.turns[chain] = (said_last, ts, base, uid)
            return []
        out: list[HookEvent] = []
        results = [b for b in blocks if b.get("type") == "tool_result"]
        if results and not side:
            out += self._subagents_done(session)  # a Task result: its sub-agents are over
        for n, block in enumerate(results):
            payload = self._tool_payload(block, record, base, len(results) == 1)
            if payload is not None:
                out.append(HookEvent(payload, ts, f"{uid}\0{n}"))
                if payload.get("is_interrupt") is True:
                    self._interrupted(chain)  # the user stopped the turn in this tool
        said = joined_text(blocks).strip()
        if not said or results or side:
            return out  # a sub-agent's prompt comes from the Task call, not from a user
        if said.startswith(_INTERRUPTED):
            self._interrupted(chain)
            return out
        out = self._stop(chain) + out
        if said.startswith(_HOOK_FEEDBACK):
            self.blocked.add(session)
        elif not record.get("isMeta") and not said.startswith(_NOT_PROMPTS):
            self.blocked.discard(session)
            prompt = {**base, "hook_event_name": "UserPromptSubmit", "prompt": said}
            out.append(HookEvent(prompt, ts, f"{uid}\0prompt"))
        return out

    def finish(self) -> list[HookEvent]:
        chains = list(dict.fromkeys([*self.pending, *self.turns]))
        return [event for chain in chains for event in self._stop(chain)]

    def _interrupted(self, chain: tuple[str, str]) -> None:
        """Claude Code fires no Stop for a turn the user interrupted."""
        self.pending.pop(chain, None)
        self.turns.pop(chain, None)

    def _tool_payload(
        self, block: dict[str, Any], record: dict[str, Any], base: dict[str, Any], only: bool
    ) -> dict[str, Any] | None:
        tool_id = str(block.get("tool_use_id"))
        call = self.tools.pop(tool_id, None)
        if call is None:
            return None
        name, args = call
        said = joined_text(block.get("content"))
        common = {**base, "tool_name": name, "tool_input": args, "tool_use_id": tool_id}
        detail = record.get("toolUseResult")
        if block.get("is_error") is True:
            if said.startswith(_REJECTED):
                return None  # denied before it ran: no hook fires
            interrupted = said.startswith(_INTERRUPTED) or (
                isinstance(detail, dict) and detail.get("interrupted") is True
            )
            return {**common, "hook_event_name": "PostToolUseFailure", "error": said,
                    "is_interrupt": interrupted}  # fmt: skip
        response: object = detail if isinstance(detail, dict) and only else None
        if response is None:
            response = {"stdout": said} if name.lower() == "bash" else said
        return {**common, "hook_event_name": "PostToolUse", "tool_response": response}

    def _stop(self, chain: tuple[str, str]) -> list[HookEvent]:
        pending = self.pending.pop(chain, None)
        turn = self.turns.pop(chain, None)
        pending = pending or turn  # a turn that ended on a tool call ends all the same
        if pending is None:
            return []
        said, ts, base, uid = pending
        session, name = chain
        event = "Stop" if name == _MAIN else "SubagentStop"
        payload = {**base, "hook_event_name": event, "last_assistant_message": said,
                   "stop_hook_active": name == _MAIN and session in self.blocked}  # fmt: skip
        return self._turn_end(payload, said, ts, uid, name == _MAIN)

    def _stop_failure(
        self, record: dict[str, Any], chain: tuple[str, str], base: dict[str, Any], said: str,
        ts: str, uid: str,
    ) -> list[HookEvent]:  # fmt: skip
        self.pending.pop(chain, None)  # the turn ends here, with no answer of its own
        self.turns.pop(chain, None)
        error = record.get("error")
        payload = {**base, "hook_event_name": "StopFailure",
                   "error": error if isinstance(error, str) and error else "unknown",
                   "error_details": said, "last_assistant_message": said}  # fmt: skip
        return self._turn_end(payload, said, ts, uid, True)

    def _turn_end(
        self, payload: dict[str, Any], said: str, ts: str, uid: str, main: bool
    ) -> list[HookEvent]:
        """The turn's end event, after the main chain's other texts of the turn as notes (as
        capture reads them from the transcript at that event)."""
        notes: list[HookEvent] = []
        if main and not self.parent:
            notes = [
                HookEvent({**payload, "prompt": text}, ts, f"{uid}\0queued{n}", queued=True)
                if kind == QUEUED else
                HookEvent({**payload, "last_assistant_message": text}, ts, f"{uid}\0note{n}",
                          note=True)
                for n, (kind, text) in enumerate(self.texts.said(said))
            ]  # fmt: skip
            self.texts.clear()
        return [*notes, HookEvent(payload, ts, f"{uid}\0stop")]

    def _subagents_done(self, session: str) -> list[HookEvent]:
        chains = [c for c in self.pending if c[0] == session and c[1] != _MAIN]
        return [event for chain in chains for event in self._stop(chain)]
