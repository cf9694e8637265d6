"""Lessons no failing exit code marks: a fix proven by a reproduction's changed output, and a
workaround (another command doing the same job passes). Synthetic sessions."""

from __future__ import annotations

from typing import Any

from compact_helpers import Writer, edit, obs, prompt, run_cmd

from memcli import api, reruns
from memcli.compact import compact_session

REPRO = "python reproduce.py"


def note(message: str) -> dict[str, Any]:
    return obs("note", event="Stop", excerpt=message, summary="note: " + message[:80])


def stop(message: str) -> dict[str, Any]:
    return obs("conclusion", event="Stop", excerpt=message, summary=message[:200])


def write(path: str) -> dict[str, Any]:
    return obs("edit", tool="Write", files=[path], ok=True, summary=f"write {path}")


def output_fix_session(
    *middle: dict[str, Any], before: str = "Result: 344", after: str = "Result: 345"
) -> list[dict[str, Any]]:
    return [
        prompt("The serializer prints the wrong total"),
        write("reproduce.py"),
        run_cmd(REPRO, f"{before}\nDone in 0.12s", True),
        *middle,
        run_cmd(REPRO, f"{after}\nDone in 0.31s", True),
        note(
            "The issue is that `round_total` in shop/serializers.py truncates instead of rounding."
        ),  # fmt: skip
        stop("Fixed the rounding."),
    ]


def test_a_fix_proven_by_output_is_a_pitfall_titled_by_the_stated_cause(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer(output_fix_session(edit("shop/serializers.py")))
    compact_session(memory, name)
    [item] = [i for i in memory.items() if i.kind == "pitfall"]
    assert item.title.startswith("The issue is that `round_total` in shop/serializers.py")
    assert "Before: `python reproduce.py` printed: Result: 344" in item.body
    assert "After: Result: 345" in item.body
    assert [a["path"] for a in item.anchors] == ["shop/serializers.py"]
    excerpts = [e.get("excerpt", "") for e in item.evidence]
    assert "before: Result: 344" in excerpts and "after: Result: 345" in excerpts
    assert "edit shop/serializers.py" in excerpts
    # The cause sentence is the episode's: no second item from the prose rules.
    assert len(memory.items()) == 1


def test_without_a_stated_cause_an_output_called_wrong_is_titled_by_the_two_outputs(
    memory: api.Memory, write_buffer: Writer
) -> None:
    records = output_fix_session(
        edit("shop/serializers.py"), before="total: 344 (expected 345)", after="total: 345"
    )[:-2]
    name = write_buffer([*records, stop("I've updated the serializer.")])
    compact_session(memory, name)
    [item] = memory.items()
    assert item.title == (
        "`python reproduce.py` printed `total: 344 (expected 345)` until a fix in "
        "shop/serializers.py; now `total: 345`"
    )


def test_a_changed_output_nobody_called_wrong_is_no_item(
    memory: api.Memory, write_buffer: Writer
) -> None:
    """A feature taking shape (a report gains a column) changes the output too."""
    records = output_fix_session(edit("shop/serializers.py"))[:-2]
    name = write_buffer([*records, stop("I've updated the serializer.")])
    compact_session(memory, name)
    assert memory.items() == []


def test_output_that_differs_only_in_volatile_parts_is_no_fix(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer(
        output_fix_session(
            edit("shop/serializers.py"),
            before="Result: 344 at 2026-11-30T10:02:41Z in /tmp/pytest-9/run from 0x7f0b1e",
            after="Result: 344 at 2026-11-30T10:00:01Z in /tmp/pytest-7/run from 0x7f3a9c",
        )
    )
    records = [
        prompt("Check the job"),
        run_cmd("node repro.js", "job 3f9a2c1d8e started at 10:00:01 took 12ms (41 kB)", True),
        edit("src/jobs.js"),
        run_cmd("node repro.js", "job 9be07c4412 started at 10:02:17 took 15ms (42 kB)", True),
    ]
    other = write_buffer([{**r, "session": "s2"} for r in records])
    compact_session(memory, name)
    compact_session(memory, other)
    # (the note's stated cause is an assumed pitfall of the prose rules, not an episode)
    assert not [i for i in memory.items() if "Before:" in i.body]


def test_editing_the_reproduction_or_a_file_it_created_is_no_fix(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer(output_fix_session(edit("reproduce.py")))
    compact_session(memory, name)
    fresh = [{**r, "session": "s3"} for r in output_fix_session(write("shop/new_helper.py"))]
    other = write_buffer(fresh)
    compact_session(memory, other)
    assert not [i for i in memory.items() if "Before:" in i.body]


def test_looking_around_is_never_a_reproduction() -> None:
    looks = ["ls -la", "cat reproduce.py", "git status", "grep -rn total .",
             "find . -name '*.py'", "open shop/serializers.py", "search_dir total",
             "find_file serializers.py", "scroll_down", "npm run build",
             "pip install x"]  # fmt: skip
    for command in looks:
        assert not reruns.reproduction(command), command
    runs = ["python reproduce.py", "cd /repo && python3 repro.py", "node repro.js",
            "pytest -k total", "cargo run", "go test ./...", "python -c 'print(1)'"]  # fmt: skip
    for command in runs:
        assert reruns.reproduction(command), command


def test_swe_agent_edit_commands_are_edits(memory: api.Memory, write_buffer: Writer) -> None:
    window = "[File: /shop/shop/serializers.py (120 lines total)]\n(10 more lines above)\n"
    name = write_buffer(
        [
            prompt("Fix the total"),
            run_cmd("create reproduce.py", "[File: /shop/reproduce.py (1 lines total)]", True),
            run_cmd("edit 1:1 from shop import total end_of_edit", "File updated.", True),
            run_cmd(REPRO, "344", True),
            run_cmd("open shop/serializers.py", window, True),
            run_cmd("edit 12:12 return round(x) end_of_edit", window + "File updated.", True),
            run_cmd(REPRO, "345", True),
            note("The problem is that `total()` in serializers.py truncates the sum."),
        ]
    )
    compact_session(memory, name)
    [item] = memory.items()
    assert item.kind == "pitfall"
    assert item.title == "The problem is that `total()` in serializers.py truncates the sum"
    assert "Before: `python reproduce.py` printed: 344" in item.body


def test_a_look_around_failing_for_want_of_its_tool_is_an_env_fact(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer(
        [
            prompt("Find where the price is computed"),
            run_cmd("rg price src", "bash: rg: command not found", False),
            run_cmd("grep -rn price src", "src/cart.py:3: price = 1", True),
            run_cmd("cat src/missing.py", "cat: src/missing.py: No such file or directory", False),
        ]
    )
    compact_session(memory, name)
    [item] = memory.items()  # the missing file is no lesson
    assert item.kind == "env"
    assert item.title == "`rg price src` fails in this environment: bash: rg: command not found"


def test_a_workaround_is_use_b_not_a(memory: api.Memory, write_buffer: Writer) -> None:
    name = write_buffer(
        [
            prompt("Run the export"),
            run_cmd("python scripts/export.py", "bash: python: command not found", False),
            run_cmd("ls scripts", "export.py", True),
            run_cmd("python3 scripts/export.py", "exported 12 rows", True),
        ]
    )
    compact_session(memory, name)
    [item] = memory.items()
    assert item.kind == "env" and item.confidence == "verified"
    assert item.title == (
        "Use `python3 scripts/export.py`, not `python scripts/export.py`: it fails with "
        "bash: python: command not found"
    )
    assert "Workaround: `python3 scripts/export.py` passed instead" in item.body


def test_a_workaround_from_another_path_or_tool(memory: api.Memory, write_buffer: Writer) -> None:
    name = write_buffer(
        [
            prompt("Copy the fixtures"),
            run_cmd(
                "cp /data/old/fixtures.json tests/",
                "cp: cannot stat '/data/old/fixtures.json': No such file or directory",
                False,
            ),  # fmt: skip
            run_cmd("cp /data/new/fixtures.json tests/", "", True),
            run_cmd("npx tsx -e 'run()'", "Error [ERR_REQUIRE_ESM]: require() of ES Module", False),
            run_cmd("node --import tsx -e 'run()'", "ok", True),
        ]
    )
    compact_session(memory, name)
    titles = sorted(i.title for i in memory.items())
    assert len(titles) == 2
    assert titles[0].startswith("Use `cp /data/new/fixtures.json tests/`, not `cp /data/old/")
    assert titles[1].startswith("Use `node --import tsx -e 'run()'`, not `npx tsx -e 'run()'`")


def test_asking_for_help_under_another_name_is_the_same_job(
    memory: api.Memory, write_buffer: Writer
) -> None:
    missing = "/bin/bash: line 1: python: command not found"
    name = write_buffer([
        run_cmd("cd bench && python run_benchmarks.py --help", missing, False),
        run_cmd("cd bench && python3 run_benchmarks.py --help", "usage: run_benchmarks.py", True),
    ])  # fmt: skip
    compact_session(memory, name)
    [item] = memory.items()
    assert item.title.startswith("Use `python3 run_benchmarks.py --help`, not `python run_")


def test_no_workaround_from_another_job_an_edit_or_a_typo(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer(
        [
            prompt("Migrate"),
            run_cmd(
                "python manage.py migrate",
                "django.db.utils.OperationalError: no such table: shop_order",
                False,
            ),  # fmt: skip
            run_cmd("python manage.py runserver", "Starting development server", True),
            run_cmd("pytest -k total", "E   AssertionError: 344 != 345", False),
            run_cmd("pytest -k price", "1 passed", True),
            run_cmd("python3 -c 'print(1'", "SyntaxError: '(' was never closed", False),
            run_cmd("python -c 'print(1)'", "1", True),
            run_cmd("python tools/load.py", "KeyError: 'orders'", False),
            edit("tools/load.py"),
            run_cmd("python3 tools/load.py", "loaded", True),
        ]
    )
    compact_session(memory, name)
    assert not [i for i in memory.items() if i.title.startswith("Use `")]


def test_the_rules_on_a_replay_add_nothing(memory: api.Memory, write_buffer: Writer) -> None:
    records = output_fix_session(edit("shop/serializers.py"))
    name = write_buffer(records)
    compact_session(memory, name)
    first = sorted((i.id, i.title) for i in memory.items())
    write_buffer(records)
    compact_session(memory, name)
    assert sorted((i.id, i.title) for i in memory.items()) == first


def test_redirections_and_asking_for_help_are_no_other_way() -> None:
    failed = "claude --plugin-dir ./plugin -p '/share:publish' --print --yes 2>&1"
    assert not reruns.same_job(failed, "claude --help 2>&1 | head -60")
    assert reruns.same_job("python x.py 2>&1", "python3 x.py > out.txt 2>&1")


def test_a_test_runners_counts_are_no_output() -> None:
    before = "collected 3 items\ntests/test_a.py ...  [100%]\n==== 3 passed in 0.12s ===="
    after = "collected 4 items\ntests/test_a.py ....  [100%]\n==== 4 passed in 0.13s ===="
    assert reruns.differing(before, after) is None
    assert reruns.differing("total=344\n== 1 passed ==", "total=345\n== 1 passed ==") == (
        "total=344",
        "total=345",
    )


def test_a_swe_agent_failure_fixed_by_its_edit_command_is_a_verified_pitfall(
    memory: api.Memory, write_buffer: Writer
) -> None:
    window = "[File: /proj/proj/numberformat.py (104 lines total)]\n"
    name = write_buffer(
        [
            prompt("Small decimals come out in exponential notation"),
            run_cmd("create reproduce.py", "[File: /proj/reproduce.py (1 lines total)]", True),
            run_cmd(
                REPRO,
                "Traceback (most recent call last):\nValueError: Unknown format code e",
                False,
            ),  # fmt: skip
            run_cmd("open proj/numberformat.py", window, True),
            run_cmd(
                "edit 30:32 if decimal_pos is not None: end_of_edit", window + "File updated.", True
            ),  # fmt: skip
            run_cmd(REPRO, "0.00\nScript completed successfully, no errors.", True),
            note(
                "The issue is that `format()` in numberformat.py switches to scientific "
                "notation even when `decimal_pos` is given."
            ),  # fmt: skip
            note("The `reproduce.py` script has been successfully removed."),
        ]
    )
    compact_session(memory, name)
    [item] = memory.items()
    assert item.kind == "pitfall" and item.confidence == "verified"
    assert item.title.startswith("The issue is that `format()` in numberformat.py")
    assert "Changed: /proj/proj/numberformat.py" in item.body
