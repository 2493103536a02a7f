"""MCP servers in the configuration: ``--mcp NAME=COMMAND`` and ``[mcp.NAME]`` tables become server entries, and a
bad entry is a one-line usage error (no server is started by these tests)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.compare import main
from evals.mcp import config_servers, parse_flag
from evals.options import UsageError, load_config
from tools.mcp_client import MCPServer


def test_a_flag_is_a_stdio_command_line_or_a_url() -> None:
    assert parse_flag("geo=python -m tools.mcp_server --toolsets 'geodesy,timezone'") == MCPServer(
        name="geo", command="python", args=("-m", "tools.mcp_server", "--toolsets", "geodesy,timezone"))
    assert parse_flag("remote=http://127.0.0.1:8000/mcp") == MCPServer(name="remote", url="http://127.0.0.1:8000/mcp")
    assert parse_flag("x=a b").launch() == "a b"


@pytest.mark.parametrize(("flag", "needle"), [
    ("geo", "write NAME=COMMAND"), ("=python", "write NAME=COMMAND"), ("geo=", "write NAME=COMMAND"),
    ("Geo Server=python", "--mcp Geo Server: name: String should match pattern"),
    ("geo=python 'unclosed", "--mcp geo: No closing quotation"),
])
def test_a_bad_flag_is_a_usage_error(flag: str, needle: str) -> None:
    with pytest.raises(UsageError, match=needle):
        parse_flag(flag)


def test_config_tables_are_servers_and_the_options_loader_skips_them(tmp_path: Path) -> None:
    path = tmp_path / "run.toml"
    path.write_text('limit = 2\n[mcp.geo]\ncommand = "python"\nargs = ["-m", "tools.mcp_server"]\nenv = {A = "1"}\n'
                    'timeout_s = 5\n[mcp.web]\nurl = "http://127.0.0.1:9/mcp"\n')
    assert config_servers(path) == [
        MCPServer(name="geo", command="python", args=("-m", "tools.mcp_server"), env={"A": "1"}, timeout_s=5),
        MCPServer(name="web", url="http://127.0.0.1:9/mcp")]
    assert load_config(path) == {"limit": 2}


@pytest.mark.parametrize(("table", "needle"), [
    ('[mcp.geo]\ncommand = "python"\nurl = "http://127.0.0.1:9/mcp"\n', "give either command"),
    ("[mcp.geo]\nargs = []\n", "give either command"),
    ('[mcp.geo]\ncommand = "python"\nport = 3\n', "port: Extra inputs are not permitted"),
    ('[mcp.geo]\ncommand = "python"\ntimeout_s = 0\n', "timeout_s: Input should be greater than 0"),
    ('mcp = "python"\n', "mcp must be tables"),
])
def test_a_bad_table_is_a_one_line_usage_error(table: str, needle: str, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "run.toml"
    path.write_text(table)
    assert main(["--config", str(path), "--list"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and needle in err and "\n" not in err
