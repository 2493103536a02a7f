"""evals.api with several models, reading runs back, gaps in points and silence: a list (or ``"a,b"``) runs
through the CLI's several-model path into one directory, :func:`api.load` and :func:`api.read_run` read that
directory and a single run, the API's accuracies and gaps are the percent and points the table prints, and
``show=False`` writes nothing to stdout or stderr."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals import api

RIGHT_WITH_TOOLS = "scripted/tests.evals.test_numbers_agree:policy"  # intrinsic always wrong, tools always right
ALWAYS_111 = "scripted/tests.evals.test_api:always_111_km"  # the same answer in every condition
OPTIONS = {"tasks": "gpsbench.distance", "limit": 2, "conditions": ["intrinsic", "tools"], "cache": False}


@pytest.fixture(scope="module")
def board(tmp_path_factory: pytest.TempPathFactory) -> api.ModelsResult:
    out = tmp_path_factory.mktemp("models") / "board"
    result = api.run([RIGHT_WITH_TOOLS, ALWAYS_111], output=str(out), **OPTIONS)
    assert isinstance(result, api.ModelsResult)
    return result


def test_a_list_of_models_runs_each_into_one_directory(board: api.ModelsResult) -> None:
    assert list(board.models) == [RIGHT_WITH_TOOLS, ALWAYS_111] and board.complete and not board.errors
    assert json.loads((board.run_dir / "models.json").read_text())["models"][1]["model"] == ALWAYS_111
    for model, result in board.models.items():
        assert result.spec.model == model and result.run_dir.parent == board.run_dir and result.complete
    assert [m["model"] for m in board.leaderboard["models"]] == [RIGHT_WITH_TOOLS, ALWAYS_111]
    assert "Difference of gaps" in board.table
    df = board.frame()
    assert len(df) == 8 and df.groupby("model").size().to_dict() == {RIGHT_WITH_TOOLS: 4, ALWAYS_111: 4}


def test_gaps_are_in_points_as_the_table_prints_them(board: api.ModelsResult) -> None:
    result = board.models[RIGHT_WITH_TOOLS]
    gap = result.overall.gap["tools"]
    assert gap["gap"] == 100.0 and gap["n_paired"] == 2  # both items gained: +100 points, not 1.0
    assert result.report["overall"]["gap"]["tools"]["gap"] == 1.0  # results.json keeps the fraction
    assert result.overall.conditions["intrinsic"].accuracy == 0.0
    assert result.overall.conditions["tools"].accuracy == 100.0 and result.overall.conditions["tools"].ci[1] == 100.0
    lo, hi = gap["ci"]
    assert 0 < lo < hi == 100.0  # Newcombe's interval when every pair moved alike, in points
    loaded = api.load(result.run_dir)
    assert isinstance(loaded, api.RunResult) and loaded.run_id == result.run_id and loaded.complete
    cell = f"+100.0 [{lo:+.1f}, +100.0]"  # the gap cell the table prints, from the API's numbers
    assert cell in result.table and cell in loaded.table
    assert "Difference of gaps" not in result.table  # each model's table is its own
    assert loaded.tasks[0].gap["tools"] == result.tasks[0].gap["tools"]
    row = next(r for r in board.leaderboard["rows"] if r["model"] == RIGHT_WITH_TOOLS)
    assert row["gap"]["tools"]["gap"] == 100.0 and row["conditions"]["tools"]["accuracy"] == 100.0
    diff = board.leaderboard["differences"][0]  # A (right with tools) − B (no gap): +100 points
    assert (diff["a"], diff["difference"]) == (RIGHT_WITH_TOOLS, 100.0)
    raw = json.loads((board.run_dir / "results.json").read_text())["leaderboard"]["differences"][0]
    assert raw["difference"] == 1.0
    same = board.models[ALWAYS_111].overall.gap["tools"]
    assert same["gap"] == 0.0 and same["gained"] == 0


def test_a_comma_separated_model_string_is_several_models(tmp_path: Path) -> None:
    result = api.run(f"{ALWAYS_111},{RIGHT_WITH_TOOLS}", output=str(tmp_path / "b"), **OPTIONS)
    assert isinstance(result, api.ModelsResult) and list(result.models) == [ALWAYS_111, RIGHT_WITH_TOOLS]
    with pytest.raises(api.RunError, match="lists .* twice") as exc:
        api.run([ALWAYS_111, ALWAYS_111], output=str(tmp_path / "c"), **OPTIONS)
    assert exc.value.code == 2 and not (tmp_path / "c").exists()


def test_load_reads_a_several_model_directory(board: api.ModelsResult) -> None:
    loaded = api.load(board.run_dir)
    assert isinstance(loaded, api.ModelsResult) and list(loaded.models) == list(board.models)
    assert {m: r.run_id for m, r in loaded.models.items()} == {m: r.run_id for m, r in board.models.items()}
    assert loaded.leaderboard == board.leaderboard and "Difference of gaps" in loaded.table
    assert len(api.read_run(board.run_dir)) == 8


def test_load_refuses_a_directory_that_holds_no_run(tmp_path: Path) -> None:
    with pytest.raises(api.RunError, match="neither a run directory") as exc:
        api.load(tmp_path)
    assert exc.value.code == 2
    with pytest.raises(api.RunError, match="neither a run directory"):
        api.read_run(tmp_path)


def test_show_false_prints_nothing(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    api.run(ALWAYS_111, output=str(tmp_path / "one"), **OPTIONS)
    api.run([ALWAYS_111, RIGHT_WITH_TOOLS], output=str(tmp_path / "two"), **OPTIONS)
    captured = capfd.readouterr()
    assert captured.out == "" and captured.err == ""
    api.run(ALWAYS_111, output=str(tmp_path / "one"), show=True, **OPTIONS)
    assert "gpsbench.distance" in capfd.readouterr().out  # shown when asked: the test can see output


def test_a_model_whose_run_stops_is_in_errors_and_the_others_still_run(tmp_path: Path,
                                                                       capfd: pytest.CaptureFixture[str]) -> None:
    prices = tmp_path / "prices.toml"  # USD 1 per output token: the engine test's model spends USD 7 an answer
    prices.write_text('["scripted/tests.evals.test_engine:answer"]\ninput = 0\noutput = 1e6\n'
                      '["scripted/tests.evals.test_api:always_111_km"]\ninput = 0\noutput = 0\n')
    costly = "scripted/tests.evals.test_engine:answer"
    result = api.run([costly, ALWAYS_111], tasks="gpsbench.distance", limit=3, conditions="intrinsic", cache=False,
                     max_connections=1, prices=str(prices), max_cost=12, output=str(tmp_path / "m"))
    assert list(result.errors) == [costly] and not result.complete
    assert result.errors[costly].startswith("stopped: spend $14.0000 reached --max-cost $12")  # the CLI's line
    assert list(result.models) == [ALWAYS_111] and result.models[ALWAYS_111].complete
    assert capfd.readouterr() == ("", "")  # the stop is in errors, not printed
