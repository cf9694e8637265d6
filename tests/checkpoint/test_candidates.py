"""Candidate detection over captured observations, one shape at a time, and the caps."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from memcli.checkpoint import candidates, choose, run
from memcli.defaults import DEFAULTS

PER_TURN = int(str(DEFAULTS["checkpoint"]["max_per_turn"]))
PER_SESSION = int(str(DEFAULTS["checkpoint"]["max_per_session"]))

_numbers = itertools.count()


def obs(kind: str, **fields: Any) -> dict[str, Any]:
    number = next(_numbers)
    record: dict[str, Any] = {
        "id": f"o{number:06d}", "session": "s1", "ts": "2026-11-30T10:00:00Z",
        "agent": "claude-code", "kind": kind, "summary": "", "ok": None, "files": [],
        "input": "", "excerpt": "", "raw": f"raw/s1.jsonl#o{number:06d}",
    }  # fmt: skip
    record.update(fields)
    return record


def cmd(line: str, ok: bool | None, output: str = "", state: str = "") -> dict[str, Any]:
    shown = state or ("ok" if ok else "failed")
    return obs("command" if ok is not False else "error", input=line, ok=ok, excerpt=output,
               summary=f"$ {line} -> {shown}", tool="Bash")  # fmt: skip


def edit(path: str, **fields: Any) -> dict[str, Any]:
    return obs("edit", files=[path], ok=True, summary=f"edit {path}", **fields)


def found(records: list[dict[str, Any]], end: bool = True) -> dict[str, dict[str, Any]]:
    state: dict[str, object] = {}
    candidates.scan(records, state)
    if end:
        candidates.turn_end(state)
    result = state.get("candidates") or {}
    assert isinstance(result, dict)
    return {c["kind"]: c for c in result.values()}


def test_a_failure_fixed_by_an_edit() -> None:
    got = found([
        cmd("npm test", False, "TypeError: total is not a function\nnpm ERR! Test failed."),
        edit("src/price.js"),
        cmd("npm test", True, "Tests: 4 passed"),
    ])  # fmt: skip
    fix = got["fix"]
    assert fix["suggest"] == "pitfall" and fix["verified"] is True
    assert "TypeError: total is not a function" in fix["lines"][0]
    assert "src/price.js" in fix["lines"][1] and fix["files"] == ["src/price.js"]
    assert len(fix["refs"]) == 2 and "unresolved" not in got


def test_a_pass_with_nothing_in_between_is_no_fix() -> None:
    assert found([cmd("pytest", False, "E   assert 1 == 2"), cmd("pytest", True)]) == {}


def test_environment_failures_are_candidates_at_once() -> None:
    got = found([cmd("pnpm install", False, "bash: pnpm: command not found")])
    assert (
        got["env"]["env"] == "missing-tool" and "pnpm: command not found" in got["env"]["lines"][0]
    )


def test_a_check_still_failing_at_the_end_of_the_turn() -> None:
    got = found([
        cmd("npm run build", False, "src/a.ts(3,7): error TS2322: Type 'string' is not "
            "assignable to type 'number'.\nnpm ERR! code ELIFECYCLE"),
        edit("src/a.ts"),
        cmd("npm run build", False, "src/a.ts(9,1): error TS2304: Cannot find name 'x'."),
        edit("CLAUDE.md"),  # a later edit does not hide the failing build
    ])  # fmt: skip
    unresolved = got["unresolved"]
    assert unresolved["suggest"] == "task" and "still fails" in unresolved["lines"][0]
    assert "TS2304" in unresolved["lines"][0] and "ELIFECYCLE" not in unresolved["lines"][0]


def test_user_corrections_and_conventions() -> None:
    got = found([
        obs("prompt", excerpt="No, use pnpm instead of npm. We always run tests with -x.")
    ])  # fmt: skip
    assert "pnpm" in got["correction"]["lines"][0]
    assert "always run tests" in got["convention"]["lines"][0]
    assert found([obs("prompt", excerpt="Why does the build fail? Fix it please.")]) == {}


def test_decisions_and_causes_in_messages_but_not_narration() -> None:
    got = found([
        obs("conclusion", excerpt="The reproduce_bug.py script has been successfully removed. "
            "I stored prices as integer cents instead of floats because sums lost pennies. "
            "The root cause was a stale port in tests/conftest.py.")
    ])  # fmt: skip
    assert "integer cents" in got["decision"]["lines"][0]
    assert "stale port" in got["cause"]["lines"][0]
    assert not any("reproduce_bug" in c["lines"][0] for c in got.values())


def test_denied_writes_and_interrupted_commands() -> None:
    refused = "The user doesn't want to proceed with this tool use."
    got = found([
        obs("error", files=["CLAUDE.md"], ok=False, summary="write CLAUDE.md -> failed",
            excerpt=refused, tool="Write"),
        cmd("npm run dev", None, "ready on :3000", state="interrupted"),
    ])  # fmt: skip
    assert "CLAUDE.md" in got["denied"]["lines"][0]
    assert "interrupted" in got["interrupted"]["lines"][0]


def test_sub_agent_reports_are_read() -> None:
    report = ("I looked at the serializer.\nThe root cause is an off-by-one in "
              "serialize_rows, which drops the last row when the page is full.")  # fmt: skip
    got = found([obs("other", tool="Task", excerpt=report)])
    assert "off-by-one" in got["subagent"]["lines"][0]


def test_mem_commands_and_looking_around_are_never_candidates() -> None:
    assert found([cmd("mem add --dismiss c1", False, "Error: no candidate c1")]) == {}
    assert found([cmd("cat missing.txt", False, "cat: missing.txt: No such file")]) == {}


def test_the_same_lesson_seen_twice_is_one_candidate() -> None:
    text = "I chose SQLite instead of Postgres because the CLI runs offline."
    state: dict[str, object] = {}
    candidates.scan([obs("conclusion", excerpt=text)], state)
    candidates.message(text, state, None)
    assert len(state["candidates"]) == 1  # type: ignore[arg-type]


def test_a_look_around_failing_for_want_of_its_tool_or_host_is_an_env_candidate() -> None:
    got = found([cmd("rg price src", False, "bash: rg: command not found")])
    assert got["env"]["lines"] == ["`rg price src` failed: bash: rg: command not found"]
    probe = found([cmd('ssh root@router "echo ok"', False, "Host key verification failed.")])
    assert probe["env"]["env"] == "network"
    assert found([cmd("cat src/missing.py", False, "cat: src/missing.py: No such file")]) == {}
    assert found([cmd("find / -name x.conf", False, "find: /proc/1: Permission denied")]) == {}


def test_caps_per_turn_and_per_session(tmp_path: Path) -> None:
    local = tmp_path / "local"
    (local / "buffer").mkdir(parents=True)
    prompts = [obs("prompt", excerpt=f"Never use tool{n} in this repo.") for n in range(30)]
    (local / "buffer" / "s1.jsonl").write_text("".join(json.dumps(p) + "\n" for p in prompts))
    asked = 0
    for _ in range(5):
        reason = run.checkpoint({"session_id": "s1"}, "claude-code", str(local))
        named = [x for x in (reason or "").splitlines() if x.startswith("- c")]
        assert len(named) <= PER_TURN + len(prompts) // choose.WORK_PER_EXTRA  # a long turn
        asked += len(named)
    # the third reserved for what happened; the user's own first norms outside the cap
    assert asked == PER_SESSION - PER_SESSION // 3 + choose.USER_PER_SESSION
    assert run.checkpoint({"session_id": "s1"}, "gemini", str(local)) is None  # off there


def test_a_long_turn_may_name_one_more_candidate_for_each_25_observations(
    tmp_path: Path,
) -> None:
    local = tmp_path / "local"
    (local / "buffer").mkdir(parents=True)
    said = [obs("prompt", excerpt=f"Never use tool{n} in this repo.") for n in range(20)]
    work = [cmd(f"ls src/part{n}", True, "a.py") for n in range(80)]  # 100 observations
    (local / "buffer" / "s1.jsonl").write_text("".join(json.dumps(r) + "\n" for r in said + work))
    reason = run.checkpoint({"session_id": "s1"}, "claude-code", str(local))
    named = [x for x in (reason or "").splitlines() if x.startswith("- c")]
    assert len(named) == PER_TURN + 100 // 25
    state = json.loads((local / "checkpoint" / "s1.json").read_text())
    assert "turn_work" not in state  # counted again from the next turn's first observation


def prose_turns(local: Path, turns: int) -> list[str]:
    """Run ``turns`` turns, each closing with decisions and causes (more than a cap holds);
    the candidates their checkpoints named."""
    (local / "buffer").mkdir(parents=True, exist_ok=True)
    asked: list[str] = []
    for turn in range(turns):
        said = " ".join(
            f"I chose cache{turn}{n} instead of Redis because the tests run offline."
            f" The slow start is caused by module{turn}{n} importing numpy."
            for n in range(3)
        )
        with (local / "buffer" / "s1.jsonl").open("a") as handle:
            handle.write(json.dumps(obs("conclusion", excerpt=said)) + "\n")
        reason = run.checkpoint({"session_id": "s1"}, "claude-code", str(local))
        asked += [x for x in (reason or "").splitlines() if x.startswith("- c")]
    return asked


def test_a_session_full_of_prose_still_asks_about_a_check_failing_at_its_end(
    tmp_path: Path,
) -> None:
    local = tmp_path / "local"
    buffer = local / "buffer" / "s1.jsonl"
    asked = prose_turns(local, 6)
    assert len(asked) == PER_SESSION - PER_SESSION // 3  # prose stops short of the cap
    with buffer.open("a") as handle:  # the last turn: a check that still fails at its end
        handle.write(json.dumps(edit("src/shop/cart.py")) + "\n")
        handle.write(json.dumps(cmd("pytest tests/test_cart.py", False,
                                    "E   KeyError: 'price'\n1 failed")) + "\n")  # fmt: skip
    reason = str(run.checkpoint({"session_id": "s1"}, "claude-code", str(local)))
    assert "[unresolved -> task]" in reason and "KeyError: 'price'" in reason


def test_a_users_late_correction_is_asked_once_the_session_used_its_prose_share(
    tmp_path: Path,
) -> None:
    local = tmp_path / "local"
    buffer = local / "buffer" / "s1.jsonl"
    prose_turns(local, 4)  # the prose share used
    state = json.loads((local / "checkpoint" / "s1.json").read_text())
    assert choose.prose_room(state["candidates"], state["asked"], PER_SESSION) == 0
    with buffer.open("a") as handle:
        handle.write(json.dumps(obs("prompt", excerpt="No, use rgb values in the themes, "
                                    "not palette indices.")) + "\n")  # fmt: skip
    reason = str(run.checkpoint({"session_id": "s1"}, "claude-code", str(local)))
    assert '[correction -> convention] the user said: "No, use rgb values' in reason


def test_a_buffer_rewritten_by_compaction_is_read_again(tmp_path: Path) -> None:
    local = tmp_path / "local"
    (local / "buffer").mkdir(parents=True)
    buffer = local / "buffer" / "s1.jsonl"
    buffer.write_text(json.dumps(obs("prompt", excerpt="Never use tool0 in this repo.")) + "\n")
    assert "tool0" in str(run.checkpoint({"session_id": "s1"}, "claude-code", str(local)))
    # Compaction consumed that line; more arrived since, longer than what was read before.
    later = [obs("prompt", excerpt=f"We always run check{n} before pushing.") for n in range(3)]
    buffer.write_text("".join(json.dumps(p) + "\n" for p in later))
    reason = str(run.checkpoint({"session_id": "s1"}, "claude-code", str(local)))
    assert "check0" in reason and "check2" in reason and "tool0" not in reason


def test_a_repeated_failure_is_read_once_at_the_end_of_the_turn() -> None:
    got = found([
        cmd("npm test", False, "TypeError: total is not a function"),
        edit("package.json"),
        cmd("npm test", False, "Error: Cannot find module 'left-pad'"),
    ])  # fmt: skip
    assert "Cannot find module 'left-pad'" in got["env"]["lines"][0]
    assert "Cannot find module" in got["unresolved"]["lines"][0]


def test_candidate_ids_use_zlibs_crc32() -> None:
    import os
    import zlib

    for size in (0, 1, 7, 64, 300):
        data = os.urandom(size)
        assert candidates.crc32(data) == zlib.crc32(data)
    for byte in range(256):  # every entry of the table, once
        assert candidates.crc32(bytes([byte])) == zlib.crc32(bytes([byte]))
    assert candidates.candidate_id("s", "fix", "x") == "c" + format(zlib.crc32(b"s\0fix\0x"), "08x")


def test_a_pass_with_added_options_is_a_fix() -> None:
    got = found([
        cmd("hg push", False, "abort: signing failed: no secret key"),
        cmd("hg push --insecure", True, "pushed 3 changesets"),
    ])  # fmt: skip
    assert "ran it with `--insecure`" in got["fix"]["lines"][1]


def test_a_command_still_failing_with_a_telling_line() -> None:
    got = found([cmd("./deploy.sh staging", False, "error: manifest has no 'region' key")])
    assert got["failed"]["suggest"] == "pitfall"
    assert "manifest has no 'region' key" in got["failed"]["lines"][0]
    assert found([cmd("./deploy.sh staging", False, "Exit code 1")]) == {}


def test_a_permission_mode_refusing_a_look_around_or_another_tool() -> None:
    refusal = "Permission to use {} has been auto-denied in dontAsk mode."
    got = found([
        cmd("ls ~/logs | grep app", False, refusal.format("Bash")),
        obs("error", tool="WebSearch", ok=False, excerpt=refusal.format("WebSearch"),
            summary="WebSearch failed"),
    ])  # fmt: skip
    state: dict[str, object] = {}
    candidates.scan([obs("error", tool="WebSearch", ok=False, excerpt=refusal.format("X"))], state)
    assert got["denied"]["suggest"] == "env" and state["candidates"]


def test_asking_for_help_is_no_remedy() -> None:
    assert candidates.added_flags("tool run --yes", "tool run --help | head -5") == []
    assert candidates.added_flags("git tag v1", "git tag --no-sign v1 | cat -A") == ["--no-sign"]
    # more or less output, or fewer tests, is no remedy either; `curl -k` is one
    assert candidates.added_flags("pytest", "pytest -xvs -k test_digest") == []
    assert candidates.added_flags("npx jest", "npx jest -t cart") == []
    assert candidates.added_flags("npm run build", "npm run build -s") == []
    assert candidates.added_flags("curl https://x.org", "curl -k https://x.org") == ["-k"]


def test_each_change_of_error_after_an_edit_is_a_fix_of_its_own() -> None:
    state: dict[str, object] = {}
    candidates.scan([
        cmd("npm test", False, "TypeError: total is not a function\nnpm ERR! Test failed."),
        edit("src/price.js"),
        cmd("npm test", False, "RangeError: Invalid currency code: XX\nnpm ERR! Test failed."),
        edit("src/tax.js"),
        cmd("npm test", True, "Tests: 9 passed"),
    ], state)  # fmt: skip
    candidates.turn_end(state)
    fixes = [c for c in state["candidates"].values() if c["kind"] == "fix"]  # type: ignore[attr-defined]
    assert len(fixes) == 2
    first, second = sorted(fixes, key=lambda c: "RangeError" in c["lines"][0])
    assert "TypeError" in first["lines"][0] and "src/price.js" in first["lines"][1]
    assert first["verified"] is False and first["files"] == ["src/price.js"]
    assert "RangeError" in second["lines"][0] and second["files"] == ["src/tax.js"]
    assert second["verified"] is True


def test_an_error_the_edit_made_is_no_change_of_error() -> None:
    got = found([
        cmd("pytest", False, "E   assert 344 == 345"),
        edit("src/rows.py"),
        cmd("pytest", False, "SyntaxError: invalid syntax"),
        edit("src/rows.py"),
        cmd("pytest", True, "12 passed"),
    ])  # fmt: skip
    assert "assert 344 == 345" in got["fix"]["lines"][0]


def test_a_hook_refusal_then_a_remedy_and_a_passing_rerun_is_a_fix() -> None:
    refusal = ("PreToolUse:Bash hook error: [guard.py]: Commits to main are blocked: create a "
               "feature branch first")  # fmt: skip
    got = found([
        cmd("git commit -m x", False, refusal),
        cmd("git checkout -b tax", True),
        cmd("git commit -m x", True, "[tax 1a2b3c4] x"),
    ])  # fmt: skip
    assert "denied" in got
    assert "create a feature branch first" in got["fix"]["lines"][0]
    assert "git checkout -b tax" in got["fix"]["lines"][1]


def test_a_tool_failure_is_a_failed_candidate_with_its_error_line() -> None:
    state: dict[str, object] = {}
    candidates.scan([
        obs("error", tool="Read", files=["data/orders.json"], input="data/orders.json", ok=False,
            summary="read data/orders.json -> failed (File content ...)",
            excerpt="File content (31000 tokens) exceeds maximum allowed tokens (25000)."),
        obs("error", tool="Skill", ok=False, summary="Skill commit -> failed",
            excerpt="<tool_use_error>Unknown skill: commit</tool_use_error>"),
    ], state)  # fmt: skip
    lines = sorted(c["lines"][0] for c in state["candidates"].values())  # type: ignore[attr-defined]
    assert lines == [
        "`Skill commit` failed: Unknown skill: commit",
        "`read data/orders.json` failed: File content (31000 tokens) exceeds maximum allowed "
        "tokens (25000).",
    ]


def test_a_warning_the_next_edit_acts_on_is_a_candidate() -> None:
    warned = ("warning: use of deprecated function `chrono::Utc::today`\n  --> src/cart.rs:12:15\n"
              "    Finished dev profile")  # fmt: skip
    got = found([cmd("cargo build", True, warned), edit("src/cart.rs")])
    assert got["warning"]["suggest"] == "pitfall"
    assert "deprecated function" in got["warning"]["lines"][0]
    assert found([cmd("cargo build", True, warned), edit("src/tax.rs")]) == {}


def test_a_background_job_polled_twice_is_a_slow_run_candidate() -> None:
    def poll(job: str) -> dict[str, Any]:
        return obs("other", tool="TaskOutput", input=job, ok=True, excerpt="status: running\n",
                   summary=f"TaskOutput {job}")  # fmt: skip

    start = obs("command", tool="Bash", input="cargo build --release", ok=None,
                excerpt="running in the background (id b1)",
                summary="$ cargo build --release -> background")  # fmt: skip
    got = found([start, poll("b1"), poll("b1")])
    assert got["env"]["env"] == "slow" and "cargo build --release" in got["env"]["lines"][0]
    assert found([start, poll("b1")]) == {} or "env" not in found([start, poll("b1")])
    sleeps = found(
        [cmd("make all &", True), cmd("sleep 30", True), cmd("sleep 30 && tail log", True)]
    )
    assert sleeps["env"]["env"] == "slow"


def test_a_damaged_state_counts_again_instead_of_failing_every_later_checkpoint() -> None:
    # mem's own state file, damaged (a hand edit, a foreign writer): counters that are no
    # whole numbers are read as 0, so the session's checkpoints go on.
    state: dict[str, object] = {
        "edits": "x",
        "workflow": {"uv run pytest": {"runs": "many", "checked": None, "at": "?",
                                       "passed": False, "check": True, "obs": [], "refs": []}},
        "jobs": {"b1": {"polls": [3], "cmd": "make build", "obs": "o1"}},
        "last_job": "b1",
    }  # fmt: skip
    records = []
    for name in ("a", "b", "c"):
        records += [edit(f"src/{name}.py"), cmd("uv run pytest -q", True, "4 passed")]
    records.append(cmd("sleep 30", True))
    candidates.scan(records, state)
    candidates.turn_end(state)
    entry = state["workflow"]["uv run pytest"]  # type: ignore[index]
    assert (entry["runs"], entry["checked"], state["edits"]) == (3, 3, 3)
    kinds = {c["kind"] for c in state["candidates"].values()}  # type: ignore[attr-defined]
    assert "workflow" in kinds


def test_the_shell_failing_before_a_command_ran_is_an_environment_fact() -> None:
    cygheap = "      0 [main] bash (2892) child_copy: cygheap read copy failed, 0x0..0x8000"
    got = found([
        cmd('ssh h "rm -f /usr/lib/a.lua"', False, cygheap),
        cmd('ssh h "rm -rf /usr/lib/a.lua"', True),  # ran again: no fix by `-rf`
    ])  # fmt: skip
    assert set(got) == {"env"}
    line = got["env"]["lines"][0]
    assert "before the command ran" in line and "run again" in line


def test_a_step_added_before_the_same_command_is_its_remedy() -> None:
    lock = "* opkg_conf_load: Could not lock /var/lock/opkg.lock: Resource temporarily unavailable."
    got = found([
        cmd('ssh h "opkg remove gl-cloud"', False, lock),
        cmd('ssh h "sleep 2 && opkg remove gl-cloud"', True),
    ])  # fmt: skip
    assert "ran it after `sleep 2`" in got["fix"]["lines"][1]
    assert candidates.added_steps("npm test", "npm ci && npm test") == ["npm ci"]
    assert candidates.added_steps("cd a && npm test", "cd b && npm test") == []


def test_a_fix_of_a_failure_without_an_error_line_shows_what_it_printed() -> None:
    line = 'powershell.exe -Command "git commit -F msg.txt"'
    complaint = "hint: Waiting for your editor to close the file..."
    got = found([cmd(line, False, f"Exit code 2\n{complaint}"), edit("commit.ps1"),
                 cmd(line, True, "[main 1a2b3c4] Add the audit")])  # fmt: skip
    assert f'failed: an error: "{complaint}"' in got["fix"]["lines"][0]
    # the shell's own parse error is a signature: shown as one
    parse = "/usr/bin/bash: eval: line 1: unexpected EOF while looking for matching ``'"
    got = found([cmd(line, False, f"Exit code 2\n{parse}"), edit("commit.ps1"),
                 cmd(line, True, "[main 1a2b3c4] Add the audit")])  # fmt: skip
    assert got["fix"]["lines"][0] == f"`{line}` failed: {parse}"
    # nothing printed but the exit code: nothing more to show
    got = found([cmd("./sync.sh", False, "Exit code 1"), edit("sync.sh"), cmd("./sync.sh", True)])
    assert got["fix"]["lines"][0] == "`./sync.sh` failed: an error"
