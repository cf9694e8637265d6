"""The session summary: one short YAML file per compacted session under `.memory/sessions/`.

It holds the session's intent (its first real prompt), its outcome and status computed from
what happened (fixes, checks still failing, refused writes; never the assistant's own
closing words), whether work was left unfinished, the files changed and the items
the session produced, for coarse-grained retrieval and for reviewers.

A session may be compacted in several batches (a stale buffer compacted at the next start,
then more observations). The summary is rebuilt from the journal's running state plus the
new batch, so a batch is never counted twice.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memcli import __version__, atomic, phrasing, untrusted
from memcli.compact import commands, tasks, text
from memcli.compact.observations import Obs
from memcli.compact.rules import Analysis
from memcli.paths import StorePaths

ORDER = (
    "session",
    "project",
    "branch",
    "agent",
    "started",
    "ended",
    "intent",
    "outcome",
    "status",
    "items",
    "files",
    "stats",
    "compactor",
)
MAX_FILES = 20


def summary_path(paths: StorePaths, stem: str) -> Path:
    return paths.sessions / f"{stem}.yaml"


def combine(
    state: dict[str, Any],
    analysis: Analysis,
    items: list[str],
    unfinished: bool,
    project: str,
    compactor: str,
) -> dict[str, Any]:
    """The new running state: ``state`` (earlier batches) plus this batch."""
    obs = [o for o in analysis.obs if not o.carried]  # an earlier batch counted those
    first = obs[0] if obs else None
    new = dict(state)
    new.setdefault("session", first.session if first else "")
    new["project"] = new.get("project") or project
    for name in ("branch", "agent"):
        value = next((getattr(o, name) for o in obs if getattr(o, name)), "")
        new[name] = new.get(name) or value
    stamps = [o.ts for o in obs if o.ts]
    if stamps:
        new["started"] = min([*stamps, *([state["started"]] if state.get("started") else [])])
    if analysis.ended:
        new["ended"] = analysis.ended
    new["intent"] = state.get("intent") or analysis.intent
    outcome = _outcome(analysis)
    if outcome:
        new["outcome"] = outcome
    new["status"] = _status(analysis, unfinished) or new.get("status") or "no outcome"
    new["items"] = list(dict.fromkeys([*state.get("items", []), *items]))
    edited = [f for o in obs if o.is_edit for f in o.files]
    new["files"] = list(dict.fromkeys([*state.get("files", []), *edited]))[:MAX_FILES]
    stats = dict(state.get("stats", {}))
    for name, count in _counts(obs).items():
        stats[name] = int(stats.get(name, 0)) + count
    new["stats"] = stats
    new["compactor"] = {"name": compactor, "version": __version__}
    return new


def _counts(obs: list[Obs]) -> dict[str, int]:
    return {
        "observations": len(obs),
        "prompts": sum(1 for o in obs if o.kind == "prompt"),
        "commands": sum(1 for o in obs if o.is_command),
        "failed": sum(1 for o in obs if o.failed),
        "edits": sum(1 for o in obs if o.is_edit),
    }


def _status(analysis: Analysis, unfinished: bool) -> str:
    """From what happened, never from what the assistant said: a check left failing is
    ``unfinished``, a refused write ``blocked``; ``done`` needs a fix or a quiet ending."""
    checks = [o for o in analysis.obs if o.is_command and commands.parse(o.input).check]
    if unfinished or (checks and checks[-1].failed and not _edited_after(analysis, checks[-1])):
        return "unfinished"
    if tasks.cut_short(analysis) is not None:
        return "unfinished"  # the last turn was cut short by an API error
    if any(not _got_past(analysis, r) for r in analysis.refused):
        return "blocked"
    if analysis.episodes or analysis.conclusions:
        return "done"
    return ""


def _got_past(analysis: Analysis, refusal: Obs) -> bool:
    """Whether a later call of the same tool on the same target (its command, or one of its
    files) went through: a refusal the session got past (a hook's remedy, a granted
    permission) leaves nothing blocked."""
    files = set(refusal.files)
    return any(
        o.index > refusal.index
        and o.tool == refusal.tool
        and o.ok is True
        and ((refusal.input and o.input == refusal.input) or files & set(o.files))
        for o in analysis.obs
    )


def _edited_after(analysis: Analysis, o: Obs) -> bool:
    return any(e.is_edit and e.index > o.index for e in analysis.obs)


def _outcome(analysis: Analysis) -> str:
    """What happened: fixes, checks still failing, refusals, interruptions; the closing
    message only when nothing was run."""
    fixed = [
        f"fixed `{e.command.text}`" + (f" ({e.line})" if e.line else "") for e in analysis.episodes
    ]
    still = [
        f"`{e.command.text}` still failing" + (f" ({e.line})" if e.line else "")
        for e in analysis.unresolved
        if e.command.check
    ]
    refused = [f"refused: {o.input or ', '.join(o.files) or o.tool}" for o in analysis.refused]
    stopped = [f"interrupted `{o.input}`" for o in analysis.interrupted]
    failure = tasks.cut_short(analysis)
    if failure is not None:
        stopped.append(f"stopped by an API error ({text.one_line(failure.excerpt, 120)})")
    happened = fixed + still + refused + stopped
    if happened:
        return text.one_line("; ".join(happened), 300)
    if analysis.conclusions:
        said = [s for s in text.sentences(analysis.conclusions[-1].excerpt)
                if not phrasing.narration(s)]  # fmt: skip
        return text.one_line(" ".join(said[:2]), 300)
    return ""


def worth_writing(state: dict[str, Any]) -> bool:
    stats = state.get("stats", {})
    return bool(
        state.get("intent") or state.get("items") or stats.get("commands") or stats.get("edits")
    )


def write(paths: StorePaths, stem: str, state: dict[str, Any]) -> Path:
    """Write the summary atomically; comments a reviewer added survive a rewrite."""
    from memcli import yamlio

    path = summary_path(paths, stem)
    data = {k: state[k] for k in ORDER if state.get(k) not in (None, "", [], {})}
    existing = None
    if path.is_file():
        existing, _problem = yamlio.read(path)
    text_out = yamlio.render(data, existing, ORDER)
    try:
        if untrusted.read_text(path) == text_out:
            return path
    except untrusted.Unreadable:
        pass
    atomic.write_text(path, text_out)
    return path
