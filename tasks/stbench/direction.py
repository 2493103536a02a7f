"""STBench direction determination (DD, §4.4, Table 14).

A is a GeoNames city (population ≥ 50,000), B one of the 60 cities nearest to A at least 5 km away (the paper
used Yelp POIs a few hundred km apart). The gold is the spherical initial bearing from A to B
(:func:`geocore.geodesy.initial_bearing`, computed from the 4-decimal coordinates shown) binned into 8
sectors of 45° centred on the compass points (North = [337.5°, 22.5°)). Pairs within 1° of a sector edge are
redrawn, so the ellipsoidal azimuth or rounding cannot flip the gold. The eight options keep the paper's order.
"""

from __future__ import annotations

import random
from functools import cache

from geocore.gazetteer import City, cities, nearest_cities
from geocore.geodesy import COMPASS_8, compass_point, haversine_km, initial_bearing
from tasks.records import GoldCall, Sample
from tasks.registry import register_task
from tasks.stbench.common import COMPLETION, Item, OptionTarget, OptionTask
from tasks.stbench.prompts import OPTION_INSTRUCTION, Fmt, num, options_inline, options_lines

DIRECTIONS = ("North", "Northeast", "East", "Southeast", "South", "Southwest", "West", "Northwest")
OPTIONS = [(i + 1, d) for i, d in enumerate(DIRECTIONS)]
EDGE_MARGIN_DEG = 1.0
DECIMALS = 4


def sector_margin(bearing: float) -> float:
    """Degrees from ``bearing`` to the nearest 8-sector edge (22.5° + k·45°)."""
    offset = (bearing - 22.5) % 45.0
    return min(offset, 45.0 - offset)


@cache
def _towns() -> tuple[City, ...]:
    return tuple(c for c in cities() if c.population >= 50_000)


class DirectionTarget(OptionTarget):
    bearing_deg: float


@register_task("stbench.direction", variants=(COMPLETION,))
class DirectionTask(OptionTask[DirectionTarget]):
    """In which of 8 directions does B lie from A."""

    toolsets = ("geodesy",)
    paper_size = 5000

    def make(self, rng: random.Random, index: int) -> Item[DirectionTarget]:
        return self.retry(lambda: self._draw(rng))

    def _draw(self, rng: random.Random) -> Item[DirectionTarget] | None:
        towns = _towns()
        a = towns[rng.randrange(len(towns))]
        near = [c for c, d in nearest_cities(a.lat, a.lon, 60) if d >= 5.0]
        if not near:
            return None
        b = near[rng.randrange(len(near))]
        la1, lo1, la2, lo2 = (round(v, DECIMALS) for v in (a.lat, a.lon, b.lat, b.lon))
        bearing = initial_bearing(la1, lo1, la2, lo2)
        if sector_margin(bearing) < EDGE_MARGIN_DEG:
            return None
        gold = COMPASS_8.index(compass_point(bearing, 8)) + 1
        return Item(
            payload={"a": [la1, lo1], "b": [la2, lo2], "names": [a.name, b.name]},
            target={"option": gold, "label": DIRECTIONS[gold - 1], "bearing_deg": round(bearing, 3)},
            meta={"continent": a.continent, "distance_km": round(haversine_km(la1, lo1, la2, lo2), 1)},
            options=list(OPTIONS),
        )

    def gold_call(self, sample: Sample[DirectionTarget]) -> GoldCall:
        """``initial_bearing`` from A to B; any bearing in the gold's sector is the gold (its 8-point name)."""
        (la1, lo1), (la2, lo2) = sample.payload["a"], sample.payload["b"]
        bearing = float(sample.target["bearing_deg"])
        return GoldCall(tools=("initial_bearing",), args={"lat1": la1, "lon1": lo1, "lat2": la2, "lon2": lo2},
                        result_key="bearing_deg", gold=bearing, tolerance=sector_margin(bearing), angle=True)

    def render(self, item: Item[DirectionTarget], fmt: Fmt) -> str:
        (la1, lo1), (la2, lo2) = item.payload["a"], item.payload["b"]
        opts = item.options or []
        if fmt.lonlat:
            return (
                f"Question: Point A is at longitude {num(lo1, DECIMALS)}, latitude {num(la1, DECIMALS)}; point B "
                f"is at longitude {num(lo2, DECIMALS)}, latitude {num(la2, DECIMALS)}. Work out the azimuth from A "
                "to B and fill in the brackets: B lies to the () of A. Choose from these options: "
                f"{options_inline(opts)}. Give only the option number.\nAnswer: Option ("
            )
        return (
            f"Point A is at latitude {num(la1, DECIMALS)}, longitude {num(lo1, DECIMALS)}; point B is at latitude "
            f"{num(la2, DECIMALS)}, longitude {num(lo2, DECIMALS)}. In which direction does B lie from A? Use the "
            "initial great-circle bearing from A to B and the 8-point compass, each direction covering 45° "
            "centred on it (North is 337.5° to 22.5°).\n"
            f"{options_lines(opts)}\n{OPTION_INSTRUCTION}"
        )
