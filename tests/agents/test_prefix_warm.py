"""The prompt-head warm-up of the embedded server, with a stand-in for llama.cpp's completion (the real engine's
behaviour is tested in tests/e2e/test_embedded_model.py)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("jinja2")

from agents.llama_server import prompt_head, render_prompt  # noqa: E402
from agents.prefix_warm import MIN_HEAD_CHARS, SPREAD_PROMPT, PrefixWarmer  # noqa: E402

QWEN_TEMPLATE = json.loads((Path(__file__).parent / "data" / "xllamacpp_completions.json").read_text())["template"]
LONG_HEAD = "<|im_start|>system\n" + "Answer with the bearing in degrees. " * 80


class Recorder:
    """Stands in for ``Server.handle_completions``: records each prompt; blocks while ``gate`` is closed."""

    def __init__(self, fail: bool = False) -> None:
        self.prompts: list[str] = []
        self.gate = threading.Event()
        self.gate.set()
        self.fail = fail

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        assert request["max_tokens"] == 1 and request["cache_prompt"] is True
        self.prompts.append(request["prompt"])
        self.gate.wait(10)
        if self.fail:
            raise ConnectionError("engine gone")
        return {"choices": [{"text": "x"}]}


def test_a_long_head_is_warmed_once_with_a_distinct_entry_for_each_other_slot() -> None:
    complete = Recorder()
    warmer = PrefixWarmer(complete, slots=4)
    warmer.ready(LONG_HEAD)
    assert complete.prompts == [LONG_HEAD + "1", SPREAD_PROMPT, LONG_HEAD + "2", SPREAD_PROMPT,
                                LONG_HEAD + "3", SPREAD_PROMPT]
    warmer.ready(LONG_HEAD)
    assert len(complete.prompts) == 6  # warm already


@pytest.mark.parametrize(("slots", "head"), [(4, LONG_HEAD[:MIN_HEAD_CHARS - 1]), (1, LONG_HEAD)])
def test_short_heads_and_a_single_slot_send_nothing(slots: int, head: str) -> None:
    complete = Recorder()
    PrefixWarmer(complete, slots=slots).ready(head)
    assert complete.prompts == []


def test_a_request_with_a_head_being_warmed_waits_for_it() -> None:
    complete = Recorder()
    complete.gate.clear()
    warmer = PrefixWarmer(complete, slots=2)
    first = threading.Thread(target=warmer.ready, args=(LONG_HEAD,))
    second = threading.Thread(target=warmer.ready, args=(LONG_HEAD,))
    first.start()
    while not complete.prompts:
        threading.Event().wait(0.01)
    second.start()
    second.join(0.3)
    assert second.is_alive()  # still waiting for the first thread's warm-up
    complete.gate.set()
    first.join(5)
    second.join(5)
    assert not second.is_alive()
    assert complete.prompts == [LONG_HEAD + "1", SPREAD_PROMPT]  # one warm-up, not two


def test_a_failed_warm_up_lets_the_request_go_on() -> None:
    complete = Recorder(fail=True)
    PrefixWarmer(complete, slots=2).ready(LONG_HEAD)  # returns: the request then evaluates the head itself
    assert len(complete.prompts) == 2


def test_the_head_is_the_system_turn_with_the_tools_and_ends_before_the_question() -> None:
    tools = [{"type": "function", "function": {"name": "initial_bearing", "description": "Bearing.",
                                               "parameters": {"type": "object", "properties": {}}}}]
    system = {"role": "system", "content": "Answer with the bearing."}
    heads = []
    for question in ("From Paris to Rome?", "From Oslo to Lima?"):
        messages = [system, {"role": "user", "content": question}]
        prompt = render_prompt(QWEN_TEMPLATE, messages, tools)
        heads.append(prompt_head(QWEN_TEMPLATE, messages, tools, prompt))
        assert prompt.startswith(heads[-1]) and question not in heads[-1]
    assert heads[0] == heads[1]
    assert '"name": "initial_bearing"' in heads[0] and heads[0].startswith("<|im_start|>system\nAnswer with")
    other = prompt_head(QWEN_TEMPLATE, [system], None, render_prompt(QWEN_TEMPLATE, [system], None))
    assert "initial_bearing" not in other  # other tools, another head


def test_a_template_that_cannot_render_the_system_turn_alone_gives_no_head() -> None:
    """Some templates refuse a conversation that does not end with a user turn: the request goes on, unwarmed."""
    strict = "{% if messages[-1].role != 'user' %}{{ refuse() }}{% endif %}{% for m in messages %}{{ m.content }}{% endfor %}"
    messages = [{"role": "system", "content": "Be brief. "}, {"role": "user", "content": "Hi"}]
    prompt = render_prompt(strict, messages, None)
    assert prompt == "Be brief. Hi"
    assert prompt_head(strict, messages, None, prompt) == ""
