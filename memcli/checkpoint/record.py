"""Model-written items: the model's answer to a checkpoint, `mem add --candidate ID` (or MCP
``memory_add`` with ``candidate``), and its dismissals.

A recorded candidate becomes a draft like any the compactor makes, so it passes through the
same masking, validation, dedupe and merge: the same lesson recorded twice, or found again by
the rules at session end, lands in one item. The item keeps the candidate's evidence (its
excerpts and raw observation references) and says who wrote it: ``source.author: model`` and
``source.agent``.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from memcli import __version__, model, timeutil
from memcli.checkpoint import evidence as said_evidence
from memcli.checkpoint import state
from memcli.errors import MemError

if TYPE_CHECKING:
    from memcli.api import Memory
    from memcli.model import Item

COMPACTOR = "checkpoint"
TASK_DAYS = 30
MAX_BODY = 4000


def record(
    memory: Memory,
    candidate: str,
    kind: str,
    title: str,
    body: str,
    tags: list[str] | None = None,
    agent: str | None = None,
) -> Item:
    """Write (or merge) the item the model recorded for ``candidate``; returns it."""
    from memcli.compact import drafts, merge

    local = str(memory.paths.local)
    found = state.find(local, candidate)
    if found is None:
        raise MemError(
            f"no candidate {candidate!r} in this repository's checkpoints", field="candidate"
        )
    path, session_state, entry = found
    if said_evidence.link(local, entry):  # said before capture recorded it: its observation now
        state.save(path, session_state)
    if kind not in model.KINDS:
        raise MemError(f"{kind!r} is not one of {', '.join(model.KINDS)}", field="kind")
    title, body = memory.mask(" ".join(title.split())), memory.mask(body.strip())
    if not title:
        raise MemError("must not be empty", field="title")
    if not body:
        raise MemError("must not be empty", field="body")
    if len(body) > MAX_BODY:
        raise MemError(f"longer than {MAX_BODY} characters; record one fact per item", field="body")
    session = str(entry.get("session") or session_state.get("session") or "")
    verified = entry.get("verified") is True
    lines = [str(line) for line in _list(entry.get("lines"))]
    refs = [str(ref) for ref in _list(entry.get("refs")) if ref]
    evidence = [
        drafts.evidence(memory.mask(line), refs[min(n, len(refs) - 1)] if refs else "", session)
        for n, line in enumerate(lines)
    ]
    now = timeutil.now()
    expires = None
    if kind == "task":
        expires = timeutil.format_time(timeutil.parse_time(now) + dt.timedelta(days=TASK_DAYS))
    who = agent or str(session_state.get("agent") or "") or "unknown"
    draft = drafts.Draft(
        rule="model",
        key=candidate,
        kind=kind,
        title=title,
        body=body if "\n" not in body.strip() else body.rstrip() + "\n",
        ts=now,
        session=session,
        tags=model.normalize_tags([memory.mask(t) for t in tags or []]),
        confidence="verified" if verified else "assumed",
        importance=drafts.importance(kind, verified),
        anchors=[{"path": str(f)} for f in _list(entry.get("files"))[:5] if f],
        evidence=[e for e in evidence if e],
        expires=expires,
        source={"compactor": COMPACTOR, "author": "model", "agent": who, "version": __version__},
    )
    project = memory.scope().get("project") or ""
    outcome = merge.apply(memory.store, [draft], project)
    if not outcome.landed:
        raise MemError(f"{candidate}: the item could not be written", field="candidate")
    item_id = outcome.landed[0]
    state.resolve(local, [candidate], item_id)
    return memory.get(item_id)


def dismiss(memory: Memory, candidates: list[str]) -> list[str]:
    """Mark candidates dismissed; a MemError names the ids no checkpoint knows."""
    if not candidates:
        raise MemError("name at least one candidate id", field="candidates")
    local = str(memory.paths.local)
    for candidate in candidates:  # evidence links first: compaction skips what was dismissed
        found = state.find(local, candidate)
        if found is not None and said_evidence.link(local, found[2]):
            state.save(found[0], found[1])
    unknown = state.resolve(local, candidates, "dismissed")
    if unknown:
        raise MemError(f"no candidate {', '.join(unknown)} in this repository", field="candidates")
    return candidates


def _list(value: object) -> list[object]:
    return list(value) if isinstance(value, list) else []
