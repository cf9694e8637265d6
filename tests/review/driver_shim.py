"""Stand-in for `mem merge-driver` while the command is not registered in the installed `mem`
(the review tests prefer the real `mem` as soon as it knows the command)."""

import sys

from typer.testing import CliRunner

from memcli.cli import merge_driver_cmd

if __name__ == "__main__":
    import typer

    app = typer.Typer(add_completion=False)
    app.command("merge-driver")(merge_driver_cmd.merge_driver)
    app.command("unused")(lambda: None)  # two commands: Typer keeps the sub-command name
    result = CliRunner().invoke(app, sys.argv[1:])
    sys.stderr.write(result.stderr)
    sys.exit(result.exit_code)
