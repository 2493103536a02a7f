"""One model call with our own retries and cache, used by both conditions' agents.

Retries: rate limits (HTTP 429), server errors (5xx, 408), timeouts, dropped connections and unreadable
(truncated) response bodies are retried with exponential backoff and full jitter; a ``Retry-After`` /
``retry-after-ms`` header, or the ``retryDelay`` of a ``google.rpc.RetryInfo`` in the error body (Gemini), is
honoured (capped). Other errors (400, 401, 404, a model that raises) fail at once. Errors are classified by the
HTTP status code found on the exception or any exception it was raised from (``status_code``, ``code``,
``response.status_code``: the OpenAI, Anthropic and google-genai SDKs, and LangChain's wrappers of them), not by
the class name. LangChain's own ``max_retries`` should be 0 so every attempt is ours and visible: the trace event of a
call carries ``retries`` and ``retry_errors``.

Limits: ``RetryPolicy.attempt_timeout_s`` bounds each attempt's total wall clock (HTTP read timeouts bound only
the gap between two bytes, so a server that drips one byte a second would hold an attempt for ever); a timed-out
attempt is retried. A reply body over the transport's byte cap (:class:`agents.http_pool.ReplyTooLarge`) is cut
off and fails the call at once, recorded as ``reply_too_large`` in its trace event.

Cache: with a :class:`~agents.call_cache.CallCache`, a call whose key is stored returns the stored reply
without any network call and its trace event says ``cache_hit=True``.
"""

from __future__ import annotations

import asyncio
import copy
import email.utils
import json
import random
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from pydantic import BaseModel, ConfigDict, Field

from agents.call_cache import CallStore, cache_key
from agents.finish import finish_of
from agents.http_pool import ReplyTooLarge
from agents.messages import text_of, to_dict, usage
from agents.secrets import redact
from agents.trace import ModelCallEvent, TraceEvent

Sleep = Callable[[float], Awaitable[None]]


class RetryPolicy(BaseModel):
    """How often and how patiently a failed call is retried."""

    model_config = ConfigDict(frozen=True)

    max_attempts: int = Field(default=6, ge=1, description="Attempts per call, the first included")
    base_delay_s: float = Field(default=1.0, ge=0, allow_inf_nan=False,
                                description="Backoff before retry n is up to base·2^(n-1)")
    max_delay_s: float = Field(default=60.0, ge=0, allow_inf_nan=False, description="Cap of one backoff")
    max_retry_after_s: float = Field(default=120.0, ge=0, allow_inf_nan=False,
                                     description="Cap of an honoured Retry-After")
    attempt_timeout_s: float | None = Field(default=None, gt=0, allow_inf_nan=False,
                                            description="Wall-clock limit of one attempt (None: none)")

    def backoff(self, retry: int, rng: random.Random) -> float:
        """Full jitter: uniform in [0, min(cap, base·2^(retry-1))]."""
        return rng.uniform(0.0, min(self.max_delay_s, self.base_delay_s * 2 ** (retry - 1)))


@dataclass(frozen=True)
class Failure:
    """What a failed attempt was: whether to retry, a short label, and any server-requested delay."""

    retryable: bool
    label: str
    retry_after_s: float | None = None


def _mro_names(exc: BaseException) -> set[str]:
    return {c.__name__ for c in type(exc).__mro__}


def _own_status(exc: BaseException) -> int | None:
    for value in (getattr(exc, "status_code", None), getattr(getattr(exc, "response", None), "status_code", None),
                  getattr(exc, "code", None)):
        if isinstance(value, int) and not isinstance(value, bool) and 100 <= value < 600:
            return value
    return None


def http_status(exc: BaseException) -> int | None:
    """The HTTP status of a failed call: on the exception or the first exception of its cause chain that has one
    (LangChain's Google wrapper raises its own error from google-genai's, which carries the code)."""
    return next((s for e in _chain(exc) if (s := _own_status(e)) is not None), None)


def _duration_s(text: Any) -> float | None:
    """A protobuf Duration in JSON (``"41s"``, ``"0.5s"``) in seconds."""
    if isinstance(text, str) and text.endswith("s"):
        try:
            return max(0.0, float(text[:-1]))
        except ValueError:
            return None
    return None


def _error_body(exc: BaseException) -> Any:
    """The parsed JSON error body: google-genai's ``details``, the SDKs' ``body``, or the response's JSON."""
    for attr in ("details", "body"):
        value = getattr(exc, attr, None)
        if isinstance(value, (dict, list)):
            return value
    response = getattr(exc, "response", None)
    try:
        return response.json() if response is not None and hasattr(response, "json") else None
    except Exception:  # noqa: BLE001 - an unreadable or non-JSON body has no delay to give
        return None


def body_retry_delay(exc: BaseException) -> float | None:
    """Seconds from a ``google.rpc.RetryInfo`` detail (``retryDelay``) in the error body of ``exc`` or of an
    exception it was raised from (Gemini's 429 and 503 carry it)."""
    for e in _chain(exc):
        body = _error_body(e)
        body = body[0] if isinstance(body, list) and body else body
        error = body.get("error", body) if isinstance(body, dict) else None
        details = error.get("details") if isinstance(error, dict) else None
        for d in details if isinstance(details, list) else []:
            is_retry_info = isinstance(d, dict) and str(d.get("@type", "")).endswith("google.rpc.RetryInfo")
            if is_retry_info and (delay := _duration_s(d.get("retryDelay"))) is not None:
                return delay
    return None


def retry_after(exc: BaseException) -> float | None:
    """Seconds the server asked us to wait: ``retry-after-ms`` or ``Retry-After`` (seconds or a date) on the
    response of ``exc`` or of an exception it was raised from, else a RetryInfo in the error body."""
    for e in _chain(exc):
        if (delay := _header_delay(e)) is not None:
            return delay
    return body_retry_delay(exc)


def _header_delay(exc: BaseException) -> float | None:
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if not headers:
        return None
    try:
        if (ms := headers.get("retry-after-ms")) is not None:
            return max(0.0, float(ms) / 1000)
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            when = email.utils.parsedate_to_datetime(value)
            return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    e: BaseException | None = exc
    while e is not None and e not in out and len(out) < 16:
        out.append(e)
        e = e.__cause__ or e.__context__
    return out


CUT_BODY = "without sending complete message body"  # h11's words (under httpx and the SDKs) for a cut body


def classify(exc: BaseException) -> Failure:
    """Decide whether a failed call is worth retrying (works across the OpenAI, Anthropic and Google SDKs): by
    its HTTP status where it has one; timeouts, connection errors and cut bodies otherwise."""
    chain = _chain(exc)
    if any(isinstance(e, ReplyTooLarge) for e in chain):  # SDKs wrap it as a connection error
        return Failure(False, "reply_too_large")
    if any(CUT_BODY in str(e) for e in chain):  # the server answered, then cut its body: a reply, not no server
        return Failure(True, "bad_response")
    names = _mro_names(exc)
    status = http_status(exc)
    if isinstance(exc, TimeoutError) or any("Timeout" in n for n in names):
        return Failure(True, "timeout")
    if isinstance(exc, json.JSONDecodeError):  # a body cut short (some SDKs attach the 200 response to it)
        return Failure(True, "bad_response")
    if status == 429:
        return Failure(True, "rate_limit", retry_after(exc))
    if status is not None and (status >= 500 or status == 408):
        return Failure(True, f"server_error_{status}", retry_after(exc))
    if status is not None and status >= 400:
        return Failure(False, f"http_{status}")
    # httpx (OpenAI, Anthropic) and aiohttp (google-genai's async client) connection errors, or an OS-level
    # ConnectionError anywhere in the cause chain
    if names & {"APIConnectionError", "ConnectError", "ReadError", "RemoteProtocolError", "TransportError",
                "ClientConnectorError", "ServerDisconnectedError"} or \
            any(isinstance(e, ConnectionError) for e in _chain(exc)):
        return Failure(True, "connection")
    return Failure(False, type(exc).__name__)


def describe(exc: BaseException) -> str:
    chain = _chain(exc)
    cause = next((e for e in chain if isinstance(e, ReplyTooLarge) or CUT_BODY in str(e)), None)
    text = f"{type(exc).__name__}: {cause or exc}".strip()
    return redact(text[:500])


class ModelCallError(Exception):
    """A model call that failed for good; ``event`` is its trace event (status ``error``, with retries)."""

    def __init__(self, cause: BaseException, event: ModelCallEvent) -> None:
        super().__init__(event.error)
        self.cause = cause
        self.event = event


class AgentError(Exception):
    """An agent run that failed; ``trace`` holds the events recorded before (and of) the failure."""

    def __init__(self, message: str, trace: list[TraceEvent]) -> None:
        super().__init__(message)
        self.trace = trace


@dataclass
class CallOutcome:
    reply: AIMessage
    start: float
    latency_s: float
    retries: int = 0
    retry_errors: list[str] = field(default_factory=list)
    cache_hit: bool = False

    def event(self, messages_in: list[dict[str, Any]], tools_offered: list[str] | None = None) -> ModelCallEvent:
        """The trace event of this call: what was sent (``messages_in``, the messages new since the last call) and
        returned, its tokens, finish reason, cache hit and retries."""
        tin, tout, tcached = usage(self.reply)
        finish, finish_raw = finish_of(self.reply)
        return ModelCallEvent(start=self.start, latency_s=self.latency_s, messages_in=messages_in,
                              message_out=to_dict(self.reply), raw_text=text_of(self.reply), input_tokens=tin,
                              output_tokens=tout, cached_tokens=tcached, cache_hit=self.cache_hit, retries=self.retries,
                              retry_errors=self.retry_errors, tools_offered=tools_offered, finish_reason=finish,
                              finish_reason_raw=finish_raw)


class ModelCaller:
    """Calls a chat model (or a tool-bound runnable) with retries and an optional cache.

    ``identity`` names the model for the cache key (provider/name, what is served, generation settings); calls
    are cached only when both ``cache`` and ``identity`` are given; stored replies older than ``cache_max_age_s``
    are not used.
    """

    def __init__(self, retry: RetryPolicy | None = None, cache: CallStore | None = None,
                 identity: Mapping[str, Any] | None = None, sleep: Sleep | None = None,
                 rng: random.Random | None = None, cache_max_age_s: float | None = None) -> None:
        self.retry = retry or RetryPolicy()
        self.cache_max_age_s = cache_max_age_s
        self.cache = cache if identity is not None else None
        self.identity = dict(identity or {})
        self.sleep = sleep or asyncio.sleep
        self.rng = rng or random.Random()

    def keyed(self, **extra: Any) -> ModelCaller:
        """This caller (same retries, same cache) whose cache key also names ``extra`` (a forced tool choice, the
        answer channel): calls that differ only there are different requests."""
        out = copy.copy(self)
        out.identity = {**self.identity, **extra}
        return out

    async def _attempt(self, runnable: Runnable[Any, Any], messages: Sequence[BaseMessage]) -> Any:
        limit = self.retry.attempt_timeout_s
        if limit is None:
            return await runnable.ainvoke(list(messages))
        try:
            return await asyncio.wait_for(runnable.ainvoke(list(messages)), limit)
        except TimeoutError:
            raise TimeoutError(f"no complete reply within --call-timeout {limit:g} s") from None

    async def call(self, runnable: Runnable[Any, Any], messages: Sequence[BaseMessage],
                   tools: Sequence[BaseTool] = ()) -> CallOutcome:
        key = cache_key(self.identity, messages, tools) if self.cache is not None else None
        start = time.time()
        if key is not None and self.cache is not None and (hit := self.cache.get(key, self.cache_max_age_s)) is not None:
            return CallOutcome(hit, start, time.time() - start, cache_hit=True)
        errors: list[str] = []
        attempt = 0
        while True:
            attempt += 1
            try:
                reply = await self._attempt(runnable, messages)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - classified below
                failure = classify(exc)
                errors.append(f"{failure.label}: {describe(exc)}")
                if not failure.retryable or attempt >= self.retry.max_attempts:
                    detail = describe(exc) if failure.label == type(exc).__name__ else f"{failure.label}: {describe(exc)}"
                    if attempt > 1:
                        detail += f" (after {attempt} attempts)"
                    event = ModelCallEvent(start=start, latency_s=time.time() - start, retries=attempt - 1,
                                           retry_errors=errors[:-1], status="error", error=detail)
                    raise ModelCallError(exc, event) from exc
                delay = self.retry.backoff(attempt, self.rng)
                if failure.retry_after_s is not None:
                    wait = min(failure.retry_after_s, self.retry.max_retry_after_s)
                    delay = wait + self.rng.uniform(0.0, 0.1 * wait)
                await self.sleep(delay)
                continue
            if not isinstance(reply, AIMessage):
                raise TypeError(f"the model returned {type(reply).__name__}, not an AIMessage")
            if key is not None and self.cache is not None:
                self.cache.put(key, str(self.identity.get("model", "")), reply)
            return CallOutcome(reply, start, time.time() - start, retries=attempt - 1, retry_errors=errors)


DEFAULT_CALLER = ModelCaller()
