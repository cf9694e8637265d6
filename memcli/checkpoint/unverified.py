"""A change only ad-hoc scripts tried: code files edited, then scripts run, and no test,
build or lint run after them.

When a turn ends with source files changed since the project's last check (or with no check
run at all) and only scripts ran after the change (`python reproduce.py`, `node try.js`), the
work was tried but not verified, and the next session should know ("the fix was only checked
with `python reproduce.py`; the test suite never ran"). A change nothing ran after is no
candidate: a front-end fix the user checks in the browser, a turn that stops before its
tests. Asked once per session, as an ``unverified`` candidate the model records as a task or
dismisses; the rules make no item of it.

Hook path: no :mod:`re`; string tests only.
"""

from memcli.checkpoint.entries import add, one_line, strings_of, text_of

STATE_KEY = "unverified"  # {"files", "ran", "obs", "ref", "ts"}: edits since the last check
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
    return not name.startswith(_SCRATCH) and "/tests/" not in path and "/test/" not in path


def edited(files: list[str], record: dict[str, object], state: dict[str, object]) -> None:
    """Code files changed: unverified until a check runs."""
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


def ran(command: str, key: str, check: bool, state: dict[str, object]) -> None:
    """A command after the edits: a check verifies them (pass or fail: a failing check is an
    ``unresolved`` candidate of its own); anything else is what ran instead."""
    pending = state.get(STATE_KEY)
    if not isinstance(pending, dict):
        return
    program = key.split(" ", 1)[0]
    if check or program in _RUNNERS or program.startswith(("run_tests", "runtests")):
        state.pop(STATE_KEY, None)
        return
    done = strings_of(pending.get("ran"))
    if (key in _SCRIPTS or program in _SCRIPTS) and len(done) < MAX_RAN:
        pending["ran"] = [*done, one_line(command, 80)]


def turn_end(state: dict[str, object]) -> None:
    """Code changed since the last check and only tried with scripts when the turn ends: an
    ``unverified`` candidate."""
    pending = state.get(STATE_KEY)
    if not isinstance(pending, dict):
        return
    files, done = strings_of(pending.get("files")), strings_of(pending.get("ran"))
    if not files or not done:
        return
    tried = ", ".join(f"`{c.rsplit('&& ', 1)[-1]}`" for c in done)  # the run, not its `cd`
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
