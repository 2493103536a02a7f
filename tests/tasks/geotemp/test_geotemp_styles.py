"""GeoTemp's protocol: each item of a template asked in all three instruction styles, same items and gold as the
base task, ``limit`` counting items."""

from __future__ import annotations

from tasks import get_task
from tasks.geotemp.templates import STYLE_SUFFIX


def test_each_item_in_three_styles_with_the_base_items_gold() -> None:
    base = {s.id.split("/", 1)[1]: s for s in get_task("geotemp.time_time_place", size=40).generate(3, 40)}
    styled = get_task("geotemp.time_time_place.styles", size=40).generate(3, 40)
    assert len(styled) == 3 * len(base) and len({s.id for s in styled}) == len(styled)
    by_item: dict[str, list] = {}
    for s in styled:
        assert s.meta["item"].startswith("geotemp.time_time_place.styles/")
        by_item.setdefault(s.meta["item"].split("/", 1)[1], []).append(s)
    assert set(by_item) == set(base)
    for item, group in by_item.items():
        assert sorted(s.meta["style"] for s in group) == ["cot", "neutral", "short"]
        b = base[item]
        for s in group:
            assert s.target == b.target and s.split == b.split
            assert s.id == f"geotemp.time_time_place.styles[{s.meta['style']}]/{item}"
            question = b.prompt.removesuffix(STYLE_SUFFIX[b.meta["style"]])
            assert s.prompt == question + STYLE_SUFFIX[s.meta["style"]]


def test_limit_counts_items() -> None:
    task = get_task("geotemp.verification.styles", size=40)
    picked = task.samples(split="test", limit=2)
    assert len(picked) == 6 and len({s.meta["item"] for s in picked}) == 2
    assert {s.meta["item"].split("/", 1)[1] for s in picked} == {
        s.id.split("/", 1)[1] for s in get_task("geotemp.verification", size=40).samples(split="test", limit=2)}
