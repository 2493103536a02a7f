"""Redaction never corrupts data: secrets are masked in string values before serialization, numbers and JSON
syntax are never touched, and what was written reads back."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage

from agents.call_cache import CallCache
from agents.secrets import MASK, redact, redact_json, redact_obj
from agents.trace import ModelCallEvent
from evals.records import RunSpec, SampleResult
from evals.store import RunStore

SECRET = "12345678"  # a numeric password: it also appears inside unrelated numbers
ALPHABET = "abcdef0123456789 .,\"\\{}[]\né"  # no character that could form a key shape or a URL credential


@pytest.fixture(autouse=True)
def _password(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DB_PASSWORD", SECRET)


def _texts() -> st.SearchStrategy[str]:
    piece = st.one_of(st.text(ALPHABET, max_size=12), st.just(SECRET), st.just(SECRET + ".5"))
    return st.lists(piece, max_size=5).map("".join)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10**12, 10**12) | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([12345678.5, 12345678, 0.12345678, 912345678]) | _texts(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_texts(), inner, max_size=4),
    max_leaves=20,
)


def _expected(value: Any) -> Any:
    """Masking done by hand: each occurrence of the secret in a string becomes the mask; nothing else changes."""
    if isinstance(value, str):
        return value.replace(SECRET, MASK)
    if isinstance(value, dict):
        return {_expected(k): _expected(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_expected(v) for v in value]
    return value


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_random_json_with_secrets_stays_valid_and_loses_no_other_digit(data: Any) -> None:
    text = redact_json(data)
    back = json.loads(text)  # valid JSON, whatever the secrets sat in
    assert back == _expected(data)
    assert SECRET not in json.dumps(back, ensure_ascii=False).replace(MASK, "") or _has_secret_number(data)
    if isinstance(data, str):  # every digit that was not part of the secret is still there, in order
        assert _digits(back.replace(MASK, "")) == _digits(data.replace(SECRET, ""))


def _has_secret_number(value: Any) -> bool:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return SECRET in json.dumps(value)
    if isinstance(value, dict):
        return any(_has_secret_number(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_secret_number(v) for v in value)
    return False


def test_numbers_holding_the_secret_digits_are_left_alone() -> None:
    data = {"value": 12345678.5, "n": 12345678, "text": "paid 12345678.5 €"}
    assert json.loads(redact_json(data)) == {"value": 12345678.5, "n": 12345678, "text": f"paid {MASK}.5 €"}


def test_an_escaped_quote_after_a_url_key_keeps_the_json_valid() -> None:
    data = {"url": 'call https://x.test/v1?key=abcdefghij"', "k": 'c:\\path\\"quoted\\"'}
    back = json.loads(redact_json(data))
    assert back == {"url": f'call https://x.test/v1?key={MASK}"', "k": data["k"]}


@pytest.mark.parametrize("url, secret", [
    ("https://alice:s3cr3tpass@llm.example/v1", "alice:s3cr3tpass"),
    ("https://llm.example/v1?token=t0k3n", "t0k3n"),
    ("https://llm.example/v1?a=1&access_token=ya29.abc", "ya29.abc"),
    ("https://llm.example/v1?apikey=AK1", "AK1"),
    ("https://llm.example/v1?api-key=AK2&x=y", "AK2"),
    ("https://blob.example/x?sv=1&sig=abc%2Fdef", "abc%2Fdef"),
    ("https://llm.example/v1?api_key=zz99", "zz99"),
])
def test_credentials_in_base_urls_are_masked(url: str, secret: str) -> None:
    out = redact(url)
    assert secret not in out and MASK in out and out.startswith("https://")
    assert secret not in redact_json({"base_url": url})


def test_plain_numbers_and_ordinary_urls_are_not_masked() -> None:
    text = "see https://example.org/page?q=12345&lang=en at 10:30, value 98765432.1"
    assert redact(text) == text


def test_the_environment_is_read_again_when_it_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    assert redact(f"x {SECRET} y") == f"x {MASK} y"
    monkeypatch.setenv("OTHER_API_KEY", "brand-new-key-value")
    assert redact("x brand-new-key-value y") == f"x {MASK} y"
    monkeypatch.delenv("OTHER_API_KEY")
    assert redact("x brand-new-key-value y") == "x brand-new-key-value y"


def test_redact_obj_masks_strings_and_keeps_other_values() -> None:
    assert redact_obj({"a": [SECRET, 12345678, True, None], SECRET: 1.5}) == {"a": [MASK, 12345678, True, None],
                                                                              MASK: 1.5}


def _result(text: str, value: float) -> SampleResult:
    event = ModelCallEvent(raw_text=text, latency_s=value, message_out={"content": text, "n": value})
    return SampleResult(run_id="r", sample_id="s/1", task="t", condition="intrinsic", epoch=0, model="m",
                        final_text=text, trace=[event], latency_s=value)


def test_the_run_store_reads_back_what_it_wrote(tmp_path: Path) -> None:
    text = f'pw {SECRET} at https://u:pw@h/v1?key=abcdefghij" \\ é'
    with RunStore(tmp_path) as store:
        store.write_spec("r", RunSpec(model="m", tasks=["t"], conditions=["intrinsic"],
                                      base_url="https://u:pw@h/v1?token=abc"))
        store.add_result(_result(text, 12345678.5))
        back = list(store.results())
        spec = store.read_spec()
    assert spec is not None and spec[1].base_url == f"https://{MASK}@h/v1?token={MASK}"
    assert len(back) == 1 and back[0].latency_s == 12345678.5
    assert back[0].final_text == f'pw {MASK} at https://{MASK}@h/v1?key={MASK}" \\ é'
    [event] = back[0].trace
    assert isinstance(event, ModelCallEvent) and event.message_out == {"content": back[0].final_text, "n": 12345678.5}


def test_the_call_cache_reads_back_what_it_wrote(tmp_path: Path) -> None:
    cache = CallCache(tmp_path / "c.sqlite")
    try:
        plain = AIMessage('cost 2345.5 "\\ é', usage_metadata={"input_tokens": 12345678, "output_tokens": 1,
                                                                 "total_tokens": 12345679})
        cache.put("plain", "m", plain)
        cache.put("secret", "m", AIMessage(f'cost 12345678.5, pw {SECRET}, url ?key=abcdefghij"'))
        hit, secret_hit = cache.get("plain"), cache.get("secret")
    finally:
        cache.close()
    assert hit is not None and hit.content == 'cost 2345.5 "\\ é'
    assert hit.usage_metadata is not None and hit.usage_metadata["input_tokens"] == 12345678
    # a reply holding a secret is not stored: a masked copy would answer the next run with other text
    assert secret_hit is None and b"abcdefghij" not in (tmp_path / "c.sqlite").read_bytes()
