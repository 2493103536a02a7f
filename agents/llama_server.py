"""Entry point of the embedded model server: llama-cpp-python's OpenAI-compatible app with our chat handler.

Run by :class:`agents.local_model.LocalModelServer` as ``python -m agents.llama_server --model PATH --port N``.
The ``geogap-tools`` chat handler renders the GGUF's own chat template (tools included, with single braces in
the call example, tool-call arguments as objects, ``null`` content as ``""``), generates with ``max_tokens``
honoured, and turns ``<tool_call>`` blocks, fenced JSON or inline JSON naming a known tool into real OpenAI
``tool_calls``. The model's raw text is returned as the message content so traces keep it.
"""

from __future__ import annotations

import argparse
import json
import time
import uuid
from typing import Any

from agents.tool_call_text import extract_tool_calls, strip_tool_calls

HANDLER_NAME = "geogap-tools"
STOPS = ["<|im_end|>", "<|endoftext|>", "</tool_call>", "<tool_response>"]
DOUBLED_EXAMPLE = '{{"name": <function-name>, "arguments": <args-json-object>}}'
SINGLE_EXAMPLE = '{"name": <function-name>, "arguments": <args-json-object>}'


def normalise_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Make request messages safe for the template: no null content, arguments as dicts, calls not doubled."""
    out = []
    for m in messages:
        m = dict(m)
        content = m.get("content")
        if content is None:
            m["content"] = ""
        elif isinstance(content, list):
            m["content"] = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        if m.get("role") == "assistant" and m.get("tool_calls"):
            m["content"] = strip_tool_calls(m["content"])
            calls = []
            for call in m["tool_calls"]:
                fn = dict(call.get("function", call))
                if isinstance(fn.get("arguments"), str):
                    try:
                        fn["arguments"] = json.loads(fn["arguments"])
                    except json.JSONDecodeError:
                        pass
                calls.append({**call, "function": fn})
            m["tool_calls"] = calls
        out.append(m)
    return out


def render_prompt(template: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
                  bos: str = "", eos: str = "") -> str:
    """Render the model's chat template for ``messages`` and ``tools`` with the fixes above."""
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    env.filters["tojson"] = lambda x, **kw: json.dumps(x, ensure_ascii=False)
    prompt = env.from_string(template).render(
        messages=normalise_messages(messages), tools=tools or None, add_generation_prompt=True,
        bos_token=bos, eos_token=eos,
    )
    return prompt.replace(DOUBLED_EXAMPLE, SINGLE_EXAMPLE)


def make_handler(template: str) -> Any:
    """A llama-cpp-python chat completion handler over ``template``."""

    def handler(*, llama: Any, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
                functions: list[dict[str, Any]] | None = None, temperature: float = 0.0, top_p: float = 0.95,
                top_k: int = 40, min_p: float = 0.05, stream: bool = False, stop: Any = None,
                seed: int | None = None, max_tokens: int | None = None, repeat_penalty: float = 1.0,
                presence_penalty: float = 0.0, frequency_penalty: float = 0.0, model: str | None = None,
                **_: Any) -> dict[str, Any]:
        if stream:
            raise ValueError("streaming is not supported by the geogap-tools handler")
        if functions and not tools:
            tools = [{"type": "function", "function": f} for f in functions]
        prompt = render_prompt(template, messages, tools)
        stops = list(STOPS) + ([stop] if isinstance(stop, str) else list(stop or []))
        completion = llama.create_completion(
            prompt=prompt, max_tokens=max_tokens if max_tokens and max_tokens > 0 else None,
            temperature=temperature, top_p=top_p, top_k=top_k, min_p=min_p, stop=stops, seed=seed,
            repeat_penalty=repeat_penalty, presence_penalty=presence_penalty, frequency_penalty=frequency_penalty,
        )
        text = completion["choices"][0]["text"]
        finish = completion["choices"][0].get("finish_reason") or "stop"
        names = [t["function"]["name"] for t in tools or []]
        calls = extract_tool_calls(text, names) if tools else []
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if calls:
            message["tool_calls"] = [
                {"id": f"call_{uuid.uuid4().hex[:16]}", "type": "function",
                 "function": {"name": c["name"], "arguments": c["arguments"] if isinstance(c["arguments"], str)
                              else json.dumps(c["arguments"])}}
                for c in calls
            ]
            finish = "tool_calls"
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex[:16]}", "object": "chat.completion", "created": int(time.time()),
            "model": model or completion.get("model", ""),
            "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
            "usage": completion.get("usage", {}),
        }

    return handler


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="geogap embedded llama.cpp server")
    parser.add_argument("--model", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--n_ctx", type=int, default=4096)
    parser.add_argument("--n_threads", type=int, default=2)
    args = parser.parse_args(argv)

    import uvicorn
    from llama_cpp import Llama, llama_chat_format
    from llama_cpp.server.app import create_app
    from llama_cpp.server.settings import ModelSettings, ServerSettings

    meta = Llama(model_path=args.model, vocab_only=True, verbose=False).metadata
    template = meta.get("tokenizer.chat_template")
    if not template:
        raise SystemExit(f"{args.model} carries no chat template")
    llama_chat_format.register_chat_completion_handler(HANDLER_NAME)(make_handler(template))
    app = create_app(
        server_settings=ServerSettings(host=args.host, port=args.port),
        model_settings=[ModelSettings(model=args.model, model_alias="local", chat_format=HANDLER_NAME,
                                      n_ctx=args.n_ctx, n_threads=args.n_threads, n_threads_batch=args.n_threads,
                                      verbose=False)],
    )
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
