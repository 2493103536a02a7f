"""A loopback stand-in for OpenAI's Batch API and chat completions, following the documented protocol
(https://developers.openai.com/api/docs/guides/batch; request, output and error line formats; batch statuses):
``POST /v1/files`` (multipart, purpose ``batch``), ``POST /v1/batches``, ``GET /v1/batches/{id}`` (validating →
in_progress → an ended status), ``GET /v1/files/{id}/content`` and ``POST /v1/chat/completions``. Replies come from
one ``respond(body) -> (text, finish_reason)`` so a synchronous and a batched run get the same answers."""

from __future__ import annotations

import email.parser
import itertools
import json
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from loopback import QuietHandler

Respond = Callable[[dict[str, Any]], tuple[str, str]]


class BatchWorld:
    """The stand-in's state: files, batches, what to fail."""

    def __init__(self, respond: Respond) -> None:
        self.respond = respond
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.submitted: Counter[str] = Counter()
        self.fail_once: set[str] = set()  # custom ids answered with HTTP 500 the first time
        self.expire_first_batch_after = 0  # > 0: the first batch expires with only this many requests done
        self.hold = False  # True: batches stay in_progress
        self.ids = itertools.count(1)
        self.lock = threading.Lock()

    def completion(self, body: dict[str, Any]) -> dict[str, Any]:
        text, finish = self.respond(body)
        prompt_tokens = sum(len(str(m.get("content") or "")) // 4 for m in body["messages"])
        return {"id": f"chatcmpl-{next(self.ids)}", "object": "chat.completion", "created": int(time.time()),
                "model": body["model"], "choices": [{"index": 0, "finish_reason": finish, "logprobs": None,
                                                     "message": {"role": "assistant", "content": text}}],
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": len(text) // 4,
                          "total_tokens": prompt_tokens + len(text) // 4}}

    def create_batch(self, req: dict[str, Any]) -> dict[str, Any]:
        bid = f"batch_{next(self.ids)}"
        lines = [json.loads(x) for x in self.files[req["input_file_id"]].decode().splitlines() if x.strip()]
        for line in lines:
            assert line["method"] == "POST" and line["url"] == req["endpoint"] == "/v1/chat/completions"
            self.submitted[line["custom_id"]] += 1
        batch = {"id": bid, "object": "batch", "endpoint": req["endpoint"], "input_file_id": req["input_file_id"],
                 "completion_window": req["completion_window"], "status": "validating", "created_at": int(time.time()),
                 "output_file_id": None, "error_file_id": None, "metadata": req.get("metadata"),
                 "request_counts": {"total": len(lines), "completed": 0, "failed": 0}, "_lines": lines,
                 "_expire": self.expire_first_batch_after if not self.batches else 0}
        self.batches[bid] = batch
        return batch

    def advance(self, bid: str) -> dict[str, Any]:
        b = self.batches[bid]
        if b["status"] == "validating":
            b["status"] = "in_progress"
        elif b["status"] == "in_progress" and not self.hold:
            self._finish(b)
        return b

    def _finish(self, b: dict[str, Any]) -> None:
        out, err = [], []
        for i, line in enumerate(b["_lines"]):
            cid = line["custom_id"]
            if b["_expire"] and i >= b["_expire"]:
                err.append({"id": f"batch_req_{next(self.ids)}", "custom_id": cid, "response": None,
                            "error": {"code": "batch_expired", "message": "This request could not be executed "
                                      "before the completion window expired."}})
            elif cid in self.fail_once:
                self.fail_once.discard(cid)
                err.append({"id": f"batch_req_{next(self.ids)}", "custom_id": cid, "error": None,
                            "response": {"status_code": 500, "request_id": "req_x",
                                         "body": {"error": {"message": "internal error", "type": "server_error"}}}})
            else:
                out.append({"id": f"batch_req_{next(self.ids)}", "custom_id": cid, "error": None,
                            "response": {"status_code": 200, "request_id": f"req_{next(self.ids)}",
                                         "body": self.completion(line["body"])}})
        for key, rows in (("output_file_id", out), ("error_file_id", err)):
            if rows:
                fid = f"file-{next(self.ids)}"
                self.files[fid] = "".join(json.dumps(r) + "\n" for r in rows).encode()
                b[key] = fid
        b["status"] = "expired" if b["_expire"] else "completed"
        b["request_counts"] = {"total": len(b["_lines"]), "completed": len(out), "failed": len(err)}


def handler(world: BatchWorld) -> type[QuietHandler]:
    class Handler(QuietHandler):
        def _send(self, obj: Any, raw: bytes | None = None) -> None:
            data = raw if raw is not None else json.dumps(obj).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream" if raw is not None else "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _public(self, b: dict[str, Any]) -> dict[str, Any]:
            return {k: v for k, v in b.items() if not k.startswith("_")}

        def do_POST(self) -> None:  # noqa: N802
            body = self.rfile.read(int(self.headers["Content-Length"]))
            with world.lock:
                if self.path == "/v1/chat/completions":
                    return self._send(world.completion(json.loads(body)))
                if self.path == "/v1/files":
                    msg = email.parser.BytesParser().parsebytes(
                        b"Content-Type: " + self.headers["Content-Type"].encode() + b"\r\n\r\n" + body)
                    parts = {p.get_param("name", header="content-disposition"): p for p in msg.get_payload()}
                    assert parts["purpose"].get_payload(decode=True) == b"batch"
                    fid = f"file-{next(world.ids)}"
                    world.files[fid] = parts["file"].get_payload(decode=True)
                    return self._send({"id": fid, "object": "file", "bytes": len(world.files[fid]),
                                       "created_at": int(time.time()), "filename": "input.jsonl", "purpose": "batch",
                                       "status": "processed"})
                if self.path == "/v1/batches":
                    return self._send(self._public(world.create_batch(json.loads(body))))
            self.send_error(404)

        def do_GET(self) -> None:  # noqa: N802
            with world.lock:
                parts = self.path.split("/")
                if self.path.startswith("/v1/batches/"):
                    return self._send(self._public(world.advance(parts[3])))
                if self.path.startswith("/v1/files/") and self.path.endswith("/content"):
                    return self._send(None, world.files[parts[3]])
            self.send_error(404)

    return Handler


def last_text(body: dict[str, Any]) -> str:
    """The last message's text, whether its content is a string or a list of blocks (Gemini: the last content's
    text parts)."""
    if "contents" in body:
        return "".join(p.get("text", "") for p in body["contents"][-1]["parts"])
    content = body["messages"][-1]["content"]
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


class AnthropicBatchWorld:
    """Anthropic's Messages API and Message Batches (https://platform.claude.com/docs/en/build-with-claude/
    batch-processing): ``POST /v1/messages``, ``POST /v1/messages/batches``, ``GET /v1/messages/batches/{id}``
    (in_progress → ended) and its ``results_url`` (JSONL of succeeded / errored / expired results)."""

    def __init__(self, respond: Respond, url: str = "") -> None:
        self.respond, self.url = respond, url
        self.batches: dict[str, dict[str, Any]] = {}
        self.submitted: Counter[str] = Counter()
        self.expire_once: set[str] = set()  # custom ids (as sent) that expire the first time
        self.hold = False
        self.ids = itertools.count(1)
        self.lock = threading.Lock()

    def message(self, body: dict[str, Any]) -> dict[str, Any]:
        text, finish = self.respond(body)
        prompt = sum(len(str(m.get("content") or "")) // 4 for m in body["messages"])
        return {"id": f"msg_{next(self.ids)}", "type": "message", "role": "assistant", "model": body["model"],
                "content": [{"type": "text", "text": text}], "stop_sequence": None,
                "stop_reason": {"stop": "end_turn", "length": "max_tokens"}[finish],
                "usage": {"input_tokens": prompt, "output_tokens": len(text) // 4}}

    def public(self, b: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in b.items() if not k.startswith("_")}

    def create(self, req: dict[str, Any]) -> dict[str, Any]:
        bid = f"msgbatch_{next(self.ids)}"
        for r in req["requests"]:
            assert set(r) == {"custom_id", "params"} and len(r["custom_id"]) <= 64
            self.submitted[r["custom_id"]] += 1
        b = {"id": bid, "type": "message_batch", "processing_status": "in_progress",
             "request_counts": {"processing": len(req["requests"]), "succeeded": 0, "errored": 0, "canceled": 0,
                                "expired": 0},
             "created_at": "2026-12-03T12:00:00Z", "expires_at": "2026-12-04T12:00:00Z", "ended_at": None,
             "cancel_initiated_at": None, "archived_at": None, "results_url": None, "_requests": req["requests"],
             "_polls": 0}
        self.batches[bid] = b
        return b

    def retrieve(self, bid: str) -> dict[str, Any]:
        b = self.batches[bid]
        b["_polls"] += 1
        if b["processing_status"] == "in_progress" and b["_polls"] > 1 and not self.hold:
            rows = []
            for r in b["_requests"]:
                cid = r["custom_id"]
                if cid in self.expire_once:
                    self.expire_once.discard(cid)
                    rows.append({"custom_id": cid, "result": {"type": "expired"}})
                else:
                    rows.append({"custom_id": cid, "result": {"type": "succeeded", "message": self.message(r["params"])}})
            b["_results"] = "".join(json.dumps(x) + "\n" for x in rows).encode()
            b["processing_status"], b["ended_at"] = "ended", "2026-12-03T13:00:00Z"
            b["results_url"] = f"{self.url}/v1/messages/batches/{bid}/results"
        return b


def anthropic_handler(world: AnthropicBatchWorld) -> type[QuietHandler]:
    class Handler(QuietHandler):
        def _send(self, data: bytes, kind: str = "application/json") -> None:
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with world.lock:
                if self.path == "/v1/messages":
                    return self._send(json.dumps(world.message(body)).encode())
                if self.path == "/v1/messages/batches":
                    return self._send(json.dumps(world.public(world.create(body))).encode())
            self.send_error(404)

        def do_GET(self) -> None:  # noqa: N802
            with world.lock:
                parts = self.path.split("?")[0].split("/")
                if len(parts) == 5 and parts[3] == "batches":
                    return self._send(json.dumps(world.public(world.retrieve(parts[4]))).encode())
                if len(parts) == 6 and parts[5] == "results":
                    return self._send(world.batches[parts[4]]["_results"], "application/binary")
            self.send_error(404)

    return Handler


class GeminiBatchWorld:
    """Gemini's ``generateContent`` and Batch API (https://ai.google.dev/gemini-api/docs/batch-api and
    https://ai.google.dev/api/batch-api): ``POST /{version}/models/{m}:batchGenerateContent`` with inline requests
    answers an Operation ``batches/{id}`` (metadata: a GenerateContentBatch, ``BATCH_STATE_PENDING``);
    ``GET /{version}/batches/{id}`` moves it to RUNNING, then SUCCEEDED with ``metadata.output.inlinedResponses``
    in request order (without their metadata, as the API may leave it out) or EXPIRED with no output."""

    def __init__(self, respond: Respond) -> None:
        self.respond = respond
        self.batches: dict[str, dict[str, Any]] = {}
        self.submitted: Counter[str] = Counter()
        self.fail_once: set[str] = set()  # keys answered with an error status the first time
        self.expire_first = False  # True: the first batch ends EXPIRED with no responses
        self.hold = False
        self.ids = itertools.count(1)
        self.lock = threading.Lock()

    def generate(self, model: str, body: dict[str, Any]) -> dict[str, Any]:
        text, finish = self.respond(body)
        prompt = sum(len(p.get("text", "")) // 4 for c in body["contents"] for p in c["parts"])
        return {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
                                "finishReason": {"stop": "STOP", "length": "MAX_TOKENS"}[finish], "index": 0}],
                "usageMetadata": {"promptTokenCount": prompt, "candidatesTokenCount": len(text) // 4,
                                  "totalTokenCount": prompt + len(text) // 4},
                "modelVersion": model, "responseId": f"resp-{next(self.ids)}"}

    def create(self, model: str, req: dict[str, Any]) -> dict[str, Any]:
        rows = req["batch"]["inputConfig"]["requests"]["requests"]
        for r in rows:
            assert set(r) == {"request", "metadata"} and "contents" in r["request"]
            self.submitted[r["metadata"]["key"]] += 1
        name = f"batches/b{next(self.ids)}"
        meta = {"@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch",
                "model": f"models/{model}", "displayName": req["batch"]["displayName"], "name": name,
                "createTime": "2026-12-03T12:00:00Z", "updateTime": "2026-12-03T12:00:00Z",
                "batchStats": {"requestCount": str(len(rows)), "pendingRequestCount": str(len(rows))},
                "state": "BATCH_STATE_PENDING"}
        self.batches[name] = {"name": name, "metadata": meta, "_rows": rows, "_model": model,
                              "_expire": self.expire_first and not self.batches}
        return self.public(self.batches[name])

    def get(self, name: str) -> dict[str, Any]:
        b = self.batches[name]
        meta = b["metadata"]
        if meta["state"] == "BATCH_STATE_PENDING":
            meta["state"] = "BATCH_STATE_RUNNING"
        elif meta["state"] == "BATCH_STATE_RUNNING" and not self.hold:
            b["done"] = True
            if b["_expire"]:
                meta["state"] = "BATCH_STATE_EXPIRED"
            else:
                out = []
                for r in b["_rows"]:
                    if r["metadata"]["key"] in self.fail_once:
                        self.fail_once.discard(r["metadata"]["key"])
                        out.append({"error": {"code": 13, "message": "Internal error encountered."}})
                    else:
                        out.append({"response": self.generate(b["_model"], r["request"])})
                output = {"inlinedResponses": {"inlinedResponses": out}}
                meta.update(state="BATCH_STATE_SUCCEEDED", output=output, endTime="2026-12-03T13:00:00Z")
                b["response"] = {"@type": "type.googleapis.com/google.ai.generativelanguage.v1main."
                                 "GenerateContentBatchOutput", **output}
        return self.public(b)

    @staticmethod
    def public(b: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in b.items() if not k.startswith("_")}


def gemini_handler(world: GeminiBatchWorld) -> type[QuietHandler]:
    class Handler(QuietHandler):
        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            path = self.path.split("?")[0].split("/models/", 1)[-1]  # /v1beta/ or /v1/ (langchain-google-genai's)
            model, _, verb = path.partition(":")
            with world.lock:
                if verb == "generateContent":
                    return self.send_json(200, world.generate(model, body))
                if verb == "batchGenerateContent":
                    return self.send_json(200, world.create(model, body))
            self.send_error(404)

        def do_GET(self) -> None:  # noqa: N802
            name = self.path.split("?")[0].split("/", 2)[-1]
            with world.lock:
                if name in world.batches:
                    return self.send_json(200, world.get(name))
            self.send_error(404)

    return Handler
