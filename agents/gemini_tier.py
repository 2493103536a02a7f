"""A Gemini chat model that sends a service tier (``--service-tier flex``): langchain-google-genai 4.x keeps a
constructor's ``service_tier`` in ``model_kwargs`` and never sends it, but passes a call's ``service_tier`` on to
google-genai's ``GenerateContentConfig``, which sends ``serviceTier`` (https://ai.google.dev/gemini-api/docs/
flex-inference). Imported only for ``google/`` models (langchain-google-genai is an optional extra)."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import BaseMessage
from langchain_google_genai import ChatGoogleGenerativeAI


class GeminiWithTier(ChatGoogleGenerativeAI):
    """:class:`ChatGoogleGenerativeAI` whose every request carries ``service_tier``."""

    service_tier: str | None = None

    def _prepare_request(self, messages: list[BaseMessage], **kwargs: Any) -> dict[str, Any]:
        if self.service_tier:
            kwargs.setdefault("service_tier", self.service_tier)
        return super()._prepare_request(messages, **kwargs)  # type: ignore[no-any-return]
