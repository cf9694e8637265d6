"""The rules on synthetic sessions: what becomes memory, and the junk that never does."""

from __future__ import annotations

from pathlib import Path

from compact_helpers import Writer, edit, obs, prompt, run_cmd, said

from memcli import api, yamlio
from memcli.compact import commands, compact_session
from memcli.compact import text as compact_text

DB_FAIL = (
    "E   psycopg.OperationalError: connection to server at localhost, port 5433 failed\n"
    "=========== 1 failed in 0.41s ==========="
)
PASSED = "=========== 12 passed in 1.02s ==========="


def kinds(memory: api.Memory) -> list[str]:
    return sorted(i.kind for i in memory.items())


def summary_of(memory: api.Memory, name: str) -> dict[str, object]:
    doc, _problem = yamlio.read(memory.paths.sessions / f"{name}.yaml")
    assert doc is not None
    data = doc.plain()
    assert isinstance(data, dict)
    return data


def test_a_failure_never_resolved_is_not_memory(memory: api.Memory, write_buffer: Writer) -> None:
    name = write_buffer(
        [prompt("Make the tests pass"), run_cmd("pytest", DB_FAIL, False), edit("src/db.py")]
    )
    compact_session(memory, name)
    assert memory.items() == []
    assert summary_of(memory, name)["status"] == "no outcome"


def test_a_check_still_failing_after_edits_is_an_unfinished_task(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer(
        [
            prompt("Make the order tests pass"),
            run_cmd("pytest tests/test_orders.py", DB_FAIL, False),
            edit("src/db.py"),
            run_cmd("pytest tests/test_orders.py", DB_FAIL, False),
        ]
    )
    compact_session(memory, name)
    [task] = memory.items()
    assert task.kind == "task" and task.confidence == "assumed"
    # What still fails leads the title; the session's goal is in the body.
    assert task.title.startswith("Unfinished: `pytest tests/test_orders.py` still fails: ")
    assert "Goal: Make the order tests pass" in task.body
    assert task.expires and "still fails" in task.body
    assert summary_of(memory, name)["status"] == "unfinished"


def test_a_pass_with_nothing_in_between_is_flakiness(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([run_cmd("pytest", DB_FAIL, False), run_cmd("pytest", PASSED, True)])
    compact_session(memory, name)
    assert memory.items() == []


def test_trivial_successful_commands_are_not_memory(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer(
        [
            run_cmd("git status", "nothing to commit", True),
            run_cmd("ls -la", "README.md", True),
            run_cmd("pytest", PASSED, True),
            obs("read", tool="Read", files=["README.md"], ok=True, summary="read README.md"),
        ]
    )
    compact_session(memory, name)
    assert memory.items() == []


def test_the_assistants_own_syntax_error_is_not_a_pitfall(
    memory: api.Memory, write_buffer: Writer
) -> None:
    broken = '  File "src/app.py", line 3\nSyntaxError: invalid syntax\n1 error'
    name = write_buffer(
        [
            edit("src/app.py"),
            run_cmd("python -m pytest", broken, False),
            edit("src/app.py"),
            run_cmd("python -m pytest", PASSED, True),
        ]
    )
    compact_session(memory, name)
    assert memory.items() == []


def test_a_lint_failure_fixed_without_explanation_is_routine(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer(
        [
            run_cmd(
                "ruff check .", "src/a.py:1:1: F401 `os` imported but unused\nFound 1 error", False
            ),
            edit("src/a.py"),
            run_cmd("ruff check .", "All checks passed!", True),
        ]
    )
    compact_session(memory, name)
    assert memory.items() == []


def test_a_wider_passing_run_verifies_a_narrow_failure(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer(
        [
            run_cmd("pytest tests/test_orders.py::test_create -x", DB_FAIL, False),
            edit("tests/conftest.py"),
            run_cmd("uv run python -m pytest", PASSED, True),
        ]
    )
    compact_session(memory, name)
    [item] = memory.items()
    assert item.kind == "pitfall" and item.confidence == "verified"
    assert "port 5433 failed" in item.title
    assert item.anchors == [{"path": "tests/conftest.py"}]


def test_a_fix_by_setup_command_alone_is_an_env_item(
    memory: api.Memory, write_buffer: Writer
) -> None:
    missing = "E   ModuleNotFoundError: No module named 'shop'\n1 error in 0.1s"
    name = write_buffer(
        [
            run_cmd("pytest", missing, False),
            run_cmd("cat setup.cfg", "[metadata]", True),
            run_cmd("pip install -e .", "Successfully installed shop", True),
            run_cmd("pytest", PASSED, True),
        ]
    )
    compact_session(memory, name)
    [item] = memory.items()
    assert item.kind == "env" and item.confidence == "verified"
    assert "`pip install -e .`" in item.title and "No module named 'shop'" in item.title
    assert "cat setup.cfg" not in item.body


def test_explicit_conventions_of_the_user(memory: api.Memory, write_buffer: Writer) -> None:
    name = write_buffer(
        [
            prompt(
                "The order tests always fail on Mondays. We use pnpm, never npm. "
                "Should we always squash? Always run ruff before committing."
            ),
        ]
    )
    compact_session(memory, name)
    titles = sorted(i.title for i in memory.items())
    assert titles == ["Always run ruff before committing", "We use pnpm, never npm"]
    assert kinds(memory) == ["convention", "convention"]


def test_conventions_already_in_claude_md_are_restated_instructions(
    repo: Path, memory: api.Memory, write_buffer: Writer
) -> None:
    (repo / "CLAUDE.md").write_text("# Rules\n\n- We use pnpm, never npm.\n")
    name = write_buffer([prompt("Reminder: we use pnpm, never npm. Always pin versions.")])
    compact_session(memory, name)
    assert [i.title for i in memory.items()] == ["Always pin versions"]


def test_a_pasted_instruction_file_is_not_a_convention(
    memory: api.Memory, write_buffer: Writer
) -> None:
    pasted = "# CLAUDE.md\n\nAlways use tabs.\nNever commit directly to main.\n"
    name = write_buffer([prompt(pasted)])
    compact_session(memory, name)
    assert memory.items() == []


def test_injected_memory_is_never_captured_again(memory: api.Memory, write_buffer: Writer) -> None:
    fenced = "<mem-context>\n- Always use pnpm\n</mem-context>\nPlease fix the login page"
    name = write_buffer(
        [prompt(fenced), said("<mem-context>We chose Redis instead of Memcached.</mem-context>")]
    )
    compact_session(memory, name)
    assert memory.items() == []
    assert summary_of(memory, name)["intent"] == "Please fix the login page"


def test_rationale_in_the_final_message_is_a_decision(
    memory: api.Memory, write_buffer: Writer
) -> None:
    message = (
        "Let me summarise. I used httpx instead of requests because the client must be async. "
        "I ran the tests and they pass. The cache now lives in Redis because it survives restarts."
    )
    name = write_buffer([prompt("Add an async client"), said(message)])
    compact_session(memory, name)
    titles = sorted(i.title for i in memory.items())
    assert titles == [
        "I used httpx instead of requests because the client must be async",
        "The cache now lives in Redis because it survives restarts",
    ]
    assert kinds(memory) == ["decision", "decision"]
    assert all(i.confidence == "assumed" for i in memory.items())


def test_an_environment_statement_with_a_value_is_an_env_item(
    memory: api.Memory, write_buffer: Writer
) -> None:
    message = "The dev server listens on 8080 behind nginx. Everything looks good."
    name = write_buffer([said(message)])
    compact_session(memory, name)
    [item] = memory.items()
    assert item.kind == "env" and item.title == "The dev server listens on 8080 behind nginx"


def test_commands_are_normalised_and_compared() -> None:
    wrapped = commands.parse("cd app && DB_PORT=5432 uv run python -m pytest tests/a.py -x | tail")
    assert (wrapped.program, wrapped.key, wrapped.targets) == ("pytest", "pytest", ("tests/a.py",))
    assert commands.parse("npm run test:unit -- --watch").key == "npm run test:unit"
    narrow = commands.parse("pytest tests/a.py::test_x")
    assert commands.covers(commands.parse("pytest tests"), narrow)
    assert not commands.covers(narrow, commands.parse("pytest"))
    assert commands.equivalent(narrow, commands.parse("pytest"))
    assert not commands.equivalent(narrow, commands.parse("pytest tests/b.py"))
    assert commands.parse("git status").looking and not commands.parse("git commit").looking
    assert commands.parse("make test").check and not commands.parse("make install").check


def test_the_decisive_line_of_common_outputs() -> None:
    pytest_out = "tests/a.py F\n>   x()\nE   KeyError: 'DB_PORT'\n1 failed"
    assert commands.decisive_line(pytest_out) == "KeyError: 'DB_PORT'"
    trace = 'Traceback (most recent call last):\n  File "a.py", line 1\nValueError: bad\n'
    assert commands.decisive_line(trace) == "ValueError: bad"
    assert (
        commands.decisive_line("npm ERR! missing script: test\n") == "npm ERR! missing script: test"
    )
    assert commands.signature("port 5433 failed") == commands.signature("port 6543 failed")


def test_sentences_and_values() -> None:
    said_text = "It listens on 5432 (DB_PORT in .env). conftest now reads it, e.g. in CI. Done!"
    assert compact_text.sentences(said_text) == [
        "It listens on 5432 (DB_PORT in .env).",
        "conftest now reads it, e.g. in CI.",
        "Done!",
    ]
    assert compact_text.values("node 18.2.0 on port 5433, 1 file") == {"18.2.0", "5433"}


def test_fixing_code_written_in_the_same_session_is_not_a_lesson(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer(
        [
            obs(
                "edit",
                tool="Write",
                files=["tools/report.py"],
                ok=True,
                summary="write tools/report.py",
            ),
            run_cmd("python tools/report.py", "E   KeyError: 'total'\n1 error", False),
            edit("tools/report.py"),
            run_cmd("python tools/report.py", "report written", True),
        ]
    )
    compact_session(memory, name)
    assert memory.items() == []


def test_failed_edits_and_looking_commands_are_not_episodes(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer(
        [
            obs(
                "error",
                tool="Edit",
                files=["a.py"],
                input="a.py",
                ok=False,
                summary="edit a.py -> failed (old_string not found)",
            ),  # fmt: skip
            run_cmd("cat notes.txt", "cat: notes.txt: No such file or directory", False),
            edit("notes.txt"),
            obs("edit", tool="Edit", files=["a.py"], input="a.py", ok=True, summary="edit a.py"),
            run_cmd("cat notes.txt", "hello", True),
        ]
    )
    compact_session(memory, name)
    assert memory.items() == []


def test_a_pass_with_added_options_is_an_env_workaround(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer(
        [
            run_cmd("svn commit -m 'x'", "error: signing failed: no secret key", False),
            run_cmd("svn commit --non-interactive -m 'x'", "Committed revision 7.", True),
        ]
    )
    compact_session(memory, name)
    [item] = memory.items()
    assert item.kind == "env" and "--non-interactive" in item.title
    assert "signing failed" in item.title


def test_an_unreachable_host_never_reached_is_an_env_fact(
    memory: api.Memory, write_buffer: Writer
) -> None:
    out = "ssh: connect to host build.example.invalid port 22: Network is unreachable"
    name = write_buffer([run_cmd("ssh build.example.invalid uptime", out, False)])
    compact_session(memory, name)
    [item] = memory.items()
    assert item.kind == "env" and "Network is unreachable" in item.title


def test_a_cause_naming_what_something_lacks_is_a_pitfall(
    memory: api.Memory, write_buffer: Writer
) -> None:
    message = (
        "The upload stalls because the CI runner doesn't allow outbound FTP connections. "
        '"""Parse the config lazily instead of at import time""" '
        "I kept it simple because it works."
    )
    name = write_buffer([prompt("Why does the upload stall?"), said(message)])
    compact_session(memory, name)
    [item] = memory.items()
    assert item.kind == "pitfall" and "outbound FTP" in item.title


def test_a_look_around_chained_after_the_command_does_not_decide_it(
    memory: api.Memory, write_buffer: Writer
) -> None:
    refused = "The following files are excluded by your settings:\nbuild/gen_token.c\nhint: x"
    name = write_buffer(
        [
            run_cmd("hg add build/gen_token.c", "error: " + refused, False),
            run_cmd("hg add --force build/gen_token.c && hg status", "A build/gen_token.c", True),
        ]
    )
    compact_session(memory, name)
    [item] = memory.items()
    assert "--force" in item.title and "build/gen_token.c" in item.title
    assert commands.parse("hg add --force x && git status").key == "hg"
