"""The compare CLI's input checks: one-line errors listing valid names, exit code 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from agents.providers import PROVIDERS
from evals.compare import main
from evals.store import RunStore


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--tasks", "gpsbench.nope"], "valid tasks: "),
        (["--tasks", "nothing.*"], "valid tasks: "),
        (["--condition", "intrinsic,magic"], "valid conditions: intrinsic"),
        (["--condition", "tools[nonexistent]"], "tool set 'nonexistent' is not available"),
        (["--model", "azure/gpt-4o"], "valid providers: anthropic, google, local, openai"),
        (["--model", "scripted/no_such_module:policy"], "scripted/no_such_module:policy: cannot load the policy"),
        (["--model", "scripted/json"], "name a function as scripted/<module>:<function>"),
        (["--model", "openai-compatible/x"], "--base-url"),
        (["--limit", "0"], "--limit"),
    ],
)
def test_bad_values_are_one_line_errors(argv: list[str], needle: str, capsys: pytest.CaptureFixture[str],
                                        tmp_path) -> None:
    assert main([*argv, "--output", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and needle in err and "\n" not in err
    assert not (tmp_path / "run").exists()  # nothing was started


def test_list_names_the_registered_providers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list"]) == 0
    out = capsys.readouterr().out
    for provider in PROVIDERS.names():
        assert f"  {provider}/...: " in out
    assert "  scripted/...: " in out


def tool_then_answer(messages: list[BaseMessage], tools: list[str]) -> AIMessage | str:
    """Calls ``distance_km`` once when tools are offered, then answers; without tools answers at once."""
    if "distance_km" in tools and not any(isinstance(m, ToolMessage) for m in messages):
        args = {"lat1": 0.0, "lon1": 0.0, "lat2": 0.0, "lon2": 1.0}
        return AIMessage("", tool_calls=[{"name": "distance_km", "args": args, "id": "c1"}])
    return "FINAL ANSWER: 111.2 km"


def test_the_scripted_provider_drives_a_whole_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = f"scripted/{__name__}:tool_then_answer"
    argv = ["--model", model, "--tasks", "gpsbench.distance", "--limit", "3", "--no-cache", "--output",
            str(tmp_path / "run")]
    assert main(argv) == 0
    with RunStore(tmp_path / "run", create=False) as store:
        results = list(store.results())
    assert len(results) == 6 and {r.model for r in results} == {model}
    for r in results:
        assert r.status == "ok" and r.final_text == "FINAL ANSWER: 111.2 km"
        assert [e.tool for e in r.trace if e.kind == "tool_call"] == (["distance_km"] if r.condition == "tools"
                                                                       else [])
    assert main(argv) == 0  # the same spec again: nothing left to do
    assert "(resuming: 0 of 6 to do)" in " ".join(capsys.readouterr().err.split())


def test_unknown_flag_is_argparse_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--no-such-flag"])
    assert exc.value.code == 2


def test_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list"]) == 0
    out = capsys.readouterr().out
    assert "gpsbench.distance" in out and "geodesy" in out and "tools[set1,set2]" in out and "local/" in out


def test_size_flag_validation_and_task_size(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    from evals.prepare import make_task
    from evals.specs import parse_size

    assert main(["--size", "big", "--output", str(tmp_path / "r")]) == 2
    assert "--size must be a number or 'paper'" in capsys.readouterr().err
    assert main(["--size", "5", "--output", str(tmp_path / "r")]) == 2
    assert parse_size("paper") == "paper" and parse_size("300") == 300 and parse_size(None) is None
    assert make_task("gpsbench.distance", "paper").size == 3400
    assert make_task("gpsbench.distance", 50).size == 50
    assert make_task("gpsbench.distance", None).size == 200
