"""The geogap-network plug-in: its module, named in the ``geogap`` entry-point group, registers the tool set;
thin over geocore, errors the model can read, a full ``evals.compare`` run over ``gtr.*`` in both conditions, and
a clear error (with the rest of the product still working) when the plug-in is absent."""

from __future__ import annotations

import asyncio
import json
import re
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, ToolMessage
from pydantic import ValidationError

import evals.compare as compare_cli
import tools.registry as registry
from agents.scripted import ScriptedChatModel
from agents.tool_agent import ToolAgent
from evals.conditions import get_condition
from evals.store import RunStore
from geocore.networks import build_network
from tasks import get_task
from tasks.records import Message

NET = "outdoor-017-4821"
TOOL_NAMES = {"shortest_path", "path_length", "cameras_on_path", "travel_time", "arrival_window", "camera_neighbours"}
ROOT = Path(__file__).resolve().parents[2]


def tools() -> dict:
    return {t.name: t for t in registry.get_toolset("network")}


def test_entry_point_is_declared_and_loaded() -> None:
    eps = {ep.name: ep.value for ep in entry_points(group="geogap")}
    assert eps.get("network") == "geogap_network", "pip install -e plugins/geogap-network"
    assert set(tools()) == TOOL_NAMES
    assert "network" in registry.toolset_names()
    assert "shortest paths" in registry.describe_toolsets()["network"]


def test_tool_docstrings_state_units_and_shapes() -> None:
    for t in tools().values():
        schema = t.args_schema.model_json_schema()
        assert "network_id" in schema["properties"]
        assert "Returns JSON" in t.func.__doc__ and "Returns JSON" not in t.description
    assert "m/s" in json.dumps(tools()["travel_time"].args_schema.model_json_schema())
    assert "metres" in tools()["path_length"].description


def test_tools_are_thin_wrappers_over_geocore() -> None:
    t = tools()
    net = build_network(NET)
    a, b = net.area_cameras(1)[0], net.area_cameras(1)[-1]
    path, length = net.shortest_path(a, b)
    assert json.loads(t["shortest_path"].invoke({"network_id": NET, "from_camera": a, "to_camera": b})) == {
        "cameras": path, "length_m": length}
    assert json.loads(t["path_length"].invoke({"network_id": NET, "cameras": path}))["length_m"] == length
    tt = json.loads(t["travel_time"].invoke({"network_id": NET, "cameras": [a, b], "speed_mps": 12.5}))
    assert tt["cameras"] == path and tt["seconds"] == pytest.approx(length / 12.5, abs=0.005)
    legs = json.loads(t["cameras_on_path"].invoke({"network_id": NET, "cameras": [a, b]}))
    assert [c["camera"] for c in legs["cameras"]] == path and legs["length_m"] == length
    assert legs["cameras"][0]["heading_deg"] == net.bearing_deg(path[0], path[1])
    win = json.loads(t["arrival_window"].invoke({"network_id": NET, "cameras": [a, b], "depart_time_s": 100.0,
                                                 "min_speed_mps": 10.0, "max_speed_mps": 12.5}))["cameras"][-1]
    assert win["pass_earliest_s"] == pytest.approx(100 + length / 12.5, abs=0.005)
    assert win["seen_until_s"] == pytest.approx(100 + (length + 40) / 10, abs=0.005)
    nb = json.loads(t["camera_neighbours"].invoke({"network_id": NET, "camera": a.lower()}))["neighbours"]
    assert [(n["camera"], n["length_m"], n["bearing_deg"]) for n in nb] == net.neighbours(a)


@pytest.mark.parametrize(
    ("name", "args", "needle"),
    [
        ("shortest_path", {"network_id": "street-1", "from_camera": "C100", "to_camera": "C101"}, "network_id"),
        ("camera_neighbours", {"network_id": NET, "camera": "C000"}, "C000"),
        ("path_length", {"network_id": NET, "cameras": ["C000"]}, "cameras"),
        ("travel_time", {"network_id": NET, "cameras": ["C100", "C101"], "speed_mps": -3}, "speed_mps"),
        ("arrival_window", {"network_id": NET, "cameras": ["C100", "C101"], "depart_time_s": 0,
                            "min_speed_mps": 5, "max_speed_mps": 2}, "min_speed_mps"),
    ],
)
def test_bad_arguments_raise(name: str, args: dict, needle: str) -> None:
    net = build_network(NET)
    args = {k: ([net.area_cameras(1)[0], net.area_cameras(1)[1]] if v == ["C100", "C101"] else v)
            for k, v in args.items()}
    with pytest.raises((ValueError, ValidationError), match=needle):
        tools()[name].invoke(args)


def test_agent_gets_a_readable_error_for_a_camera_of_the_other_area() -> None:
    net = build_network(NET)
    a, z = net.area_cameras(1)[0], net.area_cameras(2)[0]
    model = ScriptedChatModel(script=[
        AIMessage("", tool_calls=[{"name": "shortest_path", "id": "x",
                                   "args": {"network_id": NET, "from_camera": a, "to_camera": z}}]),
        "FINAL ANSWER: A"])
    res = asyncio.run(ToolAgent(model, registry.get_toolset("network")).run(
        [Message(role="user", content="Route?")]))
    err = next(e for e in res.trace if e.kind == "tool_call")
    assert err.status == "error" and "different areas" in err.error
    assert isinstance(model.calls[-1][-1], ToolMessage) and model.calls[-1][-1].status == "error"


def policy(messages, offered):
    """Intrinsic: answer A. Tools: look up the first camera of the question, then answer A."""
    if not offered:
        return "FINAL ANSWER: A"
    if any(isinstance(m, ToolMessage) for m in messages):
        return "FINAL ANSWER: A"
    prompt = next(m.content for m in messages if m.type == "human")
    net = re.search(r"Network id: (\S+)", prompt).group(1)
    cam = re.search(r"C\d{3}", prompt.split("\n\n", 1)[1]).group(0)
    return AIMessage("", tool_calls=[{"name": "camera_neighbours", "id": "n1",
                                      "args": {"network_id": net, "camera": cam}}])


def test_compare_runs_gtr_in_both_conditions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    argv = ["--tasks", "gtr.*", "--condition", "intrinsic,tools", "--limit", "1", "--model", f"scripted/{__name__}:policy",
            "--output", str(out)]
    assert compare_cli.main(argv) == 0
    printed = capsys.readouterr().out
    with RunStore(out, create=False) as store:
        results = list(store.results())
    assert len(results) == 14 and {r.condition for r in results} == {"intrinsic", "tools"}
    for r in results:
        assert r.task.startswith("gtr.") and r.status != "error"
        calls = [e for e in r.trace if e.kind == "tool_call"]
        if r.condition == "tools":
            assert [e.tool for e in calls] == ["camera_neighbours"] and calls[0].status == "ok"
            assert set(r.trace[0].tools_offered or []) == TOOL_NAMES
        else:
            assert not calls
    assert "gtr.next_spot" in printed


@pytest.fixture
def without_plugin(monkeypatch: pytest.MonkeyPatch) -> None:
    """The registry as it is when the geogap-network distribution is not installed."""
    registry.toolset_names()  # built-ins and plug-ins loaded; then the network tool set is taken away
    monkeypatch.setattr(registry.TOOLSETS, "_entries",
                        {k: v for k, v in registry.TOOLSETS._entries.items() if k != "network"})


@pytest.mark.usefixtures("without_plugin")
def test_missing_plugin_names_the_tool_set_and_the_rest_works(capsys: pytest.CaptureFixture[str],
                                                              tmp_path: Path) -> None:
    assert "network" not in registry.toolset_names()
    with pytest.raises(registry.UnknownToolsetError, match="'network' is not available"):
        get_condition("tools").check(get_task("gtr.next_spot"))
    code = compare_cli.main(["--tasks", "gtr.*", "--condition", "intrinsic,tools", "--output", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert code == 2 and "tool set 'network' is not available" in err and "'geogap' entry-point group" in err
    assert not (tmp_path / "r").exists()
    get_condition("tools").check(get_task("gpsbench.distance"))  # other tasks keep their tools
    get_task("gtr.next_spot", size=2).generate(seed=1, size=2)  # GTR tasks still generate, intrinsic works


def test_product_code_never_imports_the_plugin() -> None:
    for pkg in ("agents", "evals", "geocore", "tasks", "tools"):
        for path in (ROOT / pkg).rglob("*.py"):
            assert "geogap_network" not in path.read_text(), path
