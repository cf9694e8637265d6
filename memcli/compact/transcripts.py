"""`mem import --format claude-code|codex|pi|swe-agent|openhands PATH...`: bootstrap memory
from transcripts.

Each transcript record is turned back into the hook payload its assistant sent for it
(:mod:`memcli.compact.claude_transcript`, :mod:`memcli.compact.codex_rollout`); a session of
an agent mem has no hooks for (pi, SWE-agent, OpenHands) is first rewritten as Claude Code
transcript records (:mod:`memcli.compact.other_agents`) and then read as one. Only the
events that `mem hooks install` hooks `mem capture` to are kept, and each goes through
capture's own adapter, filters and masking (:func:`memcli.capture.pipeline.observe_event`)
into an observation, then through the compactor, exactly like a live session: an import
yields what replaying the same transcript through the installed hooks yields. Observation ids
are derived from the session and the record, so importing the same transcripts again adds
nothing (the journal skips them).

A Claude Code session's sub-agent files (``<session>/subagents/*.jsonl``) are read with the
session and their events merged by time. A line that is not a JSON object is counted and
skipped. Raw records are kept under ``local/raw/`` only for the observations that items cite
as evidence.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memcli.compact import buffers, other_agents, run
from memcli.compact.hookevents import Converter, HookEvent
from memcli.compact.importer import ImportResult
from memcli.compact.observations import Obs
from memcli.errors import MemError
from memcli.observed import buffer
from memcli.privacy import owner_only

if TYPE_CHECKING:
    from memcli.api import Memory

Progress = Callable[[int, int], None]
Pairs = dict[str, list[tuple[dict[str, Any], dict[str, Any]]]]
FORMATS = ("claude-code", "codex", *other_agents.FORMATS)
PROGRESS_EVERY = 200


def transcript_files(path: Path, fmt: str = "claude-code") -> list[Path]:
    path = path.expanduser()
    if path.is_file():
        return [path]
    if path.is_dir():
        suffix = other_agents.SUFFIXES.get(fmt, ".jsonl")
        return sorted(p for p in path.rglob(f"*{suffix}") if p.is_file())
    raise MemError(f"{path}: no such file or folder")


def hooked_agent(fmt: str) -> str:
    """Whose hooks see a session of ``fmt``: Claude Code's for the agents rewritten as its
    transcripts (as the quality benchmark replays them)."""
    return "claude-code" if fmt in other_agents.FORMATS else fmt


def captured_events(agent: str) -> frozenset[str]:
    """The events whose payload the installed hooks pipe into `mem capture` for ``agent``."""
    from memcli import hooks

    events = set()
    for spec in hooks.hook_specs(hooked_agent(agent)):
        for key in ("command", "bash"):
            words = str(spec.handler.get(key) or "").split()
            if len(words) > 1 and hooks.is_mem_command(words[0]) and words[1] == "capture":
                events.add(spec.event)
    return frozenset(events)


def converter_for(agent: str, path: Path) -> Converter:
    if agent == "codex":
        from memcli.compact.codex_rollout import CodexRollout

        return CodexRollout(str(path))
    from memcli.compact.claude_transcript import ClaudeTranscript

    return ClaudeTranscript(str(path))


def hook_events(agent: str, files: list[Path], result: ImportResult | None = None,
                tick: Callable[[], None] | None = None) -> list[HookEvent]:  # fmt: skip
    """The hook events of one session's files, in time order, that `mem capture` receives."""
    wanted = captured_events(agent)
    events: list[HookEvent] = []
    for file in files:
        if agent in other_agents.FORMATS:
            events += _other_agent_events(agent, file, result, tick)
            continue
        converter = converter_for(agent, file)
        with open(file, encoding="utf-8", errors="replace") as handle:
            for number, line in enumerate(handle, 1):
                if result is not None:
                    result.lines += 1
                if tick is not None:
                    tick()
                try:
                    record = json.loads(line)
                except ValueError:
                    if result is not None:
                        result.skipped_lines += bool(line.strip())
                    continue
                if not isinstance(record, dict):
                    if result is not None:
                        result.skipped_lines += 1
                    continue
                events += converter.feed(record, number)
        events += converter.finish()
    if len(files) > 1:
        events.sort(key=lambda e: e.ts)  # stable: a file's own order is kept on equal times
    return [e for e in events if e.name in wanted]


def _other_agent_events(fmt: str, file: Path, result: ImportResult | None,
                        tick: Callable[[], None] | None) -> list[HookEvent]:  # fmt: skip
    from memcli.compact.claude_transcript import ClaudeTranscript

    records, lines, skipped = other_agents.read_session(fmt, file)
    if result is not None:
        result.lines += lines
        result.skipped_lines += skipped
    if tick is not None:
        for _ in range(lines):
            tick()
    converter = ClaudeTranscript(str(file))
    events = [e for n, record in enumerate(records, 1) for e in converter.feed(record, n)]
    return events + converter.finish()


def import_transcripts(
    memory: Memory, paths: list[Path], agent: str, progress: Progress | None = None
) -> ImportResult:
    if agent not in FORMATS:
        raise MemError(f"{agent!r} is not one of {', '.join(FORMATS)}", field="format")
    files = list(dict.fromkeys(f for p in paths for f in transcript_files(p, agent)))
    groups = _session_groups(files) if agent == "claude-code" else [[f] for f in files]
    total = sum(_count_lines(f) for f in files)
    result = ImportResult()
    from memcli.capture import pipeline

    settings = pipeline.load_settings(str(memory.paths.memory))
    done = [0]

    def tick() -> None:
        done[0] += 1
        if progress is not None and done[0] % PROGRESS_EVERY == 0:
            progress(done[0], total)

    for group in groups:
        sessions: Pairs = {}
        for event in hook_events(agent, group, result, tick):
            _observe(memory, settings, agent, event, sessions)
        for session, pairs in sessions.items():
            result.sessions.append(_compact(memory, session, pairs))
        if progress is not None:
            progress(done[0], total)
    result.added = sum(len(r.added) for r in result.sessions)
    result.updated = sum(len(r.updated) for r in result.sessions)
    result.ids = list(dict.fromkeys(i for r in result.sessions for i in r.items))
    return result


def import_claude_code(
    memory: Memory, path: Path, progress: Progress | None = None
) -> ImportResult:
    return import_transcripts(memory, [path], "claude-code", progress)


def import_codex(memory: Memory, path: Path, progress: Progress | None = None) -> ImportResult:
    return import_transcripts(memory, [path], "codex", progress)


def _session_groups(files: list[Path]) -> list[list[Path]]:
    """Each session's transcript with its sub-agents' files (``<session>/subagents/``)."""
    groups: dict[Path, list[Path]] = {}
    for file in files:
        parts = file.parts
        key = file
        if "subagents" in parts[:-1]:
            at = len(parts) - 1 - parts[::-1].index("subagents")
            key = Path(*parts[: at - 1]) / f"{parts[at - 1]}.jsonl"
        groups.setdefault(key, []).append(file)
    return [sorted(g, key=lambda f: "subagents" in f.parts) for g in groups.values()]


def _count_lines(path: Path) -> int:
    with open(path, "rb") as handle:
        return sum(1 for _ in handle)


def _observe(
    memory: Memory, settings: dict[str, object], agent: str, event: HookEvent, sessions: Pairs
) -> None:
    from memcli.capture import pipeline

    hooked = hooked_agent(agent)  # whose hook payloads these are
    if event.note:
        text = str(event.payload.get("last_assistant_message") or "")
        observation, raw = pipeline.observe_note(event.payload, text, settings, str(memory.root),
                                                 hooked)  # fmt: skip
    elif event.queued:
        text = str(event.payload.get("prompt") or "")
        observation, raw = pipeline.observe_queued(event.payload, text, settings,
                                                   str(memory.root), hooked)  # fmt: skip
    else:
        observation, raw = pipeline.observe_event(event.payload, settings, str(memory.root),
                                                  hooked)  # fmt: skip
    if observation is None or raw is None:
        return
    observation["agent"] = agent  # the session summary names the agent that ran it
    session = str(observation["session"])
    obs_id = "o" + hashlib.sha256(f"{session}\0{event.key}".encode()).hexdigest()[:23]
    observation["id"] = raw["id"] = obs_id
    observation["ts"] = raw["ts"] = event.ts or str(observation["ts"])
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
    owner_only.make_folders(str(path.parent))
    fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        os.write(fd, ("\n".join(lines) + "\n").encode("utf-8", "replace"))
    finally:
        os.close(fd)
