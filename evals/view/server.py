"""The HTTP server: the standard library's ThreadingHTTPServer in front of ``Viewer.handle``.

It binds to 127.0.0.1 unless told otherwise and, while bound to loopback, answers only requests whose Host
header names loopback (a web page elsewhere cannot reach it through DNS rebinding).
"""

from __future__ import annotations

import ipaddress
import shutil
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from evals.view.app import SECURITY_HEADERS, Response, Viewer


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or address) is this machine's loopback interface."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _host_name(header: str) -> str:
    """The host part of a Host header (``[::1]:8000`` → ``::1``)."""
    if header.startswith("["):
        return header[1:header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def make_handler(viewer: Viewer, check_host: bool, quiet: bool = False) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "geogap-viewer"
        sys_version = ""

        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            self._answer(send_body=True)

        def do_HEAD(self) -> None:  # noqa: N802
            self._answer(send_body=False)

        def _not_allowed(self) -> None:
            self._send(Response(405, b"method not allowed", "text/plain; charset=utf-8", {"Allow": "GET, HEAD"}), True)

        do_POST = do_PUT = do_DELETE = do_PATCH = _not_allowed  # noqa: N815

        def _answer(self, send_body: bool) -> None:
            host = self.headers.get("Host", "")
            if check_host and not is_loopback(_host_name(host)):
                self._send(Response(400, b"bad Host header", "text/plain; charset=utf-8"), send_body)
                return
            self._send(viewer.handle(self.path), send_body)

        def _send(self, r: Response, send_body: bool) -> None:
            size = r.body.stat().st_size if isinstance(r.body, Path) else len(r.body)
            self.send_response(r.status)
            self.send_header("Content-Type", r.content_type)
            self.send_header("Content-Length", str(size))
            for k, v in {**SECURITY_HEADERS, **r.headers}.items():
                self.send_header(k, v)
            self.end_headers()
            if not send_body:
                return
            if isinstance(r.body, Path):
                with open(r.body, "rb") as f:
                    shutil.copyfileobj(f, self.wfile)
            else:
                self.wfile.write(r.body)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - http.server's signature
            if not quiet:
                sys.stderr.write(f"{self.address_string()} {format % args}\n")

    return Handler


def make_server(viewer: Viewer, host: str = "127.0.0.1", port: int = 0, quiet: bool = False) -> ThreadingHTTPServer:
    """A server bound to ``host``:``port`` (0 picks a free port: read it from ``server.server_address``)."""
    server = ThreadingHTTPServer((host, port), make_handler(viewer, check_host=is_loopback(host), quiet=quiet))
    server.daemon_threads = True
    return server


def url_of(server: ThreadingHTTPServer) -> str:
    host, port = server.server_address[:2]
    if isinstance(host, bytes):
        host = host.decode()
    shown = f"[{host}]" if ":" in str(host) else host
    return f"http://{shown}:{port}/"


def serve_in_thread(viewer: Viewer, host: str = "127.0.0.1", port: int = 0) -> tuple[ThreadingHTTPServer, str]:
    """Start a quiet server in a daemon thread (tests, notebooks); stop it with ``server.shutdown()``."""
    server = make_server(viewer, host, port, quiet=True)
    threading.Thread(target=server.serve_forever, daemon=True, name="viewer-http").start()
    return server, url_of(server)
