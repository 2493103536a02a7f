"""The adversarial reply corpus (test helper, not a test module): replies built from real generated samples of
every registered task, each with the status and score its template means.

For every sample its task yields a :class:`Kit` (:meth:`tasks.base.GeneratedTask.example_replies`, written by
:mod:`tasks.examples` and the families' ``examples`` modules): the gold answer plainly, one clearly wrong answer,
the other candidates a hedging model would list (every option, or a dense set of values) and replies of its answer
shape with a known meaning. A task that yields none is left out of the corpus. Templates combine them: the gold
alone (answered, credited), the wrong answer alone (answered, not credited), two candidates joined by "or", an
alternative in brackets, a range, every option or a dense list (hedged), refusals, placeholder echoes and empty
answer lines (unparsed), chatty replies whose first number is a given parameter (answered), completion-style
continuations and echoes of the option list after the stub. The expected status and score come from what the
template writes, never from running a parser.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tasks.base import Task
from tasks.examples import Replies, placeholder
from tasks.records import AnswerStatus, Parsed, Sample, Score
from tasks.registry import get_task, task_names

SEED = 42
SAMPLES_PER_TASK = 3
OFFICIAL_DATA = Path(__file__).parent / "stbench" / "data"


Kit = Replies
"""A sample's answer kit: what its task yields (:meth:`tasks.base.GeneratedTask.example_replies`)."""


@dataclass(frozen=True)
class Case:
    """One adversarial reply and what it means: its status and whether it earns credit (None: not checked)."""

    task: str
    sample: Sample
    template: str
    reply: str
    status: AnswerStatus
    credited: bool | None

    @property
    def id(self) -> str:
        return f"{self.sample.id}:{self.template}"


def _words(text: str) -> str:
    """Lower-case words only, for comparing a reply with the prompt's template."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def kit_for(s: Sample) -> Kit:
    """The answer kit of a sample: the example replies its task yields; KeyError when it yields none."""
    kit = getattr(task_for(s.task), "example_replies", lambda _: None)(s)
    if kit is None:
        raise KeyError(f"{s.task} yields no example replies")
    return kit


# ----------------------------------------------------------------------------- templates

REFUSALS = ("I'm sorry, but I cannot determine this from the information given.",
            "FINAL ANSWER: Unknown",
            "FINAL ANSWER: I don't know.")


def cases_for(s: Sample) -> Iterator[Case]:
    """Every template applied to one sample."""
    k = kit_for(s)

    echoes = _words(placeholder(s.prompt) or "")

    def case(name: str, reply: str, status: AnswerStatus, credited: bool | None) -> Case:
        if status == "hedged" and echoes and _words(reply.removeprefix("FINAL ANSWER:")) == echoes:
            status = "unparsed"  # "Yes or No" is the prompt's own template echoed (policy rule 4 before hedging)
        return Case(s.task, s, name, reply, status, credited)

    yield from (case(*example) for example in k.extra)
    for i, r in enumerate(REFUSALS):
        yield case(f"refusal_{i}", r, "refused", False)
    if k.completion:
        yield case("completion_plain", k.gold, "answered", True)
        yield case("completion_wrong", k.wrong, "answered", False)
        yield case("completion_empty_then_text", "\n\nThe question is hard.", "unparsed", False)
        return
    pre = "FINAL ANSWER: "
    yield case("gold_plain", pre + k.gold, "answered", True)
    yield case("gold_after_reasoning", "Let me work through the question step by step.\nI compare the values "
               "given.\n" + pre + k.gold, "answered", True)
    yield case("gold_markdown", f"**FINAL ANSWER:** **{k.gold}**", "answered", True)
    yield case("gold_final_on_next_line", "FINAL ANSWER:\n" + k.gold, "answered", True)
    yield case("gold_committed_free", f"I considered the data.\nTherefore, the answer is {k.gold}", "answered", True)
    yield case("wrong_plain", pre + k.wrong, "answered", False)
    yield case("gold_or_wrong", f"{pre}{k.gold} or {k.wrong}", "hedged", False)
    yield case("wrong_or_gold", f"{pre}{k.wrong} or {k.gold}", "hedged", False)
    yield case("gold_bracket_alternative", f"{pre}{k.gold} (or {k.wrong})", "hedged", False)
    yield case("empty_answer_line", "Some reasoning here.\nFINAL ANSWER:", "unparsed", False)
    # a labelled correction replaces the answer; an uncommitted alternative after it is a hedge
    yield case("corrected_to_gold", f"**Answer:** {k.wrong}\n\nWait, I misread the question.\n\n"
               f"**Corrected answer:** {k.gold}", "answered", True)
    yield case("corrected_to_wrong", f"**Answer:** {k.gold}\n\nWait, I misread the question.\n\n"
               f"**Corrected answer:** {k.wrong}", "answered", False)
    yield case("uncommitted_after", f"{pre}{k.gold}\n(Low confidence: it could easily be {k.wrong}.)", "hedged", False)
    yield case("give_or_take", f"{pre}{k.gold}, give or take", "hedged", False)
    # no label, no committed sentence: the answer is not located, never read from the last line in sight
    yield case("unlabelled_last_line", f"{k.gold}\n\nI checked each candidate against the data.\n"
               f"My first thought was {k.wrong}, since the data was unclear.",
               *(("answered", True) if k.labelled else ("unlocated", False)))
    if not k.free_text:
        yield case("answer_line_words", pre + "see the reasoning above", "unparsed", False)
    for sep in k.seps[:2]:
        if len(k.others) > 1:
            yield case(f"all_candidates[{sep.strip() or 'space'}]", pre + sep.join(k.others), "hedged", False)
    tpl = placeholder(s.prompt)
    if tpl and "<" in tpl:
        yield case("placeholder_echo", pre + tpl, "unparsed", False)
    if k.value is not None:
        lo, hi = k.value, k.value * 2 + 1000
        yield case("range_dash", f"{pre}{lo:.1f}–{hi:.1f}{k.unit}", "hedged", False)
        yield case("range_words", f"{pre}between {lo:.1f}{k.unit} and {hi:.1f}{k.unit}", "hedged", False)
        yield case("parameter_first", f"{pre}{k.param} {k.gold}", "answered", True)
        yield case("parameter_first_wrong", f"{pre}{k.param} {k.wrong}", "answered", False)


@cache
def task_for(name: str) -> Task:
    """The task instance the corpus uses (the official STBench task reads the bundled test files)."""
    return get_task(name, path=str(OFFICIAL_DATA)) if name == "stbench.official" else get_task(name, size=40)


@cache
def task_samples(name: str) -> tuple[Sample, ...]:
    """A few test samples of a registered task (one per kind of the official STBench files)."""
    task = task_for(name)
    if name == "stbench.official":
        by_kind: dict[str, Sample] = {}
        for s in task.samples(split="test"):
            by_kind.setdefault(str(s.meta.get("kind")), s)
        return tuple(by_kind.values())
    pool = task.samples(split="test", seed=SEED)
    if name.startswith("gpsbench.place_association"):
        pool = [s for s in pool if s.target.get("admin1_name")]
    return tuple(pool[:SAMPLES_PER_TASK])


def has_kit(name: str) -> bool:
    """Whether the corpus knows how to answer ``name`` (a task registered later may have no kit here)."""
    try:
        return all(kit_for(s) is not None for s in task_samples(name))
    except KeyError:
        return False


def build_corpus(names: list[str] | None = None) -> list[Case]:
    """The whole corpus over ``names`` (default: every registered task)."""
    return [c for name in (names or task_names()) for s in task_samples(name) for c in cases_for(s)]


def runner_score(task: Task, sample: Sample, reply: str) -> tuple[Parsed, Score]:
    """Parse and score as ``evals.runner.answer_sample`` does: a parse that is not answered scores zero."""
    parsed = task.parse(reply, sample)
    score = Score.unanswered(parsed) if parsed.status != "answered" else task.score(parsed, sample)
    return parsed, score

