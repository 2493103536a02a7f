"""A labelled corpus of replies in the styles chat and reasoning models write (GPT, Claude, Gemini, Llama, Qwen/QwQ,
DeepSeek-R1), built from real samples of every registered task in both prompt styles, and the agreement of the
parsers with its labels.

Each reply is written from a sample's answer kit (:func:`tests.tasks.adversarial.kit_for`: the gold written
plainly, one wrong answer, the candidates a hedge lists) wrapped in a family's habits: reasoning in ``<think>``
blocks with drafts of other answers, markdown headings and bold labels, LaTeX (``\\boxed{}``, ``^\\circ``,
``{,}``), JSON answers, thousands separators, closing pleasantries. Its label comes from how it was written:
*correct* (the gold committed once: answered and credited), *wrong* (another answer committed: answered, no
credit), *hedged* (a second candidate beside or after the committed one, in any of the forms listed in
:data:`HEDGES`, or an answer that disowns itself) and *refused* / *cut* (a declining reply; a reply that ends
inside its reasoning: no answer). The parser is never asked what a reply means.

``python -m tests.tasks.answer_corpus`` prints the agreement per task and prompt style, per model family and
overall, then the agreement on the hand-labelled real replies of the embedded models
(:mod:`tests.tasks.real_replies`); ``--dump FILE`` writes the corpus as JSON lines. The corpus is seeded: the
same replies every run.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta

from tasks.records import Sample
from tasks.registry import task_names
from tests.tasks import real_replies
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

SEED = 26
FAMILIES = ("gpt", "claude", "gemini", "llama", "qwen", "r1")
LABELS = ("correct", "wrong", "hedged", "refused", "cut", "echo")
EXPECTED = {"correct": ("answered", True), "wrong": ("answered", False), "hedged": ("hedged", False),
            "refused": ("refused", False), "cut": ("unparsed", False), "echo": ("unparsed", False)}
"""(status, credited) of each label; *echo* is a two-way hedge that spells the prompt's own template ("Yes or No"),
which the scoring policy reads as an echo of the placeholder (rule 4) before reading it as a hedge."""


@dataclass(frozen=True)
class Reply:
    """One written reply and what it means."""

    task: str
    sample_id: str
    prompt_style: str
    family: str
    label: str
    form: str
    text: str

    @property
    def expected(self) -> tuple[str, bool]:
        """(status, credited) the reply means."""
        return EXPECTED[self.label]


# ----------------------------------------------------------------------------- writers

_ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
         "seventeen eighteen nineteen").split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()


def in_words(n: int) -> str:
    """A non-negative integer below a million in English words ("two thousand four hundred twenty-four")."""
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10 - 2] + ("" if n % 10 == 0 else "-" + _ONES[n % 10])
    if n < 1000:
        return _ONES[n // 100] + " hundred" + ("" if n % 100 == 0 else " " + in_words(n % 100))
    return in_words(n // 1000) + " thousand" + ("" if n % 1000 == 0 else " " + in_words(n % 1000))


_BIG = re.compile(r"(?<![\d.,])(\d{4,7})(\.\d+)?(?![\d,])")


def latex(answer: str) -> str:
    """An answer as LaTeX math: degrees as ``^\\circ``, units in ``\\text{}``, thousands as ``{,}``."""
    s = _BIG.sub(lambda m: f"{int(m.group(1)):,}".replace(",", "{,}") + (m.group(2) or ""), answer)
    s = s.replace("°", "^\\circ").replace(" km²", "\\,\\text{km}^2").replace(" km", "\\,\\text{km}")
    return s


def grouped(answer: str, how: str) -> str:
    """Numbers of four digits or more with thousands separators: ``en`` 1,234.5, ``fr`` 1 234,5, ``ch`` 1'234.5,
    ``de`` 1.234,5."""
    def fix(m: re.Match[str]) -> str:
        whole, frac = f"{int(m.group(1)):,}", (m.group(2) or "")
        if how == "en":
            return whole + frac
        if how == "ch":
            return whole.replace(",", "'") + frac
        sep = " " if how == "fr" else "."
        return whole.replace(",", sep) + ("," + frac[1:] if frac else "")
    return _BIG.sub(fix, answer)


def _reasoning(k: Kit, rng: random.Random) -> str:
    """A model's visible working: generic steps, no candidate answers."""
    steps = [
        "First, I identify what the question gives and what it asks for.",
        "Next, I check the data point by point against the question.",
        "Then I compare the possibilities carefully.",
        "Putting the pieces together gives a single answer.",
        "I double-check the result against the information given.",
    ]
    return "\n".join(rng.sample(steps, 3))


def _thinking(k: Kit, rng: random.Random) -> str:
    """A reasoning block's text: drafts of other answers, a draft FINAL ANSWER, second thoughts."""
    other = k.wrong
    return rng.choice([
        f"Okay, let me think about this. Maybe the answer is {other}? Wait, that doesn't fit.\n"
        f"FINAL ANSWER: {other}\nHmm, no. Let me recompute more carefully. Alternatively {other}... no.",
        f"Let me see. First guess: {other}. But checking again, that is off. I should redo the computation.",
        f"The user wants one answer. Options I considered: {', '.join(k.others[:3]) or other}. Let me settle it.",
    ])


_PLEASANTRIES = ("Let me know if you need anything else!", "I hope this helps!", "Feel free to ask if you have "
                 "any other questions.", "Happy to help with anything else.")
_REFUSALS = ("I'm sorry, but I can't determine this reliably from the information given.",
             "I don't have enough information to answer this question.",
             "Unfortunately, I am unable to determine the answer without access to a map or other tools.",
             "I cannot answer this with confidence, so I will not guess.",
             "I'm not able to look up maps, so I can't give a definitive answer here.",
             "Without more data I can't provide a definitive answer.")


def _commit(family: str, g: str, k: Kit, rng: random.Random) -> str:
    """The committing section a family writes for the answer ``g``."""
    numeric = bool(re.search(r"\d", g))
    forms: dict[str, list[str]] = {
        "gpt": [f"**Final answer:** {g}", f"FINAL ANSWER: {g}", f"### Answer\n{g}",
                f'```json\n{{"answer": {json.dumps(g)}, "confidence": 0.8}}\n```'],
        "claude": [f"**Answer: {g}**", f"FINAL ANSWER: {g}", f"## Final Answer\n\n{g}", f"**Answer:** {g}"],
        "gemini": [f"**Final Answer:** The final answer is **{g}**.", f"## Answer\n\n**{g}**",
                   f"**FINAL ANSWER:** **{g}**", f'{{"final_answer": {json.dumps(g)}}}'],
        "llama": [f"The final answer is: $\\boxed{{{latex(g)}}}$", f"Final answer - {g}", f"Final Answer: {g}"],
        "qwen": [f"**Final Answer**\n\\[\n\\boxed{{{latex(g)}}}\n\\]", f"**Final Answer**\n\\boxed{{{latex(g)}}}",
                 f"FINAL ANSWER: \\( \\boxed{{{latex(g)}}} \\)"],
        "r1": [f"**Answer:** {g}", f"FINAL ANSWER: {g}", f"**Final Answer**\n\n\\boxed{{{latex(g)}}}",
               f"**Answer:** {g}\n\nThe answer is {g} because the data given points to it."],
    }
    forms["gpt"] += [f"## Final answer\n**{g}**\n\n---\n*Note: this uses only the information given.*",
                     f"Therefore, the answer is **{g}**."]
    forms["claude"] += [f"> **Answer:** {g}", f"FINAL ANSWER: {g}\n\nIn summary, the answer is {g}."]
    forms["gemini"] += [f"**Final answer: {g}**", f"Final Answer:\n- {g}"]
    forms["llama"] += [f"Answer — {g}", f"So my final answer is {g}."]
    forms["gpt"] += [f"**The answer is {g}.**", f"Result: {g}"]
    forms["claude"] += [f"<answer>{g}</answer>", f"Answer\n======\n{g}"]
    forms["gemini"] += [f"| Question | Answer |\n|---|---|\n| this one | {g} |", f"FINAL ANSWER: {g} ✅"]
    forms["llama"] += [f"1. Compute the values.\n2. Compare them.\n\n**So, the final answer is {g}.**"]
    forms["r1"] += [f"Final: `{g}`", f"Based on my calculations, **{g}** is the answer."]
    forms["gpt"] += [f"✅ **Final Answer:** {g}", f"ANSWER: {g}"]
    forms["llama"] += [f"Final answer (rounded): {g}"]
    forms["qwen"] += [f'{{"final_answer": {json.dumps(g)}, "reasoning": {json.dumps("I first considered " + k.wrong)}}}']
    out = rng.choice(forms[family])
    if numeric and k.numeric and rng.random() < 0.5:
        out = out.replace(g, grouped(g, rng.choice(("en", "fr", "ch", "de"))))
    return out


def _wrap(family: str, body: str, k: Kit, rng: random.Random, *, pleasantry: bool = True) -> str:
    """A whole reply: the family's opening, reasoning, the committing section ``body`` and maybe a closing."""
    head = {"gpt": "To answer this, let's work through it step by step.",
            "claude": "I'll work through this carefully.",
            "gemini": "Here's a breakdown of how to solve this:",
            "llama": "## Step 1: Understand the problem",
            "qwen": "Okay, let me work through this.",
            "r1": ""}[family]
    work = _reasoning(k, rng)
    if family == "r1":
        think = _thinking(k, rng)
        opening = "<think>\n" if rng.random() < 0.7 else ""  # R1's template often supplies the opening tag
        text = f"{opening}{think}\n</think>\n\n{work}\n\n{body}"
    elif family == "qwen" and rng.random() < 0.5:
        text = f"<think>\n{_thinking(k, rng)}\n</think>\n\n{head}\n{work}\n\n{body}"
    else:
        text = f"{head}\n\n{work}\n\n{body}"
    if pleasantry and family in ("gpt", "gemini", "claude") and rng.random() < 0.5:
        text += "\n\n" + rng.choice(_PLEASANTRIES)
    return text


# ----------------------------------------------------------------------------- hedges

def _alternative_value(k: Kit, s: Sample) -> str:
    """A second candidate of the answer's kind: a DST-shifted time for GeoTemp, else the kit's wrong answer."""
    if s.task.startswith("geotemp.") and s.task != "geotemp.tz_probe":
        dt = datetime.fromisoformat(s.target["datetime"]) + timedelta(hours=1)
        return f"{dt.hour % 12 or 12:02d}:{dt.minute:02d} {'AM' if dt.hour < 12 else 'PM'}"
    return k.wrong


def _hedges(k: Kit, s: Sample) -> list[tuple[str, str]]:
    """(form, committing section) pairs that commit to the gold and offer a second candidate."""
    g, w = k.gold, _alternative_value(k, s)
    out = [
        ("second_choice_line", f"FINAL ANSWER: {g}\nSecond choice: {w}"),
        ("alternative_answer_label", f"**Answer:** {g}\n\n**Alternative answer:** {w}"),
        ("two_answer_headings", f"## Answer\n{g}\n\n## Answer (if my assumption is off)\n{w}"),
        ("json_alternative", f'```json\n{{"answer": {json.dumps(g)}, "alternative": {json.dumps(w)}}}\n```'),
        ("disowned", f"FINAL ANSWER: {g}, which I believe is wrong."),
        ("could_also_be", f"**Final answer:** {g}\n\nIt could also be {w}, though."),
        ("another_possibility_heading", f"FINAL ANSWER: {g}\n\n### Another possibility\n{w}"),
        ("boxed_or", f"\\[\n\\boxed{{{latex(g)}}} \\text{{ or }} \\boxed{{{latex(w)}}}\n\\]"),
        ("another_pick", f"FINAL ANSWER: {g}\nIf I had to pick another, I'd go with {w}."),
        ("backup_label", f"**Answer:** {g}\n**Backup answer:** {w}"),
        ("two_finals", f"FINAL ANSWER: {g}\n\nFINAL ANSWER: {w}"),
        ("also_plausible", f"My best guess is {g}, but {w} is also plausible."),
        ("unless_clause", f"FINAL ANSWER: {g} (unless the data is read the other way, in which case {w})"),
        ("close_second", f"FINAL ANSWER: {g}\n\nHowever, {w} is a close second."),
        ("likely_bullets", f"**Answer:**\n- Most likely: {g}\n- Less likely: {w}"),
        ("postscript", f"FINAL ANSWER: {g}\nP.S. It may be {w}."),
        ("answer_tags_alternative", f"<answer>{g}</answer>\n<alternative>{w}</alternative>"),
        ("cannot_rule_out", f"FINAL ANSWER: {g}\n\nThat said, {w} cannot be ruled out."),
        ("italic_aside", f"**Final answer:** {g}\n\n*(If the other reading applies: {w}.)*"),
        ("might_be", f"**Final answer:** {g}, though I'm not sure; it might be {w}."),
    ]
    if k.numeric and k.value is not None:
        other = int(round(k.value * 1.5 + 100))
        out.append(("number_in_words", f"FINAL ANSWER: {g}, or perhaps {in_words(other)} {k.unit.strip()}"))
    if s.task.startswith("geotemp.") and s.task != "geotemp.tz_probe":
        dt = datetime.fromisoformat(s.target["datetime"])
        day, nxt = dt.strftime("%A"), (dt + timedelta(days=1)).strftime("%A")
        out += [
            ("dst_alternative", f"FINAL ANSWER: {g}, or {w} if DST applies"),
            ("dst_words", f"FINAL ANSWER: {g}\n(One hour later if daylight saving time is in effect.)"),
            ("weekday_alternative", f"FINAL ANSWER: {g.replace(day, f'{day} (or {nxt})')}"),
        ]
    return out


def _spells_template(s: Sample, k: Kit) -> bool:
    """Whether "gold or wrong" is the prompt's own answer template ("FINAL ANSWER: Yes or No")."""
    tpl = placeholder(s.prompt)
    return tpl is not None and _words(tpl) == _words(f"{k.gold} or {k.wrong}")


def _completion_hedges(k: Kit) -> list[tuple[str, str]]:
    g, w = k.gold, k.wrong
    return [("second_line_actually", f"{g}\nActually, {w}."), ("second_line_or", f"{g}\nOr {w}."),
            ("second_line_choice", f"{g}\nSecond choice: {w}"),
            ("second_line_thought", f"{g}\n\nOn second thought, {w} fits better."),
            ("disowned", f"{g}, which I believe is wrong."), ("second_line_maybe", f"{g}\nHmm, maybe {w}."),
            ("second_line_bracket", f"{g}\n(Alternatively {w}.)")]


# ----------------------------------------------------------------------------- the corpus

def _chat(s: Sample, k: Kit, rng: random.Random) -> Iterator[Reply]:
    def reply(family: str, label: str, form: str, text: str) -> Reply:
        return Reply(s.task, s.id, "chat", family, label, form, text)
    hedges = _hedges(k, s)
    for family in FAMILIES:
        for n in range(3):
            yield reply(family, "correct", f"commit_{n}", _wrap(family, _commit(family, k.gold, k, rng), k, rng))
        yield reply(family, "wrong", "commit", _wrap(family, _commit(family, k.wrong, k, rng), k, rng))
        for form, body in rng.sample(hedges, 4):
            echo = form == "boxed_or" and _spells_template(s, k)
            yield reply(family, "echo" if echo else "hedged", form, _wrap(family, body, k, rng))
        yield reply(family, "refused", "decline", _wrap(family, rng.choice(_REFUSALS), k, rng, pleasantry=False))
        yield reply(family, "cut", "unclosed_think", f"<think>\n{_thinking(k, rng)}\nLet me keep going")


def _completion(s: Sample, k: Kit, rng: random.Random) -> Iterator[Reply]:
    def reply(family: str, label: str, form: str, text: str) -> Reply:
        return Reply(s.task, s.id, "completion", family, label, form, text)
    g = k.gold.strip()
    for family in FAMILIES:
        think = f"<think>\n{_thinking(k, rng)}\n</think>\n\n" if family in ("r1", "qwen") else ""
        correct = [f"{g}", f"{g}\n\nThe data given supports this choice.", f"**{g}**", f"$\\boxed{{{g}}}$",
                   f"{g}\nExplanation: it matches the information given.", f"{g}\n\n**Explanation:** the values fit.",
                   f"{g} — based on the information given."]
        for n, body in enumerate(rng.sample(correct, 3)):
            yield reply(family, "correct", f"continue_{n}", think + body)
        yield reply(family, "wrong", "continue", think + k.wrong.strip())
        for form, body in rng.sample(_completion_hedges(Kit(g, k.wrong.strip(), k.others)), 4):
            yield reply(family, "hedged", form, think + body)
        yield reply(family, "refused", "decline", think + rng.choice(_REFUSALS))
        yield reply(family, "cut", "unclosed_think", f"<think>\n{_thinking(k, rng)}\nLet me keep going")


def build(names: Sequence[str] | None = None) -> list[Reply]:
    """The whole corpus over ``names`` (default: every registered task with an answer kit), in a fixed order for
    the seed."""
    out: list[Reply] = []
    for name in names or [n for n in task_names() if has_kit(n)]:
        for s in task_samples(name):
            k = kit_for(s)
            rng = random.Random(f"{SEED}:{s.id}")
            out += list((_completion if k.completion else _chat)(s, k, rng))
    return out


@dataclass(frozen=True)
class Outcome:
    """A reply's parse against its label."""

    reply: Reply
    status: str
    credited: bool
    reason: str

    @property
    def agrees(self) -> bool:
        status, credited = self.reply.expected
        return self.status == status and self.credited == credited


def judge(replies: Sequence[Reply]) -> list[Outcome]:
    """Every reply parsed and scored as the runner does."""
    out = []
    for r in replies:
        task = task_for(r.task)
        sample = next(s for s in task_samples(r.task) if s.id == r.sample_id)
        parsed, score = runner_score(task, sample, r.text)
        out.append(Outcome(r, parsed.status, bool(score.correct and score.value == 1.0), parsed.reason or ""))
    return out


@dataclass
class Cell:
    """Agreement counts of one (task, prompt style) cell."""

    correct: int = 0
    correct_credited: int = 0
    other: int = 0
    other_credited: int = 0
    agree: int = 0
    total: int = 0

    def add(self, o: Outcome) -> None:
        self.total += 1
        self.agree += o.agrees
        if o.reply.label == "correct":
            self.correct += 1
            self.correct_credited += o.credited
        elif o.reply.label != "wrong":
            self.other += 1
            self.other_credited += o.credited

    @property
    def credited_share(self) -> float:
        return self.correct_credited / self.correct if self.correct else 1.0

    @property
    def leak_share(self) -> float:
        return self.other_credited / self.other if self.other else 0.0


def cells(outcomes: Sequence[Outcome], key: Callable[[Outcome], str]) -> dict[str, Cell]:
    out: dict[str, Cell] = defaultdict(Cell)
    for o in outcomes:
        out[key(o)].add(o)
    return dict(sorted(out.items()))


def report(outcomes: Sequence[Outcome], *, failures: int = 0) -> str:
    """The agreement table: per task and prompt style, per model family, overall; then the worst cells."""
    lines = [f"{'task [style]':58} {'n':>5} {'agree':>7} {'correct credited':>17} {'hedge/non-answer credited':>26}"]
    by_cell = cells(outcomes, lambda o: f"{o.reply.task} [{o.reply.prompt_style}]")
    for name, c in by_cell.items():
        lines.append(f"{name:58} {c.total:5d} {c.agree / c.total:7.1%} {c.credited_share:17.1%} {c.leak_share:26.1%}")
    lines.append("")
    for fam, c in cells(outcomes, lambda o: o.reply.family).items():
        lines.append(f"{'family ' + fam:58} {c.total:5d} {c.agree / c.total:7.1%} {c.credited_share:17.1%} "
                     f"{c.leak_share:26.1%}")
    total = cells(outcomes, lambda o: "all")["all"]
    lines.append(f"{'overall':58} {total.total:5d} {total.agree / total.total:7.1%} {total.credited_share:17.1%} "
                 f"{total.leak_share:26.1%}")
    worst_c = min(by_cell.items(), key=lambda kv: kv[1].credited_share)
    worst_l = max(by_cell.items(), key=lambda kv: kv[1].leak_share)
    lines.append(f"worst correct-credited cell: {worst_c[0]} {worst_c[1].credited_share:.1%}; worst leak cell: "
                 f"{worst_l[0]} {worst_l[1].leak_share:.1%}")
    bad = [o for o in outcomes if not o.agrees]
    for o in bad[:failures]:
        lines.append(f"  {o.reply.task} {o.reply.family} {o.reply.label}/{o.reply.form}: got {o.status}"
                     f"{'/credited' if o.credited else ''} ({o.reason[:80]}) {o.reply.text[-120:]!r}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.tasks.answer_corpus", description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", nargs="*", help="task names (default: every registered task with an answer kit)")
    ap.add_argument("--dump", help="write the corpus as JSON lines to this file")
    ap.add_argument("--failures", type=int, default=0, help="list this many disagreeing replies")
    args = ap.parse_args(argv)
    names = args.tasks or [n for n in task_names() if has_kit(n)]
    unknown = sorted(set(names) - set(task_names()))
    if unknown:
        print(f"unknown task(s): {', '.join(unknown)}", file=sys.stderr)
        return 2
    replies = build(names)
    if args.dump:
        with open(args.dump, "w", encoding="utf-8") as fh:
            for r in replies:
                fh.write(json.dumps({**asdict(r), "status": r.expected[0], "credited": r.expected[1]}) + "\n")
    outcomes = judge(replies)
    print(report(outcomes, failures=args.failures))
    total = cells(outcomes, lambda o: "all")["all"]
    written_ok = total.credited_share >= 0.99 and total.leak_share <= 0.005
    if args.tasks:  # the real replies are read whole, with the whole corpus only
        return 0 if written_ok else 1
    real = real_replies.judge(real_replies.load())
    print()
    print(real_replies.report(real, failures=args.failures))
    return 0 if written_ok and real_replies.agreement(real) >= 0.99 else 1


if __name__ == "__main__":
    raise SystemExit(main())
