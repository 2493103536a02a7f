"""MCP servers in a run: from the configuration (``[mcp.NAME]`` tables, ``--mcp NAME=COMMAND``) to registered tool
sets (:mod:`tools.mcp_client`), their identity in the run spec and the model-call cache key, and the run
summary's line per server that failed calls.

``[mcp.NAME]`` keys: ``command`` and ``args`` (a stdio server), ``env`` (variables added to its environment) or
``url`` (a streamable-HTTP server), ``timeout_s`` (seconds per tool call, default 60) and ``startup_timeout_s``
(seconds to start, default 60). ``--mcp
NAME=COMMAND`` is a stdio server whose command line is split like a shell's, or a URL when COMMAND starts with
``http://`` or ``https://``; it overrides a table of the same name. A resumed run starts the servers its spec
names (env values, which are not stored, come from this call's configuration or the environment).
"""

from __future__ import annotations

import copy
import os
import shlex
import tomllib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agents.model_call import ModelCaller
from evals.options import UsageError
from evals.records import RunSpec, SampleResult
from tools.mcp_client import FAILURE_PREFIX, MCPServer, identity, register_servers, registered_servers


def parse_flag(text: str) -> MCPServer:
    """``NAME=COMMAND ARGS...`` or ``NAME=URL``; raises UsageError."""
    name, sep, command = text.partition("=")
    if not sep or not name.strip() or not command.strip():
        raise UsageError(f"--mcp {text!r}: write NAME=COMMAND (e.g. geo=python -m tools.mcp_server) or NAME=URL")
    if command.strip().startswith(("http://", "https://")):
        return _server({"name": name.strip(), "url": command.strip()}, f"--mcp {name}")
    try:
        words = shlex.split(command)
    except ValueError as exc:
        raise UsageError(f"--mcp {name}: {exc}") from None
    return _server({"name": name.strip(), "command": words[0], "args": words[1:]}, f"--mcp {name}")


def _server(entry: dict[str, Any], where: str) -> MCPServer:
    try:
        return MCPServer.model_validate(entry)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(map(str, first["loc"])) or "entry"
        raise UsageError(f"{where}: {field}: {first['msg']}") from None


def config_servers(path: Path | None) -> list[MCPServer]:
    """The ``[mcp.NAME]`` tables of a ``--config`` file (the file's other keys are :mod:`evals.options`')."""
    if path is None:
        return []
    try:
        tables = tomllib.loads(Path(path).read_text()).get("mcp", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"cannot read config {path}: {exc}") from None
    if not isinstance(tables, dict) or not all(isinstance(v, dict) for v in tables.values()):
        raise UsageError(f"{path}: mcp must be tables [mcp.NAME] with command/args/env or url")
    return [_server({"name": name, **entry}, f"{path} [mcp.{name}]") for name, entry in tables.items()]


def register(config: Path | None, flags: Sequence[str]) -> None:
    """Register the servers of ``config`` and ``flags`` (a flag wins over a table of the same name); raises
    UsageError for a bad entry, MCPServerError for a server that does not start."""
    servers = {s.name: s for s in config_servers(config)}
    servers.update({s.name: s for s in map(parse_flag, flags)})
    register_servers(list(servers.values()))


def spec_entries(toolsets: Iterable[str]) -> dict[str, dict[str, Any]]:
    """The run spec's ``mcp`` field: the identity of each MCP tool set among ``toolsets``."""
    servers = registered_servers()
    return {name: identity(name) for name in sorted(set(toolsets)) if name in servers}


def register_stored(spec: RunSpec) -> None:
    """Start the MCP servers a stored spec names that this call did not configure, and check that every one is
    the server the run used; raises UsageError or MCPServerError."""
    known = registered_servers()
    missing = []
    for name, entry in spec.mcp.items():
        if name not in known:
            env = {k: os.environ[k] for k in entry.get("env", []) if k in os.environ}
            fields = {k: entry[k] for k in ("command", "args", "url", "timeout_s") if entry.get(k) is not None}
            missing.append(_server({"name": name, **fields, "env": env}, f"the run's MCP server {name}"))
    register_servers(missing)
    for name, entry in spec.mcp.items():
        now = identity(name)
        if now != entry:
            diff = ", ".join(sorted(k for k in entry.keys() | now.keys() if entry.get(k) != now.get(k)))
            raise UsageError(f"MCP server {name!r} differs from the run being resumed (in {diff}); start a new "
                             "--output")


def with_identity(caller: ModelCaller, toolsets: Iterable[str]) -> ModelCaller:
    """``caller`` whose cache key also names the MCP servers among ``toolsets`` (the same tool schemas served by
    another server, or another version, are other calls); ``caller`` itself when there are none."""
    entries = spec_entries(toolsets)
    if not entries:
        return caller
    out = copy.copy(caller)
    out.identity = {**caller.identity, "mcp": entries}
    return out


def failure_lines(results: Iterable[SampleResult], spec: RunSpec) -> list[str]:
    """One line per MCP server of the run whose calls failed (dead, exited, too slow): how many, and the first
    reason."""
    failed: dict[str, list[str]] = {}
    for r in results:
        for e in r.trace:
            text = e.error or "" if e.kind == "tool_call" and e.status == "error" else ""
            for name in spec.mcp:
                if f"{FAILURE_PREFIX} {name!r}" in text:
                    failed.setdefault(name, []).append(text)
    lines = []
    for name, errors in failed.items():
        first = errors[0].split(f"{FAILURE_PREFIX} {name!r}", 1)[1].split("\n")[0].strip()
        lines.append(f"MCP server {name}: {len(errors)} tool call{'s' if len(errors) > 1 else ''} failed "
                     f"(first: {first[:200]})")
    return lines

