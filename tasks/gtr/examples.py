"""The example replies of GTR's forecast answers (:mod:`tasks.examples`): the chosen option's letter and the
in-view interval of each of its cameras."""

from __future__ import annotations

import re
from typing import Any

from tasks.examples import LETTERS, Example, Replies, letter_replies
from tasks.records import Sample


def forecast_replies(sample: Sample[Any]) -> Replies:
    """A letter then each camera's interval; the wrong option's cameras 5000 s off. A sample whose prompt asks for
    the letter alone is answered by letter."""
    if "segments" not in sample.target or "FINAL ANSWER: <letter>;" not in sample.prompt:
        return letter_replies(sample, int(sample.target["index"]))
    segs = [(c, iv) for c, iv in sample.target["segments"]]
    n = len(sample.choices or ())
    gi = int(sample.target["index"])
    wi = (gi + 1) % n

    def seg_text(shift: float) -> str:
        return "; ".join(f"{c} [{iv[0] + shift:.1f}, {iv[1] + shift:.1f}]" for c, iv in segs)
    gold = f"{LETTERS[gi]}; {seg_text(0.0)}"
    cams = re.findall(r"C\d+", (sample.choices or ())[wi]) or [segs[0][0]]
    wrong = f"{LETTERS[wi]}; " + "; ".join(f"{c} [{segs[i % len(segs)][1][0] + 5000:.1f}, "
                                           f"{segs[i % len(segs)][1][1] + 5000:.1f}]" for i, c in enumerate(cams))
    c0, iv0 = segs[0]
    two_intervals = (f"FINAL ANSWER: {LETTERS[gi]}; {c0} [{iv0[0]:.1f}, {iv0[1]:.1f}] or [{iv0[0] + 60:.1f}, "
                     f"{iv0[1] + 60:.1f}]")
    return Replies(gold, wrong, [f"{LETTERS[i]}; {seg_text(0.0)}" for i in range(n)], seps=(" or ",), extra=[
        Example("letters_only_all", "FINAL ANSWER: " + ", ".join(LETTERS[:n]), "hedged", False),
        Example("two_intervals", two_intervals, "hedged", False),
        Example("letter_in_words", "FINAL ANSWER: A guess would be hard here", "unparsed", False),
    ])
