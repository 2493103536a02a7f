"""Which llama.cpp slot answers a chat request, chosen so that a long shared prompt prefix is evaluated once.

Each llama.cpp slot keeps its own prompt cache (the KV cache is split between slots, not shared), and llama.cpp
places a request on an idle slot. When several requests with the same long prefix (the tools condition's system
prompt and tool schemas, ~1,000 tokens) arrive together, each idle slot evaluates that prefix again; on two CPU
cores that was most of the quick suite's time. The router sends a request to the slot that last held the longest
prefix of it (llama.cpp's ``id_slot``; a request for a busy slot waits for it), so a conversation's next call and
a sibling sample reuse what that slot already evaluated. A request sharing no long prefix goes to the least
loaded slot, and a slot holding ``max_queue`` requests already is passed over for the least loaded one, so one
prefix never holds the whole run on one slot.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

MIN_SHARED_CHARS = 1_500
"""A prefix shorter than this (about 400 tokens) is cheaper to evaluate again than to wait for its slot."""
MAX_QUEUE = 2
"""Requests a slot may hold (one answering, the rest waiting) before a request sharing its prefix goes elsewhere."""


@dataclass
class _Slot:
    prompt: str = ""
    in_flight: int = 0
    last_used: int = 0


@dataclass
class SlotRouter:
    """Chooses a slot per prompt (thread-safe): the longest shared prefix of at least ``min_shared_chars`` on a
    slot with fewer than ``max_queue`` requests, else the least loaded, least recently used slot."""

    slots: int
    min_shared_chars: int = MIN_SHARED_CHARS
    max_queue: int = MAX_QUEUE
    _state: list[_Slot] = field(init=False)
    _lock: threading.Lock = field(init=False, default_factory=threading.Lock)
    _clock: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        if self.slots < 1:
            raise ValueError(f"a router needs at least one slot, got {self.slots}")
        self._state = [_Slot() for _ in range(self.slots)]

    def _choose(self, prompt: str) -> int:
        shared = [len(os.path.commonprefix([s.prompt, prompt])) for s in self._state]
        open_slots = [i for i, s in enumerate(self._state) if s.in_flight < self.max_queue]
        best = max(open_slots, key=lambda i: shared[i], default=None)
        if best is not None and shared[best] >= self.min_shared_chars:
            return best
        return min(range(self.slots), key=lambda i: (self._state[i].in_flight, self._state[i].last_used))

    @contextmanager
    def slot_for(self, prompt: str) -> Iterator[int]:
        """The slot to send ``prompt`` to, held (counted as in flight) until the block ends."""
        with self._lock:
            chosen = self._choose(prompt)
            slot = self._state[chosen]
            self._clock += 1
            slot.prompt, slot.in_flight, slot.last_used = prompt, slot.in_flight + 1, self._clock
        try:
            yield chosen
        finally:
            with self._lock:
                slot.in_flight -= 1
