"""Benchmark 4: the embedded model through the framework vs raw llama-cpp-python, and prompt-cache reuse.

Throughput: the same GGUF (``agents.local_model.ensure_model_file``) loaded once in this process by raw
llama-cpp-python (``Llama.create_chat_completion``) and once in the framework's embedded server (our chat
handler, ChatOpenAI over HTTP, the intrinsic answerer with its trace). The same prompts (greedy, ``max_tokens``)
go to both, alternating which goes first; output tokens per second of wall time (prompt evaluation included on
both sides), median over prompts.

Prompt cache: the tools condition (our LangGraph agent) answers a few gpsbench.distance samples through the
server while a recording transport keeps the exact request bodies. The second step's request (first prompt +
the tool call + the tool result) is then replayed with ``max_tokens=1`` right after the first step's request
("warm": the server's KV cache holds the first prompt) and right after an unrelated request ("cold"). If the
server reuses its cache between steps, warm prompt evaluation is much shorter than cold.
"""

from __future__ import annotations

import asyncio
import json
import os
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


async def _throughput(raw: Any, model: Any, prompts: int, max_tokens: int) -> list[dict[str, Any]]:
    from agents.intrinsic import answer_intrinsic
    from tasks.records import Message

    def call_raw(prompt: str) -> tuple[float, int, str]:
        t0 = time.perf_counter()
        out = raw.create_chat_completion(messages=[{"role": "system", "content": SYSTEM},
                                                   {"role": "user", "content": prompt}],
                                         max_tokens=max_tokens, temperature=0.0, seed=0)
        return time.perf_counter() - t0, out["usage"]["completion_tokens"], out["choices"][0]["message"]["content"]

    async def call_framework(prompt: str) -> tuple[float, int, str]:
        t0 = time.perf_counter()
        res = await answer_intrinsic(model, [Message(role="system", content=SYSTEM), Message(role="user", content=prompt)])
        return time.perf_counter() - t0, res.trace[0].output_tokens, res.final_text

    call_raw("Say hello.")  # warm-up both sides (first-call set-up)
    await call_framework("Say hello.")
    rows = []
    for i, prompt in enumerate(PROMPTS[:prompts]):
        if i % 2 == 0:
            r, f = call_raw(prompt), await call_framework(prompt)
        else:
            f, r = await call_framework(prompt), call_raw(prompt)
        rows.append({"prompt": i + 1, "raw tokens": r[1], "raw s": r[0], "raw tok/s": r[1] / r[0],
                     "framework tokens": f[1], "framework s": f[0], "framework tok/s": f[1] / f[0],
                     "same text": r[2] == f[2]})
        print(f"  prompt {i + 1}: raw {r[1]} tok {r[1] / r[0]:.1f} tok/s · framework {f[1]} tok "
              f"{f[1] / f[0]:.1f} tok/s", flush=True)
    return rows


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


def run(prompts: int = 5, max_tokens: int = 128, tool_samples: int = 3) -> dict[str, Any]:
    from llama_cpp import Llama

    from agents.local_model import DEFAULT_LOCAL_MODEL, LocalModelServer, ensure_model_file
    from agents.models import GenerationSettings, create_chat_model

    threads = os.cpu_count() or 1
    path = ensure_model_file(DEFAULT_LOCAL_MODEL)
    raw = Llama(model_path=str(path), n_ctx=4096, n_threads=threads, n_threads_batch=threads, verbose=False)
    with tempfile.TemporaryDirectory() as tmp, LocalModelServer(DEFAULT_LOCAL_MODEL, n_threads=threads,
                                                                log_path=Path(tmp) / "server.log") as server:
        recorder = Recorder()

        def chat(tokens: int, transport: Any = None) -> Any:
            settings = GenerationSettings(temperature=0.0, max_tokens=tokens, seed=0, timeout_s=600)
            return create_chat_model(f"local/{DEFAULT_LOCAL_MODEL}", base_url=server.base_url, settings=settings,
                                     max_retries=0, async_transport=transport)

        async def measure() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
            through = await _throughput(raw, chat(max_tokens), prompts, max_tokens)
            del_raw()
            steps = await _tool_steps(chat(512, recorder), recorder, tool_samples)  # the runner's default cap
            return through, steps

        def del_raw() -> None:
            nonlocal raw
            raw.close()
            raw = None

        through, runs = asyncio.run(measure())
        cache_rows = _replay(server.base_url, runs)
    ratio = median([r["framework tok/s"] for r in through]) / median([r["raw tok/s"] for r in through])
    print(table(through, list(through[0])))
    print(f"framework / raw llama-cpp-python output tokens/s (medians): {ratio:.3f} (goal ≥ 0.9)")
    if cache_rows:
        print(table(cache_rows, list(cache_rows[0])))
        print(f"median warm / cold second-step prompt time: {median([r['warm / cold'] for r in cache_rows]):.2f}")
    return {"threads": threads, "max_tokens": max_tokens, "throughput": through, "ratio": ratio,
            "prompt_cache": cache_rows}
