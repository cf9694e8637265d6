"""What each MCP tool does, with no MCP in sight: plain values in, plain dicts out.

Every bad argument raises :class:`~memcli.errors.MemError` with a one-line message naming the
argument (``limit: must be from 1 to 50``); the server turns it into a tool error, so the model
reads why and the server keeps running.

Retrievals leave receipts in ``local/receipts.jsonl`` like the commands do, under their own
operation names (``mcp-search``, ``mcp-get``, ``mcp-index``) with the tokens the answer put
into the model's context, so `mem eval --sessions` can tell what the model pulled itself.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memcli import __version__, model, userstore
from memcli.api import Memory
from memcli.errors import MemError
from memcli.mcpserver.cache import IndexCache
from memcli.paths import StorePaths, find_repo_root
from memcli.retrieval import context, layer1, receipts, search, tokenize

MAX_LIMIT = 50
MAX_QUERY_CHARS = 2000
MAX_BODY_CHARS = 8000
MAX_TAGS = 12
MAX_BUDGET = 20_000
EVIDENCE_RAW_CHARS = 4000  # one raw observation, as JSON, is cut to this in a tool answer
# The index's closing line names the tools instead of the commands (never longer: the budget
# was fitted with the original).
MORE = "More: memory_search(query) finds items on a topic; memory_get(id) shows one whole."


def resolve_root(start: Path | None) -> Path:
    """The repository whose memory the server serves: the git root at or above ``start``."""
    root = find_repo_root(start)
    if root is None:
        where = (start or Path.cwd()).resolve()
        raise MemError(f"not inside a git repository: {where}")
    return root


class MemoryService:
    """The four tools over one repository's store; the index stays loaded between calls."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.paths = StorePaths(root)
        self.cache = IndexCache(self.paths)

    # helpers

    def _memory(self) -> Memory:
        if not self.paths.memory.is_dir():
            raise MemError(f"no .memory/ in {self.root} (run `mem init` there first)")
        return Memory(self.root)

    def _receipt(
        self, op: str, query: str | None, returned: list[tuple[str, float]], **kw: Any
    ) -> None:
        answer = kw.get("answer")
        tokens = context.estimate_tokens(json.dumps(answer, ensure_ascii=False)) if answer else 0
        receipts.append(
            self.paths,
            op,
            query=query,
            candidates=int(kw.get("candidates", len(returned))),
            returned=returned,
            tokens=tokens,
            scope=kw.get("scope"),
        )

    # tools

    def search(self, query: str, limit: int = 5, kind: str | None = None) -> dict[str, Any]:
        """Layer 2: the best items for ``query`` in this project, best first."""
        if not isinstance(query, str) or not query.strip():
            raise MemError("query: must not be empty")
        if len(query) > MAX_QUERY_CHARS:
            raise MemError(f"query: longer than {MAX_QUERY_CHARS} characters")
        _check_limit(limit)
        kind = _check_kind(kind)
        self._memory()
        ctx = context.QueryContext.load(self.paths)
        parsed = tokenize.Query(query)
        outcome = self.cache.use(lambda index: search.rank(index, ctx, parsed, limit, kind))
        # The user-level store, as `mem search` and Memory.search fold it in.
        userstore.merge_hits(self.root, outcome, query, limit, kind=kind, record=False)
        results = [_hit(r) for r in outcome.results]
        answer: dict[str, Any] = {
            "query": query,
            "scope": ctx.project,
            "candidates": outcome.candidates,
            "results": results,
        }
        if not results:
            answer["hint"] = "No item matched. Try other words, an identifier or a file name."
        else:
            answer["hint"] = "memory_get(id) returns an item in full."
        self._receipt(
            "mcp-search",
            query,
            [(r.id, r.score) for r in outcome.results],
            candidates=outcome.candidates,
            scope=ctx.project,
            answer=answer,
        )
        return answer

    def get(self, item_id: str, evidence: bool = False) -> dict[str, Any]:
        """Layer 2 and 3: one item in full, with the raw observations behind it on request."""
        if not isinstance(item_id, str) or not item_id.strip():
            raise MemError("id: must not be empty")
        memory = self._memory()
        try:
            memory, item = memory.find(item_id.strip())
        except MemError as exc:
            raise MemError(exc.message, field="id") from None
        memory.record_use([item.id])
        answer = item.to_dict()
        if evidence:
            answer["evidence"] = [_evidence(e) for e in memory.evidence(item)]
        self._receipt("mcp-get", item_id, [(item.id, 1.0)], answer=answer)
        return answer

    def index(self, budget: int | None = None) -> dict[str, Any]:
        """Layer 1: the most useful items of this project, one line each, under ``budget``."""
        if budget is not None and (
            isinstance(budget, bool) or not isinstance(budget, int) or not 1 <= budget <= MAX_BUDGET
        ):
            raise MemError(f"budget: must be a whole number from 1 to {MAX_BUDGET}")
        self._memory()
        settings = context.load_settings(self.paths)
        if budget is None:
            budgets = settings.get("budgets")
            raw = budgets.get("index_tokens", 400) if isinstance(budgets, dict) else 400
            budget = int(raw) if isinstance(raw, int | float) and raw > 0 else 400
        chosen = budget
        ctx = context.QueryContext.load(self.paths, settings=settings)
        # layer1_index opens the index for each call; the same steps here keep it loaded.
        entries, total = self.cache.use(lambda index: layer1._entries(index, ctx, chosen))
        text, shown = layer1.fit([e.line for e in entries], total, chosen)
        if len(MORE) <= len(layer1.MORE):
            text = text.replace(layer1.MORE, MORE)
        kept = entries[:shown]
        hint = _index_hint(entries, total, shown, chosen)
        answer: dict[str, Any] = {
            "scope": ctx.project,
            "budget": chosen,
            "tokens": context.estimate_tokens(text),
            "total": total,
            "shown": shown,
            "text": text,
            "items": [e.to_dict() for e in kept],
        }
        if hint:
            answer["hint"] = hint
        self._receipt(
            "mcp-index",
            None,
            [(e.id, e.value) for e in kept],
            candidates=total,
            scope=ctx.project,
            answer={"text": text},
        )
        return answer

    def add(
        self,
        kind: str,
        title: str,
        body: str,
        tags: list[str] | None = None,
        candidate: str | None = None,
    ) -> dict[str, Any]:
        """Save one fact the model learned; masked like captured text, marked assumed.

        With ``candidate`` (an id a checkpoint named) the item keeps that candidate's evidence
        and is merged like a compacted item (see :mod:`memcli.checkpoint.record`)."""
        from memcli.observed import filters

        kind = _check_kind(kind) or ""
        if not kind:
            raise MemError(f"kind: required, one of {', '.join(model.KINDS)}")
        memory = self._memory()

        def scrub(value: str) -> str:
            return memory.mask(filters.drop_mem_fence(filters.drop_private(value)))

        if not isinstance(title, str) or not title.strip():
            raise MemError("title: must not be empty")
        if "\n" in title.strip():
            raise MemError("title: must be one line")
        if not isinstance(body, str) or not body.strip():
            raise MemError("body: must not be empty")
        if len(body) > MAX_BODY_CHARS:
            raise MemError(f"body: longer than {MAX_BODY_CHARS} characters; save one fact per item")
        clean_tags = _check_tags(tags)
        clean_title, clean_body = scrub(title.strip()), scrub(body)
        if not clean_title.strip() or not clean_body.strip():
            raise MemError(
                "title and body: nothing is left once private and fenced text is dropped"
            )
        if candidate:
            from memcli.checkpoint import record

            item = record.record(
                memory, str(candidate), kind, clean_title, clean_body,
                [scrub(t) for t in clean_tags],
            )  # fmt: skip
        else:
            item = memory.add(kind, clean_title, clean_body, tags=[scrub(t) for t in clean_tags])
            item = memory.edit(item.id, source={"compactor": "mcp", "version": __version__})
        answer = item.to_dict()
        answer["path"] = memory.store.display(memory.store.path_of(item.id))
        return answer

    def dismiss(self, candidates: list[str]) -> dict[str, Any]:
        """Dismiss checkpoint candidates: never asked about again, never recorded."""
        from memcli.checkpoint import record

        if not isinstance(candidates, list) or not all(isinstance(c, str) for c in candidates):
            raise MemError("candidates: must be a list of candidate ids")
        return {"dismissed": record.dismiss(self._memory(), candidates)}


def _index_hint(entries: list[layer1.IndexEntry], total: int, shown: int, budget: int) -> str:
    """Why the index text is empty, and what to do about it; empty when items are shown."""
    if shown or not total:
        return "" if shown else "No items in this project's memory yet."
    line = entries[0].line if entries else ""
    low, high = budget + 1, MAX_BUDGET
    if layer1.fit([line], total, high)[1] == 0:
        return f"Not even one line fits in {MAX_BUDGET} tokens."
    while low < high:  # the smallest budget that shows the first line
        middle = (low + high) // 2
        if layer1.fit([line], total, middle)[1]:
            high = middle
        else:
            low = middle + 1
    return (
        f"No line fits in a budget of {budget} ({total} items in scope): use a budget of at "
        f"least {low}, or leave it out for the project's default."
    )


def _check_limit(limit: Any) -> None:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise MemError(f"limit: must be a whole number from 1 to {MAX_LIMIT}")


def _check_kind(kind: Any) -> str | None:
    if kind is None or kind == "":
        return None
    if kind not in model.KINDS:
        raise MemError(f"kind: {kind!r} is not one of {', '.join(model.KINDS)}")
    return str(kind)


def _check_tags(tags: Any) -> list[str]:
    if tags is None:
        return []
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise MemError("tags: must be a list of words")
    if len(tags) > MAX_TAGS:
        raise MemError(f"tags: at most {MAX_TAGS}")
    cleaned = [t.strip() for t in tags]
    if any(not t or len(t) > 40 or any(c.isspace() for c in t) for t in cleaned):
        raise MemError("tags: each tag is one word of at most 40 characters")
    return cleaned


def _hit(result: search.SearchResult) -> dict[str, Any]:
    data = result.to_dict()
    for name in ("age_days", "updated", "branch", "project"):
        data.pop(name, None)
    return data


def _evidence(entry: dict[str, Any]) -> dict[str, Any]:
    shown = dict(entry)
    raw = shown.get("raw")
    if raw is not None:
        text = json.dumps(raw, ensure_ascii=False)
        shown["raw"] = raw if len(text) <= EVIDENCE_RAW_CHARS else text[:EVIDENCE_RAW_CHARS] + "..."
    return shown
