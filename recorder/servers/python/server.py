"""mcpparity-py-server: a small MCP server on the Python SDK `mcp` 2.x.

Built on the SDK's high-level server class (`mcp.server.mcpserver.MCPServer`,
the 2.x name of v1's FastMCP). Three tools: `echo`, `fail` (a tool error,
isError) and `rpc_error` (a JSON-RPC error response).

Usage:
    .venv/bin/python server.py --stdio
    .venv/bin/python server.py --http 127.0.0.1:PORT

Nothing but MCP traffic is written to stdout; logging goes to stderr and is
kept at WARNING.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, CallToolResult, TextContent

SERVER_NAME = "mcpparity-py-server"
SERVER_VERSION = "1.0.0"

# The input schemas the tools advertise, exactly. The SDK derives a schema from
# the function signature through pydantic, which adds "title" members
# ("echoArguments", "Message"); these replace it. Argument validation still runs
# through the SDK's pydantic model of the signature, which matches them.
ECHO_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"message": {"type": "string"}},
    "required": ["message"],
}
NO_ARGS_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


async def echo(message: str) -> str:
    return message


async def fail() -> CallToolResult:
    # Returned rather than raised: a raised ToolError becomes an isError result
    # too, but the SDK prefixes its text with "Error executing tool fail: ".
    return CallToolResult(content=[TextContent(type="text", text="the tool failed on purpose")], is_error=True)


async def rpc_error() -> CallToolResult:
    # MCPError passes through MCPServer's tool wrapper untouched and is written
    # as the JSON-RPC error of the tools/call (code, message), not as isError.
    raise MCPError(code=INVALID_PARAMS, message="rpc_error failed on purpose")


def _tool(fn: Any, description: str, schema: dict[str, Any]) -> Tool:
    # structured_output=False: no outputSchema, no structuredContent; plain text tools.
    tool = Tool.from_function(fn, name=fn.__name__, description=description, structured_output=False)
    tool.parameters = schema
    return tool


def build_server() -> MCPServer:
    tools = [
        _tool(echo, "Echoes its message.", ECHO_SCHEMA),
        _tool(fail, "Always fails: returns a tool error (isError).", NO_ARGS_SCHEMA),
        _tool(rpc_error, "Always fails: answers a JSON-RPC error.", NO_ARGS_SCHEMA),
    ]
    return MCPServer(
        SERVER_NAME,
        version=SERVER_VERSION,
        tools=tools,
        log_level="WARNING",
        # No subscriptions/listen method: at 2026-07-28 it would turn every
        # listChanged flag (and resources.subscribe) on in server/discover.
        subscriptions=False,
    )


def _parse_addr(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {value!r}")
    return host.strip("[]"), int(port)


def _exit_cleanly(signum: int, frame: Any) -> None:
    raise SystemExit(0)


def run_http(server: MCPServer, host: str, port: int) -> None:
    import uvicorn

    # Sessionless Streamable HTTP at /mcp, with the SDK's default answer
    # format (json_response=False).
    app = server.streamable_http_app(streamable_http_path="/mcp", stateless_http=True, host=host)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False, lifespan="on")
    # uvicorn shuts down gracefully on SIGTERM/SIGINT, then re-raises the signal
    # through the handler that was there before it; this one exits with 0.
    signal.signal(signal.SIGTERM, _exit_cleanly)
    signal.signal(signal.SIGINT, _exit_cleanly)
    uvicorn.Server(config).run()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--stdio", action="store_true", help="MCP over stdin/stdout (newline-delimited JSON-RPC)")
    mode.add_argument("--http", metavar="HOST:PORT", type=_parse_addr, help="sessionless Streamable HTTP at /mcp")
    args = parser.parse_args(argv)

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    server = build_server()
    if args.stdio:
        server.run("stdio")  # returns when stdin ends
    else:
        host, port = args.http
        run_http(server, host, port)
    return 0


if __name__ == "__main__":
    sys.exit(main())
