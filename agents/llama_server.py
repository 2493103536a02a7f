"""Entry point of the embedded model server: llama.cpp's server engine (xllamacpp) behind our chat handler.

Run by :class:`agents.local_model.LocalModelServer` as ``python -m agents.llama_server --model PATH --port N
--slots S --ctx-per-slot C --threads T``. The child process loads the GGUF into ``xllamacpp.Server`` (llama.cpp's
C++ server: continuous batching over ``S`` parallel slots, each with its own ``C``-token context and its own
prompt cache) and serves an OpenAI-compatible HTTP endpoint on 127.0.0.1:N:

- ``GET /v1/models``: the one model, ``local``;
- ``POST /v1/chat/completions``: our chat handler (below) over llama.cpp's text completion;
- ``POST /v1/completions``: llama.cpp's text completion as it is (grammar, ``cache_prompt`` and the other llama.cpp
  fields accepted).

The chat handler renders the GGUF's own chat template (tools included, with single braces in the call example,
tool-call arguments as objects, ``null`` content as ``""``), completes it with ``max_tokens`` honoured, and turns
``<tool_call>`` blocks, fenced JSON or inline JSON naming a known tool into real OpenAI ``tool_calls``. The model's
raw text is returned as the message content so traces keep it. llama.cpp's own tool-call parsing is not used: for
Qwen2.5-Coder-1.5B it returns no calls (the model echoes the tool list; a required call runs to the length limit).

``tool_choice`` "required" (or one named function) with tools: generation is constrained by a llama.cpp grammar
(:func:`forced_call_grammar`) so the reply is exactly one Qwen tool call, ``<tool_call>`` and a JSON object whose
``name`` is an offered tool and whose ``arguments`` match that tool's parameters; "auto", "none" or none: free.

A long system turn that concurrent requests share (a task's instructions and tool schemas) is read once and handed
to the other slots before they run (:mod:`agents.prefix_warm`).

``usage.prompt_tokens_details.cached_tokens`` (OpenAI's field) is llama.cpp's count of the prompt tokens its slot
reused from what it held instead of evaluating them again.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import signal
import sys
import time
import uuid
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from agents.prefix_warm import PrefixWarmer
from agents.tool_call_text import extract_tool_calls, strip_tool_calls

STOPS = ["<|im_end|>", "<|endoftext|>", "</tool_call>", "<tool_response>", "</tools>"]
"""Where a completion ends: the turn's end, a tool call's end, a tool response the model starts writing itself, or
the end of a call it wrapped in the tool list's own ``<tools>`` tags (the 1.5B model then wrote 512 tokens of
repeated calls in one call of the quick suite)."""
DOUBLED_EXAMPLE = '{{"name": <function-name>, "arguments": <args-json-object>}}'
SINGLE_EXAMPLE = '{"name": <function-name>, "arguments": <args-json-object>}'
MODEL_ID = "local"
# Sampling defaults of a request that leaves them out (those of the handler this one replaced; llama.cpp's own
# default temperature is 0.8).
SAMPLING_DEFAULTS: dict[str, Any] = {"temperature": 0.0, "top_p": 0.95, "top_k": 40, "min_p": 0.05,
                                     "repeat_penalty": 1.0}
# Request fields passed on to llama.cpp's completion as they are.
PASSED_ON = ("temperature", "top_p", "top_k", "min_p", "repeat_penalty", "presence_penalty", "frequency_penalty",
             "seed")

Complete = Callable[[dict[str, Any]], dict[str, Any]]


class RequestError(ValueError):
    """A request this server refuses; ``status`` is the HTTP status of the reply."""

    def __init__(self, message: str, status: int = 400, kind: str = "invalid_request_error") -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind


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
            called = [c.get("function", c).get("name", "") for c in m["tool_calls"]]
            m["content"] = strip_tool_calls(m["content"], called)
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


def prompt_head(template: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
                prompt: str) -> str:
    """The start of ``prompt`` that every request with the same leading system messages and ``tools`` shares: the
    system turn with the tool schemas (the template's default system turn when there is no system message)."""
    lead = []
    for m in messages:
        if m.get("role") != "system":
            break
        lead.append(m)
    from jinja2 import TemplateError

    try:
        alone = render_prompt(template, lead or [{"role": "user", "content": ""}], tools)
    except TemplateError:  # a template that will not render the system turn alone: no head, nothing warmed
        return ""
    return os.path.commonprefix([alone, prompt])


def forced_tools(tools: list[dict[str, Any]] | None, tool_choice: Any) -> list[dict[str, Any]]:
    """The functions one of which the reply must call: all offered for "required", the named one for
    ``{"type": "function", "function": {"name": ...}}``; none when ``tool_choice`` does not force a call."""
    functions = [t["function"] for t in tools or []]
    if not functions:
        return []
    if tool_choice == "required":
        return functions
    if isinstance(tool_choice, dict) and tool_choice.get("type") == "function":
        name = (tool_choice.get("function") or {}).get("name")
        named = [f for f in functions if f["name"] == name]
        if not named:
            raise RequestError(f"tool_choice names {name!r}, which is not among the tools offered")
        return named
    return []


def _closed(node: Any) -> Any:
    """``node`` with ``additionalProperties: false`` on every object schema that lists properties and says
    nothing of others (JSON Schema would allow any; a call may carry only the tool's parameters)."""
    if isinstance(node, list):
        return [_closed(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: _closed(v) for k, v in node.items()}
    if "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


def _hoist_defs(schema: dict[str, Any], prefix: str, defs: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with its own ``$defs`` (or ``definitions``) moved into ``defs`` under ``prefix``-ed names and
    its local ``$ref``s renamed to match, so several tools' parameters can sit in one schema."""
    schema = copy.deepcopy(schema)
    own = {**schema.pop("definitions", {}), **schema.pop("$defs", {})}

    def rename(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith(("#/$defs/", "#/definitions/")):
                node = {**node, "$ref": f"#/$defs/{prefix}{ref.rsplit('/', 1)[1]}"}
            return {k: rename(v) for k, v in node.items()}
        return [rename(v) for v in node] if isinstance(node, list) else node

    defs.update({f"{prefix}{name}": rename(value) for name, value in own.items()})
    return rename(schema)


def call_schema(functions: list[dict[str, Any]]) -> dict[str, Any]:
    """The JSON schema of one call ``{"name": ..., "arguments": ...}`` of one of ``functions``: the name a
    constant, the arguments the function's parameters with no others (each function's ``$defs`` kept apart under
    its own prefix)."""
    defs: dict[str, Any] = {}
    calls = [{"type": "object", "required": ["name", "arguments"], "additionalProperties": False, "properties": {
        "name": {"const": f["name"]},
        "arguments": _closed(_hoist_defs(f.get("parameters") or {"type": "object", "properties": {}}, f"f{i}-",
                                         defs)),
    }} for i, f in enumerate(functions)]
    schema: dict[str, Any] = calls[0] if len(calls) == 1 else {"oneOf": calls}
    return {**schema, "$defs": _closed(defs)} if defs else schema


def forced_call_grammar(functions: list[dict[str, Any]]) -> str:
    """A llama.cpp grammar of exactly one Qwen tool call: ``<tool_call>``, a newline and the JSON object of
    :func:`call_schema`. llama.cpp's converter (``xllamacpp.json_schema_to_grammar``) writes the schema as an
    LLGuidance grammar (``%llguidance {}`` / ``start: %json {...}``); the tag is put before its start rule."""
    from xllamacpp import json_schema_to_grammar

    header, _, start = json_schema_to_grammar(call_schema(functions)).strip().partition("\n")
    if header.strip() != "%llguidance {}" or not start.startswith("start: %json "):
        raise RuntimeError(f"unexpected grammar from xllamacpp.json_schema_to_grammar: {header[:80]!r}")
    return f'{header}\nstart: "<tool_call>\\n" call\ncall: {start.removeprefix("start: ")}\n'


def offered_tools(body: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The tools a chat request offers (``tools``, or the older ``functions``), as OpenAI tool objects."""
    if body.get("tools"):
        return list(body["tools"])
    return [{"type": "function", "function": f} for f in body["functions"]] if body.get("functions") else None


def completion_request(body: dict[str, Any], template: str) -> tuple[dict[str, Any], list[str]]:
    """llama.cpp's text-completion request for an OpenAI chat request, and the names of the tools offered."""
    if body.get("stream"):
        raise RequestError("streaming is not supported by the geogap embedded server")
    if (body.get("n") or 1) != 1:
        raise RequestError("n > 1 is not supported by the geogap embedded server")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise RequestError("messages must be a non-empty list")
    tools = offered_tools(body)
    forced = forced_tools(tools, body.get("tool_choice"))
    stop = body.get("stop")
    request: dict[str, Any] = {
        **SAMPLING_DEFAULTS, **{k: body[k] for k in PASSED_ON if body.get(k) is not None},
        "prompt": render_prompt(template, messages, tools), "cache_prompt": True,
        "stop": STOPS + ([stop] if isinstance(stop, str) else list(stop or [])),
    }
    max_tokens = body.get("max_completion_tokens") or body.get("max_tokens")
    if max_tokens and max_tokens > 0:
        request["max_tokens"] = max_tokens
    if forced:
        request["grammar"] = forced_call_grammar(forced)
    return request, [t["function"]["name"] for t in tools or []]


def chat_completion(body: dict[str, Any], template: str, complete: Complete,
                    warmer: PrefixWarmer | None = None) -> dict[str, Any]:
    """Answer an OpenAI chat request with ``complete`` (llama.cpp's text completion: a request dict in, its
    reply dict out), once ``warmer`` has warmed the prompt's head; raises :class:`RequestError` for a request
    refused here or by llama.cpp."""
    request, names = completion_request(body, template)
    if warmer is not None:
        warmer.ready(prompt_head(template, body["messages"], offered_tools(body), request["prompt"]))
    completion = complete(request)
    if "error" in completion or "choices" not in completion:
        error = completion.get("error", completion)
        raise RequestError(str(error.get("message", error)), int(error.get("code", 500)),
                           str(error.get("type", "server_error")))
    choice = completion["choices"][0]
    text = choice["text"]
    finish = choice.get("finish_reason") or "stop"
    calls = extract_tool_calls(text, names) if names else []
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
        "model": body.get("model") or MODEL_ID,
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": completion.get("usage", {}),
    }


def make_handler(template: str, complete: Complete, runtime: str,
                 warmer: PrefixWarmer | None = None) -> type[BaseHTTPRequestHandler]:
    """The HTTP request handler of the endpoint (HTTP/1.1, keep-alive; one thread per connection); chat requests
    wait for ``warmer`` to warm their prompt's head."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = f"geogap-llama ({runtime})"

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the server log stays quiet
            pass

        def _reply(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _error(self, status: int, message: str, kind: str) -> None:
            self._reply(status, {"error": {"code": status, "message": message, "type": kind}})

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            if self.path.rstrip("/") in ("/v1/models", "/models"):
                self._reply(200, {"object": "list", "data": [{"id": MODEL_ID, "object": "model",
                                                              "owned_by": "geogap", "runtime": runtime}]})
            else:
                self._error(404, f"no route {self.path}", "not_found_error")

        def do_POST(self) -> None:  # noqa: N802
            route = self.path.rstrip("/")
            try:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                if not isinstance(body, dict):
                    raise RequestError("the request body must be a JSON object")
                if route in ("/v1/chat/completions", "/chat/completions"):
                    self._reply(200, chat_completion(body, template, complete, warmer))
                elif route in ("/v1/completions", "/completions"):
                    if body.get("stream"):
                        raise RequestError("streaming is not supported by the geogap embedded server")
                    reply = complete(body)
                    error = reply.get("error")
                    self._reply(int(error.get("code", 500)) if isinstance(error, dict) else 200, reply)
                else:
                    self._error(404, f"no route {self.path}", "not_found_error")
            except json.JSONDecodeError as exc:
                self._error(400, f"the request body is not JSON: {exc}", "invalid_request_error")
            except RequestError as exc:
                self._error(exc.status, str(exc), exc.kind)
            except Exception as exc:  # a bug here must reach the client as a failed call, with its cause
                self._error(500, f"{type(exc).__name__}: {exc}", "server_error")

    return Handler


def engine_params(model: str, *, slots: int, ctx_per_slot: int, threads: int, cache_ram_mib: int) -> Any:
    """``xllamacpp.CommonParams`` of the engine: ``slots`` parallel slots of ``ctx_per_slot`` tokens each (the
    KV cache is split between slots, not shared), ``threads`` for prompt and generation with no busy polling
    between batches, a prompt cache per slot plus ``cache_ram_mib`` of host memory for slots' saved prompts, the
    engine's own HTTP listener on a random loopback port (used here only to read ``/props``)."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = model
    params.n_parallel = slots
    params.n_ctx = slots * ctx_per_slot
    params.kv_unified = False
    params.fit_params = False  # exactly the context asked for, or a clear failure
    params.cache_prompt = True
    params.cache_ram_mib = cache_ram_mib
    params.cache_idle_slots = True  # an idle slot is copied into that memory when another request starts
    for cpu in (params.cpuparams, params.cpuparams_batch):
        cpu.n_threads = threads
        cpu.poll = 0  # sleep, not spin, while waiting for work: spinning steals the core of whatever else runs
    params.hostnames = ["127.0.0.1"]
    params.port = 0
    params.endpoint_props = True
    params.ui = False
    return params


def read_template(address: str) -> str:
    """The chat template llama.cpp read from the GGUF (its ``/props``)."""
    import httpx

    template = httpx.get(f"{address}/props", timeout=30).json().get("chat_template")
    if not template:
        raise SystemExit("the model carries no chat template")
    return str(template)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="geogap embedded llama.cpp server (xllamacpp)")
    parser.add_argument("--model", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--slots", type=int, default=1)
    parser.add_argument("--ctx-per-slot", type=int, default=8192)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--cache-ram-mib", type=int, default=1024)
    args = parser.parse_args(argv)

    from importlib.metadata import version

    import xllamacpp

    runtime = f"xllamacpp {version('xllamacpp')}"
    print(f"{runtime}; {xllamacpp.get_system_info().strip()}", flush=True)
    print(f"model {args.model}: {args.slots} slots × {args.ctx_per_slot} tokens, {args.threads} threads", flush=True)
    engine = xllamacpp.Server(engine_params(args.model, slots=args.slots, ctx_per_slot=args.ctx_per_slot,
                                            threads=args.threads, cache_ram_mib=args.cache_ram_mib))
    template = read_template(engine.listening_address)
    # the warm-up hands heads to other slots through the host-memory cache: none without one
    warmer = PrefixWarmer(engine.handle_completions, args.slots if args.cache_ram_mib > 0 else 1)
    httpd = ThreadingHTTPServer(("127.0.0.1", args.port),
                                make_handler(template, engine.handle_completions, runtime, warmer))
    httpd.daemon_threads = True

    def stop(signum: int, _frame: Any) -> None:
        # llama.cpp installed its own SIGTERM/SIGINT handlers (they stop its loop, not this process): exit now,
        # with whatever requests are in flight
        print(f"stopping on {signal.Signals(signum).name}", flush=True)
        sys.stdout.flush()
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(f"serving on http://127.0.0.1:{args.port}/v1", flush=True)
    httpd.serve_forever()


if __name__ == "__main__":
    main()
