"""Candidates from what the session ran: a failing command passing again after changes
(``fix``), environment failures (``env``), refused and interrupted calls (``denied``,
``interrupted``), and at the turn's end checks still failing (``unresolved``) or commands
still failing with a telling line (``failed``)."""

import os

from memcli import programs, remote, signals
from memcli import reruns as shapes
from memcli.checkpoint import reported, reruns
from memcli.checkpoint.entries import add, holds_all, one_line, runs_of, strings_of, text_of
from memcli.observed import derived

_WRAPPERS = ("uv", "poetry", "pipenv", "pdm", "hatch", "npx", "bunx", "time", "sudo", "env",
             "nohup", "exec")  # fmt: skip


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


_MULTI = programs.MULTI
_LOOKING = _set(
    """cat less more head tail grep egrep rg ag find fd ls tree pwd echo printf which type
    whereis printenv wc stat file du df ps id whoami date uname sed awk jq sort uniq cut diff
    cd true false sleep history man mem"""
)
_CHECK_PROGRAMS = _set(
    """pytest tox nox jest vitest mocha tsc mypy ruff eslint flake8 pylint phpunit rspec
    playwright cypress ctest pyright"""
)
_CHECK_VERBS = ("test", "build", "check", "lint", "typecheck", "compile", "verify", "ci")


_KEYS: dict[str, tuple[str, bool]] = {}  # a session runs the same commands again and again


def command_key(command: str) -> tuple[str, bool]:
    """(program and verb, is it a check) of the part of a shell line that decides it."""
    known = _KEYS.get(command)
    if known is None:
        known = _KEYS[command] = _command_key(command)
    return known


def _command_key(command: str) -> tuple[str, bool]:
    # `ssh host "opkg remove x"`: the remote command; a `# comment` line above it never ran
    command = remote.innermost(programs.without_comments(command))
    parts = [command]
    for separator in ("&&", "||", ";"):
        parts = [p for part in parts for p in part.split(separator) if p.strip()]
    segment = parts[-1] if parts else command
    for part in reversed(parts):  # `git add -f x && git status`: the add decides
        words = part.split("|", 1)[0].split()
        if words and not looking(_bare_key(words)):
            segment = part
            break
    words = segment.split("|", 1)[0].split()
    while words and "=" in words[0] and not words[0].startswith("-"):
        words.pop(0)
    changed = True
    while changed and words:
        changed = False
        first = os.path.basename(words[0])
        if first in _WRAPPERS:
            words = words[2:] if len(words) > 1 and words[1] in ("run", "exec") else words[1:]
            changed = True
        elif first.startswith("python") and len(words) > 2 and words[1] == "-m":
            words = words[2:]
            changed = True
    if not words:
        return "", False
    program = os.path.basename(words[0])
    verbs = [w for w in words[1:] if not w.startswith("-")]
    key = f"{program} {verbs[0]}" if program in _MULTI and verbs else program
    if key.endswith(" run") and len(verbs) > 1:
        key += f" {verbs[1]}"
    check = program in _CHECK_PROGRAMS or (
        program in _MULTI | {"make", "go"} and any(v in key for v in _CHECK_VERBS)
    )
    return key, check


def _bare_key(words: list[str]) -> str:
    program = os.path.basename(words[0])
    return f"{program} {words[1]}" if program == "git" and len(words) > 1 else program


def looks_around(key: str) -> bool:
    """Whether a command key only looks around: a shell's look (:func:`looking`) or one of
    the shared looks, SWE-agent's among them (:data:`memcli.reruns.LOOKING`)."""
    return looking(key) or key in shapes.LOOKING


def looking(key: str) -> bool:
    program = key.split(" ", 1)[0]
    if program == "git":
        return key.split(" ", 1)[-1] in ("status", "diff", "log", "show", "blame", "branch")
    return program in _LOOKING


def command(record: dict[str, object], state: dict[str, object]) -> None:
    command = text_of(record, "input")
    key, check = command_key(command)
    if not key:
        return
    excerpt, summary = text_of(record, "excerpt"), text_of(record, "summary")
    if signals.denied(excerpt, summary):  # even a look around: the mode
        add(state, "denied", key, [f"`{one_line(command, 120)}` was refused: "
             f"{one_line(excerpt or summary, 120)}"], record)  # fmt: skip
        refusal = signals.hook_refusal(excerpt)
        runs = runs_of(state)
        if refusal and key not in runs:  # a passing rerun after a remedy makes it a `fix`
            runs[key] = {"cmd": command, "line": f"refused by a hook: {refusal}", "check": False,
                         "work": [], "files": [], "obs": [text_of(record, "id")],
                         "ref": text_of(record, "raw"), "ts": text_of(record, "ts"),
                         "last": "", "kind": "refused"}  # fmt: skip
        return
    ok = record.get("ok")
    if looks_around(key) and not (ok is False and _signature(record)[0] in signals.EVEN_A_LOOK):
        return  # `cat missing.txt` failing is no lesson; `rg: command not found` is
    runs = runs_of(state)
    if ok is None and "-> interrupted" in summary:
        add(state, "interrupted", key, [f"`{one_line(command, 120)}` was interrupted before it "
             "ended (a watch mode, a server, a prompt waiting for input?)"], record)  # fmt: skip
        return
    reruns.ran(record, state)
    if ok is True and runs:  # a different command succeeding may be the fix
        ran = f"ran `{one_line(command, 80)}`"
        for other_key, run in runs.items():
            if other_key != key:
                run["work"] = [*strings_of(run.get("work")), ran][-3:]
    if ok is False:
        earlier = runs.get(key)
        if earlier is not None and earlier.get("edited"):
            earlier["edited"] = False
            if _moved_on(state, key, earlier, record, command):
                return
        if earlier is not None:  # the same command failing again: read its output at turn end
            pending = state.setdefault("_last_output", {})
            assert isinstance(pending, dict)
            pending[key] = record
            return
        sig_kind, line = _signature(record)
        runs[key] = {"cmd": command, "line": line, "check": check, "work": [], "files": [],
                     "obs": [text_of(record, "id")], "ref": text_of(record, "raw"),
                     "ts": text_of(record, "ts"), "last": line, "kind": sig_kind}  # fmt: skip
        if not line:
            runs[key]["out"] = _output_line(text_of(record, "excerpt"))
        if sig_kind == "shell":
            shape = "".join(c for c in line if not c.isdigit())  # pids and addresses vary
            add(state, "env", f"shell\0{shape}", [f"`{one_line(command, 100)}` failed in the "
                 f"shell, before the command ran: {line} (intermittent: does it pass when run "
                 "again?)"], record, env=sig_kind)  # fmt: skip
        elif sig_kind in signals.ENVIRONMENT:
            said = f"`{one_line(command, 100)}` failed: {line}{persisted_cd(line, state)}"
            add(state, "env", f"{sig_kind}\0{line}", [said], record, env=sig_kind)
        return
    _pending(state).pop(key, None)
    passed = runs.pop(key) if key in runs else None
    if ok is True and passed is not None and passed.get("kind") != "shell":
        run = passed
        changed = strings_of(run.get("files"))[:4]
        work = [f"changed {', '.join(changed)}"] if changed else []
        work = [*work, *strings_of(run.get("work"))]
        if not work:
            if added := added_flags(str(run["cmd"]), command):
                work = [f"ran it with `{' '.join(added)}`"]  # the flags are the remedy
            elif steps := added_steps(str(run["cmd"]), command):
                work = [f"ran it after `{' && '.join(steps)}`"]  # `sleep 2 && <the same>`
            else:
                return  # passed with nothing done in between: flaky, not a fix
        first = str(run.get("line") or "an error")
        shown = first if run.get("line") or not run.get("out") else f'an error: "{run["out"]}"'
        add(state, "fix", f"{key}\0{first}",
             [f"`{one_line(str(run['cmd']), 100)}` failed: {shown}",
              f"then passed after: {'; '.join(work)[:150]}"],
             record, files=strings_of(run.get("files"))[:5], verified=True,
             obs=[*strings_of(run.get("obs")), text_of(record, "id")],
             refs=[r for r in (str(run.get("ref") or ""), text_of(record, "raw")) if r],
             )  # fmt: skip


def _output_line(excerpt: str) -> str:
    """The last line a failure with no error signature printed, its exit code aside: a shell's
    own complaint ("unexpected EOF while looking for matching ``'"), a script's message. The
    model reads it instead of "failed: an error", which says nothing of the cause."""
    for raw in reversed(excerpt.splitlines()[-12:]):
        line = raw.strip()
        if line and not line.lower().startswith(("exit code", "[...", "failed (exit")):
            return one_line(line, 120)
    return ""


_NOT_REMEDIES = frozenset(("-h", "--help", "-V", "--version", "-v", "--verbose", "-n",
                           "--dry-run", "--quiet", "--exitfirst"))  # fmt: skip
_OUTPUT_LETTERS = frozenset("vsqx")  # -v, -s, -q, -x and bundles (-xvs): how much is printed
# Options of a test runner that run fewer tests (`pytest -k name`, `jest -t name`, `go test
# -run X`, `--lf`): a subset passing says nothing of the run that failed.
_SELECTIONS = frozenset(("-k", "-t", "-run", "--testNamePattern", "--lf", "--last-failed",
                         "--deselect", "--only", "--grep", "-g"))  # fmt: skip


def added_flags(failed: str, passed: str) -> list[str]:
    """Options the passing command line has and the failing one had not (``--no-verify``),
    in the part before any pipe; asking for help, a dry run, more or less output, or fewer
    tests is no remedy."""
    before = set(failed.split("|", 1)[0].split())
    added = [w for w in dict.fromkeys(passed.split("|", 1)[0].split())
             if w.startswith("-") and len(w) > 1 and w not in before]  # fmt: skip
    line = passed.split("|", 1)[0]
    tests = any(name in line for name in ("test", "jest", "mocha", "spec", "rspec"))
    for word in added:
        if word in _NOT_REMEDIES or (tests and word in _SELECTIONS):
            return []
        if word[1] != "-" and set(word[1:]) <= _OUTPUT_LETTERS:
            return []
    return added[:3]


def added_steps(failed: str, passed: str) -> list[str]:
    """Steps of a chain the passing command line runs before the failing one's (``sleep 2 &&
    opkg remove x`` after ``opkg remove x`` failed on a lock; ``npm ci && npm test``): the
    failing line's steps all still there, in the same command on a remote shell too."""
    before = _steps(remote.innermost(failed))
    after = _steps(remote.innermost(passed))
    if not before or len(after) <= len(before) or after[-len(before) :] != before:
        return []
    return after[: len(after) - len(before)][:2]


def _steps(line: str) -> list[str]:
    return [" ".join(part.split()) for part in line.split("|", 1)[0].split("&&") if part.strip()]


def refused_tool(record: dict[str, object], state: dict[str, object]) -> None:
    """A tool other than the shell or an edit (a web fetch, a sub-agent) the user or the
    permission mode refused."""
    said = text_of(record, "excerpt") or text_of(record, "summary")
    if signals.denied(said):
        tool = text_of(record, "tool")
        add(state, "denied", f"tool\0{tool}", [f"{tool} was refused: {one_line(said, 120)}"],
             record)  # fmt: skip


_SELF_INFLICTED = ("SyntaxError", "IndentationError", "TabError", "NameError", "is not defined")


def _moved_on(
    state: dict[str, object], key: str, run: dict[str, object], record: dict[str, object],
    command: str,
) -> bool:  # fmt: skip
    """A failure with another signature after edits: the run got past the earlier failure,
    which the edits fixed (a ``fix`` candidate of its own); the run goes on from here. Not
    when the new failure may hide the old one (the edit broke the code, the environment)."""
    excerpt = text_of(record, "excerpt")
    kind, line = _signature(record)
    before = str(run.get("line") or "")
    if not line or not before or _blanked(line) == _blanked(before):
        return False
    if kind in signals.ENVIRONMENT or any(marker in excerpt for marker in _SELF_INFLICTED):
        return False
    changed = strings_of(run.get("files"))
    add(state, "fix", f"{key}\0{before}",
         [f"`{one_line(str(run['cmd']), 100)}` failed: {before}",
          f"then got past it after changing {', '.join(changed[:4])}; next: {line}"[:200]],
         record, files=changed[:5], verified=False,
         obs=[*strings_of(run.get("obs")), text_of(record, "id")],
         refs=[r for r in (str(run.get("ref") or ""), text_of(record, "raw")) if r],
         )  # fmt: skip
    run.update(cmd=command, line=line, last=line, kind=kind, work=[], files=[],
               obs=[text_of(record, "id")], ref=text_of(record, "raw"),
               ts=text_of(record, "ts"))  # fmt: skip
    _pending(state).pop(key, None)
    return True


def _blanked(line: str) -> str:
    """A line with its digits blanked: the same failure at another line number is the same."""
    return "".join("#" if c.isdigit() else c for c in line.lower())


def _signature(record: dict[str, object]) -> tuple[str, str]:
    """A failing command's signature: the one capture recorded, else derived here."""
    found = derived.recorded_signature(record, derived.COMMAND)
    if found is not None:
        return found
    return derived.command_signature(text_of(record, "excerpt"), text_of(record, "summary"))


def _pending(state: dict[str, object]) -> dict[str, dict[str, object]]:
    """Outputs of repeated failures not yet read (this run only: never saved)."""
    pending = state.get("_last_output")
    return pending if isinstance(pending, dict) else {}


CD_INTO = "cd_into"  # the state's key: relative folder -> the passing command that went in


def persisted_cd(line: str, state: dict[str, object]) -> str:
    """What a failing ``cd build`` ("cd: build: No such file or directory") means when an
    earlier passing command went into ``build`` (:mod:`memcli.checkpoint.told` remembers):
    the shell stayed there. Else ``""``."""
    went = state.get(CD_INTO)
    if not isinstance(went, dict) or "cd: " not in line:
        return ""
    folder = line.split("cd: ", 1)[1].split(":", 1)[0].strip().rstrip("/")
    earlier = went.get(folder)
    if not isinstance(earlier, str) or "No such file or directory" not in line:
        return ""
    return (
        f" (after `{earlier}` had gone into `{folder}`: the working directory persists from "
        "one command to the next here; use absolute paths)"
    )


def edit(record: dict[str, object], state: dict[str, object]) -> None:
    files = strings_of(record.get("files"))
    if record.get("ok") is False:
        summary, excerpt = text_of(record, "summary"), text_of(record, "excerpt")
        if signals.denied(excerpt, summary):
            what = ", ".join(files[:2]) or "a file"
            refused = f"a change to {what} was refused: {one_line(excerpt or summary, 120)}"
            add(state, "denied", f"write\0{what}", [refused], record)
        return
    reported.edited(files, state)
    reruns.edited(record, files, state)
    for run in runs_of(state).values():
        run["edited"] = True
        known = run.get("files")
        if isinstance(known, list) and (len(known) >= 8 or holds_all(known, files)):
            continue  # nothing to add (the usual case: the same files edited again and again)
        run["files"] = list(dict.fromkeys([*strings_of(known), *files]))[:8]


def turn_end(state: dict[str, object]) -> None:
    """At the end of a turn: checks still failing become ``unresolved`` candidates; a pasted
    failure the turn changed files for becomes a ``fix`` candidate."""
    reported.turn_end(state)
    pending = _pending(state)
    for key, run in runs_of(state).items():
        if key in pending:  # the last failure of this command: what it says now
            record = pending[key]
            kind, line = _signature(record)
            if line:
                run["last"], run["kind"] = line, kind
            if kind in signals.ENVIRONMENT:
                said = f"`{one_line(str(run['cmd']), 100)}` failed: {line}"
                add(state, "env", f"{kind}\0{line}", [said + persisted_cd(line, state)], record,
                    env=kind)  # fmt: skip
        if not run.get("check"):
            _still_failing(state, key, run)
            continue
        line = str(run.get("last") or run.get("line") or "")
        files = strings_of(run.get("files"))
        lines = [f"`{one_line(str(run['cmd']), 100)}` still fails at the end of the turn"
                 + (f": {line}" if line else ""),
                 f"after changing {', '.join(files[:4])}" if files else ""]  # fmt: skip
        add(state, "unresolved", f"{key}\0{line}", lines, None,
             obs=strings_of(run.get("obs")), refs=[str(run.get("ref") or "")],
             files=strings_of(run.get("files"))[:5], ts=str(run.get("ts") or ""))  # fmt: skip


def _still_failing(state: dict[str, object], key: str, run: dict[str, object]) -> None:
    """A command (not a check) still failing with a telling line: what the model learned
    about it (a wrong flag, a script's own message, a tool that does not do that) is a
    lesson; environment failures are already ``env`` candidates."""
    line = str(run.get("last") or run.get("line") or "")
    if len(line.split()) < 3 or run.get("kind") in (*signals.ENVIRONMENT, "refused"):
        return  # signature lines are never generic; environment ones are `env` already
    add(state, "failed", f"{key}\0{line}",
         [f"`{one_line(str(run['cmd']), 100)}` failed and was not made to pass: {line}"], None,
         obs=strings_of(run.get("obs")), refs=[str(run.get("ref") or "")],
         ts=str(run.get("ts") or ""))  # fmt: skip
