"""A stand-in for the ``vllm`` CLI in tests: ``fake_vllm.py serve MODEL --host H --port P ...`` serves a tiny
OpenAI-compatible API (``/v1/models``, ``/v1/chat/completions`` answering ``FINAL ANSWER: 100 km``) and writes its
command line as JSON to ``$FAKE_VLLM_ARGV``. Stdlib only."""

from __future__ import annotations

import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main(argv: list[str]) -> None:
    if os.environ.get("FAKE_VLLM_ARGV"):
        with open(os.environ["FAKE_VLLM_ARGV"], "w") as f:
            json.dump(argv, f)
    assert argv[0] == "serve", argv
    model = argv[1]
    host, port = argv[argv.index("--host") + 1], int(argv[argv.index("--port") + 1])

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def _send(self, body: dict) -> None:
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802
            self._send({"object": "list", "data": [{"id": model, "object": "model"}]})

        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
            assert body.get("model") == model, body.get("model")
            self._send({"id": "x", "object": "chat.completion", "created": 0, "model": model,
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": "FINAL ANSWER: 100 km"}}],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 4, "total_tokens": 14}})

    ThreadingHTTPServer((host, port), Handler).serve_forever()


if __name__ == "__main__":
    main(sys.argv[1:])
