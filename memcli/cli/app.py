"""The `mem` Typer application: one small module per command, registered here."""

from __future__ import annotations

import typer

from memcli import __version__
from memcli.cli import (
    add,
    capture_cmd,
    checkpoint_cmd,
    compact_cmd,
    conventions,
    diff_cmd,
    edit,
    eval_cmd,
    forget,
    hooks,
    import_cmd,
    init_cmd,
    lint,
    list_cmd,
    mcp_cmd,
    merge_driver_cmd,
    prune_cmd,
    retrieval,
    show,
    stats,
)

app = typer.Typer(
    name="mem",
    help="Persistent, git-native memory for AI coding assistants.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings=conventions.CONTEXT,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"mem {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Show the version."
    ),
) -> None:
    """Persistent, git-native memory for AI coding assistants."""


conventions.command(app, "init")(init_cmd.init)
conventions.command(app, "capture", context_settings=capture_cmd.SETTINGS)(capture_cmd.capture)
conventions.command(app, "checkpoint", context_settings=capture_cmd.SETTINGS)(
    checkpoint_cmd.checkpoint
)
conventions.command(app, "add")(add.add)
conventions.command(app, "show")(show.show)
conventions.command(app, "list")(list_cmd.list_items)
conventions.command(app, "edit")(edit.edit)
conventions.command(app, "forget")(forget.forget)
conventions.command(app, "lint")(lint.lint)
conventions.command(app, "stats")(stats.stats)
conventions.command(app, "search")(retrieval.search)
conventions.command(app, "index")(retrieval.index)
conventions.command(app, "recall")(retrieval.recall)
conventions.command(app, "reindex")(retrieval.reindex)
conventions.command(app, "log")(retrieval.log)
conventions.command(app, "compact")(compact_cmd.compact)
conventions.command(app, "import")(import_cmd.import_)
conventions.command(app, "mcp")(mcp_cmd.mcp)
conventions.command(app, "eval")(eval_cmd.eval_)
conventions.command(app, "diff")(diff_cmd.diff)
conventions.command(app, "prune")(prune_cmd.prune)
conventions.command(app, "merge-driver")(merge_driver_cmd.merge_driver)
app.add_typer(hooks.app)


def run(argv: list[str]) -> int:
    """Run the CLI with ``argv``; returns the exit code (click handles usage errors: 2)."""
    import sys

    from memcli import progress
    from memcli.cli import progress_bar

    command = typer.main.get_command(app)
    bar = progress_bar.install(argv, sys.stderr.isatty())
    try:
        command.main(args=argv, prog_name="mem", standalone_mode=True)
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    finally:
        if bar is not None:
            bar.stop()
            progress.install(None)
    return 0
