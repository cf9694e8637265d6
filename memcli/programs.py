"""What mem knows of programs by name, shared by the Stop checkpoint (a hook command: plain
sets, no imports) and the compactor.

``MULTI``: programs whose first argument names the job (`npm test`, `cargo build`, `opkg
remove`, `systemctl restart`): two runs of one of them are the same command only with the same
verb, so `opkg install x` failing and `opkg remove y` passing is no fix.
"""


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


MULTI = _set(
    """npm pnpm yarn bun cargo go make dotnet mvn gradle gradlew docker docker-compose podman
    kubectl helm git gh just deno rake mix swift bazel tox nox hatch pdm poetry uv pip pip3
    pipx composer conda mamba brew apt apt-get dnf yum zypper apk pacman opkg snap flatpak
    winget choco systemctl service launchctl uci terraform"""
)


def without_comments(command: str) -> str:
    """A shell command line without its comment lines (``# run the suite`` above the command
    an agent runs): a line whose first word starts with ``#`` never ran, and read as words it
    made ``#`` the program."""
    if "#" not in command:
        return command
    return "\n".join(line for line in command.splitlines() if not line.lstrip().startswith("#"))
