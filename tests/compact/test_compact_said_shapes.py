"""Lessons of general shapes that no fix episode marks: a command line the shell could not
parse, a commit subject naming the old and the new shape of the code, a cause stated as a
missing behaviour and its consequence, or as a symptom and its "because", and a cause said
in the middle of a long closing message that capture trimmed."""

from __future__ import annotations

from pathlib import Path

from compact_helpers import Writer, obs, replay_through_installed_hooks, run_cmd, said

from memcli import api
from memcli.compact import compact_session

HEREDOC = "cd /tmp/case && cat > conf.py <<'EOF' project = 'case' EOF && python -m build"
PARSE_ERROR = "Exit code 2\nbash: -c: line 3: syntax error near unexpected token `&&'"


def test_a_line_the_shell_could_not_parse_is_an_env_fact_naming_its_construct(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        run_cmd(HEREDOC, PARSE_ERROR, False),
        run_cmd("ls /tmp/case", "conf.py", True),
    ])  # fmt: skip
    compact_session(memory, name)
    [item] = memory.items()
    assert item.kind == "env"
    assert item.title.startswith(
        "The shell could not parse a command line (bash: -c: line 3: syntax error near "
        "unexpected token `&&'): `cat > conf.py <<"
    )
    assert "a here-document (`<<`)" in item.body and "syntax error" in item.body


def test_a_parse_error_fixed_by_rewriting_the_script_is_a_verified_lesson(
    memory: api.Memory, write_buffer: Writer
) -> None:
    # The fix touched only a script the session wrote: a code error would be its own mess,
    # but the shell's parser is the environment, a lesson whatever the fix touched.
    command = "powershell.exe -Command \"cd 'C:\\repo'; `$env:GIT_EDITOR='true'; git commit\""
    eof = "Exit code 2\n/usr/bin/bash: eval: line 1: unexpected EOF while looking for matching ``'"
    name = write_buffer([
        run_cmd(command, eof, False),
        obs("edit", tool="Write", files=["do-commit.ps1"], ok=True, summary="write do-commit.ps1"),
        run_cmd(command, "[main 5fa2423] Add the reports", True),
    ])  # fmt: skip
    compact_session(memory, name)
    [item] = memory.items()
    assert item.confidence == "verified"
    assert "unexpected EOF while looking for matching" in item.title + item.body


def test_a_commit_subject_naming_old_and_new_shape_is_a_decision(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        run_cmd("git commit -m 'Refactor selectors: replace show/hide pairs with one "
                "showSelector helper'", "[main 1a2b3c4] Refactor selectors", True),
        run_cmd("git commit -m 'Split main.ts into modules: cli/args, core/model-resolver'",
                "[main 2b3c4d5] Split main.ts", True),
        run_cmd("git commit -m 'Add the session picker'", "[main 3c4d5e6] Add", True),
        run_cmd("git commit -m 'Fix path resolution in config.ts after the reorganization'",
                "[main 4d5e6f7] Fix", True),
    ])  # fmt: skip
    compact_session(memory, name)
    assert sorted((i.kind, i.title) for i in memory.items()) == [
        ("decision", "Refactor selectors: replace show/hide pairs with one showSelector helper"),
        ("decision", "Split main.ts into modules: cli/args, core/model-resolver"),
    ]


def test_a_missing_behaviour_and_its_consequence_is_a_stated_cause(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        run_cmd("python reproduce.py", "more than one target found for 'A'", True),
        said(
            "`Field.make_xref` calls `process_field_xref`, but `PythonDomain` doesn't override "
            "it, so implicit :rtype: xrefs lack the current module. `config.ts` doesn't exist "
            "yet, so I'll create it. It doesn't matter here, so the test stays."
        ),
    ])  # fmt: skip
    compact_session(memory, name)
    [item] = memory.items()
    assert item.kind == "pitfall"
    assert item.title.startswith("`Field.make_xref` calls `process_field_xref`, but")


def test_a_symptom_and_its_because_is_a_stated_cause(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        run_cmd("git commit --no-gpg-sign -F msg.txt", "[main 5fa2423] Add the reports", True),
        said("The commit was hanging because of GPG signing waiting for a pinentry in VSCode. "
             "I ran it because you asked."),
    ])  # fmt: skip
    compact_session(memory, name)
    [item] = memory.items()
    assert item.kind == "pitfall" and item.title.startswith("The commit was hanging because")


def test_a_cause_in_the_trimmed_middle_of_a_long_closing_message_is_read(repo: Path) -> None:
    session = "long-closing"
    filler = [f"{n}. ✅ `report-{n}.md` written" for n in range(1, 80)]
    message = "\n".join([
        "# Reports published", *filler[:30],
        "The commit was hanging because of GPG signing waiting for a pinentry in VSCode.",
        *filler[30:],
    ])  # fmt: skip
    base = {"session_id": session, "transcript_path": "", "cwd": str(repo)}
    payloads = [
        {**base, "hook_event_name": "UserPromptSubmit", "prompt": "publish the reports"},
        {**base, "hook_event_name": "Stop", "stop_hook_active": False,
         "last_assistant_message": message},
    ]  # fmt: skip
    replay_through_installed_hooks(repo, payloads)
    memory = api.Memory.open(repo)
    buffered = (memory.paths.buffers / f"{session}.jsonl").read_text(encoding="utf-8")
    assert "hanging" not in buffered  # capture kept the message's head and tail only
    compact_session(memory, session)
    titles = [i.title for i in memory.items()]
    assert "The commit was hanging because of GPG signing waiting for a pinentry in VSCode" in (
        titles
    )


def test_a_table_row_and_a_failing_because_are_no_lesson(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        run_cmd("npm test", "12 passed", True),
        said("| Security | 8.5/10 | Exceptional, needs validation |\n"
             "The `build` is failing because the TUI package hasn't exported the theme types."),
    ])  # fmt: skip
    compact_session(memory, name)
    assert [i.title for i in memory.items()] == []
