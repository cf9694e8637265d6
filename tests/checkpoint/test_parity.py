"""The checkpoint's requests and candidates on a few fixed sessions, against a golden file
written before the checkpoint was made faster: speed-ups must not change what it finds.

Regenerate (only when a rule change is meant to change the output):
MEM_WRITE_GOLDEN=1 pytest tests/checkpoint/test_parity.py
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path
from typing import Any

import pytest

from memcli.checkpoint import run, state
from memcli.observed import buffer, derived

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).with_name("parity_golden.json")


def _bench_observation() -> Any:
    path = ROOT / "benchmarks" / "checkpoint_bench.py"
    spec = importlib.util.spec_from_file_location("checkpoint_bench", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.observation


def _obs(number: int, kind: str, **fields: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": f"o{number:06d}mix", "session": "mix", "ts": f"2026-11-30T11:00:{number % 60:02d}Z",
        "agent": "claude-code", "kind": kind, "summary": "", "ok": None, "files": [],
        "input": "", "excerpt": "", "raw": f"raw/mix.jsonl#o{number:06d}mix", "tool": "Bash",
    }  # fmt: skip
    record.update(fields)
    return record


def _cmd(number: int, line: str, ok: bool | None, output: str, shown: str = "") -> dict[str, Any]:
    shown = shown or ("ok" if ok else "failed")
    return _obs(number, "command" if ok is not False else "error", input=line, ok=ok,
                excerpt=output, summary=f"$ {line} -> {shown}")  # fmt: skip


def _mixed() -> list[dict[str, Any] | str]:
    """Many shapes: environment failures, prompts, sub-agents, refusals, torn lines."""
    out: list[dict[str, Any] | str] = [
        _obs(
            0,
            "prompt",
            tool=None,
            excerpt="No, use pnpm instead of npm. Always run the "
            "linter before committing. From now on we use ruff for formatting.",
        ),
        _cmd(
            1,
            "npm test",
            False,
            'npm warn Unknown env config "foo"\nTypeError: generate is'
            " not a function\n    at Object.<anonymous> (src/gen.js:3:1)\nnpm ERR! Test failed.",
        ),
        _cmd(
            2,
            "tsc --noEmit",
            False,
            "src/app.tsx(1,20): error TS2307: Cannot find module "
            "'@testing-library/react' or its corresponding type declarations.",
        ),
        _cmd(3, "mytool --fast", False, "bash: mytool: command not found", "failed (exit 127)"),
        _cmd(4, "python -m pytest tests", False, "ModuleNotFoundError: No module named 'yaml'"),
        _obs(5, "edit", tool="Edit", files=["src/gen.js"], ok=True, summary="edit src/gen.js"),
        _cmd(6, "npm test", True, "Tests: 4 passed"),
        _cmd(
            7, "node server.js", False, "Error: listen EADDRINUSE: address already in use :::3000"
        ),
        _cmd(8, "cargo build", False, "error[E0308]: mismatched types\n --> src/main.rs:4:5"),
        _cmd(9, "npm run dev", None, "", "interrupted"),
        _obs(
            10,
            "edit",
            tool="Write",
            files=["CLAUDE.md"],
            ok=False,
            summary="write CLAUDE.md",
            excerpt="The user doesn't want to proceed with this tool use.",
        ),
        _obs(
            11,
            "other",
            tool="Task",
            excerpt="Report: the root cause was a stale lock file in "
            "the cache directory that the installer never removed.",
        ),
        _cmd(
            12,
            "go test ./...",
            False,
            "--- FAIL: TestPrice (0.00s)\n    price_test.go:12: "
            "got 344, want 345\nFAIL\nexit status 1",
        ),
        '{"id": "torn", "kind": "comm',
        "",
        "[1, 2, 3]",
        _obs(
            13,
            "conclusion",
            tool=None,
            event="Stop",
            excerpt="The problem was that the "
            "cache key ignored the currency. I chose a composite key rather than a hash "
            "because it stays readable in logs. Let me run the tests again.",
        ),
        _cmd(14, "git status", True, "On branch main"),
        _cmd(15, "make test", False, "make: *** [test] Error 1"),
        _obs(
            16,
            "prompt",
            tool=None,
            excerpt="don't mock the database in these tests, we never do that here. Thanks!",
        ),
        _cmd(
            17,
            "pip install -e .",
            False,
            "error: externally-managed-environment\n\n× This environment is externally managed",
        ),
        _cmd(
            18,
            "sudo apt install foo",
            False,
            "E: Could not open lock file - open (13: Permission denied)",
        ),
        _cmd(
            19,
            "go test ./...",
            False,
            "--- FAIL: TestPrice (0.00s)\n    price_test.go:12: "
            "got 344, want 345\nFAIL\nexit status 1",
        ),
        # What was said without a correction's words: a question that challenges a choice,
        # a terse norm after a turn, a long pasted log, a change explained by the old code.
        _obs(20, "prompt", tool=None, excerpt="why does `unsubscribe()` clear the listeners?"),
        _obs(21, "prompt", tool=None, excerpt="only e2e tests. yes"),
        _obs(22, "prompt", tool=None, excerpt=PASTED_LOG),
        _obs(
            23,
            "conclusion",
            tool=None,
            event="Stop",
            excerpt="The theme cache now keys on the theme name; the old cache ignored theme "
            "changes. Without the lock, two writers interleave their lines.",
        ),
    ]
    return out


PASTED_LOG = "Log of the earlier session:\n" + "\n".join(
    [f"step {n}: looked at the files" for n in range(30)]
    + [
        "The keypair was committed because the .gitignore has no entry for `*.pem` files.",
        "We chose SQLite over Postgres because the tests must run offline.",
        "The `oracle` binary is not installed on the CI runners.",
    ]
)


MESSAGES = {
    "plain": "Done: the suite passes.",
    "decision": "I kept the parser in pure Python instead of a C extension because wheels "
    "for every platform are a burden. The real cause was a missing flush in the writer, "
    "token ghp_abcdefghijklmnopqrstuvwxyz0123456789 aside.",
    "secret-only": "Pushed with password=hunter2hunter2 and mailed ops@example.com. Done.",
    "private": "All good.<private>be</private>cause we never cache, the build is slow.",
}


def _write(
    local: Path, session: str, lines: list[dict[str, Any] | str], facts: bool = False
) -> None:
    """``facts``: with what capture derives for the checkpoint (else: an older buffer)."""
    path = local / "buffer" / buffer.session_file_name(session)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as handle:
        for line in lines:
            if isinstance(line, dict) and facts and (found := derived.facts(line)) is not None:
                line = {**line, derived.FIELD: found}
            handle.write((line if isinstance(line, str) else json.dumps(line)) + "\n")


def _stop(local: Path, session: str, message: str) -> dict[str, Any]:
    payload = {"session_id": session, "hook_event_name": "Stop", "stop_hook_active": False,
               "last_assistant_message": message}  # fmt: skip
    reason = run.checkpoint(payload, "claude-code", str(local))
    saved = state.load(state.path_of(str(local), session))
    return {"reason": reason, "candidates": saved.get("candidates"), "asked": saved.get("asked"),
            "failing": sorted(saved.get("runs") or {})}  # fmt: skip


def _pin_caps(local: Path) -> None:
    """The golden file was written with 5 candidates a request and 12 a session: it checks
    what the rules find, so the caps stay those whatever the defaults become."""
    local.mkdir(parents=True, exist_ok=True)
    caps = {"checkpoint": {"max_per_turn": 5, "max_per_session": 12}}
    (local / "config.json").write_text(json.dumps(caps), encoding="utf-8")
    (local / "config.json").chmod(0o600)


def outcomes(tmp_path: Path, facts: bool = False) -> dict[str, Any]:
    observation = _bench_observation()
    bench = [observation(n) for n in range(200)]
    mixed = _mixed()
    found: dict[str, Any] = {}
    for name, message in MESSAGES.items():
        local = tmp_path / name / "local"
        _pin_caps(local)
        _write(local, "bench", bench, facts)
        found[f"bench first stop, {name}"] = _stop(local, "bench", message)
        _write(local, "bench", [observation(n) for n in range(200, 210)], facts)
        found[f"bench next turn, {name}"] = _stop(local, "bench", message)
        _write(local, "mix", mixed[:12], facts)
        found[f"mixed turn 1, {name}"] = _stop(local, "mix", message)
        _write(local, "mix", mixed[12:], facts)
        found[f"mixed turn 2, {name}"] = _stop(local, "mix", message)
    return found


def test_candidates_match_the_golden_file(tmp_path: Path) -> None:
    found = json.loads(json.dumps(outcomes(tmp_path)))
    if os.environ.get("MEM_WRITE_GOLDEN") == "1":
        GOLDEN.write_text(json.dumps(found, indent=0, sort_keys=True) + "\n", encoding="utf-8")
        pytest.skip("golden file written")
    expected = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert sorted(found) == sorted(expected)
    for case, outcome in found.items():
        assert outcome == expected[case], case


def test_the_facts_capture_derives_change_nothing_the_checkpoint_finds(tmp_path: Path) -> None:
    """The same sessions written with the facts capture records (memcli/observed/derived.py):
    the checkpoint reads them instead of deriving them, and finds exactly the same."""
    found = json.loads(json.dumps(outcomes(tmp_path, facts=True)))
    expected = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert sorted(found) == sorted(expected)
    for case, outcome in found.items():
        assert outcome == expected[case], case
    written = (tmp_path / "plain" / "local" / "buffer" / "mix.jsonl").read_text("utf-8")
    assert written.count(f'"{derived.FIELD}"') == 11  # its 11 failing commands
