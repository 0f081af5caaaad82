"""mcpparity-fastmcp-server: a small MCP server on FastMCP 4.x (`fastmcp`).

Three tools, in this order: `echo`, `fail` (a tool error, isError) and
`rpc_error` (a JSON-RPC error response, -32602).

Usage (from recorder/corpus/servers/python, after the install in README.md):
    .venv/bin/python fastmcp_server.py --stdio
    .venv/bin/python fastmcp_server.py --http 127.0.0.1:PORT     # Streamable HTTP at /mcp, SSE answers
    .venv/bin/python fastmcp_server.py --http 127.0.0.1:PORT --json   # the same, JSON answers

Only MCP messages go to stdout. FastMCP's banner is off; logging goes to
stderr at WARNING (uvicorn's access log is off).
"""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

from fastmcp import FastMCP
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools import Tool, ToolResult
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, TextContent

SERVER_NAME = "mcpparity-fastmcp-server"
SERVER_VERSION = "1.0.0"

# The input schemas the tools advertise, exactly as the other servers of the
# corpus do.
ECHO_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"message": {"type": "string"}},
    "required": ["message"],
}
NO_ARGS_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}

RPC_ERROR_MESSAGE = "rpc_error failed on purpose"


def echo(message: str) -> ToolResult:
    return ToolResult(content=[TextContent(type="text", text=message)])


def fail() -> ToolResult:
    # Returned rather than raised: a raised ToolError is an isError result
    # too, but FastMCP may rewrite (mask or prefix) its text.
    return ToolResult(content=[TextContent(type="text", text="the tool failed on purpose")], is_error=True)


def rpc_error() -> ToolResult:
    # Never reached over MCP: RpcErrorMiddleware answers the call first. Kept
    # so that the tool is listed (tools/list) and has a body.
    raise MCPError(code=INVALID_PARAMS, message=RPC_ERROR_MESSAGE)


class RpcErrorMiddleware(Middleware):
    """Answers `tools/call rpc_error` with a JSON-RPC error.

    FastMCP 4 turns every exception a tool body raises, an `MCPError`
    included (all codes but -32021), into an `isError` result. An `MCPError`
    raised by a middleware's `on_call_tool` hook, though, is not a FastMCP
    error: FastMCP's `tools/call` handler lets it through, and the SDK under it
    writes it as the JSON-RPC error of the request (code, message).
    """

    async def on_call_tool(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        if context.message.name == "rpc_error":
            raise MCPError(code=INVALID_PARAMS, message=RPC_ERROR_MESSAGE)
        return await call_next(context)


def _tool(fn: Any, description: str, schema: dict[str, Any]) -> Tool:
    # output_schema=None: no outputSchema and no structuredContent (FastMCP
    # would otherwise wrap a return value as {"result": ...}).
    tool = Tool.from_function(fn, name=fn.__name__, description=description, output_schema=None)
    # Advertise exactly the schema above. FastMCP still validates arguments
    # against the function signature (a bad `echo` call is an isError result).
    return tool.model_copy(update={"parameters": schema})


def build_server() -> FastMCP:
    server = FastMCP(
        SERVER_NAME,
        version=SERVER_VERSION,
        middleware=[RpcErrorMiddleware()],
        mask_error_details=False,
    )
    server.add_tool(_tool(echo, "Echoes its message.", ECHO_SCHEMA))
    server.add_tool(_tool(fail, "Always fails: returns a tool error (isError).", NO_ARGS_SCHEMA))
    server.add_tool(_tool(rpc_error, "Always fails: answers a JSON-RPC error.", NO_ARGS_SCHEMA))
    return server


def _host_port(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f"want HOST:PORT, got {value!r}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, int(port)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--stdio", action="store_true", help="serve MCP over stdin/stdout")
    group.add_argument("--http", type=_host_port, metavar="HOST:PORT", help="serve Streamable HTTP at http://HOST:PORT/mcp")
    parser.add_argument("--json", action="store_true", help="with --http: answer POSTs application/json, not text/event-stream")
    args = parser.parse_args(argv)
    if args.json and not args.http:
        parser.error("--json goes with --http")

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    server = build_server()
    if args.stdio:
        server.run(transport="stdio", show_banner=False, log_level="WARNING")
    else:
        host, port = args.http
        server.run(
            transport="http",
            show_banner=False,
            host=host,
            port=port,
            path="/mcp",
            # Explicit, so that FASTMCP_JSON_RESPONSE cannot change it.
            json_response=args.json,
            log_level="WARNING",
            uvicorn_config={"access_log": False},
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
