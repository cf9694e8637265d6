"""Signals: what a line of output *is*.

One small module for both readers of a session: the Stop checkpoint (a hook command, so no
:mod:`re` import: patterns come compiled from :mod:`memcli.fastparse.fastre`) and the
compactor's rules.

- :func:`failure` picks an output's *error signature* by what the line is (a Python or JS
  exception, ``error TS2307``, ``npm ERR! code``, ``error[E0308]``, a Go or Java failure, a
  pytest or jest failure line, ``command not found``, a missing module, a busy port, a denied
  permission), never the first line holding the word "error". A runner's generic line
  (``npm ERR! Test failed.``, ``make: *** [test] Error 1``) is never a signature.
- :func:`environment` says which environment pitfall a failure shows (missing tool or
  package, wrong version, port, permission, interactive prompt, an unreachable host, a remote
  service's rejection (push protection, failed signing, bad credentials, a rate or usage
  limit), shell state).

What a sentence of a prompt or a message says (a norm, a correction, a decision, a root
cause, narration) is :mod:`memcli.phrasing`.
"""

from memcli import outputs
from memcli.fastparse import fastre

MULTILINE = fastre.MULTILINE
IGNORECASE = fastre.IGNORECASE


def _find(pattern: str, text: str, flags: int = MULTILINE) -> str:
    found = fastre.cached(pattern, flags).search(text)
    return found.group(0).strip() if found else ""


_has = fastre.has


# Lines that only say "something failed": runners, wrappers, exit codes. Never a signature.
_GENERIC = (
    r"^(?:Error:\s*)?(?:npm (?:ERR!|error)\s+(?:Test failed|code ELIFECYCLE|errno\b|"
    r"A complete log|Lifecycle script|command failed|Failed at the|This is probably|"
    r"path\b|syscall\b|signal\b|$)"
    r"|npm (?:ERR!|error) [\w:@./-]+@[\w.-]+ \w+: "
    r"|make(?:\[\d+\])?: \*\*\* .*Error \d+"
    # task runners' own last words (mise, just, go-task, turbo): which task failed, not why
    r"|(?:\[[\w:./-]+\] )?ERROR task failed|mise ERROR .*\bfailed\b"
    r"|error: Recipe `[^`]+` failed on line \d+ with exit code \d+"
    r"|task: Failed to run task |ERROR\s+run failed: command\s+exited \(\d+\)"
    r"|(?:error:? )?(?:script|command) .{0,80}(?:exited|failed) with (?:exit )?code \d+"
    r"|error Command failed with exit code"
    r"|Error: Process completed with exit code"
    r"|(?:Exit code|exit status|exit code)\s*:?\s*-?\d+\s*$"
    r"|FAILED \((?:failures|errors)=\d+"
    r"|Tests?:?\s+\d+ failed|Test Suites: \d+ failed"
    r"|=+ .*\d+ failed.* =+$|\d+ failed(?:, \d+ \w+)* in [\d.]+s"
    r"|ERROR: .*(?:Test failed|See above for more details)"
    r"|error: could not compile `[^`]+`.*due to"
    r"|Error: Command failed:"
    r"|(?:npm|pnpm|yarn) (?:warn|WARN|notice)\b(?! EBADENGINE)"
    r"|ELIFECYCLE"
    r"|\[ERROR\] (?:Failed to execute goal|-> \[Help|Re-run Maven|To see the full|$)"
    r"|FAILURE: Build failed with an exception"
    r"|Traceback \(most recent call last\)"
    r"|short test summary info"
    r"|-+ FAIL\s*$|^FAIL\s*$|^FAIL\t\S+\s+[\d.]+s$|exit status \d+$"
    r"|exit -?\d+$|(?:process |command )?exited with (?:code|status) -?\d+\.?$)"
)

# (kind, pattern): the first kind whose pattern matches names the signature line.
_SHAPES: tuple[tuple[str, str], ...] = (
    (
        # The shell itself failed before the command ran (Git Bash's and Cygwin's fork
        # emulation, a process table or memory limit): the command was never tried.
        "shell",
        r"(?:.*\bcygheap read copy failed.*|.*\bchild_copy: .*|(?:\S+: )?fork: (?:retry: )?"
        r"(?:Resource temporarily unavailable|Cannot allocate memory|No child processes).*"
        r"|Command failed: cygpath .*|.*\bdied waiting for dll loading.*"
        r"|.*\bcouldn't allocate heap.*)$",
    ),
    (
        # The shell could not parse the command line (a here-document followed by more on its
        # line, quotes or backticks another shell's syntax left open): nothing ran, and the
        # lesson is how to write commands for this shell, whatever the command was.
        "syntax",
        r"(?:\b(?:ba|z|da|k)?sh(?:\.exe)?:(?: [^:\n]{1,40}:){0,3} (?:syntax error\b.*"
        r"|Syntax error: .*|unexpected EOF while looking for matching .*|parse error near .*)"
        r"|\(eval\):\d+: parse error near .*"  # zsh, as Claude Code's shell on macOS runs it
        r"|The string is missing the terminator: .*"  # PowerShell's parser
        r"|Unexpected token '[^'\n]{1,80}' in expression or statement.*)$",
    ),
    (
        "missing-tool",
        r"(?:command not found|: not found$"
        r"|is not recognized as (?:an internal|the name of a cmdlet)"  # cmd.exe, PowerShell
        r"|No such file or directory \(os error 2\)|executable file not found"
        r"|Python was not found; run without arguments).*$",  # Windows' Store alias
    ),
    (
        "missing-package",
        r"(?:ModuleNotFoundError: .*|No module named .*"
        r"|Cannot find module ['\"][^'\"]+['\"].*|Cannot find package ['\"].*"
        r"|Could not find a version that satisfies.*|No matching distribution found.*"
        r"|package .* is not in (?:GOROOT|std).*|cannot find package .*"
        r"|unresolved import .*|could not resolve dependency.*|ERESOLVE.*"
        r"|error TS2307: .*|ImportError: .*"
        # the dynamic loader: a shared library not installed or not on its path
        r"|error while loading shared libraries: .*|dyld(?:\[\d+\])?: Library not loaded: .*)$",
    ),
    (
        "port",
        r"(?:EADDRINUSE.*|[Aa]ddress already in use.*|port \d+ (?:is )?already in use.*"
        r"|bind: address already in use.*)$",
    ),
    (
        "permission",
        r"(?:EACCES.*|Permission denied.*|Operation not permitted.*"
        r"|PermissionError: .*|permission denied.*)$",
    ),
    (
        "version",
        r"(?:requires? (?:Python|Node(?:\.js)?|node|npm|go|Go|Ruby|Java) ?[<>=~^]*"
        r" ?v?\d.*|requires a different Python.*|Unsupported engine.*|EBADENGINE.*"
        r"|version mismatch.*|incompatible version.*"
        r"|is not compatible with.*|requires-python.*|unsupported (?:class file )?version.*"
        r"|The engine \"\w+\" is incompatible.*)$",
    ),
    (
        "interactive",
        r"(?:\[[yY]/[nN]\]|\([yY]/[nN]\)|Ok to proceed\?|Are you sure.*\?"
        r"|Press (?:any key|enter|ENTER).*|stdin is not a tty|not a terminal"
        r"|Inappropriate ioctl for device|Password:[ \t]*$|waiting for input|a terminal is required"
        r"|no tty present|Need to install the "
        r"following packages).*$",
    ),
    (
        "network",
        r"(?:Network is unreachable|No route to host|Could not resolve host.*"
        r"|Name or service not known|Temporary failure in name resolution"
        r"|Connection timed out|Host key for \S+ has changed|Host key verification failed"
        r"|ETIMEDOUT|ENOTFOUND).*$",
    ),
    (
        "service",
        r"(?:\bGH\d{3}: .*|\[remote rejected\].*|! \[rejected\].*|push declined.*"
        r"|[Pp]ush protection.*|Repository rule violations.*|failed to sign the data.*"
        r"|gpg: signing failed.*|[Aa]uthentication failed.*|[Bb]ad credentials.*"
        r"|could not read Username.*|401 Unauthorized.*|403 Forbidden.*"
        r"|rate limit(?:ed| exceeded)?.*|Too Many Requests.*|[Qq]uota exceeded.*"
        r"|usage limit.*|out of (?:extra )?usage.*)$",
    ),
    (
        "shell-state",
        r"(?:cd: .*No such file or directory|not a git repository.*"
        r"|No virtualenv|VIRTUAL_ENV.*not set|conda activate|source .*activate"
        r"|externally-managed-environment.*|You are not currently on a branch.*"
        r"|detached HEAD.*|paths are ignored by one of your \.gitignore files.*"
        # the repository's own state: a merge or rebase left open, branches to reconcile
        r"|You have not concluded your merge.*|Exiting because of unfinished merge.*"
        r"|you have unmerged files.*|Need to specify how to reconcile divergent branches.*"
        r"|It seems that there is already a rebase-merge directory.*).*$",
    ),
    ("typescript", r"\berror TS\d{4}: .*$"),
    ("rust", r"^error\[E\d{4}\]: .*$"),
    ("npm", r"^npm (?:ERR!|error) code (?!ELIFECYCLE)E[A-Z]+.*$"),
    ("pytest", r"^E[ \t]{2,}\S.*$"),
    (
        "exception",
        r"^[ \t]*(?:Uncaught |Unhandled )?(?:[\w$]+\.)*[A-Z]\w*(?:Error|Exception|Fault"
        r"|Exit|Interrupt|Warning)\b(?:\[\w+\])?: .*$"
        r"|^[ \t]*(?:[\w$]+\.)*[A-Z]\w*(?:Error|Exception)[ \t]*$"
        r"|^[ \t]*\*\* \((?:[\w$]+\.)*[A-Z]\w*\) .*$",  # Elixir: ** (KeyError) key :a not found
    ),
    (
        "java",
        r"^(?:Exception in thread .*|Caused by: .*|\S+\.java:\d+: error: .*"
        r"|\[ERROR\] \S+\.java:.*)$",
    ),
    # (not golangci-lint's package header `x.go:1: : # pkg [pkg.test]`: the finding follows)
    ("go", r"^(?:panic: .*|--- FAIL: .*|\S+\.go:\d+(?::\d+)?: (?!:?\s*# ).*|fatal error: .*)$"),
    # A linter's or compiler's finding: `src/a.py:3:1: F401 ...`, eslint's `  3:1  error  ...`.
    ("finding", r"^[\w./\\@+-]*\.\w+:\d+:\d+:? +\S.*$|^[ \t]+\d+:\d+[ \t]+error[ \t]+\S.*$"),
    ("jest", r"^[ \t]*(?:● .*|✕ .*|FAIL[ \t]+\S+.*)$"),
    ("test", r"^(?:FAILED \S+.*|ERROR \S+::.*|AssertionError.*|assert .*)$"),
    ("compiler", r"^\S+:\d+(?::\d+)?: (?:fatal )?error: .*$|^error: .*$"),
    # A test framework's count line ("3 tests, 1 failure", "5 examples, 2 failures"): the line
    # told is the first failing test's name and its assertion (see `_first_failing_test`).
    (
        "tests",
        r"\b\d+ (?:tests?|examples?|runs?|specs?|properties),"
        r".*\b[1-9]\d* (?:failures?|errors?)\b.*$",
    ),
)
# Per shape, words at least one of which a text must hold (lower-cased) for the shape's
# pattern to be worth running: most outputs skip most patterns.
_HINTS: dict[str, tuple[str, ...]] = {
    "shell": ("cygheap", "child_copy", "fork:", "cygpath", "dll loading", "allocate heap"),
    "syntax": ("syntax error", "unexpected eof", "parse error near", "missing the terminator",
               "in expression or statement"),
    "missing-tool": ("not found", "not recognized", "os error 2", "executable file"),
    "missing-package": ("module", "package", "satisfies", "distribution", "unresolved import",
                        "resolve", "ts2307", "importerror", "shared librar", "library not loaded"),
    "port": ("eaddrinuse", "already in use"),
    "permission": ("eacces", "permission", "not permitted"),
    "version": ("require", "engine", "version", "compatible"),
    "interactive": ("y/n", "proceed?", "are you sure", "press ", "tty", "terminal", "ioctl",
                    "password:", "waiting for input", "need to install", "terminal is required",
                    "no tty"),
    "network": ("unreachable", "no route", "resolve host", "service not known",
                "name resolution", "connection timed out", "host key", "etimedout", "enotfound"),
    "service": ("gh0", "gh1", "rejected]", "push declined", "push protection", "rule violations",
                "sign the data", "signing failed", "authentication failed", "bad credentials",
                "read username", "401 unauthorized", "403 forbidden", "rate limit",
                "too many requests", "quota exceeded", "usage limit", "of usage",
                "of extra usage"),
    "shell-state": ("cd: ", "git repository", "virtualenv", "virtual_env", "activate",
                    "externally-managed", "on a branch", "detached head", ".gitignore",
                    "merge", "divergent branches", "rebase-merge"),
    "typescript": ("error ts",),
    "rust": ("error[e",),
    "npm": ("npm err! code", "npm error code"),
    "pytest": ("e  ",),
    "exception": ("error", "exception", "fault", "exit", "interrupt", "warning"),
    "java": ("exception in thread", "caused by:", ".java:"),
    "go": ("panic:", "--- fail:", ".go:", "fatal error:"),
    "jest": ("●", "✕", "fail"),
    "test": ("failed ", "error ", "assert"),
    "compiler": ("error:",),
    "finding": (":",),
    "tests": ("failure", "error"),
}  # fmt: skip
_MISSING_TOOL = dict(_SHAPES)["missing-tool"]
_SHAPES_HINTED = tuple((kind, pattern, _HINTS[kind]) for kind, pattern in _SHAPES)
KINDS = frozenset((*(kind for kind, _pattern, _hints in _SHAPES_HINTED), "other"))  # failure's
ENVIRONMENT = ("shell", "syntax", "missing-tool", "missing-package", "port", "permission",
               "version", "interactive", "network", "service", "shell-state")  # fmt: skip
# What even a command that only looks around (`rg`, `tree`, `cat`, an `ssh host "echo ok"`
# probe) tells of the machine when it fails: the tool is missing, the host cannot be reached
# or refuses its key. Its other failures (a missing file, `find /` meeting unreadable folders
# on every run) are no lesson, and a shell failing before it ran (Git Bash's fork errors) is
# read on the other commands it fails.
EVEN_A_LOOK = ("missing-tool", "network")

_GENERIC_FALLBACK = (
    r"(?:\berror\b|\bERR!|\bfatal\b|No such file or directory|\bnot found\b|cannot find"
    r"|could not|refused|\bdenied\b|timed out).*$"
)


def is_generic(line: str) -> bool:
    """A line that only says that something failed (a runner's or wrapper's own line)."""
    text = line.strip()
    if text.startswith("Error: ") and len(text) > 7 and not is_generic(text[7:]):
        return False
    return not text or _has(_GENERIC, text, IGNORECASE | MULTILINE)


def failure(text: str, fallback: bool = True) -> tuple[str, str]:
    """(kind, line) of the most telling failure line of an output; ("", "") when none.

    The first matching shape (in `_SHAPES` order) wins; within a shape, Python tracebacks
    name their error last, so the last exception line is taken, other shapes the first.
    Without ``fallback`` a text no shape matches gives ("", "") at once, never the "other"
    line of a generic search (a caller that discards "other" skips a regex pass).
    """
    if not text:
        return "", ""
    text = text[:20_000]
    lowered = text.lower()
    for kind, pattern, hints in _SHAPES_HINTED:
        for hint in hints:  # a loop, not any(): this runs for every shape of every failure
            if hint in lowered:
                break
        else:
            continue
        lines = _lines(pattern, text, MULTILINE)
        lines = [_unprefixed(line) for line in lines if not is_generic(line)]
        if kind == "pytest":  # pytest's "E   " marks the assertion or exception line
            lines = [line[1:].strip() for line in lines]
        lines = [line for line in lines if line]
        if kind == "tests":
            lines = [outputs.first_failing_test(text)] if lines else []
            lines = [line for line in lines if line]
        elif kind == "finding":  # a compiler's warnings come before its error
            lines = [line for line in lines if "error" in line.lower()] or lines
        if lines:
            return kind, _with_subject(text, lines[-1] if kind == "exception" else lines[0])
    if not fallback:
        return "", ""
    for found in _lines(_GENERIC_FALLBACK, text, MULTILINE | IGNORECASE):
        line = _unprefixed(found)
        if line and not is_generic(line) and not line.startswith(("=====", "-----", "[...")):
            return "other", line
    return "", ""


def missing_tool(text: str) -> str:
    """The first line of an output that says a program is missing ("gcc-12: command not
    found", Windows' "Python was not found; run without arguments to install from the
    Microsoft Store"), or "". A passing command may print one: a hook or a script it ran went
    on without the program."""
    text = text[:20_000]
    lowered = text.lower()
    if not any(hint in lowered for hint in _HINTS["missing-tool"]):
        return ""
    for line in _lines(_MISSING_TOOL, text, MULTILINE):
        if not is_generic(line):
            return _unprefixed(line)
    return ""


def _with_subject(text: str, line: str) -> str:
    """A line ending in a colon names its subject on the next line ("The following paths are
    ignored ...:" then the path): the two together, when the next line is short."""
    if not line.endswith(":"):
        return line
    at = text.find(line)
    rest = text[at + len(line) :].lstrip("\r\n").split("\n", 1)[0].strip() if at >= 0 else ""
    if rest and len(rest) <= 160 and not rest.lower().startswith(("hint:", "fatal:", "error")):
        return f"{line} {rest}"
    return line


def _lines(pattern: str, text: str, flags: int) -> list[str]:
    """The whole lines holding a match, in order, each once. Patterns name only the telling
    part: a leading ``^.*`` would make the engine backtrack over every line, and none
    crosses a line end (spaces and tabs, never any whitespace)."""
    out: list[str] = []
    for match in fastre.cached(pattern, flags).finditer(text):
        start = text.rfind("\n", 0, match.start()) + 1
        end = text.find("\n", match.end())
        line = text[start : end if end >= 0 else len(text)].strip()
        if line and (not out or out[-1] != line):
            out.append(line)
    return out


def _unprefixed(line: str) -> str:
    """Capture prefixes a tool's failure text with "Error: "; the line is what follows."""
    if line.startswith("Error: ") and not line.startswith("Error: Cannot find module"):
        rest = line[7:].strip()
        return rest if rest else line
    return line


hook_refusal = outputs.hook_refusal
POLL_TOOLS = outputs.POLL_TOOLS


def environment(text: str) -> str:
    """The environment pitfall a failure shows ("missing-tool", "port", ...), or ""."""
    kind, _line = failure(text)
    return kind if kind in ENVIRONMENT else ""


_DENIED_WORDS = ("proceed", "reject", "denied", "declined", "blocked", "not allowed", "approval",
                 "hook error")  # fmt: skip


def denied(text: str, *more: str) -> bool:
    """A tool call the user or a permission rule refused: said in ``text`` or in one of
    ``more`` (an observation's output and its summary, read in one pass: every command of a
    session asks). No word or pattern here crosses a line end, so the texts are read as the
    lines of one."""
    if more:
        text = "\n".join((text, *more))
    lowered = text.lower()
    for word in _DENIED_WORDS:  # the cheap test first: this runs on every command of a session
        if word in lowered:
            break
    else:
        return False
    return _has(
        r"doesn't want to proceed|user (?:rejected|denied|declined)|permission to use .* "
        r"(?:has been|was) (?:auto-)?denied|was blocked by|blocked by (?:a )?(?:hook|policy)"
        r"|not allowed to|requires approval|denied by|\bPreToolUse\b.{0,40}\bhook error\b",
        text,
    )
