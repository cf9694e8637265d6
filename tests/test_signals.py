"""The signal classifiers: each error-signature shape, generic runner lines, sentence kinds."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memcli import phrasing, signals
from memcli.compact import commands

SHAPES = [
    # (output, kind, line)
    (
        'npm warn Unknown env config "tmp"\nTypeError: generate is not a function\n'
        "    at run (src/gen.js:4:9)\nnpm ERR! Test failed.  See above for more details.",
        "exception",
        "TypeError: generate is not a function",
    ),
    (
        'Error: npm warn Unknown env config "tmp"\nsrc/App.test.tsx(1,30): error TS2307: '
        "Cannot find module '@testing-library/react' or its corresponding type declarations.",
        "missing-package",
        "src/App.test.tsx(1,30): error TS2307: Cannot find module '@testing-library/react' or "
        "its corresponding type declarations.",
    ),
    (
        "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
        "typescript",
        "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
    ),
    (
        "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree",
        "missing-package",
        "npm ERR! code ERESOLVE",
    ),
    ("npm ERR! code EINTEGRITY\nnpm ERR! sha512 mismatch", "npm", "npm ERR! code EINTEGRITY"),
    (
        "error[E0308]: mismatched types\n --> src/main.rs:4:5\n"
        "error: could not compile `app` due to previous error",
        "rust",
        "error[E0308]: mismatched types",
    ),
    (
        'Traceback (most recent call last):\n  File "a.py", line 1, in <module>\n'
        "ModuleNotFoundError: No module named 'requests'",
        "missing-package",
        "ModuleNotFoundError: No module named 'requests'",
    ),
    (
        'Traceback (most recent call last):\n  File "a.py", line 3\n    raise KeyError\n'
        "ValueError: bad\n\nDuring handling...\nKeyError: 'price'",
        "exception",
        "KeyError: 'price'",
    ),
    ("bash: pnpm: command not found", "missing-tool", "bash: pnpm: command not found"),
    (
        "pnpm : The term 'pnpm' is not recognized as the name of a cmdlet, function, script file,"
        " or operable program.\nAt line:1 char:1",
        "missing-tool",
        "pnpm : The term 'pnpm' is not recognized as the name of a cmdlet, function, script file,"
        " or operable program.",
    ),
    (
        "Exit code 127\n./test_simple: error while loading shared libraries: libvsla.so: "
        "cannot open shared object file: No such file or directory",
        "missing-package",
        "./test_simple: error while loading shared libraries: libvsla.so: cannot open shared "
        "object file: No such file or directory",
    ),
    (
        "dyld[4821]: Library not loaded: @rpath/libssl.3.dylib\n  Referenced from: ./server",
        "missing-package",
        "dyld[4821]: Library not loaded: @rpath/libssl.3.dylib",
    ),
    (
        "Error: listen EADDRINUSE: address already in use :::3000",
        "port",
        "listen EADDRINUSE: address already in use :::3000",
    ),
    (
        "mkdir: cannot create directory '/opt/app': Permission denied",
        "permission",
        "mkdir: cannot create directory '/opt/app': Permission denied",
    ),
    (
        "ERROR: Package 'shop' requires a different Python: 3.10.12 not in '>=3.11'\n"
        "npm WARN EBADENGINE Unsupported engine { required: { node: '>=20' } }",
        "version",
        "ERROR: Package 'shop' requires a different Python: 3.10.12 not in '>=3.11'",
    ),
    (
        "Need to install the following packages:\n  create-vite@5\nOk to proceed? (y)",
        "interactive",
        "Need to install the following packages: create-vite@5",
    ),
    (
        "fatal: not a git repository (or any of the parent directories): .git",
        "shell-state",
        "fatal: not a git repository (or any of the parent directories): .git",
    ),
    (
        "error: Pulling is not possible because you have unmerged files.\nfatal: You have not "
        "concluded your merge (MERGE_HEAD exists).\nhint: Please, commit your changes before "
        "merging.\nfatal: Exiting because of unfinished merge.",
        "shell-state",
        "error: Pulling is not possible because you have unmerged files.",
    ),
    (
        "hint: You have divergent branches and need to specify how to reconcile them.\n"
        "fatal: Need to specify how to reconcile divergent branches.",
        "shell-state",
        "fatal: Need to specify how to reconcile divergent branches.",
    ),
    (
        "--- FAIL: TestAdd (0.00s)\n    add_test.go:9: got 3 want 4\nFAIL\nexit status 1",
        "go",
        "--- FAIL: TestAdd (0.00s)",
    ),
    (  # golangci-lint's typecheck: a package header line, then the compiler's finding
        "cli/telemetry.go:1: : # entire.io/cli/telemetry [entire.io/cli/telemetry.test]\n"
        "cli/telemetry.go:92:23: cannot use silentLogger{} as posthog.Logger value in struct "
        "literal: silentLogger does not implement posthog.Logger (missing method Debugf)\n"
        "1 issues:\n* typecheck: 1",
        "go",
        "cli/telemetry.go:92:23: cannot use silentLogger{} as posthog.Logger value in struct "
        "literal: silentLogger does not implement posthog.Logger (missing method Debugf)",
    ),
    (
        'Exception in thread "main" java.lang.NullPointerException\n\tat Foo.main(Foo.java:3)',
        "java",
        'Exception in thread "main" java.lang.NullPointerException',
    ),
    (
        "tests/test_a.py F\nE       assert 344 == 345\n"
        "FAILED tests/test_a.py::test_count - assert 344 == 345\n1 failed in 0.10s",
        "pytest",
        "assert 344 == 345",
    ),
    (
        "FAIL src/price.test.js\n  ● price › adds tax\n    expect(received).toBe(expected)\n"
        "Tests: 1 failed, 3 passed",
        "jest",
        "FAIL src/price.test.js",
    ),
    (
        "curl: (6) Could not resolve host: api.example.invalid",
        "network",
        "curl: (6) Could not resolve host: api.example.invalid",
    ),
    (
        "@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\nOffending ED25519 key in "
        "~/.ssh/known_hosts:12\nHost key for 10.0.0.1 has changed and you have requested strict "
        "checking.\nHost key verification failed.",
        "network",
        "Host key for 10.0.0.1 has changed and you have requested strict checking.",
    ),
    (
        "Exit code 1\n! [remote rejected] main -> main (pre-receive hook declined)\n"
        "error: failed to push some refs",
        "service",
        "! [remote rejected] main -> main (pre-receive hook declined)",
    ),
    (
        "error: gpg failed to sign the data\nfatal: failed to write commit object",
        "service",
        "error: gpg failed to sign the data",
    ),
    (
        "sudo: a terminal is required to read the password",
        "interactive",
        "sudo: a terminal is required to read the password",
    ),
    # A linter's or test framework's finding, when the runner's own last line is an exit code.
    (
        "src/app/cart.py:1:8: F401 [*] `os` imported but unused\nFound 1 error.\nexit 1",
        "finding",
        "src/app/cart.py:1:8: F401 [*] `os` imported but unused",
    ),
    (
        "/repo/src/app.js\n  3:1  error  'total' is not defined  no-undef\n\n1 problem",
        "finding",
        "3:1  error  'total' is not defined  no-undef",
    ),
    (
        "lib/a.c:3:5: warning: unused variable 'x'\nlib/a.c:9:2: error: expected ';' before '}'",
        "finding",
        "lib/a.c:9:2: error: expected ';' before '}'",
    ),
    (
        "** (KeyError) key :currency not found in: %{}\n    (elixir 1.15) lib/map.ex:1",
        "exception",
        "** (KeyError) key :currency not found in: %{}",
    ),
    (
        "  1) test totals include tax (CartTest)\n     test/cart_test.exs:12\n"
        "     Assertion with == failed\n     code:  assert total(cart) == 110\n\n"
        "Finished in 0.04 seconds\n9 tests, 1 failure",
        "tests",
        "test totals include tax (CartTest): Assertion with == failed",
    ),
    (
        "Failures:\n\n  1) Cart totals include tax\n     Failure/Error: expect(total).to eq 110\n"
        "\n4 examples, 1 failure",
        "tests",
        "Cart totals include tax: Failure/Error: expect(total).to eq 110",
    ),
    (
        "  1) Failure:\nCartTest#test_tax [test/cart_test.rb:12]:\nExpected: 110\n  Actual: 100\n"
        "\n3 runs, 3 assertions, 1 failures, 0 errors, 0 skips",
        "tests",
        "CartTest#test_tax: Expected: 110",
    ),
    # The shell's own parser: nothing ran (a here-document chained on, another shell's quotes).
    (
        "Exit code 2\nbash: -c: line 4: syntax error near unexpected token `&&'",
        "syntax",
        "bash: -c: line 4: syntax error near unexpected token `&&'",
    ),
    (
        "Exit code 2\n/usr/bin/bash: eval: line 1: unexpected EOF while looking for matching ``'",
        "syntax",
        "/usr/bin/bash: eval: line 1: unexpected EOF while looking for matching ``'",
    ),
    (
        '/bin/sh: 1: Syntax error: "(" unexpected',
        "syntax",
        '/bin/sh: 1: Syntax error: "(" unexpected',
    ),
    ("zsh: parse error near `)'", "syntax", "zsh: parse error near `)'"),
    # zsh as Claude Code's shell on macOS runs a command line: through `eval`
    ("Exit code 1\n(eval):1: parse error near `('", "syntax", "(eval):1: parse error near `('"),
    (
        'At line:1 char:6\n+ echo "abc\n+      ~~~~\nThe string is missing the terminator: ".',
        "syntax",
        'The string is missing the terminator: ".',
    ),
]


@pytest.mark.parametrize(("output", "kind", "line"), SHAPES)
def test_each_failure_shape_is_named_by_what_it_is(output: str, kind: str, line: str) -> None:
    assert signals.failure(output) == (kind, line)


@pytest.mark.parametrize(
    "line",
    [
        "npm ERR! Test failed.  See above for more details.",
        "Error: npm ERR! Test failed.",
        "npm ERR! code ELIFECYCLE",
        "make: *** [Makefile:12: test] Error 1",
        "[lint:go] ERROR task failed",  # mise
        "error: Recipe `lint` failed on line 3 with exit code 1",  # just
        'task: Failed to run task "lint": exit status 1',  # go-task
        "error Command failed with exit code 1.",
        "Error: Exit code 1",
        "Tests: 1 failed, 2 passed, 3 total",
        "=========== 1 failed, 3 passed in 0.12s ===========",
        'npm warn Unknown env config "tmp"',
        "exit 2",
        "Process exited with code 1",
        "",
    ],
)
def test_generic_runner_lines_are_never_a_signature(line: str) -> None:
    assert signals.is_generic(line)
    assert signals.failure(line) == ("", "")
    assert commands.signature(line) == ""
    assert commands.decisive_line("", f"$ npm test -> failed ({line})") == ""


def test_two_failures_behind_one_generic_line_keep_apart() -> None:
    price = "TypeError: total is not a function\n    at src/price.js:3\nnpm ERR! Test failed."
    tax = "RangeError: Invalid currency code : XX\n    at src/tax.js:9\nnpm ERR! Test failed."
    one, two = commands.decisive_line(price), commands.decisive_line(tax)
    assert one.startswith("TypeError") and two.startswith("RangeError")
    assert commands.signature(one) != commands.signature(two)


def test_environment_kinds() -> None:
    assert signals.environment("zsh: command not found: uv") == "missing-tool"
    assert signals.environment("TypeError: x is not a function") == ""


@pytest.mark.parametrize(
    ("sentence", "correction", "convention"),
    [
        ("no, use pnpm not npm", True, False),
        ("Actually, we keep the config in settings.toml", True, False),
        ("Wait, the build is still running", False, False),
        ("It is not working but the logs look fine", False, False),
        ("don't mock the database in these tests", True, False),
        ("use vitest instead of jest", True, False),
        ("Always run the tests with uv run", False, True),
        ("We use ruff for formatting", False, True),
        ("Fix the failing test in price.js", False, False),
        ("The tests always fail on Mondays", False, False),
        ("i would only want e2e tests for AgentSession, anything else is bad", False, True),
        ("I don't want any mocks in these tests", False, True),
        ("tests must not hit the network", False, True),
        ("Ask me before pushing", False, True),
        ("read a file in full before changing it", False, True),
        ("This must not happen again", False, False),
        ("Fix the bug before the release", False, False),
        ("I want a button that exports the list", False, False),
    ],
)
def test_prompt_sentences(sentence: str, correction: bool, convention: bool) -> None:
    assert phrasing.correction(sentence) is correction
    assert phrasing.convention(sentence) is convention


@pytest.mark.parametrize(
    ("sentence", "narration", "decision"),
    [
        ("The `reproduce_bug.py` script has been successfully removed.", True, False),
        ("Let me run the tests again.", True, False),
        ("All 12 tests now pass.", True, False),
        ("I chose SQLite instead of Postgres because the CLI must run offline.", False, True),
        ("Prices are stored as integer cents because floats lose pennies.", False, True),
        ("The root cause was a stale port in conftest.py.", False, False),
    ],
)
def test_message_sentences(sentence: str, narration: bool, decision: bool) -> None:
    assert phrasing.narration(sentence) is narration
    assert phrasing.decision(sentence) is decision


def test_root_cause() -> None:
    assert phrasing.root_cause("The root cause was a stale port in conftest.py.")
    assert not phrasing.root_cause("Ran the suite again.")


@pytest.mark.parametrize(
    ("sentence", "cause"),
    [
        ("The issue is in line 1950.", False),
        ("According to the error, the problem is in the `parse_args` function at line 71", False),
        ("The bug is probably in `shop/money.py`.", False),
        ("According to the error, the problem is in the `parse` function at line 71:", False),
        ("The issue is in `compat.py`: it compares arrays with `in`.", True),
        ("The bug is in the parser because it drops quotes.", True),
        ("The problem was in how the cache handles theme changes.", True),
        ("The issue is that `hooks` is None.", True),
    ],
)
def test_where_a_fault_is_names_no_cause(sentence: str, cause: bool) -> None:
    assert phrasing.root_cause(sentence) is cause
    assert phrasing.root_cause(sentence, stated=True) is cause


@pytest.mark.parametrize(
    "sentence",
    [
        "Since we need to fix the issue for Python 2, let's implement the fix based on that.",
        "Let me use a dict instead of a list because lookups are faster.",
    ],
)
def test_a_plan_announced_is_no_decision(sentence: str) -> None:
    assert not phrasing.decision(sentence)


def test_a_thing_gone_along_with_another_is_no_choice() -> None:
    assert not phrasing.decision("The now-unused `os` and `log` imports went with it.")
    assert phrasing.decision("We went with SQLite because the CLI must run offline.")


def test_an_option_offered_is_no_decision() -> None:
    option = "Or add it to the `post-commit` hook, since the index just matched a committed tree"
    assert not phrasing.decision(option)
    assert phrasing.decision(option.replace("Or add it", "I added it"))


def test_what_was_written_down_is_no_root_cause() -> None:
    assert not phrasing.root_cause("Added the GC corruption issue with root cause and recovery.")
    assert not phrasing.root_cause("Documented that the real cause is the cache.", stated=True)
    assert phrasing.root_cause("The root cause was the cache: it never expired.", stated=True)


# Words and phrases near the patterns of root causes and decisions, and filler: a text built
# from them exercises every branch of the patterns, matching or not.
_LESSON_PIECES = [
    "the root cause was",
    "the real cause is",
    "the problem was",
    "the issue is",
    "the bug was",
    "was caused by",
    "turned out to be",
    "because the",
    "the culprit",
    "the reason was",
    "fails because",
    "is a known limitation",
    "was a confirmed regression",
    "because the tool doesn't",
    "instead of",
    "rather than",
    "chose",
    "chosen",
    "opted",
    "decided",
    "went with",
    "in favour of",
    "in favor of",
    "preferred",
    "so that",
    "since",
    "used",
    "kept",
    "switched",
    "moved",
    "cache",
    "the",
    "a",
    "config",
    "tests",
    "Redis",
    "INSTEAD OF",
    "Because",
    "SO THAT",
    "Cause",
    "we",
    "it",
    "ran",
    "done",
    ".",
    ",",
    "\n",
]


@given(st.lists(st.sampled_from(_LESSON_PIECES), max_size=14), st.text(max_size=20))
def test_text_stating_a_lesson_passes_the_cheap_test(pieces: list[str], noise: str) -> None:
    text = " ".join(pieces) + " " + noise
    if any(phrasing.root_cause(s) or phrasing.decision(s) for s in [text, *text.split("\n")]):
        assert phrasing.may_state_lesson(text)


def test_the_cheap_test_lets_plain_status_through_unread() -> None:
    assert not phrasing.may_state_lesson("Done: the suite passes.")
    assert phrasing.may_state_lesson("I kept X instead of Y because Z.")
    assert phrasing.may_state_lesson("Ich habe X gewählt")  # non-ASCII: always read


def test_a_known_bug_is_a_stated_cause() -> None:
    assert phrasing.root_cause("The hang is a known upstream bug in the file watcher", True)
    assert signals.denied("Permission to use Bash has been auto-denied in dontAsk mode.")


def test_what_could_not_happen_is_a_stated_cause() -> None:
    said = 'Both uploads failed because the host "cache01" couldn\'t be resolved.'
    assert phrasing.root_cause(said, True)
    assert phrasing.root_cause("It broke because the mirror could not serve the index.", True)
    assert not phrasing.root_cause("It failed because the flag was wrong.", True)  # "because" alone


def test_a_count_line_without_a_numbered_failure_names_nothing() -> None:
    assert signals.failure("9 tests, 1 failure") == ("", "")
    assert signals.failure("12:30:45: build started") == ("", "")


_REFUSAL_PIECES = st.sampled_from([
    "The user doesn't want to proceed", "User rejected", "user denied the call", "was blocked by",
    "blocked by a hook", "not allowed to", "requires approval", "denied by policy", "PreToolUse",
    " hook error", "Permission to use Bash", " has been auto-denied", "permission to use", "\n",
    " ", "proceed", "hook", "error", "x",
])  # fmt: skip


@given(
    excerpt=st.lists(_REFUSAL_PIECES, max_size=6).map("".join),
    summary=st.lists(_REFUSAL_PIECES, max_size=6).map("".join),
)
def test_denied_reads_output_and_summary_in_one_pass_as_each_alone(
    excerpt: str, summary: str
) -> None:
    assert signals.denied(excerpt, summary) == (signals.denied(excerpt) or signals.denied(summary))


@pytest.mark.parametrize(
    "output",
    [
        'psql:q.sql:3: ERROR:  syntax error at or near "FORM"',
        "jq: error: syntax error, unexpected INVALID_CHARACTER (Unix shell quoting issues?)",
        '  File "a.py", line 2\n    def f(:\n          ^\nSyntaxError: invalid syntax',
    ],
)
def test_another_programs_syntax_error_is_not_the_shells(output: str) -> None:
    assert signals.failure(output)[0] != "syntax"
