"""The command a remote, container or nested shell runs: ``ssh host "opkg remove x"`` runs
``opkg remove x``; ``docker exec -it web pytest`` runs ``pytest``; ``kubectl exec pod -- env``
runs ``env``; ``powershell.exe -Command "cd C:\\x; git commit"`` and ``bash -lc "make test"``
run what they are given.

The rules that compare commands (which program, which flags were added, is it the same job)
read the command that does the work, not the wrapper: without this every command of a session
run over ``ssh`` is "the `ssh` command", and two unrelated remote commands look like one
command run with other options. Shared by the Stop checkpoint (a hook command: no :mod:`re`,
no :mod:`shlex`) and the compactor.
"""

# Options of each wrapper that take a value (`ssh -i key -p 22 host cmd`).
_SSH_VALUED = frozenset(("-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m",
                         "-O", "-o", "-p", "-Q", "-R", "-S", "-W", "-w"))  # fmt: skip
_DOCKER_VALUED = frozenset(("-e", "--env", "--env-file", "-u", "--user", "-w", "--workdir",
                            "--detach-keys"))  # fmt: skip

_POWERSHELL_VALUED = frozenset(
    (
        "-executionpolicy",
        "-ep",
        "-ex",
        "-windowstyle",
        "-w",
        "-outputformat",
        "-inputformat",
        "-configurationname",
    )
)
_SHELLS = frozenset(("bash", "sh", "zsh", "dash", "ksh", "fish"))


def remote_command(command: str) -> str:
    """The command ``command`` runs on the other side of ``ssh``, ``docker exec``, ``docker
    compose exec`` or ``kubectl exec``, or ``""`` when it is none of these (or an interactive
    login: no command)."""
    head = command.lstrip()[:11].lower()
    if not head.startswith(
        (
            "ssh ",
            "docker ",
            "kubectl ",
            "podman ",
            "powershell",
            "pwsh",
            "bash ",
            "sh ",
            "zsh ",
            "cmd",
            "dash ",
            "ksh ",
            "fish ",
        )
    ):
        return ""  # the cheap test almost every command stops at
    tokens = _tokens(command)
    words = [word for word, _start, _end in tokens]
    program = words[0].replace("\\", "/").rsplit("/", 1)[-1].lower().removesuffix(".exe")
    if program in ("powershell", "pwsh"):
        at = _powershell_command(words)
    elif program in _SHELLS:
        # `bash -c "make test"`, `bash -lc '...'`: the string after the option holding `c`
        at = next((n + 1 for n, w in enumerate(words[1:3], 1)
                   if w.startswith("-") and not w.startswith("--") and "c" in w), 0)  # fmt: skip
        if not at:
            return ""  # `bash script.sh`: a script, read as it is
    elif program == "cmd":
        at = next((n + 1 for n, w in enumerate(words[1:4], 1) if w.lower() in ("/c", "/k")), 0)
        if not at:
            return ""
    elif words[0] == "ssh":
        at = _after_options(words, 1, _SSH_VALUED)
        at += 1  # the host
    elif words[0] in ("docker", "podman") and words[1:2] == ["exec"]:
        at = _after_options(words, 2, _DOCKER_VALUED) + 1  # the container
    elif words[0] in ("docker", "podman") and words[1:3] == ["compose", "exec"]:
        at = _after_options(words, 3, _DOCKER_VALUED) + 1  # the service
    elif words[0] == "kubectl" and words[1:2] == ["exec"]:
        if "--" not in words:
            return ""  # the old form without `--` is too ambiguous to read
        at = words.index("--") + 1
    else:
        return ""
    if not 0 < at < len(tokens):
        return ""
    word, start, end = tokens[at]
    raw = command[start:end]
    if at == len(tokens) - 1 or _quoted(raw):
        return word.strip()  # `ssh host "a && b"`: the quoted command, not a local pipe after it
    return command[start:].strip()


def innermost(command: str) -> str:
    """The command that does the work, through nested wrappers (``ssh h "bash -c 'make'"``
    is ``make``); ``command`` itself when it has none."""
    for _depth in range(4):
        inner = remote_command(command)
        if not inner or len(inner) >= len(command):
            break
        command = inner
    return command


def _powershell_command(words: list[str]) -> int:
    """Where ``-Command`` (``-c``) starts its command, past the options before it; 0 when
    there is none (``-File script.ps1``: a script)."""
    at = 1
    while at < len(words) and words[at].startswith("-"):
        option = words[at].lower()
        if option in ("-command", "-c"):
            return at + 1
        if option in ("-file", "-f", "-encodedcommand", "-enc", "-e"):
            return 0
        at += 2 if option in _POWERSHELL_VALUED else 1
    return at if 1 < at < len(words) else 0  # `powershell -NoProfile Get-Process` (implicit)


def _after_options(words: list[str], at: int, valued: frozenset[str]) -> int:
    while at < len(words) and words[at].startswith("-") and words[at] != "--":
        at += 2 if words[at] in valued else 1
    return at + 1 if at < len(words) and words[at] == "--" else at


def _quoted(raw: str) -> bool:
    return len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\""


_ESCAPED = ("$", "`", '"', "\\", "\n")  # what a backslash escapes inside double quotes


def _tokens(command: str) -> list[tuple[str, int, int]]:
    """Shell words with their spans: whitespace splits, quotes group (and are dropped from
    the word), a backslash escapes the next character. Enough to find a wrapper's command."""
    out: list[tuple[str, int, int]] = []
    word: list[str] = []
    start = -1
    quote = ""
    index = 0
    while index < len(command):
        char = command[index]
        if quote:
            if char == quote:
                quote = ""
            elif char == "\\" and quote == '"' and command[index + 1 : index + 2] in _ESCAPED:
                index += 1
                word.append(command[index])
            else:
                word.append(char)
        elif char in " \t\n":
            if start >= 0:
                out.append(("".join(word), start, index))
                word, start = [], -1
        else:
            if start < 0:
                start = index
            if char in "'\"":
                quote = char
            elif char == "\\" and index + 1 < len(command):
                index += 1
                word.append(command[index])
            else:
                word.append(char)
        index += 1
    if start >= 0:
        out.append(("".join(word), start, len(command)))
    return out
