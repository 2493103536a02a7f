"""The compare CLI's input checks: one-line errors listing valid names, exit code 2."""

from __future__ import annotations

import pytest

from evals.compare import main


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--tasks", "gpsbench.nope"], "valid tasks: "),
        (["--tasks", "nothing.*"], "valid tasks: "),
        (["--condition", "intrinsic,magic"], "valid conditions: intrinsic"),
        (["--condition", "tools[nonexistent]"], "tool set 'nonexistent' is not available"),
        (["--model", "azure/gpt-4o"], "valid providers: local, openai"),
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


def test_unknown_flag_is_argparse_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--no-such-flag"])
    assert exc.value.code == 2


def test_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list"]) == 0
    out = capsys.readouterr().out
    assert "gpsbench.distance" in out and "geodesy" in out and "tools[set1,set2]" in out and "local/" in out


def test_size_flag_validation_and_task_size(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    from evals.compare import make_task, parse_size

    assert main(["--size", "big", "--output", str(tmp_path / "r")]) == 2
    assert "--size must be a number or 'paper'" in capsys.readouterr().err
    assert main(["--size", "5", "--output", str(tmp_path / "r")]) == 2
    assert parse_size("paper") == "paper" and parse_size("300") == 300 and parse_size(None) is None
    assert make_task("gpsbench.distance", "paper").size == 3400
    assert make_task("gpsbench.distance", 50).size == 50
    assert make_task("gpsbench.distance", None).size == 200
