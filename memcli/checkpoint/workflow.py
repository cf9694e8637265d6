"""Candidates from what commands did, not from a failure: the session's *workflow* (the
command it runs again and again, or after each edit, to test, build, lint or start the
project) and a *slow run* (a command that took minutes, or hit a timeout).

- ``workflow``: a command key (the same program and subcommand, arguments that vary dropped:
  :func:`normalised`) run at least :data:`MIN_RUNS` times, or :data:`MIN_CHECKED` times after
  edits, that passed at least once; asked once per session ("is `uv run pytest` how this
  project is tested?"): the one run most often after edits, after every other event.
- ``env`` (slow): a command that took at least :data:`SLOW_SECONDS` (the hook payload's
  duration, see ``memcli.capture.tools``), whose output says it timed out, or that was sent
  to the background while it ran without being asked to (the user's Ctrl+B, or Claude Code
  moving it past its timeout), with its duration where known.

Hook path: no :mod:`re`; string tests only, a few per command.
"""

from memcli import programs
from memcli import reruns as shapes
from memcli.checkpoint.commands import command_key, looks_around
from memcli.checkpoint.entries import add, count_of, one_line, strings_of, text_of
from memcli.observed import buffer


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


MIN_RUNS = 3  # runs of one command key before it is the session's way of doing something
MIN_CHECKED = 2  # or runs that each followed an edit (it checks the edits)
MAX_PER_SESSION = 1  # workflow candidates one session asks about: its way of checking
MAX_KEYS = 40  # command keys followed in the state
SLOW_SECONDS = 60.0  # a run this long is worth a question (items need more: compact.workflow)
_NOT_WORKFLOW = _set(
    """git gh mem cd export source sleep install i add ci remove uninstall update upgrade init
    login logout publish mkdir rmdir chmod chown cp mv rm touch ln tar zip unzip curl wget kill
    pkill killall open xdg-open code ssh scp rsync"""
)
_INSTALLERS = frozenset(("pip", "pip3", "brew", "apt", "apt-get", "gem", "conda"))
_WRAPPERS = ("uv", "poetry", "pipenv", "pdm", "hatch", "npx", "bunx", "time", "sudo", "env",
             "nohup", "exec", "timeout")  # fmt: skip
_MULTI = programs.MULTI
_INTERPRETERS = _set(
    """python python2 python3 py pypy3 node nodejs deno bun ruby perl php ts-node tsx bash sh
    zsh"""
)
_TEST = ("test", "pytest", "jest", "vitest", "mocha", "rspec", "phpunit", "ctest", "tox", "nox",
         "playwright", "cypress", "spec")  # fmt: skip
_LINT = ("lint", "ruff", "eslint", "flake8", "pylint", "mypy", "tsc", "pyright", "typecheck",
         "check", "fmt", "format", "clippy", "vet")  # fmt: skip
_BUILD = ("build", "compile", "bundle", "package", "assemble")
_START = ("dev", "start", "serve", "up", "run", "watch", "preview", "deploy")


def _base(word: str) -> str:
    return word.replace("\\", "/").rsplit("/", 1)[-1].lower().strip("'\"")


def _parts(command: str) -> list[str]:
    parts = [command]
    for separator in ("&&", "||", ";"):
        parts = [p for part in parts for p in part.split(separator) if p.strip()]
    return parts


def _prefix(part: str) -> str:
    """One part of a chain as the project's way of running it: wrappers, the program and its
    subcommand (or the script an interpreter runs), without the arguments that vary."""
    words = [w for w in part.split("|", 1)[0].split() if w.lstrip("0123456789&")[:1] not in "<>"]
    while words and "=" in words[0] and not words[0].startswith("-"):
        words.pop(0)
    kept: list[str] = []
    while words and _base(words[0]) in _WRAPPERS:
        first = _base(words[0])
        take = 2 if len(words) > 1 and words[1] in ("run", "exec") else 1
        kept += words[:take]
        words = words[take:]
        while words and first == "timeout" and words[0][:1].isdigit():
            words = words[1:]
    if len(words) >= 3 and shapes.family(words[0]) == "python" and words[1] == "-m":
        kept += words[:2]
        words = words[2:]
    if not words:
        return ""
    program, rest = words[0], words[1:]
    kept.append(program)
    family = shapes.family(program)
    if family in _MULTI:
        verbs = [w for w in rest if not w.startswith("-")]
        kept += verbs[:2] if verbs and verbs[0] in ("run", "compose", "exec") else verbs[:1]
    elif family in _INTERPRETERS:
        script = next((w for w in rest if not w.startswith("-")), "")
        if "-c" in rest or "-e" in rest or ("." not in script and "/" not in script):
            return ""  # code given inline changes every time: no workflow
        kept.append(script)
    return " ".join(kept)


def normalised(command: str) -> str:
    """``cd app && uv run pytest tests/a.py -x 2>&1 | tail`` -> ``uv run pytest``; the parts
    of a chain that do a job, joined (``npm run build && npm test``); "" when none does."""
    kept: list[str] = []
    for part in _parts(programs.without_comments(command)):  # a `# comment` line never ran
        words = part.split("|", 1)[0].split()
        key = command_key(part)[0] if words else ""
        if not key or looks_around(key) or _base(words[0]) in ("cd", "export"):
            continue
        prefix = _prefix(part)
        if prefix and prefix not in kept:
            kept.append(prefix)
    return " && ".join(kept[:3])


def what(key: str, check: bool) -> str:
    """What a workflow command (its :func:`normalised` key) does for the project: tested,
    built, linted, started (a word after the program's), checked."""
    words = key.lower().split()
    if any(w.startswith(_TEST) for w in words):
        return "tested"
    if any(w in _LINT for w in words):
        return "linted or type-checked"
    if any(w in _BUILD for w in words):
        return "built"
    if not check and any(w in _START for w in words[1:]):
        return "started"
    return "checked after a change"


_NORMALISED: dict[str, str] = {}  # a session runs the same commands again and again


def _workflow(key: str) -> bool:
    """Whether a command key may be a project workflow (tests, a build, a script run)."""
    words = key.split()
    if not words or words[0] in _NOT_WORKFLOW or words[-1] in _NOT_WORKFLOW:
        return False
    return words[0] not in _INSTALLERS and not looks_around(key)


def _table(state: dict[str, object]) -> dict[str, dict[str, object]]:
    table = state.setdefault("workflow", {})
    assert isinstance(table, dict)
    return table


def edited(state: dict[str, object]) -> None:
    """A file was changed: the next run of each command checks it."""
    state["edits"] = count_of(state.get("edits")) + 1


def ran(record: dict[str, object], state: dict[str, object]) -> None:
    """A command finished (passed or failed): count it under its key; a slow one is a
    candidate at once."""
    command = text_of(record, "input")
    key, check = command_key(command)
    ok = record.get("ok")
    if not key or ok is None:
        return
    _slow(record, state, key, command)
    shown = _NORMALISED.get(command)
    if shown is None:
        if len(_NORMALISED) > 512:
            _NORMALISED.clear()
        shown = _NORMALISED[command] = normalised(command) if _workflow(key) else ""
    if not shown:
        return
    table = _table(state)
    entry = table.get(shown)  # `python reproduce.py` and `python check.py` are two
    if entry is None:
        if len(table) >= MAX_KEYS:
            return
        entry = table[shown] = {"runs": 0, "checked": 0, "passed": False, "check": check,
                              "at": -1, "obs": [], "refs": []}  # fmt: skip
    edits = count_of(state.get("edits"))
    entry["runs"] = count_of(entry.get("runs")) + 1
    if edits > count_of(entry.get("at")):  # files changed since its last run
        entry["checked"] = count_of(entry.get("checked")) + 1
    entry["at"] = edits
    if ok is True:
        entry["passed"] = True
        entry["cmd"] = command  # the way it passed is the way to run it
        entry["obs"] = [*strings_of(entry.get("obs"))[-1:], text_of(record, "id")]
        raw = text_of(record, "raw")
        entry["refs"] = [*strings_of(entry.get("refs"))[-1:], *([raw] if raw else [])]
        entry["ts"] = text_of(record, "ts")


def turn_end(state: dict[str, object]) -> None:
    """The session's workflow command, once it qualifies: asked about once, the one run most
    often after edits first (:data:`MAX_PER_SESSION`)."""
    table = state.get("workflow")
    if not isinstance(table, dict):
        return
    found = state.get("candidates")
    asked = sum(
        1 for c in (found.values() if isinstance(found, dict) else ())
        if isinstance(c, dict) and c.get("kind") == "workflow"
    )  # fmt: skip
    ready = []
    for key, entry in table.items():
        if not isinstance(entry, dict) or not entry.get("passed") or entry.get("shown"):
            continue
        runs, checked = count_of(entry.get("runs")), count_of(entry.get("checked"))
        if entry.get("check"):
            if runs >= MIN_RUNS or checked >= MIN_CHECKED:
                ready.append((checked, runs, key, entry))
        elif runs >= MIN_RUNS and checked >= 1:  # a script or a tool: it must check edits
            ready.append((checked, runs, key, entry))
    ready.sort(key=lambda found: (-found[0], -found[1]))
    for checked, runs, key, entry in ready[: max(0, MAX_PER_SESSION - asked)]:
        entry["shown"] = True
        done = what(key, bool(entry.get("check")))
        after = f", {checked} of them after edits" if checked else ""
        add(state, "workflow", key,
            [f"`{one_line(key, 100)}` was run {runs} times in this session{after}, and "
             f"passed: is it how this project is {done}? Record it as a convention",
             f"last run: `{one_line(_without_cd(str(entry.get('cmd') or '')), 120)}`"],
            None, obs=strings_of(entry.get("obs")), refs=strings_of(entry.get("refs")),
            ts=str(entry.get("ts") or ""))  # fmt: skip


def _without_cd(command: str) -> str:
    """``cd "C:\\work\\x" && npm test`` -> ``npm test``: the session's own folder says nothing."""
    while command.lstrip().startswith("cd ") and "&&" in command:
        command = command.split("&&", 1)[1].strip()
    return command


def duration(seconds: float) -> str:
    """``185.0`` -> ``3m 05s``; ``42.0`` -> ``42s``."""
    whole = int(seconds)
    if whole < 60:
        return f"{whole}s"
    return f"{whole // 60}m {whole % 60:02d}s"


def timed_out(output: str) -> str:
    """The line saying a command was stopped for taking too long ("Command timed out after
    2m 0.0s"), or "". A connection's timeout is an environment failure, not this."""
    if "timed out" not in output and "Timed out" not in output:
        return ""
    for line in output.splitlines():
        bare = line.strip().strip("[]").removeprefix("Error: ").lower()
        if bare.startswith(("command timed out", "timed out after", "the command timed out")):
            return one_line(line.strip(), 120)
    return ""


MOVED = "sent to the background while it ran"  # as memcli.capture.tools.MOVED_TO_BACKGROUND


def moved(record: dict[str, object], state: dict[str, object]) -> None:
    """A command sent to the background while it ran: it did not finish in time."""
    excerpt = text_of(record, "excerpt")
    if not excerpt.startswith(MOVED):
        return
    shown = one_line(_without_cd(text_of(record, "input")), 100)
    said = one_line(excerpt.split(" (id ", 1)[0], 80)
    line = (f"`{shown}` was {said}: is it slow here, or was it waiting for input (run it in "
            "the background, with a longer timeout, or non-interactively)?")  # fmt: skip
    # One a command (`git commit` tried eight ways is one lesson), by its program and verb.
    add(state, "env", f"slow\0{command_key(text_of(record, 'input'))[0] or shown}", [line],
        record, env="slow")  # fmt: skip


def _slow(record: dict[str, object], state: dict[str, object], key: str, command: str) -> None:
    secs = buffer.seconds(record.get("secs")) or 0.0
    stopped = timed_out(text_of(record, "excerpt")) if record.get("ok") is False else ""
    if (secs < SLOW_SECONDS and not stopped) or looks_around(key):
        return
    shown = one_line(command, 100)
    said = f"hit a timeout ({stopped})" if stopped else f"took {duration(secs)}"
    add(state, "env", f"slow\0{key or shown}",
        [f"`{shown}` {said} here: is it slow every time (run it in the background, or with a "
         "longer timeout)?"], record, env="slow")  # fmt: skip
