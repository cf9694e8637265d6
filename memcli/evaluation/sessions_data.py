"""The captured sessions of a store, read back for `mem eval --sessions`.

A session is everything mem kept under one session file name (the stem that
:func:`memcli.observed.buffer.session_file_name` gives a session id):

- ``local/raw/<stem>.jsonl``: the masked hook payloads, kept after compaction; each is turned
  back into a neutral event by the capture adapters, so every assistant reads the same;
- ``local/buffer/<stem>.jsonl``: observations not compacted yet (used for those the raw log
  lacks, such as observations whose raw record was dropped to stay under its size bound);
- ``sessions/<stem>.yaml``: the session summary, whose ``started`` and ``ended`` widen the
  session's time span when its captures are gone.

Each observation keeps two texts: what the **model** wrote (tool arguments, files it touched,
edits, its answers), where a use of memory would show; and everything captured, for the size
of the session (tool output the model read included).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memcli import timeutil
from memcli.fastparse import fastjson
from memcli.paths import StorePaths

# Tool arguments in the assistants' payloads (Claude Code/Codex/Gemini, Copilot, Cursor).
_INPUT_KEYS = ("tool_input", "toolArgs", "command", "edits")
# mem's own retrieval tools, by the MCP tool names assistants report (mcp__mem__memory_get).
_SELF_TOOL = re.compile(r"memory_(search|get|index)$")


def epoch(stamp: object) -> float | None:
    if not isinstance(stamp, str) or not stamp:
        return None
    try:
        return timeutil.parse_time(stamp).timestamp()
    except ValueError:
        return None


@dataclass
class Observation:
    id: str
    ts: float
    kind: str
    model_text: str  # what the model wrote: arguments, files, edits, answers
    files: list[str]
    captured_chars: int  # all captured text, tool output included
    self_tool: str = ""  # "search", "get" or "index" for a call of mem's own MCP tools


@dataclass
class Session:
    stem: str
    session_id: str = ""
    agent: str = ""
    observations: list[Observation] = field(default_factory=list)
    started: float | None = None  # from the summary, when there is one
    ended: float | None = None
    summary_items: list[str] = field(default_factory=list)

    @property
    def start(self) -> float | None:
        stamps = [o.ts for o in self.observations]
        if self.started is not None:
            stamps.append(self.started)
        return min(stamps) if stamps else None

    @property
    def end(self) -> float | None:
        stamps = [o.ts for o in self.observations]
        if self.ended is not None:
            stamps.append(self.ended)
        return max(stamps) if stamps else None

    @property
    def captured_chars(self) -> int:
        """Captured text, without the answers of mem's own tools (counted as pulled tokens)."""
        return sum(o.captured_chars for o in self.observations if not o.self_tool)


def _jsonl(path: Path) -> list[dict[str, Any]]:
    try:
        data = path.read_bytes()
    except OSError:
        return []
    return fastjson.records(data.splitlines())  # skips a torn last line


def _as_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _from_raw(record: dict[str, Any]) -> tuple[Observation, dict[str, str]] | None:
    from memcli.capture import adapters

    payload = record.get("payload")
    ts = epoch(record.get("ts"))
    if not isinstance(payload, dict) or ts is None:
        return None
    if set(payload) == {"text"}:  # plain piped text
        event: dict[str, object] | None = adapters.text_event(str(payload["text"]), None)
    else:
        event = adapters.to_event(payload, adapters.detect(payload))
    if event is None:
        return None
    kind = str(event.get("kind") or "other")
    files = [str(f) for f in event.get("files") or [] if isinstance(f, str)]  # type: ignore[attr-defined]
    arguments = " ".join(_as_text(payload.get(k)) for k in _INPUT_KEYS if k in payload)
    text = str(event.get("text") or "")
    authored = [arguments or str(event.get("input") or ""), " ".join(files)]
    if kind in ("conclusion", "edit"):
        authored.append(text)
    tool = str(event.get("tool") or "")
    found = _SELF_TOOL.search(tool) if tool.startswith("mcp__") else None
    observation = Observation(
        id=str(record.get("id") or ""),
        ts=ts,
        kind=kind,
        model_text="\n".join(a for a in authored if a),
        files=files,
        captured_chars=len(text) + len(arguments) + len(str(event.get("summary") or "")),
        self_tool=found.group(1) if found else "",
    )
    meta = {"session": str(event.get("session") or ""), "agent": str(event.get("agent") or "")}
    return observation, meta


def _from_buffer(record: dict[str, Any]) -> Observation | None:
    ts = epoch(record.get("ts"))
    if "note" in record or ts is None:
        return None
    kind = str(record.get("kind") or "other")
    files = [str(f) for f in record.get("files") or [] if isinstance(f, str)]
    excerpt = str(record.get("excerpt") or "")
    arguments = str(record.get("input") or "")
    authored = [arguments, " ".join(files)]
    if kind in ("conclusion", "edit"):
        authored.append(excerpt)
    tool = str(record.get("tool") or "")
    found = _SELF_TOOL.search(tool) if tool.startswith("mcp__") else None
    return Observation(
        id=str(record.get("id") or ""),
        ts=ts,
        kind=kind,
        model_text="\n".join(a for a in authored if a),
        files=files,
        captured_chars=len(excerpt) + len(arguments) + len(str(record.get("summary") or "")),
        self_tool=found.group(1) if found else "",
    )


def _summary(path: Path) -> dict[str, Any]:
    from memcli import yamlread

    try:
        doc, _problem = yamlread.read(path)
    except OSError:
        return {}
    data = doc.plain() if doc is not None else None
    return data if isinstance(data, dict) else {}


def load_sessions(paths: StorePaths, only: str | None = None) -> list[Session]:
    """Every session with captures or a summary, oldest first; ``only``: one session id."""
    from memcli.observed.buffer import session_file_name

    wanted = session_file_name(only)[: -len(".jsonl")] if only else None
    stems: set[str] = set()
    for folder, pattern in ((paths.raw, "*.jsonl"), (paths.buffers, "*.jsonl")):
        if folder.is_dir():
            stems.update(p.stem for p in folder.glob(pattern))
    if paths.sessions.is_dir():
        stems.update(p.stem for p in paths.sessions.glob("*.yaml"))
    sessions: list[Session] = []
    for stem in sorted(stems):
        if wanted is not None and stem != wanted:
            continue
        session = Session(stem)
        seen: set[str] = set()
        for record in _jsonl(paths.raw / f"{stem}.jsonl"):
            found = _from_raw(record)
            if found is None:
                continue
            observation, meta = found
            seen.add(observation.id)
            session.observations.append(observation)
            session.session_id = session.session_id or meta["session"]
            session.agent = session.agent or meta["agent"]
        for record in _jsonl(paths.buffers / f"{stem}.jsonl"):
            buffered = _from_buffer(record)
            if buffered is not None and buffered.id not in seen:
                session.observations.append(buffered)
                session.session_id = session.session_id or str(record.get("session") or "")
                session.agent = session.agent or str(record.get("agent") or "")
        summary_path = paths.sessions / f"{stem}.yaml"
        if summary_path.is_file():
            summary = _summary(summary_path)
            session.session_id = session.session_id or str(summary.get("session") or "")
            session.agent = session.agent or str(summary.get("agent") or "")
            session.started, session.ended = (
                epoch(summary.get("started")),
                epoch(summary.get("ended")),
            )
            items = summary.get("items")
            session.summary_items = [str(i) for i in items] if isinstance(items, list) else []
        session.observations.sort(key=lambda o: o.ts)
        session.session_id = session.session_id or stem
        if session.start is not None:
            sessions.append(session)
    sessions.sort(key=lambda s: s.start or 0.0)
    return sessions
