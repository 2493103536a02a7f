"""Compare two behaviour snapshots from ``tests.snapshot.record``; print each difference, exit 1 if any.

Masked as volatile: run and event ids, clock times, latencies, wall times, run directories, the git revision,
package versions and the model name (the recorded runs name the scripted policy). Trace events drop their empty
fields (null, 0, false, []) on both sides: since issue 14 a model call no longer carries a tool call's null fields
and the other way round. Everything else (samples, replies, parses, scores, traces, tables, statistics) must be
equal.

    python -m tests.snapshot.compare BEFORE AFTER
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

VOLATILE = {"run_id", "id", "parent_id", "start", "end", "latency_s", "wall_s", "wall", "run_dir", "git_revision",
            "versions", "created", "mean_latency_s", "output_tokens_per_s", "latency_p50_s", "latency_p95_s",
            "started", "finished", "timestamp", "time", "elapsed_s", "tool_call_id",
            "model"}  # the scripted provider's model name: scripted/tests.snapshot.record:policy since issue 14


def mask(value: Any) -> Any:
    """``value`` with volatile keys replaced by a constant, recursively."""
    if isinstance(value, dict):
        event = value.get("kind") in ("model_call", "tool_call")
        return {k: ("~" if k in VOLATILE else mask(v)) for k, v in value.items()
                if not (event and (v is None or v is False or v == [] or (type(v) is int and v == 0)))}
    if isinstance(value, list):
        return [mask(v) for v in value]
    return value


def diff(a: Any, b: Any, path: str, out: list[str]) -> None:
    """Append ``path: a != b`` lines for every leaf that differs (first 200 lines kept)."""
    if len(out) >= 200:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{path}.{k}: only in {'after' if k in b else 'before'}")
            else:
                diff(a[k], b[k], f"{path}.{k}", out)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            diff(x, y, f"{path}[{i}]", out)
    elif a != b:
        out.append(f"{path}: {json.dumps(a, default=str)[:200]} != {json.dumps(b, default=str)[:200]}")


def load(path: Path) -> Any:
    if path.suffix == ".jsonl":
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        return {f"{r['sample_id']}|{r['condition']}|{r['epoch']}": r for r in rows}
    return json.loads(path.read_text())


def main(argv: list[str]) -> int:
    before, after = Path(argv[0]), Path(argv[1])
    names = sorted({p.relative_to(before) for p in before.rglob("*") if p.suffix in (".json", ".jsonl")}
                   | {p.relative_to(after) for p in after.rglob("*") if p.suffix in (".json", ".jsonl")})
    out: list[str] = []
    for name in names:
        if not (before / name).exists() or not (after / name).exists():
            out.append(f"{name}: only in {'after' if (after / name).exists() else 'before'}")
            continue
        diff(mask(load(before / name)), mask(load(after / name)), str(name), out)
    print("\n".join(out) if out else f"identical: {len(names)} files")
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
