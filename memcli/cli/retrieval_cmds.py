"""`mem search`, `mem index`, `mem recall`, `mem reindex`, `mem log`: plain functions.

They take plain values, write to stdout, and return an exit code, so that both the light
dispatcher (:mod:`memcli.cli.fastpath`, no Typer) and the Typer commands call them.
`index` and `recall` are hook commands and fail open: exit 0, nothing on stdout, the reason
in ``.memory/local/mem.log``; ``strict`` turns that off for tests.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from memcli.errors import EXIT_USAGE, MemError
from memcli.paths import StorePaths, find_repo_root, require_store

FORMATS = ("text", "json", "claude")
STARTED = time.monotonic()
# The SessionStart hook runs with a 10 s timeout. A cold index of a large store (a fresh
# clone) may take longer: item files are read until this many seconds after start, the
# answer comes from those, and the index is finished in the background. The rest of the
# budget covers tokenizing what was read, ranking and start-up under load.
INDEX_ANSWER_SECONDS = 4.5
AGENTS = ("claude-code", "codex", "gemini", "cursor", "copilot")


def error(message: str, code: int) -> int:
    sys.stderr.write(f"mem: {message}\n")
    return code


def failed(exc: MemError) -> int:
    from memcli.cli import failure

    return failure.report(exc)


def run_search(
    query: str,
    limit: int = 10,
    kind: str | None = None,
    project: str | None = None,
    all_projects: bool = False,
    as_json: bool = False,
) -> int:
    from memcli import userstore
    from memcli.kinds import KINDS
    from memcli.retrieval.loader import ASKED
    from memcli.retrieval.search import search_outcome

    if kind is not None and kind not in KINDS:
        return error(f"--kind: {kind!r} is not one of {', '.join(KINDS)}", EXIT_USAGE)
    if limit < 1:
        return error("--limit: must be 1 or more", EXIT_USAGE)
    try:
        root = require_store()
        outcome = search_outcome(
            root, query, limit, kind=kind, project=project, all_projects=all_projects,
            check=ASKED,
        )  # fmt: skip
        userstore.merge_hits(root, outcome, query, limit, kind=kind, project=project)
    except MemError as exc:
        return failed(exc)
    for problem in outcome.problems:
        sys.stderr.write(f"mem: warning: skipped {problem}\n")
    if as_json:
        sys.stdout.write(json.dumps([r.to_dict() for r in outcome.results], indent=2) + "\n")
        return 0
    if not sys.stdout.isatty():
        from memcli.cli import tsv

        for r in outcome.results:
            row = (r.id, r.kind, r.score, r.title, r.tags, r.age, r.snippet)
            sys.stdout.write(tsv.row(row) + "\n")
        return 0
    from memcli.cli import render

    render.print_search(query, outcome.results, outcome.candidates)
    return 0


def run_index(
    budget: int | None = None,
    fmt: str = "text",
    agent: str | None = None,
    project: str | None = None,
    all_projects: bool = False,
    strict: bool = False,
) -> int:
    """Layer 1; a hook command, so it fails open unless ``strict``."""
    try:
        if fmt not in FORMATS:
            raise MemError(f"--format: {fmt!r} is not one of {', '.join(FORMATS)}")
        if budget is not None and budget < 1:
            raise MemError("--budget: must be 1 or more")
        if agent is not None and agent not in AGENTS:
            raise MemError(f"--agent: {agent!r} is not one of {', '.join(AGENTS)}")
        from memcli.retrieval import layer1

        root = require_store()
        _compact_stale_sessions(root)
        seconds = float(os.environ.get("MEM_INDEX_SECONDS", INDEX_ANSWER_SECONDS))
        deadline = STARTED + seconds if not strict or "MEM_INDEX_SECONDS" in os.environ else None
        layer = layer1.layer1_index(
            root, budget, project=project, all_projects=all_projects, deadline=deadline
        )
        if layer.pending:
            from memcli.retrieval import background

            background.spawn_detached(StorePaths(root))
        # Nothing to inject: stay silent; but say so when the index is still being built.
        hook_text = layer1.for_hook(layer) if layer.entries or layer.pending else ""
        if agent == "cursor":
            out = json.dumps({"additional_context": hook_text}) if hook_text else ""
        elif agent in ("claude-code", "codex", "gemini") or fmt == "claude":
            out = layer1.render_claude(layer) if hook_text else ""
        elif fmt == "json":
            out = layer1.render_json(layer)
        else:
            out = layer1.render_text(layer)
        if out:
            sys.stdout.write(out.rstrip("\n") + "\n")
        return 0
    except Exception as exc:  # noqa: BLE001 - a hook must never break the session
        return hook_failed("index", exc, strict)


def run_recall(budget: int | None = None, agent: str | None = None, strict: bool = False) -> int:
    """The UserPromptSubmit hook: the few items relevant to the prompt, if enabled."""
    try:
        from memcli.retrieval import context, layer1

        root = require_store()
        settings = context.load_settings(StorePaths(root))
        recall_settings = settings.get("recall")
        if not (isinstance(recall_settings, dict) and recall_settings.get("enabled")):
            return 0
        prompt = _prompt_from_stdin()
        if not prompt.strip():
            return 0
        text, _results = layer1.recall(root, prompt, budget)
        if text:
            if agent == "cursor":
                sys.stdout.write(json.dumps({"additional_context": text}) + "\n")
            else:
                event = "BeforeAgent" if agent == "gemini" else "UserPromptSubmit"
                sys.stdout.write(layer1.hook_json(event, text) + "\n")
        return 0
    except Exception as exc:  # noqa: BLE001 - a hook must never break the session
        return hook_failed("recall", exc, strict)


def _prompt_from_stdin() -> str:
    if sys.stdin is None or sys.stdin.isatty():
        return ""
    data = sys.stdin.read(1_000_000)
    try:
        payload = json.loads(data)
    except ValueError:
        return data
    if isinstance(payload, dict):
        for key in ("prompt", "user_prompt", "userPrompt", "text"):
            if isinstance(payload.get(key), str):
                return str(payload[key])
        return ""
    return data


def _compact_stale_sessions(root: Path) -> None:
    """Start a detached compaction of buffers whose session end was never seen."""
    from memcli.compact import buffers

    # The buffer check alone: memcli.api (and what it imports) only when there is work.
    stale = buffers.stale_sessions(StorePaths(root), 30 * 60)
    if stale:
        from memcli.api import Memory

        Memory(root).compact_in_background(stale)


def hook_failed(command: str, exc: Exception, strict: bool) -> int:
    reason = exc.message if isinstance(exc, MemError) else f"{type(exc).__name__}: {exc}"
    if strict:
        from memcli.cli import failure

        sys.stderr.write(f"mem: {reason}\n")
        return failure.exit_code(exc)
    if sys.stderr.isatty():  # a person typed it: say why, still exit 0 as hooks do
        sys.stderr.write(f"mem {command}: {reason}\n")
    root = find_repo_root()
    if root is not None and StorePaths(root).memory.is_dir():
        from memcli import memlog

        memlog.write(str(StorePaths(root).log), reason[:500], command)
    return 0


def run_reindex() -> int:
    from memcli.retrieval.search import reindex

    try:
        report = reindex(require_store(), force=True)
    except MemError as exc:
        return failed(exc)
    sys.stdout.write(f"indexed {report.documents} items in {report.seconds:.2f} s\n")
    for problem in report.problems:
        sys.stderr.write(f"mem: warning: skipped {problem}\n")
    return 0


def run_log(limit: int = 20, as_json: bool = False) -> int:
    from memcli.retrieval import receipts

    try:
        written = receipts.read(StorePaths(require_store()), limit)
    except MemError as exc:
        return failed(exc)
    if as_json:
        sys.stdout.write(json.dumps(written, indent=2) + "\n")
        return 0
    if not sys.stdout.isatty():
        from memcli.cli import tsv

        for receipt in written:
            sys.stdout.write(tsv.row(_receipt_fields(receipt)) + "\n")
        return 0
    for receipt in written:
        sys.stdout.write(_receipt_line(receipt) + "\n")
    return 0


def _receipt_fields(receipt: dict[str, Any]) -> list[object]:
    """time, operation, query, candidates, returned ids, tokens."""
    returned = receipt.get("returned") or []
    ids = [str(r[0] if isinstance(r, list) and r else r) for r in returned]
    keys = ("time", "op", "query", "candidates")
    return [*(receipt.get(k) for k in keys), ids, receipt.get("tokens", 0)]


def _receipt_line(receipt: dict[str, Any]) -> str:
    returned = receipt.get("returned") or []
    ids = ", ".join(str(r[0] if isinstance(r, list) else r) for r in returned[:5])
    query = str(receipt.get("query") or "")[:60]
    return (
        f"{receipt.get('time', '')}  {receipt.get('op', ''):7s} "
        f"{query!r:40s} {receipt.get('candidates', 0)} candidates -> [{ids}] "
        f"{receipt.get('tokens', 0)} tokens"
    )


def debug() -> bool:
    return os.environ.get("MEM_DEBUG") == "1"
