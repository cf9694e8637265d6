"""Shell commands as the compactor sees them: which program, which targets, which error.

Two runs are *equivalent* when they run the same program (wrappers such as ``uv run`` or
``python -m`` stripped) on overlapping targets; a passing run *covers* a failing one when it
ran at least everything the failing one ran (``pytest`` covers ``pytest tests/test_a.py``).
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass

from memcli import programs, remote, signals


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


_WRAPPERS = (
    ("uv", "run"),
    ("poetry", "run"),
    ("pipenv", "run"),
    ("pdm", "run"),
    ("hatch", "run"),
    ("pnpm", "exec"),
    ("bundle", "exec"),
    ("npx",),
    ("bunx",),
    ("time",),
    ("sudo",),
    ("env",),
    ("nohup",),
)
# Programs whose first argument names what they do (`npm test`, `cargo build`, `make lint`).
_MULTI = programs.MULTI
# Commands that only look around: a success of theirs is never a fix and never memory.
_LOOKING = _set(
    """cat less more head tail grep egrep rg ag find fd ls ll tree pwd echo printf which type
    whereis env printenv wc stat file du df ps top id whoami date uname hostname sed awk
    jq sort uniq cut diff cd true false sleep history man help open goto scroll_up scroll_down
    search_dir search_file find_file filemap submit str_replace_editor"""
)
_GIT_LOOKING = _set("status diff log show blame branch remote config rev-parse")
# Check tools: their failure at the end of a session is unfinished work.
CHECKS = _set(
    """pytest tox nox unittest jest vitest mocha cargo go make tsc mypy ruff eslint flake8
    pylint gradle gradlew mvn dotnet phpunit rspec rake playwright cypress npm pnpm yarn
    bun bazel swift xcodebuild ctest"""
)
_CHECK_VERBS = _set("test tests build check lint typecheck compile verify ci")
# Style and type checkers: their failures fixed by edits are routine, not pitfalls.
LINTERS = _set("ruff black isort flake8 pylint eslint prettier mypy pyright tsc")


@dataclass(frozen=True)
class Command:
    text: str
    program: str
    key: str
    targets: tuple[str, ...]

    @property
    def looking(self) -> bool:
        if self.program == "git":
            return self.key.split(" ", 1)[-1] in _GIT_LOOKING
        return self.program in _LOOKING

    @property
    def check(self) -> bool:
        verb = self.key.split(" ", 1)[1] if " " in self.key else ""
        if self.program in ("npm", "pnpm", "yarn", "bun", "make", "cargo", "go", "dotnet"):
            return any(v in verb for v in _CHECK_VERBS)
        return self.program in CHECKS


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text, comments=False)
    except ValueError:
        return text.split()


def _segment(text: str) -> str:
    """The part of a chain that decides the outcome: the last `&&` part, before any pipe."""
    parts = [p for p in re.split(r"&&|\|\||;", text) if p.strip()]
    last = parts[-1] if parts else text
    for part in reversed(parts):  # `git add -f x && git status`: the add decides
        words = _split(part.split("|", 1)[0])
        if words and not _aside(words):
            last = part
            break
    return re.split(r"(?<!\|)\|(?!\|)", last)[0].strip()


_LEADING_CD = re.compile(r"^\s*cd\s+(?:\"[^\"]*\"|'[^']*'|\S+)\s*(?:&&|;)\s*")


def shown(text: str) -> str:
    """A command as a title shows it: without the leading `cd <folder> &&` of the session's
    own working copy (`cd "C:\\work\\x" && git push` -> `git push`)."""
    rest = text
    while True:
        stripped = _LEADING_CD.sub("", rest, count=1)
        if stripped == rest or not stripped.strip():
            return rest.strip()
        rest = stripped


def _aside(words: list[str]) -> bool:
    """A part of a chain that only moves, sets or looks (`cd`, `export`, `git status`)."""
    program = os.path.basename(words[0])
    if program == "git":
        return len(words) > 1 and words[1] in _GIT_LOOKING
    return program in ("cd", "export", "source", ".") or program in _LOOKING


def parse(text: str) -> Command:
    # `ssh host "opkg remove x"`, `powershell -Command "..."`: the command that does the work
    words = _split(_segment(remote.innermost(text)))
    while words and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0]):
        words.pop(0)
    changed = True
    while changed and words:
        changed = False
        for wrapper in _WRAPPERS:
            if tuple(os.path.basename(w) for w in words[: len(wrapper)]) == wrapper:
                words = words[len(wrapper) :]
                changed = True
    python = len(words) >= 3 and re.fullmatch(r"python[\d.]*", os.path.basename(words[0]))
    if python and words[1] == "-m":
        words = words[2:]
    program = os.path.basename(words[0]) if words else ""
    rest = words[1:]
    key = program
    if program in _MULTI:
        verbs = [w for w in rest if not w.startswith("-")]
        if verbs:
            key = f"{program} {verbs[0]}"
            if verbs[0] == "run" and len(verbs) > 1:
                key += f" {verbs[1]}"
            rest = rest[rest.index(verbs[0]) + 1 :]
    targets = tuple(
        w.split("::", 1)[0].rstrip("/")
        for w in rest
        if not w.startswith("-") and ("/" in w or "." in w or "::" in w)
    )
    return Command(" ".join(text.split()), program, key, targets)


_ELSEWHERE = ("ssh", "docker", "podman", "kubectl")


def machine(command_line: str) -> str:
    """Where a command runs: ``""`` here, else the wrapper that sends it to another machine
    or container (`ssh root@router`, `docker exec web`)."""
    line = command_line.lstrip()
    if not line.startswith(_ELSEWHERE) or line.split(" ", 1)[0] not in _ELSEWHERE:
        return ""  # the cheap test almost every command stops at
    inner = remote.remote_command(line)
    at = line.find(inner) if inner else -1
    return " ".join(line[:at].replace('"', " ").replace("'", " ").split()) if at > 0 else ""


def _under(path: str, base: str) -> bool:
    return path == base or path.startswith(base + "/") or base in (".", "./...", "...")


def equivalent(a: Command, b: Command) -> bool:
    """The same program on overlapping targets (either running everything counts), on the
    same machine: `dig` failing here and `ssh router "dig -p 5335"` passing there are two
    jobs, never one command that passed given other options."""
    if not a.key or a.key != b.key or machine(a.text) != machine(b.text):
        return False
    if not a.targets or not b.targets:
        return True
    return any(_under(x, y) or _under(y, x) for x in a.targets for y in b.targets)


def covers(passing: Command, failing: Command) -> bool:
    """Whether a passing run ran at least what the failing run ran."""
    if not passing.key or passing.key != failing.key:
        return False
    if passing.text == failing.text or not passing.targets:
        return True
    if not failing.targets:
        return False  # the failing run ran everything, the passing one only a part
    return all(any(_under(f, p) for p in passing.targets) for f in failing.targets)


def decisive_line(excerpt: str, summary: str = "") -> str:
    """The one output line that says what went wrong, chosen by what it is (see
    :func:`memcli.signals.failure`); a runner's generic line never."""
    _kind, line = signals.failure(excerpt)
    if line:
        return line
    detail = re.search(r"\(([^()]*)\)\s*$", summary)
    found = detail.group(1) if detail else ""
    return "" if signals.is_generic(found) else found


def error_class(line: str) -> str:
    """``psycopg.OperationalError`` from a decisive line, or ''."""
    found = re.match(r"((?:[\w]+\.)*[A-Z]\w*(?:Error|Exception))\b", line)
    return found.group(1) if found else ""


def signature(line: str) -> str:
    """A decisive line with its values blanked: the same failure with another port matches."""
    if signals.is_generic(line):
        return ""  # `npm ERR! Test failed.` says nothing about which failure it was
    text = line.lower()
    text = re.sub(r"0x[0-9a-f]+", "#", text)
    text = re.sub(r"(?<![\w.])\d+(?:\.\d+)*(?!\w)", "#", text)
    return " ".join(text.split())[:200]


SELF_INFLICTED = ("SyntaxError", "IndentationError", "TabError", "NameError", "is not defined")
# The run found no test to run (`pytest -k x` matching nothing; `go test -run X` in a package
# without X prints "testing: warning: no tests to run").
NO_TESTS = ("no tests ran", "collected 0 items", "no tests found", "No tests found",
            "no tests to run")  # fmt: skip
