"""`mem mcp` driven by the MCP SDK's own stdio client, as an assistant would drive it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from memcli import api

Scenario = Callable[[ClientSession], Awaitable[None]]


def server_args() -> list[str]:
    """`python -m memcli mcp`; until `mcp` is registered in the app, the command itself."""
    from memcli.cli.app import app

    names = {c.name or (c.callback.__name__ if c.callback else "") for c in app.registered_commands}
    if "mcp" in names:
        return ["-m", "memcli", "mcp"]
    return ["-c", "import typer; from memcli.cli.mcp_cmd import mcp; typer.run(mcp)"]


def drive(root: Path, scenario: Scenario) -> None:
    async def main() -> None:
        # The SDK passes the server only a few safe variables; keep the import path.
        env = {k: os.environ[k] for k in ("PYTHONPATH",) if k in os.environ}
        params = StdioServerParameters(
            command=sys.executable, args=server_args(), cwd=root, env=env
        )
        with open(root.parent / "server.stderr", "w") as errlog:  # read it when a test fails
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                with anyio.fail_after(60):
                    await scenario(session)

    anyio.run(main)


def payload(result: Any) -> Any:
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


@pytest.fixture
def store(repo: Path) -> dict[str, str]:
    memory = api.Memory.open(repo)
    port = memory.add(
        "pitfall",
        "Tests need Postgres on port 5433",
        "psycopg OperationalError in the test suite: the test database listens on 5433, "
        "not 5432. Export PGPORT=5433 before running pytest.",
        tags=["db", "tests"],
    )
    ruff = memory.add(
        "decision", "Lint with ruff, not flake8", "ruff covers isort and is much faster."
    )
    return {"port": port.id, "ruff": ruff.id}


def test_lists_the_five_tools_with_their_hints(repo: Path, store: dict[str, str]) -> None:
    seen: dict[str, Any] = {}

    async def scenario(session: ClientSession) -> None:
        for tool in (await session.list_tools()).tools:
            seen[tool.name] = tool

    drive(repo, scenario)
    assert set(seen) == {
        "memory_search",
        "memory_get",
        "memory_index",
        "memory_add",
        "memory_dismiss",
    }
    for name in ("memory_search", "memory_get", "memory_index"):
        assert seen[name].annotations.read_only_hint is True, name
    add = seen["memory_add"].annotations
    assert add.read_only_hint is False and add.destructive_hint is False
    schema = seen["memory_search"].input_schema
    assert schema["required"] == ["query"]
    assert {"query", "limit", "kind"} <= set(schema["properties"])
    assert set(seen["memory_add"].input_schema["required"]) == {"kind", "title", "body"}


def test_search_get_index_and_a_bad_id_on_one_live_server(
    repo: Path, store: dict[str, str]
) -> None:
    async def scenario(session: ClientSession) -> None:
        found = payload(await session.call_tool("memory_search", {"query": "postgres 5433"}))
        assert found["results"][0]["id"] == store["port"]
        assert "5433" in found["results"][0]["title"]

        item = payload(await session.call_tool("memory_get", {"id": store["port"]}))
        assert item["id"] == store["port"] and item["kind"] == "pitfall"
        assert "PGPORT=5433" in item["body"] and item["confidence"] == "assumed"

        bad = await session.call_tool("memory_get", {"id": "nosuchitem"})
        assert bad.is_error
        assert "no item with id 'nosuchitem'" in bad.content[0].text

        worse = await session.call_tool("memory_get", {"id": "../../etc/passwd"})
        assert worse.is_error and "invalid item id" in worse.content[0].text

        schema_error = await session.call_tool("memory_search", {"query": "x", "limit": "many"})
        assert schema_error.is_error

        # The server is still alive and answering after the errors.
        again = payload(await session.call_tool("memory_search", {"query": "ruff flake8"}))
        assert again["results"][0]["id"] == store["ruff"]

        index = payload(await session.call_tool("memory_index", {"budget": 300}))
        assert index["tokens"] <= 300 and index["shown"] == 2
        assert index["text"].startswith("<mem-context>") and store["port"] in index["text"]

    drive(repo, scenario)


def test_memory_add_masks_saves_assumed_and_is_found_at_once(
    repo: Path, store: dict[str, str]
) -> None:
    secret = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"

    async def scenario(session: ClientSession) -> None:
        payload(await session.call_tool("memory_search", {"query": "warm the index"}))
        added = payload(
            await session.call_tool(
                "memory_add",
                {
                    "kind": "env",
                    "title": "CI needs the GITHUB_TOKEN scope packages:read",
                    "body": f"Set GITHUB_TOKEN={secret} in CI secrets. <private>my notes</private>",
                    "tags": ["ci"],
                },
            )
        )
        assert added["confidence"] == "assumed" and added["kind"] == "env"
        assert secret not in added["body"] and "[REDACTED]" in added["body"]
        assert "my notes" not in added["body"]
        found = payload(await session.call_tool("memory_search", {"query": "GITHUB_TOKEN"}))
        assert [r["id"] for r in found["results"]] == [added["id"]]

        bad_kind = await session.call_tool(
            "memory_add", {"kind": "rumour", "title": "t", "body": "b"}
        )
        assert bad_kind.is_error and "kind" in bad_kind.content[0].text
        empty = await session.call_tool("memory_add", {"kind": "env", "title": "t", "body": " "})
        assert empty.is_error and "body" in empty.content[0].text

    drive(repo, scenario)
    files = list((repo / ".memory" / "items").glob("*.yaml"))
    assert len(files) == 3
    assert not any(secret in f.read_text() for f in files)


def loaded_modules(args: list[str]) -> tuple[set[str], str]:
    """Top-level modules a `python -m memcli ARGS` process imported, and its stdout."""
    probe = (
        "import sys, runpy, json, atexit\n"
        "atexit.register(lambda: sys.__stderr__.write('MODULES=' + json.dumps("
        "sorted({m.split('.')[0] for m in sys.modules})) + '\\n'))\n"
        f"sys.argv = ['mem', *{args!r}]\n"
        "try:\n    runpy.run_module('memcli', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    line = [x for x in result.stderr.splitlines() if x.startswith("MODULES=")]
    assert line, result.stderr
    return set(json.loads(line[-1][len("MODULES=") :])), result.stdout


@pytest.mark.parametrize("args", [["--help"], ["mcp", "--help"], ["eval", "--help"]])
def test_help_never_imports_the_mcp_sdk(args: list[str]) -> None:
    loaded, out = loaded_modules(args)
    assert "typer" in loaded and out.startswith(f"Usage: mem {args[0]}".replace(" --help", ""))
    # (Typer itself may load pydantic for a subcommand's help; the SDK stack must stay out.)
    assert not loaded & {"mcp", "mcp_types", "anyio", "starlette", "uvicorn", "httpx"}


def test_tools_only_kind_enum_and_one_line_argument_errors(
    repo: Path, store: dict[str, str]
) -> None:
    from memcli.kinds import KINDS
    from memcli.mcpserver.server import Kind

    seen: dict[str, Any] = {}

    async def scenario(session: ClientSession) -> None:
        init = await session.initialize()
        seen["capabilities"] = init.capabilities
        tools = {t.name: t for t in (await session.list_tools()).tools}
        seen["search_kind"] = tools["memory_search"].input_schema["properties"]["kind"]
        seen["add_kind"] = tools["memory_add"].input_schema["properties"]["kind"]
        for name, arguments in (
            ("limit", {"query": "x", "limit": "many"}),
            ("kind", {"query": "x", "kind": "rumour"}),
            ("query", {}),
        ):
            result = await session.call_tool("memory_search", arguments)
            assert result.is_error
            seen[name] = result.content[0].text

    drive(repo, scenario)
    assert seen["capabilities"].tools is not None
    assert seen["capabilities"].prompts is None and seen["capabilities"].resources is None
    assert seen["add_kind"]["enum"] == list(KINDS) == list(Kind.__args__)
    assert {"enum": list(KINDS), "type": "string"} in seen["search_kind"]["anyOf"]
    for name in ("limit", "kind", "query"):
        text = seen[name]
        assert f"memory_search: {name}: " in text, text
        assert "\n" not in text and "http" not in text and "type=" not in text, text
