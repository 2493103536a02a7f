"""Terrain facts at a point: distance to the sea on the 1 km land mask, and a small curated atlas of well-known
natural regions (high mountain massifs, deserts, large forests, major farming regions).

The atlas is coarse on purpose: each region is one or more latitude/longitude boxes approximating the region's
usual extent in general references (atlases, encyclopaedia articles), drawn tightly around its core so that
neighbouring regions of another kind do not overlap the core. It answers "which well-known region is this
point in", not a land-cover map: a point outside every box gets no region.

The sea test uses global-land-mask's 1 km GLOBE mask, where oceans and seas are water and most lakes count as
land, so "sea" here means salt water connected to the ocean.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from geocore import validation as check
from geocore.sphere import EARTH_RADIUS_KM, destination_np

REGION_KINDS: tuple[str, ...] = ("mountain", "desert", "forest", "agricultural")

Box = tuple[float, float, float, float]  # (south, north, west, east) in degrees


@dataclass(frozen=True)
class NaturalRegion:
    """A named region of one kind, approximated by boxes (south, north, west, east); ``source`` says where the
    extent comes from."""

    name: str
    kind: str
    boxes: tuple[Box, ...]
    source: str

    def contains(self, lat: float, lon: float) -> bool:
        return any(s <= lat <= n and w <= lon <= e for s, n, w, e in self.boxes)


def _r(name: str, kind: str, boxes: list[Box], source: str) -> NaturalRegion:
    return NaturalRegion(name, kind, tuple(boxes), source)


_GEN = "approximate core extent from general atlases and encyclopaedia entries"
NATURAL_REGIONS: tuple[NaturalRegion, ...] = (
    # --- high mountains (massifs and ranges whose summits exceed 2,000 m)
    _r("Himalaya and Karakoram", "mountain",
       [(27.0, 30.5, 80.0, 89.0), (30.0, 33.5, 76.0, 80.5), (33.5, 36.5, 72.5, 77.5), (27.0, 29.5, 89.0, 97.0)],
       f"Himalayan arc from the Karakoram to Arunachal Pradesh; {_GEN}"),
    _r("Alps", "mountain", [(45.7, 47.0, 6.0, 10.5), (46.3, 47.6, 10.5, 14.5)],
       f"Western, Central and Eastern Alps main ridge; {_GEN}"),
    _r("Andes", "mountain",
       [(-35.0, -30.0, -71.5, -69.0), (-17.5, -14.0, -72.5, -67.0), (-10.5, -8.0, -78.5, -76.5),
        (-2.5, 0.5, -79.5, -77.5), (7.5, 9.5, -72.0, -70.0)],
       f"Central Andes, Cordillera Real, Cordillera Blanca, Ecuadorian and Venezuelan Andes; {_GEN}"),
    _r("Caucasus", "mountain", [(42.0, 44.0, 40.0, 48.0)], f"Greater Caucasus main ridge; {_GEN}"),
    _r("Kilimanjaro massif", "mountain", [(-3.3, -2.8, 37.0, 37.7)], f"Kibo, Mawenzi and Shira cones; {_GEN}"),
    _r("Mount Kenya massif", "mountain", [(-0.4, 0.1, 37.0, 37.6)], f"Mount Kenya National Park; {_GEN}"),
    _r("Rwenzori Mountains", "mountain", [(0.0, 1.0, 29.6, 30.2)], f"Uganda-DR Congo border range; {_GEN}"),
    _r("Simien Mountains", "mountain", [(12.9, 13.5, 37.8, 38.6)], f"Ethiopian Highlands around Ras Dashen; {_GEN}"),
    _r("High Atlas", "mountain", [(30.5, 33.0, -9.0, -4.5)], f"Moroccan High Atlas around Toubkal; {_GEN}"),
    _r("Alaska Range", "mountain", [(62.0, 64.0, -153.0, -146.0)], f"Denali massif and neighbours; {_GEN}"),
    _r("Saint Elias Mountains", "mountain", [(60.0, 61.5, -142.0, -138.0)], f"Yukon-Alaska icefields; {_GEN}"),
    _r("Sierra Nevada (California)", "mountain", [(35.8, 38.5, -119.3, -118.0)], f"High Sierra crest; {_GEN}"),
    _r("Southern Rocky Mountains", "mountain", [(37.0, 41.0, -108.0, -105.0)], f"Colorado Rockies; {_GEN}"),
    _r("Cascade Range (Mount Rainier)", "mountain", [(46.0, 47.5, -122.2, -121.0)], f"Washington Cascades; {_GEN}"),
    _r("Pico de Orizaba massif", "mountain", [(18.8, 19.3, -97.5, -97.0)], f"Trans-Mexican Volcanic Belt; {_GEN}"),
    _r("Southern Alps (Aoraki)", "mountain", [(-44.5, -43.0, 169.5, 171.0)], f"Main Divide around Aoraki; {_GEN}"),
    _r("Mount Fuji", "mountain", [(35.25, 35.45, 138.6, 138.85)], f"the volcano's cone above 2,000 m; {_GEN}"),
    _r("Alborz", "mountain", [(35.5, 36.5, 50.0, 53.5)], f"Central Alborz around Damavand; {_GEN}"),
    _r("Mount Ararat", "mountain", [(39.5, 40.0, 44.0, 44.6)], f"Greater and Lesser Ararat; {_GEN}"),
    _r("Mount Kinabalu", "mountain", [(5.9, 6.2, 116.4, 116.7)], f"Kinabalu Park, Sabah; {_GEN}"),
    _r("Sudirman Range", "mountain", [(-4.5, -3.5, 136.5, 138.0)], f"Puncak Jaya area, Papua; {_GEN}"),
    _r("Bismarck Range", "mountain", [(-6.0, -5.5, 144.7, 145.3)], f"Mount Wilhelm area, Papua New Guinea; {_GEN}"),
    _r("Altai (Tavan Bogd)", "mountain", [(48.5, 50.5, 86.5, 89.5)], f"Mongolian-Russian Altai; {_GEN}"),
    _r("Snowy Mountains", "mountain", [(-36.7, -36.0, 148.0, 148.6)], f"Kosciuszko National Park; {_GEN}"),
    _r("Sierra Nevada (Spain)", "mountain", [(36.9, 37.2, -3.6, -2.9)], f"Mulhacén and Veleta; {_GEN}"),
    _r("Mount Olympus (Greece)", "mountain", [(40.0, 40.2, 22.2, 22.5)], f"Olympus massif; {_GEN}"),
    _r("Rila", "mountain", [(42.0, 42.3, 23.3, 23.8)], f"Rila massif around Musala; {_GEN}"),
    _r("High Tatras", "mountain", [(49.1, 49.3, 19.8, 20.3)], f"Slovak-Polish High Tatras; {_GEN}"),
    # --- deserts
    _r("Sahara", "desert", [(17.0, 30.5, -13.0, 31.0), (30.5, 32.0, -4.5, 10.0)],
       f"Sahara between the Sahel, the Atlas and the Nile valley; {_GEN}"),
    _r("Arabian Desert", "desert", [(17.0, 30.0, 38.0, 56.0)], f"Rub' al Khali, Nafud and Dahna; {_GEN}"),
    _r("Gobi and Alxa deserts", "desert", [(40.5, 45.5, 95.0, 112.0), (38.5, 42.0, 99.0, 106.0)],
       f"Gobi, Badain Jaran and Tengger; {_GEN}"),
    _r("Taklamakan", "desert", [(37.0, 41.0, 77.0, 88.0)], f"Tarim Basin sand sea; {_GEN}"),
    _r("Thar Desert", "desert", [(24.5, 29.5, 69.5, 73.5)], f"Great Indian Desert; {_GEN}"),
    _r("Kalahari", "desert", [(-27.0, -20.0, 19.0, 25.0)], f"Kalahari basin, Botswana; {_GEN}"),
    _r("Namib", "desert", [(-28.0, -17.0, 12.0, 16.0)], f"Namib coastal desert; {_GEN}"),
    _r("Atacama", "desert", [(-27.0, -18.0, -70.6, -68.7)], f"Atacama west of the high Andes; {_GEN}"),
    _r("Australian deserts", "desert", [(-30.0, -19.0, 122.0, 138.5)],
       f"Great Victoria, Gibson, Great Sandy and Simpson deserts; {_GEN}"),
    _r("Mojave and Sonoran deserts", "desert", [(31.0, 36.5, -117.2, -113.5)],
       f"Death Valley, Mojave and Gran Desierto de Altar; {_GEN}"),
    _r("Karakum and Kyzylkum", "desert", [(37.5, 41.5, 56.0, 63.0), (40.0, 44.0, 61.0, 67.0)],
       f"Turkmen and Uzbek sand deserts; {_GEN}"),
    _r("Dasht-e Lut", "desert", [(29.0, 32.0, 57.0, 60.0)], f"Lut desert, Iran; {_GEN}"),
    # --- forests
    _r("Amazon rainforest", "forest", [(-12.0, 4.0, -75.0, -50.0)], f"Amazon basin lowland forest; {_GEN}"),
    _r("Congo rainforest", "forest", [(-4.0, 4.0, 15.0, 29.0), (1.5, 4.0, 12.0, 15.0)],
       f"Congo basin and the Dja forest; {_GEN}"),
    _r("Borneo rainforest", "forest", [(-2.0, 3.5, 110.5, 117.5)], f"interior Borneo; {_GEN}"),
    _r("Taman Negara rainforest", "forest", [(4.3, 5.0, 102.0, 103.0)], f"Malay Peninsula interior; {_GEN}"),
    _r("Siberian taiga", "forest", [(55.0, 66.0, 85.0, 115.0)], f"Central Siberian boreal forest; {_GEN}"),
    _r("Canadian boreal forest", "forest", [(54.5, 60.0, -120.0, -95.0)],
       f"boreal forest of northern Alberta, Saskatchewan and Manitoba; {_GEN}"),
    _r("Fennoscandian taiga", "forest", [(62.0, 66.0, 14.0, 30.0)], f"Norrland and Finnish boreal forest; {_GEN}"),
    _r("Black Forest", "forest", [(47.6, 48.9, 7.8, 8.7)], f"Schwarzwald, Baden-Württemberg; {_GEN}"),
    _r("Białowieża Forest", "forest", [(52.5, 53.0, 23.5, 24.2)], f"Polish-Belarusian primeval forest; {_GEN}"),
    # --- major farming regions
    _r("US Corn Belt", "agricultural", [(39.5, 44.5, -97.0, -84.0)], f"Iowa, Illinois, Indiana maize and soy; {_GEN}"),
    _r("Great Plains wheat belt", "agricultural", [(36.5, 42.0, -101.0, -97.0)], f"Kansas and Nebraska; {_GEN}"),
    _r("Canadian Prairies", "agricultural", [(49.0, 53.0, -112.0, -98.0)], f"Saskatchewan grain belt; {_GEN}"),
    _r("Pampas", "agricultural", [(-38.0, -32.0, -64.0, -58.0)], f"Argentine Pampa Húmeda; {_GEN}"),
    _r("Mato Grosso soy belt", "agricultural", [(-15.0, -11.0, -59.0, -53.0)], f"Cerrado soy frontier; {_GEN}"),
    _r("Ukrainian black-earth belt", "agricultural", [(46.5, 51.0, 30.0, 38.0)], f"chernozem steppe; {_GEN}"),
    _r("Kuban", "agricultural", [(44.5, 46.5, 38.5, 41.5)], f"Krasnodar Krai grain lands; {_GEN}"),
    _r("Punjab plains", "agricultural", [(29.5, 32.5, 73.5, 77.0)], f"Indus-Sutlej wheat and rice; {_GEN}"),
    _r("Upper Gangetic plain", "agricultural", [(25.0, 28.5, 78.5, 84.0)], f"Uttar Pradesh; {_GEN}"),
    _r("North China Plain", "agricultural", [(34.0, 38.5, 114.0, 118.0)], f"Huang-Huai-Hai plain; {_GEN}"),
    _r("Songnen Plain", "agricultural", [(44.0, 48.0, 123.0, 128.0)], f"Northeast China grain belt; {_GEN}"),
    _r("Central Plains of Thailand", "agricultural", [(13.8, 16.0, 99.5, 101.0)], f"Chao Phraya rice; {_GEN}"),
    _r("Beauce and Paris Basin", "agricultural", [(47.8, 49.2, 0.8, 3.5)], f"French cereal plain; {_GEN}"),
    _r("Po Valley", "agricultural", [(44.7, 45.6, 8.5, 12.0)], f"Padan Plain, northern Italy; {_GEN}"),
    _r("Great Hungarian Plain", "agricultural", [(46.2, 47.8, 19.5, 22.0)], f"Alföld; {_GEN}"),
    _r("Western Australian Wheatbelt", "agricultural", [(-33.5, -29.5, 116.5, 119.5)], f"Wheatbelt; {_GEN}"),
    _r("Riverina", "agricultural", [(-36.0, -33.5, 144.0, 148.0)], f"Murray-Darling irrigation; {_GEN}"),
    _r("California Central Valley", "agricultural", [(35.0, 40.0, -122.3, -119.3)],
       f"San Joaquin and Sacramento valleys; {_GEN}"),
    _r("Free State maize triangle", "agricultural", [(-29.0, -26.5, 25.5, 28.5)], f"South African maize; {_GEN}"),
)


def natural_regions_at(lat: float, lon: float) -> list[NaturalRegion]:
    """The atlas regions whose boxes contain (lat, lon), in atlas order (empty when none)."""
    la, lo = check.lat(lat, "lat"), check.lon(lon, "lon")
    return [r for r in NATURAL_REGIONS if r.contains(la, lo)]


@cache
def _globe() -> Any:
    from global_land_mask import globe  # importing takes seconds: do it on first use

    return globe


_RING_STEP_KM = 0.5
_BEARINGS_DEG = np.arange(72) * 5.0


def distance_to_sea_km(lat: float, lon: float, max_km: float = 25.0) -> float | None:
    """Distance in km (0.5 km steps) from (lat, lon) to the nearest sea pixel of the 1 km land mask.

    0.0 when the point itself is sea; None when no sea lies within ``max_km`` (searched on rings every 0.5 km,
    72 bearings each). Lakes mostly count as land on this mask.
    """
    la, lo = check.lat(lat, "lat"), check.lon(lon, "lon")
    limit = check.positive(max_km, "max_km")
    if limit > 200.0:
        raise ValueError(f"max_km must be <= 200, got {limit}")
    globe = _globe()
    if not bool(globe.is_land(la, lo)):
        return 0.0
    radii = np.arange(_RING_STEP_KM, limit + 1e-9, _RING_STEP_KM)
    lats, lons = destination_np(la, lo, _BEARINGS_DEG[None, :], radii[:, None] / EARTH_RADIUS_KM)
    lats, lons = np.clip(lats, -90.0, 90.0), (lons + 180.0) % 360.0 - 180.0
    land = np.asarray(globe.is_land(lats, lons), dtype=bool)
    rows = np.flatnonzero(~land.all(axis=1))
    return float(radii[rows[0]]) if rows.size else None
