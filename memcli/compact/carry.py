"""Episodes across compaction batches of one session.

A session may be compacted in several batches (a stale buffer compacted at the next start,
then the rest at its end). A failure compacted in one batch and fixed in the next is still
one episode: each batch leaves, in the session's journal state, the observations of its
*open* episodes (a failing command never resolved, and the edits, setup commands and notes
after it), and the next batch analyses them before its own observations. They are marked
``carried``: never counted twice, never a source of conventions or decisions again.

When a later batch resolves a carried failure, what the earlier batch wrote for it alone is
*retired*: the session's open task item (the check passes now) and the environment fact of
that failure (the verified episode replaces it: one item per lesson). Only items the rules
wrote from this session alone are retired; anything another session or a person added to
stays.

Item ids are derived from the session, rule and key, so a replay or a rerun after a crash
derives the same drafts and the same retirements: nothing is added twice.
"""

from __future__ import annotations

from dataclasses import asdict, fields
from typing import TYPE_CHECKING, Any

from memcli import signals
from memcli.compact import commands, tasks, text
from memcli.compact.observations import Obs

if TYPE_CHECKING:
    from memcli.compact.rules import Analysis
    from memcli.store import ItemStore

STATE_KEY = "open_episodes"
MAX_CARRIED = 40  # observations kept for open episodes; the oldest go first
FAILURE_CHARS = 20_000  # of a failure's output: as much as its signature is looked for in
OTHER_CHARS = 1_500  # of a note's text or a passing command's output
_KINDS = ("command", "error", "edit", "note")
_FIELDS = {f.name for f in fields(Obs)} - {"index", "carried"}


def restore(state: dict[str, Any]) -> list[Obs]:
    """The observations an earlier batch left open, oldest first (indexes from 0)."""
    records = state.get(STATE_KEY)
    if not isinstance(records, list):
        return []
    out: list[Obs] = []
    for record in records:
        if not isinstance(record, dict) or record.get("kind") not in _KINDS:
            continue
        obs = Obs.from_record(len(out), {k: v for k, v in record.items() if k in _FIELDS})
        if obs is not None:
            obs.carried = True
            out.append(obs)
    return out


def keep(analysis: Analysis) -> list[dict[str, Any]]:
    """What the next batch needs of this one: the open episodes' failures and, after the
    first of them, the edits, passing commands and notes that may turn out to be its fix."""
    opened = [e for e in analysis.unresolved if not e.command.looking]
    if not opened:
        return []
    start = min(e.first.index for e in opened)
    failures = {f.index for e in opened for f in e.failures}
    # The open failures always (the latest half of the room at most), then the latest of
    # what came after the first of them.
    kept_failures = sorted(failures)[-(MAX_CARRIED // 2) :]
    others = [
        o.index
        for o in analysis.obs[start:]
        if o.index not in failures
        and (
            o.is_edit
            or (o.passed and not commands.parse(o.input).looking)
            or (o.kind == "note" and bool(o.excerpt))
        )
    ]
    room = MAX_CARRIED - len(kept_failures)
    chosen = sorted([*kept_failures, *(others[-room:] if room else [])])
    kept = [analysis.obs[i] for i in chosen]
    return [_record(o, o.index in failures) for o in kept]


def _record(o: Obs, failure: bool) -> dict[str, Any]:
    record = {k: v for k, v in asdict(o).items() if k in _FIELDS and v not in ("", None, [])}
    excerpt = o.excerpt
    limit = FAILURE_CHARS if failure else OTHER_CHARS
    if len(excerpt) > limit:
        half = limit // 2
        excerpt = excerpt[:half] + "\n[...]\n" + excerpt[-half:]
    if excerpt:
        record["excerpt"] = excerpt
    return record


def retired(analysis: Analysis, project: str, session: str, unfinished: bool) -> list[str]:
    """Ids of items an earlier batch wrote for failures this batch resolved, and its task of
    open work when this batch's last message states none."""
    ids = []
    if tasks.last_message(analysis) is not None and tasks.left_open(analysis, session) is None:
        ids.append(text.digest_id(project, session, tasks.RULE, tasks.SAID_KEY))
    resolved = [e for e in analysis.episodes if e.first.carried]
    if not resolved:
        return ids
    if not unfinished and any(e.command.check for e in resolved):
        ids.append(text.digest_id(project, session, tasks.RULE, tasks.KEY))
    for episode in resolved:
        for failure in episode.failures:
            kind, line = signals.failure(failure.excerpt)
            if kind in signals.ENVIRONMENT:
                ids.append(text.digest_id(project, session, "environment", f"{kind}\0{line}"))
    return list(dict.fromkeys(ids))


def retire(store: ItemStore, ids: list[str], session: str) -> list[str]:
    """Delete the items among ``ids`` that the rules wrote from ``session`` alone."""
    from memcli.errors import MemError

    gone = []
    for item_id in ids:
        if not store.path_of(item_id).is_file():
            continue
        try:
            item = store.get(item_id)
        except MemError:
            continue  # a broken file is lint's business, never deleted here
        sessions = {e.get("session") for e in item.evidence}
        if item.source.get("compactor") != "rules" or sessions != {session}:
            continue
        store.delete(item_id)
        gone.append(item_id)
    return gone
