"""A loopback HTTP server for tests: ``with LoopbackServer(Handler) as s: ... s.url ...`` (port chosen by the OS);
``QuietHandler`` is the HTTP/1.1 request handler base that logs nothing."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self


class QuietHandler(BaseHTTPRequestHandler):
    """HTTP/1.1 (keep-alive, as the OpenAI client expects) without request logging."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass

    def send_json(self, status: int, payload: object) -> None:
        """Reply ``status`` with ``payload`` as a JSON body."""
        raw = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


class LoopbackServer:
    """Serves ``handler`` on 127.0.0.1 in a daemon thread; ``url`` is its ``/v1`` base URL."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> Self:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
