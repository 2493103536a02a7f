"""The adversarial reply corpus (test helper, not a test module): replies built from real generated samples of
every registered task, each with the status and score its template means.

For every sample a :class:`Kit` writes the gold answer plainly, one clearly wrong answer, and the other candidates
a hedging model would list (every option, or a dense set of values). Templates combine them: the gold alone
(answered, credited), the wrong answer alone (answered, not credited), two candidates joined by "or", an
alternative in brackets, a range, every option or a dense list (hedged), refusals, placeholder echoes and empty
answer lines (unparsed), chatty replies whose first number is a given parameter (answered), completion-style
continuations and echoes of the option list after the stub. The expected status and score come from what the
template writes, never from running a parser.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path

from tasks.base import Task
from tasks.records import AnswerStatus, Parsed, Sample, Score
from tasks.registry import get_task, task_names

SEED = 42
SAMPLES_PER_TASK = 3
OFFICIAL_DATA = Path(__file__).parent / "stbench" / "data"
LETTERS = "ABCDEFGHIJ"
DIRECTIONS = ("North", "Northeast", "East", "Southeast", "South", "Southwest", "West", "Northwest")
ABBREV = {"N": 0, "NE": 1, "E": 2, "SE": 3, "S": 4, "SW": 5, "W": 6, "NW": 7}
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


@dataclass
class Kit:
    """How to write answers for one sample: the gold, one wrong answer, the other candidates of a hedge."""

    gold: str
    wrong: str
    others: list[str]
    completion: bool = False
    seps: tuple[str, ...] = (", ", " or ", "; ")
    numeric: bool = False
    """Single numbers with a unit: ranges and parameter-first replies apply."""
    unit: str = ""
    value: float | None = None
    param: str | None = None
    """A given parameter sentence opening a chatty answer line ("With R = 6371 km,")."""
    free_text: bool = False
    """The answer is free text (a place name): a sentence on the answer line may be read as one."""
    labelled: bool = False
    """The gold as written carries the answer's own label (``Paris: UTC+1``): a line that commits wherever it is."""
    extra: list[tuple[str, str, AnswerStatus, bool | None]] = field(default_factory=list)
    """Task-specific templates: (name, reply, status, credited)."""


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


# ----------------------------------------------------------------------------- small writers

def compass(deg: float) -> str:
    return ("N", "NE", "E", "SE", "S", "SW", "W", "NW")[int(((deg + 22.5) % 360) // 45)]


def km(x: float) -> str:
    return f"{x:.1f} km"


def latlon(lat: float, lon: float, d: int = 5) -> str:
    return f"{lat:.{d}f}, {lon:.{d}f}"


def moved(lat: float, lon: float, k: int) -> tuple[float, float]:
    """A position k × 7° away from (lat, lon), inside the valid range."""
    dlat = 7.0 * k if lat < 0 else -7.0 * k
    lon2 = lon + 11.0 * k
    return max(-89.0, min(89.0, lat + dlat)), ((lon2 + 180.0) % 360.0) - 180.0


def dms(lat: float, lon: float) -> str:
    def one(v: float, pos: str, neg: str) -> str:
        a = abs(v)
        d = int(a)
        m = int((a - d) * 60)
        s = (a - d - m / 60) * 3600
        return f"{d}°{m:02d}'{s:04.1f}\"{pos if v >= 0 else neg}"
    return f"{one(lat, 'N', 'S')}, {one(lon, 'E', 'W')}"


def clock_line(dt: datetime) -> str:
    hour = dt.hour % 12 or 12
    return (f"{hour:02d}:{dt.minute:02d} {'AM' if dt.hour < 12 else 'PM'}, {dt.strftime('%A')}, "
            f"{MONTHS[dt.month - 1]} {dt.day}, {dt.year}")


def clock_only(dt: datetime) -> str:
    hour = dt.hour % 12 or 12
    return f"{hour:02d}:{dt.minute:02d} {'AM' if dt.hour < 12 else 'PM'}"


def placeholder(prompt: str) -> str | None:
    """The literal answer template the prompt asks for after ``FINAL ANSWER:``, if any."""
    found = re.findall(r"FINAL ANSWER: ([^\n]+)", prompt)
    if not found:
        return None
    tpl = found[-1].strip()
    return tpl[:-1] if tpl.endswith(".") else tpl


def _words(text: str) -> str:
    """Lower-case words only, for comparing a reply with the prompt's template."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


# ----------------------------------------------------------------------------- kits per answer shape

def _letters(s: Sample, gold_idx: int) -> Kit:
    n = len(s.choices or ())
    wrong = (gold_idx + 1) % n
    letters = [LETTERS[i] for i in range(n)]
    echo = "; ".join(f"{LETTERS[i]}) {c}" for i, c in enumerate(s.choices or ()))
    return Kit(LETTERS[gold_idx], LETTERS[wrong], letters, extra=[
        ("letter_in_words", "FINAL ANSWER: A guess would be hard here", "unparsed", False),
        ("options_echoed", f"FINAL ANSWER: {echo}", "hedged", False),
        ("gold_with_text", f"FINAL ANSWER: {LETTERS[gold_idx]}) {(s.choices or ())[gold_idx]}", "answered", True),
    ])


def _stbench_option(s: Sample, completion: bool) -> Kit:
    options = [(int(n), str(label)) for n, label in s.payload["options"]]
    numbers = [n for n, _ in options]
    gold = int(s.target["option"])
    wrong = next(n for n in numbers if n != gold)
    label = dict(options)[gold]
    kit = Kit(str(gold), str(wrong), [str(n) for n in numbers], completion=completion, seps=(", ", " or ", " "))
    if completion:
        echo = ", (".join(f"{n}) {lab}" for n, lab in options)
        kit.extra += [
            ("completion_gold_label", f"{gold}) {label}", "answered", True),
            ("completion_gold_dots", f"{gold}) ...", "answered", True),
            ("completion_gold_explained", f"{gold}). This follows from the coordinates given.", "answered", True),
            ("completion_options_echoed", echo, "hedged", False),
            ("completion_numbers", " ".join(map(str, numbers)), "hedged", False),
            ("completion_two", f"{gold} or {wrong}", "hedged", False),
            ("completion_wrong_label", f"{wrong}) {dict(options)[wrong]}", "answered", False),
        ]
    else:
        echo = ", ".join(f"({n}) {lab}" for n, lab in options)
        kit.extra += [
            ("gold_with_text", f"FINAL ANSWER: {gold} ({label})", "answered", True),
            ("options_echoed", f"FINAL ANSWER: {echo}", "hedged", False),
            ("options_echoed_free", "\n".join(f"({n}) {lab}" for n, lab in options), "hedged", False),
            ("old_placeholder_letter", "FINAL ANSWER: <option number>", "unparsed", False),
        ]
    return kit


def _two_way(gold: str, wrong: str, completion: bool) -> Kit:
    kit = Kit(gold, wrong, [gold, wrong], completion=completion, seps=(" or ", " and ", ", "))
    if completion:
        kit.extra += [("completion_gold", f" {gold}", "answered", True),
                      ("completion_both", f" {gold} or {wrong}", "hedged", False),
                      ("completion_wrong_explained", f" {wrong}. That is my answer.", "answered", False)]
    return kit


def _point(s: Sample, lonlat: bool, completion: bool) -> Kit:
    lat, lon = float(s.target["lat"]), float(s.target["lon"])
    w1, w2 = (lat + 0.01, lon + 0.01), (lat - 0.02, lon + 0.015)

    def fmt(p: tuple[float, float]) -> str:
        return f"[{p[1]:.5f}, {p[0]:.5f}]" if lonlat else f"({p[0]:.5f}, {p[1]:.5f})"
    kit = Kit(fmt((lat, lon)), fmt(w1), [fmt(w1), fmt((lat, lon)), fmt(w2)], completion=completion,
              seps=(", ", " or ", "; "))
    if completion:
        kit.extra += [("completion_gold", f" {fmt((lat, lon))}. Then it turns.", "answered", True),
                      ("completion_two", f" {fmt((lat, lon))} or {fmt(w1)}", "hedged", False)]
    return kit


def _gtr_prediction(s: Sample) -> Kit:
    segs = [(c, iv) for c, iv in s.target["segments"]]
    n = len(s.choices or ())
    gi = int(s.target["index"])
    wi = (gi + 1) % n

    def seg_text(shift: float) -> str:
        return "; ".join(f"{c} [{iv[0] + shift:.1f}, {iv[1] + shift:.1f}]" for c, iv in segs)
    gold = f"{LETTERS[gi]}; {seg_text(0.0)}"
    cams = re.findall(r"C\d+", (s.choices or ())[wi]) or [segs[0][0]]
    wrong = f"{LETTERS[wi]}; " + "; ".join(f"{c} [{segs[i % len(segs)][1][0] + 5000:.1f}, "
                                           f"{segs[i % len(segs)][1][1] + 5000:.1f}]" for i, c in enumerate(cams))
    c0, iv0 = segs[0]
    two_intervals = (f"FINAL ANSWER: {LETTERS[gi]}; {c0} [{iv0[0]:.1f}, {iv0[1]:.1f}] or [{iv0[0] + 60:.1f}, "
                     f"{iv0[1] + 60:.1f}]")
    return Kit(gold, wrong, [f"{LETTERS[i]}; {seg_text(0.0)}" for i in range(n)], seps=(" or ",), extra=[
        ("letters_only_all", "FINAL ANSWER: " + ", ".join(LETTERS[:n]), "hedged", False),
        ("two_intervals", two_intervals, "hedged", False),
        ("letter_in_words", "FINAL ANSWER: A guess would be hard here", "unparsed", False),
    ])


def _place(s: Sample, level: str) -> Kit:
    t = s.target
    region = t.get("admin1_name")
    gold = f"{t['name']}, {region}, {t['country']}" if region else f"{t['name']}, {t['country']}"
    decoys = [("Paris", "Île-de-France", "France"), ("Tokyo", "Tokyo", "Japan"), ("Lima", "Lima", "Peru"),
              ("Nairobi", "Nairobi", "Kenya")]
    decoys = [d for d in decoys if d[2] != t["country"] and d[0] != t["name"]]
    wrong = ", ".join(decoys[0])
    return Kit(gold, wrong, [gold, *(", ".join(d) for d in decoys[:3])], seps=(" or ", "; "), free_text=True, extra=[
        ("cities_listed", f"FINAL ANSWER: {t['name']} or {decoys[0][0]}, {t['country']}", "hedged", False),
    ])


def _time(s: Sample) -> Kit:
    dt = datetime.fromisoformat(s.target["datetime"])
    w1, w2 = dt + timedelta(hours=1), dt + timedelta(hours=2)
    return Kit(clock_line(dt), clock_line(dt + timedelta(hours=3)), [clock_line(dt), clock_line(w1), clock_line(w2)],
               seps=("; ", " or "), extra=[
        ("times_listed", f"FINAL ANSWER: {clock_only(dt)}, {clock_only(w1)} or {clock_only(w2)}", "hedged", False),
        ("dst_alternative", f"FINAL ANSWER: {clock_only(dt)} (or {clock_only(w1)} if DST applies)", "hedged", False),
        ("time_range", f"FINAL ANSWER: between {clock_only(dt)} and {clock_only(w1)}", "hedged", False),
        ("template_echo", "FINAL ANSWER: hh:mm AM/PM, Weekday, Month Day, Year", "unparsed", False),
    ])


def _tz(s: Sample) -> Kit:
    m = re.search(r'form "(.+?): UTC', s.prompt)
    city = m.group(1) if m else "City"
    minutes = [int(x) for x in s.target["offset_minutes"]]

    def off(mins: int) -> str:
        sign = "+" if mins >= 0 else "-"
        h, mm = divmod(abs(mins), 60)
        return f"UTC{sign}{h}" + (f":{mm:02d}" if mm else "")
    wrong_min = minutes[0] + 180 if minutes[0] <= 600 else minutes[0] - 180
    others = [m_ for m_ in (minutes[0] + 60, minutes[0] - 60) if m_ not in minutes]
    return Kit(f"{city}: {off(minutes[0])}", f"{city}: {off(wrong_min)}",
               [f"{city}: {off(minutes[0])}", *(f"{city}: {off(x)}" for x in others)], seps=("; ", " or "), labelled=True, extra=[
        ("offsets_or", f"FINAL ANSWER: {city}: {off(minutes[0])} or {off(others[0])}", "hedged", False),
        ("system_template_echo", "FINAL ANSWER: " + (placeholder(s.messages[0].content) or "City: UTC+X"),
         "unparsed", False),
    ])


def _gps(s: Sample) -> Kit:
    t, name = s.target, s.task
    if s.choices and "index" in t:
        return _letters(s, int(t["index"]))
    if name.startswith("gpsbench.relative_position"):
        g = ABBREV[t["direction"]]
        return Kit(DIRECTIONS[g], DIRECTIONS[(g + 4) % 8], list(DIRECTIONS), seps=(", ", " or "))
    if name == "gpsbench.route_analysis":
        return _two_way(t["answer"], "No" if t["answer"] == "Yes" else "Yes", False)
    if name == "gpsbench.distance" or (name == "gpsbench.bounding_box" and t["quantity"] == "diagonal"):
        g = float(t["km"])
        vals = [g, g * 1.5 + 100, g * 2 + 300, g * 3 + 500]
        return Kit(km(g), km(vals[1]), [km(v) for v in vals], numeric=True, unit=" km", value=g,
                   param="With R = 6371 km, the distance is")
    if name == "gpsbench.bearing":
        g = float(t["bearing_deg"])
        w = (g + 90) % 360
        return Kit(f"{g:.1f}° ({t['compass']})", f"{w:.1f}° ({compass(w)})",
                   [f"{v:.1f}°" for v in (g, (g + 120) % 360, (g + 240) % 360)], numeric=False)
    if name == "gpsbench.bounding_box" and t["quantity"] == "bounds":
        b = [float(x) for x in t["bounds"]]
        wb = [b[0] - 5, b[1] + 5, b[2] - 5, b[3] + 5]
        return Kit(", ".join(f"{x:.4f}" for x in b), ", ".join(f"{x:.4f}" for x in wb),
                   ["(" + ", ".join(f"{x:.4f}" for x in b) + ")", "(" + ", ".join(f"{x:.4f}" for x in wb) + ")"],
                   seps=(" or ",))
    if name in ("gpsbench.bounding_box", "gpsbench.interpolation", "gpsbench.format_conversion",
                "gpsbench.coordinate_transformation") and "lat" in t and t.get("direction") != "dd_to_dms":
        lat, lon = float(t["lat"]), float(t["lon"])
        pts = [(lat, lon), moved(lat, lon, 1), moved(lat, lon, 2)]
        return Kit(latlon(lat, lon, 6), latlon(*pts[1], 6), [f"({latlon(*p, 6)})" for p in pts], seps=(" or ", ", "))
    if t.get("direction") == "dd_to_dms":
        lat, lon = float(t["lat"]), float(t["lon"])
        return Kit(str(t["dms"]), dms(*moved(lat, lon, 1)), [str(t["dms"]), dms(*moved(lat, lon, 1))],
                   seps=(" or ",))
    if t.get("direction") == "wgs84_to_webmercator":
        x, y = float(t["x"]), float(t["y"])
        return Kit(f"x = {x:.2f}, y = {y:.2f}", f"x = {x + 90000:.2f}, y = {y - 90000:.2f}",
                   [f"(x = {x:.2f}, y = {y:.2f})", f"(x = {x + 90000:.2f}, y = {y - 90000:.2f})"], seps=(" or ",))
    if t.get("direction") == "wgs84_to_utm":
        e, n = float(t["easting"]), float(t["northing"])
        z = f"Zone {t['zone']}{t['hemisphere']}"
        return Kit(f"{z}, {e:.2f} E, {n:.2f} N", f"{z}, {e + 5000:.2f} E, {n + 5000:.2f} N",
                   [f"{z}, {e:.2f} E, {n:.2f} N", f"{z}, {e + 5000:.2f} E, {n + 5000:.2f} N"], seps=(" or ",))
    if name == "gpsbench.missing_data":
        g = float(t["value"])
        w = g - 7 if g > 0 else g + 7
        return Kit(f"{g:.5f}", f"{w:.5f}", [f"{v:.5f}" for v in (g, w, (g + w) / 2 - 3)], seps=(", ", " or "))
    if name == "gpsbench.polygon_area":
        a, p = float(t["area_km2"]), float(t["perimeter_km"])
        return Kit(f"{a:.1f} km², {p:.1f} km", f"{a * 1.5 + 1000:.1f} km², {p * 1.5:.1f} km",
                   [f"{v:.1f} km²" for v in (a, a * 1.5 + 1000, a * 2 + 3000)], seps=(", ", " or "), extra=[
            ("area_only", f"FINAL ANSWER: {a:.1f} km²", "answered", True),
            ("area_or", f"FINAL ANSWER: {a:.1f} km² or {a * 1.5 + 1000:.1f} km²", "hedged", False),
        ])
    if name == "gpsbench.route_geometry":
        kept = [int(i) for i in t["kept"]]
        wrong = kept[:1] + kept[-1:] if len(kept) > 2 else [*kept, kept[-1] + 1]
        return Kit(str(kept), str(wrong), [str(kept), str(wrong)], seps=(" or ",))
    if name == "gpsbench.boundary_analysis":
        groups: dict[str, list[str]] = t["groups"]
        conts = ["Africa", "Asia", "Europe", "North America", "South America", "Oceania"]
        gold = "; ".join(f"{c}: {', '.join(ps)}" for c, ps in groups.items())
        places = [p for ps in groups.values() for p in ps]
        wrong_cont = next(c for c in conts if c not in groups)
        every = "; ".join(f"{c}: {', '.join(places)}" for c in conts)
        return Kit(gold, f"{wrong_cont}: {', '.join(places)}", [], seps=(), free_text=True, extra=[
            ("every_place_everywhere", f"FINAL ANSWER: {every}", "hedged", False)])
    if name.startswith("gpsbench.place_association"):
        return _place(s, name.rsplit(".", 1)[-1])
    raise KeyError(f"no answer kit for {name} target {t}")


def _stbench(s: Sample) -> Kit:
    completion = s.meta.get("style") == "completion"
    kind = s.meta.get("kind")
    t = s.target
    if "option" in t:
        return _stbench_option(s, completion)
    if t.get("answer") in ("yes", "no") or kind in ("trajectory_identification", "poi_identification"):
        g = "Yes" if t["answer"] == "yes" else "No"
        return _two_way(g, "No" if g == "Yes" else "Yes", completion)
    if t.get("answer") in ("normal", "anomalous"):
        return _two_way(t["answer"], "normal" if t["answer"] == "anomalous" else "anomalous", completion)
    lonlat = s.payload.get("answer_order") == "lonlat" or (completion and "answer_order" not in s.payload)
    return _point(s, lonlat, completion)


def kit_for(s: Sample) -> Kit:
    """The answer kit of a sample, chosen by its family and gold."""
    family = s.task.split(".", 1)[0]
    if family == "gpsbench":
        return _gps(s)
    if family == "stbench":
        return _stbench(s)
    if family == "geotemp":
        return _tz(s) if s.task == "geotemp.tz_probe" else _time(s)
    if family == "gtr":
        return _gtr_prediction(s) if "segments" in s.target and "FINAL ANSWER: <letter>;" in s.prompt else \
            _letters(s, int(s.target["index"]))
    raise KeyError(f"no answer kit for {s.task}")


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

    yield from (case(n, r, st, c) for n, r, st, c in k.extra)
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
    if k.numeric and k.value is not None:
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

