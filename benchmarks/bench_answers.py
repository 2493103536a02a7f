"""Answer-extraction time on adversarial long replies (the scoring layer's linear-time bound).

Run: python benchmarks/bench_answers.py   (prints the median and worst time per reply shape, in ms)
"""

from __future__ import annotations

import statistics
import time

from tasks.answers import coordinate_pair, extract, option, quantity, yes_no

SHAPES = {
    "100k digits": "1" * 100_000,
    "FINAL ANSWER + 100k digits km": "FINAL ANSWER: " + "1" * 100_000 + " km",
    "100k '1 '": "FINAL ANSWER: " + "1 " * 50_000,
    "100k '1,'": "FINAL ANSWER: " + "1," * 50_000,
    "100k spaces then marker": " " * 100_000 + "FINAL ANSWER: 877 km",
    "100k '40.1, '": "FINAL ANSWER: " + "40.1, " * 16_667,
    "100k 'FINAL ANSWER: ' repeats": "FINAL ANSWER: " * 7_143,
}
EXTRACTORS = {
    "distance": lambda s: quantity(s, "distance"),
    "pair": coordinate_pair,
    "option": lambda s: option(s, [["Paris"], ["London"], ["Rome"], ["Berlin"]]),
    "yes/no": yes_no,
}


def main(repeats: int = 5) -> None:
    worst = 0.0
    for shape, text in SHAPES.items():
        times = []
        for _ in range(repeats):
            for find in EXTRACTORS.values():
                t0 = time.perf_counter()
                extract(text, find)
                times.append((time.perf_counter() - t0) * 1000)
        worst = max(worst, max(times))
        print(f"{shape:32s} {len(text):>7,d} chars  median {statistics.median(times):6.2f} ms  max {max(times):6.2f} ms")
    print(f"worst over all shapes and extractors: {worst:.2f} ms")


if __name__ == "__main__":
    main()
