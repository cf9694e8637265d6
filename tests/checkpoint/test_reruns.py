"""Checkpoint candidates no failing exit code marks: a fix proven by a reproduction's changed
output, a workaround (another command doing the same job passing), and their junk guards."""

from __future__ import annotations

from typing import Any

from test_candidates import cmd, edit, obs

from memcli.checkpoint import candidates, choose


def fixes(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    state: dict[str, object] = {}
    candidates.scan(records, state)
    candidates.turn_end(state)
    found = state.get("candidates") or {}
    assert isinstance(found, dict)
    return [c for c in found.values() if c["kind"] == "fix"]


def write(path: str) -> dict[str, Any]:
    return obs("edit", files=[path], ok=True, summary=f"write {path}", tool="Write")


def test_a_fix_proven_by_output() -> None:
    [fix] = fixes([
        write("reproduce.py"),
        cmd("python reproduce.py", True, "Result: 344\nran in 0.12s"),
        edit("shop/serializers.py"),
        cmd("python reproduce.py", True, "Result: 345\nran in 0.40s"),
    ])  # fmt: skip
    assert fix["lines"] == [
        "`python reproduce.py` printed: Result: 344",
        "after changing shop/serializers.py: Result: 345",
    ]
    assert fix["files"] == ["shop/serializers.py"] and len(fix["refs"]) == 2
    assert choose.happened(fix)


def test_no_output_fix_from_volatile_output_the_reproduction_or_a_new_file() -> None:
    same = "job 3f9a2c1d8e done at 2026-11-30T10:00:01Z in 12ms from /tmp/a1/x"
    later = "job 77b0e1c9f2 done at 2026-11-30T10:04:19Z in 31ms from /tmp/b7/x"
    assert fixes([cmd("node repro.js", True, same), edit("src/jobs.js"),
                  cmd("node repro.js", True, later)]) == []  # fmt: skip
    assert fixes([cmd("python reproduce.py", True, "344"), edit("reproduce.py"),
                  cmd("python reproduce.py", True, "345")]) == []  # fmt: skip
    assert fixes([cmd("python reproduce.py", True, "344"), write("shop/helper.py"),
                  cmd("python reproduce.py", True, "345")]) == []  # fmt: skip
    assert fixes([cmd("ls shop", True, "a.py"), edit("shop/a.py"),
                  cmd("ls shop", True, "a.py b.py")]) == []  # fmt: skip


def test_swe_agent_edits_count_as_edits() -> None:
    window = "[File: /shop/shop/serializers.py (120 lines total)]\n"
    [fix] = fixes([
        cmd("create reproduce.py", True, "[File: /shop/reproduce.py (1 lines total)]"),
        cmd("edit 1:1 print(total()) end_of_edit", True, "File updated."),
        cmd("python reproduce.py", True, "344"),
        cmd("open shop/serializers.py", True, window),
        cmd("edit 12:12 return round(x) end_of_edit", True, window + "File updated."),
        cmd("python reproduce.py", True, "345"),
    ])  # fmt: skip
    assert fix["files"] == ["/shop/shop/serializers.py"]


def test_a_workaround() -> None:
    [fix] = fixes([
        cmd("python scripts/export.py", False, "bash: python: command not found"),
        cmd("ls scripts", True, "export.py"),
        cmd("python3 scripts/export.py", True, "exported 12 rows"),
    ])  # fmt: skip
    assert fix["lines"] == [
        "`python scripts/export.py` failed: bash: python: command not found",
        "`python3 scripts/export.py` did the same job and passed",
    ]
    assert fix["verified"] is True


def test_no_workaround_from_another_job_an_edit_or_a_typo() -> None:
    pairs = [
        (cmd("python manage.py migrate", False, "OperationalError: no such table: shop_order"),
         cmd("python manage.py runserver", True, "Starting development server")),
        (cmd("pytest -k total", False, "E   AssertionError: 344 != 345"),
         cmd("pytest -k price", True, "1 passed")),
        (cmd("python3 -c 'print(1'", False, "SyntaxError: '(' was never closed"),
         cmd("python -c 'print(1)'", True, "1")),
    ]  # fmt: skip
    for failed, passed in pairs:
        assert fixes([failed, passed]) == [], failed["input"]
    assert fixes([
        cmd("python tools/load.py", False, "KeyError: 'orders'"),
        edit("tools/load.py"),
        cmd("python3 tools/load.py", True, "loaded"),
    ]) == []  # fmt: skip
