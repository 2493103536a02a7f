"""The model-call cache never answers for a model that changed: its key names what answers, for every provider
(the policy's code for ``scripted/``, the endpoint and client for hosted APIs), or there is no cache."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agents.providers import PROVIDERS, Provider, Served
from evals.compare import main
from evals.store import RunStore

TASK = "gpsbench.distance"
ANSWERS = "def policy(messages, tool_names):\n    return 'FINAL ANSWER: 100 km'\n"
REFUSES = "def policy(messages, tool_names):\n    return 'I cannot answer that.'\n"


def _run(tmp_path: Path, out: str, module: str) -> list[tuple[str, int]]:
    sys.modules.pop(module, None)  # each CLI run is a new process: the policy is read afresh
    assert main(["--model", f"scripted/{module}:policy", "--tasks", TASK, "--limit", "2", "--condition",
                 "intrinsic", "--output", str(tmp_path / out)]) == 0
    with RunStore(tmp_path / out) as store:
        return [(r.final_text, r.cache_hits) for r in store.results()]


def test_a_changed_scripted_policy_is_not_answered_from_the_cache(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "changing_policy.py").write_text(ANSWERS)
    assert _run(tmp_path, "first", "changing_policy") == [("FINAL ANSWER: 100 km", 0)] * 2
    assert _run(tmp_path, "again", "changing_policy") == [("FINAL ANSWER: 100 km", 1)] * 2  # unchanged: cached
    (tmp_path / "changing_policy.py").write_text(REFUSES)
    assert _run(tmp_path, "changed", "changing_policy") == [("I cannot answer that.", 0)] * 2


class InProcess(Provider):
    """A plug-in provider answering in-process, which says nothing of what answers."""

    name = "in-process-test"
    description = "test"


@pytest.mark.parametrize("provider, name, served, cached", [
    (InProcess(), "m", Served(None), False),  # nothing names what answers: no cache
    (PROVIDERS.get("anthropic"), "claude-3-5-sonnet-latest", Served(None), False),  # an alias that moves
    (PROVIDERS.get("anthropic"), "claude-3-5-sonnet-20241022", Served(None), True),
    (PROVIDERS.get("google"), "gemini-2.0-flash-latest", Served(None), False),
    (PROVIDERS.get("google"), "gemini-2.0-flash-001", Served("https://proxy.example/v1"), True),
])
def test_what_names_each_provider(provider: Provider, name: str, served: Served, cached: bool) -> None:
    identity, why_not = provider.identity(name, served, api_key_env=None, versions={})
    assert (identity is not None) == cached and (why_not is None) == cached
    if identity is not None:
        assert identity["endpoint"] == (served.base_url or identity["endpoint"]) and identity["client"]
        assert identity["endpoint"].startswith("https://")
    else:
        assert why_not is not None and "cache is off" in why_not


def test_a_hosted_api_key_names_its_endpoint() -> None:
    google = PROVIDERS.get("google")
    a, _ = google.identity("gemini-2.0-flash-001", Served(None), api_key_env=None, versions={})
    b, _ = google.identity("gemini-2.0-flash-001", Served("https://proxy.example/v1"), api_key_env=None, versions={})
    assert a is not None and b is not None and a != b
