"""`mem eval --sessions`: injection rate and context share, hand-computed on two sessions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from memcli import api
from memcli.cli import eval_cmd
from memcli.evaluation import sessions_eval
from memcli.paths import StorePaths
from memcli.retrieval import context

runner = CliRunner()
T0 = "2026-11-20T10:00"  # session s1 runs from 10:00:00 to 10:05:00
T1 = "2026-11-20T12:00"  # session s2 runs from 12:00:00 to 12:00:20


def stamp(base: str, seconds: int) -> str:
    minutes, secs = divmod(seconds, 60)
    hour, minute = base.split("T")[1].split(":")
    total = int(hour) * 60 + int(minute) + minutes
    return f"{base.split('T')[0]}T{total // 60:02d}:{total % 60:02d}:{secs:02d}Z"


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def receipt(time: str, op: str, ids: list[str], tokens: int) -> dict[str, Any]:
    returned = [[i, 1.0] for i in ids]
    return {"time": time, "op": op, "query": None, "scope": "p", "candidates": 9,
            "returned": returned, "tokens": tokens}  # fmt: skip


def claude(event: str, **fields: Any) -> dict[str, Any]:
    return {"session_id": "s1", "cwd": "/repo", "hook_event_name": event, **fields}


@pytest.fixture
def sessions(repo: Path) -> dict[str, str]:
    memory = api.Memory.open(repo)
    a = memory.add(
        "pitfall", "Tests need Postgres on port 5433", "PGPORT.", anchors=["tests/conftest.py"]
    )
    b = memory.add("decision", "Lint with ruff instead of flake8", "Faster.")
    c = memory.add("convention", "Deploy blue-green on Fridays", "Never Mondays.")
    d = memory.add("env", "Redis cache keys expire after one hour", "TTL 3600.")
    paths = StorePaths(repo)
    conftest = "/repo/tests/conftest.py"
    payloads = [
        # The user's prompt names B's title words: prompts are not the model's text.
        claude("UserPromptSubmit", prompt="order tests fail; ruff flake8 lint? deploy?"),
        # Tool output names C's title: output is not the model's text either.
        claude(
            "PostToolUse",
            tool_name="Bash",
            tool_input={"command": "pytest tests/test_orders.py"},
            tool_response={"stdout": "Deploy blue-green on Fridays\n1 failed"},
        ),
        # An edit of A's anchor: A is used.
        claude(
            "PostToolUse",
            tool_name="Edit",
            tool_input={"file_path": conftest, "old_string": "5432", "new_string": "5433"},
            tool_response={"filePath": conftest},
        ),
        # The model's own search (pulled D): the call itself is no use of D.
        claude(
            "PostToolUse",
            tool_name="mcp__mem__memory_search",
            tool_input={"query": "redis cache expire"},
            tool_response=json.dumps({"results": [d.id]}),
        ),
        # The answer has most of B's title words: B is used.
        claude("Stop", last_assistant_message="Fixed. The suite now lints with ruff; no flake8."),
    ]
    offsets = [0, 100, 150, 200, 300]
    write_jsonl(
        paths.raw / "s1.jsonl",
        [
            {"id": f"o{n}", "ts": stamp(T0, offset), "payload": payload}
            for n, (offset, payload) in enumerate(zip(offsets, payloads, strict=True))
        ],
    )
    write_jsonl(
        paths.buffers / "s2.jsonl",
        [
            {"id": "p1", "session": "s2", "ts": stamp(T1, 0), "agent": "claude-code",
             "kind": "prompt", "summary": "prompt: cache?", "input": "", "excerpt": "cache?",
             "files": []},
            {"note": "a buffer note line is skipped", "ts": stamp(T1, 5)},
            # A memory_get of the item recall injected: D is used (by id).
            {"id": "p2", "session": "s2", "ts": stamp(T1, 20), "agent": "claude-code",
             "kind": "other", "tool": "mcp__mem__memory_get", "summary": "memory_get",
             "input": json.dumps({"id": d.id}), "excerpt": "", "files": []},
        ],
    )  # fmt: skip
    write_jsonl(
        paths.local / "receipts.jsonl",
        [
            receipt("2026-11-01T00:00:00Z", "index", [a.id], 30),  # before any session
            receipt(stamp(T0, -60), "index", [a.id, b.id, c.id], 120),  # s1's SessionStart
            receipt(stamp(T0, 50), "search", [c.id], 0),  # a terminal search: not injected
            receipt(stamp(T0, 200), "mcp-search", [d.id], 50),
            receipt(stamp(T1, 10), "recall", [d.id], 40),
        ],
    )
    return {"a": a.id, "b": b.id, "c": c.id, "d": d.id}


def test_rates_and_shares_match_the_hand_computed_numbers(
    repo: Path, sessions: dict[str, str]
) -> None:
    report = sessions_eval.evaluate_sessions(api.Memory.open(repo))
    budgets = context.load_settings(StorePaths(repo))["budgets"]
    index_budget, recall_budget = budgets["index_tokens"], budgets["recall_tokens"]
    s1, s2 = (r.to_dict() for r in report.sessions)
    assert s1["session"] == "s1" and s2["session"] == "s2"
    assert s1["observations"] == 5 and s2["observations"] == 2

    assert (s1["injected_items"], s1["used_items"]) == (3, 2)
    assert s1["injection_rate"] == pytest.approx(0.6667)
    assert {u["id"]: u["how"] for u in s1["used"]} == {
        sessions["a"]: "anchor",
        sessions["b"]: "title",
    }
    assert s1["unused"] == [sessions["c"]]
    assert (s1["pulled_items"], s1["pulled_used"], s1["pulled_tokens"]) == (1, 0, 50)
    assert s1["budget_tokens"] == index_budget
    assert s1["budget_share"] == round(120 / index_budget, 4)
    assert s1["session_tokens"] > 120
    assert s1["context_share"] == round((120 + 50) / s1["session_tokens"], 4)

    assert (s2["injected_items"], s2["used_items"], s2["injection_rate"]) == (1, 1, 1.0)
    assert s2["used"] == [{"id": sessions["d"], "how": "id", "op": "recall"}]
    assert s2["budget_share"] == round(40 / recall_budget, 4)

    overall = report.overall()
    assert (overall["injected_items"], overall["used_items"]) == (4, 3)
    assert overall["injection_rate"] == 0.75
    assert overall["injected_tokens"] == 160 and overall["pulled_tokens"] == 50
    assert overall["budget_share"] == round(160 / (index_budget + recall_budget), 4)
    assert overall["unattributed_receipts"] == 1


def test_attribution_prefers_the_session_an_index_opens() -> None:
    from memcli.evaluation.sessions_data import Observation, Session

    def session(stem: str, start: float, end: float) -> Session:
        obs = [Observation(f"{stem}{t}", t, "other", "", [], 0) for t in (start, end)]
        return Session(stem, observations=obs)

    # s-old is still running when s-new's SessionStart index is written (parallel sessions).
    old, new = session("old", 0, 5000), session("new", 1060, 2000)
    injections = [
        sessions_eval.Injection("index", 1000, ["x"], 10),  # s-new's start, 60 s early
        sessions_eval.Injection("recall", 1500, ["y"], 10),  # both run: the later started
        sessions_eval.Injection("mcp-get", 3000, ["z"], 10),  # only s-old runs
        sessions_eval.Injection("index", 9000, ["w"], 10),  # no session near
    ]
    by_session, lost = sessions_eval.attribute(injections, [old, new])
    assert [i.ids for i in by_session["new"]] == [["x"], ["y"]]
    assert [i.ids for i in by_session["old"]] == [["z"]]
    assert lost == 1
    # Only an index (written before the first capture) goes to a session still to come.
    early = [sessions_eval.Injection(op, 500, ["v"], 10) for op in ("mcp-search", "index")]
    by_session, lost = sessions_eval.attribute(early, [new])
    assert [i.op for i in by_session["new"]] == ["index"] and lost == 1


def make_app() -> typer.Typer:
    app = typer.Typer(pretty_exceptions_enable=False, rich_markup_mode=None)

    @app.callback()
    def main() -> None:
        """Test app."""

    app.command("eval")(eval_cmd.eval_)
    return app


def test_cli_sessions_json_text_and_one_session(repo: Path, sessions: dict[str, str]) -> None:
    app = make_app()
    result = runner.invoke(app, ["eval", "--sessions", "--json"])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["overall"]["injection_rate"] == 0.75 and len(data["sessions"]) == 2

    result = runner.invoke(app, ["eval", "--sessions"])
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0].startswith("session\tagent\tstart")
    assert "effective injection rate 75% (3 of 4 injected items used)" in result.stdout

    result = runner.invoke(app, ["eval", "--sessions", "--session", "s2", "--json"])
    only = json.loads(result.stdout)
    assert [s["session"] for s in only["sessions"]] == ["s2"]
    assert only["overall"]["injection_rate"] == 1.0

    result = runner.invoke(app, ["eval", "--sessions", "--session", "nope"])
    assert result.exit_code == 2 and "no captured session 'nope'" in result.stderr


def test_no_sessions_is_not_an_error(repo: Path) -> None:
    result = runner.invoke(make_app(), ["eval", "--sessions"])
    assert result.exit_code == 0
    assert "no captured sessions" in result.stdout
