"""`mem import --format claude-code PATH`: bootstrap memory from Claude Code transcripts.

Each transcript line (``~/.claude/projects/<slug>/<session>.jsonl``) is turned back into the
hook payload Claude Code would have sent (a prompt, a tool result with its call, the last
assistant message of a turn as ``Stop``), then through capture's own adapter, filters and
masking (:func:`memcli.capture.pipeline._observe`) into an observation, then through the
compactor, exactly like a live session. Observation ids are derived from the session and the
line's uuid, so importing the same transcripts again adds nothing (the journal skips them).

Sidechains (sub-agents), meta lines, slash-command wrappers, summaries and snapshots are
skipped; a line that is not a JSON object is counted and skipped. Raw records are kept under
``local/raw/`` only for the observations that items cite as evidence.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memcli import timeutil
from memcli.capture import buffer
from memcli.compact import buffers, run
from memcli.compact.importer import ImportResult
from memcli.compact.observations import Obs
from memcli.errors import MemError

if TYPE_CHECKING:
    from memcli.api import Memory

Progress = Callable[[int, int], None]
_SKIP_PROMPTS = ("<command-", "<local-command-", "Caveat:", "<system-reminder>")
PROGRESS_EVERY = 200


def transcript_files(path: Path) -> list[Path]:
    path = path.expanduser()
    if path.is_file():
        return [path]
    if path.is_dir():
        return sorted(p for p in path.rglob("*.jsonl") if p.is_file())
    raise MemError(f"{path}: no such file or folder")


def import_claude_code(
    memory: Memory, path: Path, progress: Progress | None = None
) -> ImportResult:
    files = transcript_files(path)
    total = sum(_count_lines(f) for f in files)
    result = ImportResult()
    from memcli.capture import pipeline

    settings = pipeline._settings(str(memory.paths.memory))
    done_lines = 0
    for file in files:
        sessions: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = {}
        converter = _Converter()
        with open(file, encoding="utf-8", errors="replace") as handle:
            for number, line in enumerate(handle, 1):
                done_lines += 1
                result.lines += 1
                if progress is not None and done_lines % PROGRESS_EVERY == 0:
                    progress(done_lines, total)
                try:
                    record = json.loads(line)
                except ValueError:
                    result.skipped_lines += bool(line.strip())
                    continue
                if not isinstance(record, dict):
                    result.skipped_lines += 1
                    continue
                for payload, ts, key in converter.feed(record, number):
                    _observe(memory, settings, payload, ts, key, sessions)
        for payload, ts, key in converter.finish():
            _observe(memory, settings, payload, ts, key, sessions)
        for session, pairs in sessions.items():
            result.sessions.append(_compact(memory, session, pairs))
        if progress is not None:
            progress(done_lines, total)
    result.added = sum(len(r.added) for r in result.sessions)
    result.updated = sum(len(r.updated) for r in result.sessions)
    result.ids = list(dict.fromkeys(i for r in result.sessions for i in r.items))
    return result


def _count_lines(path: Path) -> int:
    with open(path, "rb") as handle:
        return sum(1 for _ in handle)


def _observe(
    memory: Memory,
    settings: dict[str, object],
    payload: dict[str, Any],
    ts: str,
    key: str,
    sessions: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]],
) -> None:
    from memcli.capture import pipeline

    observation, raw = pipeline._observe(
        payload, "", {"agent": "claude-code"}, settings, str(memory.root)
    )
    if observation is None or raw is None:
        return
    session = str(observation["session"])
    obs_id = "o" + hashlib.sha256(f"{session}\0{key}".encode()).hexdigest()[:23]
    observation["id"] = raw["id"] = obs_id
    observation["ts"] = raw["ts"] = ts or str(observation["ts"])
    observation["raw"] = f"raw/{buffer.session_file_name(session)}#{obs_id}"
    sessions.setdefault(session, []).append((observation, raw))


def _compact(
    memory: Memory, session: str, pairs: list[tuple[dict[str, Any], dict[str, Any]]]
) -> run.CompactResult:
    name = buffers.stem(session)
    paths = memory.paths
    raws = {str(raw["id"]): raw for _obs, raw in pairs}
    with buffers.session_lock(paths, name):
        state, done = buffers.read_journal(paths, name)
        fresh = [
            o for o in (Obs.from_record(0, obs) for obs, _raw in pairs) if o and o.id not in done
        ]
        obs = [replace(o, index=number) for number, o in enumerate(fresh)]
        if not obs:
            return run.CompactResult(name)
        result = run.compact_observations(memory, name, obs, state, done, raws)
    cited = {
        e.get("ref", "").partition("#")[2]
        for item_id in result.items
        for e in _evidence(memory, item_id)
    }
    _write_raw(paths.raw / buffer.session_file_name(session), [raws[i] for i in cited if i in raws])
    return result


def _evidence(memory: Memory, item_id: str) -> list[dict[str, str]]:
    try:
        return memory.store.get(item_id).evidence
    except MemError:
        return []


def _write_raw(path: Path, records: list[dict[str, Any]]) -> None:
    """Append raw records not yet in the file."""
    if not records:
        return
    present = ""
    try:
        present = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        pass
    lines = [json.dumps(r, ensure_ascii=False) for r in records if f'"{r["id"]}"' not in present]
    if not lines:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_APPEND, 0o600)
    try:
        os.write(fd, ("\n".join(lines) + "\n").encode("utf-8", "replace"))
    finally:
        os.close(fd)


class _Converter:
    """Transcript records -> the hook payloads Claude Code sent for them."""

    def __init__(self) -> None:
        self.tools: dict[str, tuple[str, object]] = {}
        self.last_text: dict[str, tuple[str, str, dict[str, Any], str]] = {}
        self.cwd: dict[str, str] = {}  # later lines may leave cwd out

    def feed(self, record: dict[str, Any], number: int) -> list[tuple[dict[str, Any], str, str]]:
        kind = record.get("type")
        if kind not in ("user", "assistant") or record.get("isSidechain") or record.get("isMeta"):
            return []
        session = record.get("sessionId")
        message = record.get("message")
        if not isinstance(session, str) or not session or not isinstance(message, dict):
            return []
        cwd = record.get("cwd")
        if isinstance(cwd, str) and cwd:
            self.cwd[session] = cwd
        base = {"session_id": session, "cwd": self.cwd.get(session, ""), "transcript_path": ""}
        ts = _stamp(record.get("timestamp"))
        uid = str(record.get("uuid") or f"line{number}")
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        blocks = [b for b in blocks if isinstance(b, dict)]
        if kind == "assistant":
            for block in blocks:
                if block.get("type") == "tool_use" and isinstance(block.get("id"), str):
                    self.tools[str(block["id"])] = (
                        str(block.get("name") or ""),
                        block.get("input"),
                    )
                    self.last_text.pop(session, None)
                elif block.get("type") == "text" and str(block.get("text") or "").strip():
                    self.last_text[session] = (str(block["text"]), ts, base, uid)
            return []
        out: list[tuple[dict[str, Any], str, str]] = []
        results = [b for b in blocks if b.get("type") == "tool_result"]
        for n, block in enumerate(results):
            payload = self._tool_payload(block, record, base, len(results) == 1)
            if payload is not None:
                out.append((payload, ts, f"{uid}\0{n}"))
        said = "\n".join(
            str(b["text"])
            for b in blocks
            if b.get("type") == "text" and isinstance(b.get("text"), str)
        ).strip()
        if said and not results and not said.startswith(_SKIP_PROMPTS):
            out = self._stop(session) + out
            prompt = {**base, "hook_event_name": "UserPromptSubmit", "prompt": said}
            out.append((prompt, ts, f"{uid}\0prompt"))
        return out

    def _tool_payload(
        self, block: dict[str, Any], record: dict[str, Any], base: dict[str, Any], only: bool
    ) -> dict[str, Any] | None:
        call = self.tools.pop(str(block.get("tool_use_id")), None)
        if call is None:
            return None
        name, args = call
        said = _text(block.get("content"))
        detail = record.get("toolUseResult")
        response: object = detail if isinstance(detail, dict) and only else None
        if block.get("is_error") is True:
            return {**base, "hook_event_name": "PostToolUseFailure", "tool_name": name,
                    "tool_input": args, "error": said, "tool_response": response}  # fmt: skip
        if response is None:
            response = {"stdout": said} if name.lower() == "bash" else said
        return {**base, "hook_event_name": "PostToolUse", "tool_name": name,
                "tool_input": args, "tool_response": response}  # fmt: skip

    def _stop(self, session: str) -> list[tuple[dict[str, Any], str, str]]:
        pending = self.last_text.pop(session, None)
        if pending is None:
            return []
        said, ts, base, uid = pending
        payload = {**base, "hook_event_name": "Stop", "last_assistant_message": said}
        return [(payload, ts, f"{uid}\0stop")]

    def finish(self) -> list[tuple[dict[str, Any], str, str]]:
        return [entry for session in list(self.last_text) for entry in self._stop(session)]


def _text(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(
            str(v.get("text"))
            for v in value
            if isinstance(v, dict) and isinstance(v.get("text"), str)
        )
    return ""


def _stamp(value: object) -> str:
    if not isinstance(value, str):
        return ""
    try:
        return timeutil.format_time(timeutil.parse_time(value))
    except ValueError:
        return ""
