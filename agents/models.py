"""Model resolution: ``provider/name`` strings to LangChain chat models.

Providers: ``local/<model>`` (the embedded llama.cpp server, started by the caller), ``openai/<m>``,
``anthropic/<m>``, ``google/<m>``, ``openai-compatible/<m>`` with a base URL (vLLM, llama.cpp, Ollama,
OpenRouter), ``vllm/<hf-id>`` (a ``vllm serve`` the caller starts on a GPU with ``agents.vllm_server``, or a
running vLLM server given by base URL). Keys come from the usual
environment variables and are never stored.

Keys go only where they belong: ``OPENAI_API_KEY`` is sent to the OpenAI API (``openai/`` without a base URL,
or a base URL on ``api.openai.com``), ``ANTHROPIC_API_KEY`` to ``api.anthropic.com`` and ``GOOGLE_API_KEY`` to
``generativelanguage.googleapis.com``, and to no other server unless the user names the variable that holds the
key for ``--base-url`` (``api_key_env``; :meth:`agents.providers.Provider.api_key`). A plain-``http`` base URL that is not loopback is flagged by
:func:`insecure_url` (prompts and keys would cross the network unencrypted). Replies of OpenAI-compatible
providers are capped at ``max_reply_bytes`` (:mod:`agents.http_pool`).
"""

from __future__ import annotations

import functools
import hashlib
import ipaddress
import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import httpx
from langchain_core.messages import AIMessage, InvalidToolCall

from agents.http_pool import (
    CappedAsyncTransport,
    CappedTransport,
    ShardedAsyncTransport,
)

if TYPE_CHECKING:
    from langchain_openai import ChatOpenAI

DEFAULT_MODEL = "local/qwen2.5-coder-1.5b"
# Connection pool of our own sync HTTP clients: the OpenAI SDK's defaults. httpx's own (20 kept alive) would close
# and reopen most connections of a run with more concurrent samples than that. Async clients use
# agents.http_pool.ShardedAsyncTransport (pools of 16, as many as needed).
POOL_LIMITS = httpx.Limits(max_connections=1000, max_keepalive_connections=100, keepalive_expiry=5.0)


OPENAI_HOST = "api.openai.com"
ANTHROPIC_HOST = "api.anthropic.com"
GOOGLE_HOST = "generativelanguage.googleapis.com"


def host_of(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


def is_loopback_url(url: str) -> bool:
    """Whether ``url`` names this machine (localhost, 127.0.0.0/8, ::1)."""
    host = host_of(url)
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def insecure_url(url: str | None) -> bool:
    """A plain-http URL to another machine: prompts, answers and any key cross the network unencrypted."""
    return bool(url) and urlsplit(str(url)).scheme.lower() == "http" and not is_loopback_url(str(url))


class MissingKeyError(ValueError):
    """``api_key_env`` names an environment variable that is not set."""


@dataclass(frozen=True)
class GenerationSettings:
    """Settings sent with every call (a resolved :class:`agents.protocol.GenerationProtocol` gives them for a run).

    ``max_tokens`` is the output cap sent (each provider's own parameter); ``temperature`` None sends none (the
    model's own); ``reasoning_effort`` (OpenAI-style ``reasoning_effort``), ``thinking_budget`` (Gemini
    ``thinking_budget``, Claude ``budget_tokens``) and ``thinking_level`` (Gemini 3) are sent when set; ``api``
    picks OpenAI's Responses API (``"responses"``) or chat completions; ``thinking`` is Claude's thinking parameter
    as sent (adaptive or a budget; ``reasoning_effort`` is then its ``output_config.effort``); ``enable_thinking``
    goes to an OpenAI-compatible server as ``chat_template_kwargs``."""

    temperature: float | None = 0.0
    max_tokens: int = 512
    timeout_s: float = 300.0
    seed: int | None = 0
    reasoning_effort: str | None = None
    thinking_budget: int | None = None
    thinking_level: str | None = None
    api: str | None = None
    thinking: dict[str, Any] | None = None
    enable_thinking: bool | None = None
    replay_reasoning: bool = False


def _fix_llama_request(request: httpx.Request) -> httpx.Request:
    """llama.cpp servers ignore ``max_completion_tokens`` and reject ``content: null``: rewrite the body."""
    if request.method != "POST" or not request.url.path.endswith("/chat/completions"):
        return request
    try:
        body = json.loads(request.content)
    except (ValueError, UnicodeDecodeError):
        return request
    if "max_completion_tokens" in body and "max_tokens" not in body:
        body["max_tokens"] = body["max_completion_tokens"]
    for m in body.get("messages", []):
        if m.get("content") is None:
            m["content"] = ""
    content = json.dumps(body).encode()
    headers = {k: v for k, v in request.headers.items() if k.lower() != "content-length"}
    return httpx.Request(request.method, request.url, headers=headers, content=content, extensions=request.extensions)


class LlamaCompatTransport(httpx.BaseTransport):
    """Rewrites chat requests for llama.cpp servers, then sends them through ``inner``."""

    def __init__(self, inner: httpx.BaseTransport | None = None) -> None:
        self.inner = inner or httpx.HTTPTransport(limits=POOL_LIMITS)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self.inner.handle_request(_fix_llama_request(request))

    def close(self) -> None:
        self.inner.close()


class AsyncLlamaCompatTransport(httpx.AsyncBaseTransport):
    """Async twin of :class:`LlamaCompatTransport`."""

    def __init__(self, inner: httpx.AsyncBaseTransport | None = None) -> None:
        self.inner = inner or ShardedAsyncTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await self.inner.handle_async_request(_fix_llama_request(request))

    async def aclose(self) -> None:
        await self.inner.aclose()


def _split_non_object_calls(data: dict[str, Any]) -> dict[int, list[InvalidToolCall]]:
    """Remove from each choice of a chat completion the tool calls whose arguments are valid JSON but not an
    object; return them per choice index as invalid tool calls (LangChain would fail the whole reply)."""
    from langchain_core.messages.tool import invalid_tool_call

    bad: dict[int, list[InvalidToolCall]] = {}
    for i, choice in enumerate(data.get("choices") or []):
        message = choice.get("message") or {}
        keep = []
        for call in message.get("tool_calls") or []:
            fn = call.get("function") or {}
            try:
                args = json.loads(fn.get("arguments") or "{}")
            except (TypeError, ValueError):
                keep.append(call)  # not JSON: LangChain records it as an invalid call itself
                continue
            if isinstance(args, dict):
                keep.append(call)
            else:
                bad.setdefault(i, []).append(invalid_tool_call(
                    name=fn.get("name"), args=fn.get("arguments"), id=call.get("id"),
                    error=f"the arguments are a JSON {type(args).__name__}, not an object"))
        if i in bad:
            message["tool_calls"] = keep or None
    return bad


TOOL_CALL_TEXT = re.compile(r"<tool_call>|\{\s*\"name\"\s*:\s*\"[^\"]+\"\s*,\s*\"(?:arguments|parameters)\"\s*:")


def reasoning_flag(content: Any, reasoning: str, has_calls: bool) -> str | None:
    """What a reply with reasoning leaves only in its reasoning: ``"tool call written inside the reasoning"``
    (a call in the reasoning text and none in ``tool_calls``), ``"answer only in the reasoning"`` (empty
    ``content``), or None. Either is a server artefact (a reasoning parser that kept everything), never the
    model's answer."""
    if not reasoning or has_calls:
        return None
    if TOOL_CALL_TEXT.search(reasoning):
        return "tool call written inside the reasoning"
    if not (content.strip() if isinstance(content, str) else content):
        return "answer only in the reasoning"
    return None


def _split_reasoning(data: dict[str, Any]) -> dict[int, str]:
    """Per choice index, the reasoning of a chat completion, taken out of the answer: a server's
    ``reasoning_content`` / ``reasoning`` field (vLLM's reasoning parsers, DeepSeek), or text up to a closing
    ``</think>`` left in ``content`` by a server without one (moved out of ``content``). ChatOpenAI drops both
    fields; kept, they go to the trace and never to the answer parser."""
    out: dict[int, str] = {}
    for i, choice in enumerate(data.get("choices") or []):
        message = choice.get("message") or {}
        text = message.get("reasoning_content") or message.get("reasoning")
        content = message.get("content")
        if isinstance(content, str) and "</think>" in content:
            head, _, tail = content.rpartition("</think>")
            message["content"] = tail.lstrip()
            text = "\n".join(t for t in (text, head.replace("<think>", "", 1).strip()) if t)
        if isinstance(text, str) and text:
            out[i] = text
    return out


@functools.cache
def chat_openai_class() -> type[ChatOpenAI]:
    from langchain_openai import ChatOpenAI

    class GeoChatOpenAI(ChatOpenAI):
        """ChatOpenAI whose replies keep tool calls with non-object arguments as invalid calls (for the agent
        to answer with a tool error) instead of failing the whole reply, and which, with ``replay_reasoning``,
        sends each assistant message's reasoning back as ``reasoning_content`` (DeepSeek's thinking mode needs it
        on assistant tool-call messages; other servers never get it: ChatOpenAI drops it)."""

        replay_reasoning: bool = False

        def _get_request_payload(self, input_: Any, *, stop: list[str] | None = None, **kwargs: Any) -> dict:
            payload = super()._get_request_payload(input_, stop=stop, **kwargs)
            if self.replay_reasoning and "messages" in payload:
                messages = self._convert_input(input_).to_messages()
                for sent, message in zip(payload["messages"], messages, strict=False):
                    if isinstance(message, AIMessage) and (text := message.additional_kwargs.get(
                            "reasoning_content")):
                        sent["reasoning_content"] = text
            return payload

        def _create_chat_result(self, response: Any, generation_info: dict[str, Any] | None = None) -> Any:
            data = response if isinstance(response, dict) else response.model_dump()
            bad = _split_non_object_calls(data)
            reasoning = _split_reasoning(data)
            if not bad and not reasoning:
                return super()._create_chat_result(response, generation_info)
            result = super()._create_chat_result(data, generation_info)
            choices = data.get("choices") or []
            for i, text in reasoning.items():
                message = result.generations[i].message
                message.additional_kwargs["reasoning_content"] = text
                reply = (choices[i].get("message") or {}) if i < len(choices) else {}
                if flag := reasoning_flag(reply.get("content"), text, bool(reply.get("tool_calls"))):
                    message.additional_kwargs["reasoning_flag"] = flag
            for i, calls in bad.items():
                message = result.generations[i].message
                assert isinstance(message, AIMessage), "ChatOpenAI replies are AI messages"
                message.invalid_tool_calls.extend(calls)
            return result

    return GeoChatOpenAI


def http_clients(llama_like: bool, transport: httpx.BaseTransport | None,
                  async_transport: httpx.AsyncBaseTransport | None, max_reply_bytes: int,
                  timeout: float) -> dict[str, Any]:
    """Sync and async httpx clients for ChatOpenAI: reply cap, llama.cpp request fixes where needed, pooling."""
    sync: httpx.BaseTransport = transport or httpx.HTTPTransport(limits=POOL_LIMITS)
    asyn: httpx.AsyncBaseTransport = async_transport or ShardedAsyncTransport()
    if llama_like:
        sync, asyn = LlamaCompatTransport(sync), AsyncLlamaCompatTransport(asyn)
    return {"http_client": httpx.Client(transport=CappedTransport(sync, max_reply_bytes), timeout=timeout),
            "http_async_client": httpx.AsyncClient(transport=CappedAsyncTransport(asyn, max_reply_bytes),
                                                   timeout=timeout)}


def probe_served(base_url: str, model: str, api_key: str | None = None, timeout_s: float = 10.0) -> dict[str, Any]:
    """What the server at ``base_url`` says it serves: the ``/models`` entry of ``model`` (or of every model it
    lists, hashed when many), its ``Server`` header and, where it has one (vLLM), ``/version``. Raises OSError
    (or an httpx error) when the server cannot tell."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    root = base_url.rstrip("/")
    volatile = {"created", "permission", "object"}  # vLLM stamps "created" with the request time
    with httpx.Client(timeout=timeout_s, headers=headers, transport=CappedTransport(httpx.HTTPTransport(),
                                                                                     1024 * 1024)) as client:
        r = client.get(root + "/models")
        r.raise_for_status()
        data = r.json().get("data")
        if not isinstance(data, list):
            raise OSError(f"{root}/models did not list models")
        entries = [{k: v for k, v in m.items() if k not in volatile} for m in data if isinstance(m, dict)]
        mine = [m for m in entries if m.get("id") == model] or entries
        listed: Any = sorted(json.dumps(m, sort_keys=True) for m in mine)
        if len(listed) > 8:
            listed = "sha256:" + hashlib.sha256("\n".join(listed).encode()).hexdigest()
        out: dict[str, Any] = {"models": listed, "server": r.headers.get("server")}
        base = root[:-3] if root.endswith("/v1") else root
        try:
            v = client.get(base + "/version")
            if v.status_code == 200 and isinstance(v.json(), dict):
                out["version"] = v.json()
        except (httpx.HTTPError, ValueError):
            pass
    return out
