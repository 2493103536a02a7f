"""HTML building with escaping by default: every value put into a template is escaped unless it is ``Safe``.

Pages are assembled from small ``h(template, **values)`` calls, so text written by a model or a tool can only
ever reach the page as text. The page shell carries one inline stylesheet and one inline script, and a
Content-Security-Policy that allows only that script (by hash) and no network access at all.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import math
from collections.abc import Iterable
from typing import Any

from agents.secrets import redact


class Safe(str):
    """A string that is already HTML (escaped text or markup built by this package)."""

    __slots__ = ()


def esc(value: Any) -> Safe:
    """Escape ``value`` for HTML text and attribute contexts; ``Safe`` strings pass through unchanged."""
    if isinstance(value, Safe):
        return value
    return Safe(html.escape("" if value is None else str(value), quote=True))


def h(template: str, **values: Any) -> Safe:
    """Format ``template`` (a literal of this package) with every value escaped."""
    return Safe(template.format(**{k: esc(v) for k, v in values.items()}))


def join(parts: Iterable[Any], sep: str = "") -> Safe:
    return Safe(esc(sep).join(esc(p) for p in parts))


def fmt_num(x: float | int | None, digits: int = 1) -> str:
    """A number for tables: thousands separators for big values, ``–`` for missing or not finite."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "–"
    if isinstance(x, int) and not isinstance(x, bool):
        return f"{x:,}"
    return f"{x:,.{digits}f}" if abs(x) >= 1000 else f"{x:.{digits}f}"


def fmt_value(value: Any, limit: int = 300) -> str:
    """A parsed answer or gold value as short text (JSON for structures), cut at ``limit`` characters."""
    if value is None:
        text = "–"
    elif isinstance(value, float):
        text = f"{value:.6g}"
    elif isinstance(value, str):
        text = value
    elif isinstance(value, dict) and value and all(isinstance(v, int | float | str | bool) for v in value.values()):
        text = " · ".join(f"{k} {fmt_value(v)}" for k, v in value.items())
    else:
        text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def fmt_secs(s: float | None) -> str:
    if s is None:
        return "–"
    return f"{s * 1000:.0f} ms" if s < 1 else f"{s:.2f} s"


CSS = """
:root{--fg:#1f2328;--muted:#656d76;--line:#d8dee4;--bg:#fff;--soft:#f6f8fa;--accent:#0969da;
--gain:#1a7f37;--gain-bg:#dafbe1;--lose:#cf222e;--lose-bg:#ffebe9;--both:#4b6a53;--both-bg:#eef6f0;
--none:#57606a;--none-bg:#eaeef2;--pf:#9a6700;--pf-bg:#fff8c5;--err:#8250df;--err-bg:#fbefff}
*{box-sizing:border-box}
body{margin:0;color:var(--fg);background:var(--bg);
font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace;font-size:12.5px}
pre{white-space:pre-wrap;word-break:break-word;margin:0;background:var(--soft);border:1px solid var(--line);
border-radius:6px;padding:8px 10px;max-height:26em;overflow:auto}
header.top{display:flex;gap:14px;align-items:center;padding:10px 24px;border-bottom:1px solid var(--line);
background:#fbfcfd}
header.top .brand{font-weight:700;color:var(--fg)}header.top .crumbs{color:var(--muted)}
header.top .crumbs a{color:var(--muted)}header.top .crumbs b{color:var(--fg);font-weight:600}
main{padding:16px 24px 40px;max-width:1500px}
h1{font-size:20px;margin:4px 0 12px}h1.mono{font-size:18px}h2{font-size:16px;margin:26px 0 10px}h3{font-size:14px;margin:16px 0 8px}
.sub{color:var(--muted);font-weight:400}
table{border-collapse:collapse;font-variant-numeric:tabular-nums}
table.grid{width:100%}
.grid th,.grid td{border-bottom:1px solid var(--line);padding:5px 8px;text-align:left;vertical-align:top}
.grid th{font-size:12px;color:var(--muted);font-weight:600;background:var(--soft);white-space:nowrap}
.grid td.num,.grid th.num{text-align:right}
.grid tbody tr:hover{background:#f6f9fc}
.samples tr.r-gained td:first-child{box-shadow:inset 3px 0 var(--gain)}
.samples tr.r-lost td:first-child{box-shadow:inset 3px 0 var(--lose)}
.grid tr.pooled td{border-top:2px solid var(--line);background:#fbfcfd}
.grid th.group{text-align:center;border-left:2px solid var(--line)}
.grid .lb{border-left:2px solid var(--line)}
.kv{display:grid;grid-template-columns:max-content 1fr;gap:3px 14px;margin:0}
.kv dt{color:var(--muted)}.kv dd{margin:0}
.specgrid{display:grid;grid-template-columns:repeat(auto-fill,minmax(190px,1fr));gap:8px 18px;margin:0}
.specgrid div{min-width:0}.specgrid dt{font-size:11px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
.specgrid dd{margin:0;overflow-wrap:anywhere}.specgrid div.span{grid-column:1/-1}
.cards{display:flex;flex-wrap:wrap;gap:12px}
.card{border:1px solid var(--line);border-radius:8px;padding:10px 14px;background:#fff}
.badge{display:inline-block;padding:1px 7px;border-radius:10px;font-size:12px;font-weight:600;white-space:nowrap;
background:var(--none-bg);color:var(--none);border:1px solid transparent}
.ok{color:var(--gain);font-weight:700}.bad{color:var(--lose);font-weight:700}
.pf{color:var(--pf);font-weight:700}.er{color:var(--err);font-weight:700}
.muted{color:var(--muted)}.small{font-size:12px}
.pos{color:var(--gain);font-weight:600}.neg{color:var(--lose);font-weight:600}
.bar{display:inline-block;width:64px;height:7px;background:var(--none-bg);border-radius:4px;vertical-align:middle;
margin-right:6px;position:relative;overflow:hidden}.bar i{position:absolute;left:0;top:0;bottom:0;background:#8c959f}
.bar i.t{background:var(--accent)}
.chips{display:flex;flex-wrap:wrap;gap:6px;margin:8px 0;align-items:center}
.chip{border:1px solid var(--line);border-radius:14px;padding:2px 10px;font-size:13px;color:var(--fg);background:#fff}
.chip:hover{text-decoration:none;border-color:#8c959f}.chip.on{border-color:var(--fg);box-shadow:inset 0 0 0 1px var(--fg)}
.chip .n{color:var(--muted);margin-left:4px}
.o-gained{background:var(--gain-bg);color:var(--gain)}.o-lost{background:var(--lose-bg);color:var(--lose)}
.o-both_right{background:var(--both-bg);color:var(--both)}.o-both_wrong{background:var(--none-bg);color:var(--none)}
.o-parse_failure{background:var(--pf-bg);color:var(--pf)}.o-error{background:var(--err-bg);color:var(--err)}
.o-hedged,.o-unparsed,.o-refused,.o-truncated,.o-blocked{background:var(--pf-bg);color:var(--pf)}.incomplete{color:var(--err);font-weight:600}
.o-disagrees{background:var(--lose-bg);color:var(--lose)}.o-no_tool_call{background:var(--none-bg);color:var(--none)}
table.tooluse{width:auto}table.tooluse th[scope=row]{text-align:left;font-weight:600}
.shares{font-variant-numeric:tabular-nums;white-space:nowrap}.wide{overflow-x:auto}
.paper tr.k-gap td,.paper tr.k-pairwise td{font-weight:600}.paper tr.k-published td{color:var(--muted);font-style:italic}
.fsteps{list-style:none;padding:0;margin:2px 0;font-size:13px}.fsteps li.f-pass{color:var(--gain)}
.fsteps li.f-fail{color:var(--lose);font-weight:600}.fsteps li.f-skip{color:var(--muted)}
.o-repeated{background:var(--pf-bg);color:var(--pf)}.o-skipped{background:var(--none-bg);color:var(--none)}
.o-ok{background:var(--both-bg);color:var(--both)}.o-fail{background:var(--lose-bg);color:var(--lose)}.o-cache{background:#ddf4ff;color:#0550ae}
.chip[class*=" o-"]{border-color:transparent}
.chip.on[class*=" o-"]{box-shadow:inset 0 0 0 1.5px currentColor}
form.filters{display:flex;flex-wrap:wrap;gap:10px;align-items:end;margin:6px 0 4px}
form.filters label{display:flex;flex-direction:column;font-size:12px;color:var(--muted);gap:2px}
form.filters select,form.filters input{font:inherit;padding:4px 6px;border:1px solid var(--line);border-radius:6px}
form.filters input[type=search]{width:240px}
button{font:inherit;padding:4px 12px;border:1px solid var(--line);border-radius:6px;background:var(--soft);cursor:pointer}
.pager{display:flex;gap:10px;align-items:center;margin:10px 0;color:var(--muted)}
.pager a,.pager span.off{padding:2px 8px;border:1px solid var(--line);border-radius:6px}
.pager span.off{color:#b0b7be}
.cols{display:grid;grid-template-columns:repeat(var(--ncols,2),minmax(0,1fr));gap:16px;align-items:start}
.answer{border:1px solid var(--line);border-radius:8px;overflow:hidden}
.answer>.head{display:flex;justify-content:space-between;align-items:center;padding:7px 12px;background:var(--soft);
border-bottom:1px solid var(--line)}
.answer>.head b{font-size:14px}
.answer>.body{padding:10px 12px;display:flex;flex-direction:column;gap:8px}
.answer.right{border-top:3px solid var(--gain)}.answer.wrong{border-top:3px solid var(--lose)}
.answer.pfail{border-top:3px solid var(--pf)}.answer.failed{border-top:3px solid var(--err)}
.label{font-size:11px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);font-weight:600}
.tl{list-style:none;margin:0;padding:0;border-left:2px solid var(--line);margin-left:6px}
.tl li{position:relative;padding:4px 0 6px 14px}
.tl li::before{content:"";position:absolute;left:-6px;top:9px;width:10px;height:10px;border-radius:50%;
background:#8c959f;border:2px solid #fff}
.tl li.model::before{background:var(--accent)}.tl li.tool::before{background:var(--gain)}
.tl li.st-error::before{background:var(--lose)}.tl li.st-repeated::before{background:#d4a72c}
.tl li.st-skipped::before{background:#afb8c1}
.tl li.tool{margin-left:18px}
.tl .row{display:flex;flex-wrap:wrap;gap:8px;align-items:center}
.tl .t{color:var(--muted);font-size:12px;min-width:58px;font-variant-numeric:tabular-nums}
.tl .name{font-weight:600}.tl .meta{color:var(--muted);font-size:12px}
.lat{display:inline-block;height:6px;border-radius:3px;background:#b6c2cf;min-width:2px;vertical-align:middle}
.tl pre{margin-top:4px;max-height:14em}
.tl li.st-error pre.res{border-color:#ffcecb;background:#fff5f5}
details>summary{cursor:pointer;color:var(--muted);font-size:12px}
details[open]>summary{margin-bottom:4px}
.sketch{border:1px solid var(--line);border-radius:8px;background:#fbfdff}
.layout2{display:grid;grid-template-columns:minmax(0,1fr) 380px;gap:18px;align-items:start}
@media (max-width:1000px){.layout2{grid-template-columns:1fr}.cols{grid-template-columns:1fr}}
.navkeys{float:right;display:flex;gap:8px}
.note{background:var(--soft);border:1px solid var(--line);border-radius:6px;padding:8px 12px;color:var(--muted)}
svg text{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif}
footer{color:var(--muted);font-size:12px;padding:10px 24px;border-top:1px solid var(--line)}
"""

JS = """
(function(){
document.querySelectorAll('form.filters select').forEach(function(s){
  s.addEventListener('change',function(){var p=s.form.querySelector('input[name=page]');if(p)p.value='1';s.form.submit();});});
document.addEventListener('keydown',function(ev){
  var t=ev.target&&ev.target.tagName;if(t==='INPUT'||t==='SELECT'||t==='TEXTAREA'||ev.ctrlKey||ev.metaKey||ev.altKey)return;
  var key={ArrowLeft:'prev',k:'prev',ArrowRight:'next',j:'next',u:'up'}[ev.key];
  if(ev.key==='/'){var q=document.querySelector('input[type=search]');if(q){ev.preventDefault();q.focus();}return;}
  if(!key)return;var a=document.querySelector('a[data-key='+key+']');if(a){ev.preventDefault();a.click();}});
document.querySelectorAll('input[data-run-toggle]').forEach(function(box){
  box.addEventListener('change',function(){var r=box.getAttribute('data-run-toggle');
    document.querySelectorAll('[data-run="'+r+'"]').forEach(function(el){el.hidden=!box.checked;});});});
})();
"""

SCRIPT_HASH = "sha256-" + base64.b64encode(hashlib.sha256(JS.encode()).digest()).decode()
CSP = (f"default-src 'none'; style-src 'unsafe-inline'; script-src '{SCRIPT_HASH}'; img-src data:; "
       "form-action 'self'; base-uri 'none'")


VIEWER_FOOTER = "Tool-free gap viewer. Keys: ← / → previous / next, u up, / search."


def page(title: str, body: Safe, crumbs: list[tuple[str, str | None]] | None = None,
         refresh_s: int | None = None, brand: str = "trace viewer", footer: str = VIEWER_FOOTER) -> str:
    """A complete HTML document: the shell, ``crumbs`` as (label, href or None) and ``body``, with secrets
    (API keys and the like, see ``agents.secrets``) masked as everywhere text leaves the process."""
    trail = join([h('<a href="{u}">{t}</a>', u=u, t=t) if u else h("<b>{t}</b>", t=t) for t, u in crumbs or []],
                 " / ")
    refresh = h('<meta http-equiv="refresh" content="{s}">', s=refresh_s) if refresh_s else ""
    return redact(h(
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta http-equiv="Content-Security-Policy" content="{csp}"><meta name="referrer" content="no-referrer">'
        '<link rel="icon" href="data:,">{refresh}<title>{title} · geogap {brand}</title><style>{css}</style>'
        '</head><body><header class="top"><span class="brand">geogap · {brand}</span>'
        '<span class="crumbs">{trail}</span></header><main>{body}</main><footer>{footer}</footer>'
        "<script>{js}</script></body></html>\n",
        csp=CSP, refresh=refresh, title=title, css=Safe(CSS), trail=trail, brand=brand, footer=footer,
        body=body, js=Safe(JS),
    ))
