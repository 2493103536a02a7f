"""Benchmark 10: how the embedded server's threads wait between steps (OpenMP's wait policy).

Each trial starts llama.cpp's engine (xllamacpp, the embedded model) in a child process with ``OMP_WAIT_POLICY``
set to PASSIVE (sleep at once), ACTIVE (spin) or left unset (OpenMP's default: spin briefly, then sleep), writes
``tokens`` tokens for one reply and then for four at once, and reports llama.cpp's own per-token time. Policies
alternate over ``rounds`` rounds so that drift on a shared machine shows.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from common import alternate

POLICIES = ("PASSIVE", "ACTIVE", "default")
CHILD = """
import json, sys, threading
from agents.llama_server import engine_params
from agents.local_model import ensure_model_file, DEFAULT_LOCAL_MODEL
import xllamacpp
threads, tokens = int(sys.argv[1]), int(sys.argv[2])
server = xllamacpp.Server(engine_params(str(ensure_model_file(DEFAULT_LOCAL_MODEL)), slots=4, ctx_per_slot=2048,
                                        threads=threads, cache_ram_mib=0))
def ask(topic, out):
    reply = server.handle_completions({"prompt": f"Write a long story about {topic}.", "n_predict": tokens,
                                       "temperature": 0, "ignore_eos": True, "cache_prompt": False})
    out.append(reply["timings"]["predicted_per_token_ms"])
ask("warming up", [])
figures = {}
for n in (1, 4):
    out = []
    workers = [threading.Thread(target=ask, args=(f"topic {i}", out)) for i in range(n)]
    [w.start() for w in workers]
    [w.join() for w in workers]
    figures[n] = max(out)
print(json.dumps(figures))
"""


def trial(policy: str, threads: int, tokens: int) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if policy != "default":
        env["OMP_WAIT_POLICY"] = policy
    root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run([sys.executable, "-c", CHILD, str(threads), str(tokens)], env=env, capture_output=True,
                          text=True, check=True)
    per = json.loads(done.stdout.strip().splitlines()[-1])
    return {"one_reply_ms_per_token": round(per["1"], 1), "four_replies_ms_per_step": round(per["4"], 1)}


def run(threads: int, tokens: int, rounds: int) -> dict[str, Any]:
    rows = alternate(rounds, "policy", POLICIES, lambda policy: trial(policy, threads, tokens))
    return {"threads": threads, "tokens": tokens, "rows": rows}
