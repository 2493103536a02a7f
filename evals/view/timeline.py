"""The timeline of one answer: model calls and the tool calls they caused, in order, with repeats and failures
marked. Everything shown (model text, arguments, results, errors) is escaped."""

from __future__ import annotations

import json
from typing import Any

from agents.trace import ToolCallEvent, TraceEvent
from evals.view.markup import Safe, fmt_secs, h, join

SHORT = 500
STATUS_CLASS = {"ok": "ok", "error": "fail", "repeated": "repeated", "skipped": "skipped"}
FINISH_BADGES = {"length": ("truncated", "cut at the token limit"), "content_filter": ("blocked", "safety filter"),
                 "prompt_blocked": ("blocked", "prompt blocked"), "refusal": ("refused", "refused by the API")}
"""Finish reasons marked on a model call: (badge class, label)."""
LONG = 6000


def _text_block(text: str, label: str, cls: str = "", open_below: int = SHORT) -> Safe:
    """Text in a <pre>; long text folded under a summary; very long text cut (the length is shown)."""
    shown = text if len(text) <= LONG else text[:LONG] + f"\n… ({len(text) - LONG:,} more characters)"
    pre = h('<pre class="{c}">{t}</pre>', c=cls, t=shown)
    if len(text) <= open_below:
        return pre
    return h("<details><summary>{l} ({n} characters)</summary>{pre}</details>", l=label, n=f"{len(text):,}", pre=pre)


def fmt_args(args: dict[str, Any] | None) -> str:
    """Tool arguments as ``name=value`` pairs (JSON values)."""
    if not args:
        return ""
    return ", ".join(f"{k}={json.dumps(v, ensure_ascii=False, default=str)}" for k, v in args.items())


def _call_key(e: ToolCallEvent) -> str:
    return f"{e.tool}\x00{json.dumps(e.args, sort_keys=True, default=str)}"


def _messages(messages: list[dict[str, Any]]) -> Safe:
    items = [h('<div class="small"><b>{r}</b>{extra}</div>{body}', r=m.get("role", "?"),
               extra=f" · {m['name']}" if m.get("name") else "", body=_text_block(str(m.get("content", "")), "content",
                                                                                  open_below=LONG))
             for m in messages]
    return h("<details><summary>input: {n} new message(s)</summary>{items}</details>", n=len(messages),
             items=join(items))


def timeline(trace: list[TraceEvent]) -> Safe:
    """An ordered list: each model call (tokens, finish reason, latency, cache hit, retries, output) and each tool call
    (name, arguments, result or error, latency, status; repeated identical calls marked)."""
    if not trace:
        return h('<p class="muted small">No trace recorded.</p>')
    t0 = min(e.start for e in trace)
    longest = max((e.latency_s for e in trace), default=0.0) or 1.0
    seen: dict[str, int] = {}
    model_n = tool_n = 0
    offered: list[str] | None = None
    items = []
    for e in trace:
        offset = h('<span class="t">+{t}</span>', t=fmt_secs(max(0.0, e.start - t0)))
        bar = h('<span class="lat" style="width:{w}px"></span><span class="meta">{l}</span>',
                w=f"{max(2.0, 90 * e.latency_s / longest):.0f}", l=fmt_secs(e.latency_s))
        if e.kind == "model_call":
            model_n += 1
            tokens = f"{e.input_tokens:,} → {e.output_tokens:,} tokens"
            if e.cached_tokens:
                tokens += f" ({e.cached_tokens:,} cached)"
            badges = [h('<span class="badge o-cache">cache hit</span>')] if e.cache_hit else []
            if e.retries:
                badges.append(h('<span class="badge o-repeated">{n} retr{s}</span>', n=e.retries,
                                s="y" if e.retries == 1 else "ies"))
            if e.status == "error":
                badges.append(h('<span class="badge o-error">failed</span>'))
            if e.finish_reason in FINISH_BADGES:
                badges.append(h('<span class="badge o-{c}" title="finish reason {r}">{t}</span>',
                                c=FINISH_BADGES[e.finish_reason][0], r=e.finish_reason_raw or e.finish_reason,
                                t=FINISH_BADGES[e.finish_reason][1]))
            if e.finish_reason:
                tokens += f" · finish {e.finish_reason}" + (f" ({e.finish_reason_raw})" if e.finish_reason_raw and
                                                            e.finish_reason_raw != e.finish_reason else "")
            body = []
            if e.raw_text:
                body.append(_text_block(e.raw_text, "output"))
            requested = (e.message_out or {}).get("tool_calls") or []
            if requested and not e.raw_text:
                body.append(h('<div class="meta">requested {n} tool call(s)</div>', n=len(requested)))
            for err in getattr(e, "retry_errors", None) or []:
                body.append(h('<div class="small er">retried after: {e}</div>', e=str(err)[:400]))
            if e.error:
                body.append(_text_block(e.error, "error", "res"))
            if e.tools_offered and e.tools_offered != offered:
                body.append(h('<div class="meta">tools offered: {t}</div>', t=", ".join(e.tools_offered)))
                offered = e.tools_offered
            if e.messages_in:
                body.append(_messages(e.messages_in))
            items.append(h('<li class="model{err}"><div class="row">{off}<span class="name">model call {n}</span>'
                           '{bar}<span class="meta">{tok}</span>{badges}</div>{body}</li>',
                           err=" st-error" if e.status == "error" else "", off=offset, n=model_n, bar=bar, tok=tokens,
                           badges=join(badges), body=join(body)))
            continue
        tool_n += 1
        status = e.status or ("error" if e.error else "ok")
        key = _call_key(e)
        badges = [h('<span class="badge o-{c}">{s}</span>', c=STATUS_CLASS.get(status, "skipped"), s=status)]
        if key in seen and status != "repeated":
            badges.append(h('<span class="badge o-repeated">same call as #{n}</span>', n=seen[key]))
        elif key in seen:
            badges.append(h('<span class="meta">same call as #{n}</span>', n=seen[key]))
        seen.setdefault(key, tool_n)
        body = [h('<div class="mono small">{a}</div>', a=fmt_args(e.args))] if e.args else []
        if e.error:
            body.append(_text_block(e.error, "error", "res"))
        if e.result is not None:
            body.append(_text_block(e.result, "result", "res"))
        items.append(h('<li class="tool st-{s}"><div class="row">{off}<span class="name">#{n} {tool}</span>{badges}{bar}'
                       '</div>{body}</li>', s=status, off=offset, n=tool_n, tool=e.tool or "?", badges=join(badges),
                       bar=bar, body=join(body)))
    return h('<ol class="tl">{items}</ol>', items=join(items))
