"""Re-runs: what a command run again, or another command run instead, shows.

Two shapes of a lesson that no failing exit code marks, read by both the Stop checkpoint
(:mod:`memcli.checkpoint.reruns`, on the hook path: no :mod:`re`, patterns come from
:mod:`memcli.fastparse.fastre`, string tests first) and the compactor
(:mod:`memcli.compact.reruns`):

- a *reproduction* (a script or a test run: ``python reproduce.py``, ``node repro.js``,
  ``pytest -k x``, ``cargo run``) passes but prints the wrong result; after an edit of a source
  file it prints something else (:func:`reproduction`, :func:`differing`);
- a *workaround*: a command fails and the next one, doing the same job another way
  (``python x`` -> ``python3 x``, ``npx tsx -e`` -> ``node --import tsx -e``, ``cp`` from
  another path), passes (:func:`same_job`).

Edits made through shell commands count as edits (:func:`shell_edit`): SWE-agent's ``edit``,
``create`` and ``str_replace_editor``, ``sed -i``, a redirect into a file.
"""

from memcli import remote
from memcli.fastparse import fastre


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


_WRAPPERS = ("uv", "poetry", "pipenv", "pdm", "hatch", "npx", "bunx", "time", "sudo", "env",
             "nohup", "exec", "timeout")  # fmt: skip
_INTERPRETERS = _set(
    """python python2 python3 py pypy pypy3 node nodejs deno bun ruby perl php ts-node tsx
    rscript julia lua bash sh zsh java kotlin scala elixir"""
)
_RUNNERS = _set("pytest py.test unittest jest vitest mocha ava tap phpunit rspec")
_RUNNING_VERBS = {
    "go": ("run", "test"), "cargo": ("run", "test"), "dotnet": ("run", "test"),
    "npm": ("test", "t"), "pnpm": ("test", "t"), "yarn": ("test",), "bun": ("test", "run"),
    "deno": ("run", "test"), "swift": ("run", "test"),
}  # fmt: skip
# Commands that only look around, SWE-agent's among them: never a reproduction, never a job.
# SWE-agent 1.x's file tool, `str_replace_editor`, views or edits files (its edits are read as
# edits first, :func:`shell_edit`); as a command it neither checks nor fixes anything.
LOOKING = _set(
    """cat less more head tail grep egrep rg ag find fd ls ll tree pwd echo printf which type
    whereis printenv wc stat file du df ps top id whoami date uname hostname sed awk jq sort
    uniq cut diff cd true false sleep history man help mem open goto scroll_up scroll_down
    search_dir search_file find_file view filemap submit exit_forfeit str_replace_editor"""
)
_GIT_LOOKING = _set("status diff log show blame branch remote config rev-parse")
_SWE_EDITS = frozenset(("edit", "insert", "append", "create", "str_replace_editor"))
_FILE_HEADER = "[File: "  # SWE-agent's window header: "[File: /repo/x.py (120 lines total)]"
_VOLATILE = (
    r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?(?:Z|[+-]\d\d:?\d\d)?"
    r"|\b\d\d?:\d\d:\d\d(?:[.,]\d+)?\b"
    r"|\b0x[0-9a-fA-F]+\b|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"
    r"|\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,}\b"
    r"|\b\d+(?:\.\d+)?\s?(?:ms|µs|us|ns|s|sec|secs|seconds|m|min|minutes|h|kB|KB|KiB|MB|MiB"
    r"|GB|GiB|B|bytes)\b"
    r"|(?:[A-Za-z]:)?(?:[\\/][\w.@+~-]+){2,}[\\/]?"
    r"|\b(?:pid|PID|port|thread|Thread|process)[ =:#]+\d+"
)
_NOT_THE_JOB = _set("-h --help help -V --version version --dry-run")
_RUNNER_PREFIXES = ("Ran ", "Tests:", "Test Suites:", "Snapshots:", "Time:", "test result:",
                    "collected ", "platform ", "rootdir:", "cachedir:", "plugins:",
                    "configfile:")  # fmt: skip
_DIGITS = "0123456789"
_MAX_LINES = 80
MAX_LINE = 200


_WORDS: dict[str, list[str]] = {}  # a session runs the same commands again and again


def words_of(command: str) -> list[str]:
    """The words of the part of a shell line that decides it (the last part of a chain that
    does more than move or look, before any pipe), without leading variable assignments and
    wrappers (``uv run``, ``npx``, ``timeout 60``). The list is shared: do not change it."""
    known = _WORDS.get(command)
    if known is None:
        if len(_WORDS) > 512:
            _WORDS.clear()
        known = _WORDS[command] = _words_of(command)
    return known


def _words_of(command: str) -> list[str]:
    command = remote.innermost(command)  # `ssh host "opkg remove x"`: the remote command
    parts = [command]
    for separator in ("&&", "||", ";"):
        parts = [p for part in parts for p in part.split(separator) if p.strip()]
    chosen = parts[-1] if parts else command
    for part in reversed(parts):
        words = part.split("|", 1)[0].split()
        if words and not _aside(words):
            chosen = part
            break
    words = _without_redirections([w.strip("'\"") for w in chosen.split("|", 1)[0].split()])
    while words and "=" in words[0] and not words[0].startswith("-"):
        words.pop(0)
    changed = True
    while changed and words:
        changed = False
        first = _base(words[0])
        if first in _WRAPPERS:
            words = words[2:] if len(words) > 1 and words[1] in ("run", "exec") else words[1:]
            while words and first == "timeout" and (words[0][:1].isdigit() or words[0][:1] == "-"):
                words = words[1:]
            changed = True
        elif first.startswith("python") and len(words) > 2 and words[1] == "-m":
            words = words[2:]
            changed = True
    return words


def _without_redirections(words: list[str]) -> list[str]:
    """``2>&1``, ``> out.txt``, ``<in``, ``&>/dev/null``: where output goes is not the job."""
    kept: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        bare = word.lstrip("0123456789&")
        if bare.startswith((">", "<")):
            skip = bare.rstrip(">&<") == ""  # `>` alone: the next word is its target
            continue
        kept.append(word)
    return kept


def _base(word: str) -> str:
    return word.replace("\\", "/").rsplit("/", 1)[-1].lower()


def _aside(words: list[str]) -> bool:
    program = _base(words[0])
    if program == "git":
        return len(words) > 1 and words[1] in _GIT_LOOKING
    return program in ("cd", "export", "source", ".", "set") or program in LOOKING


def looking(command: str) -> bool:
    """Whether the command only looks around (``ls``, ``git status``, SWE-agent's ``open``)."""
    words = words_of(command)
    return not words or _aside(words)


def family(program: str) -> str:
    """``python3.11`` -> ``python``, ``pip3`` -> ``pip``: one tool under its versions' names."""
    name = _base(program)
    if name.endswith(".exe"):
        name = name[:-4]
    return name.rstrip("0123456789.") or name


def reproduction(command: str) -> bool:
    """A run of a script, of code or of tests whose output shows a result: an interpreter
    given a script or code, a test runner, ``go run``, ``cargo run``, ``./tool``. Builds,
    installs, linters and looks around are none."""
    words = words_of(command)
    if not words or _aside(words):
        return False
    program = family(words[0])
    rest = words[1:]
    if program in _RUNNERS:
        return True
    verbs = _RUNNING_VERBS.get(program)
    if verbs is not None and rest and rest[0] in verbs:
        return True
    if program in ("bash", "sh", "zsh"):
        return any(w.endswith(".sh") for w in rest)
    if program in _INTERPRETERS:
        if any(w in ("-c", "-e", "--eval", "-p", "--print") for w in rest):
            return True
        script = next((w for w in rest if not w.startswith("-")), "")
        return "." in script or "/" in script
    first = words[0]
    return first.startswith(("./", "../")) and program not in LOOKING


def shell_edit(command: str, output: str, open_file: str) -> tuple[list[str], bool]:
    """(files, created) that a shell command changed: SWE-agent's ``edit`` (the file open in
    its window, ``open_file``, or its output's ``[File: ...]`` header), ``create``,
    ``insert``, ``str_replace_editor create|str_replace|insert PATH``, ``sed -i ... FILE``,
    ``cat > FILE``, ``tee FILE``. ([], False) for anything else."""
    for part in command.replace("&&", ";").split(";")[:4]:
        words = part.split()
        if words and words[0] != "cd":
            return _edit_of(part, words, output, open_file)
    return [], False


def _edit_of(part: str, words: list[str], output: str, open_file: str) -> tuple[list[str], bool]:
    first = words[0]
    if first in _SWE_EDITS:
        if first == "str_replace_editor":
            if len(words) < 3 or words[1] not in ("create", "str_replace", "insert"):
                return [], False
            return [words[2]], words[1] == "create"
        if first == "create":
            return ([words[1]], True) if len(words) > 1 else ([], False)
        shown = window_file(output) or open_file
        return ([shown], False) if shown else ([], False)
    if first == "sed" and len(words) > 2 and any(w.startswith("-i") for w in words[1:]):
        target = words[-1].strip("'\"")
        return ([target], False) if not target.startswith("-") else ([], False)
    if first in ("cat", "echo", "printf", "tee"):
        for marker, created in ((">>", False), (">", True)):
            at = part.find(marker)
            rest = part[at + len(marker) :].split() if at >= 0 else []
            target = rest[0].strip("'\"") if rest else ""
            if target and not target.startswith(("&", "/dev/")):
                return [target], created
        if first == "tee" and len(words) > 1 and not words[1].startswith("-"):
            return [words[1]], True
    return [], False


def window_file(output: str) -> str:
    """The file SWE-agent's window shows (``[File: /repo/x.py (120 lines total)]``), or ""."""
    at = output.find(_FILE_HEADER)
    if at < 0:
        return ""
    line = output[at + len(_FILE_HEADER) :].split("\n", 1)[0]
    cut = line.rfind(" (")
    return line[:cut].strip() if cut > 0 else ""


def same_file(a: str, b: str) -> bool:
    """Paths naming one file, one of them possibly relative (``/repo/x.py``, ``x.py``)."""
    return same_normal_file(normal_path(a), normal_path(b))


def normal_path(path: str) -> str:
    """``path`` as :func:`same_file` compares it."""
    return path.replace("\\", "/").lstrip("./")


def same_normal_file(a: str, b: str) -> bool:
    """:func:`same_file` of two paths already through :func:`normal_path`."""
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


def test_or_reproduction(path: str) -> bool:
    """A file that tests or reproduces (``test_x.py``, ``x.test.js``, ``repro.py``): editing
    it changes the check, never fixes what it checks."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return name.startswith(("test_", "repro")) or (
        "_test." in name or ".test." in name or ".spec." in name or "_spec." in name
    )


def scripts_of(command: str) -> list[str]:
    """The files a command runs or reads (its arguments that look like paths)."""
    return [w for w in words_of(command)[1:] if not w.startswith("-") and ("." in w or "/" in w)
            and "(" not in w]  # fmt: skip


def lines_of(output: str) -> list[tuple[str, str]]:
    """(line, the line with its volatile parts blanked) for each non-blank line: timestamps,
    durations, sizes, addresses, hashes, ids and paths do not make two outputs differ."""
    out: list[tuple[str, str]] = []
    pattern = None
    for line in output.split("\n")[:_MAX_LINES]:
        shown = line.strip()
        if not shown or _runner_line(shown):
            continue
        blank = shown
        if "/" in shown or "\\" in shown or any(d in shown for d in _DIGITS):
            pattern = pattern or fastre.cached(_VOLATILE, 0)
            blank = pattern.sub(_blanked, shown)
        out.append((shown[:MAX_LINE], " ".join(blank.split())))
    return out


def _runner_line(line: str) -> bool:
    """A test runner's header, progress or count line (``==== 3 passed in 0.1s ====``,
    ``Tests: 4 passed``, ``Ran 3 tests``): a test added or skipped changes it, no fix does."""
    if line.startswith(_RUNNER_PREFIXES) or line.endswith("%]"):
        return True
    return line.startswith("==") and any(w in line for w in (" passed", " failed", " skipped"))


def _blanked(_match: object) -> str:
    return "#"


def differing(before: str, after: str) -> tuple[str, str] | None:
    """The first line of ``before`` that ``after`` no longer shows and the first line that
    ``after`` shows instead, when the two outputs differ in more than volatile parts; None
    when they do not, or when ``before`` showed nothing."""
    if before.strip() == after.strip():
        return None  # the usual case, and no pattern needed to see it
    old, new = lines_of(before), lines_of(after)
    if not old:
        return None
    old_keys, new_keys = [k for _l, k in old], [k for _l, k in new]
    if old_keys == new_keys:
        return None
    gone = [line for line, key in old if key not in new_keys]
    came = [line for line, key in new if key not in old_keys]
    if not gone and not came:
        return None  # the same lines in another order
    return (gone[0] if gone else old[-1][0]), (came[0] if came else "(nothing)")


def same_job(failed: str, passed: str) -> bool:
    """Whether ``passed`` does the job ``failed`` tried another way: the same tool under
    another name (``python`` -> ``python3``) or from another path (``cp a/x d`` -> ``cp
    b/x d``), or another tool running the failing one (``npx tsx -e CODE`` -> ``node
    --import tsx -e CODE``). A different subcommand, target or test selection is another job;
    options added to the same command line are a workaround of their own (see
    :func:`memcli.checkpoint.commands.added_flags`)."""
    a, b = words_of(failed), words_of(passed)
    if not a or not b or a == b or _aside(a) or _aside(b):
        return False
    if any(w in _NOT_THE_JOB for w in b[1:]) and not any(w in _NOT_THE_JOB for w in a[1:]):
        return False  # asking for help or a dry run does no job (unless the failing run did)
    fa, fb = family(a[0]), family(b[0])
    if fa == fb:
        if a[0] == b[0] and _only_flags_added(a, b):
            return False
        gone = [w for w in a[1:] if w not in b[1:]]
        came = [w for w in b[1:] if w not in a[1:]]
        if not gone and not came:
            return a[0] != b[0]  # the same line under another name of the program
        moved = [w for w in gone + came if not w.startswith("-")]
        shared = [w for w in a[1:] if w in b[1:] and not w.startswith("-")]
        return bool(moved) and bool(shared) and all(_pathlike(w) for w in moved)
    if _base(a[0]) not in (_base(w) for w in b[1:]) and _base(b[0]) not in (
        _base(w) for w in a[1:]
    ):
        return False
    programs = {_base(a[0]), _base(b[0])}
    rest_a = {w for w in a[1:] if not w.startswith("-") and _base(w) not in programs}
    rest_b = {w for w in b[1:] if not w.startswith("-") and _base(w) not in programs}
    return rest_a == rest_b


def _only_flags_added(a: list[str], b: list[str]) -> bool:
    return [w for w in b if not w.startswith("-")] == [w for w in a if not w.startswith("-")]


def _pathlike(word: str) -> bool:
    return "/" in word or "\\" in word
