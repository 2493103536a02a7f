"""Keep API keys and authorisation headers out of everything we write (stores, traces, caches, logs, reports).

What is a secret: the values of secret-looking environment variables (names ending in ``API_KEY``, ``_TOKEN``,
``_SECRET``, ``_PASSWORD``, ``_ACCESS_KEY``; values of 8 characters or more), the value of any variable named by
:func:`add_secret_env` (a key named with ``--api-key-env``, whatever its length), values given to
:func:`add_secret_url` (the ``user:pass`` of a base URL, its password and the Basic authorisation the client
builds from them), well-known key shapes (``Bearer <token>``, ``Basic <credentials>``, ``sk-...``, Google
``AIza...`` keys) and credentials in URLs (``user:pass@host``, and the values of the ``key``, ``api_key``,
``apikey``, ``api-key``, ``token``, ``access_token`` and ``sig`` query parameters). Each is replaced by
``[REDACTED]``.

Text is also made writable: a lone UTF-16 surrogate (half of a cut emoji, valid in JSON, ``"\\ud83d"``) cannot be
encoded as UTF-8, so every masking function replaces it by U+FFFD (the replacement character) and what is
written never fails to encode.

Structured data is masked in its *values*, before serialization: :func:`redact_obj` walks dicts and lists and
masks strings only (numbers, booleans and the JSON syntax are never touched), and :func:`redact_json` serializes
a pydantic model or plain data that way (non-finite floats as ``null``, as pydantic does). :func:`redact` masks free text (error messages, rendered pages). Never
apply :func:`redact` to serialized JSON: a mask inside a number or an escape sequence corrupts it.
"""

from __future__ import annotations

import base64
import json
import math
import os
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote, urlsplit

MASK = "[REDACTED]"
SECRET_NAME = re.compile(rb"(API_KEY|APIKEY|_TOKEN|_SECRET|_PASSWORD|_ACCESS_KEY)$", re.IGNORECASE)
MIN_SECRET_LEN = 8
URL_PARAMS = ("key", "api_key", "apikey", "api-key", "token", "access_token", "sig")
KEY_SHAPES = re.compile(
    r"(?<=Bearer )\s*(?=[A-Za-z0-9._~+/=-]*\d)[A-Za-z0-9._~+/=-]{8,}"  # authorisation header values
    r"|\bsk-(?:ant-)?[A-Za-z0-9_-]{16,}"  # OpenAI / Anthropic keys
    r"|\bAIza[0-9A-Za-z_-]{30,}"  # Google API keys
    r"|(?<=://)[^/\s@:\"'\\]+:[^/\s@\"'\\]+(?=@)",  # user:password@host in URLs
    re.IGNORECASE,
)
URL_PARAM = re.compile(r"([?&;](?:" + "|".join(map(re.escape, URL_PARAMS)) + r")=)[^&#\s\"'\\]+", re.IGNORECASE)
TRIGGERS = ("bearer", "basic", "sk-", "aiza", "://", *(p + "=" for p in URL_PARAMS))
SURROGATE = re.compile("[\ud800-\udfff]")
BASIC = re.compile(r"(?<=Basic )[A-Za-z0-9+/]{4,}={0,2}(?![A-Za-z0-9+/=])")  # HTTP Basic credentials


def _basic(m: re.Match[str]) -> str:
    """A ``Basic`` authorisation value (base64 of ``user:password``) masked; other words after "Basic" kept."""
    token = m.group(0)
    try:
        decoded = base64.b64decode(token, validate=True).decode()
    except ValueError:
        return token
    return MASK if ":" in decoded else token


_NAMED: set[bytes] = set()  # variables named as keys (--api-key-env) whatever their names
_GIVEN: set[str] = set()  # secret values given directly (credentials of a base URL)


def add_secret_env(name: str) -> None:
    """Treat the value of the environment variable ``name`` as a secret (a key named by ``--api-key-env``),
    whatever its length."""
    if name.encode() not in _NAMED:
        _NAMED.add(name.encode())
        _ENV.snapshot = None


def add_secret_url(url: str | None) -> None:
    """Treat the credentials of ``url`` (``user:pass@``) as secrets: ``user:pass``, the password, and the
    ``Basic`` value an HTTP client sends for them (a server may echo it)."""
    if not url:
        return
    try:
        parts = urlsplit(url)
        user, password = parts.username, parts.password
    except ValueError:
        return
    if user is None:
        return
    pair = f"{unquote(user)}:{unquote(password or '')}"
    found = {v for v in (password, unquote(password or ""), f"{user}:{password or ''}", pair,
                         base64.b64encode(pair.encode()).decode()) if v and len(v) >= 4}
    if found - _GIVEN:
        _GIVEN.update(found)
        _ENV.snapshot = None


class _EnvSecrets:
    """The secret values of the environment, recomputed only when the environment changed.

    ``os.environ`` decodes every variable on each read; its raw bytes mapping does not, and a snapshot of its
    items compares in one C-level pass, so an unchanged environment costs no regex and no decoding.
    """

    def __init__(self) -> None:
        self.snapshot: dict[bytes, bytes] | None = None
        self.values: tuple[str, ...] = ()
        self.escaped: tuple[str, ...] = ()
        self.pattern: re.Pattern[str] | None = None

    def _raw(self) -> Mapping[Any, Any]:
        return getattr(os.environ, "_data", os.environ)

    def current(self) -> _EnvSecrets:
        raw = self._raw()
        if self.snapshot is None or raw != self.snapshot:
            self.snapshot = dict(raw)
            found: set[str] = set()
            for k, v in self.snapshot.items():
                name = k if isinstance(k, bytes) else str(k).encode()
                if SECRET_NAME.search(name) or name in _NAMED:
                    value = v.decode(errors="surrogateescape") if isinstance(v, bytes) else str(v)
                    if len(value) >= MIN_SECRET_LEN or (name in _NAMED and value):
                        found.add(value)
            found |= _GIVEN
            self.values = tuple(sorted(found, key=len, reverse=True))
            self.escaped = tuple(json.dumps(v, ensure_ascii=False)[1:-1] for v in self.values)
            self.pattern = re.compile("|".join(re.escape(v) for v in self.values)) if self.values else None
        return self


_ENV = _EnvSecrets()


def _mask(text: str, env: _EnvSecrets) -> str:
    if not text:
        return text
    if not text.isascii() and SURROGATE.search(text):
        text = SURROGATE.sub("\ufffd", text)
    if env.pattern is not None:
        text = env.pattern.sub(MASK, text)
    lowered = text.lower()
    if any(t in lowered for t in TRIGGERS):  # the shape regexes are slow: run them only where one can match
        text = KEY_SHAPES.sub(MASK, text)
        text = URL_PARAM.sub(lambda m: m.group(1) + MASK, text)
        if "Basic " in text:
            text = BASIC.sub(_basic, text)
    return text


def redact(text: str) -> str:
    """``text`` with every known secret, key-shaped token and URL credential replaced by ``[REDACTED]``."""
    return _mask(text, _ENV.current())


def _walk(obj: Any, env: _EnvSecrets, for_json: bool = False) -> Any:
    if isinstance(obj, str):
        return _mask(obj, env)
    if isinstance(obj, Mapping):
        return {(_mask(k, env) if isinstance(k, str) else k): _walk(v, env, for_json) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_walk(v, env, for_json) for v in obj]
    if for_json and isinstance(obj, float) and not math.isfinite(obj):
        return None  # as pydantic writes them: JSON has no NaN or infinity
    return obj


def redact_obj(obj: Any) -> Any:
    """A copy of ``obj`` (dicts, lists, tuples, scalars) with secrets masked inside its strings only."""
    return _walk(obj, _ENV.current())


def _may_hold_secret(serialized: str, env: _EnvSecrets) -> bool:
    """Whether some string in the data serialized as ``serialized`` could hold a secret (cheap, conservative)."""
    if any(v in serialized for v in env.values) or any(e in serialized for e in env.escaped):
        return True
    lowered = serialized.lower()
    return any(t in lowered for t in TRIGGERS)


def redact_json(obj: Any, *, indent: int | None = None, **dump: Any) -> str:
    """``obj`` (a pydantic model, with ``dump`` passed to its ``model_dump``, or plain JSON data) as JSON text
    with secrets masked in its string values; always valid JSON that reads back to the same structure."""
    env = _ENV.current()
    if hasattr(obj, "model_dump_json"):
        try:
            text: str = obj.model_dump_json(indent=indent, **dump)
        except ValueError:  # pydantic refuses to serialize a lone surrogate: mask (and replace) first
            text = ""
        if text and not _may_hold_secret(text, env) and not SURROGATE.search(text):
            return text
        data = obj.model_dump(mode="json", **dump)
    else:
        data = obj
    return json.dumps(_walk(data, env, for_json=True), indent=indent, ensure_ascii=False, allow_nan=False)
