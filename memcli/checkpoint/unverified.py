"""A change only ad-hoc scripts tried: code files edited, then scripts run, and no test,
build or lint run after them, or none added for the change.

When a turn ends with source files changed since the project's last check (or with no check
run at all) and only scripts ran after the change (`python reproduce.py`, `node try.js`), the
work was tried but not verified, and the next session should know ("the fix was only checked
with `python reproduce.py`; the test suite never ran"). When the project's tests did run, but
only after the scripts had tried the change and with no test file added or changed in the
session, the change is *untested*: what the suite checks was there before, and what showed the
change works was a script that is not kept ("no regression test was added"). A change nothing
ran after is no candidate: a front-end fix the user checks in the browser, a turn that stops
before its tests; nor one whose check ran before any script (the suite is how it was tried).
Asked once per session, as an ``unverified`` candidate the model records as a task or
dismisses; the rules make no item of it.

Hook path: no :mod:`re`; string tests only.
"""

from memcli.checkpoint.entries import add, one_line, strings_of, text_of

STATE_KEY = "unverified"  # {"files", "ran", "checked", "obs", "ref", "ts"}: edits since a check
TESTS_EDITED = "tests_edited"  # the state's key: a test file was added or changed this session
MAX_FILES = 3
MAX_RAN = 2
_CODE = (".py", ".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".go", ".rs", ".java", ".kt",
         ".rb", ".php", ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".swift", ".scala", ".ex",
         ".exs", ".lua", ".dart", ".vue", ".svelte", ".m", ".mm")  # fmt: skip
# Scripts an agent writes to try a change out (reproduce.py, test_edge_cases.py): not the
# project's code, and running them is no check of it.
_SCRATCH = ("test", "repro", "debug", "check", "scratch", "tmp", "temp", "try", "demo")
# Programs that run a script: what an agent tries a change out with.
_SCRIPTS = frozenset(("python", "python2", "python3", "py", "pypy3", "node", "nodejs", "deno",
                      "bun", "ruby", "perl", "php", "ts-node", "tsx", "go run", "cargo run",
                      "dotnet run", "java"))  # fmt: skip
# A project's own runners: what they run builds or tests it (`make`, `mise run test:ci`).
_RUNNERS = frozenset(("make", "mise", "just", "task", "turbo", "nx", "gradle", "gradlew", "mvn",
                      "bazel", "ctest", "meson", "ninja", "cmake", "tox", "nox"))  # fmt: skip


def code_file(path: str) -> bool:
    """A source file of the project: code, not a scratch script or a file under /tmp."""
    path = path.replace("\\", "/")
    name = path.rsplit("/", 1)[-1].lower()
    if not name.endswith(_CODE) or path.startswith("/tmp/"):
        return False
    return not name.startswith(_SCRATCH) and not _in_test_folder(path)


def test_file(path: str) -> bool:
    """A test of the project: a code file under a tests folder or named as a test
    (`pkg/tests/test_cart.py`, `cart_test.go`, `Cart.test.tsx`), not a scratch script at the
    top of the working copy (`test_fix.py`)."""
    path = path.replace("\\", "/")
    name = path.rsplit("/", 1)[-1]
    if not name.lower().endswith(_CODE):
        return False
    stem = name.rsplit(".", 1)[0]
    named = stem.lower().endswith(("_test", ".test", ".spec", "_spec")) or stem.endswith("Test")
    return named or _in_test_folder(path)


def _in_test_folder(path: str) -> bool:
    return any(part in path for part in ("/tests/", "/test/", "/__tests__/", "/spec/"))


def edited(files: list[str], record: dict[str, object], state: dict[str, object]) -> None:
    """Code files changed: unverified until a check runs."""
    if any(test_file(f) for f in files):
        state[TESTS_EDITED] = True
    code = [f for f in files if code_file(f)]
    if not code:
        return
    pending = state.get(STATE_KEY)
    known = strings_of(pending.get("files")) if isinstance(pending, dict) else []
    state[STATE_KEY] = {
        "files": list(dict.fromkeys([*known, *code]))[:MAX_FILES],
        "ran": [],
        "obs": [text_of(record, "id")],
        "ref": text_of(record, "raw"),
        "ts": text_of(record, "ts"),
    }


def ran(command: str, key: str, check: bool, state: dict[str, object], passed: bool = True) -> None:
    """A command after the edits: a check verifies them (pass or fail: a failing check is an
    ``unresolved`` candidate of its own), unless scripts tried the change first and it passed
    (then it is kept, as the check that ran, and a wider check failing after it, the suite's
    failure from before the change, leaves it untested still); anything else is what ran
    instead."""
    pending = state.get(STATE_KEY)
    if not isinstance(pending, dict):
        return
    program = key.split(" ", 1)[0]
    done = strings_of(pending.get("ran"))
    if check or program in _RUNNERS or program.startswith(("run_tests", "runtests")):
        if not done or (not passed and not pending.get("checked")):
            state.pop(STATE_KEY, None)
        elif not pending.get("checked"):
            pending["checked"] = one_line(command, 80)
        return
    if pending.get("checked"):
        return  # the scripts before the check are the ones that tried the change
    if (key in _SCRIPTS or program in _SCRIPTS) and len(done) < MAX_RAN:
        pending["ran"] = [*done, one_line(command, 80)]


def turn_end(state: dict[str, object]) -> None:
    """Code changed since the last check and only tried with scripts when the turn ends (an
    ``unverified`` candidate), or tried with scripts, then checked with no test added for it
    in the session (the same candidate, said as *untested*)."""
    pending = state.get(STATE_KEY)
    if not isinstance(pending, dict):
        return
    files, done = strings_of(pending.get("files")), strings_of(pending.get("ran"))
    checked = str(pending.get("checked") or "")
    if not files or not done or (checked and state.get(TESTS_EDITED)):
        return
    tried = ", ".join(_run(c) for c in done)
    if checked:
        line = (
            f"untested: no test was added or changed for the change to {', '.join(files)}; "
            f"it was tried only with ad-hoc scripts ({tried}), then {_run(checked)} ran"
        )
    else:
        line = (
            f"unverified: no test suite, build or lint ran after the last change to "
            f"{', '.join(files)}, only ad-hoc scripts ({tried})"
        )
    add(
        state,
        STATE_KEY,
        STATE_KEY,
        [line],
        None,
        obs=strings_of(pending.get("obs")),
        refs=[str(pending.get("ref") or "")],
        files=files,
        ts=str(pending.get("ts") or ""),
    )


def _run(command: str) -> str:
    return f"`{command.rsplit('&& ', 1)[-1]}`"  # the run, not its `cd`
