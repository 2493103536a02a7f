"""A loopback stand-in that replays recorded provider replies (``tests/replies/*.json``: the body, its source and
what was changed) to the real client libraries, and records every request it got.

``Replay(answer)`` serves ``answer(path, request_body) -> reply body`` for every POST (status 200, JSON) and a
``GET .../models`` listing, so an OpenAI-compatible run can tell what is served. ``root`` is the bare
``http://127.0.0.1:port`` (Anthropic and Gemini SDKs add their own paths), ``url`` the ``/v1`` base URL.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.loopback import LoopbackServer, QuietHandler

REPLIES = Path(__file__).parent / "replies"
Answer = Callable[[str, dict[str, Any]], dict[str, Any]]


def recorded(name: str) -> dict[str, Any]:
    """A fresh copy of the recorded reply body ``tests/replies/<name>.json``."""
    return copy.deepcopy(json.loads((REPLIES / f"{name}.json").read_text())["body"])


def user_text(request: dict[str, Any]) -> str:
    """The last user message's text of an OpenAI, Anthropic or Gemini request body."""
    for m in reversed(request.get("messages") or []):
        if m.get("role") == "user":
            content = m["content"]
            return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)
    for c in reversed(request.get("contents") or []):
        if c.get("role") == "user":
            return "".join(p.get("text", "") for p in c.get("parts", []))
    return ""


class Replay(LoopbackServer):
    """Answers each POST with ``answer(path, body)``; ``requests`` holds (path, body) of every POST."""

    def __init__(self, answer: Answer) -> None:
        self.requests: list[tuple[str, dict[str, Any]]] = []
        outer = self

        class Handler(QuietHandler):
            def _send(self, data: dict[str, Any]) -> None:
                raw = json.dumps(data).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def do_GET(self) -> None:  # noqa: N802
                self._send({"object": "list", "data": [{"id": "stand-in", "object": "model", "owned_by": "tests"}]})

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                outer.requests.append((self.path, body))
                self._send(answer(self.path, body))

        super().__init__(Handler)
        self.root = self.url.removesuffix("/v1")
