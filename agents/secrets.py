"""Keep API keys and authorisation headers out of everything we write (stores, traces, caches, logs, reports).

:func:`redact` replaces the values of secret-looking environment variables (names ending in ``API_KEY``,
``_TOKEN``, ``_SECRET``, ``_PASSWORD``; values of 8 characters or more) and well-known key shapes
(``Bearer <token>``, ``sk-...``, Google ``AIza...`` keys, ``key=``/``api_key=`` URL parameters) with
``[REDACTED]``. It is applied at every boundary where text is persisted.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache

MASK = "[REDACTED]"
SECRET_NAME = re.compile(r"(API_KEY|APIKEY|_TOKEN|_SECRET|_PASSWORD|_ACCESS_KEY)$", re.IGNORECASE)
MIN_SECRET_LEN = 8
KEY_SHAPES = re.compile(
    r"(?<=Bearer )\s*(?=[A-Za-z0-9._~+/=-]*\d)[A-Za-z0-9._~+/=-]{8,}"  # authorisation header values
    r"|\bsk-(?:ant-)?[A-Za-z0-9_-]{16,}"  # OpenAI / Anthropic keys
    r"|\bAIza[0-9A-Za-z_-]{30,}"  # Google API keys
    r"|(?<=[?&]key=)[^&\s\"']{8,}|(?<=[?&]api_key=)[^&\s\"']{8,}",  # keys in URLs
    re.IGNORECASE,
)

TRIGGERS = ("bearer", "sk-", "aiza", "key=")


def secret_values() -> tuple[str, ...]:
    """Values of secret-looking environment variables now set (longest first)."""
    names = [k for k in os.environ if SECRET_NAME.search(k)]  # values decoded only for secret-looking names
    found = {v for k in names if len(v := os.environ.get(k, "")) >= MIN_SECRET_LEN}
    return tuple(sorted(found, key=len, reverse=True))


@lru_cache(maxsize=8)
def _pattern(values: tuple[str, ...]) -> re.Pattern[str] | None:
    return re.compile("|".join(re.escape(v) for v in values)) if values else None


def redact(text: str) -> str:
    """``text`` with every known secret and key-shaped token replaced by ``[REDACTED]``."""
    if not text:
        return text
    pattern = _pattern(secret_values())
    if pattern is not None:
        text = pattern.sub(MASK, text)
    lowered = text.lower()
    if any(t in lowered for t in TRIGGERS):  # the shape regex is slow: run it only where a shape can match
        text = KEY_SHAPES.sub(MASK, text)
    return text
