"""evals.api outside a notebook: a run returns its result instead of exiting, bad input raises RunError with the
CLI's exit code, a chat model object runs with no cache under its own label, and it works under a running loop."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, BaseMessage

from agents.scripted import ScriptedChatModel
from evals import api
from evals.export import COLUMNS


def always_111_km(messages: list[BaseMessage], tools: list[str]) -> AIMessage | str:
    return "FINAL ANSWER: 111.2 km"


def test_a_run_returns_its_result(tmp_path: Path) -> None:
    model = ScriptedChatModel(script=always_111_km)
    result = api.run(model, tasks=["gpsbench.distance"], limit=2, conditions="intrinsic", output=str(tmp_path / "r"))
    assert result.complete and result.failed == 0 and result.spec.model == "python/ScriptedChatModel"
    assert result.spec.cache is False and result.report["meta"]["cost_usd"] is None  # no price for an object
    assert result.tasks[0].conditions["intrinsic"].n == 2 and "gpsbench.distance" in result.table
    df = result.frame()
    assert list(df.columns) == COLUMNS and len(df) == 2 and set(df["model"]) == {"python/ScriptedChatModel"}
    assert len(model.calls) == 2  # the object itself answered
    again = api.run(model, tasks=["gpsbench.distance"], limit=2, conditions="intrinsic", output=str(tmp_path / "r"))
    assert len(model.calls) == 2 and again.run_id == result.run_id  # the same spec again: resumed, nothing to do


def test_labels_and_bad_options(tmp_path: Path) -> None:
    model = ScriptedChatModel(script=always_111_km)
    assert api.object_label(model) == "python/ScriptedChatModel"
    assert api.object_label(model, "my-model") == "python/my-model"
    with pytest.raises(api.RunError, match="without the model-call cache") as exc:
        api.run(model, cache=True)
    assert exc.value.code == 2
    with pytest.raises(api.RunError, match="only the local executor"):
        api.run(model, executor="ray")
    with pytest.raises(api.RunError, match="option 'max_stepz'") as exc:
        api.run("scripted/tests.evals.test_api:always_111_km", max_stepz=3)
    assert exc.value.code == 2
    with pytest.raises(api.RunError, match="--limit must be >= 1"):
        api.run(model, tasks="gpsbench.distance", limit=0, output=str(tmp_path / "x"))
    assert not (tmp_path / "x").exists()


def test_it_runs_under_a_running_event_loop(tmp_path: Path) -> None:
    async def inside() -> api.RunResult:
        asyncio.get_running_loop()  # asyncio.run() here would refuse: the API must not call it on this thread
        return api.run("scripted/tests.evals.test_api:always_111_km", tasks="gpsbench.distance", limit=1,
                       conditions="intrinsic", output=str(tmp_path / "loop"))

    result = asyncio.run(inside())
    assert result.complete and len(api.read_run(result.run_dir)) == 1


def fails_once(messages: list[BaseMessage], tools: list[str]) -> str:
    if "failed" not in FAILED:
        FAILED.add("failed")
        raise RuntimeError("scripted failure")
    return "FINAL ANSWER: 111.2 km"


FAILED: set[str] = set()


def test_a_run_of_an_object_resumes_only_with_the_object(tmp_path: Path) -> None:
    import subprocess
    import sys

    model = ScriptedChatModel(script=fails_once)
    out = str(tmp_path / "r")
    first = api.run(model, tasks="gpsbench.distance", limit=2, conditions="intrinsic", output=out)
    assert first.failed == 1 and not first.complete
    with pytest.raises(api.RunError, match="answered by a chat model object") as exc:
        api.run(resume=out)
    assert exc.value.code == 2
    cli = subprocess.run([sys.executable, "-m", "evals.compare", "--resume", out], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[2], timeout=300)
    assert cli.returncode == 2 and "resume with api.run(model=<it>, resume=DIR)" in cli.stderr
    assert "Traceback" not in cli.stderr
    again = api.run(model, resume=out)
    assert again.complete and again.run_id == first.run_id
