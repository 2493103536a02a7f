"""Loopback stand-ins that speak today's model APIs and enforce their documented rules, for the real client
libraries (openai / langchain-openai, anthropic / langchain-anthropic, google-genai / langchain-google-genai).

Each answers a GPSBench-style distance question: with tools offered and no tool result yet it calls
``distance_km`` with the two points of the prompt; after a tool result it answers ``FINAL ANSWER: <result> km``;
without tools it answers ``FINAL ANSWER: 1000 km``. With a ``final_answer`` tool offered (the structured answer
channel; OpenAI function calling, https://platform.openai.com/docs/guides/function-calling) it gives those answers
as a ``final_answer`` call (chat completions and Responses API) instead of text. A request that breaks a rule gets the API's own error status
and body (the rule and the page it comes from are at each check), so a client that sends it fails as it would
against the real API. ``requests`` keeps every (path, body).

Rules and bodies:
- OpenAI Responses API (https://platform.openai.com/docs/api-reference/responses/create,
  https://platform.openai.com/docs/guides/reasoning#keeping-reasoning-items-in-context): no ``seed``; no
  ``temperature`` for reasoning models; ``reasoning.effort`` one of the model's levels; in stateless mode
  (``store: false``) a replayed ``function_call`` needs the ``reasoning`` item it came with, before it, with its
  ``encrypted_content`` (400 "Item 'fc_..' of type 'function_call' was provided without its required 'reasoning'
  item"); a reply over ``max_output_tokens`` is ``status: incomplete``, ``incomplete_details.reason:
  max_output_tokens``.
- OpenAI chat completions: ``tools`` with a reasoning effort other than none is a 400 on gpt-5.2/5.4/5.5, ``tools``
  at all on gpt-5.6 (openai/openai-openapi #541, BerriAI/litellm PR #34569: "Function tools with reasoning_effort
  are not supported for <model> in /v1/chat/completions. Please use /v1/responses instead.").
- Anthropic Messages (https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-adaptive-thinking.html,
  https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking#preserving-thinking-blocks): Opus 4.7
  takes only adaptive thinking (``enabled``/``budget_tokens`` is a 400) and no non-default temperature; thinking
  with a forced ``tool_choice`` (any/tool) is a 400; the assistant turn with ``tool_use`` must be replayed with
  its thinking block and signature unchanged.
- Gemini generateContent (https://ai.google.dev/gemini-api/docs/thinking,
  https://ai.google.dev/gemini-api/docs/thought-signatures): Gemini 3 Pro takes ``thinkingLevel`` low or high
  only; a replayed ``functionCall`` part without its ``thoughtSignature`` is a 400.
- Qwen3 on an OpenAI-compatible server (vLLM with ``--reasoning-parser qwen3``,
  https://qwen.readthedocs.io/en/latest/deployment/vllm.html): ``chat_template_kwargs.enable_thinking`` false gives
  no reasoning; otherwise the reasoning comes in ``reasoning_content`` (``reasoning`` with ``field="reasoning"``).
"""

from __future__ import annotations

import base64
import json
import re
import threading
from typing import Any

from tests.loopback import LoopbackServer, QuietHandler

POINTS = re.compile(r"\((-?\d+(?:\.\d+)?), (-?\d+(?:\.\d+)?)\) and point B is at \((-?\d+(?:\.\d+)?), "
                    r"(-?\d+(?:\.\d+)?)\)")
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
ENCRYPTED = "gAAAAABstand-in-encrypted-reasoning-"
SIGNATURE = "EqQBCkgIBxABGAIiQstand-in-signature-"
THOUGHT_SIGNATURE = b"stand-in-thought-signature-"  # base64 on the wire, as Gemini sends it
OPENAI_EFFORTS = {"gpt-5.4": {"none", "low", "medium", "high", "xhigh"},
                  "gpt-5.6": {"none", "low", "medium", "high", "xhigh"}}
CHAT_TOOLS_400 = "Function tools with reasoning_effort are not supported for {model} in /v1/chat/completions. " \
                 "Please use /v1/responses instead."


class ApiError(Exception):
    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(json.dumps(body))
        self.status, self.body = status, body


def openai_error(message: str, param: str | None = None) -> ApiError:
    return ApiError(400, {"error": {"message": message, "type": "invalid_request_error", "param": param,
                                    "code": None}})


def question_args(text: str) -> dict[str, float]:
    m = POINTS.search(text)
    assert m, f"not a distance question: {text[:80]}"
    lat1, lon1, lat2, lon2 = map(float, m.groups())
    return {"lat1": lat1, "lon1": lon1, "lat2": lat2, "lon2": lon2}


def answer_from(tool_output: str) -> str:
    found = NUMBER.search(tool_output)
    return f"The tool gives the distance.\nFINAL ANSWER: {found.group(0) if found else '?'} km"


INTRINSIC = "Using the haversine formula the distance is about 1000 km.\nFINAL ANSWER: 1000 km"


def offered(body: dict[str, Any]) -> set[str]:
    """The tool names a request offers (chat completions nest them under ``function``, the Responses API not)."""
    return {t.get("name") or t.get("function", {}).get("name") for t in body.get("tools") or ()}


def final_answer_args(tools: set[str], outputs: list[str]) -> dict[str, Any] | None:
    """The structured channel: with ``final_answer`` offered and nothing else to call first (no other tool, or a
    tool result already in), its arguments (the tool's distance, else 1000 km); None otherwise."""
    if "final_answer" not in tools or (tools - {"final_answer"} and not outputs):
        return None
    found = NUMBER.search(outputs[-1]) if outputs else None
    return {"working": "read off the tool result" if found else "estimated",
            "value": float(found.group(0)) if found else 1000.0, "unit": "km"}


class StandIn(LoopbackServer):
    """One loopback server for all four APIs (routed by path); ``root`` is ``http://127.0.0.1:port``."""

    def __init__(self, *, refuse: bool = False, answer_in_reasoning: bool = False,
                 deepseek: bool = False, call_in_reasoning: bool = False) -> None:
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.lock = threading.Lock()
        self.refuse, self.answer_in_reasoning, self.deepseek = refuse, answer_in_reasoning, deepseek
        self.call_in_reasoning = call_in_reasoning
        self.count = 0
        outer = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:  # noqa: N802
                self.send_json(200, {"object": "list", "data": [{"id": "stand-in", "object": "model"}]})

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                with outer.lock:
                    outer.requests.append((self.path, body))
                    outer.count += 1
                    n = outer.count
                try:
                    self.send_json(200, outer.route(self.path, body, n))
                except ApiError as exc:
                    self.send_json(exc.status, exc.body)

        super().__init__(Handler)
        self.httpd.handle_error = lambda request, client_address: None  # type: ignore[method-assign]
        self.root = self.url.removesuffix("/v1")

    def route(self, path: str, body: dict[str, Any], n: int) -> dict[str, Any]:
        if path.endswith("/responses"):
            return self.responses(body, n)
        if path.endswith("/chat/completions"):
            return self.chat(body, n)
        if path.endswith("/messages"):
            return self.messages(body, n)
        if ":generateContent" in path:
            return self.gemini(path, body, n)
        raise ApiError(404, {"error": {"message": f"no route {path}"}})

    # ------------------------------------------------------------------ OpenAI Responses
    def responses(self, body: dict[str, Any], n: int) -> dict[str, Any]:
        model = body["model"]
        for banned in ("seed", "stop", "max_completion_tokens"):
            if banned in body:
                raise openai_error(f"Unsupported parameter: '{banned}'.", banned)
        if "temperature" in body:
            raise openai_error("Unsupported parameter: 'temperature' is not supported with this model.",
                               "temperature")
        effort = (body.get("reasoning") or {}).get("effort")
        if effort is not None and effort not in OPENAI_EFFORTS.get(model, {effort}):
            raise openai_error(f"Unsupported value: 'reasoning.effort' does not support '{effort}' with this "
                               "model.", "reasoning.effort")
        items = body["input"]
        stateless = body.get("store") is False
        outputs = []
        for i, item in enumerate(items):
            if item.get("type") == "function_call" and stateless:
                before = items[i - 1] if i else {}
                if before.get("type") != "reasoning" or not str(before.get("encrypted_content", "")).startswith(
                        ENCRYPTED):
                    raise openai_error(f"Item '{item.get('id')}' of type 'function_call' was provided without its "
                                       f"required 'reasoning' item: 'rs_{item.get('call_id')}'.", "input")
            if item.get("type") == "function_call_output":
                outputs.append(str(item.get("output")))
        if stateless and "reasoning.encrypted_content" not in (body.get("include") or []):
            raise openai_error("store=false needs include=['reasoning.encrypted_content'] to replay reasoning")
        user = next(m for m in items if m.get("role") == "user")
        text = user["content"] if isinstance(user["content"], str) else "".join(
            c.get("text", "") for c in user["content"])
        reasoning = {"type": "reasoning", "id": f"rs_{n}", "summary": [], "encrypted_content": f"{ENCRYPTED}{n}"}
        out: list[dict[str, Any]] = [reasoning]
        status, incomplete = "completed", None
        if (body.get("max_output_tokens") or 10**9) < 64:
            status, incomplete = "incomplete", {"reason": "max_output_tokens"}
        elif self.refuse:
            out.append({"type": "message", "id": f"msg_{n}", "status": "completed", "role": "assistant",
                        "content": [{"type": "refusal", "refusal": "I can't help with that."}]})
        elif (final := final_answer_args(offered(body), outputs)) is not None:
            out.append({"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}", "name": "final_answer",
                        "arguments": json.dumps(final), "status": "completed"})
        elif body.get("tools") and not outputs:
            out.append({"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}", "name": "distance_km",
                        "arguments": json.dumps(question_args(text)), "status": "completed"})
        else:
            reply = answer_from(outputs[-1]) if outputs else INTRINSIC
            out.append({"type": "message", "id": f"msg_{n}", "status": "completed", "role": "assistant",
                        "content": [{"type": "output_text", "text": reply, "annotations": []}]})
        return {"id": f"resp_{n}", "object": "response", "created_at": 1764720000, "model": model,
                "status": status, "incomplete_details": incomplete, "error": None, "output": out,
                "parallel_tool_calls": True, "tool_choice": body.get("tool_choice", "auto"),
                "tools": body.get("tools", []), "store": body.get("store", True),
                "reasoning": {"effort": effort, "summary": None},
                "usage": {"input_tokens": 120, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 80,
                          "output_tokens_details": {"reasoning_tokens": 64}, "total_tokens": 200}}

    # ------------------------------------------------------------------ OpenAI chat completions (+ Qwen3, DeepSeek)
    def chat(self, body: dict[str, Any], n: int) -> dict[str, Any]:
        model = body["model"]
        effort = body.get("reasoning_effort")
        if body.get("tools") and (model == "gpt-5.6" or (model in OPENAI_EFFORTS and effort not in (None, "none"))):
            raise openai_error(CHAT_TOOLS_400.format(model=model), "reasoning_effort")
        messages = body["messages"]
        if self.deepseek:  # DeepSeek thinking mode: reasoning_content goes back on assistant tool-call messages
            for m in messages:
                if m.get("role") == "assistant" and m.get("tool_calls") and not m.get("reasoning_content"):
                    raise openai_error("Missing `reasoning_content` field in the assistant message at message "
                                       "index with tool_calls", "messages")
        user = next(m for m in messages if m.get("role") == "user")
        text = user["content"] if isinstance(user["content"], str) else "".join(
            c.get("text", "") for c in user["content"])
        outputs = [str(m.get("content")) for m in messages if m.get("role") == "tool"]
        thinking = (body.get("chat_template_kwargs") or {}).get("enable_thinking", True) and "qwen3" in model.lower() \
            or self.deepseek
        message: dict[str, Any] = {"role": "assistant", "content": None}
        finish = "stop"
        if (final := final_answer_args(offered(body), outputs)) is not None:
            message["tool_calls"] = [{"id": f"call_{n}", "type": "function", "function": {
                "name": "final_answer", "arguments": json.dumps(final)}}]
            finish = "tool_calls"
        elif body.get("tools") and not outputs:
            message["tool_calls"] = [{"id": f"call_{n}", "type": "function", "function": {
                "name": "distance_km", "arguments": json.dumps(question_args(text))}}]
            finish = "tool_calls"
        else:
            message["content"] = answer_from(outputs[-1]) if outputs else INTRINSIC
        if thinking:
            message["reasoning_content"] = "<think-free reasoning> The user asks for a great-circle distance."
        if self.call_in_reasoning and message.get("tool_calls"):  # vLLM's reasoning parser swallowed the call
            call = message.pop("tool_calls")[0]["function"]
            message["reasoning_content"] = (f"I should call the tool.\n<tool_call>\n{{\"name\": \"{call['name']}\", "
                                            f"\"arguments\": {call['arguments']}}}\n</tool_call>")
            finish = "stop"
        if self.answer_in_reasoning:
            message["reasoning_content"] = f"Reasoning... {message['content']}"
            message["content"] = None
        return {"id": f"chatcmpl-{n}", "object": "chat.completion", "created": 1764720000, "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
                "usage": {"prompt_tokens": 120, "completion_tokens": 80, "total_tokens": 200}}

    # ------------------------------------------------------------------ Anthropic Messages
    def messages(self, body: dict[str, Any], n: int) -> dict[str, Any]:
        model = body["model"]
        thinking = body.get("thinking") or {}
        def error(message: str) -> ApiError:
            return ApiError(400, {"type": "error", "error": {"type": "invalid_request_error", "message": message}})
        if model.startswith("claude-opus-4-7"):
            if thinking.get("type") == "enabled":
                raise error("thinking.type.enabled is not supported for this model. Use thinking.type.adaptive "
                            "and output_config.effort to control thinking behavior.")
            if body.get("temperature") not in (None, 1):
                raise error("temperature is deprecated for this model.")
        effort = (body.get("output_config") or {}).get("effort")
        if effort is not None and effort not in ("low", "medium", "high", "xhigh", "max"):
            raise error("output_config.effort: Input should be 'low', 'medium', 'high', 'xhigh' or 'max'")
        thinks = thinking.get("type") in ("adaptive", "enabled")
        if thinks and (body.get("tool_choice") or {}).get("type") in ("any", "tool"):
            raise error("Thinking may not be enabled when tool_choice forces tool use.")
        messages = body["messages"]
        outputs = []
        for m in messages:
            content = m["content"] if isinstance(m["content"], list) else [{"type": "text", "text": m["content"]}]
            if m["role"] == "assistant" and thinks and any(b.get("type") == "tool_use" for b in content):
                first = content[0]
                if first.get("type") != "thinking" or not str(first.get("signature", "")).startswith(SIGNATURE):
                    raise error("messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
                                "`tool_use`. When `thinking` is enabled, a final `assistant` message must start "
                                "with a thinking block.")
            outputs += [str(b.get("content")) for b in content if b.get("type") == "tool_result"]
        user = messages[0]
        text = user["content"] if isinstance(user["content"], str) else "".join(
            b.get("text", "") for b in user["content"] if b.get("type") == "text")
        content_out: list[dict[str, Any]] = []
        if thinks:
            content_out.append({"type": "thinking", "thinking": "", "signature": f"{SIGNATURE}{n}"})
        if body.get("tools") and not outputs:
            content_out.append({"type": "tool_use", "id": f"toolu_{n}", "name": "distance_km",
                                "input": question_args(text)})
            stop = "tool_use"
        else:
            content_out.append({"type": "text", "text": answer_from(outputs[-1]) if outputs else INTRINSIC})
            stop = "end_turn"
        return {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": model, "content": content_out,
                "stop_reason": stop, "stop_sequence": None,
                "usage": {"input_tokens": 120, "output_tokens": 80, "cache_creation_input_tokens": 0,
                          "cache_read_input_tokens": 0}}

    # ------------------------------------------------------------------ Gemini generateContent
    def gemini(self, path: str, body: dict[str, Any], n: int) -> dict[str, Any]:
        model = path.split("models/")[1].split(":")[0]
        config = (body.get("generationConfig") or {}).get("thinkingConfig") or {}
        def error(message: str) -> ApiError:
            return ApiError(400, {"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}})
        level = config.get("thinkingLevel", config.get("thinking_level"))  # proto JSON takes either spelling
        if level is not None and "pro" in model and str(level).lower() not in ("low", "high"):
            raise error(f"Thinking level {level} is not supported for this model. Supported levels: LOW, HIGH.")
        contents = body["contents"]
        outputs = []
        for c in contents:
            for part in c.get("parts", []):
                if "functionCall" in part and not base64.b64decode(part.get("thoughtSignature", "")).startswith(
                        THOUGHT_SIGNATURE):
                    raise error("Function call is missing a thought_signature in functionCall parts. This is "
                                "required for tools to work correctly.")
                if "functionResponse" in part:
                    outputs.append(json.dumps(part["functionResponse"].get("response")))
        text = "".join(p.get("text", "") for p in contents[0].get("parts", []))
        if body.get("tools") and not outputs:
            parts: list[dict[str, Any]] = [{"functionCall": {"name": "distance_km", "args": question_args(text)},
                                            "thoughtSignature": base64.b64encode(THOUGHT_SIGNATURE + b"%04d" % n).decode()}]
        else:
            parts = [{"text": answer_from(outputs[-1]) if outputs else INTRINSIC}]
        return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": 120, "candidatesTokenCount": 16, "thoughtsTokenCount": 64,
                                  "totalTokenCount": 200},
                "modelVersion": model, "responseId": f"resp-{n}"}
