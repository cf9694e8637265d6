"""What a command's output tells about the session's setting in passing, whatever its exit
code: lines a session reads past and the next one should know.

- ``env``: the agent reset the shell's directory after the command ("Shell cwd was reset
  to /repo": Claude Code's Bash keeps no ``cd`` that leaves the project, so the next command
  runs where the first began);
- the relative folders passing commands went into (``cd build``): a later ``cd build``
  failing with "No such file or directory" says the shell's directory persists from one
  command to the next (Claude Code's Bash keeps it inside the project), which the failure's
  env candidate says (:func:`memcli.checkpoint.commands.persisted_cd`);
- ``env``: the remote's notice on a push ("remote: GitHub found 19 vulnerabilities on
  owner/repo's default branch");
- ``env``: a passing command warned that an installed version is not one supported (pip's
  resolver: "requires numpy<2, but you have numpy 2.1.0 which is incompatible"; npm's
  ``EBADENGINE``; a library's own warning: "TRL currently supports vLLM versions from 0.12.0
  to 0.18.0. You have version 0.21.0 installed"): it runs, and fails later, elsewhere (a
  failing command's version error is read as its failure);
- ``env``: a passing command printed that a program is missing ("Python was not found; run
  without arguments to install from the Microsoft Store" from a commit's hook, "gcc-12:
  command not found" before a pipe): what it ran went on without it;
- ``env``: git made up the committer's identity ("Your name and email address were
  configured automatically based on your username and hostname"): every commit here carries
  it until ``user.name`` and ``user.email`` are set;
- ``env``: a passing command skipped part of its work for want of something ("Warning:
  bench/build/bench_vector_add not found, skipping vector addition benchmarks", "skipping
  GPU tests: CUDA not available"): it passed without doing all it says;
- ``branch``: at the end of a turn, the branch git last said is ahead of or has diverged
  from its remote, with no push or pull after it (commits the next session may think shared).

Hook path: substring tests on each output before anything else.
"""

from memcli import signals
from memcli.checkpoint import commands
from memcli.checkpoint.entries import add, one_line, text_of
from memcli.fastparse import fastre

_CWD_RESET = "Shell cwd was reset to "
_CD = r"(?:^|&&|;|\|\||\()\s*cd\s+([\w.][\w./-]*)"  # a relative `cd` of a command line
MAX_CD = 20  # relative folders remembered a session
_AHEAD = ("Your branch is ahead of '", "have diverged")
_SYNCED = ("Your branch is up to date with '", "Everything up-to-date")
_GUESSED_IDENTITY = "were configured automatically"  # git's "Your name and email address ..."
_REMOTE_NOTICES = ("vulnerabilit",)  # what a remote tells on every push until it is handled
_VERSION_HINTS = ("version", "EBADENGINE", "but you have", "upported")
_VERSION_WARNING = (
    r"^[^\n]*(?:but you have |you have (?:version )?v?\d[\w.]* installed"
    r"|supports? [\w.-]+ versions? (?:from|between|>=|<=|<|>)|unsupported (?:engine|version)"
    r"|EBADENGINE|incompatible version|requires? (?:python|node(?:\.js)?|npm|go|ruby|java)"
    r" ?[<>=~^]+ ?v?\d)[^\n]*"
)
# A line saying what was skipped for want of what: "X not found, skipping Y", "skipping Y:
# X not available", "Y skipped (X is not installed)".
_SKIPPED = (
    r"^[^\n]*(?:\b(?:not found|not available|not installed|missing|unavailable)\b[^\n]{0,60}"
    r"\bskipp(?:ing|ed)\b|\bskipp(?:ing|ed)\b[^\n]{0,80}\b(?:not found|not available"
    r"|not installed|missing|unavailable|no such file|could not import|cannot import)\b)[^\n]*"
)
# where a Python warning was raised ("/usr/lib/python3/site-packages/x/y.py:40: "): the same
# warning raised from several modules is one lesson
_WARNED_AT = r"^\s*\S+\.py:\d+: "
BRANCH = "branch_state"  # the state's key: git's last word on the branch, and where


def ran(record: dict[str, object], state: dict[str, object], command: str) -> None:
    """Read one command's output for what it tells in passing."""
    if "cd " in command:
        _went_into(command, record, state)  # `mkdir build && cd build` prints nothing
    excerpt = text_of(record, "excerpt")
    if not excerpt:
        return
    if _CWD_RESET in excerpt:
        _cwd_reset(excerpt, command, record, state)
    if "remote:" in excerpt:
        _remote_notice(excerpt, command, record, state)
    if "git" in command:
        _branch(excerpt, command, record, state)
        if _GUESSED_IDENTITY in excerpt:
            _guessed_identity(excerpt, command, record, state)
    if record.get("ok") is not False and any(hint in excerpt for hint in _VERSION_HINTS):
        _version_warning(excerpt, command, record, state)
    if record.get("ok") is True and ("not found" in excerpt or "not recognized" in excerpt):
        _missing_tool(excerpt, command, record, state)
    if record.get("ok") is True and ("kipp" in excerpt or "KIPP" in excerpt):
        _skipped(excerpt, command, record, state)


def _line_with(excerpt: str, marker: str) -> str:
    at = excerpt.find(marker)
    start = excerpt.rfind("\n", 0, at) + 1
    end = excerpt.find("\n", at)
    return excerpt[start : end if end >= 0 else len(excerpt)].strip()


def _cwd_reset(
    excerpt: str, command: str, record: dict[str, object], state: dict[str, object]
) -> None:
    said = _line_with(excerpt, _CWD_RESET)
    lines = [
        f'`{one_line(command, 100)}` ended with "{one_line(said, 120)}": a `cd` does not '
        "carry over to the next command here; give each command its directory"
    ]
    add(state, "env", "cwd reset", lines, record, env="shell")


def _went_into(command: str, record: dict[str, object], state: dict[str, object]) -> None:
    """Remember the relative folders a passing command went into (``cd build``), for a later
    ``cd build`` failing there (:func:`memcli.checkpoint.commands.persisted_cd`)."""
    if record.get("ok") is not True:
        return
    went = state.get(commands.CD_INTO)
    went = went if isinstance(went, dict) else {}
    for folder in fastre.cached(_CD).findall(command):
        folder = folder.rstrip("/")
        if folder not in (".", "..", "") and folder not in went and len(went) < MAX_CD:
            went[folder] = one_line(command, 80)
    state[commands.CD_INTO] = went


def _remote_notice(
    excerpt: str, command: str, record: dict[str, object], state: dict[str, object]
) -> None:
    for line in excerpt.split("\n"):
        stripped = line.strip()
        if stripped.startswith("remote:") and any(n in stripped.lower() for n in _REMOTE_NOTICES):
            said = one_line(stripped, 160)
            add(state, "env", f"remote\0{said}",
                [f'`{one_line(command, 80)}` printed: "{said}"'], record, env="remote")  # fmt: skip
            return


def _guessed_identity(
    excerpt: str, command: str, record: dict[str, object], state: dict[str, object]
) -> None:
    who = _line_with(excerpt, "Committer:") if "Committer:" in excerpt else ""
    said = f'"{one_line(who, 80)}", ' if who else ""
    lines = [
        f'`{one_line(command, 60)}` printed {said}"Your name and email address were configured '
        'automatically": set `git config user.name` and `user.email`'
    ]
    add(state, "env", "git identity guessed", lines, record, env="git-identity")


def _version_warning(
    excerpt: str, command: str, record: dict[str, object], state: dict[str, object]
) -> None:
    found = fastre.cached(_VERSION_WARNING, fastre.IGNORECASE | fastre.MULTILINE).search(excerpt)
    if found is None:
        return
    said = one_line(fastre.cached(_WARNED_AT).sub("", found.group(0).strip()), 200)
    lines = [f'`{one_line(command, 80)}` passed but warned: "{said}"']
    add(state, "env", f"version\0{said.lower()}", lines, record, env="version")


def _runs_something(command: str) -> bool:
    """Whether ``command`` runs something rather than only looking around (``grep``, ``cat``):
    a look prints such words as data."""
    key, _check = commands.command_key(command)
    return bool(key) and not commands.looks_around(key)


def _skipped(
    excerpt: str, command: str, record: dict[str, object], state: dict[str, object]
) -> None:
    if not _runs_something(command):
        return  # a search printing such lines reads them, it does not skip
    found = fastre.cached(_SKIPPED, fastre.IGNORECASE | fastre.MULTILINE).search(excerpt)
    if found is None:
        return
    said = one_line(found.group(0).strip(), 200)
    lines = [f'`{one_line(command, 80)}` passed but skipped: "{said}"']
    # one lesson per reason: a verbose test run prints it for every test it skips
    lowered = said.lower()
    reason = lowered[lowered.find("skipp") :]
    about = "".join(ch for ch in reason if not ch.isdigit() and ch not in "[]%")
    add(state, "env", f"skipped\0{about}", lines, record, env="skipped")


def _missing_tool(
    excerpt: str, command: str, record: dict[str, object], state: dict[str, object]
) -> None:
    if not _runs_something(command):
        return  # `grep -rn "command not found" docs` prints the words, not the failure
    said = signals.missing_tool(excerpt)
    if said:
        lines = [f'`{one_line(command, 80)}` passed, but printed: "{one_line(said, 160)}"']
        add(state, "env", f"missing-tool\0{said.lower()}", lines, record, env="missing-tool")


def _branch(
    excerpt: str, command: str, record: dict[str, object], state: dict[str, object]
) -> None:
    words = command.split()
    if "push" in words or "pull" in words:
        if record.get("ok") is True:
            state.pop(BRANCH, None)
        return
    for marker in _AHEAD:
        if marker in excerpt:
            state[BRANCH] = {
                "line": one_line(_line_with(excerpt, marker), 160),
                "cmd": one_line(command, 80),
                "obs": text_of(record, "id"),
                "ref": text_of(record, "raw"),
                "ts": text_of(record, "ts"),
            }
            return
    if any(marker in excerpt for marker in _SYNCED):
        state.pop(BRANCH, None)


def turn_end(state: dict[str, object]) -> None:
    """The branch git last said is ahead or diverged, with no push or pull since."""
    found = state.get(BRANCH)
    if not isinstance(found, dict) or not found.get("line"):
        return
    line = str(found["line"])
    about = line.split(" by ", 1)[0].lower()  # ahead "by 1 commit", then "by 2": one lesson
    add(state, "branch", about,
        [f'`{found.get("cmd")}` said "{line}" and nothing was pushed or pulled after it'],
        None, obs=[str(found["obs"])] if found.get("obs") else [],
        refs=[str(found["ref"])] if found.get("ref") else [],
        ts=str(found.get("ts") or ""))  # fmt: skip
