"""A trivial echo task and scripted model for the framework-overhead and memory benchmarks.

Every sample asks to repeat a number; the scripted model answers ``FINAL ANSWER: <number>`` at once (no
network, no sleeps), so a run measures only the framework: the runner, the agent, parsing, scoring and the
run store. Samples are synthetic (made on the fly), so 100,000 of them cost about a second to build.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from langchain_core.outputs import ChatGeneration, ChatResult

from agents.scripted import ScriptedChatModel
from tasks.records import Message, Parsed, Sample, Score

NAME = "bench.echo"
_NUMBER = re.compile(r"FINAL ANSWER:\s*(-?\d+)")


class EchoTask:
    """Repeat the number in the prompt; exact match scores 1."""

    name = NAME
    family = "bench"
    toolsets: tuple[str, ...] = ()

    def samples(self, *, split: str = "test", limit: int | None = None, seed: int = 42) -> list[Sample]:
        return synthetic_samples(limit or 100)

    def parse(self, text: str, sample: Sample) -> Parsed:
        m = _NUMBER.search(text)
        return Parsed.success(text, int(m.group(1))) if m else Parsed.failure(text, "no FINAL ANSWER number")

    def score(self, parsed: Parsed, sample: Sample) -> Score:
        if not parsed.ok:
            return Score(correct=False, value=0.0, parse_failed=True)
        ok = parsed.value == sample.target
        return Score(correct=ok, value=float(ok))


def synthetic_sample(i: int) -> Sample:
    return Sample(id=f"{NAME}/test/{i:06d}", task=NAME, split="test", target=i,
                  messages=(Message(role="user", content=f"Repeat the number {i}. End with 'FINAL ANSWER: <n>'."),))


def synthetic_samples(n: int) -> list[Sample]:
    return [synthetic_sample(i) for i in range(n)]


def echo_policy(messages: Sequence[Any], tools: list[str]) -> str:
    """The scripted model's reply: the number of the last user message."""
    text = str(messages[-1].content)
    number = text.split("number ", 1)[1].split(".", 1)[0]
    return f"FINAL ANSWER: {number}"


class EchoModel(ScriptedChatModel):
    """The scripted echo model, natively async like inspect_ai's mockllm (ScriptedChatModel answers async calls
    in a worker thread), without the per-call history ScriptedChatModel keeps for tests (a 100k-sample run
    would otherwise hold every prompt in memory)."""

    def _next(self, messages: list[Any]) -> Any:
        reply = super()._next(messages)
        self._state["calls"].clear()
        return reply

    async def _agenerate(self, messages: list[Any], stop: list[str] | None = None, run_manager: Any = None,
                         **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._next(messages))])


def echo_model() -> EchoModel:
    return EchoModel(script=echo_policy)
