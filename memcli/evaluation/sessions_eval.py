"""Did the model use what memory gave it? (`mem eval --sessions`)

Inputs: the captured sessions (:mod:`memcli.evaluation.sessions_data`) and the receipts log
(``local/receipts.jsonl``, one line per retrieval). Receipts carry no session id, so each is
given to a session by time: an ``index`` receipt (written at session start, before the first
prompt is captured) to the session that starts within :data:`LEAD_SECONDS` after it, else to
the session running at that moment; any other receipt (written as a prompt or a tool call is
captured) to the session running at that moment, give or take :data:`GRACE_SECONDS` (the
latest started, when sessions overlap). Receipts that fit no session are counted apart.

Two kinds of retrieval are told apart:

- **injected**: what hooks pushed into the context unasked, the ``index`` at session start and
  ``recall`` on a prompt. The **effective injection rate** is the share of the distinct items
  injected into a session that the model then used;
- **pulled**: what the model fetched itself through the MCP tools (``mcp-search``,
  ``mcp-get``, ``mcp-index`` receipts), reported beside it with its own rate.

An item counts as **used** when, in an observation at or after its injection, the model's own
text (tool arguments, the files its tools touched, its edits and answers; never tool output)
holds its id, one of its anchors (a file path, or a symbol of 4+ characters), or most of its
title's words (at least 2, and at least 60 %, stemmed as the search index stems them). A
pulled item's use is not the call that fetched it: a ``memory_get`` answering a search counts,
the ``memory_search`` call itself does not.

Context share: tokens injected (as the receipts record them) against the budget they were cut
to (``budgets.index_tokens`` per index, ``budgets.recall_tokens`` per recall), and memory's
tokens (injected and pulled) against the whole session, estimated as the captured characters / 4
(without the answers of mem's own tools) plus memory's tokens (injected text is fenced and
never captured; pulled answers are counted once, from the receipts).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from memcli.api import Memory
from memcli.evaluation.sessions_data import Observation, Session, epoch, load_sessions
from memcli.retrieval import context, receipts

PUSHED = ("index", "recall")
PULLED = {"mcp-search": "search", "mcp-get": "get", "mcp-index": "index"}
LEAD_SECONDS = 30 * 60
GRACE_SECONDS = 60
TITLE_SHARE = 0.6
MIN_SYMBOL = 4


@dataclass
class Injection:
    op: str
    ts: float
    ids: list[str]
    tokens: int

    @property
    def pulled(self) -> bool:
        return self.op in PULLED


@dataclass
class ItemFacts:
    id: str
    title_terms: set[str] = field(default_factory=set)
    paths: list[str] = field(default_factory=list)
    symbols: list[str] = field(default_factory=list)


@dataclass
class ItemUse:
    id: str
    op: str
    how: str  # "id", "anchor", "title", or "" when not used


@dataclass
class SessionReport:
    session: Session
    injections: list[Injection]
    injected: list[ItemUse]
    pulled: list[ItemUse]
    budget_tokens: int

    @property
    def injected_tokens(self) -> int:
        return sum(i.tokens for i in self.injections if not i.pulled)

    @property
    def pulled_tokens(self) -> int:
        return sum(i.tokens for i in self.injections if i.pulled)

    @property
    def session_tokens(self) -> int:
        memory = self.injected_tokens + self.pulled_tokens
        return math.ceil(self.session.captured_chars / 4) + memory

    def to_dict(self) -> dict[str, Any]:
        used = [u for u in self.injected if u.how]
        pulled_used = [u for u in self.pulled if u.how]
        return {
            "session": self.session.session_id,
            "agent": self.session.agent,
            "start": context.iso(self.session.start or 0.0),
            "end": context.iso(self.session.end or 0.0),
            "observations": len(self.session.observations),
            "session_tokens": self.session_tokens,
            "injections": sum(1 for i in self.injections if not i.pulled),
            "injected_items": len(self.injected),
            "used_items": len(used),
            "injection_rate": _ratio(len(used), len(self.injected)),
            "injected_tokens": self.injected_tokens,
            "budget_tokens": self.budget_tokens,
            "budget_share": _ratio(self.injected_tokens, self.budget_tokens),
            "pulls": sum(1 for i in self.injections if i.pulled),
            "pulled_items": len(self.pulled),
            "pulled_used": len(pulled_used),
            "pull_rate": _ratio(len(pulled_used), len(self.pulled)),
            "pulled_tokens": self.pulled_tokens,
            "context_share": _ratio(self.injected_tokens + self.pulled_tokens, self.session_tokens),
            "used": [{"id": u.id, "how": u.how, "op": u.op} for u in used + pulled_used],
            "unused": [u.id for u in self.injected if not u.how],
        }


@dataclass
class SessionsReport:
    sessions: list[SessionReport]
    unattributed: int  # receipts that fit no captured session

    def overall(self) -> dict[str, Any]:
        injected = sum(len(r.injected) for r in self.sessions)
        used = sum(1 for r in self.sessions for u in r.injected if u.how)
        pulled = sum(len(r.pulled) for r in self.sessions)
        pulled_used = sum(1 for r in self.sessions for u in r.pulled if u.how)
        tokens = sum(r.injected_tokens for r in self.sessions)
        pulled_tokens = sum(r.pulled_tokens for r in self.sessions)
        budget = sum(r.budget_tokens for r in self.sessions)
        whole = sum(r.session_tokens for r in self.sessions)
        return {
            "sessions": len(self.sessions),
            "sessions_with_injections": sum(1 for r in self.sessions if r.injected),
            "injected_items": injected,
            "used_items": used,
            "injection_rate": _ratio(used, injected),
            "pulled_items": pulled,
            "pulled_used": pulled_used,
            "pull_rate": _ratio(pulled_used, pulled),
            "injected_tokens": tokens,
            "budget_tokens": budget,
            "budget_share": _ratio(tokens, budget),
            "pulled_tokens": pulled_tokens,
            "session_tokens": whole,
            "context_share": _ratio(tokens + pulled_tokens, whole),
            "unattributed_receipts": self.unattributed,
        }

    def to_dict(self) -> dict[str, Any]:
        return {"overall": self.overall(), "sessions": [r.to_dict() for r in self.sessions]}


def _ratio(part: float, whole: float) -> float | None:
    return round(part / whole, 4) if whole else None


def read_injections(memory: Memory) -> list[Injection]:
    """Every injecting or pulling receipt, oldest first; unreadable lines are skipped."""
    found: list[Injection] = []
    for receipt in receipts.read(memory.paths, limit=10**9):
        op = receipt.get("op")
        ts = epoch(receipt.get("time"))
        if ts is None or not isinstance(op, str) or (op not in PUSHED and op not in PULLED):
            continue
        ids = [
            str(r[0] if isinstance(r, list) and r else r)
            for r in receipt.get("returned") or []
            if isinstance(r, list | str)
        ]
        tokens = receipt.get("tokens")
        tokens = tokens if isinstance(tokens, int) and tokens > 0 and ids else 0
        found.append(Injection(op, ts, ids, tokens))
    found.sort(key=lambda i: i.ts)
    return found


def attribute(
    injections: list[Injection], sessions: list[Session]
) -> tuple[dict[str, list[Injection]], int]:
    """The injections of each session (by stem), and how many fit none."""
    spans = [(s.stem, s.start or 0.0, s.end or 0.0) for s in sessions]
    by_session: dict[str, list[Injection]] = {}
    lost = 0
    for injection in injections:
        t = injection.ts
        upcoming = [span for span in spans if t < span[1] <= t + LEAD_SECONDS]
        if injection.op == "index" and upcoming:
            chosen: tuple[str, float, float] | None = min(upcoming, key=lambda span: span[1])
        else:
            running = [
                span for span in spans if span[1] - GRACE_SECONDS <= t <= span[2] + GRACE_SECONDS
            ]
            chosen = max(running, key=lambda span: span[1]) if running else None
        if chosen is None:
            lost += 1
        else:
            by_session.setdefault(chosen[0], []).append(injection)
    return by_session, lost


def item_facts(memory: Memory) -> dict[str, ItemFacts]:
    from memcli.retrieval.tokenize import tokens

    facts: dict[str, ItemFacts] = {}
    for item in memory.items():
        paths = [a["path"] for a in item.anchors if a.get("path")]
        symbols = [a["symbol"] for a in item.anchors if len(a.get("symbol", "")) >= MIN_SYMBOL]
        facts[item.id] = ItemFacts(item.id, set(tokens(item.title)), paths, symbols)
    return facts


class _Matcher:
    """Tests observations for uses of items; each observation is tokenised once."""

    def __init__(self) -> None:
        self._terms: dict[int, set[str]] = {}

    def _tokens(self, obs: Observation) -> set[str]:
        from memcli.retrieval.tokenize import tokens

        key = id(obs)
        if key not in self._terms:
            self._terms[key] = set(tokens(obs.model_text))
        return self._terms[key]

    def how(self, facts: ItemFacts, obs: Observation) -> str:
        text = obs.model_text
        if not text:
            return ""
        if re.search(rf"(?<![\w-]){re.escape(facts.id)}(?![\w-])", text, re.IGNORECASE):
            return "id"
        for path in facts.paths:
            if path in text or any(f == path or f.endswith("/" + path) for f in obs.files):
                return "anchor"
        for symbol in facts.symbols:
            if re.search(rf"(?<!\w){re.escape(symbol)}(?!\w)", text):
                return "anchor"
        terms = facts.title_terms
        if len(terms) >= 2:
            shared = len(terms & self._tokens(obs))
            if shared >= max(2, math.ceil(TITLE_SHARE * len(terms))):
                return "title"
        return ""


def _uses(
    session: Session,
    injections: list[Injection],
    facts: dict[str, ItemFacts],
    pulled: bool,
    matcher: _Matcher,
) -> list[ItemUse]:
    """One entry per distinct item, judged from its first injection on."""
    first: dict[str, Injection] = {}
    for injection in injections:
        if injection.pulled == pulled:
            for item_id in injection.ids:
                first.setdefault(item_id, injection)
    uses: list[ItemUse] = []
    for item_id, injection in first.items():
        item = facts.get(item_id) or ItemFacts(item_id)
        skip = PULLED.get(injection.op, "")
        how = ""
        for obs in session.observations:
            if obs.ts < injection.ts or (skip and obs.self_tool == skip):
                continue
            how = matcher.how(item, obs)
            if how:
                break
        uses.append(ItemUse(item_id, injection.op, how))
    return uses


def evaluate_sessions(memory: Memory, only: str | None = None) -> SessionsReport:
    """The report over every captured session of ``memory`` (or the one named ``only``)."""
    sessions = load_sessions(memory.paths, only)
    injections = read_injections(memory)
    by_session, lost = attribute(injections, load_sessions(memory.paths) if only else sessions)
    facts = item_facts(memory)
    settings = context.load_settings(memory.paths)
    budgets = settings.get("budgets") if isinstance(settings.get("budgets"), dict) else {}
    assert isinstance(budgets, dict)
    per_op = {
        "index": int(budgets.get("index_tokens", 400) or 400),
        "recall": int(budgets.get("recall_tokens", 150) or 150),
    }
    matcher = _Matcher()
    reports: list[SessionReport] = []
    for session in sessions:
        mine = by_session.get(session.stem, [])
        budget = sum(per_op[i.op] for i in mine if i.op in per_op)
        reports.append(
            SessionReport(
                session,
                mine,
                _uses(session, mine, facts, False, matcher),
                _uses(session, mine, facts, True, matcher),
                budget,
            )
        )
    return SessionsReport(reports, lost)
