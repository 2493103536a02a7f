"""Each epoch's model endpoint for a run: the provider's chat model, our retries and the model-call cache."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from agents.call_cache import CallCache, CallStore, max_age_s
from agents.model_call import ModelCaller
from agents.model_spec import create_chat_model, parse_model
from agents.protocol import Asked, GenerationProtocol
from agents.providers import PROVIDERS
from evals.records import RunSpec
from evals.runner import Endpoint, retry_policy


def protocols(spec: RunSpec) -> dict[str, GenerationProtocol]:
    """The spec's protocol per task; for a spec stored without one, resolved now from its flags."""
    if spec.generation:
        return dict(spec.generation)
    model = parse_model(spec.model)
    flags = Asked(spec.max_tokens, spec.temperature, spec.reasoning_effort, spec.thinking_budget,
                  openai_api=spec.openai_api)
    resolved = PROVIDERS.get(model.provider).protocol(model.name, flags, Asked())
    return dict.fromkeys(spec.tasks or ["*"], resolved)


def cache_identity(spec: RunSpec, epoch: int, served: dict[str, Any],
                   protocol: GenerationProtocol | None = None) -> dict[str, Any]:
    """What names the model in the cache key (see :mod:`agents.call_cache`): provider/name, the generation
    parameters sent (``protocol.sent``), the seed and ``served``, what the provider says answers
    (:meth:`agents.providers.Provider.identity`)."""
    sent = (protocol or next(iter(protocols(spec).values()))).sent
    return {"model": spec.model, "generation": sent, "seed": spec.seed + epoch, **served}


@dataclasses.dataclass
class SpecEndpointFactory:
    """Each epoch's model (seed + epoch, LangChain retries off) and its caller (our retries, the cache).

    Picklable, so the Ray executor ships it to its workers: the cache is named by path and opened lazily in each
    process that calls the factory, or is ``shared_cache`` (the Ray executor's proxy of the driver's cache) when set.
    """

    spec: RunSpec
    base_url: str | None
    cache_path: Path | None = None
    served: dict[str, Any] = dataclasses.field(default_factory=dict)
    shared_cache: CallStore | None = None
    _cache: CallCache | None = dataclasses.field(default=None, repr=False, compare=False)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_cache": None}

    def cache(self) -> CallStore | None:
        if self.shared_cache is not None:
            return self.shared_cache
        if self.cache_path is not None and self._cache is None:
            self._cache = CallCache(self.cache_path)
        return self._cache

    def close(self) -> None:
        if self._cache is not None:
            self._cache.close()
            self._cache = None

    def _endpoint(self, epoch: int, protocol: GenerationProtocol) -> Endpoint:
        spec = self.spec
        settings = protocol.settings(timeout_s=min(spec.call_timeout_s, spec.sample_timeout_s), seed=spec.seed + epoch)
        provider = PROVIDERS.get(parse_model(spec.model).provider)
        needs_url = provider.base_url_hint is not None
        model = create_chat_model(spec.model, base_url=self.base_url or ("http://unused.invalid/v1" if needs_url else None),
                                  settings=settings, max_retries=0, api_key_env=spec.api_key_env,
                                  max_reply_bytes=spec.max_reply_bytes,
                                  **self._tier())
        cache = self.cache()
        caller = ModelCaller(retry_policy(spec), cache=cache,
                             identity=cache_identity(spec, epoch, self.served, protocol) if cache else None,
                             cache_max_age_s=max_age_s(spec.model, self.base_url))
        return Endpoint(model, caller, provider.forced_tool_choice if protocol.forced_tool_choice_ok else None)

    def _tier(self) -> dict[str, Any]:
        """``--service-tier``, sent by the provider's chat model (ChatOpenAI's ``service_tier``, Gemini: agents.gemini_tier)."""
        return {"service_tier": self.spec.service_tier} if self.spec.service_tier else {}

    def __call__(self, epoch: int) -> Endpoint:
        """The epoch's endpoint; tasks whose protocol differs from the first task's get their own."""
        built: dict[str, Endpoint] = {}
        per_task: dict[str, Endpoint] = {}
        for task, protocol in protocols(self.spec).items():
            key = json.dumps(protocol.model_dump(mode="json"), sort_keys=True)
            if key not in built:
                built[key] = self._endpoint(epoch, protocol)
            per_task[task] = built[key]
        first = next(iter(built.values()))
        return dataclasses.replace(first, per_task=per_task)
