"""Bad input never shows a traceback: each case is one ``error:`` line, a clear exit code, nothing half-written."""

from __future__ import annotations

import errno
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from fault_server import FaultServer, completion
from langchain_core.messages import AIMessage

import evals.compare as compare_cli
import evals.prepare as prepare
from agents.call_cache import CallCache
from evals.cache import main as cache_main
from evals.compare import main
from evals.export import main as export_main
from evals.options import BOUNDS, LIST_KEYS, RunConfig, _meta, flags_of, kind_of, load_config
from evals.records import RunSpec
from evals.store import RunStore
from evals.view.__main__ import main as view_main
from tasks.build import SampleBuildError

TASK = "gpsbench.distance"


def _one_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, err
    return lines[0]


def _quick(tmp_path: Path, *extra: str) -> list[str]:
    return ["--model", "openai-compatible/fake", "--base-url", "http://127.0.0.1:9/v1", "--tasks", TASK,
            "--limit", "1", "--condition", "intrinsic", "--output", str(tmp_path / "run"), *extra]


def _answered_run(tmp_path: Path) -> int:
    """Exit code of a one-sample run against a server that answers."""
    with FaultServer(lambda body, headers, n: completion("FINAL ANSWER: 5 km")) as server:
        args = _quick(tmp_path, "--no-cache")
        args[args.index("--base-url") + 1] = server.url
        return main(args)


@pytest.mark.parametrize("flag, value, message", [
    ("--temperature", "nan", "--temperature must be a finite number"),
    ("--retry-delay", "nan", "--retry-delay must be a finite number"),
    ("--call-timeout", "inf", "--call-timeout must be a finite number"),
    ("--sample-timeout", "-inf", "--sample-timeout must be a finite number"),
    ("--size", "99999999999999", "--size must be <= 100,000"),
    ("--tasks", ",,,", "--tasks names no task"),
    ("--output", "", "--output must name a directory"),
    ("--max-reply-bytes", "10", "--max-reply-bytes must be >= 1024"),
    ("--api-key-env", "GEOGAP_NO_SUCH_VARIABLE", "GEOGAP_NO_SUCH_VARIABLE: that environment variable is not set"),
])
def test_bad_flag_values_are_one_line_and_exit_2(flag: str, value: str, message: str, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*_quick(tmp_path), f"{flag}={value}"]) == 2  # the last value of a flag wins
    assert message in _one_error(capsys)
    assert not (tmp_path / "run").exists()  # nothing written


@pytest.mark.parametrize("content, message", [
    (b"temperature = 1e400\n", "--temperature must be a finite number"),
    (b"model = \"openai/x\"\n# caf\xe9 in Latin-1\n", "cannot read config"),
])
def test_bad_config_files_are_one_line_and_exit_2(content: bytes, message: str, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "run.toml"
    config.write_bytes(content)
    assert main([*_quick(tmp_path), "--config", str(config)]) == 2
    assert message in _one_error(capsys)
    assert not (tmp_path / "run").exists()


def test_an_output_under_a_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("x")
    args = _quick(tmp_path)
    args[args.index("--output") + 1] = str(tmp_path / "file" / "run")
    assert main(args) == 2
    assert "is not a directory" in _one_error(capsys)


def test_an_unwritable_output_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    real_access = prepare.os.access  # root may write anywhere: pretend this directory is read-only
    monkeypatch.setattr(prepare.os, "access", lambda p, mode: False if Path(p) == locked else real_access(p, mode))
    args = _quick(tmp_path)
    args[args.index("--output") + 1] = str(locked / "run")
    assert main(args) == 2
    assert "cannot write in" in _one_error(capsys)
    assert not (locked / "run").exists()


def test_a_corrupt_store_on_resume_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "run.sqlite").write_bytes(b"not a database " * 200)
    assert main(["--resume", str(tmp_path / "run")]) == 2
    line = _one_error(capsys)
    assert "cannot be read" in line and "corrupt" in line
    assert (tmp_path / "run" / "run.sqlite").read_bytes() == b"not a database " * 200  # left as it was


def test_an_old_store_on_resume_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    db = sqlite3.connect(run_dir / "run.sqlite")
    db.execute("CREATE TABLE run (id TEXT PRIMARY KEY, spec TEXT NOT NULL, created REAL NOT NULL)")
    db.execute("INSERT INTO run VALUES ('r', '{\"model_name\": \"x\"}', 0)")  # a spec of another format
    db.commit()
    db.close()
    assert main(["--resume", str(run_dir)]) == 2
    assert "incompatible version" in _one_error(capsys)


def test_ctrl_c_during_start_up_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(prepare, "make_task", interrupted)
    assert main(_quick(tmp_path)) == 130
    assert "interrupted before the run started" in _one_error(capsys)


def test_a_sample_building_process_that_dies_is_one_line_and_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    def died(*args: object, **kwargs: object) -> None:  # what tasks.build raises for a killed worker
        raise SampleBuildError("a worker process building the samples of gpsbench.distance died (killed, or out of "
                               "memory?); no samples were built")

    monkeypatch.setattr(prepare, "build_samples", died)
    assert main(_quick(tmp_path)) == 1
    assert _one_error(capsys).endswith("no samples were built; nothing was run")
    assert not (tmp_path / "run" / "results.json").exists()


def test_a_full_disk_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    def full(self: RunStore, result: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(RunStore, "add_result", full)
    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path / "cache"))
    assert _answered_run(tmp_path) == 1
    assert "database or disk is full" in _one_error(capsys)
    assert not (tmp_path / "run" / "results.json").exists()  # no report from a run that could not be stored


def test_viewer_port_out_of_range(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with RunStore(tmp_path / "good") as store:
        store.write_spec("r", RunSpec(model="m/x", tasks=["t"], conditions=["intrinsic"]))
    assert view_main([str(tmp_path / "good"), "--port", "70000"]) == 2
    assert "--port must be between 0 and 65535" in _one_error(capsys)


def test_viewer_skips_a_broken_run_among_several(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with RunStore(tmp_path / "runs" / "good") as store:
        store.write_spec("r", RunSpec(model="m/x", tasks=["t"], conditions=["intrinsic"]))
    (tmp_path / "runs" / "bad").mkdir()
    (tmp_path / "runs" / "bad" / "run.sqlite").write_bytes(b"garbage " * 100)
    assert view_main([str(tmp_path / "runs"), "--export", str(tmp_path / "site")]) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert [line for line in err.splitlines() if line.startswith("warning: skipping")] == [
        f"warning: skipping {(tmp_path / 'runs' / 'bad').resolve()}: its run store cannot be read "
        "(DatabaseError: file is not a database)"]
    assert (tmp_path / "site" / "index.html").exists()
    assert view_main([str(tmp_path / "runs" / "bad"), "--port", "0"]) == 2  # nothing readable: no server
    assert "no readable run directory" in _one_error(capsys)


def test_a_disk_that_fills_while_writing_the_report_leaves_no_half_file(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str],
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    real_write = Path.write_text

    def fills_up(self: Path, text: str, *args: object, **kwargs: object) -> int:
        if self.name.endswith(".tmp"):
            real_write(self, text[: len(text) // 2])
            raise OSError(errno.ENOSPC, "No space left on device", str(self))
        return real_write(self, text, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", fills_up)
    assert _answered_run(tmp_path) == 1
    assert "No space left on device" in _one_error(capsys)
    run_dir = tmp_path / "run"
    assert not (run_dir / "results.json").exists() and not list(run_dir.glob(".*.tmp"))
    with RunStore(run_dir) as store:
        assert store.count() == 1  # the answer itself is stored: --resume writes the report


def test_an_output_that_cannot_be_created_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(self: RunStore, *args: object, **kwargs: object) -> None:
        raise PermissionError(errno.EPERM, "Operation not permitted", str(tmp_path / "run"))

    monkeypatch.setattr(RunStore, "__init__", refused)  # as under /sys or on a read-only file system
    assert main(_quick(tmp_path)) == 2
    line = _one_error(capsys)
    assert "cannot create or write the run directory (Operation not permitted)" in line
    assert "--resume" not in line  # nothing was run, so nothing to resume


def test_ctrl_c_while_the_cli_loads_is_one_line(tmp_path: Path) -> None:
    # SIGINT arrives while evals.compare imports its dependencies (when httpx is looked up), before main()
    script = (
        "import os, runpy, signal, sys\n"
        "class Trip:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'httpx':\n"
        "            os.kill(os.getpid(), signal.SIGINT)\n"
        "sys.meta_path.insert(0, Trip())\n"
        "sys.argv = ['evals.compare', '--list']\n"
        "runpy.run_module('evals.compare', run_name='__main__', alter_sys=True)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          cwd=Path(compare_cli.__file__).parent.parent)
    assert done.returncode == 130, done.stderr[-2000:]
    assert done.stderr.strip() == "error: interrupted before the run started; nothing was run"
    assert done.stdout == ""


def test_export_of_a_corrupt_store_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "run.sqlite").write_bytes(b"not a database " * 200)
    assert export_main([str(tmp_path / "run")]) == 1
    assert "its run store cannot be read (DatabaseError: file is not a database)" in _one_error(capsys)


def test_viewer_skips_a_store_without_results(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with RunStore(tmp_path / "runs" / "good") as store:
        store.write_spec("r", RunSpec(model="m/x", tasks=["t"], conditions=["intrinsic"]))
    with RunStore(tmp_path / "runs" / "old") as store:
        store.write_spec("o", RunSpec(model="m/x", tasks=["t"], conditions=["intrinsic"]))
    with sqlite3.connect(tmp_path / "runs" / "old" / "run.sqlite") as db:
        db.execute("DROP TABLE results")
    assert view_main([str(tmp_path / "runs"), "--export", str(tmp_path / "site")]) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err and "no such table: results" in err
    assert (tmp_path / "site" / "index.html").exists()


# The bad-input suite: every flag and TOML key of evals.compare (types, bounds, unknown keys, duplicates), base
# URLs, models, paths and conflicts, and the other commands. Each input is one ``error:`` line naming what was
# wrong, the documented exit code (2: usage error), no traceback, and no run directory.

INT_OPTIONS = [n for n in RunConfig.model_fields if kind_of(n) is int]
FLOAT_OPTIONS = [n for n in RunConfig.model_fields if kind_of(n) is float]
OUT_OF_BOUNDS = {"temperature": ("-0.1", "2.5"), "sample_timeout_s": ("0", "1e9"), "call_timeout_s": ("-1", "1e9"),
                 "retry_base_delay_s": ("-1", "1e5"), "max_cost": ("0", "-1")}


def _flag_cases() -> list[tuple[list[str], str]]:
    cases: list[tuple[list[str], str]] = []
    for name in INT_OPTIONS:
        flag = flags_of(name)[0]
        least, most = BOUNDS[name]
        cases += [([flag, bad], flag) for bad in ("abc", "2.7", "")]  # not an integer: argparse's one line
        cases += [([flag, str(int(least) - 1)], flag), ([flag, str(int(most) + 1)], flag)]
    for name in FLOAT_OPTIONS:
        flag = flags_of(name)[0]
        cases += [([flag, bad], flag) for bad in ("abc", "nan", "inf", "-inf", *OUT_OF_BOUNDS[name])]
    cases += [(["--base-url", url], "--base-url") for url in (
        "http://[::1/v1", "http://127.0.0.1:99999/v1", "http://127.0.0.1:port/v1", "ftp://127.0.0.1/v1", "127.0.0.1:8000",
        "http:///v1", "http://127.0.0.1:8000/v1?api_key=abc", "http://127.0.0.1:8000/v1#frag", "", "   ")]
    cases += [(["--model", m], m or "provider/name") for m in ("", "noslash", "nope/x", "scripted/no_such_module:f",
                                                                 "scripted/json:no_such_function")]
    cases += [(["--tasks", t], t) for t in ("warp.drive", "gpsbench.nope*", ",,,")]
    cases += [(["--condition", c], n) for c, n in (("warp", "warp"), ("tools[warp]", "warp"), ("intrinsic,nope", "nope"))]
    cases += [(["--split", "val"], "--split"), (["--export", "xml"], "xml"), (["--executor", "nope"], "--executor"),
              (["--size", "0"], "--size"), (["--size", "-5"], "--size"), (["--size", "abc"], "--size"),
              (["--size", "1e9"], "--size"), (["--size", "999999999"], "--size"),
              (["--api-key-env", "GEOGAP_NO_SUCH_VARIABLE"], "GEOGAP_NO_SUCH_VARIABLE"),
              (["--compare-paper"], "--compare-paper"), (["--suite", "gpsbench-paper"], "--suite"),
              (["--no-such-flag"], "--no-such-flag"), (["--cache", "--no-cache"], "--no-cache")]
    return cases


TYPE_PROBES: dict[type, list[str]] = {
    int: ['"5"', "2.7", "true", "inf", "[1]", "{ a = 1 }"],
    float: ['"0.5"', "true", "[0.5]", "{ a = 1 }"],
    bool: ["0", "1", '"yes"', '"false"'],
    str: ["5", "2.5", "true", "{ a = 1 }"],
    Path: ["5", "true", "[1]"],
    list: ['"--enforce-eager"', "5", "[1, 2]", "{ a = 1 }"],  # a list of strings only (vllm-args)
}


def _config_cases() -> list[tuple[str, str]]:
    cases: list[tuple[str, str]] = []
    for name in RunConfig.model_fields:
        if not _meta(name)["config"]:
            continue
        key = flags_of(name)[0].lstrip("-")
        kind = kind_of(name)
        probes = [p for p in TYPE_PROBES[kind] if not (name == "size" and p == "5")]
        if kind is str and name not in LIST_KEYS:
            probes.append('["a"]')
        if name in LIST_KEYS:
            probes.append("[1, 2]")  # a list, but not of strings
        cases += [(f"{key} = {p}\n", key) for p in probes]
        cases.append((f"{key}x = 1\n", f"{key}x"))  # a typo is an unknown key, never ignored
        if name in BOUNDS:
            least, most = BOUNDS[name]
            cases.append((f"{key} = {int(most) + 1 if kind is int else most * 10}\n", key))
    cases += [("no-cache = 0\n", "no-cache"), ("no-cache = true\ncache = true\n", "cache"),
              ("sample-timeout = 5.0\nsample_timeout_s = 6.0\n", "sample"),
              ("condition = \"intrinsic\"\nconditions = \"tools\"\n", "condition"), ("seed = inf\n", "seed"),
              ("seed = nan\n", "seed"), ("limit = 2.7\n", "limit"), ("limit = 0\n", "--limit"),
              ("epochs = 1000000000\n", "--epochs"), ("max-connections = 100000000\n", "--max-connections"),
              ("temperature = nan\n", "--temperature"), ("resume = \"x\"\n", "resume"),
              ("[section]\nlimit = 1\n", "section"), ("limit = 1\nlimit = 2\n", "cannot read config")]
    return cases


FLAG_CASES = _flag_cases()
CONFIG_CASES = _config_cases()


def _exit_code(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's own errors (one line too: evals.options.OneLineParser)
        return int(exc.code or 0)


@pytest.mark.parametrize("extra, names", FLAG_CASES, ids=[" ".join(c[0]) or "empty" for c in FLAG_CASES])
def test_every_bad_flag_is_one_line_and_exit_2(extra: list[str], names: str, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path / "cache"))
    assert _exit_code([*_quick(tmp_path), *extra]) == 2
    line = _one_error(capsys)
    assert names in line, line  # the line names what was wrong
    assert not (tmp_path / "run").exists() and not (tmp_path / "cache").exists()  # nothing written


@pytest.mark.parametrize("content, names", CONFIG_CASES, ids=[c[0].strip().replace("\n", "; ") for c in CONFIG_CASES])
def test_every_bad_config_value_is_one_line_and_exit_2(content: str, names: str, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "run.toml"
    config.write_text(content)
    argv = _quick(tmp_path)
    del argv[argv.index("--limit"):argv.index("--limit") + 2]  # the command line would win over the file
    assert _exit_code([*argv, "--config", str(config)]) == 2
    line = _one_error(capsys)
    assert names in line, line
    assert not (tmp_path / "run").exists()


def test_the_suite_covers_every_option_and_200_inputs() -> None:
    assert len(FLAG_CASES) + len(CONFIG_CASES) >= 200
    config_keys = {flags_of(n)[0].lstrip("-") for n in RunConfig.model_fields if _meta(n)["config"]}
    assert config_keys <= {names for _, names in CONFIG_CASES}
    numeric = {flags_of(n)[0] for n in INT_OPTIONS + FLOAT_OPTIONS}
    assert numeric <= {names for _, names in FLAG_CASES}


def test_a_config_value_is_never_coerced(tmp_path: Path) -> None:
    config = tmp_path / "run.toml"
    config.write_text('tasks = ["gpsbench.distance"]\nsize = 200\ntemperature = 0\nno-cache = true\n')
    assert load_config(config) == {"tasks": "gpsbench.distance", "size": "200", "temperature": 0.0, "cache": False}


@pytest.mark.parametrize("argv, line", [
    (["prune", "--older-than-days", "-5"], "--older-than-days must be a finite number >= 0, got -5"),
    (["prune", "--older-than-days", "nan"], "--older-than-days must be a finite number >= 0, got nan"),
    (["prune", "--older-than-days", "inf"], "--older-than-days must be a finite number >= 0, got inf"),
    (["prune", "--older-than-days", "x"], "invalid float value: 'x'"),
    (["nope"], "invalid choice: 'nope'"),
])
def test_bad_cache_commands_change_nothing(argv: list[str], line: str, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "calls.sqlite"
    cache = CallCache(path)
    cache.put("k", "m/x", AIMessage("hello"))
    cache.close()
    try:
        rc = cache_main(["--path", str(path), *argv])
    except SystemExit as exc:
        rc = int(exc.code or 0)
    assert rc == 2 and line in _one_error(capsys)
    kept = CallCache(path)
    assert [s.entries for s in kept.summary()] == [1]  # nothing deleted
    kept.close()


@pytest.mark.parametrize("content", [b"not a database " * 300, b""])
def test_a_cache_path_that_is_not_a_cache_is_one_line(content: bytes, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mine.db"
    if content:
        path.write_bytes(content)
    else:  # another program's SQLite database: never given our table
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE notes (x TEXT)")
    before = path.read_bytes()
    for command in (["list"], ["clear"], ["prune", "--older-than-days", "1"]):
        assert cache_main(["--path", str(path), *command]) == 2
        assert "is not a model-call cache" in _one_error(capsys)
    assert path.read_bytes() == before
    assert cache_main(["--path", str(tmp_path), "list"]) == 2 and "is not a file" in _one_error(capsys)


def test_viewer_export_onto_a_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with RunStore(tmp_path / "good") as store:
        store.write_spec("r", RunSpec(model="m/x", tasks=["t"], conditions=["intrinsic"]))
    (tmp_path / "site").write_text("my notes")
    for target in (tmp_path / "site", tmp_path / "site" / "deeper"):
        assert view_main([str(tmp_path / "good"), "--export", str(target)]) == 2
        assert "is not a directory" in _one_error(capsys)
    assert (tmp_path / "site").read_text() == "my notes"


def test_resume_with_another_output_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "run").mkdir()
    assert main(["--resume", str(tmp_path / "run"), "--output", str(tmp_path / "elsewhere")]) == 2
    assert "--output cannot be combined with --resume" in _one_error(capsys)
    assert not (tmp_path / "elsewhere").exists()


def test_an_output_holding_a_users_own_files_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mine = tmp_path / "run"
    mine.mkdir()
    (mine / "results.json").write_text('{"mine": true}')
    (mine / "report.html").write_text("<p>my report</p>")
    assert main(_quick(tmp_path)) == 2
    assert "holds results.json, report.html but no run store" in _one_error(capsys)
    assert (mine / "results.json").read_text() == '{"mine": true}' and sorted(p.name for p in mine.iterdir()) == [
        "report.html", "results.json"]


def test_a_missing_provider_key_is_one_line_before_anything_is_written(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str],
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert main(["--model", "openai/gpt-4o-mini", "--tasks", TASK, "--limit", "1", "--condition", "intrinsic",
                 "--output", str(tmp_path / "run")]) == 2
    assert "openai/ models need a key: set OPENAI_API_KEY" in _one_error(capsys)
    assert not (tmp_path / "run").exists()


def test_a_corrupt_result_row_is_answered_again_on_resume(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path / "cache"))
    with FaultServer(lambda body, headers, n: completion("FINAL ANSWER: 5 km")) as server:
        args = ["--model", "openai-compatible/fake", "--base-url", server.url, "--tasks", TASK, "--limit", "3",
                "--condition", "intrinsic", "--output", str(tmp_path / "run"), "--no-cache"]
        assert main(args) == 0
        with sqlite3.connect(tmp_path / "run" / "run.sqlite") as db:
            (victim,) = db.execute("SELECT sample_id FROM results ORDER BY rowid LIMIT 1").fetchone()  # read first
            db.execute("UPDATE results SET record = '{\"cut' WHERE sample_id = ?", (victim,))
        assert export_main([str(tmp_path / "run")]) == 0  # readers skip it, with a warning
        assert "1 stored results could not be read" in capsys.readouterr().err
        calls = len(server.requests)
        assert main(["--resume", str(tmp_path / "run")]) == 0
        assert len(server.requests) == calls + 1  # exactly the unreadable one was answered again
    err = capsys.readouterr().err
    assert "Traceback" not in err and "1 stored results of" in err
    with RunStore(tmp_path / "run") as store:
        assert len(list(store.results())) == 3 and not store.unreadable
