"""Notices a program prints on run after run (`memcli/compact/notices.py`): one env fact of
the environment each, never a lesson from a warning seen once or from code that was read."""

from __future__ import annotations

from compact_helpers import Writer, edit, run_cmd

from memcli import api
from memcli.compact import compact_session, notices
from memcli.compact.observations import from_records

KEX = "** WARNING: the connection does not use a modern key exchange.\n** Upgrade the server."


def _notes(memory: api.Memory) -> list[api.Item]:
    return [i for i in memory.items() if "this on" in i.title]


def test_a_warning_on_every_run_is_an_env_fact(memory: api.Memory, write_buffer: Writer) -> None:
    name = write_buffer([
        run_cmd('ssh admin@box "uptime"', KEX + "\n up 3 days", True),
        run_cmd('ssh admin@box "df -h /"', KEX + "\n/dev/sda1 40G 12G", True),
        run_cmd('ssh admin@box "systemctl restart web"', KEX, True),
    ])  # fmt: skip
    compact_session(memory, name)
    [item] = _notes(memory)
    assert item.kind == "env" and item.confidence == "assumed"
    assert item.title.startswith("`ssh` prints this on every run here: WARNING: the connection")
    assert "not from the change at hand" in item.body


def test_numbers_and_prefixes_do_not_split_a_notice(
    memory: api.Memory, write_buffer: Writer
) -> None:
    push = "remote: GitHub found {} vulnerabilities on the default branch (2 high).\nmain -> main"
    name = write_buffer([
        run_cmd("git push origin main", push.format(19), True),
        edit("src/app.py"),
        run_cmd("git push origin main", push.format(21), True),
    ])  # fmt: skip
    compact_session(memory, name)
    [item] = _notes(memory)
    assert "`git` prints this on every run here: GitHub found 19 vulnerabilities" in item.title


def test_the_same_warning_from_two_programs_is_one_notice() -> None:
    warn = "WARNING: plugin registry: node class 'note' is already registered"
    records = [
        run_cmd("pytest -q tests/test_a.py", warn + "\n3 passed", True),
        run_cmd("python scripts/build_docs.py", "2024-05-01 10:00:01 " + warn, True),
    ]
    drafts = notices.drafts(
        from_records([{**r, "id": f"o{n}"} for n, r in enumerate(records)]), "s"
    )
    [draft] = drafts
    assert draft.title.startswith("`pytest` and `python` print this on every run here: WARNING")


def test_a_warning_seen_once_or_in_few_of_many_runs_is_none(
    memory: api.Memory, write_buffer: Writer
) -> None:
    runs = [run_cmd(f"make step{n}", "ok", True) for n in range(6)]
    name = write_buffer([
        run_cmd("make build", "warning: unused variable `x` in src/a.c\nbuilt", True),
        *runs,
        run_cmd("make build", "warning: unused variable `x` in src/a.c\nbuilt", True),
    ])  # fmt: skip
    compact_session(memory, name)
    assert _notes(memory) == []  # 2 of 8 `make` runs: no pattern


def test_code_read_or_listed_is_no_notice(memory: api.Memory, write_buffer: Writer) -> None:
    name = write_buffer([
        run_cmd("grep -rn WARNING src/", "src/log.py:3: WARNING: level = 30", True),
        run_cmd("grep -rn WARNING lib/", "src/log.py:3: WARNING: level = 30", True),
        run_cmd("ls docs", "02-Security-Vulnerabilities-Audit.md\nold-deprecated/x.md", True),
        run_cmd("ls docs", "02-Security-Vulnerabilities-Audit.md\nold-deprecated/x.md", True),
    ])  # fmt: skip
    compact_session(memory, name)
    assert _notes(memory) == []


def test_prose_about_warnings_is_no_notice() -> None:
    assert notices._notices("no warnings found in 3 files") == {}
    assert notices._notices("=== 3 passed, 2 warnings in 0.12s ===") == {}
    assert notices._notices("warned about nothing") == {}


def test_the_program_of_a_command_under_a_comment_line_is_the_one_that_ran() -> None:
    warn = "WARNING: plugin registry: node class 'note' is already registered"
    records = [
        run_cmd("# the unit tests\npytest -q tests/test_a.py", warn + "\n3 passed", True),
        run_cmd("# and the docs\npython scripts/build_docs.py", warn, True),
    ]
    [draft] = notices.drafts(
        from_records([{**r, "id": f"o{n}"} for n, r in enumerate(records)]), "s"
    )
    assert draft.title.startswith("`pytest` and `python` print this on every run here")


def test_no_tests_to_run_is_the_runs_filter_not_a_notice(
    memory: api.Memory, write_buffer: Writer
) -> None:
    empty = "testing: warning: no tests to run\nPASS\nok  \tentire.io/cli/x\t0.2s [no tests to run]"
    name = write_buffer([run_cmd(f"go test ./... -run TestGit{n}", empty, True) for n in range(4)])
    compact_session(memory, name)
    assert _notes(memory) == []
