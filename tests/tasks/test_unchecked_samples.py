"""Samples that generators build without validation (``Sample.unchecked``): every built-in generator's samples are
what validation would make of them, and an unchecked sample behaves as a validated one (equality, JSON, pickle,
copies)."""

from __future__ import annotations

import pickle

import pytest

from tasks.base import GeneratedTask
from tasks.records import Message, Sample
from tasks.registry import get_task, task_names


def generated_tasks() -> list[str]:
    return [n for n in task_names() if isinstance(get_task(n), GeneratedTask)]


@pytest.mark.parametrize("name", generated_tasks())
def test_every_generated_sample_is_what_validation_makes_of_it(name: str) -> None:
    samples = get_task(name, size=30).generate(42, 30)  # type: ignore[attr-defined]
    assert samples
    for s in samples:
        validated = Sample.model_validate(s.model_dump())  # raises on a wrong type or split
        assert validated == s  # a list where a tuple belongs (messages, choices) would differ
        assert type(s.messages) is tuple and all(type(m) is Message for m in s.messages)
        assert s.choices is None or type(s.choices) is tuple
        assert Sample.model_validate_json(s.model_dump_json()).model_dump_json() == s.model_dump_json()


def _values() -> dict:
    return {"id": "t/test/00001", "task": "t", "split": "test",
            "messages": (Message(role="system", content="s"), Message.unchecked("user", "q")),
            "target": {"km": 1.5}, "choices": ("a", "b"), "payload": {"p": [1, 2]}, "meta": {"m": "x"}}


def test_an_unchecked_sample_equals_the_validated_one_and_keeps_its_values() -> None:
    values = _values()
    unchecked, validated = Sample.unchecked(**values), Sample(**values)
    assert unchecked == validated and unchecked.model_dump_json() == validated.model_dump_json()
    assert unchecked.payload is values["payload"]  # kept as given, not copied
    assert unchecked.prompt == "q" and Message.unchecked("user", "q") == Message(role="user", content="q")
    bare = Sample.unchecked(id="t/dev/00002", task="t", split="dev", messages=values["messages"], target=1)
    assert bare == Sample(id="t/dev/00002", task="t", split="dev", messages=values["messages"], target=1)
    assert bare.payload == {} and bare.meta == {} and bare.choices is None
    assert bare.model_dump_json() == Sample(id="t/dev/00002", task="t", split="dev", messages=values["messages"],
                                            target=1).model_dump_json()


def test_an_unchecked_sample_pickles_copies_and_stays_frozen() -> None:
    s = Sample.unchecked(**_values())
    assert pickle.loads(pickle.dumps(s)) == s
    copied = s.model_copy(update={"target": {"km": 2.0}})
    assert copied.target == {"km": 2.0} and s.target == {"km": 1.5}
    other = Sample.unchecked(**_values())
    assert other.model_fields_set == s.model_fields_set == set(Sample.model_fields)  # the shared set is untouched
    with pytest.raises(Exception, match="frozen"):
        s.id = "x"  # type: ignore[misc]
