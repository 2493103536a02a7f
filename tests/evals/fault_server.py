"""A local OpenAI-compatible chat endpoint for fault-injection tests (stdlib only, 127.0.0.1, port 0).

Each POST to ``/v1/chat/completions`` is answered by ``respond(body, headers, n)`` (``n`` counts requests from
0), which returns a :class:`Reply`: a completion (text or tool calls, with raw argument strings so malformed
JSON can be sent), an HTTP error with headers (429 + Retry-After, 500, ...), a delay before answering (client
timeouts), or raw bytes (truncated JSON). Every request's body and headers are kept in ``requests``.

Run as a script (``python fault_server.py --port N [--die-after K [--stored DB]] [--log FILE]``) it is a
stand-in for the embedded model server process: it answers every question with ``FINAL ANSWER: 100 km``,
appends each question to ``--log`` (one JSON string a line), and kills itself with SIGILL on request ``K``
(counted from 0), before answering it — as llama.cpp built for instructions the CPU cannot run does — once the
``K`` earlier replies are written and, with ``--stored``, once the run's store ``DB`` holds ``K`` results.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """How to answer one request."""

    status: int = 200
    body: Any = None
    raw: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    cut_at: int | None = None  # send only this many bytes of the body (its full length declared), then close


def completion(content: str | None = "", tool_calls: list[tuple[str, str]] | None = None,
               prompt_tokens: int = 11, completion_tokens: int = 5, cached_tokens: int = 0) -> Reply:
    """A chat completion; ``tool_calls`` are (name, raw JSON argument string) pairs."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = [{"id": f"call_{i}", "type": "function",
                                  "function": {"name": name, "arguments": args}}
                                 for i, (name, args) in enumerate(tool_calls)]
    usage: dict[str, Any] = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                             "total_tokens": prompt_tokens + completion_tokens}
    if cached_tokens:
        usage["prompt_tokens_details"] = {"cached_tokens": cached_tokens}
    return Reply(body={"id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": "fake",
                       "choices": [{"index": 0, "message": message,
                                    "finish_reason": "tool_calls" if tool_calls else "stop"}],
                       "usage": usage})


def error(status: int, message: str = "injected fault", headers: dict[str, str] | None = None) -> Reply:
    return Reply(status=status, body={"error": {"message": message, "type": "test", "code": status}},
                 headers=headers or {})


Responder = Callable[[dict[str, Any], dict[str, str], int], Reply]


class FaultServer:
    """``with FaultServer(respond) as server: ... server.url ...``"""

    def __init__(self, respond: Responder, port: int = 0) -> None:
        self.respond = respond
        self.requests: list[dict[str, Any]] = []
        self.answered = 0  # replies written in full
        self._lock = threading.Lock()
        self._answered_cv = threading.Condition(self._lock)
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:  # noqa: N802 - readiness probe of agents.server_process
                data = json.dumps({"object": "list", "data": [{"id": "local", "object": "model"}]}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                headers = {k.lower(): v for k, v in self.headers.items()}
                with outer._lock:
                    n = len(outer.requests)
                    outer.requests.append({"body": body, "headers": headers, "path": self.path})
                reply = outer.respond(body, headers, n)
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                data = reply.raw if reply.raw is not None else json.dumps(reply.body).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    if reply.cut_at is not None:
                        self.wfile.write(data[:reply.cut_at])
                        self.wfile.flush()
                        self.close_connection = True
                        self.connection.shutdown(socket.SHUT_RDWR)
                        return
                    self.wfile.write(data)
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
                    pass
                with outer._answered_cv:
                    outer.answered += 1
                    outer._answered_cv.notify_all()

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def wait_answered(self, count: int, timeout_s: float) -> bool:
        """Block until ``count`` replies have been written (or ``timeout_s`` passes)."""
        with self._answered_cv:
            return self._answered_cv.wait_for(lambda: self.answered >= count, timeout_s)

    def __enter__(self) -> FaultServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def user_prompt(body: dict[str, Any]) -> str:
    """The first user message of a request (the sample's question; later ones are agent nudges)."""
    return next((m.get("content") or "" for m in body.get("messages", []) if m.get("role") == "user"), "")


def tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in body.get("messages", []) if m.get("role") == "tool"]


def _wait_stored(db: str, count: int, timeout_s: float) -> None:
    """Block until the SQLite store ``db`` holds ``count`` results (or ``timeout_s`` passes)."""
    import sqlite3

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as con:
                if con.execute("SELECT count(*) FROM results").fetchone()[0] >= count:
                    return
        except sqlite3.Error:  # not created yet
            pass
        time.sleep(0.05)


def _serve_as_process() -> None:  # pragma: no cover - runs in a child process
    import argparse
    import resource
    import signal

    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--die-after", type=int)
    parser.add_argument("--log")
    parser.add_argument("--stored", help="a run's run.sqlite: die only once it holds --die-after results")
    args = parser.parse_args()

    def respond(body: dict[str, Any], headers: dict[str, str], n: int) -> Reply:
        print(f"fake model server: request {n}", flush=True)
        if args.die_after is not None and n >= args.die_after:
            # The requests before this one are answered first, and (with --stored) their results stored by the
            # run: a crash at once would race their replies, in flight on other threads and in the client.
            server.wait_answered(args.die_after, timeout_s=30)
            if args.stored:
                _wait_stored(args.stored, args.die_after, timeout_s=30)
            print("fake model server: executing an illegal instruction", flush=True)
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file
            signal.pthread_kill(threading.get_ident(), signal.SIGILL)  # this thread: no reply can slip out
            while True:
                time.sleep(1)
        if args.log:
            with open(args.log, "a") as f:
                f.write(json.dumps(user_prompt(body)) + "\n")
        return completion("FINAL ANSWER: 100 km")

    server = FaultServer(respond, port=args.port)
    print(f"fake model server on port {args.port}", flush=True)
    server.httpd.serve_forever()


if __name__ == "__main__":
    _serve_as_process()
