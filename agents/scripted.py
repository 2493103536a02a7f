"""A scripted chat model: replies from a list or a function, for tests and benchmarks (no network)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict, PrivateAttr


class ScriptedChatModel(BaseChatModel):
    """Returns scripted replies in order (or from a function of the messages and offered tool names).

    ``bind_tools`` records the offered tool names and returns a model sharing the same script position, so
    one script drives a whole agent loop. Usage metadata counts words, so token accounting is exercised.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    script: Any
    tool_names: list[str] = []
    _state: dict[str, Any] = PrivateAttr(default_factory=lambda: {"i": 0, "calls": []})

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def calls(self) -> list[list[BaseMessage]]:
        """The messages of every call so far."""
        return self._state["calls"]

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:  # type: ignore[override]
        bound = ScriptedChatModel(script=self.script, tool_names=[getattr(t, "name", str(t)) for t in tools])
        bound._state = self._state
        return bound

    def _next(self, messages: list[BaseMessage]) -> AIMessage:
        self._state["calls"].append(list(messages))
        if callable(self.script):
            reply = self.script(messages, self.tool_names)
        else:
            i = self._state["i"]
            if i >= len(self.script):
                raise RuntimeError(f"scripted model has no reply #{i + 1}")
            reply = self.script[i]
            self._state["i"] = i + 1
        msg = AIMessage(reply) if isinstance(reply, str) else reply.model_copy()
        words_in = sum(len(str(m.content).split()) for m in messages)
        msg.usage_metadata = {"input_tokens": words_in, "output_tokens": len(str(msg.content).split()) + 1,
                              "total_tokens": words_in + len(str(msg.content).split()) + 1}
        return msg

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._next(messages))])
