"""``python -m tools.mcp_server`` answers a plain MCP client (the ``mcp`` package's own) over stdio and streamable
HTTP with the tools geogap evaluates: the same names, descriptions and argument schemas the model reads in geogap,
the same results, and bad arguments refused with the reason."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from tools.registry import get_tools

pytest.importorskip("mcp")

from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

SETS = ["geodesy", "timezone"]
CALL = {"lat1": 48.8566, "lon1": 2.3522, "lat2": 40.7128, "lon2": -74.006}


async def _exercise(session: ClientSession) -> dict[str, Any]:
    init = await session.initialize()
    listed = (await session.list_tools()).tools
    good = await session.call_tool("distance_km", CALL)
    bad = await session.call_tool("distance_km", {**CALL, "lat1": 123.0})
    return {"init": init, "listed": listed, "good": good, "bad": bad}


def _check(found: dict[str, Any], sets: list[str]) -> None:
    builtin = get_tools(sets)
    assert found["init"].serverInfo.name == "geogap-tools"
    assert [t.name for t in found["listed"]] == [t.name for t in builtin]
    for served, own in zip(found["listed"], builtin, strict=True):
        assert served.description == own.description
        assert served.inputSchema == own.tool_call_schema  # what the model reads in geogap
    assert not found["good"].isError
    assert found["good"].content[0].text == get_tools(["geodesy"])[0].invoke(CALL)
    assert json.loads(found["good"].content[0].text)["distance_km"] == pytest.approx(5837.2, abs=0.1)
    assert found["bad"].isError and "less than or equal to 90" in found["bad"].content[0].text


def test_stdio_server_serves_the_tool_sets_as_geogap_offers_them() -> None:
    async def go() -> dict[str, Any]:
        params = StdioServerParameters(command=sys.executable, args=["-m", "tools.mcp_server", "--toolsets",
                                                                     ",".join(SETS)])
        async with stdio_client(params) as (r, w), ClientSession(r, w) as session:
            return await _exercise(session)

    _check(asyncio.run(go()), SETS)


@contextmanager
def serve_http(sets: str) -> Iterator[str]:
    """``python -m tools.mcp_server --toolsets SETS --http PORT`` on a free port, listening; yields its URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    proc = subprocess.Popen([sys.executable, "-m", "tools.mcp_server", "--toolsets", sets, "--http", str(port)],
                            stderr=subprocess.PIPE, text=True)
    try:
        while True:  # until the server listens (if it dies, the test fails here with its stderr)
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            try:
                with socket.create_connection(("127.0.0.1", port)):
                    break
            except OSError:
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait()


def test_http_server_serves_the_same_tools() -> None:
    async def go(url: str) -> dict[str, Any]:
        async with streamable_http_client(url) as (r, w, _), ClientSession(r, w) as session:
            return await _exercise(session)

    with serve_http("geodesy") as url:
        _check(asyncio.run(go(url)), ["geodesy"])


def test_an_unknown_tool_set_is_one_line_and_exit_code_2() -> None:
    done = subprocess.run([sys.executable, "-m", "tools.mcp_server", "--toolsets", "geodesy,nope"],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert done.stderr.startswith("error: tool set 'nope' is not available") and done.stderr.count("\n") == 1
