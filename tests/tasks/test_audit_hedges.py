"""Audit of the hedging policy with replies the adversarial corpus does not write: alternatives offered in words
("C, or possibly D", "C (maybe D)", "C, though D is also possible", "C. Actually, D."), slashes, lists under
the FINAL ANSWER marker, an alternative on the next line, several FINAL ANSWER lines that disagree, bounds and
"~" ranges, negated answers, "all of the above", refusals in other words, and the gold in prose forms.

Every expected status comes from what the reply means, never from a parser: a reply that offers a second answer is
hedged whichever comes first; the gold written once, plainly, is answered and credited.
"""

from __future__ import annotations

import re

import pytest

from tasks.records import Sample
from tasks.registry import task_names
from tests.tasks.adversarial import (
    Kit,
    _words,
    has_kit,
    kit_for,
    placeholder,
    runner_score,
    task_for,
    task_samples,
)

TASKS = task_names()
P = "FINAL ANSWER: "


def templates(k: Kit, task: str) -> list[tuple[str, str, str]]:
    """(name, reply, expected) for one sample; expected is a status, "credited" for the gold answered."""
    g, w = k.gold, k.wrong
    if k.completion:
        return [
            ("c_either", f" Either {g} or {w}", "hedged"),
            ("c_slash", f" {g}/{w}", "hedged"),
            ("c_actually", f" {g}. Actually, {w}.", "hedged"),
            ("c_gold_maybe", f" {g} (maybe {w})", "hedged"),
            ("c_gold_possibly", f" {g}, or possibly {w}", "hedged"),
            ("c_refuse", " I am not in a position to say.", "refused"),
            ("c_gold_then_reason", f" {g}\nBecause the data shows it.", "credited"),
        ]
    out = [
        ("either", P + f"Either {g} or {w}", "hedged"),
        ("slash", P + f"{g}/{w}", "hedged"),
        ("slash_spaced", P + f"{g} / {w}", "hedged"),
        ("actually", P + f"{g}. Actually, {w}.", "hedged"),
        ("actually_reversed", P + f"{w}. Actually, {g}.", "hedged"),
        ("two_final_lines", P + f"{w}\nHmm, let me reconsider.\n" + P + g, "hedged"),
        ("two_final_lines_reversed", P + f"{g}\nHmm, let me reconsider.\n" + P + w, "hedged"),
        ("bullets", P + f"\n- {g}\n- {w}", "hedged"),
        ("bullets_star", P + f"\n* {w}\n* {g}", "hedged"),
        ("numbered_list", P + f"\n1. {g}\n2. {w}", "hedged"),
        ("gold_maybe", P + f"{g} (maybe {w})", "hedged"),
        ("gold_possibly", P + f"{g}, or possibly {w}", "hedged"),
        ("gold_though", P + f"{g}, though {w} is also possible", "hedged"),
        ("gold_alternatively", P + f"{g}; alternatively {w}", "hedged"),
        ("gold_if_not", P + f"{g}; if not, {w}", "hedged"),
        ("gold_perhaps", P + f"{g} or perhaps {w}", "hedged"),
        ("gold_versus", P + f"{g} vs {w}", "hedged"),
        ("or_on_next_line", P + f"{g}\nor {w}", "hedged"),
        ("prose_answer_is", f"Looking at the data carefully.\nThe answer is {g}.", "credited"),
        ("prose_my_answer", f"Some thinking here.\nMy answer: {g}", "credited"),
        ("prose_bold_answer", f"Reasoning.\n**Answer:** {g}", "credited"),
        ("final_lower_case", f"final answer: {g}", "credited"),
        ("final_then_sentence", P + f"{g}. I am fairly confident.", "credited"),
        ("final_then_explanation_line", P + f"{g}\nThis follows from the values given.", "credited"),
        ("refuse_cannot_help", "Sorry, I can't help with that without access to a map.", "refused"),
        ("refuse_cannot_be_determined", P + "Cannot be determined", "refused"),
        ("refuse_insufficient_data", P + "Insufficient data to answer.", "refused"),
        ("refuse_na_after_words", "There is no reliable way for me to work this out. FINAL ANSWER: N/A", "refused"),
        ("refuse_rather_not", P + "I'd rather not guess.", "refused"),
        ("refuse_not_enough", "I'm afraid I don't have enough information to answer this.", "refused"),
    ]
    if not task.startswith("geotemp.") and task != "gpsbench.boundary_analysis":
        out.append(("all_of_the_above", P + "All of the above", "hedged"))
    if task != "gpsbench.boundary_analysis" and len(k.others) != 2:  # "Not No" is Yes; known gap: "Not Asia: ..."
        out.append(("negated_gold", P + f"Not {g}", "unparsed"))
    if k.numeric and k.value is not None:
        v, u = k.value, k.unit.strip()
        out += [
            ("roughly_range", P + f"roughly {v:,.0f}-{v * 1.1:,.0f} {u}", "hedged"),
            ("gold_maybe_other", P + f"{v:.1f} {u} (maybe {v * 1.1:.1f} {u})", "hedged"),
            ("from_to", P + f"from {v:.1f} to {v * 1.1:.1f} {u}", "hedged"),
            ("tilde_range", P + f"{v:.1f}~{v * 1.1:.1f} {u}", "hedged"),
            ("at_least", P + f"at least {v:.1f} {u}", "hedged"),
            ("more_than", P + f"more than {v:.1f} {u}", "hedged"),
            ("bare_or", P + f"{v:.1f} or {v * 1.1:.1f} {u}", "hedged"),
            ("bare_slash", P + f"{v:.1f}/{v * 1.1:.1f} {u}", "hedged"),
            ("gold_and_miles", P + f"{v:.1f} {u} ({v / 1.609344:.1f} miles)", "credited"),
            ("gold_or_miles", P + f"{v:.1f} {u} (or {v / 1.609344:.1f} miles)", "credited"),
            ("gold_plus_minus", P + f"{v:.1f} {u} ± 20 {u}", "credited"),
            ("chatty_radius_first", P + f"Using a radius of 6371 {u} and the haversine formula, I get {v:.1f} {u}",
             "credited"),
            ("chatty_free_reply", f"The Earth radius is 6371 km.\nSo the distance is {v:.1f} {u}.", "credited"),
        ]
    return out


LISTED = ("bullets", "bullets_star", "numbered_list", "or_on_next_line")


def expected_for(tname: str, reply: str, expected: str, sample: Sample) -> str:
    """A listed "Yes" then "No" spells the prompt's own "Yes or No" template: an echo, unparsed (policy rule 4)."""
    if expected != "hedged" or tname not in LISTED:
        return expected
    items = [re.sub(r"^\s*(?:[-*]|\d\.)\s*", "", ln) for ln in reply.removeprefix(P).split("\n") if ln.strip()]
    said = " ".join(items) if tname == "or_on_next_line" else " or ".join(items)
    return "unparsed" if _words(said) == _words(placeholder(sample.prompt) or "") else expected


@pytest.mark.parametrize("name", TASKS)
def test_new_hedges_never_score_and_gold_prose_does(name: str) -> None:
    if not has_kit(name):
        pytest.skip(f"{name} yields no example replies")
    task = task_for(name)
    failures = []
    for sample in task_samples(name)[:2]:
        kit = kit_for(sample)
        for tname, reply, meant in templates(kit, name):
            expected = expected_for(tname, reply, meant, sample)
            parsed, score = runner_score(task, sample, reply)
            credited = score.correct and score.value == 1.0
            status = "answered" if expected == "credited" else expected
            if parsed.status != status or credited != (expected == "credited") or (
                    status != "answered" and score.value > 0):
                failures.append(f"{sample.id}:{tname}: expected {expected}, got {parsed.status} credited={credited} "
                                f"({parsed.reason}) reply={reply[:100]!r}")
    assert not failures, f"{len(failures)} cases:\n" + "\n".join(failures)
