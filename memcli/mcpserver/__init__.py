"""`mem mcp`: the memory as MCP tools, for assistants that pull Layers 2 and 3 themselves.

- :mod:`memcli.mcpserver.cache` keeps the persisted index open between tool calls;
- :mod:`memcli.mcpserver.service` does the work of each tool (no MCP SDK: plain values in,
  plain dicts out, :class:`memcli.errors.MemError` on bad arguments);
- :mod:`memcli.mcpserver.server` wires the service to the SDK's stdio server. Only it imports
  the ``mcp`` package, and only `mem mcp` imports it.
"""
