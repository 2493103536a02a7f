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
