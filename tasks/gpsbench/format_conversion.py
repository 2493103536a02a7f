"""GPSBench Pure GPS: format conversion between decimal degrees and degrees-minutes-seconds (App. B.1).

A random city; the direction (DD → DMS or DMS → DD) is drawn per sample. The prompt shows the position exactly
as the gold was computed from it (DD with 5 decimals, DMS with seconds to 0.1″). Correct when both latitude and
longitude are within 1 arc-second of the gold and the answer is in the requested format; the error is the
larger of the two differences in arc-seconds. Hemisphere swaps (N/E exchanged) are named in the explanation.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypedDict

from geocore.coords import format_dms
from tasks.answers import PairAnswer, coordinate_pair, extract
from tasks.examples import Replies
from tasks.gpsbench import examples
from tasks.gpsbench.common import GpsTask, failed, graded, place_meta
from tasks.gpsbench.sampling import sample_global
from tasks.records import Parsed, Sample, Score
from tasks.registry import register_task
from tasks.scorers import lon_diff

TOLERANCE_ARCSEC = 1.0
DIRECTIONS = ("dd_to_dms", "dms_to_dd")

TO_DMS = (
    "Convert the position {lat:.5f}, {lon:.5f} (latitude, longitude in decimal degrees; negative is south or "
    "west) to degrees, minutes and seconds with hemisphere letters, seconds to one decimal.\n"
    "End your reply with the line FINAL ANSWER: D°M'S.s\"N/S, D°M'S.s\"E/W (latitude first)."
)
TO_DD = (
    "Convert the position {dms} from degrees, minutes and seconds to decimal degrees (negative for south and "
    "west), with at least 5 decimals.\nEnd your reply with the line FINAL ANSWER: latitude, longitude."
)


def dms_shown_value(x: float) -> float:
    """The signed decimal value of ``format_dms(..., 1)``'s rendering of ``x`` (seconds rounded to 0.1″)."""
    total = round(abs(x) * 3600.0, 1)
    return (-total if x < 0 else total) / 3600.0


class FormatTarget(TypedDict):
    direction: str
    lat: float
    lon: float
    dms: str


@register_task("gpsbench.format_conversion")
class FormatConversionTask(GpsTask[FormatTarget, PairAnswer]):
    toolsets = ("projections",)
    answer_kind = "coordinate"

    def draw(self, seed: int, size: int) -> Iterator[Sample[FormatTarget]]:
        rng = self.rng(seed)
        for i in range(size):
            city = sample_global(rng, 1, 0.0)[0]
            direction = rng.choice(DIRECTIONS)
            lat, lon = round(city.lat, 5), round(city.lon, 5)
            dms = format_dms(lat, lon, 1)
            target: FormatTarget
            if direction == "dd_to_dms":
                prompt = TO_DMS.format(lat=lat, lon=lon)
                target = {"direction": direction, "lat": lat, "lon": lon, "dms": dms}
            else:
                prompt = TO_DD.format(dms=dms)
                target = {"direction": direction, "lat": round(dms_shown_value(lat), 7),
                          "lon": round(dms_shown_value(lon), 7), "dms": dms}
            yield self.make(i, size, prompt, target, {"lat": lat, "lon": lon, "dms": dms, "city": city.name},
                                 place_meta(city, direction=direction))

    def example_replies(self, sample: Sample[FormatTarget]) -> Replies:
        return examples.format_conversion(sample)

    def parse(self, text: str, sample: Sample[FormatTarget]) -> Parsed[PairAnswer]:
        """The coordinate pair of the committed answer (DMS or decimal, hemisphere letters or signs); the same
        position in both formats is one answer, two different positions are hedged."""
        return extract(text, coordinate_pair, prompt=sample.prompt)

    def score(self, parsed: Parsed[PairAnswer], sample: Sample[FormatTarget]) -> Score:
        if not parsed.ok:
            return failed(parsed, "arcsec")
        t, v = sample.target, parsed.answer
        err = max(abs(v["lat"] - t["lat"]), lon_diff(v["lon"], t["lon"])) * 3600.0
        want_dms = t["direction"] == "dd_to_dms"
        format_ok = v["dms"] == want_dms
        ok = err <= TOLERANCE_ARCSEC and format_ok
        note = "" if format_ok else f"; answer not in {'DMS' if want_dms else 'decimal degrees'}"
        swapped = max(abs(v["lon"] - t["lat"]), lon_diff(v["lat"], t["lon"])) * 3600.0 <= TOLERANCE_ARCSEC
        if swapped and not ok:
            note += "; hemisphere letters swapped between latitude and longitude"
        return graded(ok, err, "arcsec", f"error {err:.2f}″ (tolerance {TOLERANCE_ARCSEC}″){note}")
