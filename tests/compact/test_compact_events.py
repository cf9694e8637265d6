"""Event shapes beyond one fail-then-pass: several failures of one command fixed in turn, a
finding whose runner only says "exit N", and the shapes in `memcli/compact/events.py`."""

from __future__ import annotations

from compact_helpers import Writer, edit, obs, run_cmd, said

from memcli import api
from memcli.compact import compact_session

PRICE = "TypeError: total is not a function\n    at src/price.js:3:9\nnpm ERR! Test failed."
TAX = "RangeError: Invalid currency code: XX\n    at src/tax.js:9:2\nnpm ERR! Test failed."


def test_each_change_of_error_is_an_episode_of_its_own(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        run_cmd("npm test", PRICE, False),
        edit("src/price.js"),
        run_cmd("npm test", TAX, False),
        edit("src/tax.js"),
        run_cmd("npm test", "Tests: 9 passed", True),
    ])  # fmt: skip
    compact_session(memory, name)
    items = {i.title: i for i in memory.items()}
    assert len(items) == 2, list(items)
    first = next(i for t, i in items.items() if "TypeError" in t)
    second = next(i for t, i in items.items() if "RangeError" in t)
    assert "src/price.js" in first.title and "src/tax.js" not in first.title
    assert "src/tax.js" in second.title and "src/price.js" not in second.title
    assert first.confidence == second.confidence == "verified"
    assert "got past it and failed with: RangeError" in first.body


def test_no_edit_between_two_errors_is_no_transition(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        run_cmd("npm test", PRICE, False),
        run_cmd("npm test", TAX, False),  # another error with nothing done: flaky, one episode
        edit("src/price.js"),
        run_cmd("npm test", "Tests: 9 passed", True),
    ])  # fmt: skip
    compact_session(memory, name)
    [item] = memory.items()
    assert "TypeError" in item.title


def test_an_error_the_edit_made_hides_the_first_one(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        run_cmd("pytest", "E   assert 344 == 345", False),
        edit("src/rows.py"),
        run_cmd("pytest", "E     File \"src/rows.py\", line 3\nSyntaxError: invalid syntax", False),
        edit("src/rows.py"),
        run_cmd("pytest", "12 passed", True),
        said("The last row was dropped because the page check in rows.py used > instead of >=."),
    ])  # fmt: skip
    compact_session(memory, name)
    [item] = memory.items()
    assert "page check" in item.title and item.confidence == "verified"


def test_a_chain_left_failing_keeps_what_it_fixed(memory: api.Memory, write_buffer: Writer) -> None:
    name = write_buffer([
        run_cmd("npm test", PRICE, False),
        edit("src/price.js"),
        run_cmd("npm test", TAX, False),
    ])  # fmt: skip
    compact_session(memory, name)
    kinds = sorted((i.kind, i.confidence) for i in memory.items())
    assert ("pitfall", "assumed") in kinds and ("task", "assumed") in kinds
    pitfall = next(i for i in memory.items() if i.kind == "pitfall")
    assert "TypeError" in pitfall.title and "src/price.js" in pitfall.title


def test_an_exit_code_alone_never_titles_an_item(memory: api.Memory, write_buffer: Writer) -> None:
    name = write_buffer([
        obs("error", tool="Bash", input="mix credo", ok=False, exit_code=2, excerpt="",
            summary="$ mix credo -> failed (exit 2)"),
        edit("lib/cart.ex"),
        run_cmd("mix credo", "no issues", True),
    ])  # fmt: skip
    compact_session(memory, name)
    assert not [i for i in memory.items() if "exit 2" in i.title]


def test_a_finding_line_titles_the_item(memory: api.Memory, write_buffer: Writer) -> None:
    finding = "lib/cart.ex:12:5: warning: variable \"tax\" is unused\nlib/cart.ex:14:3: " \
        "error: undefined function total/1\nexit 1"  # fmt: skip
    name = write_buffer([
        run_cmd("mix compile", finding, False),
        edit("lib/cart.ex"),
        run_cmd("mix compile", "Compiled 3 files", True),
    ])  # fmt: skip
    compact_session(memory, name)
    [item] = memory.items()
    assert "undefined function total/1" in item.title


HOOK = (
    "PreToolUse:Bash hook error: [python3 .claude/hooks/guard.py]: Commits to main are "
    "blocked: create a feature branch first"
)


def test_a_hook_refusal_then_a_remedy_keeps_the_refusal_words(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        obs("error", tool="Bash", input="git commit -m 'Add tax'", ok=False, excerpt=HOOK,
            summary="$ git commit -m 'Add tax' -> failed (PreToolUse:Bash hook error)"),
        run_cmd("git checkout -b tax", "Switched to a new branch 'tax'", True),
        run_cmd("git commit -m 'Add tax'", "[tax 1a2b3c4] Add tax", True),
    ])  # fmt: skip
    compact_session(memory, name)
    [item] = memory.items()
    assert "refused by a hook" in item.title
    assert "create a feature branch first" in item.title and "git checkout -b tax" in item.title
    assert item.confidence == "verified"


TOO_BIG = ("File content (31000 tokens) exceeds maximum allowed tokens (25000). Please use "
           "offset and limit parameters to read specific portions of the file.")  # fmt: skip


def _tool(
    tool: str, summary: str, ok: bool, excerpt: str = "", **fields: object
) -> dict[str, object]:
    return obs("other" if ok else "error", tool=tool, ok=ok, summary=summary, excerpt=excerpt,
               **fields)  # fmt: skip


def test_a_tool_failing_then_working_otherwise_is_how_to_call_it(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        _tool("Read", "read data/orders.json -> failed (File content ...)", False, TOO_BIG,
              files=["data/orders.json"], input="data/orders.json"),
        _tool("Read", "read data/orders.json (offset 1, limit 200)", True,
              files=["data/orders.json"], input="data/orders.json"),
    ])  # fmt: skip
    compact_session(memory, name)
    [item] = memory.items()
    assert item.kind == "env" and "exceeds maximum allowed tokens" in item.title
    assert "offset 1, limit 200" in item.title


def test_a_tool_failing_then_working_on_another_file_is_no_item(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        _tool("Read", "read data/orders.json -> failed (File content ...)", False, TOO_BIG,
              files=["data/orders.json"], input="data/orders.json"),
        _tool("Read", "read src/orders.py", True, files=["src/orders.py"], input="src/orders.py"),
    ])  # fmt: skip
    compact_session(memory, name)
    assert memory.items() == []


def test_a_tool_failure_never_got_past_is_no_item(memory: api.Memory, write_buffer: Writer) -> None:
    name = write_buffer([
        _tool("WebFetch", "WebFetch https://example.invalid/x -> failed", False,
              "Request failed with status code 503", input="https://example.invalid/x"),
        run_cmd("curl -s https://example.invalid/x", "ok", True),
    ])  # fmt: skip
    compact_session(memory, name)
    assert memory.items() == []


WARNED = (
    "   Compiling cart v0.1.0\nwarning: use of deprecated function `chrono::Utc::today`\n"
    "  --> src/cart.rs:12:15\n    Finished dev profile"
)


def test_a_warning_the_session_acted_on_is_a_pitfall(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        run_cmd("cargo build", WARNED, True),
        edit("src/cart.rs"),
        run_cmd("cargo build", "Finished dev profile", True),
    ])  # fmt: skip
    compact_session(memory, name)
    [item] = memory.items()
    assert item.kind == "pitfall" and "deprecated function" in item.title
    assert "src/cart.rs" in item.title


def test_a_warning_the_session_ignored_is_no_item(memory: api.Memory, write_buffer: Writer) -> None:
    warned = "src/cart.rs:12:15: warning: use of deprecated function `chrono::Utc::today`"
    name = write_buffer([run_cmd("cargo build", warned, True), edit("src/tax.rs")])
    compact_session(memory, name)
    assert memory.items() == []


def _background(command_line: str, job: str) -> dict[str, object]:
    return obs("command", tool="Bash", input=command_line, ok=None,
               excerpt=f"running in the background (id {job})",
               summary=f"$ {command_line} -> background")  # fmt: skip


def _poll(job: str, status: str) -> dict[str, object]:
    return obs("other", tool="TaskOutput", input=job, ok=True, excerpt=f"status: {status}\n",
               summary=f"TaskOutput {job}")  # fmt: skip


def test_a_slow_build_the_assistant_explains_is_an_env_fact(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        _background("cargo build --release", "b1"),
        _poll("b1", "running"),
        _poll("b1", "running"),
        _poll("b1", "completed"),
        said("The first release build compiles every dependency, so it takes several minutes."),
    ])  # fmt: skip
    compact_session(memory, name)
    slow = [i for i in memory.items() if "takes long" in i.title]
    assert len(slow) == 1 and "cargo build --release" in slow[0].title
    assert "3 polls" in slow[0].title and slow[0].kind == "env"


def test_a_slow_run_nobody_explains_is_no_item(memory: api.Memory, write_buffer: Writer) -> None:
    name = write_buffer([
        _background("npm run e2e", "b2"),
        _poll("b2", "running"),
        _poll("b2", "completed"),
        _poll("other", "running"),  # another job's poll
        said("All green."),
    ])  # fmt: skip
    compact_session(memory, name)
    assert not [i for i in memory.items() if "takes long" in i.title]


def test_a_guessed_path_the_next_read_corrects_is_no_lesson(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        _tool("Read", "read src/cart.py -> failed (File does not exist.)", False,
              "File does not exist. Current working directory: /repo", files=["src/cart.py"],
              input="src/cart.py"),
        _tool("Read", "read app/cart.py", True, files=["app/cart.py"], input="app/cart.py"),
    ])  # fmt: skip
    compact_session(memory, name)
    assert memory.items() == []


CYGPATH = "Command failed: cygpath -u 'C:\\Users\\me\\AppData\\Local\\Temp\\x'"
CYGHEAP = "      0 [main] bash (2892) child_copy: cygheap read copy failed, 0x0..0x800020EF0"


def test_the_shell_failing_before_a_command_ran_is_one_fact_of_the_machine(
    memory: api.Memory, write_buffer: Writer
) -> None:
    name = write_buffer([
        run_cmd('ssh root@10.0.0.1 "rm -f /usr/lib/a.lua && find /www -name a"', CYGPATH, False),
        run_cmd('ssh root@10.0.0.1 "rm -rf /www/views/a*"', "", True),
        run_cmd('ssh root@10.0.0.1 "opkg remove kmod-x"', CYGHEAP, False),
        run_cmd('ssh root@10.0.0.1 "opkg remove kmod-x"', "Removing package kmod-x", True),
    ])  # fmt: skip
    compact_session(memory, name)
    [item] = memory.items()  # no "it passes with -rf", no "use B, not A"
    assert item.kind == "env" and item.confidence == "verified"
    assert "before they run" in item.title and "run the same command again" in item.title
    assert "-rf" not in item.title


def test_a_step_added_before_the_same_command_is_a_workaround(
    memory: api.Memory, write_buffer: Writer
) -> None:
    lock = "* opkg_conf_load: Could not lock /var/lock/opkg.lock: Resource temporarily unavailable."
    name = write_buffer([
        run_cmd('ssh root@10.0.0.1 "opkg remove gl-cloud"', lock, False),
        run_cmd('ssh root@10.0.0.1 "sleep 2 && opkg remove gl-cloud"', "Removing gl-cloud", True),
    ])  # fmt: skip
    compact_session(memory, name)
    [item] = memory.items()
    assert item.kind == "env" and "opkg.lock" in item.title
    assert "it passes after `sleep 2`" in item.title
