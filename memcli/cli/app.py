"""The `mem` Typer application: one small module per command, registered here."""

from __future__ import annotations

import typer

from memcli import __version__
from memcli.cli import (
    add,
    capture_cmd,
    checkpoint_cmd,
    compact_cmd,
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


app.command("init")(init_cmd.init)
app.command("capture", context_settings=capture_cmd.SETTINGS)(capture_cmd.capture)
app.command("checkpoint", context_settings=capture_cmd.SETTINGS)(checkpoint_cmd.checkpoint)
app.command("add")(add.add)
app.command("show")(show.show)
app.command("list")(list_cmd.list_items)
app.command("edit")(edit.edit)
app.command("forget")(forget.forget)
app.command("lint")(lint.lint)
app.command("stats")(stats.stats)
app.command("search")(retrieval.search)
app.command("index")(retrieval.index)
app.command("recall")(retrieval.recall)
app.command("reindex")(retrieval.reindex)
app.command("log")(retrieval.log)
app.command("compact")(compact_cmd.compact)
app.command("import")(import_cmd.import_)
app.command("mcp")(mcp_cmd.mcp)
app.command("eval")(eval_cmd.eval_)
app.command("diff")(diff_cmd.diff)
app.command("prune")(prune_cmd.prune)
app.command("merge-driver")(merge_driver_cmd.merge_driver)
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
