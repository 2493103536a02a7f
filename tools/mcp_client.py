"""Tool sets from MCP servers: a server named in the run's configuration becomes a tool set of its own.

A server is launched as a command (stdio) or reached at a URL (streamable HTTP). :func:`register_servers` starts
each one once to read its identity (``serverInfo`` name and version from the initialize result) and its tools,
stops it, and registers the tool set ``NAME`` whose LangChain tools carry the server's own names, descriptions and
argument schemas. During a run each event loop (the local executor's run, each Ray worker) holds **one persistent
session per server**, opened by the first tool call and closed by :func:`close_sessions` when the run ends; a call
never spawns a server of its own.

A server that is dead, exits, or does not answer a call within its ``timeout_s`` makes that call a
:class:`~langchain_core.tools.ToolException` (the model reads it as a tool error); a tool result flagged
``isError`` is one too. The message starts with :data:`FAILURE_PREFIX` and the server's name, so a run can count
its server failures from the trace. A dead session is not reopened within the run.

Not ``langchain-mcp-adapters``: its tools return lists of content blocks (geogap's tools return strings, and the
comparison with a built-in tool set must see the same text) and open a session per call unless given one.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import IO, TYPE_CHECKING, Any, TextIO

from langchain_core.tools import BaseTool, StructuredTool, ToolException
from pydantic import BaseModel, ConfigDict, Field, model_validator

if TYPE_CHECKING:  # the mcp package is an optional extra: imported where a server is started
    from mcp import ClientSession
    from mcp import types as mcp_types

from tools.registry import TOOLSETS, Toolset

FAILURE_PREFIX = "MCP server"
"""How every failure of a server (not of a tool's own validation) begins: ``MCP server 'NAME' ...``."""


CLOSE_TIMEOUT_S = 10.0
"""Seconds a session may take to close (a stdio server that ignores end-of-input is terminated after 2)."""


class MCPServerError(RuntimeError):
    """A server that could not be started or listed (one line: which server and why)."""


class MCPServer(BaseModel):
    """One ``[mcp.NAME]`` entry: a ``command`` with ``args`` and ``env`` (stdio), or a streamable-HTTP ``url``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_.-]*$", description="The tool set's name")
    command: str | None = Field(default=None, description="Executable that serves MCP on stdio")
    args: tuple[str, ...] = ()
    env: dict[str, str] = Field(default_factory=dict, description="Added to the server's environment (values "
                                "are not stored in the run spec)")
    url: str | None = Field(default=None, description="Streamable-HTTP endpoint, e.g. http://127.0.0.1:8000/mcp")
    timeout_s: float = Field(default=60.0, gt=0, allow_inf_nan=False, description="Seconds for each tool call")
    startup_timeout_s: float = Field(default=60.0, gt=0, allow_inf_nan=False,
                                     description="Seconds for the server to start and answer initialize")

    @model_validator(mode="after")
    def _one_transport(self) -> MCPServer:
        if (self.command is None) == (self.url is None):
            raise ValueError("give either command (a stdio server) or url (streamable HTTP), not both or neither")
        return self

    def launch(self) -> str:
        """How the server is reached: its command line, or its URL."""
        return self.url or " ".join([str(self.command), *self.args])


class Listing(BaseModel):
    """What a server said when it was started: its identity and its tools."""

    server_name: str
    server_version: str
    tools: list[dict[str, Any]] = Field(description="Each tool's name, description and inputSchema")


def _tail(log: IO[str] | None) -> str:
    """The last line the server wrote to stderr, for an error message."""
    if log is None or log.closed:
        return ""
    log.seek(0)
    lines = [line.strip() for line in log.read().splitlines() if line.strip()]
    return f" (its stderr: {lines[-1][:300]})" if lines else ""


@asynccontextmanager
async def open_session(server: MCPServer, errlog: TextIO) -> AsyncIterator[tuple[ClientSession,
                                                                                 mcp_types.InitializeResult]]:
    """An initialized session with ``server`` (its process started for stdio), closed on exit."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.client.streamable_http import streamable_http_client

    if server.command is not None:
        params = StdioServerParameters(command=server.command, args=list(server.args), env=dict(server.env) or None)
        transport: Any = stdio_client(params, errlog=errlog)
    else:
        transport = streamable_http_client(str(server.url))
    async with transport as streams, ClientSession(streams[0], streams[1]) as session:
        init = await session.initialize()
        yield session, init


async def _list(server: MCPServer) -> Listing:
    with tempfile.TemporaryFile("w+") as log:  # type: TextIO
        try:
            async with asyncio.timeout(server.startup_timeout_s), open_session(server, log) as (session, init):
                tools: list[dict[str, Any]] = []
                cursor: str | None = None
                while True:
                    page = await session.list_tools(cursor=cursor) if cursor else await session.list_tools()
                    tools.extend(t.model_dump(mode="json", include={"name", "description", "inputSchema"})
                                 for t in page.tools)
                    cursor = page.nextCursor
                    if not cursor:
                        break
        except BaseException as exc:  # noqa: BLE001 - any failure to start is one line
            if isinstance(exc, KeyboardInterrupt):
                raise
            raise MCPServerError(f"MCP server {server.name!r} ({server.launch()}) did not start: "
                                 f"{_describe(exc)}{_tail(log)}") from None
    return Listing(server_name=init.serverInfo.name, server_version=init.serverInfo.version, tools=tools)


def _describe(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:  # anyio task groups wrap what failed
        exc = exc.exceptions[0]
    if isinstance(exc, TimeoutError):
        return "no answer in time"
    return f"{type(exc).__name__}: {exc}".strip().rstrip(":")[:300]


_SERVERS: dict[str, tuple[MCPServer, Listing]] = {}
"""The MCP servers registered in this process, by tool-set name."""


def register_servers(servers: list[MCPServer]) -> None:
    """Start each server once, read its identity and tools, and register it as a tool set; raises
    MCPServerError (a server that does not start, or a name taken by another tool set). Registering the same
    server again is a no-op; another server under a name registered before replaces it."""
    for server in servers:
        if server.name in _SERVERS and _SERVERS[server.name][0] == server:
            continue
        if server.name in _SERVERS:  # configured anew in this process (another run): the new entry replaces it
            del _SERVERS[server.name]
            TOOLSETS.remove(server.name)
        if server.name in TOOLSETS:
            raise MCPServerError(f"MCP server {server.name!r}: that name is already a tool set; choose another")
        try:
            import mcp  # noqa: F401
        except ImportError:
            raise MCPServerError("MCP servers need the mcp package: pip install 'geogap[mcp]'") from None
        listing = asyncio.run(_list(server))
        _SERVERS[server.name] = (server, listing)
        names = ", ".join(t["name"] for t in listing.tools) or "no tools"
        description = (f"MCP server {listing.server_name} {listing.server_version} ({server.launch()}): {names}")
        TOOLSETS.add(server.name, Toolset(functools.partial(_tools, server, listing), description))


def registered_servers() -> dict[str, MCPServer]:
    """The MCP servers registered in this process, by tool-set name."""
    return {name: server for name, (server, _) in _SERVERS.items()}


def identity(name: str) -> dict[str, Any]:
    """What names MCP tool set ``name`` in a run spec and a model-call cache key: how it is launched (env
    variable names, not values), the server's name and version, and its tools' schemas' digest."""
    server, listing = _SERVERS[name]
    tools = json.dumps(listing.tools, sort_keys=True)
    return {"command": server.command, "args": list(server.args), "url": server.url, "env": sorted(server.env),
            "timeout_s": server.timeout_s, "server_name": listing.server_name,
            "server_version": listing.server_version, "tools_sha256": hashlib.sha256(tools.encode()).hexdigest()[:16]}


class _Session:
    """The persistent session of one server in one event loop: a background task opens it and holds it open
    until :meth:`close` (anyio needs one task to enter and leave the transport); calls come from any task."""

    def __init__(self, server: MCPServer) -> None:
        self.server = server
        self.session: ClientSession | None = None
        self.failure: str | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._log: IO[str] | None = None
        self._task = asyncio.get_running_loop().create_task(self._hold())

    async def _hold(self) -> None:
        with tempfile.TemporaryFile("w+") as log:  # type: TextIO
            self._log = log
            try:
                async with open_session(self.server, log) as (session, _):
                    self.session = session
                    self._ready.set()
                    await self._stop.wait()
            except BaseException as exc:  # noqa: BLE001 - recorded; every later call reports it
                if self.failure is None:
                    self.failure = f"{_describe(exc)}{_tail(log)}"
                if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                    raise
            finally:
                self.session = None
                self._ready.set()

    async def call(self, tool: str, args: dict[str, Any]) -> mcp_types.CallToolResult:
        name = self.server.name
        try:
            await asyncio.wait_for(asyncio.shield(self._ready.wait()), self.server.startup_timeout_s)
        except TimeoutError:
            raise ToolException(f"{FAILURE_PREFIX} {name!r} did not start within "
                                f"{self.server.startup_timeout_s:g} s") from None
        if self.session is None:
            raise ToolException(f"{FAILURE_PREFIX} {name!r} is not running ({self.failure or 'closed'})")
        try:
            return await self.session.call_tool(tool, args, timedelta(seconds=self.server.timeout_s))
        except Exception as exc:  # noqa: BLE001 - a dead or slow server is a tool error
            why = _describe(exc)
            if "Timed out" in why or isinstance(exc, TimeoutError):  # the session stays open
                why = f"no answer within {self.server.timeout_s:g} s"
            else:  # the connection is gone: later calls are refused at once
                self.failure = f"{why}{_tail(self._log)}"
                why = self.failure
                self.session = None
                self._stop.set()
            raise ToolException(f"{FAILURE_PREFIX} {name!r} failed on {tool}: {why}") from None

    async def close(self) -> None:
        """End the session: the stdio server gets end-of-input, then SIGTERM (the ``mcp`` client's shutdown)."""
        self._stop.set()
        try:
            await asyncio.wait_for(self._task, CLOSE_TIMEOUT_S)  # on timeout the holder is cancelled, and awaited
        except Exception:  # noqa: BLE001 - closing never fails the run
            pass


_SESSIONS: dict[tuple[int, str], _Session] = {}


def _session(server: MCPServer) -> _Session:
    """This event loop's session with ``server``, opened on first use."""
    key = (id(asyncio.get_running_loop()), server.name)
    if key not in _SESSIONS:
        _SESSIONS[key] = _Session(server)
    return _SESSIONS[key]


async def close_sessions() -> None:
    """Close every MCP session of the running event loop (their stdio servers exit)."""
    loop = id(asyncio.get_running_loop())
    for key in [k for k in _SESSIONS if k[0] == loop]:
        await _SESSIONS.pop(key).close()


def result_text(result: mcp_types.CallToolResult) -> str:
    """A tool result as the text the model reads: its text blocks joined (other blocks named by their type)."""
    return "".join(str(getattr(b, "text", "")) if b.type == "text" else f"[{b.type} content]" for b in result.content)


def _tools(server: MCPServer, listing: Listing) -> list[BaseTool]:
    def make(tool: dict[str, Any]) -> BaseTool:
        name = tool["name"]

        async def call(**args: Any) -> str:
            result = await _session(server).call(name, args)
            text = result_text(result)
            if result.isError:
                raise ToolException(text or f"{name} failed")
            return text

        return StructuredTool(name=name, description=tool.get("description") or "", args_schema=tool["inputSchema"],
                              coroutine=call, metadata={"mcp_server": server.name})

    return [make(t) for t in listing.tools]
