"""Markdown headings are stripped on their own line only: a reply of 50,000 blank lines is read as fast as any
other (the heading pattern's ``\\s*`` once ran over every remaining blank line at each one, 3 s per reply)."""

from __future__ import annotations

from tasks.geotemp.extract import extract_time_answer, normalize


def test_headings_are_still_stripped() -> None:
    assert normalize("## Answer\n  ### Time:\t10:00\n#tag") == "Answer\nTime:\t10:00\ntag"


def test_a_reply_of_fifty_thousand_blank_lines_keeps_its_answer() -> None:
    text = "\n" * 50_000 + "FINAL ANSWER: 10:45 AM"
    assert normalize(text) == text
    found = extract_time_answer(text)
    assert found.status == "answered" and found.answer is not None
    assert (found.answer.hour, found.answer.minute) == (10, 45)
