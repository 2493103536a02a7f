"""Secrets issue 29 found unmasked, and text that cannot be written: Basic credentials echoed by a server, a
base URL's user:pass, a short key named with --api-key-env, lone UTF-16 surrogates."""

from __future__ import annotations

import base64
import json

import pytest
from pydantic import BaseModel

from agents.secrets import MASK, add_secret_env, add_secret_url, redact, redact_json, redact_obj


def test_an_echoed_basic_header_is_masked_and_words_after_basic_are_not() -> None:
    token = base64.b64encode(b"bob:hunter22").decode()
    assert redact(f"you sent Authorization: Basic {token}.") == f"you sent Authorization: Basic {MASK}."
    prose = "Basic arithmetic and basic science: Basic ABCD1234 is no credential"  # decodes without a colon
    assert redact(prose) == prose


def test_a_base_urls_credentials_are_masked_wherever_they_appear() -> None:
    add_secret_url("http://carol:pa%24%24word9@10.0.0.5:8000/v1")
    basic = base64.b64encode(b"carol:pa$$word9").decode()
    text = f"pass pa$$word9, pair carol:pa$$word9, header {basic}"
    masked = redact(text)
    assert "pa$$word9" not in masked and basic not in masked and masked.count(MASK) == 3


def test_a_short_named_key_is_masked_an_unnamed_short_value_is_not(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SHORT_KEY", "zq7x1")
    monkeypatch.setenv("OTHER_API_KEY", "zq7x2")  # secret-looking name, but under 8 characters: plain text
    assert redact("zq7x1 zq7x2") == "zq7x1 zq7x2"
    add_secret_env("MY_SHORT_KEY")
    assert redact("zq7x1 zq7x2") == f"{MASK} zq7x2"


class Reply(BaseModel):
    text: str
    n: int = 3


@pytest.mark.parametrize("text", ["cut emoji \ud83d", "\udc00 low half first"])
def test_lone_surrogates_become_replacement_characters(text: str) -> None:
    out = redact_json(Reply(text=text))
    out.encode("utf-8")  # writable, where the raw text is not
    back = json.loads(out)
    assert back["n"] == 3 and "\ufffd" in back["text"] and not any(0xD800 <= ord(c) <= 0xDFFF for c in back["text"])
    assert redact_obj({"t": text})["t"] == back["text"]
    assert redact("fine text é ✓") == "fine text é ✓"
