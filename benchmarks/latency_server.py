"""A fixed-latency OpenAI-compatible chat endpoint (asyncio, HTTP/1.1 keep-alive, listen backlog 1024) for the
concurrency benchmark. Every chat completion waits ``latency`` seconds, then answers ``FINAL ANSWER: <n>`` with
the number of the last user message. Runs in its own process so it takes no CPU from the client measured.

    python benchmarks/latency_server.py --latency 0.05     # prints "PORT <n>", serves until killed
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re

NUMBER = re.compile(r"number (\d+)")


def completion(body: dict) -> dict:
    users = [m.get("content") or "" for m in body.get("messages", []) if m.get("role") == "user"]
    found = NUMBER.search(users[-1] if users else "")
    text = f"FINAL ANSWER: {found.group(1) if found else 0}"
    return {"id": "chatcmpl-bench", "object": "chat.completion", "created": 0, "model": body.get("model", "bench"),
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 4, "total_tokens": 16}}


async def serve(latency: float) -> None:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while line := await reader.readline():
                headers: dict[str, str] = {}
                while (h := await reader.readline()) not in (b"\r\n", b"\n", b""):
                    k, _, v = h.decode().partition(":")
                    headers[k.strip().lower()] = v.strip()
                body = await reader.readexactly(int(headers.get("content-length") or 0))
                method = line.split(b" ", 1)[0]
                if method == b"POST":
                    payload = completion(json.loads(body or b"{}"))
                    await asyncio.sleep(latency)
                else:
                    payload = {"object": "list", "data": [{"id": "bench", "object": "model"}]}
                data = json.dumps(payload).encode()
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: "
                             + str(len(data)).encode() + b"\r\n\r\n" + data)
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0, backlog=1024)
    print("PORT", server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--latency", type=float, default=0.05)
    asyncio.run(serve(p.parse_args().latency))


if __name__ == "__main__":
    main()
