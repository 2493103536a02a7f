"""``--batch`` through the real ``openai`` client against a loopback stand-in of OpenAI's Batch API
(tests/evals/batch_server.py, protocol: https://developers.openai.com/api/docs/guides/batch): 200 intrinsic
items, a stop after submission and a resume, failed and expired requests resubmitted, the same stored records
as the synchronous run, at batch prices."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from batch_server import (
    AnthropicBatchWorld,
    BatchWorld,
    GeminiBatchWorld,
    anthropic_handler,
    gemini_handler,
    handler,
    last_text,
)
from loopback import LoopbackServer

from evals import batch
from evals.batch import STATE_FILE, BatchRunner, BatchUnsupported, wire_for
from evals.conditions import get_condition
from evals.endpoints import SpecEndpointFactory
from evals.pricing import Price, PriceTable
from evals.records import RunSpec, SampleResult
from evals.run_reader import RunReader
from evals.runner import run_all
from evals.store import RunStore
from tasks import get_task

MODEL = "openai/gpt-4.1-mini"  # a chat-completions model (agents/data/models.toml): the stand-in speaks that API
CLAUDE = "anthropic/claude-test"
GEMINI = "google/gemini-2.5-flash"
PRICES = PriceTable({MODEL: Price(input=2.0, output=8.0), CLAUDE: Price(input=3.0, output=15.0),
                     GEMINI: Price(input=0.3, output=2.5)})


class Stop(Exception):
    """Stands for a kill: the process ends with its batches open."""


@pytest.fixture(scope="module")
def work():
    task = get_task("gpsbench.distance", size=667)
    samples = task.samples(limit=200)
    assert len(samples) == 200
    return task, samples


def responder(samples):
    gold = {s.messages[-1].content: s.target["km"] for s in samples}

    def respond(body):
        prompt = last_text(body)
        km, i = gold[prompt], sorted(gold).index(prompt)
        if i % 7 == 0:
            return f"The distance is about {km:.0f}", "length"  # cut at the token limit: truncated
        if i % 3 == 0:
            return "FINAL ANSWER: 1 km", "stop"
        return f"Haversine gives {km:.1f} km.\nFINAL ANSWER: {km:.1f} km", "stop"

    return respond


def spec(url: str, model: str = MODEL) -> RunSpec:
    return RunSpec(model=model, tasks=["gpsbench.distance"], conditions=["intrinsic"], base_url=url,
                   max_attempts=3, cache=False)


def stored(run_dir: Path) -> dict[tuple[str, str, int], SampleResult]:
    rows = list(RunReader(run_dir).results())
    keys = [(r.sample_id, r.condition, r.epoch) for r in rows]
    assert len(keys) == len(set(keys)), "a result stored twice"
    return dict(zip(keys, rows, strict=True))


def sync_run(tmp_path: Path, url: str, task, samples, model: str = MODEL) -> dict:
    s = spec(url, model)
    with RunStore(tmp_path / "sync") as store:
        store.write_spec("sync", s)
        asyncio.run(run_all("sync", s, store, [(x, task) for x in samples], [get_condition("intrinsic")],
                            SpecEndpointFactory(s, url), prices=PRICES))
    return stored(tmp_path / "sync")


def batch_run(run_dir: Path, url: str, task, samples, model: str = MODEL, **options) -> int:
    s = spec(url, model)
    with RunStore(run_dir) as store:
        store.write_spec("batch", s)
        runner = BatchRunner("batch", s, store, run_dir, SpecEndpointFactory(s, url), PRICES, poll_s=0, **options)
        return asyncio.run(runner.run([(x, task) for x in samples], [get_condition("intrinsic")]))


def stopped_batch_run(run_dir: Path, url: str, task, samples, model: str = MODEL) -> None:
    """A batch run killed once its batches are submitted and recorded, before any has ended."""
    def stop(counts):
        raise Stop(counts)

    with pytest.raises(Stop):
        batch_run(run_dir, url, task, samples, model, on_poll=stop)


def test_a_stopped_batch_run_resumes_with_nothing_lost_or_duplicated(tmp_path, work, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setattr(batch, "MAX_REQUESTS", 80)  # three batches: 80 + 80 + 40
    task, samples = work
    world = BatchWorld(responder(samples))
    failing = sorted(f"{x.id}|intrinsic|0" for x in samples[170:175])
    world.fail_once = set(failing)
    world.expire_first_batch_after = 60  # 20 requests of the first batch expire
    with LoopbackServer(handler(world)) as server:
        sync = sync_run(tmp_path, server.url, task, samples)
        run_dir = tmp_path / "batch"
        stopped_batch_run(run_dir, server.url, task, samples)
        state = json.loads((run_dir / STATE_FILE).read_text())
        assert [len(b["custom_ids"]) for b in state["batches"]] == [80, 80, 40]
        assert not stored(run_dir)
        progress: list[dict[str, int]] = []
        batch_run(run_dir, server.url, task, samples, on_poll=progress.append)  # --resume
    got = stored(run_dir)
    assert got.keys() == sync.keys() and len(got) == 200
    # a request is submitted again only when its batch ended without its reply: expired or failed, once each
    again = {cid for cid, n in world.submitted.items() if n > 1}
    first = next(iter(world.batches.values()))  # dicts keep insertion order: the first batch created
    expired = {line["custom_id"] for line in first["_lines"][60:]}
    assert len(expired) == 20 and again == expired | set(failing) and max(world.submitted.values()) == 2
    assert progress[-1] == {"submitted": 4, "in_progress": 0, "done": 4}
    for key, s in sync.items():
        b = got[key]
        assert (b.status, b.final_text, b.score, b.parsed, b.input_tokens, b.output_tokens) == \
            (s.status, s.final_text, s.score, s.parsed, s.input_tokens, s.output_tokens)
        assert b.cost_usd == pytest.approx(s.cost_usd / 2)  # OpenAI batch: half the list price
    statuses = {r.score.status for r in got.values()}
    assert {"answered", "truncated"} <= statuses
    assert sum(r.score.correct for r in got.values()) == sum(r.score.correct for r in sync.values()) > 0


def test_a_request_that_keeps_failing_is_stored_as_an_error(tmp_path, work, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    task, samples = work
    few = samples[:3]
    world = BatchWorld(responder(samples))
    with LoopbackServer(handler(world)) as server:
        cid = f"{few[0].id}|intrinsic|0"

        class AlwaysFail(set):
            def discard(self, item):  # never healed
                pass

        world.fail_once = AlwaysFail({cid})
        batch_run(tmp_path, server.url, task, few)
    got = stored(tmp_path)
    bad = got[(few[0].id, "intrinsic", 0)]
    assert bad.status == "error" and "HTTP 500" in bad.error and "after 3 submissions" in bad.error
    assert world.submitted[cid] == 3
    assert all(r.status == "ok" for k, r in got.items() if k[0] != few[0].id)


def test_a_model_without_batch_support_is_refused_in_one_line() -> None:
    from agents.scripted import ScriptedChatModel

    with pytest.raises(BatchUnsupported, match="--batch needs an OpenAI chat-completions, an Anthropic or a Gemini API model"):
        wire_for(ScriptedChatModel(script=lambda m, t: "x"))


def recorded_batches(run_dir: Path) -> list:
    """The batches the run directory records (none while the state file is absent or being written)."""
    try:
        return json.loads((run_dir / STATE_FILE).read_text())["batches"]
    except (OSError, ValueError, KeyError):
        return []


def test_cli_batch_run_killed_after_submission_resumes(tmp_path, work, monkeypatch) -> None:
    """``--batch`` through ``python -m evals.compare``: SIGKILL while the batch is open, then ``--resume``."""
    import os
    import signal
    import subprocess
    import sys
    import time

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    task, samples = work
    world = BatchWorld(responder(samples))
    world.hold = True  # batches stay in progress until released
    prices = tmp_path / "prices.toml"
    prices.write_text(f'["{MODEL}"]\ninput = 2.0\noutput = 8.0\n')
    run_dir = tmp_path / "run"
    with LoopbackServer(handler(world)) as server:
        argv = [sys.executable, "-m", "evals.compare", "--model", MODEL, "--base-url", server.url, "--api-key-env",
                "OPENAI_API_KEY", "--tasks", "gpsbench.distance", "--size", "667", "--conditions", "intrinsic",
                "--batch", "--limit", "30", "--prices", str(prices), "--output", str(run_dir)]
        proc = subprocess.Popen(argv, env=os.environ, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            for _ in range(600):  # the batch is recorded before the run waits on it
                if world.batches and recorded_batches(run_dir):
                    break
                time.sleep(0.1)
            proc.send_signal(signal.SIGKILL)
        finally:
            proc.wait(timeout=60)
        recorded = json.loads((run_dir / STATE_FILE).read_text())["batches"]
        assert len(recorded) == 1 and len(recorded[0]["custom_ids"]) == 30
        world.hold = False
        done = subprocess.run([sys.executable, "-m", "evals.compare", "--resume", str(run_dir), "--prices", str(prices)],
                              env=os.environ,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        sync = sync_run(tmp_path, server.url, task, samples[:30])
    got = stored(run_dir)
    assert max(world.submitted.values()) == 1 and len(world.batches) == 1  # the open batch was collected, not resent
    assert {k: (r.status, r.score) for k, r in got.items()} == {k: (r.status, r.score) for k, r in sync.items()}
    assert "batches: 1 submitted, 0 in progress, 1 done" in done.stdout + done.stderr
    assert all(r.cost_usd and r.meta.get("batch") for r in got.values())


def test_anthropic_message_batches_stop_resume_and_same_records(tmp_path, work, monkeypatch) -> None:
    """Anthropic Message Batches through the real anthropic client: hashed custom ids (64 characters at most),
    an expired request submitted again, a stop after submission, the same records as the Messages API run."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    task, samples = work
    few = samples[:40]
    world = AnthropicBatchWorld(responder(samples))
    with LoopbackServer(anthropic_handler(world)) as server:
        root = server.url.removesuffix("/v1")
        world.url = root
        world.expire_once = {batch.AnthropicWire.wire_id(f"{few[3].id}|intrinsic|0")}
        sync = sync_run(tmp_path, root, task, few, CLAUDE)
        run_dir = tmp_path / "batch"
        stopped_batch_run(run_dir, root, task, few, CLAUDE)
        assert not stored(run_dir) and len(world.batches) == 1
        batch_run(run_dir, root, task, few, CLAUDE)
    got = stored(run_dir)
    assert got.keys() == sync.keys() and len(got) == 40
    assert sorted(world.submitted.values()) == [1] * 39 + [2]  # only the expired request went again
    for key, s in sync.items():
        b = got[key]
        assert (b.status, b.final_text, b.score, b.input_tokens, b.output_tokens) == \
            (s.status, s.final_text, s.score, s.input_tokens, s.output_tokens)
        assert b.cost_usd == pytest.approx(s.cost_usd / 2)
    assert {r.score.status for r in got.values()} >= {"answered", "truncated"}  # max_tokens: truncated


def test_gemini_batch_200_items_stop_resume_expired_and_failed_resubmitted(tmp_path, work, monkeypatch) -> None:
    """Gemini's Batch API (https://ai.google.dev/gemini-api/docs/batch-api) through google-genai's
    ``client.aio.batches``: 200 inline requests in three batches, a stop after submission, the first batch EXPIRED
    with no output (its 80 requests go again), five requests answered with an error status (they go again), and
    the same records as the ``generateContent`` run at half the price."""
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key")
    monkeypatch.setattr(batch, "MAX_REQUESTS", 80)
    task, samples = work
    world = GeminiBatchWorld(responder(samples))
    world.expire_first = True
    failing = {f"{x.id}|intrinsic|0" for x in samples[170:175]}
    world.fail_once = set(failing)
    with LoopbackServer(gemini_handler(world)) as server:
        root = server.url.removesuffix("/v1")
        sync = sync_run(tmp_path, root, task, samples, GEMINI)
        run_dir = tmp_path / "batch"
        stopped_batch_run(run_dir, root, task, samples, GEMINI)
        assert not stored(run_dir) and [len(b["custom_ids"]) for b in recorded_batches(run_dir)] == [80, 80, 40]
        progress: list[dict[str, int]] = []
        batch_run(run_dir, root, task, samples, GEMINI, on_poll=progress.append)  # --resume
    got = stored(run_dir)
    assert got.keys() == sync.keys() and len(got) == 200
    first = next(iter(world.batches.values()))
    expired = {r["metadata"]["key"] for r in first["_rows"]}
    again = {cid for cid, n in world.submitted.items() if n > 1}
    assert len(expired) == 80 and again == expired | failing and max(world.submitted.values()) == 2
    sizes = [len(b["_rows"]) for b in world.batches.values()]
    assert sizes[:3] == [80, 80, 40] and sum(sizes[3:]) == 85  # resubmitted as each batch ended
    assert progress[-1] == {"submitted": len(sizes), "in_progress": 0, "done": len(sizes)}
    for key, s in sync.items():
        b = got[key]
        assert (b.status, b.final_text, b.score, b.parsed, b.input_tokens, b.output_tokens) == \
            (s.status, s.final_text, s.score, s.parsed, s.input_tokens, s.output_tokens)
        assert b.cost_usd == pytest.approx(s.cost_usd / 2)  # Gemini batch: half the list price
    assert {r.score.status for r in got.values()} >= {"answered", "truncated"}  # MAX_TOKENS: truncated
    assert sum(r.score.correct for r in got.values()) == sum(r.score.correct for r in sync.values()) > 0
