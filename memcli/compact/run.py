"""Compaction, end to end: read a session's buffer, compact it, write, then consume.

Order of writes (see :mod:`memcli.compact.buffers` for why it is crash-safe): items (each
atomically) -> session summary -> journal -> buffer consumed. A process killed anywhere in
between leaves the buffer in place; the rerun derives the same item ids and merges them as
no-ops, so each item exists once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from memcli import detached, untrusted
from memcli.compact import buffers, carry, commits, merge, rules, session, summarizer, tasks, text
from memcli.compact.drafts import Draft
from memcli.compact.observations import Obs, from_records
from memcli.errors import MemError
from memcli.observed import buffer, filters
from memcli.paths import StorePaths

if TYPE_CHECKING:
    from memcli.api import Memory
    from memcli.privacy.redactor import Redactor

MAX_INSTRUCTION_BYTES = 200_000


@dataclass
class CompactResult:
    """What compacting one session did."""

    session: str
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    items: list[str] = field(default_factory=list)  # every item the session's facts landed in
    summary_path: Path | None = None
    consumed: int = 0  # observations compacted in this run
    compactor: str = "rules"  # or "summarizer"
    skipped: str = ""  # why nothing was done (another compaction holds the session)


def compact_session(memory: Memory, session: str) -> CompactResult:
    """Compact one session's pending observations; a no-op when there are none."""
    name = buffers.stem(session)
    try:
        with buffers.session_lock(memory.paths, name):
            return _compact_locked(memory, name)
    except buffers.Busy as exc:
        return CompactResult(name, skipped=exc.message)


def compact_all(memory: Memory) -> list[CompactResult]:
    """Compact every pending buffer; a session that fails is logged and reported, not fatal."""
    results = []
    for name in buffers.pending(memory.paths):
        try:
            results.append(compact_session(memory, name))
        except MemError as exc:
            buffers.log(memory.paths, f"session {name}: {exc.message}")
            results.append(CompactResult(name, skipped=exc.message))
    return results


def stale_sessions(
    memory: Memory,
    older_than_seconds: float = buffers.STALE_SECONDS,
    ended_seconds: float = buffers.ENDED_SECONDS,
) -> list[str]:
    """Buffers whose session is over but was never compacted (see `buffers.stale_sessions`)."""
    return buffers.stale_sessions(memory.paths, older_than_seconds, ended_seconds)


def spawn_detached(memory: Memory, sessions: Sequence[str] | None = None) -> int:
    """Compact ``sessions`` (all pending buffers when None) in a detached background process,
    returning its pid at once. The process runs :func:`memcli.compact.background.main`;
    its failures go to ``local/mem.log``."""
    code = "import sys; from memcli.compact.background import main; main(sys.argv[1:])"
    args = [str(memory.root), *(sessions if sessions else ["--all"])]
    return detached.spawn_python(code, args, memory.root)


def _compact_locked(memory: Memory, name: str) -> CompactResult:
    paths = memory.paths
    path = buffers.buffer_path(paths, name)
    records = buffers.read(path)
    state, done = buffers.read_journal(paths, name)
    fresh = [o for o in from_records(records) if o.id not in done]
    obs = [replace(o, index=number) for number, o in enumerate(fresh)]
    result = CompactResult(name)
    if obs:
        result = compact_observations(memory, name, obs, state, done)
    present = {str(r["id"]) for r in records if isinstance(r.get("id"), str)}
    if records:
        buffers.consume(path, present)
    return result


def compact_observations(
    memory: Memory,
    name: str,
    obs: list[Obs],
    state: dict[str, Any],
    done: set[str],
    raws: dict[str, dict[str, Any]] | None = None,
) -> CompactResult:
    """Compact observations not yet in the journal, write everything, then journal them.

    ``raws`` (observation id -> raw record) stands in for ``local/raw/`` when the raw records
    are not on disk (imports).
    """
    paths = memory.paths
    memory.adopt_identity()
    scope_project = memory.scope().get("project") or ""
    # The committed identity wins over what capture saw (a remote URL differs in each fork).
    committed = (memory.settings().get("scope") or {}).get("project")
    project = committed or next((o.project for o in obs if o.project), "") or scope_project
    session_id = next((o.session for o in obs if o.session), name)
    carried = carry.restore(state)  # open episodes of earlier batches, before this one's
    analysis = rules.analyse([*carried, *(replace(o, index=len(carried) + o.index) for o in obs)])
    _whole_conclusions(paths.local, analysis, raws or {})
    ctx = rules.Context(
        session=session_id,
        instructions=text.InstructionFiles(_instruction_texts(memory.root)),
        edit_hints=_edit_hints(paths.local, analysis, raws or {}),
        commits=_whole_commits(paths.local, analysis, raws or {}),
    )
    compactor, drafts = "rules", None
    user_compact = _user_compact_settings(paths)
    command = user_compact.get("summarizer")
    if command:
        timeout = float(user_compact["timeout_seconds"])
        budget = int(user_compact["summarizer_max_chars"])
        drafts = summarizer.summarize(
            paths, str(command), timeout, analysis, ctx, budget, memory.mask
        )
        compactor = "summarizer" if drafts is not None else "rules"
    if drafts is None:
        drafts = rules.compact(analysis, ctx)
    drafts = _not_dismissed(drafts, str(paths.local), session_id)
    redactor = memory.redactor()
    drafts = [_masked(d, redactor) for d in drafts]
    outcome = merge.apply(memory.store, drafts, project, buffers.work_dir(paths) / "pool.json")
    unfinished = tasks.unfinished(analysis, session_id) is not None
    stale = carry.retired(analysis, project, session_id, unfinished)
    retired = carry.retire(memory.store, [i for i in stale if i not in outcome.landed], session_id)
    new_state = session.combine(state, analysis, outcome.landed, unfinished, project, compactor)
    gone = set(stale) - set(outcome.landed)
    new_state["items"] = [i for i in new_state["items"] if i not in gone]
    new_state[carry.STATE_KEY] = carry.keep(analysis)
    new_state = cast("dict[str, Any]", redactor.mask_obj(new_state))
    summary_path = None
    if session.worth_writing(new_state):
        summary_path = session.write(paths, name, new_state)
    buffers.write_journal(paths, name, new_state, done | {o.id for o in obs})
    buffers.log(
        paths,
        f"session {name}: {len(obs)} observations, {len(outcome.added)} added, "
        f"{len(outcome.updated)} updated, {len(outcome.superseded)} superseded, "
        f"{len(retired)} retired ({compactor})",
    )
    for too_large in outcome.too_large:
        buffers.log(paths, f"session {name}: item {too_large} not written: over the size limit")
    return CompactResult(
        session=name,
        added=outcome.added,
        updated=outcome.updated,
        superseded=outcome.superseded,
        items=list(dict.fromkeys(outcome.landed)),
        summary_path=summary_path,
        consumed=len(obs),
        compactor=compactor,
    )


def _user_compact_settings(paths: StorePaths) -> dict[str, Any]:
    """The summarizer settings, from the user's own config only: a committed config never
    names a command (see docs/security.md). A broken user config means the rules, logged."""
    from memcli import userconfig

    try:
        return dict(userconfig.load()["compact"])
    except MemError as exc:
        buffers.log(paths, f"user config ignored ({exc}); using the rules")
        return {"summarizer": None}


def _not_dismissed(drafts: list[Draft], local: str, session_id: str) -> list[Draft]:
    """Drafts whose evidence is a candidate the model dismissed at a checkpoint are dropped."""
    from memcli.checkpoint import state

    dismissed = state.dismissed_refs(local, session_id)
    if not dismissed:
        return drafts
    return [d for d in drafts if not any(e.get("ref") in dismissed for e in d.evidence)]


def _instruction_texts(root: Path) -> list[str]:
    texts = []
    for name in text.INSTRUCTION_FILES:
        try:
            data = untrusted.read_bytes(
                root / name, MAX_INSTRUCTION_BYTES, follow=True, truncate=True
            )
        except untrusted.Unreadable:
            continue
        texts.append(data.decode("utf-8", "replace"))
    return texts


def _edit_hints(
    local: Path, analysis: rules.Analysis, raws: dict[str, dict[str, Any]]
) -> dict[str, str]:
    """``old`` -> ``new`` of one-line edits in episodes, from their (masked) raw records."""
    edits = [o for episode in analysis.episodes for o in episode.edits]
    found = {k: _hint(v) for k, v in _raw_payloads(local, edits, raws).items()}
    return {k: v for k, v in found.items() if v}


def _whole_commits(
    local: Path, analysis: rules.Analysis, raws: dict[str, dict[str, Any]]
) -> dict[str, str]:
    """Commit commands whole (capture cuts a command at 200 characters, and a heredoc's line
    ends tell its subject from its body), from their (masked) raw records: observation id ->
    command."""
    wanted = [o for o in analysis.obs if commits.is_commit(o) and not o.carried]
    found = {k: _command_of(v) for k, v in _raw_payloads(local, wanted, raws).items()}
    return {k: v for k, v in found.items() if v}


MAX_CONCLUSION_CHARS = 20_000  # a closing message longer than this is a pasted document


def _whole_conclusions(
    local: Path, analysis: rules.Analysis, raws: dict[str, dict[str, Any]]
) -> None:
    """Closing messages that capture trimmed (it keeps a long text's head and tail, and a
    long summary states its cause in the middle: "The commit was hanging because ...") are
    read whole from their (masked) raw records, in place, so every rule sees the same text."""
    marker = filters.TRIM_MARKER.split("{}", 1)[0]
    wanted = [o for o in analysis.conclusions if o.kind == "conclusion" and marker in o.excerpt]
    found = _raw_payloads(local, wanted, raws)
    for o in wanted:
        payload = found.get(o.id)
        said = payload.get("last_assistant_message") if isinstance(payload, dict) else None
        if isinstance(said, str) and len(o.excerpt) < len(said) <= MAX_CONCLUSION_CHARS:
            o.excerpt = said


def _raw_payloads(
    local: Path, observations: list[Obs], raws: dict[str, dict[str, Any]]
) -> dict[str, object]:
    """Observation id -> the hook payload of its (masked) raw record: from ``raws`` where it
    is there, else read once per raw file under ``local`` (only a plain ``raw/NAME``)."""
    found: dict[str, object] = {}
    wanted: dict[str, set[str]] = {}
    for o in observations:
        if o.id in raws:
            found[o.id] = raws[o.id].get("payload")
            continue
        file_name, _, obs_id = o.raw.partition("#")
        if obs_id and file_name.startswith("raw/") and "/" not in file_name[4:]:
            wanted.setdefault(file_name, set()).add(obs_id)
    for file_name, ids in wanted.items():
        for record in buffer.raw_records(str(local / file_name), ids):
            found[str(record["id"])] = record.get("payload")
    return found


def _command_of(payload: object) -> str:
    args = payload.get("tool_input") if isinstance(payload, dict) else None
    command = args.get("command") if isinstance(args, dict) else None
    return command if isinstance(command, str) else ""


def _hint(payload: object) -> str:
    if not isinstance(payload, dict):
        return ""
    args = payload.get("tool_input") or payload.get("toolArgs") or {}
    if not isinstance(args, dict):
        return ""
    edits = args.get("edits")
    if isinstance(edits, list) and len(edits) == 1 and isinstance(edits[0], dict):
        args = edits[0]
    old = args.get("old_string", args.get("old_str"))
    new = args.get("new_string", args.get("new_str"))
    command = args.get("command")
    if old is None and new is None and isinstance(command, str):
        old, new = _shell_replacement(command)  # SWE-agent's editor, run as a command
    if not isinstance(old, str) or not isinstance(new, str):
        return ""
    # A short edit of a few lines reads as one ("`if x in s:` -> `if any(x is v for v in s):`").
    old, new = " ".join(old.split()), " ".join(new.split())
    if not old or len(old) > MAX_HINT or len(new) > MAX_HINT:
        return ""
    return f"`{old}` -> `{new}`"


MAX_HINT = 160  # characters of each side of an edit shown in its item


def _shell_replacement(command: str) -> tuple[str | None, str | None]:
    """``--old_str`` and ``--new_str`` of ``str_replace_editor str_replace PATH ...``."""
    if not command.startswith("str_replace_editor str_replace "):
        return None, None
    import shlex

    try:
        words = shlex.split(command)
    except ValueError:
        return None, None
    found = {w: words[n + 1] for n, w in enumerate(words[:-1]) if w in ("--old_str", "--new_str")}
    return found.get("--old_str"), found.get("--new_str")


def _masked(draft: Draft, redactor: Redactor) -> Draft:
    """Mask once more at the door: nothing unmasked reaches a committed file."""
    scrub = redactor.mask
    draft.title = scrub(draft.title)
    draft.body = scrub(draft.body)
    draft.tags = [scrub(t) for t in draft.tags]
    draft.anchors = [{k: scrub(v) for k, v in a.items()} for a in draft.anchors]
    draft.evidence = [
        {k: scrub(v) if k == "excerpt" else v for k, v in e.items()} for e in draft.evidence
    ]
    return draft
