"""Model resolution: ``provider/name`` strings to LangChain chat models.

Providers: ``local/<model>`` (the embedded llama.cpp server, started by the caller), ``openai/<m>``,
``anthropic/<m>``, ``google/<m>``, ``openai-compatible/<m>`` with a base URL (vLLM, llama.cpp, Ollama,
OpenRouter), ``vllm/<hf-id>`` (a ``vllm serve`` the caller starts on a GPU with ``agents.vllm_server``, or a
running vLLM server given by base URL). Keys come from the usual
environment variables and are never stored.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

import httpx
from langchain_core.language_models import BaseChatModel

from agents.http_pool import ShardedAsyncTransport

PROVIDERS: dict[str, str] = {
    "local": "embedded llama.cpp model (no key, no network)",
    "openai": "OpenAI API (OPENAI_API_KEY)",
    "anthropic": "Anthropic API (ANTHROPIC_API_KEY)",
    "google": "Google Gemini API (GOOGLE_API_KEY)",
    "openai-compatible": "any OpenAI-compatible server, needs --base-url (OPENAI_API_KEY optional)",
    "vllm": "vLLM: starts vllm serve with tool calling on a GPU machine, or --base-url of a running server",
}
DEFAULT_MODEL = "local/qwen2.5-coder-1.5b"
# Connection pool of our own sync HTTP clients: the OpenAI SDK's defaults. httpx's own (20 kept alive) would close
# and reopen most connections of a run with more concurrent samples than that. Async clients use
# agents.http_pool.ShardedAsyncTransport (pools of 16, as many as needed).
POOL_LIMITS = httpx.Limits(max_connections=1000, max_keepalive_connections=100, keepalive_expiry=5.0)


class UnknownProviderError(ValueError):
    """A model string whose provider is not one of ``PROVIDERS``."""


@dataclass(frozen=True)
class ModelSpec:
    provider: str
    name: str

    def __str__(self) -> str:
        return f"{self.provider}/{self.name}"


def parse_model(spec: str) -> ModelSpec:
    """Split ``provider/name``; the name may itself contain slashes (``vllm/Qwen/Qwen2.5-7B``)."""
    provider, sep, name = spec.partition("/")
    if not sep or not name:
        raise UnknownProviderError(
            f"model must look like provider/name, got {spec!r}; providers: {', '.join(PROVIDERS)}")
    if provider not in PROVIDERS:
        raise UnknownProviderError(f"unknown provider {provider!r} in {spec!r}; valid providers: {', '.join(PROVIDERS)}")
    return ModelSpec(provider, name)


@dataclass(frozen=True)
class GenerationSettings:
    """Settings sent with every call; part of the cache key."""

    temperature: float = 0.0
    max_tokens: int = 512
    timeout_s: float = 300.0
    seed: int | None = 0


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


def create_chat_model(spec: str | ModelSpec, *, base_url: str | None = None, settings: GenerationSettings | None = None,
                      max_retries: int = 2, transport: httpx.BaseTransport | None = None,
                      async_transport: httpx.AsyncBaseTransport | None = None, **extra: Any) -> BaseChatModel:
    """A LangChain chat model for ``spec``. ``local`` needs ``base_url`` of a running embedded server."""
    ms = parse_model(spec) if isinstance(spec, str) else spec
    s = settings or GenerationSettings()
    common: dict[str, Any] = {"temperature": s.temperature, "max_retries": max_retries, **extra}
    if ms.provider in ("local", "openai-compatible", "vllm"):
        if not base_url:
            hint = ("the embedded server is started by evals.compare" if ms.provider == "local"
                    else "pass --base-url http://host:port/v1")
            raise ValueError(f"{ms.provider}/ models need a base URL ({hint})")
        from langchain_openai import ChatOpenAI

        llama_like = ms.provider in ("local", "openai-compatible")
        return ChatOpenAI(
            model=ms.name, base_url=base_url,
            api_key=os.environ.get("OPENAI_API_KEY", "not-needed") if ms.provider != "local" else "local",
            max_tokens=s.max_tokens, timeout=s.timeout_s, seed=s.seed,
            http_client=httpx.Client(transport=LlamaCompatTransport(transport) if llama_like else transport,
                                     timeout=s.timeout_s) if llama_like or transport else None,
            http_async_client=httpx.AsyncClient(
                transport=AsyncLlamaCompatTransport(async_transport) if llama_like
                else async_transport or ShardedAsyncTransport(), timeout=s.timeout_s),
            **common,
        )
    if ms.provider == "openai":
        from langchain_openai import ChatOpenAI

        clients: dict[str, Any] = {}
        if transport:
            clients["http_client"] = httpx.Client(transport=transport)
        if async_transport:
            clients["http_async_client"] = httpx.AsyncClient(transport=async_transport)
        return ChatOpenAI(model=ms.name, base_url=base_url, max_tokens=s.max_tokens, timeout=s.timeout_s,
                          seed=s.seed, **clients, **common)
    if ms.provider == "anthropic":
        try:
            from langchain_anthropic import ChatAnthropic
        except ImportError:
            raise ValueError("anthropic/ models need langchain-anthropic: pip install -e '.[providers]'") from None
        kw = {"base_url": base_url} if base_url else {}
        return ChatAnthropic(model=ms.name, max_tokens=s.max_tokens, timeout=s.timeout_s, **kw, **common)
    if ms.provider == "google":
        try:
            from langchain_google_genai import ChatGoogleGenerativeAI
        except ImportError:
            raise ValueError("google/ models need langchain-google-genai: pip install -e '.[providers]'") from None
        return ChatGoogleGenerativeAI(model=ms.name, max_output_tokens=s.max_tokens, timeout=s.timeout_s, **common)
    raise UnknownProviderError(ms.provider)  # pragma: no cover - parse_model rejects it first
