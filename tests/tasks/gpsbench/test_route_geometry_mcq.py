"""GPSBench route geometry in the paper's multiple-choice form: the exact-list form's paths, four different
index lists with both endpoints, the RDP result among them once; answers by letter or by an option's list."""

from __future__ import annotations

import pytest

from tasks import get_task
from tests.tasks.tool_references import rdp_indices

MCQ, EXACT = "gpsbench.route_geometry.mcq", "gpsbench.route_geometry"


def test_same_paths_as_the_exact_form_and_the_gold_is_rdp_once() -> None:
    mcq, exact = get_task(MCQ, size=60).generate(42, 60), get_task(EXACT, size=60).generate(42, 60)
    for m, e in zip(mcq, exact, strict=True):
        assert m.split == e.split and m.payload["points"] == e.payload["points"]
        options = m.payload["options"]
        gold = rdp_indices(m.payload["points"], m.payload["epsilon_km"] * 1000.0)  # independent of geocore
        assert options.count(gold) == 1 and options.index(gold) == m.target["index"]
        assert e.target["kept"] == gold
        n = len(m.payload["points"])
        assert len(options) == 4 and len({tuple(o) for o in options}) == 4
        assert all(o[0] == 0 and o[-1] == n - 1 and o == sorted(set(o)) for o in options)
        assert all(f"{'ABCD'[k]}) {m.choices[k]}" in m.prompt for k in range(4))


@pytest.mark.parametrize(("answer", "status", "right"), [
    ("FINAL ANSWER: {gold}", "answered", True),
    ("FINAL ANSWER: ({gold})", "answered", True),
    ("FINAL ANSWER: {gold_list}", "answered", True),
    ("FINAL ANSWER: {other}", "answered", False),
    ("FINAL ANSWER: {gold} or {other}", "hedged", False),
    ("FINAL ANSWER: {gold}) {other_list}", "hedged", False),  # the letter and the list disagree
    ("FINAL ANSWER: [0]", "unparsed", False),  # a list that is no option
    ("FINAL ANSWER: <letter>", "unparsed", False),
])
def test_answers_by_letter_or_list(answer: str, status: str, right: bool) -> None:
    task = get_task(MCQ)
    s = task.samples(limit=1)[0]
    gold, other = s.target["letter"], "ABCD"[(s.target["index"] + 1) % 4]
    text = answer.format(gold=gold, other=other, gold_list=s.choices[s.target["index"]],
                         other_list=s.choices[(s.target["index"] + 1) % 4])
    parsed = task.parse(text, s)
    assert parsed.status == status
    assert task.score(parsed, s).correct is right
