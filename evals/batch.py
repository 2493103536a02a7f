"""``--batch``: single-call conditions (intrinsic, note-only) through a provider's batch API at batch prices:
OpenAI's Batch API (:class:`OpenAIWire`, described below) and Anthropic's Message Batches (:class:`AnthropicWire`:
requests inline, custom ids hashed to the 64 characters it allows, results streamed once the batch has ended).

Each missing (sample, condition, epoch) is asked exactly as the synchronous run asks it, through the same
condition, caller and chat model, but the chat model (:class:`BatchChatModel`) defers the request: the body the
provider's LangChain model would POST to ``/v1/chat/completions`` is written as one JSONL line with
``custom_id`` = ``sample id|condition|epoch``, uploaded (``files.create``, purpose ``batch``) and submitted
(``batches.create``, window 24 h), up to :data:`MAX_REQUESTS` per batch. The batches' ids are recorded in the run
directory (:data:`STATE_FILE`) before anything is waited for. ``batches.retrieve`` is polled; once a batch has
ended (completed, expired, failed, cancelled) its output file (``files.content``) is read and every reply is
answered through the same path as a synchronous reply (LangChain's own response parsing, then the task's parser
and scorer, the finish-reason statuses and the store), so a batch run stores the same records with the same
statuses as a synchronous one; only the latency (the batch's wait, not measured per request) differs. Requests
that failed or expired are submitted again in a new batch, up to ``--max-attempts`` times, after which the sample
is stored as an error. Cost is priced at the provider's batch tier (``evals/data/tiers.toml``).

A run that stops (killed, Ctrl-C) keeps its stored results and :data:`STATE_FILE`; ``--resume`` reads the recorded
batches, collects the finished ones and waits for the rest: a request is never submitted while a batch holding it
is still open, and a result is stored once per (sample, condition, epoch).
Protocol: https://developers.openai.com/api/docs/guides/batch (input and output line formats, statuses, limits).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult
from langchain_openai import ChatOpenAI
from pydantic import BaseModel, ConfigDict, Field

from evals.conditions import Condition
from evals.pricing import PriceTable
from evals.records import RunSpec
from evals.report import write_text_atomic
from evals.runner import Endpoint, answer_sample
from evals.store import RunStore
from tasks.base import Task
from tasks.records import Sample

STATE_FILE = "batches.json"
MAX_REQUESTS = 100_000  # per batch, at most; each provider's own limit applies below it
ENDED = ("completed", "expired", "failed", "cancelled")
ENDPOINT = "/v1/chat/completions"
POLL_FIRST_S, POLL_MAX_S = 0.5, 60.0  # batches are polled after 0.5 s, then twice as long each time, up to a minute


class BatchUnsupported(ValueError):
    """The run's model cannot go through a batch API (one line, shown to the user)."""


class Deferred(Exception):
    """The request went into a batch; its reply comes later."""


class BatchChatModel(BaseChatModel):
    """Answers one request from its batch reply, or records the request body and raises :class:`Deferred`."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    inner: BaseChatModel
    wire: Any  # the provider's Wire: builds the request body, reads the reply
    custom_id: str
    replies: Any  # Mapping[str, dict]: typed Any so that pydantic keeps the runner's dicts, not copies
    requests: Any  # dict[str, dict]: filled here, read by the runner

    @property
    def _llm_type(self) -> str:
        return "geogap-batch"

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        if self.custom_id in self.replies:
            return self.wire.reply(self.inner, self.replies[self.custom_id])
        body = self.wire.payload(self.inner, messages, stop, **kwargs)
        body.pop("service_tier", None)  # a batch is its own tier
        body.pop("stream", None)
        self.requests[self.custom_id] = body
        raise Deferred(self.custom_id)

    async def _agenerate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                         run_manager: AsyncCallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        return self._generate(messages, stop, **kwargs)


class BatchRecord(BaseModel):
    """One submitted batch as the run directory records it."""

    id: str
    input_file_id: str
    custom_ids: list[str]
    files: list[str] = Field(default_factory=list, description="Result files (OpenAI: output and error files)")
    status: str = "validating"
    collected: bool = Field(default=False, description="Its replies are stored (or resubmitted)")


class BatchState(BaseModel):
    """The run's batches and how often each request was submitted (``batches.json``)."""

    batches: list[BatchRecord] = Field(default_factory=list)
    submissions: dict[str, int] = Field(default_factory=dict)
    last_error: dict[str, str] = Field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> BatchState:
        return cls.model_validate_json(path.read_text()) if path.is_file() else cls()

    def save(self, path: Path) -> None:
        write_text_atomic(path, self.model_dump_json(indent=1))

    def open_ids(self) -> set[str]:
        return {c for b in self.batches if b.status not in ENDED for c in b.custom_ids}

    def counts(self) -> dict[str, int]:
        """Batches submitted, in progress and done (ended)."""
        ended = sum(1 for b in self.batches if b.status in ENDED)
        return {"submitted": len(self.batches), "in_progress": len(self.batches) - ended, "done": ended}


def custom_id(sample: Sample, cond: Condition, epoch: int) -> str:
    return f"{sample.id}|{cond.name}|{epoch}"


Line = tuple[str, dict[str, Any] | None, str | None]
"""One result of a batch: custom id, reply body (None when it failed) and the reason it failed."""


class OpenAIWire:
    """OpenAI's Batch API: a JSONL file of chat-completions requests (https://developers.openai.com/api/docs/guides/batch)."""

    name = "openai"
    max_requests, max_bytes = 50_000, 190 * 1024 * 1024

    def __init__(self, model: ChatOpenAI) -> None:
        self.client = model.root_async_client

    @staticmethod
    def payload(inner: Any, messages: list[BaseMessage], stop: list[str] | None, **kwargs: Any) -> dict[str, Any]:
        """The body the provider's LangChain model would POST for ``messages``."""
        return inner._get_request_payload(messages, stop=stop, **kwargs)  # type: ignore[no-any-return]

    @staticmethod
    def reply(inner: Any, body: dict[str, Any]) -> ChatResult:
        return inner._create_chat_result(body)  # type: ignore[no-any-return]

    async def submit(self, run_id: str, requests: list[tuple[str, dict[str, Any]]]) -> BatchRecord:
        data = "".join(json.dumps({"custom_id": cid, "method": "POST", "url": ENDPOINT, "body": body}) + "\n"
                       for cid, body in requests).encode()
        f = await self.client.files.create(file=("geogap-batch.jsonl", data, "application/jsonl"), purpose="batch")
        b = await self.client.batches.create(input_file_id=f.id, endpoint=ENDPOINT, completion_window="24h",
                                             metadata={"geogap_run": run_id})
        return BatchRecord(id=b.id, input_file_id=f.id, custom_ids=[c for c, _ in requests], status=b.status)

    async def status(self, record: BatchRecord) -> str:
        got = await self.client.batches.retrieve(record.id)
        record.files = [f for f in (got.output_file_id, got.error_file_id) if f]
        return str(got.status)

    async def results(self, record: BatchRecord) -> list[Line]:
        out: list[Line] = []
        for file_id in record.files:
            text = (await self.client.files.content(file_id)).text
            for raw in filter(None, (x.strip() for x in text.splitlines())):
                rec = json.loads(raw)
                response, error = rec.get("response") or {}, rec.get("error")
                if response.get("status_code") == 200 and isinstance(response.get("body"), dict):
                    out.append((rec["custom_id"], response["body"], None))
                else:
                    detail = error or (response.get("body") or {}).get("error") or response
                    out.append((rec["custom_id"], None, f"HTTP {response.get('status_code')}: {detail}" if response
                                else str(detail)))
        return out


class AnthropicWire:
    """Anthropic's Message Batches (https://platform.claude.com/docs/en/build-with-claude/batch-processing):
    requests as ``{custom_id, params}``, custom ids of at most 64 letters, digits, ``-`` and ``_`` (ours are
    hashed), results streamed as JSONL once ``processing_status`` is ``ended``."""

    name = "anthropic"
    max_requests, max_bytes = 100_000, 250 * 1024 * 1024

    def __init__(self, model: Any) -> None:
        import anthropic

        # a client of its own: langchain-anthropic caches one async HTTP client per process, bound to the first
        # event loop that uses it, and the synchronous conditions run on another loop after this one
        self.client = anthropic.AsyncAnthropic(**model._client_params)

    payload = staticmethod(OpenAIWire.payload)

    @staticmethod
    def wire_id(cid: str) -> str:
        return "g" + hashlib.sha256(cid.encode()).hexdigest()[:48]

    @staticmethod
    def reply(inner: Any, body: dict[str, Any]) -> ChatResult:
        from anthropic.types import Message

        return inner._format_output(Message.model_validate(body))  # type: ignore[no-any-return]

    async def submit(self, run_id: str, requests: list[tuple[str, dict[str, Any]]]) -> BatchRecord:
        b = await self.client.messages.batches.create(
            requests=[{"custom_id": self.wire_id(cid), "params": body}  # type: ignore[typeddict-item]
                      for cid, body in requests])
        return BatchRecord(id=b.id, input_file_id="", custom_ids=[c for c, _ in requests],
                           status="in_progress" if b.processing_status != "ended" else "completed")

    async def status(self, record: BatchRecord) -> str:
        got = await self.client.messages.batches.retrieve(record.id)
        return "completed" if got.processing_status == "ended" else str(got.processing_status)

    async def results(self, record: BatchRecord) -> list[Line]:
        ours = {self.wire_id(c): c for c in record.custom_ids}
        out: list[Line] = []
        async for r in await self.client.messages.batches.results(record.id):
            cid = ours.get(r.custom_id)
            if cid is None:
                continue
            if r.result.type == "succeeded":
                out.append((cid, r.result.message.model_dump(mode="json"), None))
            else:
                err = getattr(r.result, "error", None)
                out.append((cid, None, f"{r.result.type}: {err.model_dump(mode='json') if err else ''}".rstrip(": ")))
        return out


GEMINI_STATES = {"JOB_STATE_SUCCEEDED": "completed", "JOB_STATE_FAILED": "failed", "JOB_STATE_CANCELLED": "cancelled",
                 "JOB_STATE_EXPIRED": "expired"}


class GeminiWire:
    """Gemini's Batch API (https://ai.google.dev/gemini-api/docs/batch-api) through google-genai's
    ``client.aio.batches``: inline ``GenerateContentRequest`` s (``models/{m}:batchGenerateContent``, each with
    ``metadata.key`` = custom id, under 20 MB per batch: larger runs go as several batches, the JSONL-file input is not
    used), ``batches.get`` polled until the job ends; inline responses come back in the order of the requests
    (the API may leave out their metadata), each a ``GenerateContentResponse`` or an ``error`` status."""

    name = "google"
    max_requests, max_bytes = MAX_REQUESTS, 19 * 1024 * 1024

    def __init__(self, model: Any) -> None:
        from google import genai

        api = model.client._api_client  # a client of its own (same key and HTTP options), on the batch's event loop
        self.client = genai.Client(api_key=api.api_key, http_options=api._http_options).aio
        self.model = model.model

    @staticmethod
    def payload(inner: Any, messages: list[BaseMessage], stop: list[str] | None, **kwargs: Any) -> dict[str, Any]:
        """The ``contents`` and ``config`` langchain-google-genai would send to ``generateContent``, as JSON."""
        req = inner._prepare_request(messages, stop=stop, **kwargs)
        config = req["config"].model_dump(mode="json", exclude_none=True) if req.get("config") else None
        if config:
            config.pop("service_tier", None)  # a batch is its own tier
        return {"contents": [c.model_dump(mode="json", exclude_none=True) for c in req["contents"]], "config": config}

    @staticmethod
    def reply(inner: Any, body: dict[str, Any]) -> ChatResult:
        from google.genai.types import GenerateContentResponse
        from langchain_google_genai.chat_models import _response_to_result

        return _response_to_result(GenerateContentResponse.model_validate(body))

    async def submit(self, run_id: str, requests: list[tuple[str, dict[str, Any]]]) -> BatchRecord:
        from google.genai.types import InlinedRequest

        src = [InlinedRequest.model_validate({**body, "metadata": {"key": cid}}) for cid, body in requests]
        job = await self.client.batches.create(model=self.model, src=src,  # type: ignore[arg-type]
                                               config={"display_name": f"geogap-{run_id}"})
        return BatchRecord(id=str(job.name), input_file_id="", custom_ids=[c for c, _ in requests],
                           status=self._status(job))

    @staticmethod
    def _status(job: Any) -> str:
        state = getattr(job.state, "value", str(job.state))
        return GEMINI_STATES.get(state, "in_progress")

    async def status(self, record: BatchRecord) -> str:
        return self._status(await self.client.batches.get(name=record.id))

    async def results(self, record: BatchRecord) -> list[Line]:
        job = await self.client.batches.get(name=record.id)
        out: list[Line] = []
        for i, r in enumerate((job.dest.inlined_responses or []) if job.dest else []):
            key = (r.metadata or {}).get("key")
            cid = key if key in record.custom_ids else record.custom_ids[i] if i < len(record.custom_ids) else None
            if cid is None:
                continue
            if r.response is not None and r.error is None:
                out.append((cid, r.response.model_dump(mode="json", exclude_none=True), None))
            else:
                err = r.error.model_dump(mode="json", exclude_none=True) if r.error else "no response"
                out.append((cid, None, f"error: {err}"))
        return out


Wire = OpenAIWire | AnthropicWire | GeminiWire


def wire_for(model: BaseChatModel) -> Wire:
    """The batch API of the run's chat model, or :class:`BatchUnsupported`."""
    if isinstance(model, ChatOpenAI) and not model._use_responses_api({}):
        return OpenAIWire(model)
    if type(model).__name__ == "ChatAnthropic" or any(c.__name__ == "ChatAnthropic" for c in type(model).__mro__):
        return AnthropicWire(model)
    if any(c.__name__ == "ChatGoogleGenerativeAI" for c in type(model).__mro__) and not model._use_vertexai:  # type: ignore[attr-defined]
        return GeminiWire(model)
    raise BatchUnsupported(f"--batch needs an OpenAI chat-completions, an Anthropic or a Gemini API model; {type(model).__name__} "
                           "has no batch support here (see docs/cost.md)")


def _chunks(requests: list[tuple[str, dict[str, Any]]], max_requests: int,
            max_bytes: int) -> list[list[tuple[str, dict[str, Any]]]]:
    """``requests`` cut into batches of at most ``max_requests`` requests and about ``max_bytes`` of JSON."""
    out: list[list[tuple[str, dict[str, Any]]]] = [[]]
    size = 0
    for cid, body in requests:
        n = len(json.dumps(body)) + len(cid) + 64
        if out[-1] and (len(out[-1]) >= min(max_requests, MAX_REQUESTS) or size + n > max_bytes):
            out.append([])
            size = 0
        out[-1].append((cid, body))
        size += n
    return [c for c in out if c]


class BatchRunner:
    """Answers the single-call conditions of a run through the Batch API (see the module docstring)."""

    def __init__(self, run_id: str, spec: RunSpec, store: RunStore, run_dir: Path, endpoint: Callable[[int], Endpoint],
                 prices: PriceTable | None = None, *, poll_s: float = POLL_MAX_S,
                 on_poll: Callable[[dict[str, int]], None] | None = None) -> None:
        self.run_id, self.spec, self.store = run_id, spec, store
        self.path = Path(run_dir) / STATE_FILE
        self.endpoint = endpoint
        self.prices = prices.at_tier(spec.model, "batch") if prices is not None else None
        self.poll_s, self.on_poll = poll_s, on_poll
        self.state = BatchState.load(self.path)
        self.replies: dict[str, dict[str, Any]] = {}
        self._endpoints: dict[int, Endpoint] = {}

    def _ep(self, epoch: int) -> Endpoint:
        if epoch not in self._endpoints:
            self._endpoints[epoch] = self.endpoint(epoch)
        return self._endpoints[epoch]

    async def run(self, work: Sequence[tuple[Sample, Task]], conditions: Sequence[Condition]) -> int:
        """Answer every missing (sample, single-call condition, epoch); returns the results stored."""
        singles = [c for c in conditions if getattr(c, "single_call", False)]  # plug-ins may lack it
        wire = wire_for(self._ep(0).model)
        written = rounds = 0
        answer = True  # the first round answers from the cache and the ended batches, and submits the rest
        while True:
            if await self._collect(wire) or answer:
                answer = False
                done = self.store.completed()
                pending = [(s, t, c, e) for c in singles for e in range(self.spec.epochs) for s, t in work
                           if (s.id, c.name, e) not in done]
                requests: dict[str, dict[str, Any]] = {}
                for sample, task, cond, epoch in pending:
                    written += await self._answer(wire, sample, task, cond, epoch, requests)
                for b in self.state.batches:
                    if b.status in ENDED:
                        b.collected = True
                await self._submit(wire, {k: v for k, v in requests.items() if k not in self.state.open_ids()})
                self.state.save(self.path)
                if not requests:
                    if self.on_poll is not None:
                        self.on_poll(self.state.counts())
                    return written
            if self.on_poll is not None:
                self.on_poll(self.state.counts())
            # every request left is in an open batch: wait, then look again (nothing is re-asked until one ends)
            await asyncio.sleep(min(self.poll_s, POLL_FIRST_S * 2 ** rounds))
            rounds += 1

    async def _answer(self, wire: Wire, sample: Sample, task: Task, cond: Condition, epoch: int,
                      requests: dict[str, dict[str, Any]]) -> int:
        cid = custom_id(sample, cond, epoch)
        ep = self._ep(epoch)
        ep = ep.per_task.get(sample.task, ep)
        model = BatchChatModel(inner=ep.model, wire=wire, custom_id=cid, replies=self.replies, requests=requests)
        tries = self.state.submissions.get(cid, 0)
        result = await answer_sample(self.run_id, self.spec, sample, task, cond, Endpoint(model, ep.caller), epoch,
                                     prices=self.prices, attempts=max(tries, 1))
        if cid in requests:  # deferred: its reply is not in yet
            if tries < self.spec.max_attempts or cid in self.state.open_ids():
                return 0
            del requests[cid]  # submitted as often as allowed: an error, with the batch's reason
            why = self.state.last_error.get(cid, "no reply")
            result = result.model_copy(update={"error": f"batch: {why} (after {tries} submissions)"})
        self.store.add_result(result.model_copy(update={"meta": {**result.meta, "batch": True}}))
        return 1

    async def _submit(self, wire: Wire, requests: dict[str, dict[str, Any]]) -> None:
        for chunk in _chunks(sorted(requests.items()), wire.max_requests, wire.max_bytes):
            self.state.batches.append(await wire.submit(self.run_id, chunk))
            for cid, _ in chunk:
                self.state.submissions[cid] = self.state.submissions.get(cid, 0) + 1
            self.state.save(self.path)  # recorded before anything waits on it

    async def _collect(self, wire: Wire) -> int:
        """Refresh the open batches; read the replies of every ended batch not collected yet (an ended one again
        after a stop); returns how many."""
        ended = 0
        for b in self.state.batches:
            if b.collected:
                continue
            b.status = await wire.status(b)
            if b.status not in ENDED:
                continue
            ended += 1
            for cid, body, error in await wire.results(b):
                if body is not None:
                    self.replies[cid] = body
                    self.state.last_error.pop(cid, None)
                else:
                    self.state.last_error[cid] = error or "failed"
            for cid in b.custom_ids:
                if cid not in self.replies:
                    self.state.last_error.setdefault(cid, f"no reply in batch {b.id} ({b.status})")
        self.state.save(self.path)
        return ended


def run_batched(run_id: str, spec: RunSpec, store: RunStore, run_dir: Path, work: Sequence[tuple[Sample, Task]],
                conditions: Sequence[Condition], endpoint: Callable[[int], Endpoint], prices: PriceTable | None = None,
                **options: Any) -> int:
    """Synchronous entry: :meth:`BatchRunner.run` on a fresh event loop (text answer channel only)."""
    if spec.answer_channel != "text":
        raise BatchUnsupported("--batch takes only --answer-channel text (a batch request carries no final_answer "
                               "tool); drop --batch or the structured channel")
    return asyncio.run(BatchRunner(run_id, spec, store, run_dir, endpoint, prices, **options).run(work, conditions))

