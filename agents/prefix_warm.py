"""Shared prompt heads within every slot's reach before the requests that share them run.

A task's samples share a long head: the system turn with the task's instructions and its tool schemas (about
1,000 tokens for the geodesy tools, most of a tools sample's first prompt). When several of them start at once,
each lands on its own llama.cpp slot and every slot evaluates the head anew (4 slots, 4 times). llama.cpp's host
memory prompt cache (``cache_ram_mib``) could give it to the others, but an entry is moved into the slot that
loads it, and idle slots are copied into the cache only when some other request starts.

:class:`PrefixWarmer` therefore runs, the first time a head at least :data:`MIN_HEAD_CHARS` long is seen, ``slots
- 1`` one-token completions of the head followed by a distinct marker, each followed by a one-token request that
lands on another slot (its start copies the idle slot holding the head into the cache): the head is evaluated
once, the cache then holds ``slots - 1`` distinct entries starting with it, one slot holds it, and each request
of the burst reuses it (an entry is loaded only when it shares at least a quarter of its tokens). Requests with
that head wait until it is warm. What the warm-up changes is where a prompt's tokens come from, never what is
computed from them: a slot restores the exact state the head produced.

Measured on a quiet 2-core machine, 4 slots, a 1,044-token head and four 1,079-token prompts sharing it: 63.5 s
without the warm-up, every prompt evaluated whole; 18.2 s with it, 32 tokens evaluated a prompt
(``benchmarks/prefix_warm.py``, benchmark 11 in ``benchmarks/README.md``).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from typing import Any

MIN_HEAD_CHARS = 2000
"""Heads shorter than this (about 500 tokens) are not warmed: evaluating them again costs less than the warm-up
requests."""

SPREAD_PROMPT = "\n"
"""The one-token request after each marked head: it shares nothing with the head, so llama.cpp places it on
another slot, and its start copies the idle slot holding the marked head into the host-memory cache."""

Complete = Callable[[dict[str, Any]], dict[str, Any]]


def marked(head: str, k: int) -> str:
    """The head followed by the ``k``-th marker: distinct entries, so the cache keeps each."""
    return f"{head}{k}"


class PrefixWarmer:
    """Warms each long prompt head once per server: see the module docstring."""

    def __init__(self, complete: Complete, slots: int) -> None:
        self._complete = complete
        self._copies = max(0, slots - 1)
        self._lock = threading.Lock()
        self._heads: dict[str, threading.Event] = {}

    def ready(self, head: str) -> None:
        """Return once ``head`` is warm: warm it in this thread if it is new, else wait for the thread that
        does. A head too short, or a server of one slot (its slot keeps the head), returns at once."""
        if self._copies == 0 or len(head) < MIN_HEAD_CHARS:
            return
        key = hashlib.sha256(head.encode()).hexdigest()
        with self._lock:
            event = self._heads.get(key)
            owner = event is None
            if owner:
                event = self._heads[key] = threading.Event()
        assert event is not None
        if not owner:
            event.wait()
            return
        try:
            for k in range(1, self._copies + 1):
                self._one_token(marked(head, k))
                self._one_token(SPREAD_PROMPT)
        finally:
            event.set()

    def _one_token(self, prompt: str) -> None:
        try:
            self._complete({"prompt": prompt, "max_tokens": 1, "temperature": 0.0, "cache_prompt": True})
        except Exception:  # noqa: BLE001 - a failed warm-up leaves the requests to evaluate the head themselves
            pass
