"""A small MCP server for the tests, built on the ``mcp`` package alone (no geogap import): ``python
tests/tools/mcp_echo_server.py [--http PORT]``.

Tools: ``echo`` (its text back), ``great_circle_km`` (the haversine formula written out here, R = 6371 km: an
implementation independent of geocore's), ``sleep`` (answers after some seconds: a slow server) and ``exit_now``
(the process exits without answering: a dead server). With ``ECHO_PID_FILE`` set, each start appends its process
id to that file.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import sys

from mcp.server.fastmcp import FastMCP

server = FastMCP("echo-test-server", port=int(sys.argv[2]) if len(sys.argv) > 2 else 8000, log_level="WARNING")
server._mcp_server.version = "1.2.3"


@server.tool()
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@server.tool()
def great_circle_km(lat1: float, lon1: float, lat2: float, lon2: float) -> str:
    """Great-circle distance in km between two points (decimal degrees) on a sphere of radius 6371 km.
    Returns JSON {"km"}."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lon2 - lon1) / 2) ** 2
    return json.dumps({"km": round(2 * 6371.0 * math.asin(math.sqrt(h)), 3)})


@server.tool()
async def sleep(seconds: float) -> str:
    """Wait this many seconds, then say so (other calls are answered meanwhile)."""
    await asyncio.sleep(seconds)
    return f"slept {seconds} s"


@server.tool()
def exit_now() -> str:
    """End the server process at once, without answering."""
    print("echo-test-server: exiting on request", file=sys.stderr, flush=True)
    os._exit(3)


if __name__ == "__main__":
    if os.environ.get("ECHO_PID_FILE"):  # each start appends its process id: the tests count the starts
        with open(os.environ["ECHO_PID_FILE"], "a") as f:
            f.write(f"{os.getpid()}\n")
    server.run("streamable-http" if "--http" in sys.argv else "stdio")
