"""API keys and authorisation headers never reach the run directory, the cache, or the console."""

from __future__ import annotations

from pathlib import Path

import pytest
from fault_server import FaultServer, Reply, completion, error, user_prompt

from agents.secrets import MASK, redact
from evals.compare import main
from tasks import get_task

KEY = "sk-geogapFAKEkey0123456789abcdefXYZ"
TASK = "gpsbench.distance"


def test_redact_env_values_and_key_shapes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok_abcdefgh1234")
    monkeypatch.setenv("SHORT_TOKEN", "abc")  # too short to be redacted everywhere
    text = ("auth tok_abcdefgh1234 and Authorization: Bearer abcDEF123456789 and sk-ant-api03-abcdefghijklmnop "
            "and https://x.test/v1?key=AIzaSyA1234567890abcdefghijklmnopqrstu&alt=json and abc")
    out = redact(text)
    for secret in ("tok_abcdefgh1234", "abcDEF123456789", "sk-ant-api03-abcdefghijklmnop", "AIzaSyA1234567890"):
        assert secret not in out
    assert out.count(MASK) == 4 and out.endswith("and abc") and "alt=json" in out
    assert redact("Bearer of bad news") == "Bearer of bad news"  # no token there


def test_a_run_with_a_fake_key_leaves_no_trace_of_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path / "cache"))
    prompts = [s.prompt for s in get_task(TASK).samples(limit=3)]

    def respond(body: dict, headers: dict, n: int) -> Reply:
        auth = headers.get("authorization", "")
        i = prompts.index(user_prompt(body))
        if i == 0:  # a provider that echoes the credentials in its error message
            return error(401, f"Incorrect API key provided: {auth}. You sent {auth.removeprefix('Bearer ')}")
        if i == 1:  # a model that repeats it in its answer
            return completion(f"Your header was {auth}; FINAL ANSWER: 5 km")
        return completion("FINAL ANSWER: 7 km")

    run_dir = tmp_path / "run"
    with FaultServer(respond) as server:
        rc = main(["--model", "openai-compatible/fake", "--base-url", server.url,
                   "--tasks", TASK, "--limit", "3", "--condition", "intrinsic", "--output", str(run_dir),
                   "--export", "jsonl,csv,parquet", "--api-key-env", "OPENAI_API_KEY"])
        sent = [r["headers"].get("authorization") for r in server.requests]
    assert rc == 3  # the 401 sample ended in error
    assert f"Bearer {KEY}" in sent  # the key was really in play
    files = [p for p in [*run_dir.rglob("*"), *(tmp_path / "cache").rglob("*")] if p.is_file()]
    names = {p.name for p in files}
    assert {"run.sqlite", "results.json", "results.jsonl", "results.csv", "results.parquet", "report.html",
            "model_calls.sqlite"} <= names
    fragments = [KEY.encode(), KEY[3:20].encode(), KEY[-16:].encode()]
    for path in files:
        data = path.read_bytes()
        for fragment in fragments:
            assert fragment not in data, f"{path.name} leaks the key"
    captured = capsys.readouterr()
    assert KEY[3:20] not in captured.out + captured.err
    text = (run_dir / "results.jsonl").read_text()
    assert "Incorrect API key provided" in text and MASK in text  # the error was kept, the key masked
    pq = pytest.importorskip("pyarrow.parquet")
    table = str(pq.read_table(run_dir / "results.parquet").to_pylist())  # compressed: check decoded text too
    assert "Incorrect API key provided" in table and KEY[3:20] not in table


def test_openai_api_key_goes_to_a_base_url_only_when_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("MY_GATEWAY_KEY", "gw-key-0123456789")
    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path / "cache"))
    with FaultServer(lambda body, headers, n: completion("FINAL ANSWER: 7 km")) as server:
        base = ["--model", "openai-compatible/fake", "--base-url", server.url, "--tasks", TASK, "--limit", "1",
                "--condition", "intrinsic", "--no-cache"]
        assert main([*base, "--output", str(tmp_path / "a")]) == 0
        assert main([*base, "--output", str(tmp_path / "b"), "--api-key-env", "MY_GATEWAY_KEY"]) == 0
        sent = [r["headers"].get("authorization") for r in server.requests]
    assert sent == ["Bearer not-needed", "Bearer gw-key-0123456789"]
    assert not any(KEY in (s or "") for s in sent)


def test_plain_http_to_another_machine_is_warned(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from agents.models import insecure_url

    assert insecure_url("http://10.0.0.5:8000/v1") and insecure_url("http://llm.example/v1")
    assert not insecure_url("https://llm.example/v1") and not insecure_url("http://127.0.0.1:8000/v1")
    assert not insecure_url("http://localhost:8000/v1") and not insecure_url("http://[::1]:8000/v1")
    rc = main(["--model", "openai-compatible/fake", "--base-url", "http://192.0.2.1:9/v1", "--tasks", TASK,
               "--limit", "1", "--condition", "intrinsic", "--output", str(tmp_path / "r"), "--max-attempts", "1",
               "--call-timeout", "0.5", "--no-cache"])
    assert rc != 0
    err = " ".join(capsys.readouterr().err.split())
    assert "http://192.0.2.1:9/v1 is plain http to another machine" in err


def test_a_key_named_by_api_key_env_is_masked_whatever_its_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GATEWAY", "gw7Qx2pLm9Zt")  # a name no secret pattern matches
    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path / "cache"))

    def echo(body: dict, headers: dict, n: int) -> Reply:  # the key echoed without its "Bearer " prefix
        return error(401, f"Incorrect API key provided: {headers.get('authorization', '').removeprefix('Bearer ')}")

    with FaultServer(echo) as server:
        rc = main(["--model", "openai-compatible/fake", "--base-url", server.url, "--tasks", TASK, "--limit", "1",
                   "--condition", "intrinsic", "--output", str(tmp_path / "run"), "--api-key-env", "GATEWAY",
                   "--max-attempts", "1"])
    assert rc == 3
    text = (tmp_path / "run" / "results.jsonl").read_text()
    assert f"Incorrect API key provided: {MASK}" in text
    for path in (tmp_path / "run").rglob("*"):  # figures/ and tables/ included
        assert path.is_dir() or b"gw7Qx2pLm9Zt" not in path.read_bytes(), f"{path.name} leaks the key"
    assert "gw7Qx2pLm9Zt" not in "".join(capsys.readouterr())


def test_resuming_a_run_whose_base_url_had_credentials_asks_for_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path / "cache"))
    run_dir = str(tmp_path / "run")
    with FaultServer(lambda body, headers, n: completion("FINAL ANSWER: 7 km")) as server:
        url = server.url.replace("http://", "http://alice:hunter2pw@")
        base = ["--model", "openai-compatible/fake", "--tasks", TASK, "--limit", "1", "--condition", "intrinsic"]
        assert main([*base, "--base-url", "http://alice:hunter2pw@127.0.0.1:9/v1", "--output", run_dir,
                     "--max-attempts", "1"]) == 3
        capsys.readouterr()
        assert main(["--resume", run_dir]) == 2  # the stored URL is masked: it cannot be called
        err = capsys.readouterr().err
        assert "Traceback" not in err and "give --base-url again" in err and "hunter2pw" not in err
        assert main(["--resume", run_dir, "--base-url", url]) == 0
        assert [r["headers"].get("authorization") for r in server.requests] == ["Basic YWxpY2U6aHVudGVyMnB3"]
