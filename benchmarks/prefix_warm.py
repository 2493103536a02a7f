"""Benchmark 11: requests sharing a long head, started at once, with and without the warm-up.

Each trial starts llama.cpp's engine (xllamacpp, the embedded model, 4 slots) in a child process and sends four
requests at once that share a system turn of about 1,050 tokens and differ in their question, through the
embedded server's own chat path (:func:`agents.llama_server.chat_completion`), with the warm-up
(:class:`agents.prefix_warm.PrefixWarmer`) or without. It reports the wall time of the four and the prompt tokens
each had to evaluate. Modes alternate over ``rounds`` rounds so that drift on a shared machine shows.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from common import alternate

MODES = ("cold", "warm")
CHILD = """
import json, sys, threading, time
import xllamacpp
from agents.llama_server import chat_completion, engine_params, read_template
from agents.local_model import DEFAULT_LOCAL_MODEL, ensure_model_file
from agents.prefix_warm import PrefixWarmer
mode, threads, slots = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
server = xllamacpp.Server(engine_params(str(ensure_model_file(DEFAULT_LOCAL_MODEL)), slots=slots, ctx_per_slot=4096,
                                        threads=threads, cache_ram_mib=1024))
template = read_template(server.listening_address)
warmer = PrefixWarmer(server.handle_completions, slots) if mode == "warm" else None
system = "You are a careful geodesy assistant. " + " ".join(
    f"Rule {i}: give bearings clockwise from north in degrees and distances on the WGS84 ellipsoid in km."
    for i in range(40))
counts = {}
def ask(i):
    body = {"messages": [{"role": "system", "content": system},
                         {"role": "user", "content": f"What is the initial bearing from ({10 + i}, {20 + i}) to "
                                                     f"({30 - i}, {40 - i})?"}], "max_tokens": 8}
    used = chat_completion(body, template, server.handle_completions, warmer)["usage"]
    counts[i] = used["prompt_tokens"] - used["prompt_tokens_details"]["cached_tokens"]
start = time.perf_counter()
workers = [threading.Thread(target=ask, args=(i,)) for i in range(slots)]
[w.start() for w in workers]
[w.join() for w in workers]
print(json.dumps({"wall_s": round(time.perf_counter() - start, 1), "evaluated": [counts[i] for i in sorted(counts)]}))
"""


def trial(mode: str, threads: int, slots: int) -> dict[str, Any]:
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run([sys.executable, "-c", CHILD, mode, str(threads), str(slots)], env=env,
                          capture_output=True, text=True, check=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def run(threads: int, slots: int, rounds: int) -> dict[str, Any]:
    rows = alternate(rounds, "mode", MODES, lambda mode: trial(mode, threads, slots))
    return {"threads": threads, "slots": slots, "rows": rows}
