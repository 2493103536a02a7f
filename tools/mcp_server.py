"""``python -m tools.mcp_server``: geogap's tool sets served over MCP, for any MCP client.

``--toolsets geodesy,timezone`` chooses the tool sets (default: every built-in and installed one); the server
speaks MCP on stdio, or streamable HTTP on ``127.0.0.1:PORT/mcp`` with ``--http PORT``. Each tool keeps the name,
description and argument schema the model reads in geogap (the lean schema of :mod:`tools._common`), and its
arguments are validated by the same pydantic model; a bad call is an MCP tool error with the reason. The server
calls itself ``geogap-tools`` with geogap's version. Exit codes: 0 stopped, 2 bad arguments (an unknown tool set).
"""

from __future__ import annotations

import argparse
import sys
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from langchain_core.tools import BaseTool
from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.tools import Tool as FastMCPTool
from mcp.server.fastmcp.utilities.func_metadata import ArgModelBase, FuncMetadata
from pydantic import BaseModel, create_model

from tools.registry import UnknownToolsetError, get_tools, toolset_names

SERVER_NAME = "geogap-tools"


def server_version() -> str:
    try:
        return version("geogap")
    except PackageNotFoundError:  # a source tree that is not installed
        return "unknown"


def mcp_tool(tool: BaseTool) -> FastMCPTool:
    """``tool`` as an MCP tool: the schema the model reads in geogap, arguments validated by its pydantic model."""
    model = tool.args_schema
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise TypeError(f"{tool.name}: only tools with a pydantic argument model can be served")
    shown = tool.tool_call_schema  # a dict for geogap's lean tools, else a pydantic model
    schema = shown if isinstance(shown, dict) else model.model_json_schema()
    fields: dict[str, Any] = {n: (f.annotation, f) for n, f in model.model_fields.items()}
    arguments = create_model(f"{tool.name}_arguments", __base__=ArgModelBase, **fields)

    async def run(**args: Any) -> Any:
        return await tool.ainvoke(args)

    return FastMCPTool(fn=run, name=tool.name, title=None, description=tool.description, parameters=schema,
                       fn_metadata=FuncMetadata(arg_model=arguments), is_async=True, context_kwarg=None,
                       annotations=None)


def build_server(toolsets: list[str], port: int = 8000) -> FastMCP:
    """A FastMCP server with the tools of ``toolsets``; raises UnknownToolsetError for a name not registered."""
    server = FastMCP(SERVER_NAME, tools=[mcp_tool(t) for t in get_tools(toolsets)], port=port, log_level="WARNING")
    server._mcp_server.version = server_version()  # FastMCP takes no version; the low-level server does
    return server


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tools.mcp_server", description=__doc__.split("\n\n")[0])
    p.add_argument("--toolsets", default=None, help="comma-separated tool sets (default: all): "
                   + ", ".join(toolset_names()))
    p.add_argument("--http", type=int, default=None, metavar="PORT",
                   help="serve streamable HTTP on 127.0.0.1:PORT/mcp instead of stdio")
    args = p.parse_args(argv)
    sets = [s.strip() for s in (args.toolsets or ",".join(toolset_names())).split(",") if s.strip()]
    try:
        server = build_server(sets, port=args.http or 8000)
    except UnknownToolsetError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        server.run("streamable-http" if args.http else "stdio")
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
