"""`mem mcp`: serve this repository's memory to an assistant over MCP (stdio)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from memcli.cli.common import handle_errors
from memcli.errors import MemError

# Claude Code passes the session's project folder to MCP servers in this variable; a
# user-scope plugin's server may otherwise start in the plugin's own folder.
PROJECT_ENV = "CLAUDE_PROJECT_DIR"
MCP_INSTALL_HINT = "mem mcp needs the MCP SDK: pip install 'memcli[mcp]'"


def server_root(root: Path | None) -> Path:
    """The repository to serve: ``--root``, else $CLAUDE_PROJECT_DIR, else the current folder."""
    from memcli.mcpserver.service import resolve_root

    if root is not None:
        if not root.is_dir():
            raise MemError(f"--root: {root} is not a folder")
        return resolve_root(root)
    project = os.environ.get(PROJECT_ENV)
    if project and Path(project).is_dir():
        return resolve_root(Path(project))
    return resolve_root(None)


@handle_errors
def mcp(
    root: Annotated[
        Path | None,
        typer.Option(help="The repository to serve (default: $CLAUDE_PROJECT_DIR, else here)."),
    ] = None,
) -> None:
    """Run the MCP server on stdio: memory_search, memory_get, memory_index, memory_add."""
    repo = server_root(root)
    if not (repo / ".memory").is_dir():
        typer.echo(
            f"mem: warning: no .memory/ in {repo}: tools will report it until `mem init`",
            err=True,
        )
    try:
        from memcli.mcpserver import server
    except ImportError:  # the SDK is the `mcp` extra (docs/dependencies.md)
        raise MemError(MCP_INSTALL_HINT) from None
    server.serve(repo)
