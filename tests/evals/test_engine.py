"""The one run engine (:mod:`evals.engine`): the CLI and :func:`evals.api.run` stop at ``max_cost`` the same way
(exit code 5), and a run refused by its options (here a forced tool call with one model call per sample) leaves no
run directory, through either."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.messages import BaseMessage

from agents.scripted import ScriptedChatModel
from evals import api
from evals.compare import main
from evals.cost import EXIT_COST_CAP
from evals.engine import plan
from evals.options import RunConfig
from evals.run import EXIT_USAGE, RunFailed
from evals.run_reader import RunReader

TASK = "gpsbench.distance"


def answer(messages: list[BaseMessage], tools: list[str]) -> str:
    """Six words: 7 output tokens (words + 1) for the scripted model."""
    return "I say: FINAL ANSWER: 1 km"


MODEL = f"scripted/{__name__}:answer"


def _prices(tmp_path: Path) -> str:
    path = tmp_path / "prices.toml"
    path.write_text('["scripted/*"]\ninput = 0\noutput = 1e6\n["python/*"]\ninput = 0\noutput = 1e6\n')
    return str(path)  # USD 1 per output token: USD 7 per answer


def test_api_stops_at_max_cost_as_the_cli_does(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    options = {"tasks": TASK, "limit": 5, "conditions": "intrinsic", "cache": False, "max_connections": 1,
               "prices": _prices(tmp_path), "max_cost": 12}
    cli = tmp_path / "cli"
    assert main(["--model", MODEL, "--tasks", TASK, "--limit", "5", "--conditions", "intrinsic", "--no-cache",
                 "--max-connections", "1", "--prices", options["prices"], "--max-cost", "12",
                 "--output", str(cli)]) == EXIT_COST_CAP
    with pytest.raises(api.RunError) as exc:
        api.run(MODEL, output=str(tmp_path / "api"), **options)
    assert exc.value.code == EXIT_COST_CAP == 5
    spent = [r.cost_usd for r in RunReader(tmp_path / "api").results(with_trace=False)]
    assert spent == [r.cost_usd for r in RunReader(cli).results(with_trace=False)] == [7.0, 7.0]
    with pytest.raises(api.RunError) as exc:  # a chat model object is metered the same way
        api.run(ScriptedChatModel(script=answer), label="s", output=str(tmp_path / "obj"), **options)
    assert exc.value.code == EXIT_COST_CAP
    assert len(list(RunReader(tmp_path / "obj").results(with_trace=False))) == 2


def test_a_refused_run_leaves_no_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refused = {"tasks": TASK, "limit": 1, "conditions": "tools-required", "max_steps": 1}
    with pytest.raises(api.RunError, match="leaves no call to answer with") as exc:
        api.run(ScriptedChatModel(script=answer), forced_tool_choice="required", output=str(tmp_path / "api"),
                **refused)
    assert exc.value.code == EXIT_USAGE and not (tmp_path / "api").exists()
    ok = api.run(ScriptedChatModel(script=answer), forced_tool_choice="required", output=str(tmp_path / "api"),
                 **{**refused, "max_steps": 2})  # the corrected call is not blocked by a half-made directory
    assert ok.complete
    assert main(["--model", MODEL, "--tasks", TASK, "--limit", "0", "--output", str(tmp_path / "cli")]) == EXIT_USAGE
    assert not (tmp_path / "cli").exists()


def test_plan_builds_the_samples_and_writes_nothing(tmp_path: Path) -> None:
    p = plan(RunConfig(model=MODEL, tasks=TASK, limit=2, output=str(tmp_path / "run")))
    assert [s.task for s, _ in p.work] == [TASK, TASK] and [c.name for c in p.conditions] == ["intrinsic", "tools"]
    assert not (tmp_path / "run").exists()
    with pytest.raises(RunFailed) as exc:
        plan(RunConfig(model=MODEL, tasks="no.such.task", output=str(tmp_path / "run")))
    assert exc.value.code == EXIT_USAGE and not (tmp_path / "run").exists()


def test_models_asking_the_same_samples_share_one_copy(tmp_path: Path) -> None:
    first = plan(RunConfig(model=MODEL, tasks=TASK, limit=2, output=str(tmp_path / "a")))
    other = f"scripted/{__name__}:other"
    same = plan(RunConfig(model=other, tasks=TASK, limit=2, output=str(tmp_path / "b")), like=first)
    assert same.work is first.work
    more = plan(RunConfig(model=other, tasks=TASK, limit=3, output=str(tmp_path / "c")), like=first)
    assert more.work is not first.work and len(more.work) == 3


def other(messages: list[BaseMessage], tools: list[str]) -> str:
    return "FINAL ANSWER: 2 km"


def test_a_task_without_a_version_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tasks.registry import TASKS

    monkeypatch.setattr(TASKS.get(TASK), "version", None)
    with pytest.raises(RunFailed, match=f"task {TASK} has no version") as exc:
        plan(RunConfig(model=MODEL, tasks=TASK, limit=1, output=str(tmp_path / "run")))
    assert exc.value.code == EXIT_USAGE and not (tmp_path / "run").exists()


def test_execute_opens_the_run_with_what_plan_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The spec, samples, prices and checks are the plan's: opening the run builds and checks nothing again."""
    from rich.console import Console

    from evals import prepare
    from evals.engine import execute

    p = plan(RunConfig(model=MODEL, tasks=TASK, limit=1, conditions="intrinsic", output=str(tmp_path / "run")))

    def again(*_: object) -> None:
        raise AssertionError("checked or built again after plan")
    for name in ("make_spec", "check_measurable", "build_work", "check_run_options"):
        monkeypatch.setattr(prepare, name, again)
    done = execute(p, Console(quiet=True), Console(quiet=True))
    assert done.failed == 0 and done.spec.model == MODEL and done.spec.tasks == [TASK]
    got = RunReader(tmp_path / "run").results()
    assert [(r.task, r.condition) for r in got] == [(TASK, "intrinsic")]
