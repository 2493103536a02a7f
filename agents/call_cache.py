"""The model-call cache: one SQLite database (WAL) under ``$GEOGAP_CACHE_DIR`` or ``~/.cache/geogap``.

The key is the SHA-256 of a canonical JSON document holding

- ``format``: the key format version (bump it when the key changes);
- ``model``: the identity of the model the caller was given and of what actually answers: the
  ``provider/name`` string, the generation settings sent with every call (temperature, max_tokens, seed, ...)
  and what is served. For ``local/`` that is the sha256 of the GGUF file (verified when the server starts), the
  runtime (xllamacpp and its version) and the chat handler's hash; for a server reached by URL it is what the
  server says it serves (its ``/v1/models`` entry, ``Server`` header and ``/version``, see :func:`agents.models.probe_served`),
  so another model behind the same URL never gets old answers. A server that cannot tell gets no cache;
- ``messages``: every message sent, with role, text, tool calls (name, arguments, id), tool-call ids, tool
  names and statuses;
- ``tools``: the JSON schema of every tool offered (name, description, parameters), so editing a tool's
  docstring or arguments misses the cache.

API keys are never part of the key or of the stored value: a reply holding a secret is not stored (a masked
copy would answer a later hit with other text). The value is the reply message (text, tool calls, usage) as
LangChain's message dict, so a hit returns an identical message without any network call. Only successful
replies are stored.

Expiry: a remote provider (``openai/``, ``anthropic/``, ``google/``, any base URL that is not loopback) can change
the model behind a name without telling; its entries are used for :data:`REMOTE_MAX_AGE_DAYS` days after they
were stored (as inspect_ai does by default), then called again. Entries of ``local/`` and loopback servers, whose
key names the served model exactly, do not expire.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from langchain_core.messages import AIMessage, BaseMessage, messages_from_dict, messages_to_dict
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from agents.messages import to_dict
from agents.models import is_loopback_url
from agents.secrets import redact_obj

KEY_FORMAT = 2
REMOTE_MAX_AGE_DAYS = 7.0
SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
  key TEXT PRIMARY KEY, model TEXT NOT NULL, reply TEXT NOT NULL, created REAL NOT NULL,
  last_used REAL NOT NULL, hits INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS calls_last_used ON calls (last_used);
"""


def cache_root() -> Path:
    """``$GEOGAP_CACHE_DIR`` or ``~/.cache/geogap``."""
    return Path(os.environ.get("GEOGAP_CACHE_DIR") or Path.home() / ".cache" / "geogap")


def default_cache_path() -> Path:
    return cache_root() / "model_calls.sqlite"


_SCHEMAS: dict[int, tuple[BaseTool, dict[str, Any]]] = {}


def max_age_s(model: str, base_url: str | None) -> float | None:
    """How long a cached reply of ``model`` at ``base_url`` stays valid (None: for ever), see the module doc."""
    if model.startswith("local/") or (base_url and is_loopback_url(base_url)):
        return None
    return REMOTE_MAX_AGE_DAYS * 86400


def tool_schemas(tools: Sequence[BaseTool]) -> list[dict[str, Any]]:
    """The OpenAI JSON schema of each tool (memoised per tool object; the object is kept alive with it)."""
    out = []
    for t in tools:
        hit = _SCHEMAS.get(id(t))
        if hit is None or hit[0] is not t:
            hit = _SCHEMAS[id(t)] = (t, convert_to_openai_tool(t))
        out.append(hit[1])
    return out


def cache_key(model: Mapping[str, Any], messages: Sequence[BaseMessage], tools: Sequence[BaseTool] = ()) -> str:
    """The cache key of one call (see the module docstring for what it covers)."""
    doc = {"format": KEY_FORMAT, "model": dict(model), "messages": [to_dict(m) for m in messages],
           "tools": tool_schemas(tools)}
    return hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()


class CallStore(Protocol):
    """What a model caller reads and writes: a :class:`CallCache`, or a proxy of one on another machine (the Ray
    executor's shared cache, :mod:`evals.ray_executor`)."""

    def get(self, key: str, max_age_s: float | None = None) -> AIMessage | None: ...

    def put(self, key: str, model: str, reply: AIMessage) -> None: ...


@dataclass(frozen=True)
class CacheSummary:
    model: str
    entries: int
    hits: int
    bytes: int
    last_used: float


class CallCache:
    """Read and write cached model replies."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path else default_cache_path()
        self.failure: str | None = None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    def _trouble(self, exc: Exception) -> None:
        """A cache that cannot be read or written (disk full, corrupt file) is a miss, never a failed call: one
        warning line, then the run goes on without it."""
        if self.failure is None:
            self.failure = f"{type(exc).__name__}: {exc}"
            print(f"warning: the model-call cache {self.path} cannot be used ({self.failure}); calls go to the model",
                  file=sys.stderr)

    def get(self, key: str, max_age_s: float | None = None) -> AIMessage | None:
        """The stored reply for ``key``, unless none is stored, it is older than ``max_age_s`` seconds or the
        cache cannot be read."""
        try:
            row = self.db.execute("SELECT reply, created FROM calls WHERE key = ?", (key,)).fetchone()
            if row is None or (max_age_s is not None and row[1] < time.time() - max_age_s):
                return None
            with self.db:
                self.db.execute("UPDATE calls SET last_used = ?, hits = hits + 1 WHERE key = ?", (time.time(), key))
            message = messages_from_dict(json.loads(row[0]))[0]
        except (sqlite3.Error, ValueError, KeyError, IndexError, TypeError) as exc:
            self._trouble(exc)
            return None
        return message if isinstance(message, AIMessage) else None

    def put(self, key: str, model: str, reply: AIMessage) -> None:
        """Store ``reply``, unless it holds a secret (a masked copy would answer a later hit with other text) or
        text that cannot be written as UTF-8 (a lone surrogate); a cache that cannot be written is skipped."""
        data = messages_to_dict([reply])
        if redact_obj(data) != data:
            return
        now = time.time()
        try:
            with self.db:
                self.db.execute("INSERT OR REPLACE INTO calls VALUES (?, ?, ?, ?, ?, 0)",
                                (key, model, json.dumps(data, ensure_ascii=False), now, now))
        except sqlite3.Error as exc:
            self._trouble(exc)

    def summary(self) -> list[CacheSummary]:
        rows = self.db.execute("SELECT model, COUNT(*), SUM(hits), SUM(LENGTH(reply)), MAX(last_used) FROM calls "
                               "GROUP BY model ORDER BY model")
        return [CacheSummary(m, n, int(h or 0), int(b or 0), float(t or 0)) for m, n, h, b, t in rows]

    def clear(self, model: str | None = None) -> int:
        """Delete every entry (or those of one model); returns how many were deleted."""
        with self.db:
            cur = (self.db.execute("DELETE FROM calls WHERE model = ?", (model,)) if model
                   else self.db.execute("DELETE FROM calls"))
        self.db.execute("VACUUM")
        return cur.rowcount

    def prune(self, older_than_days: float) -> int:
        """Delete entries not used for ``older_than_days`` days; returns how many were deleted."""
        with self.db:
            cur = self.db.execute("DELETE FROM calls WHERE last_used < ?", (time.time() - older_than_days * 86400,))
        self.db.execute("VACUUM")
        return cur.rowcount
