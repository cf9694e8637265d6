"""The rules on the shapes real sessions showed (issue 10): narration, generic runner lines,
later edits, environment lessons, refusals, interruptions, sub-agents, session status."""

from __future__ import annotations

from compact_helpers import Writer, edit, obs, prompt, run_cmd, said
from test_compact_rules import summary_of

from memcli import api
from memcli.compact import compact_session

NPM_PRICE = "TypeError: total is not a function\n    at src/price.js:3:9\nnpm ERR! Test failed."
NPM_TAX = "RangeError: Invalid currency code : XX\n    at src/tax.js:9:2\nnpm ERR! Test failed."
TSC_MISSING = (
    "src/App.test.tsx(1,30): error TS2307: Cannot find module '@testing-library/react' or its "
    'corresponding type declarations.\nnpm warn Unknown env config "tmp"'
)


def test_narration_never_becomes_a_title(memory: api.Memory, write_buffer: Writer) -> None:
    name = write_buffer([
        run_cmd("python reproduce_bug.py", "AssertionError: 344 != 345", False),
        edit("src/serializer.py"),
        run_cmd("python reproduce_bug.py", "345 rows", True),
        said("The `reproduce_bug.py` script has been successfully removed. The serializer "
             "dropped the last row because its page check in serializer.py used > instead of >=."),
    ])  # fmt: skip
    compact_session(memory, name)
    titles = [i.title for i in memory.items()]
    assert titles and not any("successfully removed" in t for t in titles)
    assert any("page check" in t for t in titles)


def test_a_generic_runner_line_never_merges_two_failures(
    memory: api.Memory, write_buffer: Writer
) -> None:
    for session, output, path in (("s1", NPM_PRICE, "src/price.js"), ("s2", NPM_TAX, "src/tax.js")):
        name = write_buffer([
            run_cmd("npm test", output, False, session),
            edit(path, session),
            run_cmd("npm test", "Tests: 9 passed", True, session),
        ])  # fmt: skip
        compact_session(memory, name)
    items = memory.items()
    assert len(items) == 2
    titles = sorted(i.title for i in items)
    assert "RangeError" in titles[0] and "TypeError" in titles[1]


def test_a_notes_edit_after_failed_builds_does_not_hide_the_task(
    memory: api.Memory, write_buffer: Writer
) -> None:
    failing = "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'."
    name = write_buffer([
        prompt("Make the build pass"),
        *[x for _ in range(2) for x in (run_cmd("npm run build", failing, False),
                                        edit("src/a.ts"))],
        run_cmd("npm run build", failing, False),
        edit("CLAUDE.md"),
        said("The build is done."),
    ])  # fmt: skip
    compact_session(memory, name)
    tasks = [i for i in memory.items() if i.kind == "task"]
    assert len(tasks) == 1 and "still fails" in tasks[0].body and "TS2322" in tasks[0].body
    summary = summary_of(memory, name)
    assert summary["status"] == "unfinished"
    assert "still failing" in str(summary["outcome"]) and "done" not in str(summary["outcome"])


def test_a_missing_library_is_a_lesson_even_when_the_fix_touched_new_files(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        obs("edit", tool="Write", files=["package.json"], ok=True, summary="write package.json"),
        run_cmd("npx tsc --noEmit", TSC_MISSING, False),
        edit("package.json"),
        run_cmd("npm install", "added 12 packages", True),
        run_cmd("npx tsc --noEmit", "", True),
    ])  # fmt: skip
    compact_session(memory, name)
    (item,) = memory.items()
    assert "@testing-library/react" in item.title or "@testing-library/react" in item.body
    assert "npm warn" not in item.body


def test_refused_writes_and_interrupted_commands_are_facts(
    memory: api.Memory, write_buffer: Writer
) -> None:
    refused = "The user doesn't want to proceed with this tool use. The tool use was rejected."
    name = write_buffer([
        prompt("Document the setup"),
        obs("error", tool="Write", files=["CLAUDE.md"], ok=False,
            summary="write CLAUDE.md -> failed", excerpt=refused),
        obs("command", tool="Bash", input="npm run dev", ok=None,
            summary="$ npm run dev -> interrupted", excerpt="ready on http://localhost:3000"),
        said("I have documented the setup in CLAUDE.md."),
    ])  # fmt: skip
    compact_session(memory, name)
    titles = sorted(i.title for i in memory.items())
    assert any("CLAUDE.md was refused" in t for t in titles)
    assert any("`npm run dev` does not end by itself" in t for t in titles)
    summary = summary_of(memory, name)
    assert summary["status"] == "blocked"
    assert "refused: CLAUDE.md" in str(summary["outcome"])


def test_a_sub_agents_report_is_read(memory: api.Memory, write_buffer: Writer) -> None:
    report = ("I looked at the cache layer. We store sessions in SQLite instead of Redis "
              "because the CLI must work offline.")  # fmt: skip
    name = write_buffer(
        [obs("other", tool="Task", ok=True, summary="Task: explore", excerpt=report)]
    )
    compact_session(memory, name)
    (item,) = memory.items()
    assert item.kind == "decision" and "SQLite instead of Redis" in item.title


def test_a_user_correction_is_a_convention(memory: api.Memory, write_buffer: Writer) -> None:
    name = write_buffer([prompt("No, use pnpm instead of npm for every install.")])
    compact_session(memory, name)
    (item,) = memory.items()
    assert item.kind == "convention" and "pnpm" in item.title


def test_the_unfinished_task_is_in_the_next_sessions_index(
    memory: api.Memory, write_buffer: Writer
) -> None:
    from memcli.retrieval.layer1 import layer1_index

    memory.add("pitfall", "An older lesson about ports", "Body.")
    failing = "E   AssertionError: 344 != 345"
    name = write_buffer([
        prompt("Fix the row count"),
        run_cmd("pytest tests/test_rows.py", failing, False),
        edit("src/rows.py"),
        run_cmd("pytest tests/test_rows.py", failing, False),
    ])  # fmt: skip
    compact_session(memory, name)
    layer = layer1_index(memory.root, all_projects=True)  # the helpers file it under acme/shop
    assert (
        layer.entries[0].kind == "task"
        and "Unfinished: `pytest tests/test_rows.py` still fails" in layer.text
    )
    assert layer.entries[0].value > layer.entries[1].value


def test_a_stated_root_cause_without_a_failing_command(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        run_cmd("python reproduce.py", "344", True),
        edit("src/serializer.py"),
        run_cmd("python reproduce.py", "345", True),
        said("The root cause was an off-by-one in `serialize_rows` in src/serializer.py: the "
             "last row of a full page was dropped."),
    ])  # fmt: skip
    compact_session(memory, name)
    (item,) = memory.items()
    assert item.kind == "pitfall" and item.confidence == "assumed"
    assert item.title.startswith("The root cause was an off-by-one")


def test_one_failure_is_one_item_not_an_environment_fact_and_a_lesson(
    memory: api.Memory, write_buffer: Writer
) -> None:
    missing = "Traceback (most recent call last):\nModuleNotFoundError: No module named 'requests'"
    name = write_buffer([
        run_cmd("python -m sync --dry", missing, False),
        run_cmd("python sync.py", missing, False),
        run_cmd("pip install requests", "Successfully installed requests-2.32.3", True),
        run_cmd("python sync.py", "synced 14 rows", True),
    ])  # fmt: skip
    compact_session(memory, name)
    items = memory.items()
    assert len(items) == 1, [i.title for i in items]
    assert items[0].confidence == "verified" and "pip install requests" in items[0].title


def test_a_failed_probe_for_a_tool_is_a_missing_tool_unless_it_turns_up(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        run_cmd("which gitleaks", "Exit code 1", False),
        run_cmd("command -v trivy 2>/dev/null", "Exit code 1", False),
        run_cmd("brew install trivy", "trivy 0.50 installed", True),
        run_cmd("trivy fs .", "0 findings", True),
    ])  # fmt: skip
    compact_session(memory, name)
    items = memory.items()
    assert [(i.kind, i.title) for i in items] == [
        ("env", "`gitleaks` is not installed here: `which gitleaks` finds nothing")
    ]


def test_a_setup_that_gets_a_command_past_an_environment_failure_is_the_lesson(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        run_cmd("python -m pytest tests/ -v", "C:\\Python314\\python.exe: No module named pytest",
                False),
        run_cmd("git log -1", "abc", True),
        run_cmd("python -m pip install -r requirements-dev.txt", "Successfully installed", True),
        run_cmd("python -m pytest tests/test_redaction.py -v",
                "E       AssertionError: assert 'ghp_x' not in out\n1 failed", False),
    ])  # fmt: skip
    compact_session(memory, name)
    items = memory.items()
    assert len(items) == 1, [i.title for i in items]
    assert items[0].kind == "env" and items[0].title == (
        "Run `python -m pip install -r requirements-dev.txt` before `python -m pytest tests/ -v`, "
        "else: C:\\Python314\\python.exe: No module named pytest"
    )


def test_titles_show_commands_without_the_leading_cd(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        run_cmd('cd "C:\\work\\shop" && npm run dev', "", True),
        obs("command", tool="Bash", input='cd "C:\\work\\shop" && npm run dev', ok=None,
            summary='$ cd "C:\\work\\shop" && npm run dev -> interrupted'),
    ])  # fmt: skip
    compact_session(memory, name)
    (item,) = memory.items()
    assert item.title == "`npm run dev` does not end by itself: it had to be interrupted"


def test_a_refusal_the_session_got_past_leaves_it_not_blocked(
    memory: api.Memory, write_buffer: Writer
) -> None:
    refused = "The user doesn't want to proceed with this tool use. The tool use was rejected."
    name = write_buffer([
        prompt("Document the setup"),
        obs("error", tool="Write", files=["CLAUDE.md"], ok=False,
            summary="write CLAUDE.md -> failed", excerpt=refused),
        obs("edit", tool="Write", files=["CLAUDE.md"], ok=True, summary="write CLAUDE.md"),
        said("I have documented the setup in CLAUDE.md."),
    ])  # fmt: skip
    compact_session(memory, name)
    summary = summary_of(memory, name)
    assert summary["status"] != "blocked"  # the second write went through
    assert "refused: CLAUDE.md" in str(summary["outcome"])  # what happened is still told
