"""What mem installs in each assistant's hook settings: events, commands and handlers.

Roles: ``index`` prints the Layer-1 index as context at session start, ``capture`` records
each event, ``checkpoint`` asks the model at the end of a turn to record the lessons the rules
located (only where the assistant's Stop hook can continue the agent in Claude Code's JSON:
Claude Code and Codex), ``recall`` adds relevant items to each prompt (only when
``recall.enabled`` is set), ``compact`` runs once the session is over.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Literal

from memcli.errors import MemError

AgentName = Literal["claude-code", "codex", "gemini", "cursor", "copilot"]
ScopeName = Literal["project", "user"]

AGENTS: tuple[AgentName, ...] = ("claude-code", "codex", "gemini", "cursor", "copilot")
SCOPES: tuple[ScopeName, ...] = ("project", "user")

# Per agent: the settings file under the repository root, and under the home folder. Copilot's
# personal hooks (~/.copilot/hooks/) are read by Copilot CLI only, not by the cloud agent.
FILES = {
    "claude-code": (".claude/settings.json", ".claude/settings.json"),
    "codex": (".codex/hooks.json", ".codex/hooks.json"),
    "gemini": (".gemini/settings.json", ".gemini/settings.json"),
    "cursor": (".cursor/hooks.json", ".cursor/hooks.json"),
    "copilot": (".github/hooks/mem.json", ".copilot/hooks/mem.json"),
}

# Grouped files nest handlers in matcher groups ({"matcher", "hooks": [...]}) under each
# event; flat files list handlers directly under each event and carry a top-level version.
FLAT_AGENTS = frozenset({"cursor", "copilot"})

_INDEX_TIMEOUT = 10  # seconds: the index is read from a prebuilt file, this is only a ceiling
_CAPTURE_TIMEOUT = 10  # seconds: capture appends one line; the ceiling guards a stuck disk
_CODEX_COMPACT_TIMEOUT = 5  # seconds: compact --detach forks and returns at once
_CHECKPOINT_TIMEOUT = 10  # seconds: reads only what was captured since the last turn
_RECALL_TIMEOUT = 10  # seconds: a search over the prebuilt index


@dataclass(frozen=True)
class HookSpec:
    """One handler mem wants under one event (with the matcher of its group, if grouped)."""

    event: str
    matcher: str | None
    handler: dict[str, Any]


def check_agent(agent: str) -> AgentName:
    if agent in AGENTS:
        return agent
    raise MemError(f"unknown agent {agent!r}: choose one of {', '.join(AGENTS)}")


# Per agent, the events each role is hooked to: index prints the Layer-1 index as context,
# capture records the event, compact runs once the session is over.
_EVENTS: dict[str, dict[str, tuple[str, ...]]] = {
    "claude-code": {
        "index": ("SessionStart",),
        # StopFailure: a turn ended by an API error (a usage limit) instead of Stop.
        "capture": ("UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop")
        + ("StopFailure",),
        "checkpoint": ("Stop",),
        "recall": ("UserPromptSubmit",),
        "compact": ("SessionEnd",),
    },
    # Codex fires no session-end event (codex-rs/config/src/hook_config.rs): at SessionStart,
    # compact the sessions that went quiet (compacting at each Stop would split a failure and
    # its fix across batches, and lose the pitfall).
    "codex": {
        "index": ("SessionStart",),
        "capture": ("UserPromptSubmit", "PostToolUse", "Stop"),
        "checkpoint": ("Stop",),
        "recall": ("UserPromptSubmit",),
        "compact": ("SessionStart",),
    },
    # Gemini CLI: AfterAgent's {"decision": "deny", "reason": ...} sends the reason to the
    # agent as its next prompt, and BeforeAgent's additionalContext is added to the prompt.
    "gemini": {
        "index": ("SessionStart",),
        "capture": ("BeforeAgent", "AfterTool", "AfterAgent"),
        "checkpoint": ("AfterAgent",),
        "recall": ("BeforeAgent",),
        "compact": ("SessionEnd",),
    },
    # Cursor: the stop hook's followup_message is submitted as the next user message.
    "cursor": {
        "index": ("sessionStart",),
        "capture": ("beforeSubmitPrompt", "afterShellExecution", "afterFileEdit")
        + ("afterAgentResponse", "stop"),
        "checkpoint": ("stop",),
        "compact": ("sessionEnd",),
    },
    # Copilot ignores what a sessionStart hook prints: there is no index to inject, so the
    # session's start is captured instead.
    "copilot": {
        "capture": ("sessionStart", "userPromptSubmitted", "postToolUse", "errorOccurred"),
        "compact": ("sessionEnd",),
    },
}
# Tool events of grouped layouts get a match-all matcher; lifecycle events take none.
_TOOL_EVENTS = frozenset({"PostToolUse", "PostToolUseFailure", "AfterTool"})


def _command(agent: str, role: str, program: str) -> str:
    if role == "index" and agent in ("claude-code", "codex"):
        # Both read hookSpecificOutput.additionalContext from SessionStart's JSON.
        return f"{program} index --format claude"
    command = f"{program} compact --detach" if role == "compact" else f"{program} {role}"
    return command if agent == "claude-code" else f"{command} --agent {agent}"


def _handler(agent: str, role: str, program: str) -> dict[str, Any]:
    command = _command(agent, role, program)
    seconds = {"index": _INDEX_TIMEOUT, "checkpoint": _CHECKPOINT_TIMEOUT,
               "recall": _RECALL_TIMEOUT}.get(role, _CAPTURE_TIMEOUT)  # fmt: skip
    if agent == "claude-code":
        if role == "compact":
            # Keeps the default 1.5 s SessionEnd budget: compact --detach forks and returns.
            return {"type": "command", "command": command}
        if role == "capture":
            # Async capture never holds the session. SessionStart stays synchronous: its
            # output is the context.
            return {"type": "command", "command": command, "async": True, "timeout": seconds}
        return {"type": "command", "command": command, "timeout": seconds}
    if agent == "codex":
        # Codex skips handlers marked async, so each one is synchronous with a ceiling.
        if role == "compact":
            seconds = _CODEX_COMPACT_TIMEOUT
        return {"type": "command", "command": command, "timeout": seconds}
    if agent == "gemini":
        # Gemini CLI counts in milliseconds; the name shows in its /hooks panel.
        name, ms = f"mem-{role}", seconds * 1000
        return {"type": "command", "command": command, "name": name, "timeout": ms}
    if agent == "cursor":
        return {"command": command}
    return {"type": "command", "bash": command, "powershell": command, "timeoutSec": seconds}


def hook_specs(agent: str, recall: bool = False, program: str = "mem") -> list[HookSpec]:
    """The handlers mem wants for `agent`, in the order they are written; prompt-time recall
    only when ``recall`` (the repository's ``recall.enabled``); ``program`` is how the hooks
    start mem (:mod:`memcli.hookprogram`)."""
    name = check_agent(agent)
    return [
        HookSpec(event, "*" if event in _TOOL_EVENTS else None, _handler(name, role, program))
        for role, events in _EVENTS[name].items()
        if recall or role != "recall"
        for event in events
    ]


def recall_events(agent: str) -> tuple[str, ...]:
    """The events prompt-time recall is hooked to for `agent` (none for some assistants)."""
    return _EVENTS[check_agent(agent)].get("recall", ())


def mem_hooks(agent: str, recall: bool = False, program: str = "mem") -> dict[str, Any]:
    """The settings fragment mem merges in for `agent`, in that agent's own format."""
    name = check_agent(agent)
    doc: dict[str, Any] = {"version": 1} if name in FLAT_AGENTS else {}
    hooks: dict[str, list[Any]] = {}
    for spec in hook_specs(name, recall, program):
        hooks.setdefault(spec.event, []).append(entry_of(name, spec))
    doc["hooks"] = hooks
    return doc


def entry_of(agent: str, spec: HookSpec) -> dict[str, Any]:
    """The list element that carries `spec` under its event, in `agent`'s layout."""
    if agent in FLAT_AGENTS:
        return copy.deepcopy(spec.handler)
    group: dict[str, Any] = {} if spec.matcher is None else {"matcher": spec.matcher}
    group["hooks"] = [copy.deepcopy(spec.handler)]
    return group
