"""The model-call cache knows what answered: another model behind the same URL never gets old answers; remote
entries expire; a server that cannot say what it serves gets no cache."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage

from agents.call_cache import REMOTE_MAX_AGE_DAYS, CallCache, max_age_s
from agents.providers import PROVIDERS, Served
from evals.compare import main
from evals.store import RunStore
from tests.loopback import LoopbackServer, QuietHandler

TASK = "gpsbench.distance"


class SwappableServer(LoopbackServer):
    """A loopback OpenAI-compatible server whose served model can be swapped (``served``); ``models=False``
    makes GET /v1/models answer 404."""

    def __init__(self) -> None:
        self.served = "model-a"
        self.models = True
        self.posts = 0
        outer = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:  # noqa: N802
                if self.path.endswith("/models") and outer.models:
                    self.send_json(200, {"object": "list", "data": [
                        {"id": outer.served, "object": "model", "created": int(time.time()), "owned_by": "test"}]})
                else:
                    self.send_json(404, {"error": "not found"})

            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                outer.posts += 1
                answer = "FINAL ANSWER: 5 km" if outer.served == "model-a" else "FINAL ANSWER: 9 km"
                self.send_json(200, {"id": "x", "object": "chat.completion", "created": 0, "model": outer.served,
                                 "choices": [{"index": 0, "message": {"role": "assistant", "content": answer},
                                              "finish_reason": "stop"}],
                                 "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}})

        super().__init__(Handler)


def _run(server: SwappableServer, out: Path) -> tuple[int, list[str]]:
    rc = main(["--model", "openai-compatible/anything", "--base-url", server.url, "--tasks", TASK, "--limit", "2",
               "--condition", "intrinsic", "--output", str(out), "--export", "jsonl"])
    with RunStore(out) as store:
        return rc, [r.final_text for r in store.results(with_trace=False)]


def test_another_model_behind_the_same_url_never_gets_old_answers(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path / "cache"))
    with SwappableServer() as server:
        rc, first = _run(server, tmp_path / "a1")
        assert rc in (0, 3) and first == ["FINAL ANSWER: 5 km"] * 2 and server.posts == 2
        rc, again = _run(server, tmp_path / "a2")  # same model: answered from the cache
        assert again == first and server.posts == 2
        server.served = "model-b"
        rc, swapped = _run(server, tmp_path / "b1")
        assert server.posts == 4  # the new model was asked
        assert swapped == ["FINAL ANSWER: 9 km"] * 2


def test_a_server_that_cannot_say_what_it_serves_gets_no_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path / "cache"))
    with SwappableServer() as server:
        server.models = False
        _run(server, tmp_path / "r1")
        _run(server, tmp_path / "r2")
        assert server.posts == 4  # both runs asked the server
    err = " ".join(capsys.readouterr().err.split())  # the console wraps long lines
    assert err.count("the model-call cache is off for this run") == 2


def test_local_identity_names_the_gguf_and_the_runtime() -> None:
    local = PROVIDERS.get("local")
    versions = {"xllamacpp": "2026.10.11549"}
    ident, why_not = local.identity("qwen2.5-coder-1.5b", Served("http://127.0.0.1:5555/v1"), api_key_env=None,
                                    versions=versions)
    assert why_not is None and ident is not None
    assert ident["gguf_sha256"] == "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
    assert ident["runtime"] == "xllamacpp 2026.10.11549" and "endpoint" not in ident  # the port changes every run
    other, _ = local.identity("qwen2.5-0.5b", Served(None), api_key_env=None, versions=versions)
    assert other is not None and other["gguf_sha256"] != ident["gguf_sha256"]


def test_remote_entries_expire_and_local_ones_do_not(tmp_path: Path) -> None:
    assert max_age_s("openai/gpt-4o-mini", None) == REMOTE_MAX_AGE_DAYS * 86400 == 7 * 86400
    assert max_age_s("openai-compatible/m", "https://openrouter.ai/api/v1") == 7 * 86400
    assert max_age_s("openai-compatible/m", "http://127.0.0.1:8000/v1") is None
    assert max_age_s("local/qwen2.5-coder-1.5b", None) is None
    cache = CallCache(tmp_path / "c.sqlite")
    try:
        cache.put("k", "m", AIMessage("hello"))
        assert cache.get("k", max_age_s=7 * 86400) is not None
        with cache.db:
            cache.db.execute("UPDATE calls SET created = created - ?", (8 * 86400,))
        assert cache.get("k", max_age_s=7 * 86400) is None  # a week old: asked again
        assert cache.get("k") is not None  # no expiry
    finally:
        cache.close()
