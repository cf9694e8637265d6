"""The optional summarizer: an external command (``claude -p``, ``codex exec``, ``gemini -p``,
``llm``, a script), named in the user's own config only, that turns a session's clustered
observations into items. It runs with compaction, which the session-end hook detaches; how the
command is run, unwrapped and accounted for is in :mod:`memcli.compact.headless`.

Protocol: the command gets one JSON document on stdin::

    {"prompt_version": "mem-compact/1", "instructions": "...", "session": "...",
     "kinds": [...], "item_schema": {...}, "clusters": [{"id", "type", "verified",
     "observations": [{"id", "ts", "kind", "summary", "input", "ok", "files", "excerpt"}]}]}

(a digest: masked again, and cut to ``compact.summarizer_max_chars`` characters by shortening
excerpts, then dropping the least telling observations), and prints
``{"model": "...", "items": [...]}`` (or a bare list of items) on stdout, each item
``{kind, title, body, tags?, anchors?: [path], evidence: [observation id], confidence?,
importance?}``. Every item is checked against the item schema; ``verified`` is accepted only
for an item whose evidence includes an episode with a validating run. A non-zero exit, a
timeout, unparsable or invalid output makes the caller fall back to the rules, with a line in
``local/mem.log``. The output is cached per batch under ``local/compact/``, so a rerun after a
crash gets the same items (and ids) instead of asking the model again.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
from collections.abc import Callable
from typing import Any

from memcli import __version__, atomic, model
from memcli.compact import buffers, commands, headless, text
from memcli.compact.drafts import Draft, evidence, importance
from memcli.compact.rules import Analysis, Context
from memcli.paths import StorePaths

PROMPT_VERSION = "mem-compact/1"
INSTRUCTIONS = (
    "Turn these coding-session observations into durable memory items for future sessions. "
    "One fact per item, conclusion first: root cause and remedy, not a replay of steps. "
    "Kinds: pitfall (a failure, its cause and fix), decision (a choice and its rationale), "
    "convention (a norm the user stated), env (versions, ports, paths, setup), task (work "
    "left unfinished). Skip anything trivial, unresolved, restated from instructions, or "
    "already obvious from the code. Cite the observation ids each item rests on. Output JSON: "
    '{"model": "<your model>", "items": [...]}; an empty list when nothing is worth keeping.'
)
ITEM_SCHEMA = {
    "kind": "one of the kinds",
    "title": "one line, at most 200 characters, the conclusion",
    "body": "a few lines: root cause and remedy first",
    "tags": ["lower-case words"],
    "anchors": ["file paths relative to the repository root"],
    "evidence": ["ids of the observations this rests on (at least one)"],
    "confidence": "verified only when a later passing run proves it, else assumed",
    "importance": "0 to 1 (optional)",
}
MAX_EXCERPT = 1500
MAX_CHARS = 60_000  # default digest budget (compact.summarizer_max_chars in the user config)
MIN_CHARS = 4_000  # a smaller budget leaves too little to summarize
_EXCERPT_STEPS = (MAX_EXCERPT, 600, 250, 100)


class Invalid(ValueError):
    """The summarizer's output breaks the protocol."""


def clusters(analysis: Analysis, excerpt: int = MAX_EXCERPT) -> list[dict[str, Any]]:
    """Observations grouped by topic: each episode, the prompts, the closing messages."""
    out: list[dict[str, Any]] = []
    grouped: set[str] = set()
    for number, episode in enumerate(analysis.episodes + analysis.unresolved, 1):
        members = [*episode.failures, *episode.edits, *episode.fixes]
        if episode.passed is not None:
            members.append(episode.passed)
        members.sort(key=lambda o: o.index)
        grouped.update(o.id for o in members)
        out.append(
            {
                "id": f"c{number}",
                "type": "episode" if episode.closed else "unresolved",
                "verified": episode.verified,
                "observations": [o.brief(excerpt) for o in members],
            }
        )
    said = (("prompts", analysis.prompts), ("conclusions", analysis.conclusions),
            ("notes", [n for n in analysis.notes if not n.carried]))  # fmt: skip
    for label, members in said:
        if members:
            grouped.update(o.id for o in members)
            out.append(
                {
                    "id": label,
                    "type": label,
                    "verified": False,
                    "observations": [o.brief(excerpt) for o in members],
                }
            )
    rest = [o for o in analysis.obs if o.id not in grouped and o.kind in ("command", "error")]
    if rest:
        briefs = [o.brief(min(300, excerpt)) for o in rest[-50:]]
        out.append({"id": "other", "type": "other", "verified": False, "observations": briefs})
    return out


def request(
    analysis: Analysis,
    session: str,
    budget: int = MAX_CHARS,
    mask: Callable[[str], str] | None = None,
) -> dict[str, Any]:
    """The digest the command gets: masked, and at most ``budget`` characters as JSON (not
    less than :data:`MIN_CHARS`)."""
    budget = max(budget, MIN_CHARS)
    base = {
        "prompt_version": PROMPT_VERSION,
        "instructions": INSTRUCTIONS,
        "session": session,
        "kinds": list(model.KINDS),
        "item_schema": ITEM_SCHEMA,
    }
    groups: list[dict[str, Any]] = []
    for excerpt in _EXCERPT_STEPS:
        groups = _masked(clusters(analysis, excerpt), mask)
        if _size({**base, "clusters": groups}) <= budget:
            return {**base, "clusters": groups}
    # Then the least telling first: other commands, closing messages and notes, prompts but
    # the first, the middle of long episodes (a failure and its verdict stay), the latest
    # clusters.
    groups = [g for g in groups if g["type"] not in ("other", "conclusions", "notes")]
    for group in groups:
        if group["type"] == "prompts":
            del group["observations"][1:]
    while groups and _size({**base, "clusters": groups}) > budget:
        biggest = max(groups, key=lambda g: len(g["observations"]))
        members = biggest["observations"]
        if len(members) > 2:
            del members[len(members) // 2]
        else:
            groups.pop()
    return {**base, "clusters": groups, "truncated": True}


def _size(document: dict[str, Any]) -> int:
    return len(json.dumps(document))


def _masked(
    groups: list[dict[str, Any]], mask: Callable[[str], str] | None
) -> list[dict[str, Any]]:
    """Every text masked once more with the current rules: the observations were masked at
    capture time, possibly under older rules, and this text leaves the machine."""
    if mask is None:
        return groups

    def walk(node: Any) -> Any:
        if isinstance(node, str):
            return mask(node)
        if isinstance(node, dict):
            return {key: walk(value) for key, value in node.items()}
        if isinstance(node, list):
            return [walk(value) for value in node]
        return node

    return [walk(group) for group in groups]


def summarize(
    paths: StorePaths,
    command: str,
    timeout: float,
    analysis: Analysis,
    ctx: Context,
    budget: int = MAX_CHARS,
    mask: Callable[[str], str] | None = None,
) -> list[Draft] | None:
    """Drafts from the summarizer, or None (logged) when the rules must take over. Each call
    made (not a cached answer) is accounted for in ``local/summarizer.jsonl``."""
    stdin = json.dumps(request(analysis, ctx.session, budget, mask))
    batch = hashlib.sha256(
        json.dumps([o.id for o in analysis.obs]).encode("utf-8") + command.encode("utf-8")
    ).hexdigest()[:16]
    cache = buffers.work_dir(paths) / f"{buffers.stem(ctx.session)}.summarizer.json"
    output = _cached(cache, batch)
    called = output is None
    usage = headless.Usage(chars_in=len(stdin))
    try:
        if output is None:
            output = headless.call(command, stdin, timeout)
        answer, usage = headless.unwrap(output)
        usage.chars_in = len(stdin)
        drafts = parse(answer, analysis, ctx.session, command, usage.model)
    except (Invalid, headless.Failed) as exc:
        if called:
            headless.record_cost(paths, ctx.session, usage, "failed")
        buffers.log(paths, f"summarizer {command!r} failed ({exc}); using the rules")
        return None
    if called:
        headless.record_cost(paths, ctx.session, usage, "ok")
    try:
        kept = mask(output) if mask is not None else output  # nothing unmasked under .memory/
        atomic.write_text(cache, json.dumps({"batch": batch, "output": kept}))
    except OSError:
        pass
    return drafts


def _cached(path: os.PathLike[str], batch: str) -> str | None:
    from memcli import untrusted

    raw = untrusted.read_private(path)
    try:
        data = json.loads(raw) if raw else None
    except ValueError:
        return None
    if (
        isinstance(data, dict)
        and data.get("batch") == batch
        and isinstance(data.get("output"), str)
    ):
        return str(data["output"])
    return None


def parse(
    output: str, analysis: Analysis, session: str, command: str, reported_model: str = ""
) -> list[Draft]:
    """Validated drafts from the summarizer's stdout; :class:`Invalid` on any problem."""
    try:
        data = json.loads(output)
    except ValueError as exc:
        raise Invalid(f"output is not JSON: {exc}") from None
    if isinstance(data, list):
        data = {"items": data}
    if not isinstance(data, dict) or not isinstance(data.get("items"), list):
        raise Invalid('expected {"items": [...]} or a list of items')
    name = data.get("model")
    model_name = name if isinstance(name, str) and name.strip() else ""
    model_name = model_name or reported_model or _program(command)
    by_id = {o.id: o for o in analysis.obs}
    proven = {
        o.id
        for e in analysis.episodes
        for o in [*e.failures, *e.edits, *e.fixes, *([e.passed] if e.passed else [])]
    }
    return [
        _draft(number, entry, by_id, proven, session, model_name)
        for number, entry in enumerate(data["items"], 1)
    ]


def _program(command: str) -> str:
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    return os.path.basename(words[0]) if words else "unknown"


def _draft(
    number: int,
    entry: object,
    by_id: dict[str, Any],
    proven: set[str],
    session: str,
    model_name: str,
) -> Draft:
    where = f"item {number}"
    if not isinstance(entry, dict):
        raise Invalid(f"{where}: not an object")
    kind, title, body = entry.get("kind"), entry.get("title"), entry.get("body")
    if kind not in model.KINDS:
        raise Invalid(f"{where}: kind {kind!r} is not one of {', '.join(model.KINDS)}")
    if not isinstance(title, str) or not title.strip() or "\n" in title.strip():
        raise Invalid(f"{where}: title must be one line of text")
    if len(title.strip()) > model.TITLE_MAX:
        raise Invalid(f"{where}: title is longer than {model.TITLE_MAX} characters")
    if not isinstance(body, str) or not body.strip():
        raise Invalid(f"{where}: body must be text")
    if "<mem-context" in title + body:
        raise Invalid(f"{where}: repeats injected memory")
    refs = entry.get("evidence")
    if not isinstance(refs, list) or not refs or not all(r in by_id for r in refs):
        raise Invalid(f"{where}: evidence must list ids of the observations given")
    tags = _strings(entry.get("tags", []), where, "tags")
    anchors = _strings(entry.get("anchors", []), where, "anchors")
    if any(a.startswith(("/", "~")) or ".." in a.split("/") for a in anchors):
        raise Invalid(f"{where}: anchors must be paths inside the repository")
    verified = entry.get("confidence") == "verified" and any(r in proven for r in refs)
    value = entry.get("importance")
    weight = importance(str(kind), verified)
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1:
        weight = round(float(value), 3)
    cited = [by_id[r] for r in refs]
    ts = max(o.ts for o in cited)
    lines = [line.rstrip() for line in body.strip().split("\n")]
    return Draft(
        rule="summarizer",
        key=text.normalized(f"{kind} {title}"),
        kind=str(kind),
        title=title.strip(),
        body="\n".join(lines) + ("\n" if len(lines) > 1 else ""),
        ts=ts,
        session=session,
        tags=model.normalize_tags(tags),
        confidence="verified" if verified else "assumed",
        importance=weight,
        anchors=[{"path": a} for a in dict.fromkeys(anchors)],
        evidence=[evidence(_excerpt(o), o.raw, session) for o in cited[:5]],
        source={
            "compactor": "summarizer",
            "version": __version__,
            "model": model_name,
            "prompt": PROMPT_VERSION,
        },
    )


def _excerpt(obs: Any) -> str:
    if obs.failed:
        return commands.decisive_line(obs.excerpt, obs.summary) or str(obs.summary)
    if obs.kind in ("prompt", "conclusion"):
        return str(obs.excerpt)
    return str(obs.summary)


def _strings(value: object, where: str, name: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise Invalid(f"{where}: {name} must be a list of text")
    return [v.strip() for v in value]
