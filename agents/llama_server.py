"""Entry point of the embedded model server: llama-cpp-python's OpenAI-compatible app with our chat handler.

Run by :class:`agents.local_model.LocalModelServer` as ``python -m agents.llama_server --model PATH --port N``.
The ``geogap-tools`` chat handler renders the GGUF's own chat template (tools included, with single braces in
the call example, tool-call arguments as objects, ``null`` content as ``""``), generates with ``max_tokens``
honoured, and turns ``<tool_call>`` blocks, fenced JSON or inline JSON naming a known tool into real OpenAI
``tool_calls``. The model's raw text is returned as the message content so traces keep it.

``tool_choice`` "required" (or one named function) with tools: generation is constrained by a llama.cpp grammar
(:func:`forced_call_grammar`) so the reply is exactly one Qwen tool call, ``<tool_call>`` and a JSON object whose
``name`` is an offered tool and whose ``arguments`` match that tool's parameters; "auto", "none" or none: free.

``usage.prompt_tokens_details.cached_tokens`` (OpenAI's field) counts the prompt tokens llama.cpp reuses from the
previous request's evaluation instead of reading them again (:func:`reused_prompt_tokens`).
"""

from __future__ import annotations

import argparse
import copy
import json
import time
import uuid
from collections.abc import Sequence
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
            raise ValueError(f"tool_choice names {name!r}, which is not among the tools offered")
        return named
    return []


def forced_call_grammar(functions: list[dict[str, Any]]) -> str:
    """A GBNF grammar of exactly one Qwen tool call: ``<tool_call>``, a newline and ``{"name": ..., "arguments":
    ...}`` naming one of ``functions`` with arguments matching its parameters (llama-cpp-python's JSON-schema
    converter; each function's ``$ref``s resolved in its own parameters)."""
    from llama_cpp.llama_grammar import SchemaConverter

    converter = SchemaConverter(prop_order={}, allow_fetch=False, dotall=False, raw_pattern=False)
    calls = [{"type": "object", "required": ["name", "arguments"], "properties": {
        "name": {"const": f["name"]},
        "arguments": converter.resolve_refs(copy.deepcopy(f.get("parameters") or {"type": "object", "properties": {}}),
                                            f["name"]),
    }} for f in functions]
    converter.visit(calls[0] if len(calls) == 1 else {"oneOf": calls}, "call")
    return 'root ::= "<tool_call>\\n" call\n' + converter.format_grammar()


def reused_prompt_tokens(held: Sequence[int], prompt: Sequence[int], logits_live: bool) -> int:
    """How many tokens of ``prompt`` llama-cpp-python's ``Llama.generate`` (0.3.36) keeps from ``held``, the
    tokens of its last evaluation, instead of evaluating them again.

    The longest common prefix is kept, less one token when it covers the whole prompt (that token is evaluated
    again to get fresh logits), unless ``held`` is exactly the prompt and its logits come from a live decode
    (``logits_live``): then nothing is evaluated. Assumes the KV cache can drop a suffix (true of transformer
    models such as Qwen; llama.cpp says otherwise for recurrent ones) and no ``LlamaCache`` (the server has none).
    """
    common = 0
    for a, b in zip(held, prompt, strict=False):
        if a != b:
            break
        common += 1
    if common == len(prompt):
        return common if logits_live and len(held) == len(prompt) else max(common - 1, 0)
    return common


def make_handler(template: str) -> Any:
    """A llama-cpp-python chat completion handler over ``template``."""

    def handler(*, llama: Any, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
                functions: list[dict[str, Any]] | None = None, temperature: float = 0.0, top_p: float = 0.95,
                top_k: int = 40, min_p: float = 0.05, stream: bool = False, stop: Any = None,
                seed: int | None = None, max_tokens: int | None = None, repeat_penalty: float = 1.0,
                presence_penalty: float = 0.0, frequency_penalty: float = 0.0, model: str | None = None,
                tool_choice: Any = None, **_: Any) -> dict[str, Any]:
        from llama_cpp.llama_grammar import LlamaGrammar

        if stream:
            raise ValueError("streaming is not supported by the geogap-tools handler")
        if functions and not tools:
            tools = [{"type": "function", "function": f} for f in functions]
        forced = forced_tools(tools, tool_choice)
        # tokenized as create_completion would a string prompt (BOS/EOS where the model adds them); passing the
        # tokens makes the reuse count below exact
        prompt = llama.tokenize(render_prompt(template, messages, tools).encode("utf-8"), add_bos=True, special=True)
        cached = reused_prompt_tokens(llama._input_ids.tolist(), prompt, logits_live=not llama._requires_eval)
        stops = list(STOPS) + ([stop] if isinstance(stop, str) else list(stop or []))
        completion = llama.create_completion(
            prompt=prompt, max_tokens=max_tokens if max_tokens and max_tokens > 0 else None,
            temperature=temperature, top_p=top_p, top_k=top_k, min_p=min_p, stop=stops, seed=seed,
            repeat_penalty=repeat_penalty, presence_penalty=presence_penalty, frequency_penalty=frequency_penalty,
            grammar=LlamaGrammar.from_string(forced_call_grammar(forced), verbose=False) if forced else None,
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
            "usage": {**completion.get("usage", {}), "prompt_tokens_details": {"cached_tokens": cached}},
        }

    return handler


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="geogap embedded llama.cpp server")
    parser.add_argument("--model", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--n_ctx", type=int, default=8192)
    parser.add_argument("--n_threads", type=int, default=2)
    args = parser.parse_args(argv)

    import uvicorn
    from llama_cpp import Llama, llama_chat_format, llama_types
    from pydantic import ConfigDict, with_config

    # the server's response model lists three usage fields and would drop prompt_tokens_details: keep extra
    # fields (before the app module builds its routes' response models)
    with_config(ConfigDict(extra="allow"))(llama_types.CompletionUsage)
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
