"""The light dispatcher: `mem index`, `mem recall`, `mem search` and `mem reindex` without
importing Typer.

Typer and Rich cost several times a bare Python start; these commands run at every session
start and prompt, and search is measured against a one-shot SQLite script. The parser here
accepts only plain, valid invocations; anything else (``--help``, an unknown option, a
missing value) returns None and the Typer application handles it, so help texts and usage
errors have one source.
"""

from __future__ import annotations

FLAGS: dict[str, dict[str, type]] = {
    "index": {
        "--budget": int,
        "--format": str,
        "--agent": str,
        "--project": str,
        "--all-projects": bool,
        "--strict": bool,
    },
    "recall": {"--budget": int, "--agent": str, "--strict": bool},
    "reindex": {},
    # memcli.cli.store_commands
    "lint": {"--json": bool},
    "stats": {"--json": bool},
    "list": {"--json": bool, "--kind": str},
    "search": {
        "--limit": int,
        "--kind": str,
        "--project": str,
        "--all-projects": bool,
        "--json": bool,
    },
}


def parse(command: str, args: list[str]) -> dict[str, object] | None:
    """Options and positionals of a plain invocation; None when Typer should take over."""
    spec = FLAGS[command]
    options: dict[str, object] = {}
    positional: list[str] = []
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg == "--":
            positional += rest
            break
        if not arg.startswith("-") or arg == "-":
            positional.append(arg)
            continue
        name, eq, value = arg.partition("=")
        kind = spec.get(name)
        if kind is None:
            return None
        if kind is bool:
            if eq:
                return None
            options[name] = True
            continue
        if not eq:
            if not rest:
                return None
            value = rest.pop(0)
        if kind is int:
            if not value.lstrip("-").isdigit():
                return None
            options[name] = int(value)
        else:
            options[name] = value
    options["positional"] = positional
    return options


def refuse(command: str, args: list[str]) -> int:
    """Arguments a hook command cannot parse: it still fails open (exit 0, reason logged),
    because an exit 2 from a prompt hook would block the user's prompt."""
    from memcli.cli import retrieval_cmds as cmds
    from memcli.errors import MemError

    problem = MemError(f"cannot parse the arguments {' '.join(args)!r}; see `mem {command} --help`")
    return cmds.hook_failed(command, problem, "--strict" in args)


def run(command: str, args: list[str]) -> int | None:
    options = parse(command, args)
    if options is None:
        return None
    from memcli.cli import retrieval_cmds as cmds

    def text(name: str) -> str | None:
        value = options.get(name)
        return value if isinstance(value, str) else None

    def number(name: str) -> int | None:
        value = options.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    positional = options["positional"]
    assert isinstance(positional, list)
    if command == "search":
        limit = number("--limit")
        if len(positional) != 1:
            return None
        return cmds.run_search(
            positional[0],
            limit=10 if limit is None else limit,
            kind=text("--kind"),
            project=text("--project"),
            all_projects=bool(options.get("--all-projects")),
            as_json=bool(options.get("--json")),
        )
    if positional:
        return None
    if command == "reindex":
        import sys

        from memcli.cli import progress_bar

        bar = progress_bar.install([command], sys.stderr.isatty())
        try:
            return cmds.run_reindex()
        finally:
            if bar is not None:
                bar.stop()
    if command == "index":
        return cmds.run_index(
            number("--budget"),
            text("--format") or "text",
            text("--agent"),
            text("--project"),
            bool(options.get("--all-projects")),
            bool(options.get("--strict")),
        )
    return cmds.run_recall(number("--budget"), text("--agent"), bool(options.get("--strict")))
