"""Model strings to chat models: ``provider/name`` parsed against the provider registry
(:data:`agents.providers.PROVIDERS`) and the LangChain chat model its provider builds. Above both
:mod:`agents.models` (settings, HTTP clients) and :mod:`agents.providers`, so neither imports the other back."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx
from langchain_core.language_models import BaseChatModel

from agents.http_pool import DEFAULT_MAX_REPLY_BYTES
from agents.models import GenerationSettings
from agents.providers import PROVIDERS, ClientOptions


class UnknownProviderError(ValueError):
    """A model string whose provider is not registered (:data:`agents.providers.PROVIDERS`)."""


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
            f"model must look like provider/name, got {spec!r}; providers: {', '.join(PROVIDERS.names())}")
    if provider not in PROVIDERS:
        raise UnknownProviderError(
            f"unknown provider {provider!r} in {spec!r}; valid providers: {', '.join(PROVIDERS.names())}")
    return ModelSpec(provider, name)


def create_chat_model(spec: str | ModelSpec, *, base_url: str | None = None, settings: GenerationSettings | None = None,
                      max_retries: int = 2, transport: httpx.BaseTransport | None = None,
                      async_transport: httpx.AsyncBaseTransport | None = None, api_key_env: str | None = None,
                      max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES, **extra: Any) -> BaseChatModel:
    """A LangChain chat model for ``spec``, built by its provider (:mod:`agents.providers`). ``local`` needs
    ``base_url`` of a running embedded server.

    ``api_key_env`` names the environment variable holding the key for ``base_url`` (see
    :meth:`agents.providers.Provider.api_key`); ``max_reply_bytes`` caps each reply body of the OpenAI-compatible
    providers."""
    ms = parse_model(spec) if isinstance(spec, str) else spec
    provider = PROVIDERS.get(ms.provider)
    client = ClientOptions(base_url, provider.api_key(base_url, api_key_env), max_retries, max_reply_bytes,
                           transport, async_transport)
    return provider.chat_model(ms.name, settings or GenerationSettings(), client, **extra)
