"""`mem hooks install | uninstall | show`: wire mem into an assistant's lifecycle hooks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from memcli import hooklauncher, hooks
from memcli.cli.common import handle_errors
from memcli.cli.conventions import MemCommand
from memcli.errors import EXIT_USAGE, MemError
from memcli.hookprogram import program
from memcli.paths import find_repo_root

app = typer.Typer(
    name="hooks",
    help="Install, remove or show mem's hooks in an assistant's settings file.",
    no_args_is_help=True,
)

AgentOption = Annotated[
    hooks.AgentName,
    typer.Option("--agent", help="The assistant whose hook settings to change."),
]
ScopeOption = Annotated[
    hooks.ScopeName,
    typer.Option(
        "--scope",
        help="project: the repository's settings, committed and shared; user: your own, "
        "for every repository.",
    ),
]

# What an assistant needs beyond its settings file before the hooks run.
AGENT_NOTES: dict[str, str] = {
    "codex": "Codex asks you to trust new hooks once (/hooks). Codex has no session-end "
    "event: a session is compacted when the next one starts.",
    "gemini": "Gemini CLI runs a project's hooks only in a trusted folder.",
    "cursor": "Cursor reads hooks.json when it starts: restart it or open a new agent window. "
    "The end-of-turn checkpoint asks only with checkpoint.mode: ask in .memory/config.yaml "
    "(its request shows in the chat as your next message).",
    "copilot": "Copilot cloud agent reads .github/hooks/ from the default branch: commit and "
    "merge it. Copilot CLI reads the working tree (and ~/.copilot/hooks/ for user scope).",
}


def _fail(exc: MemError) -> NoReturn:
    from memcli.cli import failure

    raise typer.Exit(failure.report(exc))


def _places(scope: str) -> tuple[Path, Path]:
    """The repository root (the current folder outside one, for user scope) and home."""
    cwd = Path.cwd()
    root = find_repo_root(cwd)
    if root is None and scope == "project":
        raise MemError("not inside a git repository", EXIT_USAGE)
    try:
        home = Path.home()
    except RuntimeError as exc:
        raise MemError("cannot tell your home folder: set HOME", EXIT_USAGE) from exc
    return root or cwd, home


def _recall_enabled(root: Path) -> bool:
    """The repository's ``recall.enabled`` (False without a store)."""
    from memcli import config
    from memcli.paths import StorePaths

    paths = StorePaths(root)
    if not paths.memory.is_dir():
        return False
    return bool(config.load(paths)["recall"]["enabled"])


def _shown(path: Path, scope: str, root: Path, home: Path) -> str:
    """The settings path as the user thinks of it: repo-relative or under ~."""
    base, prefix = (root, "") if scope == "project" else (home, "~/")
    try:
        return prefix + path.relative_to(base).as_posix()
    except ValueError:
        return str(path)


def _count(number: int) -> str:
    return f"{number} mem hook{'' if number == 1 else 's'}"


@app.command(cls=MemCommand)
def install(agent: AgentOption = "claude-code", scope: ScopeOption = "project") -> None:
    """Merge mem's hooks into the settings file, keeping everything else in it."""
    try:
        root, home = _places(scope)
        result = hooks.install(agent, scope, root, home, _recall_enabled(root), program())
    except MemError as exc:
        _fail(exc)
    if hooklauncher.upgrade():
        typer.echo(
            f"note: {hooklauncher.script_path()}, which the hooks run, now starts Python "
            "without its site module (a faster start on every tool call)",
            err=True,
        )
    shown = _shown(result.path, scope, root, home)
    if scope == "project" and not (root / ".memory").is_dir():
        typer.echo(
            f"note: {root} has no .memory/ yet, so these hooks do nothing until you run "
            "`mem init` (then commit .memory and .gitattributes)",
            err=True,
        )
    if not result.changed:
        typer.echo(f"mem hooks already installed in {shown}")
        return
    if not result.added:
        typer.echo(f"removed {_count(result.removed)} that mem no longer installs from {shown}")
    else:
        replaced = (
            f" (replaced {_count(result.removed)} of an older form)" if result.removed else ""
        )
        typer.echo(f"installed {_count(result.added)} into {shown}{replaced}")
    if agent in AGENT_NOTES:
        typer.echo(f"note: {AGENT_NOTES[agent]}", err=True)


@app.command(cls=MemCommand)
def uninstall(agent: AgentOption = "claude-code", scope: ScopeOption = "project") -> None:
    """Remove mem's own hooks from the settings file; other hooks stay as they are."""
    try:
        root, home = _places(scope)
        result = hooks.uninstall(agent, scope, root, home)
    except MemError as exc:
        _fail(exc)
    shown = _shown(result.path, scope, root, home)
    if not result.changed:
        typer.echo(f"no mem hooks in {shown}")
    elif result.deleted:
        typer.echo(f"removed {_count(result.removed)}: deleted {shown}, nothing else was in it")
    else:
        typer.echo(f"removed {_count(result.removed)} from {shown}")


@app.command(cls=MemCommand)
@handle_errors
def show(
    agent: AgentOption = "claude-code",
    scope: ScopeOption = "project",
    as_json: Annotated[
        bool, typer.Option("--json", help="Print only the JSON that install merges in.")
    ] = False,
) -> None:
    """Print the hooks mem installs for an assistant, and whether they are installed."""
    try:
        root, home = _places(scope)
        recall = _recall_enabled(root)
    except MemError as exc:
        if not as_json:
            _fail(exc)
        recall = False
    fragment = json.dumps(hooks.mem_hooks(agent, recall, program()), indent=2)
    if as_json:
        typer.echo(fragment)
        return
    try:
        state = hooks.status(agent, scope, root, home, recall, program())
    except MemError as exc:
        _fail(exc)
    shown = _shown(state.path, scope, root, home)
    if not state.exists:
        summary = "not installed (the file does not exist)"
    elif state.installed:
        summary = f"installed ({_count(state.present)})"
    elif state.present == 0 and state.other == 0:
        summary = "not installed"
    else:
        summary = f"partly installed ({state.present} of {_count(state.wanted)}"
        summary += f", {state.other} other)" if state.other else ")"
        summary += ": run `mem hooks install` to bring it up to date"
    typer.echo(f"{agent}, {scope} scope: {shown}: {summary}")
    typer.echo(fragment)
