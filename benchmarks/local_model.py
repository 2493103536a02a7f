"""Benchmark 4: the embedded model's throughput with one slot vs N parallel slots, and prompt-cache reuse.

Throughput: the framework's embedded server (``agents.local_model.LocalModelServer``: xllamacpp, our chat
handler) is started with one slot, then with ``slots`` slots, back to back in the same invocation with the same
threads. Each time ``prompts`` intrinsic answers (greedy, ``max_tokens``; ChatOpenAI over HTTP, the intrinsic
answerer with its trace) are sent at once, as ``--max-connections`` would; the figure is output tokens per second
of wall time over the whole batch (prompt evaluation included), after one warm-up call.

Prompt cache (``tool_samples`` > 0, on the one-slot server): the tools condition (our LangGraph agent) answers a
few gpsbench.distance samples while a recording transport keeps the exact request bodies. The second step's
request (first prompt + the tool call + the tool result) is then replayed with ``max_tokens=1`` right after the
first step's request ("warm": the slot holds the first prompt) and right after an unrelated request ("cold"). If
the server reuses its cache between steps, warm prompt evaluation is much shorter than cold.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from common import median, table

SYSTEM = "You are a careful assistant. Answer in detail."
PROMPTS = [
    "Explain step by step how to compute the great-circle distance between Paris and Tokyo.",
    "Describe how time zones and daylight saving time work, with examples from three continents.",
    "Explain the difference between geodetic latitude and geocentric latitude, and why it matters.",
    "Describe how a GPS receiver determines its position from satellite signals.",
    "Explain how the Web Mercator projection distorts areas near the poles, with numbers.",
    "Describe how to test whether a point lies inside a polygon on a map.",
    "Explain what a UTM zone is and how to find the zone of a given longitude.",
]


class Recorder(httpx.AsyncBaseTransport):
    """Keeps the body of every chat completion request sent through it."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.bodies: list[dict[str, Any]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/chat/completions"):
            self.bodies.append(json.loads(request.content))
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def _batch(model: Any, prompts: list[str]) -> dict[str, Any]:
    """All ``prompts`` at once through the intrinsic answerer: wall time, output tokens, per-request latency."""
    from agents.intrinsic import answer_intrinsic
    from tasks.records import Message

    async def one(prompt: str) -> tuple[float, int]:
        t0 = time.perf_counter()
        res = await answer_intrinsic(model, [Message(role="system", content=SYSTEM), Message(role="user", content=prompt)])
        if res.trace[0].error:
            raise RuntimeError(f"a benchmark call failed: {res.trace[0].error}")
        return time.perf_counter() - t0, res.trace[0].output_tokens

    await one("Say hello.")  # warm-up (first-call set-up)
    t0 = time.perf_counter()
    done = await asyncio.gather(*(one(p) for p in prompts))
    wall = time.perf_counter() - t0
    tokens = sum(n for _, n in done)
    return {"requests": len(prompts), "output tokens": tokens, "wall s": wall, "tok/s": tokens / wall,
            "median request s": median([s for s, _ in done])}


async def _tool_steps(model: Any, recorder: Recorder, samples: int) -> list[dict[str, Any]]:
    from agents.model_call import ModelCaller
    from agents.tool_agent import AgentLimits, ToolAgent
    from evals.conditions import with_tools_note
    from tasks import get_task
    from tools.registry import get_tools

    task = get_task("gpsbench.distance")
    agent = ToolAgent(model, get_tools(list(task.toolsets)), AgentLimits(max_steps=4), ModelCaller())
    runs = []
    for sample in task.samples(limit=samples, seed=42):
        start = len(recorder.bodies)
        result = await agent.run(with_tools_note(sample.messages))
        steps = [e for e in result.trace if e.kind == "model_call"]
        runs.append({"sample": sample.id, "bodies": recorder.bodies[start:], "steps": steps})
    return runs


def _replay(base_url: str, runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Second-step prompt evaluation right after the first step (warm) vs after an unrelated prompt (cold)."""
    url = base_url + "/chat/completions"
    unrelated = {"model": "local", "messages": [{"role": "user", "content": "Name a colour."}], "max_tokens": 1}
    rows = []
    with httpx.Client(timeout=600) as client:
        def timed(body: dict[str, Any]) -> tuple[float, int]:
            t0 = time.perf_counter()
            out = client.post(url, json={**body, "max_tokens": 1}).json()
            return time.perf_counter() - t0, out["usage"]["prompt_tokens"]

        for run in runs:
            if len(run["bodies"]) < 2:
                continue
            first, second = run["bodies"][0], run["bodies"][1]
            _, p1 = timed(first)
            warm, p2 = timed(second)
            timed(unrelated)
            cold, _ = timed(second)
            rows.append({"sample": run["sample"], "step-1 prompt tokens": p1, "step-2 prompt tokens": p2,
                         "step-2 warm s": warm, "step-2 cold s": cold, "warm / cold": warm / cold,
                         "agent step latencies s": " / ".join(f"{e.latency_s:.1f}" for e in run["steps"]),
                         "agent step output tokens": " / ".join(str(e.output_tokens) for e in run["steps"])})
            print(f"  {run['sample']}: step-2 prompt {p2} tokens ({p2 - p1} new): warm {warm:.2f} s, cold {cold:.2f} s",
                  flush=True)
    return rows


def run(prompts: int = 4, max_tokens: int = 64, tool_samples: int = 0, slots: int = 4,
        threads: int | None = None) -> dict[str, Any]:
    from agents.local_model import DEFAULT_LOCAL_MODEL, LocalModelServer, default_threads
    from agents.model_spec import create_chat_model
    from agents.models import GenerationSettings

    threads = threads or default_threads()
    questions = [PROMPTS[i % len(PROMPTS)] for i in range(prompts)]
    rows: list[dict[str, Any]] = []
    cache_rows: list[dict[str, Any]] = []
    for n in (1, slots):
        with tempfile.TemporaryDirectory() as tmp, LocalModelServer(DEFAULT_LOCAL_MODEL, slots=n, threads=threads,
                                                                    log_path=Path(tmp) / "server.log") as server:
            recorder = Recorder()

            def chat(tokens: int, transport: Any = None, url: str = server.base_url) -> Any:
                settings = GenerationSettings(temperature=0.0, max_tokens=tokens, seed=0, timeout_s=1800)
                return create_chat_model(f"local/{DEFAULT_LOCAL_MODEL}", base_url=url, settings=settings,
                                         max_retries=0, async_transport=transport)

            row = {"slots": n, "threads": threads, **asyncio.run(_batch(chat(max_tokens), questions))}
            rows.append(row)
            print(f"  {n} slot(s): {row['output tokens']} tokens in {row['wall s']:.1f} s = {row['tok/s']:.2f} tok/s",
                  flush=True)
            if n == 1 and tool_samples:
                runs = asyncio.run(_tool_steps(chat(512, recorder), recorder, tool_samples))  # the runner's cap
                cache_rows = _replay(server.base_url, runs)
    ratio = rows[-1]["tok/s"] / rows[0]["tok/s"]
    print(table(rows, list(rows[0])))
    print(f"{slots} slots / 1 slot, output tokens/s: {ratio:.2f}")
    if cache_rows:
        print(table(cache_rows, list(cache_rows[0])))
        print(f"median warm / cold second-step prompt time: {median([r['warm / cold'] for r in cache_rows]):.2f}")
    return {"threads": threads, "max_tokens": max_tokens, "throughput": rows, "ratio": ratio,
            "prompt_cache": cache_rows}
