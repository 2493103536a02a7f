"""A small run made by the real runner with a scripted model, covering every outcome the viewer shows.

Cases (marked in each prompt): gained with tools, lost with tools (after a failed and a repeated failing
tool call), parse failure, error, right in both (with tools offered it answers without calling one), wrong in
both (its tools answer disagrees with the tool's distance), an intrinsic answer carrying
``<script>`` and ``<img onerror>`` markup (its tools answer repeats an identical call), and a hedged intrinsic
answer ("X km or Y km", gained with tools).
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

from langchain_core.messages import AIMessage, ToolMessage

from agents.scripted import ScriptedChatModel
from evals.conditions import get_condition
from evals.records import RunSpec
from evals.runner import run_all
from evals.store import RunStore
from geocore.geodesy import haversine_km
from tasks import get_task

POINT = re.compile(r"\((-?\d+\.\d+), (-?\d+\.\d+)\)")
XSS_ANSWER = ('Here you go <script>window.__xss=1</script><img src=x onerror="window.__xss=2"> '
              "FINAL ANSWER: 1 km")
CASES = ["gained", "gained", "gained", "lost", "parse", "error", "xss", "both_right", "both_wrong", "hedged"]


def _points(prompt: str) -> tuple[float, float, float, float]:
    (a1, o1), (a2, o2) = POINT.findall(prompt)[:2]
    return float(a1), float(o1), float(a2), float(o2)


def _call(i: int, args: dict) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": "distance_km", "id": f"c{i}", "args": args}])


def policy(messages, tools):
    """Answers by the case marker in the prompt; see the module docstring."""
    prompt = next(m.content for m in messages if m.type == "human")
    case = re.search(r"\[case:(\w+)\]", prompt).group(1)
    la1, lo1, la2, lo2 = _points(prompt)
    gold = haversine_km(la1, lo1, la2, lo2)
    args = {"lat1": la1, "lon1": lo1, "lat2": la2, "lon2": lo2}
    if not tools:
        if case == "parse":
            return "no idea, sorry"
        if case == "xss":
            return XSS_ANSWER
        if case == "hedged":
            return f"FINAL ANSWER: {gold:.1f} km or {2 * gold:.1f} km"
        if case in ("lost", "error", "both_right"):
            return f"Using the haversine formula I get about {gold:.0f} km.\nFINAL ANSWER: {gold:.1f} km"
        return "I think it is far. FINAL ANSWER: 1 km"
    if case == "error":
        raise RuntimeError("provider exploded <b>mid-call</b>")
    if case == "both_right":  # right from memory: offered tools, it calls none
        return f"About {gold:.1f} km.\nFINAL ANSWER: {gold:.1f} km"
    results = [m for m in messages if isinstance(m, ToolMessage)]
    if case == "lost":
        bad = {**args, "lat1": "<script>window.__xss=3</script>"}
        if len(results) < 2:
            return _call(len(results), bad)
        return "The tool keeps failing, so I estimate. FINAL ANSWER: 12 km"
    if case == "xss" and len(results) == 1:
        return _call(1, args)  # the same call again: the agent marks it repeated
    if not results:
        return _call(0, args)
    km = next((json.loads(m.content)["distance_km"] for m in results if m.status != "error"), 0.0)
    if case == "both_wrong":
        return f"FINAL ANSWER: {km / 2:.1f} km"
    return f"The tool says {km} km.\nFINAL ANSWER: {km} km"


def build_run(run_dir: Path) -> dict[str, list[str]]:
    """Run the cases through the runner into ``run_dir``; returns the sample ids of each case."""
    task = get_task("gpsbench.distance")
    base = task.samples(limit=len(CASES))
    samples = []
    for s, case in zip(base, CASES, strict=True):
        user = s.messages[1].model_copy(update={"content": f"{s.prompt} [case:{case}]"})
        samples.append(s.model_copy(update={"messages": (s.messages[0], user)}))
    spec = RunSpec(model="scripted/viewer-fixture", tasks=[task.name], conditions=["intrinsic", "tools"],
                   limit=len(CASES), versions={"geogap": "test"})
    store = RunStore(run_dir)
    store.write_spec("viewer-fixture", spec)
    store.add_samples(samples)
    conds = [get_condition("intrinsic"), get_condition("tools")]
    asyncio.run(run_all("viewer-fixture", spec, store, [(s, task) for s in samples], conds,
                        ScriptedChatModel(script=policy)))
    store.close()
    ids: dict[str, list[str]] = {}
    for s, case in zip(samples, CASES, strict=True):
        ids.setdefault(case, []).append(s.id)
    return ids
