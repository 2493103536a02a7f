"""A variant draws its base's items whatever its name: tasks that seed their generator from their identity use
``item_key`` (the base's name), so a variant added later pairs with its base item by item."""

from __future__ import annotations

import pytest

from tasks import registry
from tasks.registry import Variant, get_task

SEEDED_BY_NAME = ["gpsbench.distance", "gtr.geo_location", "gtr.next_spot", "geotemp.tz_probe"]


@pytest.mark.parametrize("name", SEEDED_BY_NAME)
def test_a_new_variant_draws_the_same_items_as_its_base(name: str) -> None:
    base = get_task(name)
    variant_cls = registry._variant_class(type(base), name, Variant("probe", {}, "A test variant."))
    variant = variant_cls(**({"size": base.size} if getattr(base, "size", None) else {}))
    assert variant.name == f"{name}.probe" and variant.item_key == name
    mine = variant.samples(split="test", limit=3)
    theirs = base.samples(split="test", limit=3)
    assert [s.target for s in mine] == [s.target for s in theirs]
    assert [s.prompt for s in mine] == [s.prompt for s in theirs]
    assert [s.id.removeprefix(f"{name}.probe") for s in mine] == [s.id.removeprefix(name) for s in theirs]
