"""GPSBench Applied: terrain classification of a coordinate (App. B.2, C.6).

Sites come from the curated table in :mod:`tasks.gpsbench.terrain_data` (each with one line of provenance),
split 60/10/30 by site within each class so no site appears in two splits. Samples cycle through the six
classes and shuffle the option letters. The prompt states the classes and the order in which they apply
(urban, then coastal, then the natural region), so every site has one answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from geocore.gazetteer import continent_of_country
from tasks.base import stable_seed
from tasks.gpsbench.common import LETTERS, ChoiceTarget, ChoiceTask, options_block, place_meta
from tasks.gpsbench.terrain_data import SITES, TERRAIN_CLASSES, TerrainSite
from tasks.records import Sample, Split
from tasks.registry import register_task

DEFINITIONS = {
    "urban": "Urban: within 10 km of the centre of a city of at least 1 million people",
    "coastal": "Coastal: within 5 km of the sea",
    "mountain": "Mountain: high mountains, above 2,000 m",
    "desert": "Desert: an arid desert",
    "forest": "Forest: a large forest (rainforest, taiga or temperate forest)",
    "agricultural": "Agricultural: a major farming region",
}
SYNONYMS = {
    "urban": ["Urban", "city", "urban area"],
    "coastal": ["Coastal", "coast", "seaside"],
    "mountain": ["Mountain", "mountains", "mountainous", "alpine"],
    "desert": ["Desert", "arid"],
    "forest": ["Forest", "forested", "rainforest", "taiga", "woodland"],
    "agricultural": ["Agricultural", "agriculture", "farmland", "farming", "cropland"],
}
TEMPLATE = (
    "What kind of terrain is at {lat:.4f}, {lon:.4f} (latitude, longitude in decimal degrees)? Use the first "
    "class that applies, in this order: {rule}.\n{options}\nEnd your reply with the line FINAL ANSWER: <letter>."
)
RULE = "; ".join(DEFINITIONS[k] for k in TERRAIN_CLASSES)


@cache
def sites_by_split() -> dict[tuple[str, str], tuple[TerrainSite, ...]]:
    """Sites of each (split, class): per class, sites in a stable hashed order cut 60/10/30 (at least one each)."""
    out: dict[tuple[str, str], tuple[TerrainSite, ...]] = {}
    for cls in TERRAIN_CLASSES:
        group = sorted((s for s in SITES if s.terrain == cls), key=lambda s: stable_seed("terrain", s.name))
        n = len(group)
        n_train = max(1, int(n * 0.6))
        n_dev = max(1, int(n * 0.1))
        out[("train", cls)] = tuple(group[:n_train])
        out[("dev", cls)] = tuple(group[n_train:n_train + n_dev])
        out[("test", cls)] = tuple(group[n_train + n_dev:])
    return out


class TerrainTarget(ChoiceTarget):
    terrain: str


@register_task("gpsbench.terrain_classification")
class TerrainClassificationTask(ChoiceTask[TerrainTarget]):
    track = "applied"
    toolsets = ("gazetteer",)

    def draw(self, seed: int, size: int) -> Iterator[Sample[TerrainTarget]]:
        rng = self.rng(seed)
        pools = sites_by_split()
        for i in range(size):
            split: Split = self.split_of(i)
            cls = TERRAIN_CLASSES[i % len(TERRAIN_CLASSES)]
            site = rng.choice(pools[(split, cls)])
            order = list(TERRAIN_CLASSES)
            rng.shuffle(order)
            labels = [DEFINITIONS[k].split(":")[0] for k in order]
            answer = order.index(site.terrain)
            cont = continent_of_country(site.country_code)
            yield self.make(
                i, size, TEMPLATE.format(lat=site.lat, lon=site.lon, rule=RULE, options=options_block(labels)),
                {"letter": LETTERS[answer], "index": answer, "terrain": site.terrain},
                {"lat": site.lat, "lon": site.lon, "site": site.name, "provenance": site.provenance,
                 "aliases": [SYNONYMS[k] for k in order]},
                place_meta(country_code=site.country_code, continent=cont, terrain=site.terrain, site=site.name),
                choices=labels,
            )
