"""``--judge``: a scripted judge locates the answer only of replies the rules leave unlocated; its reply is read by
the task's own parser and scorer; NONE, HEDGE, an unreadable or hedging judge reply and a reply that leaves its
answer open locate nothing; it is never called where the rules committed; its reading is recorded and counted."""

from __future__ import annotations

import asyncio
import importlib
import json
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage

from evals import api
from evals.judge import Judge, agreement_line, store_agreement
from evals.options import UsageError
from evals.specs import check_judge
from tasks import get_task
from tasks.records import Sample
from tests.tasks.real_replies import load

CALLS: list[str] = []
"""The judge replies given; read through :func:`calls` (the provider imports this file as tests.evals.test_judge,
which under pytest may be another module object than the one running the test)."""


def calls() -> list[str]:
    return importlib.import_module("tests.evals.test_judge").CALLS  # type: ignore[no-any-return]
MID_SENTENCE = ("I used the haversine formula with R = 6371 km and got 13,670 km between them.\n\nThe points lie on "
                "different continents, one in New Jersey and one in Tamil Nadu.")
"""The answer inside a sentence that gives its method, then a remark: no label, box, bold answer or committed
sentence, so the rules leave it unlocated. (The same reply with the answer in bold commits: the rules read it.)"""


def _distance_sample() -> Sample:
    line = next(x for x in load() if x["task"] == "gpsbench.distance" and x["sample"]["target"]["km"] == 13670.929)
    return Sample.model_validate(line["sample"])


def _judge_says(text: str):  # type: ignore[no-untyped-def]
    def policy(messages: object, tools: list[str]) -> str:
        CALLS.append(text)
        return text
    return policy


right = _judge_says("FINAL ANSWER: 13670 km")
none = _judge_says("NONE")
hedge = _judge_says("HEDGE")
two = _judge_says("FINAL ANSWER: 13670 km or 12000 km")
small = _judge_says("FINAL ANSWER: 111.2 km")


def _locate(judge: str, reply: str):  # type: ignore[no-untyped-def]
    sample = _distance_sample()
    task = get_task("gpsbench.distance")
    verdict = asyncio.run(Judge.named(f"scripted/tests.evals.test_judge:{judge}").locate(sample, task, reply))
    return verdict, task, sample


def test_the_rules_leave_the_mid_sentence_reply_unlocated() -> None:
    task, sample = get_task("gpsbench.distance"), _distance_sample()
    assert task.parse(MID_SENTENCE, sample).status == "unlocated"


def test_a_judge_that_locates_the_answer_is_read_and_scored_by_the_task() -> None:
    verdict, task, sample = _locate("right", MID_SENTENCE)
    assert verdict.reading.verdict == "answer" and verdict.parsed is not None
    assert verdict.parsed.value == pytest.approx(13670.0)
    assert task.score(verdict.parsed, sample).correct


@pytest.mark.parametrize(("judge", "verdict"), [("none", "none"), ("hedge", "hedge"), ("two", "unread")])
def test_none_hedge_and_a_hedging_judge_reply_locate_nothing(judge: str, verdict: str) -> None:
    got, _, _ = _locate(judge, MID_SENTENCE)
    assert got.reading.verdict == verdict and got.parsed is None


def test_a_judge_never_credits_a_reply_that_leaves_its_answer_open() -> None:
    reply = ("I'm torn between 13,670 km and a smaller figure.\n\nThe points lie on different continents, one in "
             "New Jersey and one in Tamil Nadu.")
    task, sample = get_task("gpsbench.distance"), _distance_sample()
    assert task.parse(reply, sample).status == "unlocated"  # the rules locate nothing: the judge is asked
    got, _, _ = _locate("right", reply)  # the judge picks one answer of a hedge: refused
    assert got.reading.verdict == "hedge" and got.parsed is None


def _unlocated(messages: object, tools: list[str]) -> str:
    return MID_SENTENCE.replace("13,670", "111.2")


def _committed(messages: object, tools: list[str]) -> str:
    return "The distance is about 111 km.\nFINAL ANSWER: 111.2 km"


def _results(run_dir: Path) -> list[dict[str, object]]:
    return [json.loads(t) for t in (run_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()]


def test_a_run_records_the_judges_reading_and_counts_it(tmp_path: Path) -> None:
    calls().clear()
    out = api.run("scripted/tests.evals.test_judge:_unlocated", tasks="gpsbench.distance", limit=2,
                  conditions="intrinsic", output=str(tmp_path / "run"), judge="scripted/tests.evals.test_judge:small")
    assert len(calls()) == 2 and out.spec.judge == "scripted/tests.evals.test_judge:small"
    for r in _results(out.run_dir):
        assert r["judge"]["verdict"] == "answer" and r["parsed"]["status"] == "answered"  # type: ignore[index]
        assert r["parsed"]["value"] == pytest.approx(111.2)  # type: ignore[index]
    summary = out.report["tasks"][0]["conditions"]["intrinsic"]
    assert summary["judged"] == 2 and summary["status_shares"]["judged"] == 1.0


def test_without_a_judge_the_same_replies_stay_unlocated(tmp_path: Path) -> None:
    out = api.run("scripted/tests.evals.test_judge:_unlocated", tasks="gpsbench.distance", limit=2,
                  conditions="intrinsic", output=str(tmp_path / "run"))
    assert out.spec.judge is None
    assert all(r["parsed"]["status"] == "unlocated" and r["judge"] is None  # type: ignore[index]
               for r in _results(out.run_dir))


def _hedged(messages: object, tools: list[str]) -> str:
    return "The distance is about 100 km.\nFINAL ANSWER: 100 km or 200 km"


def _refused(messages: object, tools: list[str]) -> str:
    return "I cannot determine the distance without a calculator."


def _cut(messages: object, tools: list[str]) -> AIMessage:
    return AIMessage(MID_SENTENCE, response_metadata={"finish_reason": "length"})


@pytest.mark.parametrize(("policy", "status"), [("_committed", "answered"), ("_hedged", "hedged"),
                                                ("_refused", "refused"), ("_cut", "truncated")])
def test_the_judge_is_never_called_where_the_rules_committed(tmp_path: Path, policy: str, status: str) -> None:
    calls().clear()
    out = api.run(f"scripted/tests.evals.test_judge:{policy}", tasks="gpsbench.distance", limit=2,
                  conditions="intrinsic", output=str(tmp_path / "run"), judge="scripted/tests.evals.test_judge:right")
    assert calls() == []
    assert all(r["judge"] is None and r["parsed"]["status"] == status  # type: ignore[index]
               for r in _results(out.run_dir))


def test_the_judge_is_part_of_the_run_identity(tmp_path: Path) -> None:
    a = api.run("scripted/tests.evals.test_judge:_committed", tasks="gpsbench.distance", limit=1,
                conditions="intrinsic", output=str(tmp_path / "a"), judge="scripted/tests.evals.test_judge:none")
    b = api.run("scripted/tests.evals.test_judge:_committed", tasks="gpsbench.distance", limit=1,
                conditions="intrinsic", output=str(tmp_path / "b"))
    assert "judge" in a.spec.differences(b.spec)


def test_a_judge_with_the_structured_channel_is_one_usage_line(tmp_path: Path) -> None:
    """Under --answer-channel structured the answer is the final_answer call: no text for a judge to read."""
    with pytest.raises(api.RunError, match="--judge reads text replies") as refused:
        api.run("scripted/tests.evals.test_judge:_committed", tasks="gpsbench.distance", limit=1,
                conditions="intrinsic", output=str(tmp_path / "s"), judge="scripted/tests.evals.test_judge:none",
                answer_channel="structured")
    assert refused.value.code == 2 and not (tmp_path / "s").exists()


def test_a_judge_needing_its_own_server_a_key_or_an_unknown_provider_is_one_usage_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    for bad in ("local/qwen2.5-0.5b", "nosuch/model", "scripted/tests.evals.test_judge:missing",
                "openai/gpt-4o-mini"):
        with pytest.raises(UsageError, match="--judge"):
            check_judge(bad)


def test_the_agreement_line_is_stored_per_judge_and_says_when_unmeasured(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path))
    assert "not measured" in agreement_line("scripted/x:y")
    store_agreement("scripted/x:y", {"n": 4, "agree": 3, "hedges": 1, "hedges_credited": 0, "wrong_credited": 0,
                                     "correct": 2, "correct_credited": 2, "none_located": 0})
    line = agreement_line("scripted/x:y")
    assert "3/4 (75.0%)" in line and "hedges credited 0/1" in line
    assert "not measured" in agreement_line("scripted/other:judge")


def test_the_run_prints_the_judges_agreement_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from evals.compare import main

    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path / "cache"))
    judge = "scripted/tests.evals.test_judge:none"
    store_agreement(judge, {"n": 3, "agree": 3, "hedges": 0, "hedges_credited": 0, "wrong_credited": 0,
                            "correct": 0, "correct_credited": 0, "none_located": 0})
    argv = ["--model", "scripted/tests.evals.test_judge:_committed", "--tasks", "gpsbench.distance", "--limit", "1",
            "--conditions", "intrinsic", "--output", str(tmp_path / "run"), "--judge", judge]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert f"judge {judge}: agrees with the human label on 3/3" in err
    assert main([*argv[:-4], "--output", str(tmp_path / "bad"), "--judge", "local/qwen2.5-0.5b"]) == 2
    assert "--judge local/qwen2.5-0.5b" in capsys.readouterr().err
